//! `ptxperf combinators`: emulate the corpus's map, fold and scan kernels at
//! several sizes, check their outputs against CPU references, and predict
//! their cost on a GPU from fitted models (`fit::combinators`).

use crate::error::{CliError, read_input};
use arch::{Catalog, Gpu};
use comfy_table::Table;
use emu::spec::ArgSpec;
use fit::combinators::calibrated::{CalibratedGpu, parse_calibrated};
use fit::combinators::{
    BandwidthCurve, GpuParams, OpClass, OpLatencies, PipelinePrediction, StageCounts,
    predict_pipeline,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Predict the cost of the combinators map, fold and scan (seed 004) from fitted models.
///
/// Examples:
///   ptxperf combinators --gpu h100-pcie-80gb
///   ptxperf combinators --gpu a100-sxm4-80gb --n 65536 --n 1048576 --pipeline map,fold --json
///   ptxperf combinators --gpu h100-pcie-80gb --measurements m.csv --svg cost.svg
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// GPU id from the catalog; its gpus/calibrated/<id>.toml must exist.
    #[arg(long)]
    gpu: String,
    /// Problem sizes (elements; multiples of 256). Default 4096, 16384, 65536, 262144, 1048576.
    #[arg(long = "n")]
    sizes: Vec<u64>,
    /// A pipeline of combinators to compose, e.g. `map,fold` or `scan,map`.
    #[arg(long)]
    pipeline: Option<String>,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
    /// Write an SVG of predicted cost against N.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// The kernel corpus folder.
    #[arg(long, default_value = "kernels")]
    kernels: PathBuf,
    /// Folder of calibration files.
    #[arg(long, default_value = "gpus/calibrated")]
    calibrated: PathBuf,
    /// A measurement CSV (gpurun's format) whose op benchmarks price compute.
    #[arg(long)]
    measurements: Option<PathBuf>,
    /// Emulate this many CTAs for the counts (spread over the grid; more, stratified by a probe of the grid, while they disagree; extrapolated); 0: all.
    #[arg(long, default_value_t = 64)]
    sample_ctas: u64,
}

const DEFAULT_SIZES: [u64; 5] = [4096, 16384, 65536, 262144, 1048576];

/// A combinator of the corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Comb {
    Map,
    Fold,
    Scan,
}

impl Comb {
    const ALL: [Comb; 3] = [Comb::Map, Comb::Fold, Comb::Scan];

    fn name(self) -> &'static str {
        match self {
            Comb::Map => "map",
            Comb::Fold => "fold",
            Comb::Scan => "scan",
        }
    }

    fn dir(self) -> &'static str {
        match self {
            Comb::Map => "map",
            Comb::Fold => "fold_reduce",
            Comb::Scan => "scan_block",
        }
    }

    fn parse(s: &str) -> Option<Comb> {
        Comb::ALL.into_iter().find(|c| c.name() == s.trim())
    }
}

/// Threads of fold's first pass each sum this many elements (grid = N / (block * FOLD_PER_THREAD)).
const FOLD_PER_THREAD: u64 = 16;

