//! The `learned` model (issue 30): gradient-boosted trees (the `learn`
//! crate) over features of the profile, the GPU's catalog figures, the other
//! analytical models' times and the `timing` model's terms, trained by
//! `ptxperf learn` on the development part of the split and read from a
//! model file (docs/validation/learned.md).
//!
//! The file predicts, in natural-log space, either a correction on the
//! timing model (`ln(measured / timing)`) or the time itself; the interval
//! is the file's calibrated one (`learn::Calibration`: sized on GPUs left
//! out of training), else the ensemble members' range. When no model file
//! is found, the model answers the timing model's time and says so in its
//! bottleneck and breakdown (`learned_missing` = 1).

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use arch::{Gpu, Occupancy};
use learn::{ModelFile, Target};
use profile::KernelProfile;

use crate::prediction::{ModelError, Prediction, invalid};
use crate::timing;

/// The registry name.
pub const NAME: &str = "learned";

/// Where the model file is looked for, relative to the current directory
/// (the repository root), after `PTXPERF_LEARNED_MODEL`.
pub const DEFAULT_MODEL: &str = "data/learned/model.json";

/// The environment variable naming another model file.
pub const MODEL_ENV: &str = "PTXPERF_LEARNED_MODEL";

/// The analytical models whose times are features (as `ln(t / timing)`).
pub const BASE_MODELS: [&str; 6] = [
    "roofline",
    "roofline-hierarchical",
    "gpuperf",
    "tmm",
    "mcm",
    "mwp-cwp",
];

/// The timing model's limits, one indicator feature each.
const LIMITS: [&str; 7] = [
    "compute issue",
    "latency",
    "shared memory",
    "L1 bandwidth",
    "L2 bandwidth",
    "DRAM bandwidth",
    "launch/tail",
];

/// Timing-model terms taken as `ln(term / full wave cycles)`.
const WAVE_TERMS: [&str; 6] = [
    "wave_issue_cycles",
    "wave_pipe_cycles",
    "wave_shared_cycles",
    "wave_l1_cycles",
    "warp_chain_cycles",
    "block_chain_cycles",
];

/// Timing-model terms taken as `ln(seconds / timing seconds)`.
const SECOND_TERMS: [&str; 5] = [
    "sm_seconds",
    "l2_seconds",
    "dram_seconds",
    "launch_seconds",
    "tail_seconds",
];

/// Timing-model terms taken as they are.
const PLAIN_TERMS: [&str; 7] = [
    "l1_hit_rate",
    "l2_hit_rate",
    "ilp",
    "mlp_global",
    "mlp_shared",
    "waves",
    "resident_blocks_per_sm",
];

/// The features that describe the kernel and its configuration, not the
/// GPU or the models: what [`learn::Domain`] measures a row's distance to the
/// training configurations on. Not the launch's size (blocks, instructions
/// per warp): a known kernel on another problem size is still known.
pub const KERNEL_FEATURES: [&str; 15] = [
    "threads_per_block",
    "registers_per_thread",
    "shared_per_block_kib",
    "simd_efficiency",
    "mix_fp32",
    "mix_int",
    "mix_convert_sfu",
    "mix_control",
    "mix_global",
    "mix_shared",
    "mix_constant",
    "mix_barrier",
    "sectors_per_global_request",
    "shared_conflict_ways",
    "divergent_branch_share",
];

/// The columns of [`KERNEL_FEATURES`] in a row of [`feature_names`].
pub fn kernel_feature_columns() -> Vec<usize> {
    let names = feature_names();
    KERNEL_FEATURES
        .iter()
        .filter_map(|k| names.iter().position(|n| n == k))
        .collect()
}

