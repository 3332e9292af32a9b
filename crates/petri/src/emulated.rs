//! The model on emulated counts: each launch spec (per thread count) is run
//! in the emulator, its instruction classes become x_a, x_s, x_g per warp
//! ([`crate::counts`]) and the model runs on one block's warps.

use crate::counts::per_warp_counts;
use crate::sweep::{Series, WARP_SIZE};
use crate::warp::{self, WarpError};
use crate::{LatencyCounting, WarpCounts, WarpModelConfig};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One emulated configuration and its model run.
#[derive(Debug, Clone, Serialize)]
pub struct SpecRow {
    pub spec: String,
    pub kernel: String,
    /// The --threads value (None without --threads).
    pub threads: Option<u32>,
    pub block_threads: u32,
    pub ctas: u64,
    pub warps: usize,
    /// Warp instructions per block by model kind: x_a, x_s, x_g summed over the block's warps.
    pub block_counts: WarpCounts,
    /// Warp 0 (the busiest) and the others.
    pub warp0: WarpCounts,
    pub other_warps: Option<WarpCounts>,
    pub mean_steps: f64,
    pub min_steps: u64,
    pub max_steps: u64,
    pub mean_idle_steps: f64,
    pub runs: usize,
}

/// One block of an emulated kernel, as the model sees it.
#[derive(Debug, Clone)]
pub struct EmulatedBlock {
    pub kernel: String,
    pub block_threads: u32,
    /// CTAs of the grid.
    pub ctas: u64,
    /// x_a, x_s, x_g of each warp of one block.
    pub warps: Vec<WarpCounts>,
}

/// Why a spec could not be emulated or modelled.
#[derive(Debug, thiserror::Error)]
pub enum EmulatedError {
    #[error("{0}")]
    Pipeline(#[from] pipeline::PipelineError),
    #[error("{0}")]
    Characterize(#[from] characterize::CharacterizeError),
    /// The model failed on the spec's counts.
    #[error("{}: {source}", spec.display())]
    Model { spec: PathBuf, source: WarpError },
}

/// The model's settings and the thread counts to run each spec at.
#[derive(Debug, Clone)]
pub struct SpecSweep {
    pub schedulers: u32,
    pub global_latency: u32,
    pub shared_latency: u32,
    pub latency_counting: LatencyCounting,
    pub runs: usize,
    pub seed: u64,
    pub budget: Option<u64>,
    /// Emulate only this many CTAs and extrapolate.
    pub sample_ctas: Option<u64>,
    /// The define each thread count is given to.
    pub threads_define: String,
    /// Thread counts; empty: each spec as written.
    pub threads: Vec<u32>,
}

/// The per-warp counts of one block of the kernel at `path` with `overrides`.
pub fn emulate(
    path: &Path,
    overrides: &[(String, String)],
    sample_ctas: Option<u64>,
    load: &pipeline::LoadOptions,
) -> Result<EmulatedBlock, EmulatedError> {
    let loaded = pipeline::load_spec_with(path, overrides, load)?;
    let opts = characterize::Options {
        sample_ctas,
        ..characterize::Options::default()
    };
    let ch = characterize::characterize_ptx(&loaded.ptx, &loaded.ptx_file, &loaded.spec, opts)?;
    let [bx, by, bz] = loaded.spec.block;
    let block_threads = bx.saturating_mul(by).saturating_mul(bz);
    let warps = block_threads.div_ceil(WARP_SIZE).max(1);
    let ctas = ch.ctas_total.max(1);
    // The mix is summed over the grid (extrapolated when sampled): one block's share.
    let block_mix = ch.instruction_mix.map(|n| n / ctas as f64);
    let counts = per_warp_counts(&block_mix, &ch.model_inputs.per_thread_max, warps);
    Ok(EmulatedBlock {
        kernel: loaded.kernel_name,
        block_threads,
        ctas,
        warps: counts,
    })
}

fn sum(counts: &[WarpCounts]) -> WarpCounts {
    counts.iter().fold(WarpCounts::default(), |a, c| {
        WarpCounts::new(
            a.arithmetic.saturating_add(c.arithmetic),
            a.shared.saturating_add(c.shared),
            a.global.saturating_add(c.global),
        )
    })
}

/// Every spec at every thread count (specs in order), emulated and modelled;
/// `sets` are define overrides for every run.
pub fn run_specs(
    specs: &[PathBuf],
    sets: &[(String, String)],
    cfg: &SpecSweep,
) -> Result<Vec<SpecRow>, EmulatedError> {
    let threads: Vec<Option<u32>> = if cfg.threads.is_empty() {
        vec![None]
    } else {
        cfg.threads.iter().map(|&t| Some(t)).collect()
    };
    let mut rows = Vec::new();
    for path in specs {
        for &t in &threads {
            let mut overrides = sets.to_vec();
            if let Some(t) = t {
                overrides.retain(|(n, _)| n != &cfg.threads_define);
                overrides.push((cfg.threads_define.clone(), t.to_string()));
            }
            let block = emulate(
                path,
                &overrides,
                cfg.sample_ctas,
                &pipeline::LoadOptions::default(),
            )?;
            let config = WarpModelConfig {
                warps: block.warps.clone(),
                schedulers: cfg.schedulers,
                global_latency: cfg.global_latency,
                shared_latency: cfg.shared_latency,
                latency_counting: cfg.latency_counting,
            };
            let report =
                warp::simulate(&config, cfg.runs, cfg.seed, cfg.budget).map_err(|source| {
                    EmulatedError::Model {
                        spec: path.clone(),
                        source,
                    }
                })?;
            rows.push(SpecRow {
                spec: path.display().to_string(),
                kernel: block.kernel,
                threads: t,
                block_threads: block.block_threads,
                ctas: block.ctas,
                warps: block.warps.len(),
                block_counts: sum(&block.warps),
                warp0: block.warps.first().copied().unwrap_or_default(),
                other_warps: block.warps.get(1).copied(),
                mean_steps: report.mean_steps,
                min_steps: report.min_steps,
                max_steps: report.max_steps,
                mean_idle_steps: report.mean_idle_steps,
                runs: cfg.runs,
            });
        }
    }
    Ok(rows)
}

/// Per spec, the thread count with the fewest mean steps (first on a tie).
pub fn best_threads(rows: &[SpecRow]) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32, f64)> = Vec::new();
    for r in rows {
        let t = r.threads.unwrap_or(r.block_threads);
        match out.iter_mut().find(|b| b.0 == r.spec) {
            Some(b) if r.mean_steps < b.2 => *b = (r.spec.clone(), t, r.mean_steps),
            Some(_) => {}
            None => out.push((r.spec.clone(), t, r.mean_steps)),
        }
    }
    out.into_iter().map(|(s, t, _)| (s, t)).collect()
}

/// One plot line per spec (in `specs` order): mean steps against threads,
/// labelled with the kernel's name.
pub fn series(specs: &[PathBuf], rows: &[SpecRow]) -> Vec<Series> {
    specs
        .iter()
        .map(|p| {
            let spec = p.display().to_string();
            let mine: Vec<&SpecRow> = rows.iter().filter(|r| r.spec == spec).collect();
            Series {
                label: mine.first().map_or(spec.clone(), |r| r.kernel.clone()),
                points: mine
                    .iter()
                    .map(|r| (r.threads.unwrap_or(r.block_threads), r.mean_steps))
                    .collect(),
            }
        })
        .collect()
}
