//! The neighbours of a CTA sample, replayed into L2 before the cache model
//! runs the sample ([`Options::neighbour_warmup`](crate::Options)).
//!
//! A sample of CTAs spread over the grid has no two neighbours, so the data
//! a CTA shares with its neighbours (a stencil's or a convolution's halo,
//! the rows of the CTA above) always misses L2 in the sampled run, where in
//! the full launch the neighbour that ran first left it there: on a 2D
//! stencil an 8-CTA sample reported an L2 hit rate of 0 % against 35.6 % for
//! the whole grid, and twice its DRAM bytes. So the CTAs that neighbour a
//! sampled CTA (one step in each dimension of the grid) and come before it in
//! launch order are emulated too, their memory requests recorded and
//! replayed into L2 first ([`cachesim::simulate_warmed`]), without being
//! counted. Each sector a sampled CTA shares with an earlier neighbour then
//! hits, and each it shares with a later one misses (the later one hits in
//! the full launch): one miss per shared sector, as in the whole grid.
//!
//! A neighbour's data is still in L2 only if what ran in between did not
//! push it out: a neighbour `d` CTAs earlier is replayed only when `d`
//! CTAs' footprints (the sample's distinct sectors per CTA) fit in the
//! GPU's L2 ([`Warmup::keeps`]); LRU and the CTAs in between touching
//! disjoint data are the assumptions. The same bound holds for a neighbour
//! that runs at the same time, `d` launches ahead: what passes through L2
//! between its access and the sampled CTA's is about `d` CTAs' footprints.
//!
//! How the kept neighbours are replayed ([`Warmup::lead`]): whole, before
//! the sample, when they and the sample fill at most half of L2 (stencils);
//! else each runs a fraction of its requests ahead of the sample, round by
//! round (`cachesim::Warmup::lead`). Replayed whole, CTAs that stream
//! megabytes (a GEMM's A and B panels: 2 MiB per 64 x 64 tile at K = 4096)
//! push one another out of L2 before their sampled CTA reads them: on the
//! RTX 3090 GEMM the sample kept 14 % of the reuse its x-neighbours give.
//!
//! Cost: the neighbours are emulated, up to four per sampled CTA in 2D,
//! for their addresses only (the arithmetic whose results are only stored
//! is skipped: `emu::exec::idle`). A
//! neighbour that no GPU of the run would keep (`Options::warmup_l2_bytes`)
//! is not, and under a work budget only as many as the budget has left
//! after the sample, nearest first.
//!
//! The characterization (counts, per-line rows) does not see these CTAs: only
//! the cache model does.

use std::collections::BTreeMap;

use cachesim::Trace;
use emu::exec::{CtaSelection, LaunchOptions, launch_ctas};

use crate::error::PipelineError;
use crate::load::LoadedSpec;
use crate::trace::TraceRecorder;

/// The recorded neighbours of a sample.
#[derive(Debug)]
pub struct Warmup {
    /// Their memory requests.
    pub trace: Trace,
    /// Each neighbour (linear id) and the fewest CTAs it precedes a sampled
    /// CTA it neighbours by.
    pub distance: BTreeMap<u32, u32>,
    /// Distinct bytes (32-byte sectors) one sampled CTA touches, on average.
    pub footprint_bytes: f64,
}

impl Warmup {
    /// Whether neighbour `id` is replayed into an L2 of `l2_bytes`: the
    /// CTAs between it and the sampled CTA it precedes fit there.
    pub fn keeps(&self, id: u32, l2_bytes: u64) -> bool {
        self.distance
            .get(&id)
            .is_some_and(|&d| f64::from(d) * self.footprint_bytes <= l2_bytes as f64)
    }

