//! What characterization costs over emulation: on the same launch, `run`
//! (the emulator alone, parallel mode, as `ptxperf run` runs it) against
//! `characterize` (the emulator with the collector, as `ptxperf characterize`
//! runs it), for the corpus map kernel on 16M elements and the corpus 2D
//! convolution on a 4096 x 4096 image. Issue 25's target: characterize at
//! most twice the CPU time of run.
//!
//! Run: `cargo bench -p characterize --bench collector` (a plain main that
//! times and prints). CPU time is the whole process's user + system time
//! (every host thread counts); on a shared machine it is steadier than wall
//! time, which is printed too. Each figure is the best of
//! `PTXPERF_BENCH_REPEATS` runs (default 3).

use std::path::Path;
use std::time::Instant;

use characterize::{Options, characterize};
use emu::exec::{LaunchOptions, launch};
use emu::observer::NoObserver;
use emu::spec::LaunchSpec;
use ptx::Module;

/// User + system CPU seconds of this process so far (Linux `/proc/self/stat`,
/// in USER_HZ = 100 ticks); `None` elsewhere.
fn process_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are 14 and 15.
    let rest = text.get(text.rfind(')')? + 1..)?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

/// Best CPU and wall seconds of `repeats` calls of `f`, or why it failed.
fn time(repeats: usize, mut f: impl FnMut() -> Result<(), String>) -> Result<(f64, f64), String> {
    let (mut cpu, mut wall) = (f64::MAX, f64::MAX);
    for _ in 0..repeats.max(1) {
        let (t, c) = (Instant::now(), process_cpu_seconds());
        f()?;
        let w = t.elapsed().as_secs_f64();
        let c = match (c, process_cpu_seconds()) {
            (Some(a), Some(b)) => b - a,
            _ => w,
        };
        cpu = cpu.min(c);
        wall = wall.min(w);
    }
    Ok((cpu, wall))
}

struct Launch {
    label: &'static str,
    module: Module,
    text: String,
    file: String,
    spec: LaunchSpec,
}

fn corpus(
    label: &'static str,
    name: &str,
    sets: &[(&str, &str)],
    grid: Option<[u32; 3]>,
) -> Result<Launch, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../kernels")
        .join(name);
    let spec_path = dir.join("spec.toml");
    let spec_text = std::fs::read_to_string(&spec_path).map_err(|e| e.to_string())?;
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let mut spec = emu::spec::parse(&spec_text, &spec_path, &sets).map_err(|e| e.to_string())?;
    if let Some(g) = grid {
        spec.grid = g;
    }
    // The defines set here size the data only (the kernels read sizes from
    // their arguments), so the committed PTX serves.
    let text = std::fs::read_to_string(dir.join("sm_80.ptx")).map_err(|e| e.to_string())?;
    let file = format!("kernels/{name}/sm_80.ptx");
    let module = ptx::parse(&file, &text).map_err(|d| d.render(&file, &text))?;
    Ok(Launch {
        label,
        module,
        text,
        file,
        spec,
    })
}

fn measure(l: &Launch, repeats: usize) -> Result<(), String> {
    let mut instr = 0;
    let run = time(repeats, || {
        let opts = LaunchOptions {
            parallel: true,
            ..LaunchOptions::default()
        };
        let r = launch(&l.module, &l.text, &l.file, &l.spec, opts, &mut NoObserver)
            .map_err(|e| e.to_string())?;
        instr = r.stats.thread_instructions;
        Ok(())
    })?;
    let ch = time(repeats, || {
        characterize(&l.module, &l.text, &l.file, &l.spec, Options::default())
            .map(|_| ())
            .map_err(|e| e.to_string())
    })?;
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
    println!(
        "{:<24} {instr:>11} thread-instr | run cpu {:>7.2} s wall {:>7.2} s | characterize cpu {:>7.2} s wall {:>7.2} s | ratio cpu {:>5.2} wall {:>5.2}",
        l.label,
        run.0,
        run.1,
        ch.0,
        ch.1,
        ratio(ch.0, run.0),
        ratio(ch.1, run.1),
    );
    Ok(())
}

fn main() {
    let repeats = std::env::var("PTXPERF_BENCH_REPEATS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    println!(
        "characterize vs run on the same launch, {} host threads, best of {repeats}",
        rayon::current_num_threads()
    );
    let launches = [
        corpus("map (N=16M)", "map", &[("N", "16777216")], None),
        corpus(
            "conv2d (4096x4096)",
            "conv2d",
            &[("W", "4096"), ("H", "4096")],
            Some([256, 256, 1]),
        ),
    ];
    for l in launches {
        match l.and_then(|l| measure(&l, repeats).map_err(|e| format!("{}: {e}", l.label))) {
            Ok(()) => {}
            Err(e) => println!("failed: {e}"),
        }
    }
}