/// The feature names, in the order of [`features`]' values.
pub fn feature_names() -> Vec<String> {
    // The kernel features sit where they always sat in the row (a model
    // file lists its features in this order): the block's shape among the
    // launch figures, the rest after the instructions per warp.
    let (shape, character) = KERNEL_FEATURES.split_at(3);
    let mut n: Vec<String> = [
        "gpu_cc",
        "gpu_l1_shared_kib",
        "gpu_fp32_lanes_per_sm",
        "gpu_flops_per_dram_byte",
        "gpu_dram_latency",
        "gpu_shared_latency",
        "gpu_max_warps_per_sm",
        "ln_blocks",
    ]
    .iter()
    .chain(shape)
    .chain(&[
        "occupancy",
        "active_blocks_per_sm",
        "ln_warp_instructions_per_warp",
    ])
    .chain(character)
    .chain(&["ln_timing_seconds"])
    .map(|s| s.to_string())
    .collect();
    n.extend(LIMITS.iter().map(|l| format!("timing_limit:{l}")));
    n.extend(WAVE_TERMS.iter().map(|t| format!("timing:{t}/wave")));
    n.extend(SECOND_TERMS.iter().map(|t| format!("timing:{t}/time")));
    n.extend(PLAIN_TERMS.iter().map(|t| format!("timing:{t}")));
    n.extend(BASE_MODELS.iter().map(|m| format!("model:{m}/timing")));
    n
}

/// `ln(x)` for a positive finite `x`, else 0.
fn ln(x: f64) -> f64 {
    if x.is_finite() && x > 0.0 {
        x.ln()
    } else {
        0.0
    }
}

/// `a / b` when both are finite and `b` is not 0, else 0.
fn ratio(a: f64, b: f64) -> f64 {
    let r = a / b;
    if r.is_finite() { r } else { 0.0 }
}

/// The features of one profile on one GPU, and the timing model's
/// prediction they were built from.
pub fn features(
    profile: &KernelProfile,
    gpu: &Gpu,
    occ: &Occupancy,
) -> Result<(Vec<f64>, Prediction), ModelError> {
    let t = timing::adapter::predict(profile, gpu, occ)?;
    let bd = |k: &str| t.breakdown.get(k).copied().unwrap_or(0.0);
    let w = &profile.warp_instructions;
    let total = w.total();
    let share = |x: f64| ratio(x, total);
    let warps = ratio(
        profile.launch.threads() as f64,
        f64::from(gpu.sm.warp_size.max(1)),
    )
    .ceil()
    .max(1.0);
    let requests = profile.global.requests();
    let branches = profile.branches.branches;
    // No absolute size or speed of the GPU (SMs, clock, DRAM bandwidth, L2
    // size): each of them names one GPU of the training data, so trees
    // split on them to learn that GPU's own offset, which does not carry
    // to a GPU they never saw (docs/validation/learned.md, "Features").
    // The timing model has already scaled by them; what is left are
    // per-SM figures and ratios.
    let mut v = vec![
        f64::from(gpu.compute_capability.major * 10 + gpu.compute_capability.minor),
        gpu.caches.l1_shared_per_sm_bytes as f64 / 1024.0,
        f64::from(gpu.sm.fp32_lanes),
        ratio(gpu.peak_fp32_flops(), gpu.dram_bytes_per_second()),
        gpu.latencies.dram,
        gpu.latencies.shared,
        f64::from(gpu.limits.max_warps_per_sm),
        ln(profile.launch.blocks() as f64),
        profile.launch.threads_per_block() as f64,
        f64::from(profile.resources.registers_per_thread),
        (profile.resources.static_shared_per_block + profile.launch.dynamic_shared) as f64 / 1024.0,
        occ.occupancy,
        f64::from(occ.active_blocks_per_sm),
        ln(total / warps),
        ratio(
            profile.thread_instructions.total(),
            total * f64::from(gpu.sm.warp_size),
        ),
        share(w.fp32 + w.fp32_div + w.fp32_fma + w.fp16 + w.fp64 + w.fp64_fma),
        share(w.int_add + w.int_mul + w.int_div),
        share(w.convert + w.sfu + w.sfu_ieee),
        share(w.control + w.other),
        share(w.global() + w.local),
        share(w.shared()),
        share(w.constant + w.constant_indexed),
        share(w.barrier),
        ratio(profile.global.transactions(), requests),
        profile.shared.mean_conflict_ways(),
        ratio(profile.branches.divergent, branches),
        t.seconds.ln(),
    ];
    let limit = t.bottleneck.split(" (").next().unwrap_or("");
    v.extend(LIMITS.iter().map(|l| f64::from(u8::from(*l == limit))));
    let full = bd("full_wave_cycles");
    v.extend(WAVE_TERMS.iter().map(|k| ln(ratio(bd(k), full))));
    v.extend(SECOND_TERMS.iter().map(|k| ln(ratio(bd(k), t.seconds))));
    v.extend(PLAIN_TERMS.iter().map(|k| bd(k)));
    for m in BASE_MODELS {
        let s = crate::registry::predict(m, profile, gpu, occ).map_or(0.0, |p| p.seconds);
        v.push(ln(ratio(s, t.seconds)));
    }
    for x in &mut v {
        *x = if x.is_finite() {
            significant(*x, FEATURE_DIGITS)
        } else {
            0.0
        };
    }
    Ok((v, t))
}