    /// How far ahead of the `sampled` CTAs the kept neighbours are replayed,
    /// as a fraction of their requests ([`cachesim::Warmup::lead`]): whole
    /// before the sample (1) when the footprints of the kept neighbours and
    /// the sample together fill at most half of an L2 of `l2_bytes`, else
    /// as far ahead as half of it holds. Replayed whole, the first
    /// neighbours of a sample whose CTAs stream megabytes (a GEMM's A and B
    /// panels) are pushed out of L2 by the later ones before their sampled
    /// CTA reads them, and the sample loses the reuse the neighbour warm-up
    /// exists for; the other half is for what passes through L2 in between
    /// (ASSUMPTION: half).
    pub fn lead(&self, l2_bytes: u64, sampled: usize) -> f64 {
        let kept = self
            .distance
            .keys()
            .filter(|&&id| self.keeps(id, l2_bytes))
            .count();
        let streamed = self.footprint_bytes * (kept + sampled) as f64;
        if streamed <= 0.0 {
            return 1.0;
        }
        (0.5 * l2_bytes as f64 / streamed).min(1.0)
    }
}

/// The CTAs one step away from `cta` in each dimension of `grid` that come
/// before it in launch order (x fastest), with how many CTAs before it.
pub fn earlier_neighbours(grid: [u32; 3], cta: u32) -> Vec<(u32, u32)> {
    let [gx, gy, gz] = grid.map(i64::from);
    let c = i64::from(cta);
    let (x, y, z) = (
        c % gx.max(1),
        c / gx.max(1) % gy.max(1),
        c / (gx * gy).max(1),
    );
    let mut out = Vec::new();
    for dz in -1..=1 {
        for dy in -1..=1 {
            for dx in -1..=1 {
                let (nx, ny, nz) = (x + dx, y + dy, z + dz);
                if !(0..gx).contains(&nx) || !(0..gy).contains(&ny) || !(0..gz).contains(&nz) {
                    continue;
                }
                let id = nx + gx * (ny + gy * nz);
                if id < i64::from(cta)
                    && let (Ok(id), Ok(d)) = (u32::try_from(id), u32::try_from(i64::from(cta) - id))
                {
                    out.push((id, d));
                }
            }
        }
    }
    out
}

/// Emulate the earlier neighbours of the sampled CTAs `sampled` (linear
/// ids) and record their requests; `None` when there are none or their
/// trace could not be recorded. `sampled_trace` gives the footprint; with
/// `max_l2_bytes`, a neighbour too far back to be kept in an L2 that large
/// is not emulated (a GEMM's neighbour one grid row back, a whole row of
/// megabyte panels away, costs as much to emulate as the sample).
pub(crate) fn record(
    loaded: &LoadedSpec,
    policy: emu::simt::stack::Policy,
    sampled: &[u32],
    sampled_trace: &Trace,
    max_l2_bytes: Option<u64>,
    max_neighbours: Option<usize>,
) -> Result<Option<Warmup>, PipelineError> {
    let grid = loaded.spec.grid;
    let mut distance: BTreeMap<u32, u32> = BTreeMap::new();
    for &cta in sampled {
        for (id, d) in earlier_neighbours(grid, cta) {
            let e = distance.entry(id).or_insert(d);
            *e = (*e).min(d);
        }
    }
    // A sampled CTA is not warmed for another: it is in the sampled trace,
    // whose CTAs the cache model runs in launch order, so it warms the later
    // ones there; replayed here as well, it would hit on its own first reads.
    for cta in sampled {
        distance.remove(cta);
    }
    if distance.is_empty() || sampled_trace.cta_count() == 0 {
        return Ok(None);
    }
    let footprint_bytes = sampled_trace.distinct_sectors() as f64
        * f64::from(cachesim::TRACE_SECTOR_BYTES)
        / sampled_trace.cta_count() as f64;
    if let Some(l2) = max_l2_bytes {
        distance.retain(|_, &mut d| f64::from(d) * footprint_bytes <= l2 as f64);
        if distance.is_empty() {
            return Ok(None);
        }
    }
    // Under a work budget, the nearest neighbours (the likeliest to be kept
    // in L2), ties by id.
    if let Some(cap) = max_neighbours
        && distance.len() > cap
    {
        let mut by_distance: Vec<(u32, u32)> = distance.iter().map(|(&id, &d)| (d, id)).collect();
        by_distance.sort_unstable();
        distance = by_distance
            .into_iter()
            .take(cap)
            .map(|(d, id)| (id, d))
            .collect();
        if distance.is_empty() {
            return Ok(None);
        }
    }
    let ids: Vec<u32> = distance.keys().copied().collect();
    let mut recorder = TraceRecorder::new(Some(&ids)).with_read_only_loads(&loaded.module);
    let opts = LaunchOptions {
        policy,
        parallel: false,
        fuel: None,
        ctas: CtaSelection::All,
        // Their addresses are all the cache model takes: the arithmetic
        // that only makes stored values is skipped (`emu::exec::idle`).
        addresses_only: true,
    };
    let spec = &loaded.spec;
    let (m, text, file) = (&loaded.module, &loaded.ptx, &loaded.ptx_file);
    match launch_ctas(m, text, file, spec, opts, &ids, &mut recorder) {
        // It read what it had not computed (`emu::exec::idle::STALE_READ`):
        // again, every value computed, to a recorder that has not seen it.
        Err(f) if emu::exec::idle::is_stale_read(&f) => {
            recorder = TraceRecorder::new(Some(&ids)).with_read_only_loads(m);
            let opts = LaunchOptions {
                addresses_only: false,
                ..opts
            };
            launch_ctas(m, text, file, spec, opts, &ids, &mut recorder)
        }
        r => r,
    }
    .map_err(|f| PipelineError::Emulation(loaded.annotate_fault(f).to_string()))?;
    let Ok(recorded) = recorder.finish() else {
        return Ok(None);
    };
    Ok(Some(Warmup {
        trace: recorded.trace,
        distance,
        footprint_bytes,
    }))
}

