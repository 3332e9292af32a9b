//! Times the warp model at the size of the target: 64 warps of 10^5
//! instructions each, one run, release mode (`cargo bench -p petri`), with
//! the specialised executor (`warp::simulate_once`, target: under 1 s per
//! case). Then one smaller case on both executors, for their ratio (the
//! general engine is the reference the fast path is tested against).

use petri::warp;
use petri::{LatencyCounting, WarpCounts, WarpModelConfig};
use std::time::Instant;

/// CPU time of this thread so far, in seconds, from Linux's
/// `/proc/thread-self/schedstat` (first field: nanoseconds on a CPU); `None`
/// elsewhere. Reported next to wall time because the machine may be loaded.
fn cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 * 1e-9)
}

fn time_case(label: &str, counts: WarpCounts, counting: LatencyCounting) {
    let cfg = WarpModelConfig {
        latency_counting: counting,
        ..WarpModelConfig::uniform(64, counts)
    };
    let start = Instant::now();
    let cpu_start = cpu_seconds();
    let wnet = match warp::build(&cfg) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("{label}: {e}");
            return;
        }
    };
    let built = start.elapsed();
    match warp::simulate_once(&wnet, 1, warp::default_budget(&cfg)) {
        Ok(run) => {
            let total = start.elapsed();
            let secs = total.as_secs_f64();
            let cpu = match (cpu_start, cpu_seconds()) {
                (Some(a), Some(b)) => format!("{:.3} s", b - a),
                _ => "n/a".to_string(),
            };
            println!(
                "{label:<44} {:>9} steps {:>9} idle  build {:>6.2} ms  wall {:>7.3} s  cpu {cpu}  ({:.1} M steps/s)",
                run.steps,
                run.idle_steps,
                built.as_secs_f64() * 1e3,
                secs,
                run.steps as f64 / secs / 1e6
            );
        }
        Err(e) => eprintln!("{label}: {e}"),
    }
}

fn compare_engines() {
    let cfg = WarpModelConfig::uniform(16, WarpCounts::new(8_000, 1_000, 1_000));
    let Ok(wnet) = warp::build(&cfg) else {
        return;
    };
    let budget = warp::default_budget(&cfg);
    let time = |f: &dyn Fn() -> Option<u64>| {
        let start = Instant::now();
        let steps = f();
        (steps, start.elapsed().as_secs_f64())
    };
    let (fast, tf) = time(&|| warp::simulate_once(&wnet, 1, budget).ok().map(|r| r.steps));
    let (reference, tr) = time(&|| {
        warp::simulate_once_reference(&wnet, 1, budget)
            .ok()
            .map(|r| r.steps)
    });
    println!(
        "16 warps x 10000 (80/10/10): fast {fast:?} steps {tf:.3} s, general engine {reference:?} steps {tr:.3} s ({:.0}x)",
        tr / tf.max(1e-9)
    );
}

fn main() {
    println!("64 warps x 100000 instructions, K = 4, l1 = 20, l2 = 2, one run");
    time_case(
        "mix 80% arith / 10% shared / 10% global",
        WarpCounts::new(80_000, 10_000, 10_000),
        LatencyCounting::CountUp,
    );
    time_case(
        "mix 80/10/10, countdown latency",
        WarpCounts::new(80_000, 10_000, 10_000),
        LatencyCounting::Countdown,
    );
    time_case(
        "arithmetic only",
        WarpCounts::new(100_000, 0, 0),
        LatencyCounting::CountUp,
    );
    time_case(
        "global only",
        WarpCounts::new(0, 0, 100_000),
        LatencyCounting::CountUp,
    );
    compare_engines();
}
