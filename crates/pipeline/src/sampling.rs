//! Which CTAs a sampled profile emulates.
//!
//! The first sample is the `k` CTAs asked for, spread over the grid
//! ([`characterize::Sample::spread`]). When their instruction counts agree
//! (the extrapolated total's relative standard error is at most
//! [`SAMPLING_TARGET`]) that is the profile. When they do not, the grid is
//! probed:
//!
//! - **Probe.** Up to [`PROBE_CTAS`] x `k` CTAs spread over the grid run,
//!   with at most [`PROBE_FUEL`] instructions per warp. Those that finish
//!   within twice the instructions of the CTA that ran fewest are *idle*:
//!   the CTAs past the data of a grid rounded up to whole blocks, which exit
//!   after their range checks. A CTA stops at the budget, so the probe
//!   costs at most [`PROBE_FUEL`] instructions per warp of each CTA.
//!   The CTAs that ran out are *heavy*, those that finished with more
//!   instructions *light*.
//! - **Stratified sample.** When the probe finds more than one kind, the
//!   profile emulates `4 k` CTAs of the working kind (heavy, else light)
//!   and of each other kind as many as the probe's proportions say, each
//!   evenly spaced within its kind, and extrapolates the lot by grid /
//!   emulated as any sample. The busy share is then the probe's, resolved to one CTA in
//!   [`PROBE_CTAS`] x `k`, instead of whichever busy CTAs a small sample
//!   happened to catch: on dedispersion with 3 x 7 tiles (1 CTA in 13.5
//!   busy) a 64-CTA spread sample caught about 5 busy CTAs and over-counted
//!   the work by 49 %. The working CTAs double while their counts disagree,
//!   to at most [`SAMPLING_GROWTH`] x `k`.
//! - **Otherwise** (every probed CTA busy, or every one idle) the spread
//!   sample grows fourfold while its counts disagree, to at most
//!   [`SAMPLING_GROWTH`] x `k` CTAs.
//!
//! **Work budget.** The CTA counts above bound the emulated CTAs, not the
//! emulated work, and one CTA can be very long: a dedispersion CTA of 1,024
//! threads loops 1,536 times per tile, millions of warp instructions. So
//! with a budget (`Options::work_budget`, e.g. [`WORK_BUDGET`]) the CTAs
//! that work, in the stratified sample and in a growing spread sample, are
//! also bounded by that many warp instructions, priced
//! at the costliest CTA of the first sample, with at least
//! [`MIN_WORKING_CTAS`] of them (chosen by agreement with the unbudgeted
//! sample, see the constant). The sample is then smaller than the error target asks, and
//! its estimated error, reported as always, says what that cost. Kernels
//! whose CTAs are cheap (`4 k` working CTAs within the budget) are sampled
//! exactly as without it.

use emu::exec::{evenly_spaced, probe_ctas, spread_ctas};

use crate::error::PipelineError;
use crate::load::LoadedSpec;
use crate::run::{Emulated, Options, Plan, SAMPLING_GROWTH, SAMPLING_TARGET, emulate};
use crate::timings::{Stage, StageTimes};

/// CTAs probed per CTA asked for (see the module documentation).
pub const PROBE_CTAS: u64 = 1024;

/// Instructions per warp a probed CTA may run: one that runs out is *heavy*.
/// A CTA past the data runs its index arithmetic and range checks, a few
/// dozen instructions; one that does work on a large grid runs thousands.
pub const PROBE_FUEL: u64 = 512;

/// Working CTAs of a stratified sample per CTA asked for, before it grows.
const STRATIFIED_BUSY: u64 = 4;

/// Warp instructions the working CTAs of a grown or stratified sample may
/// cost in all (see the module documentation): about 1.5 CPU s of emulation
/// with the collector and the cache trace on the 2-core development machine
/// (about 1.3 M warp instructions per second there, measured on
/// dedispersion). A convolution CTA costs 10^4 to 10^5 warp instructions,
/// so its samples stay within it.
pub const WORK_BUDGET: u64 = 2_000_000;

/// Working CTAs a sample keeps however long each is. Two are the fewest from
/// which the spread of their counts (the estimated error) can be told, but
/// two working CTAs of dedispersion (20 RTX A4000 configurations, seed 1)
/// counted 0.64 to 1.00 times the warp instructions of the unbudgeted
/// sample (96 to 865 CTAs), three 0.78 to 1.21, four 0.86 to 1.04; with four
/// the timing model's predictions are 0.86 to 1.04 times the unbudgeted
/// ones (two: 0.64 to 1.00; on 20 RTX A6000 configurations 0.78 to 1.21
/// against 0.64 to 1.00), at 2.97 CPU s per configuration cold with one
/// job, NVRTC included (docs/speed.md, "Huge grids"). The criterion is
/// agreement with the unbudgeted emulation, not the measured times.
pub const MIN_WORKING_CTAS: u64 = 4;