#[cfg(test)]
mod tests {
    use super::{Warmup, earlier_neighbours};

    /// A warm-up of neighbours at `distances` of a sample whose CTAs touch
    /// `footprint` bytes each.
    fn warmup(distances: &[u32], footprint: f64) -> Warmup {
        Warmup {
            trace: cachesim::Trace::from_requests(&[]).unwrap(),
            distance: distances
                .iter()
                .enumerate()
                .map(|(i, &d)| (i as u32, d))
                .collect(),
            footprint_bytes: footprint,
        }
    }

    #[test]
    fn the_lead_shrinks_when_the_replay_outgrows_half_of_l2() {
        const MIB: f64 = 1048576.0;
        let l2 = 6 << 20;
        // A stencil's sample: 4 CTAs of 16 KiB and 16 neighbours fit: whole.
        assert_eq!(warmup(&[1; 16], 16384.0).lead(l2, 4), 1.0);
        // A GEMM's: 4 CTAs of 2 MiB and their 4 x-neighbours (distance 1;
        // the row above, 64 CTAs back, is not kept): 3 MiB of 16 MiB.
        let gemm = warmup(&[1, 1, 1, 1, 64, 64], 2.0 * MIB);
        assert!(gemm.keeps(0, l2));
        assert!(!gemm.keeps(4, l2));
        assert_eq!(gemm.lead(l2, 4), 3.0 / 16.0);
        // Nothing streamed: whole.
        assert_eq!(warmup(&[1], 0.0).lead(l2, 0), 1.0);
    }

    #[test]
    fn earlier_neighbours_in_launch_order() {
        // 2D, 4 x 3: CTA (1, 1) = 5 has (0,0) (1,0) (2,0) (0,1) before it.
        assert_eq!(
            earlier_neighbours([4, 3, 1], 5),
            vec![(0, 5), (1, 4), (2, 3), (4, 1)]
        );
        // The first CTA has none; one at the left edge no left neighbours.
        assert!(earlier_neighbours([4, 3, 1], 0).is_empty());
        assert_eq!(earlier_neighbours([4, 3, 1], 4), vec![(0, 4), (1, 3)]);
        // 1D: the CTA before.
        assert_eq!(earlier_neighbours([8, 1, 1], 3), vec![(2, 1)]);
        // 3D, 2 x 2 x 2: the last CTA has all seven others before it.
        assert_eq!(earlier_neighbours([2, 2, 2], 7).len(), 7);
    }
}