pub fn run(args: Args) -> Result<(), CliError> {
    let sizes: Vec<u64> = if args.sizes.is_empty() {
        DEFAULT_SIZES.to_vec()
    } else {
        args.sizes.clone()
    };
    if let Some(bad) = sizes
        .iter()
        .find(|&&n| n == 0 || n % 256 != 0 || n > 1 << 28)
    {
        return Err(CliError::usage(format!(
            "--n {bad}: sizes must be positive multiples of 256, at most 2^28"
        )));
    }
    let pipeline: Vec<Comb> = match &args.pipeline {
        None => Vec::new(),
        Some(p) => p
            .split(',')
            .map(|s| {
                Comb::parse(s).ok_or_else(|| {
                    CliError::usage(format!(
                        "--pipeline: unknown combinator `{s}` (map, fold, scan)"
                    ))
                })
            })
            .collect::<Result<_, _>>()?,
    };
    let catalog = Catalog::bundled().map_err(|e| CliError::user(e.to_string()))?;
    let gpu = catalog
        .get(&args.gpu)
        .map_err(|e| CliError::user(e.to_string()))?
        .clone();
    let cal_path = args.calibrated.join(format!("{}.toml", gpu.id));
    let cal = parse_calibrated(&cal_path.display().to_string(), &read_input(&cal_path)?)
        .map_err(|e| CliError::user(e.to_string()))?;
    let params = gpu_params(&gpu, &cal, &cal_path)?;
    let lat = match &args.measurements {
        Some(p) => {
            let sets = fit::measurements::parse_csv(&p.display().to_string(), &read_input(p)?)
                .map_err(|e| CliError::user(e.to_string()))?;
            OpLatencies::from_datasets(&sets, &gpu.id)
        }
        None => OpLatencies::default(),
    };

    let mut rows: Vec<Row> = Vec::new();
    for &n in &sizes {
        for comb in Comb::ALL {
            let stages = emulate(&args, &gpu, comb, n)?;
            let pred = predict_pipeline(&params, &lat, &stages);
            rows.push(Row {
                what: comb.name().to_string(),
                n,
                prediction: pred,
            });
        }
        if !pipeline.is_empty() {
            let mut stages = Vec::new();
            for &comb in &pipeline {
                stages.extend(emulate(&args, &gpu, comb, n)?);
            }
            let names: Vec<&str> = pipeline.iter().map(|c| c.name()).collect();
            rows.push(Row {
                what: names.join(","),
                n,
                prediction: predict_pipeline(&params, &lat, &stages),
            });
        }
    }
    if let Some(path) = &args.svg {
        write_svg(path, &gpu.id, &rows)?;
    }
    if args.json {
        let out = serde_json::json!({
            "schema": 1,
            "gpu": gpu.id,
            "gpu_params": params,
            "op_latencies": lat,
            "results": rows.iter().map(|r| serde_json::json!({
                "combinator": r.what, "n": r.n, "prediction": r.prediction,
            })).collect::<Vec<_>>(),
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&out).map_err(|e| CliError::user(e.to_string()))?
        );
        return Ok(());
    }
    print_tables(&params, &lat, &rows);
    Ok(())
}

struct Row {
    what: String,
    n: u64,
    prediction: PipelinePrediction,
}

/// The model's view of `gpu`: catalog throughputs, calibrated stream curves and launch overhead.
fn gpu_params(gpu: &Gpu, cal: &CalibratedGpu, path: &Path) -> Result<GpuParams, CliError> {
    let curve = |k: &str| -> Result<BandwidthCurve, CliError> {
        cal.stream(k).cloned().ok_or_else(|| {
            CliError::user(format!(
                "{}: error: no stream fit for kernel `{k}` (run `ptxperf fit gpu-benches --write`)",
                path.display()
            ))
        })
    };
    let t = &gpu.throughput;
    let mut throughput = BTreeMap::new();
    let lanes = |v: Option<f64>, fallback: f64| v.unwrap_or(fallback);
    throughput.insert(OpClass::Fp32, lanes(t.fp32, f64::from(gpu.sm.fp32_lanes)));
    throughput.insert(OpClass::Fp64, lanes(t.fp64, f64::from(gpu.sm.fp64_lanes)));
    throughput.insert(OpClass::Sfu, lanes(t.sfu, f64::from(gpu.sm.sfu)));
    throughput.insert(
        OpClass::IntAdd,
        lanes(t.int_add, f64::from(gpu.sm.fp32_lanes)),
    );
    throughput.insert(
        OpClass::IntMul,
        lanes(t.int_mul, f64::from(gpu.sm.fp32_lanes)),
    );
    // 4-byte words per clock; without a catalog figure, 32 banks x 4 bytes.
    throughput.insert(
        OpClass::Shared,
        t.shared_bytes_per_clock.unwrap_or(128.0) / 4.0,
    );
    let issue = f64::from(gpu.sm.warp_schedulers) * f64::from(gpu.sm.warp_size);
    throughput.insert(OpClass::Other, issue);
    let (launch_overhead_s, launch_source) = match cal.launch_overhead_us {
        Some(us) => (
            Some(us * 1e-6),
            format!(
                "fitted: {} (small-kernels)",
                cal.launch_source
                    .clone()
                    .unwrap_or_else(|| path.display().to_string())
            ),
        ),
        None => (
            None,
            format!(
                "missing: {} has no small-kernels fit and the catalog has no launch overhead; none included",
                path.display()
            ),
        ),
    };
    Ok(GpuParams {
        id: gpu.id.clone(),
        sm_count: gpu.sm_count,
        clock_hz: gpu.clock_hz(),
        max_warps_per_sm: gpu.limits.max_warps_per_sm,
        throughput,
        barrier_cycles: gpu.latencies.shared,
        read_curve: curve("read")?,
        copy_curve: curve("scale")?,
        launch_overhead_s,
        launch_source,
    })
}