/// Most working CTAs that fit `budget` warp instructions when each costs
/// `per_cta`, never fewer than [`MIN_WORKING_CTAS`]; no bound without a
/// budget.
pub fn budgeted_ctas(per_cta: u64, budget: Option<u64>) -> u64 {
    match budget {
        Some(b) => (b / per_cta.max(1)).max(MIN_WORKING_CTAS),
        None => u64::MAX,
    }
}

/// Emulate a sample of `k0` CTAs (at least 1) of `loaded`, grown or
/// stratified while its estimate is uncertain.
pub(crate) fn sampled_run(
    loaded: &LoadedSpec,
    opts: &Options,
    k0: u64,
    times: &mut StageTimes,
) -> Result<Emulated, PipelineError> {
    let (k0, total) = (k0.max(1), loaded.spec.ctas());
    let first = emulate(loaded, opts, &Plan::Spread(k0), times)?;
    if settled(&first) || k0 >= total {
        return Ok(first);
    }
    // The costliest CTA of the first sample prices a working CTA.
    let per_cta = first
        .characterization
        .cta_instructions
        .iter()
        .map(|&(_, n)| n)
        .max()
        .unwrap_or(0);
    let affordable = budgeted_ctas(per_cta, opts.work_budget);
    if let Some(run) = stratified(loaded, opts, k0, affordable, times)? {
        return Ok(run);
    }
    // A spread sample grows only within the budget (its CTAs all work, or
    // none does); one that does not fit stays as it is.
    let cap = k0.saturating_mul(SAMPLING_GROWTH).min(affordable);
    let (mut k, mut run) = (k0, first);
    while !settled(&run) && k < total && k < cap {
        k = (k * 4).min(cap);
        run = emulate(loaded, opts, &Plan::Spread(k), times)?;
    }
    Ok(run)
}

/// Whether a sample's estimate can stand: its estimated error within
/// [`SAMPLING_TARGET`], from at least two CTAs (one CTA of a larger grid
/// gives no spread to estimate an error from, and its 0 would otherwise
/// pass for agreement), or every CTA.
fn settled(run: &Emulated) -> bool {
    let c = &run.characterization;
    c.sampling_error <= SAMPLING_TARGET && (c.ctas_emulated >= 2 || c.ctas_emulated >= c.ctas_total)
}

/// The probe's verdict: the probed CTAs (linear ids, ascending) by kind.
struct Strata {
    /// Finished within twice the fewest instructions of any probed CTA.
    idle: Vec<u32>,
    /// Finished, with more.
    light: Vec<u32>,
    /// Ran out of [`PROBE_FUEL`].
    heavy: Vec<u32>,
}

/// Probe up to [`PROBE_CTAS`] x `k0` CTAs spread over the grid.
fn probe(loaded: &LoadedSpec, opts: &Options, k0: u64) -> Result<Strata, PipelineError> {
    let spec = &loaded.spec;
    emu::progress::emulation_stage("probing the grid for idle and busy CTAs");
    let ids = spread_ctas(spec.grid, k0.saturating_mul(PROBE_CTAS));
    let counts = probe_ctas(
        &loaded.module,
        &loaded.ptx,
        &loaded.ptx_file,
        spec,
        opts.policy,
        &ids,
        PROBE_FUEL,
    )
    .map_err(|f| PipelineError::Emulation(loaded.annotate_fault(f).to_string()))?;
    // CTAs that leave at the first or at a later range check differ by a
    // few instructions; a CTA that works runs many times more.
    let fewest = counts.iter().flatten().copied().min().unwrap_or(0);
    let mut strata = Strata {
        idle: Vec::new(),
        light: Vec::new(),
        heavy: Vec::new(),
    };
    for (id, count) in ids.into_iter().zip(counts) {
        match count {
            Some(n) if n <= 2 * fewest => strata.idle.push(id),
            Some(_) => strata.light.push(id),
            None => strata.heavy.push(id),
        }
    }
    Ok(strata)
}

/// `k` of `ids`, evenly spaced (all when `k` covers them).
fn pick(ids: &[u32], k: u64) -> Vec<u32> {
    evenly_spaced(ids.len() as u64, k)
        .into_iter()
        .filter_map(|i| ids.get(i as usize).copied())
        .collect()
}