/// Significant decimal digits a feature keeps. Trees split between the
/// values they saw, so a change in a feature's last bits (a reordered sum
/// in a model term, another libm) could move a split and, through it, a
/// retrained model's every figure; six digits keep every difference that
/// means anything (the finest feature, ln of the timing model's seconds,
/// to 1e-5) and drop the bits that do not.
pub const FEATURE_DIGITS: usize = 6;

/// Significant decimal digits a training target's timing time keeps
/// ([`significant`]), for the same reason.
pub const TIMING_DIGITS: usize = 9;

/// `x` rounded to `digits` significant decimal digits (at least 1), by
/// Rust's decimal formatting and parsing, which are exact and the same on
/// every platform (no `log10` or `powi`, whose last bits are the libm's).
/// Non-finite values and 0 come back as they are.
pub fn significant(x: f64, digits: usize) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    format!("{:.*e}", digits.max(1) - 1, x).parse().unwrap_or(x)
}

/// The model file to read: `PTXPERF_LEARNED_MODEL`, else
/// [`DEFAULT_MODEL`] of the current directory, else the repository's.
pub fn model_path() -> PathBuf {
    if let Some(p) = std::env::var_os(MODEL_ENV).filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let here = PathBuf::from(DEFAULT_MODEL);
    if here.is_file() {
        return here;
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(DEFAULT_MODEL)
}

/// Why a model file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: {message}")]
    Read { path: String, message: String },
    #[error(transparent)]
    Parse(#[from] learn::LearnError),
    #[error(
        "{path}: made for other features ({found} of them, this version has {expected}): retrain with `ptxperf learn`"
    )]
    Features {
        path: String,
        found: usize,
        expected: usize,
    },
}

/// Read and check a model file.
pub fn load(path: &Path) -> Result<ModelFile, LoadError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| LoadError::Read {
        path: name.clone(),
        message: e.to_string(),
    })?;
    let file = ModelFile::parse(&text, &name)?;
    if file.features != feature_names() {
        return Err(LoadError::Features {
            path: name,
            found: file.features.len(),
            expected: feature_names().len(),
        });
    }
    Ok(file)
}

/// The model file of [`model_path`], read once per process.
fn cached() -> &'static Result<Arc<ModelFile>, LoadError> {
    static FILE: OnceLock<Result<Arc<ModelFile>, LoadError>> = OnceLock::new();
    FILE.get_or_init(|| load(&model_path()).map(Arc::new))
}

/// Predict with the model file of [`model_path`]; the timing model's time,
/// marked, when there is none.
pub fn predict(
    profile: &KernelProfile,
    gpu: &Gpu,
    occ: &Occupancy,
) -> Result<Prediction, ModelError> {
    match cached() {
        Ok(file) => predict_with(file, profile, gpu, occ),
        Err(why) => {
            let mut t = timing::adapter::predict(profile, gpu, occ)?;
            t.model = NAME.to_string();
            t.bottleneck = format!(
                "no learned model ({why}); the timing model's time: {}",
                t.bottleneck
            );
            t.breakdown.insert("learned_missing".to_string(), 1.0);
            Ok(t)
        }
    }
}

/// How many per-feature contributions the breakdown and the sentence show.
pub const SHOWN_CONTRIBUTIONS: usize = 5;