/// The launches of one combinator at size `n`, emulated, checked and counted.
fn emulate(args: &Args, gpu: &Gpu, comb: Comb, n: u64) -> Result<Vec<StageCounts>, CliError> {
    match comb {
        Comb::Map => {
            let block = 128;
            Ok(vec![launch(
                args,
                gpu,
                comb,
                n,
                n.div_ceil(block),
                None,
                "map",
            )?])
        }
        Comb::Fold => {
            let grid = (n / (128 * FOLD_PER_THREAD)).max(1);
            let first = launch(args, gpu, comb, n, grid, Some(grid), "fold")?;
            let mut last = launch(args, gpu, comb, grid, 1, Some(1), "fold final pass")?;
            last.separate_launch = true;
            Ok(vec![first, last])
        }
        Comb::Scan => Ok(vec![launch(args, gpu, comb, n, n / 256, None, "scan")?]),
    }
}

/// Load the combinator's spec with N = `n`, set its grid (and fold's partial
/// length), run it fully to check the output, and profile it for the counts.
fn launch(
    args: &Args,
    gpu: &Gpu,
    comb: Comb,
    n: u64,
    grid: u64,
    partial_len: Option<u64>,
    name: &str,
) -> Result<StageCounts, CliError> {
    let dir = args.kernels.join(comb.dir());
    let spec_path = dir.join("spec.toml");
    // The checked-in PTX does not depend on N (n is a kernel argument); use it
    // when present so that no NVRTC is needed.
    let ptx = dir.join("sm_80.ptx");
    let opts = pipeline::LoadOptions {
        ptx: ptx.exists().then_some(ptx),
        ..Default::default()
    };
    let overrides = vec![("N".to_string(), n.to_string())];
    let mut loaded = pipeline::load_spec_with(&spec_path, &overrides, &opts)
        .map_err(|e| CliError::user(e.to_string()))?;
    loaded.spec.grid = [
        u32::try_from(grid).map_err(|_| CliError::usage(format!("grid {grid} is too large")))?,
        1,
        1,
    ];
    if let Some(len) = partial_len {
        for a in &mut loaded.spec.args {
            if let ArgSpec::Buffer(b) = a
                && b.name == "partial"
            {
                b.len = len;
            }
        }
    }
    let result = emu::exec::launch(
        &loaded.module,
        &loaded.ptx,
        &loaded.ptx_file,
        &loaded.spec,
        emu::exec::launch::LaunchOptions {
            parallel: true,
            ..Default::default()
        },
        &mut emu::observer::NoObserver,
    )
    .map_err(|f| CliError::user(f.to_string()))?;
    check_output(comb, n, &result.buffers).map_err(|m| {
        CliError::user(format!(
            "{}: error: {name}, N = {n}: {m}",
            spec_path.display()
        ))
    })?;

    let popts = pipeline::Options {
        sample_ctas: (args.sample_ctas > 0 && args.sample_ctas < grid).then_some(args.sample_ctas),
        cache: false,
        ..Default::default()
    };
    let profiled = pipeline::profile(&loaded, &popts).map_err(|e| CliError::user(e.to_string()))?;
    let p = &profiled.profile;
    let occ = pipeline::occupancy_for(p, gpu).map_err(|e| CliError::user(e.to_string()))?;
    let m = &p.thread_instructions;
    let mut ops = BTreeMap::new();
    ops.insert(OpClass::IntAdd, m.int_add);
    ops.insert(OpClass::IntMul, m.int_mul + m.int_div);
    ops.insert(OpClass::Fp32, m.fp32 + m.fp32_fma + m.fp16);
    ops.insert(OpClass::Fp64, m.fp64 + m.fp64_fma);
    ops.insert(OpClass::Sfu, m.sfu);
    ops.insert(OpClass::Shared, m.shared_load + m.shared_store);
    ops.insert(
        OpClass::Other,
        m.control
            + m.convert
            + m.other
            + m.global_load
            + m.global_store
            + m.local
            + m.constant
            + m.atomic
            + m.barrier,
    );
    Ok(StageCounts {
        name: name.to_string(),
        load_bytes: p.global.loads.bytes,
        store_bytes: p.global.stores.bytes,
        ops,
        barriers_per_thread: p.sync.barriers_per_thread,
        ctas: p.launch.blocks(),
        threads_per_cta: p.launch.threads_per_block(),
        blocks_per_sm: occ.active_blocks_per_sm,
        occupancy: occ.occupancy,
        separate_launch: false,
    })
}