/// The stratified run, or `None` when the probe finds one kind of CTA only.
///
/// The *working* kind is the heavy CTAs, or the light ones when none ran
/// out of fuel; it gets [`STRATIFIED_BUSY`] x `k0` CTAs, and each other kind
/// as many as keeps the probe's proportions. At most `affordable` working
/// CTAs run ([`budgeted_ctas`]).
fn stratified(
    loaded: &LoadedSpec,
    opts: &Options,
    k0: u64,
    affordable: u64,
    times: &mut StageTimes,
) -> Result<Option<Emulated>, PipelineError> {
    let Strata { idle, light, heavy } = times.time(Stage::Emulation, || probe(loaded, opts, k0))?;
    let kinds = [&idle, &light, &heavy];
    if kinds.iter().filter(|k| !k.is_empty()).count() < 2 {
        return Ok(None);
    }
    let (work, others): (&Vec<u32>, Vec<&Vec<u32>>) = if heavy.is_empty() {
        (&light, vec![&idle])
    } else {
        (&heavy, vec![&idle, &light])
    };
    let n_work = work.len() as u64;
    let total = loaded.spec.ctas() as f64;
    let probed = (idle.len() + light.len() + heavy.len()) as f64;
    let grid_work = total * n_work as f64 / probed;
    let cap = k0.saturating_mul(SAMPLING_GROWTH).min(affordable);
    let mut k_work = k0.saturating_mul(STRATIFIED_BUSY).min(cap).min(n_work);
    loop {
        // Each kind in the probe's proportion, so that the sample's one
        // scale (grid / emulated) weights each by its share of the grid.
        let chosen = pick(work, k_work);
        let mut ids = chosen.clone();
        for kind in &others {
            let k = ((k_work * kind.len() as u64) as f64 / n_work as f64).round() as u64;
            ids.extend(pick(kind, k));
        }
        ids.sort_unstable();
        let mut run = emulate(loaded, opts, &Plan::Ctas(ids), times)?;
        let error = working_error(&run, &chosen, grid_work);
        run.characterization.sampling_error = error;
        // Priced again on what ran: the first sample may have caught no
        // working CTA at all.
        let costliest = run
            .characterization
            .cta_instructions
            .iter()
            .map(|&(_, n)| n)
            .max();
        let cap = cap.min(budgeted_ctas(costliest.unwrap_or(0), opts.work_budget));
        if error <= SAMPLING_TARGET || k_work >= n_work || k_work >= cap {
            return Ok(Some(run));
        }
        k_work = (k_work * 2).min(cap).min(n_work);
    }
}

/// Relative standard error of the extrapolated instruction count from the
/// working CTAs `chosen` (the other kinds run few instructions): the working
/// kind's total, `grid_work` CTAs times their mean, over the whole estimate,
/// with the finite-population correction.
///
/// The working CTAs are a systematic sample (evenly spaced over the probed
/// ones, in launch order), so their variance is estimated from successive
/// differences, sum (y[i+1] - y[i])^2 / (2 (n - 1)) (Wolter, Introduction
/// to Variance Estimation, 2007, ch. 8: the successive-difference
/// estimator of systematic samples): the lighter CTAs at
/// the edge of the data sit next to each other in launch order and are
/// sampled in their share, which the variance of independent draws would
/// not credit.
fn working_error(run: &Emulated, chosen: &[u32], grid_work: f64) -> f64 {
    let ch = &run.characterization;
    let mut counts: Vec<(u32, f64)> = ch
        .cta_instructions
        .iter()
        .filter(|(id, _)| chosen.binary_search(id).is_ok())
        .map(|&(id, n)| (id, n as f64))
        .collect();
    counts.sort_by_key(|&(id, _)| id);
    let all: f64 = ch.cta_instructions.iter().map(|&(_, n)| n as f64).sum();
    let n = counts.len() as f64;
    if n < 2.0 || all <= 0.0 {
        return 0.0;
    }
    let var = counts
        .windows(2)
        .map(|w| (w[1].1 - w[0].1).powi(2))
        .sum::<f64>()
        / (2.0 * (n - 1.0));
    let fpc = (1.0 - n / grid_work.max(n)).max(0.0);
    let estimate = all * ch.ctas_total as f64 / ch.ctas_emulated.max(1) as f64;
    grid_work * (var / n * fpc).sqrt() / estimate
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Working CTAs within the budget: all a cheap kernel's sample asks for,
    /// [`MIN_WORKING_CTAS`] of a kernel whose CTAs each cost a quarter of the
    /// budget or more.
    #[test]
    fn budget() {
        for (per_cta, expected) in [
            (0, WORK_BUDGET),
            (1, WORK_BUDGET),
            (10_000, WORK_BUDGET / 10_000),
            (WORK_BUDGET / 5, 5),
            (WORK_BUDGET / 3, MIN_WORKING_CTAS),
            (WORK_BUDGET, MIN_WORKING_CTAS),
            (50 * WORK_BUDGET, MIN_WORKING_CTAS),
        ] {
            assert_eq!(
                budgeted_ctas(per_cta, Some(WORK_BUDGET)),
                expected,
                "{per_cta} per CTA"
            );
            // Without a budget nothing is bounded.
            assert_eq!(budgeted_ctas(per_cta, None), u64::MAX);
        }
        // A convolution CTA (10^4 to 10^5 warp instructions) keeps the
        // 16 working CTAs a default sample of 4 asks for.
        assert!(budgeted_ctas(100_000, Some(WORK_BUDGET)) >= 4 * STRATIFIED_BUSY);
    }
}
