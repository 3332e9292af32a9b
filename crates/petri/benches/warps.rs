//! Times the warp model at the size of the target: 64 warps of 10^5
//! instructions each, one run, release mode (`cargo bench -p petri`).

use petri::warp;
use petri::{LatencyCounting, WarpCounts, WarpModelConfig};
use std::time::Instant;

fn time_case(label: &str, counts: WarpCounts, counting: LatencyCounting) {
    let cfg = WarpModelConfig {
        latency_counting: counting,
        ..WarpModelConfig::uniform(64, counts)
    };
    let start = Instant::now();
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
            println!(
                "{label:<44} {:>9} steps {:>9} idle  build {:>6.2} ms  total {:>7.3} s  ({:.1} M steps/s)",
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
}