/// Compare a launch's output with the CPU reference the kernel's header states.
fn check_output(comb: Comb, n: u64, buffers: &[emu::exec::launch::Buffer]) -> Result<(), String> {
    let find = |name: &str| {
        buffers
            .iter()
            .find(|b| b.name == name)
            .ok_or_else(|| format!("no buffer `{name}` after the run"))
    };
    match comb {
        Comb::Map => {
            let out = f32s(&find("out")?.bytes);
            check_map(&out, n)
        }
        Comb::Fold => {
            let partial = f32s(&find("partial")?.bytes);
            check_fold(&partial, n)
        }
        Comb::Scan => {
            let out = i32s(&find("out")?.bytes);
            check_scan(&out, n, 256)
        }
    }
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// map: out[i] = 0.5 x^2 + 2 x + 1 with x[i] = i, within 1e-6 relative.
fn check_map(out: &[f32], n: u64) -> Result<(), String> {
    if out.len() as u64 != n {
        return Err(format!("out has {} elements, expected {n}", out.len()));
    }
    for (i, &got) in out.iter().enumerate() {
        let x = i as f64;
        let want = 0.5 * x * x + 2.0 * x + 1.0;
        if (f64::from(got) - want).abs() > 1e-6 * want.abs().max(1.0) {
            return Err(format!("out[{i}] = {got}, CPU reference {want}"));
        }
    }
    Ok(())
}

/// fold over x = fill 1.0: the partial sums add up to n, exactly.
fn check_fold(partial: &[f32], n: u64) -> Result<(), String> {
    let sum: f64 = partial.iter().map(|&v| f64::from(v)).sum();
    if sum != n as f64 {
        return Err(format!("sum of partial sums is {sum}, CPU reference {n}"));
    }
    Ok(())
}

/// scan over x = iota: per-block inclusive prefix sums.
fn check_scan(out: &[i32], n: u64, block: usize) -> Result<(), String> {
    if out.len() as u64 != n {
        return Err(format!("out has {} elements, expected {n}", out.len()));
    }
    let mut acc: i64 = 0;
    for (i, &got) in out.iter().enumerate() {
        if i % block == 0 {
            acc = 0;
        }
        acc += i as i64;
        if i64::from(got) != acc {
            return Err(format!("out[{i}] = {got}, CPU reference {acc}"));
        }
    }
    Ok(())
}

fn us(s: f64) -> String {
    format!("{:.3}", s * 1e6)
}

fn print_tables(params: &GpuParams, lat: &OpLatencies, rows: &[Row]) {
    println!(
        "GPU {}: launch overhead {}",
        params.id,
        params
            .launch_overhead_s
            .map_or("none".to_string(), |s| format!("{} µs", us(s)))
    );
    println!("  ({})", params.launch_source);
    if lat.by_class.is_empty() {
        println!("  compute priced at catalog throughputs (no measurement CSV given)");
    }
    let mut t = Table::new();
    t.set_header([
        "combinator",
        "N",
        "launch",
        "predicted µs",
        "launch µs",
        "memory µs",
        "compute µs",
        "barrier µs",
        "bound",
        "occupancy",
        "GB/s (stream)",
    ]);
    for r in rows {
        for s in &r.prediction.stages {
            t.add_row([
                r.what.clone(),
                r.n.to_string(),
                s.name.clone(),
                us(s.total_s),
                us(s.launch_s),
                us(s.memory_s),
                us(s.compute_s),
                us(s.barrier_s),
                s.bound.to_string(),
                format!("{:.1} %", s.occupancy_pct),
                format!("{:.0} ({})", s.bandwidth_gbps, s.stream_kernel),
            ]);
        }
        if r.prediction.stages.len() > 1 {
            let fused = r.prediction.fused.as_ref().map_or(String::new(), |f| {
                format!(" (fused estimate {})", us(f.total_s))
            });
            t.add_row([
                r.what.clone(),
                r.n.to_string(),
                "total".into(),
                format!("{}{fused}", us(r.prediction.total_s)),
                us(r.prediction.launch_overheads_s),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            ]);
        }
    }
    println!("{t}");
    println!("outputs checked against CPU references at every size: all correct");
}

/// Predicted cost (µs) against N, one line per combinator or pipeline, log-log.
fn write_svg(path: &Path, gpu: &str, rows: &[Row]) -> Result<(), CliError> {
    use plotters::prelude::*;
    let mut series: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    for r in rows {
        series
            .entry(r.what.as_str())
            .or_default()
            .push((r.n as f64, (r.prediction.total_s * 1e6).max(1e-6)));
    }
    let all: Vec<(f64, f64)> = series.values().flatten().copied().collect();
    let (x0, x1) = bounds(all.iter().map(|p| p.0));
    let (y0, y1) = bounds(all.iter().map(|p| p.1));
    let mut svg = String::new();
    {
        let err = |e: &dyn std::fmt::Display| CliError::user(format!("cannot draw SVG: {e}"));
        let root = SVGBackend::with_string(&mut svg, (800, 500)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("{gpu}: predicted cost against N"),
                ("sans-serif", 20),
            )
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc("N (elements)")
            .y_desc("predicted µs")
            .draw()
            .map_err(|e| err(&e))?;
        for (i, (name, pts)) in series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label(*name)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .map_err(|e| err(&e))?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE)
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    std::fs::write(path, svg)
        .map_err(|e| CliError::user(format!("{}: error: cannot write: {e}", path.display())))
}

fn bounds(vals: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
        (l.min(v), h.max(v))
    });
    if lo.is_finite() && hi.is_finite() && lo > 0.0 {
        (lo / 1.5, hi * 1.5)
    } else {
        (1.0, 10.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(sizes: Vec<u64>, pipeline: Option<&str>) -> Args {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        Args {
            gpu: "h100-pcie-80gb".into(),
            sizes,
            pipeline: pipeline.map(str::to_string),
            json: false,
            svg: None,
            kernels: root.join("kernels"),
            calibrated: root.join("gpus/calibrated"),
            measurements: None,
            sample_ctas: 16,
        }
    }

    fn gpu() -> Gpu {
        Catalog::bundled()
            .and_then(|c| c.get("h100-pcie-80gb").cloned())
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// Emulating checks the output against the CPU reference; an Err is a mismatch.
    fn check_correct(comb: Comb, n: u64) {
        let a = args(vec![n], None);
        let stages = emulate(&a, &gpu(), comb, n).unwrap_or_else(|e| panic!("{e}"));
        assert!(!stages.is_empty());
        let bytes: f64 = stages[0].load_bytes;
        // Every combinator reads its N 4-byte inputs once.
        assert_eq!(bytes, 4.0 * n as f64, "{comb:?} N={n}");
    }

    #[test]
    fn combinators_match_cpu_references_in_the_emulator() {
        for n in [4096, 16384, 65536] {
            check_correct(Comb::Map, n);
            check_correct(Comb::Fold, n);
            check_correct(Comb::Scan, n);
        }
    }

    #[test]
    fn references_reject_wrong_outputs() {
        assert!(check_map(&[1.0, 3.5, 7.0], 3).is_ok());
        assert!(check_map(&[1.0, 3.5, 7.5], 3).is_err());
        assert!(check_fold(&[2.0, 2.0], 4).is_ok());
        assert!(check_fold(&[2.0, 1.0], 4).is_err());
        assert!(check_scan(&[0, 1, 3, 6, 4, 9], 6, 4).is_ok());
        assert!(check_scan(&[0, 1, 3, 6, 10, 15], 6, 4).is_err());
    }

    #[test]
    fn map_cost_follows_bytes_over_fitted_bandwidth() {
        let a = args(vec![], None);
        let g = gpu();
        let cal_path = a.calibrated.join("h100-pcie-80gb.toml");
        let cal = parse_calibrated(
            "h100",
            &std::fs::read_to_string(&cal_path).unwrap_or_default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let params = gpu_params(&g, &cal, &cal_path).unwrap_or_else(|e| panic!("{e}"));
        let lat = OpLatencies::default();
        // Both grids fill the H100's 114 x 64 warp slots (2048 and 4096 CTAs of 4 warps).
        let (n1, n2) = (262144u64, 524288u64);
        let s1 = emulate(&a, &g, Comb::Map, n1).unwrap_or_else(|e| panic!("{e}"));
        let s2 = emulate(&a, &g, Comb::Map, n2).unwrap_or_else(|e| panic!("{e}"));
        let p1 = predict_pipeline(&params, &lat, &s1);
        let p2 = predict_pipeline(&params, &lat, &s2);
        assert_eq!(p1.stages[0].bound, "memory");
        assert_eq!(p1.stages[0].occupancy_pct, p2.stages[0].occupancy_pct);
        let bw = p1.stages[0].bandwidth_gbps * 1e9;
        let expected = 8.0 * (n2 - n1) as f64 / bw;
        let got = p2.total_s - p1.total_s;
        assert!(
            (got - expected).abs() <= 1e-9 * expected,
            "{got} vs {expected}"
        );
        // A pipeline costs the sum of its stages (fold: two launches).
        let mut stages = s2.clone();
        stages.extend(emulate(&a, &g, Comb::Fold, n2).unwrap_or_else(|e| panic!("{e}")));
        let pipe = predict_pipeline(&params, &lat, &stages);
        assert_eq!(pipe.stages.len(), 3);
        let sum: f64 = pipe.stages.iter().map(|s| s.total_s).sum();
        assert!((pipe.total_s - sum).abs() <= 1e-15);
    }
}