/// The bottleneck sentence of a prediction `factors` (time, low, high) times
/// the timing model's, its interval `calibrated` or the members' range,
/// the trees' correction in full `moved` most by those features, of which a
/// share `familiarity` was kept (said, with `why`, when under 1).
pub fn sentence(
    factors: [f64; 3],
    calibrated: bool,
    moved: &[String],
    familiarity: f64,
    why: &str,
) -> String {
    let kept = if familiarity < 1.0 {
        let why = if why.is_empty() {
            String::new()
        } else {
            format!(" ({why})")
        };
        format!("; {:.0} % of the correction kept{why}", 100.0 * familiarity)
    } else {
        String::new()
    };
    format!(
        "timing x {:.2} ({} {:.2} to {:.2}); the trees moved it most by {}{kept}",
        factors[0],
        if calibrated { "interval" } else { "members" },
        factors[1],
        factors[2],
        if moved.is_empty() {
            "nothing".to_string()
        } else {
            moved.join(", ")
        }
    )
}

/// [`sentence`] again for a prediction given another share of its
/// correction (`factors` at that share), `why` that share: `None` when
/// `bottleneck` is not a sentence of this model.
pub fn restate(bottleneck: &str, factors: [f64; 3], familiarity: f64, why: &str) -> Option<String> {
    const MOVED: &str = "; the trees moved it most by ";
    let (head, rest) = bottleneck.split_once(MOVED)?;
    let moved = rest.split("; ").next()?;
    let moved = if moved == "nothing" {
        Vec::new()
    } else {
        vec![moved.to_string()]
    };
    Some(sentence(
        factors,
        head.contains("(interval "),
        &moved,
        familiarity,
        why,
    ))
}

/// Predict with `file`.
pub fn predict_with(
    file: &ModelFile,
    profile: &KernelProfile,
    gpu: &Gpu,
    occ: &Occupancy,
) -> Result<Prediction, ModelError> {
    let (x, t) = features(profile, gpu, occ)?;
    let (familiarity, nearest) = file.familiarity(&x);
    // The row's own familiarity, then both ends (so that configurations
    // ranked together can share one: validate::blend), the trees walked once.
    let [p, near, far] = file.predict_at_each(&x, [familiarity, 1.0, 0.0]);
    let to_seconds = |v: f64| match file.target {
        Target::Correction => t.seconds * v.exp(),
        Target::LogTime => v.exp(),
    };
    let seconds = to_seconds(p.mean);
    if !(seconds.is_finite() && seconds > 0.0) {
        return Err(invalid(NAME, format!("predicted time {seconds} s")));
    }
    // What the trees would say in full: a row's share of the correction is
    // stated apart (and `tune` and `validate` give a space one share).
    let (_, contrib) = file.contributions(&x, 1.0);
    let mut order: Vec<usize> = (0..contrib.len()).collect();
    order.sort_by(|&a, &b| {
        contrib[b]
            .abs()
            .total_cmp(&contrib[a].abs())
            .then(a.cmp(&b))
    });
    let top: Vec<usize> = order
        .into_iter()
        .take(SHOWN_CONTRIBUTIONS)
        .filter(|&i| contrib[i] != 0.0)
        .collect();
    let mut breakdown = std::collections::BTreeMap::new();
    breakdown.insert("timing_seconds".to_string(), t.seconds);
    breakdown.insert("low_seconds".to_string(), to_seconds(p.low));
    breakdown.insert("high_seconds".to_string(), to_seconds(p.high));
    breakdown.insert("factor_on_timing".to_string(), seconds / t.seconds);
    breakdown.insert("familiarity".to_string(), p.familiarity);
    if file.target == Target::Correction {
        for (end, q) in [("near", &near), ("far", &far)] {
            breakdown.insert(format!("{end}_seconds"), to_seconds(q.mean));
            breakdown.insert(format!("{end}_low_seconds"), to_seconds(q.low));
            breakdown.insert(format!("{end}_high_seconds"), to_seconds(q.high));
        }
    }
    for &i in &top {
        breakdown.insert(format!("contribution:{}", file.features[i]), contrib[i]);
    }
    let moved: Vec<String> = top
        .iter()
        .take(3)
        .map(|&i| format!("{} ({:+.2})", file.features[i], contrib[i]))
        .collect();
    // A row far from every training configuration gets less of the
    // correction (learn::Domain): say so, since the factor alone would read
    // as the trees' verdict.
    let kept = match nearest {
        Some(kernel) if familiarity < 1.0 => format!("nearest trained kernel {kernel}"),
        _ => String::new(),
    };
    let bottleneck = sentence(
        [seconds, to_seconds(p.low), to_seconds(p.high)].map(|s| s / t.seconds),
        file.interval.is_some(),
        &moved,
        familiarity,
        &kept,
    );
    Ok(Prediction {
        model: NAME.to_string(),
        seconds,
        cycles: seconds * gpu.clock_hz(),
        bottleneck,
        breakdown,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(old: &str, factors: [f64; 3], familiarity: f64, why: &str, expect: Option<&str>) {
        assert_eq!(
            restate(old, factors, familiarity, why).as_deref(),
            expect,
            "{old}"
        );
    }

    fn check_significant(x: f64, digits: usize, expect: f64) {
        let got = significant(x, digits);
        assert!(
            got == expect || (got.is_nan() && expect.is_nan()),
            "significant({x:e}, {digits}) = {got:e}, expected {expect:e}"
        );
    }

    #[test]
    fn features_keep_six_significant_digits() {
        check_significant(0.0, 6, 0.0);
        check_significant(-0.0, 6, 0.0);
        check_significant(1.0, 6, 1.0);
        check_significant(123_456.7, 6, 123_457.0);
        check_significant(-6.907_755_278_982_137, 6, -6.907_76);
        check_significant(0.000_123_456_789, 6, 0.000_123_457);
        check_significant(1.5e300, 6, 1.5e300);
        // An exact tie goes to the even digit, as Rust's formatting does.
        check_significant(2.5, 1, 2.0);
        check_significant(3.5, 1, 4.0);
        check_significant(3.5, 0, 4.0);
        check_significant(f64::INFINITY, 6, f64::INFINITY);
        check_significant(f64::NAN, 6, f64::NAN);
        // A value and its neighbour one bit away keep one feature value:
        // what retraining on last-bit changes needs.
        for x in [0.1_f64, -6.907_755_278_982_137, 2.718_281_9, 1.0e-7, 42.0] {
            let next = f64::from_bits(x.to_bits() + 1);
            let prev = f64::from_bits(x.to_bits() - 1);
            assert_eq!(significant(next, 6), significant(x, 6), "{x:e}");
            assert_eq!(significant(prev, 6), significant(x, 6), "{x:e}");
            // Rounding again changes nothing.
            let r = significant(x, 6);
            assert_eq!(significant(r, 6), r, "{x:e}");
        }
    }

    #[test]
    fn a_sentence_restated_at_another_share() {
        let moved = ["a (+0.20)".to_string(), "b (-0.10)".to_string()];
        let far = sentence(
            [1.0, 0.6, 1.6],
            true,
            &moved,
            0.0,
            "nearest trained kernel k",
        );
        assert_eq!(
            far,
            "timing x 1.00 (interval 0.60 to 1.60); the trees moved it most by a (+0.20), \
             b (-0.10); 0 % of the correction kept (nearest trained kernel k)"
        );
        check(
            &far,
            [1.2, 0.8, 1.9],
            0.6,
            "the mean over the 3 configurations ranked together",
            Some(
                "timing x 1.20 (interval 0.80 to 1.90); the trees moved it most by a (+0.20), \
                 b (-0.10); 60 % of the correction kept (the mean over the 3 configurations \
                 ranked together)",
            ),
        );
        // Familiar rows say nothing of a share; the members' range stays so.
        let near = sentence([1.5, 1.2, 1.8], false, &[], 1.0, "");
        assert_eq!(
            near,
            "timing x 1.50 (members 1.20 to 1.80); the trees moved it most by nothing"
        );
        check(
            &near,
            [1.5, 1.2, 1.8],
            1.0,
            "why",
            Some("timing x 1.50 (members 1.20 to 1.80); the trees moved it most by nothing"),
        );
        // Another model's words are not restated.
        check("DRAM bandwidth", [1.0; 3], 0.5, "", None);
    }
}
