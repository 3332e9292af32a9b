//! How much a warp scheduler's dispatch and its pipes lose to each other
//! (docs/timing-model.md, "Dispatch and pipes share the warps").
//!
//! The throughput term takes the busiest of the scheduler's resources: its
//! dispatch (one instruction a clock), each arithmetic pipe and the LSU
//! pipe. That is what the warps reach only if, whenever one resource is
//! busy, some warp's next instruction wants another. A warp issues in
//! order, so with a few warps and two resources both near full, all the
//! ready warps often want the busy one and the other idles. This module
//! prices that with the scheduler as a closed queueing network: its `V`
//! warps are the customers, each resource a fixed-rate server, a warp's
//! demand on resource k its share `T_k / V` of the wave's time there.
//! Exact mean value analysis (Reiser and Lavenberg, "Mean-value analysis
//! of closed multichain queuing networks", J. ACM 27(2), 1980) with the
//! residual-life correction for deterministic service: a warp arriving at
//! a busy pipe waits for the queue ahead and half the service of the warp
//! in it (renewal theory: residual E[S^2] / 2 E[S], S fixed), since an
//! instruction holds a pipe for a fixed number of clocks. Nothing in it is
//! fitted: the demands are the model's own terms.

/// Warps per scheduler beyond which the loss is read at this count (the
/// loss falls as 1 / V; the largest SMs hold 16 warps a scheduler).
const MAX_WARPS: f64 = 4096.0;

/// The wave's time over the busiest resource's time, at least 1, for
/// `warps` warps per scheduler sharing resources busy `times` cycles each
/// over the wave (zeros are resources the code does not use). One warp or
/// fewer loses nothing here: a lone warp's chain already holds its share
/// of every pipe (`warp_chain_cycles`). A fractional count interpolates
/// between its neighbours, from 1 at one warp.
pub fn interference(warps: f64, times: &[f64]) -> f64 {
    let busiest = times.iter().copied().fold(0.0, f64::max);
    if !(busiest > 0.0 && busiest.is_finite()) || warps.is_nan() || warps <= 1.0 {
        return 1.0;
    }
    let w = warps.min(MAX_WARPS);
    let lo = w.floor();
    let frac = w - lo;
    // `lo` is a whole number in [1, 4096]: the casts are exact. One warp
    // counts as 1, however the analysis would price it.
    let last = if frac == 0.0 { lo } else { lo + 1.0 };
    let [at_lo, at_next] = cycles_over_busiest(lo as u32, last as u32, times, busiest);
    let at_lo = if lo <= 1.0 { 1.0 } else { at_lo };
    let f = if frac == 0.0 {
        at_lo
    } else {
        (1.0 - frac) * at_lo + frac * at_next
    };
    if f.is_finite() { f.max(1.0) } else { 1.0 }
}

/// Resources a scheduler's analysis holds on the stack; more (no caller
/// has them) go to the heap.
const STACK_STATIONS: usize = 16;

/// Mean value analysis with no think time, once up to `last` customers:
/// the wave's time over the busiest resource's at `lo` and at `last`
/// customers. The analysis is linear in the demands (queue lengths and
/// utilisations do not change when every demand is scaled), so one pass
/// with the whole wave's times as demands gives every population: with
/// `n` customers each demands `times / n`, and the wave takes
/// `cycle(n) / n`.
fn cycles_over_busiest(lo: u32, last: u32, times: &[f64], busiest: f64) -> [f64; 2] {
    // Demand of one customer per station, its queue length and utilisation.
    let used = || times.iter().copied().filter(|t| *t > 0.0 && t.is_finite());
    let count = used().count();
    let mut stack = [(0.0, 0.0, 0.0); STACK_STATIONS];
    let mut heap = Vec::new();
    let stations: &mut [(f64, f64, f64)] = if count <= STACK_STATIONS {
        for (s, t) in stack.iter_mut().zip(used()) {
            s.0 = t;
        }
        &mut stack[..count]
    } else {
        heap.extend(used().map(|t| (t, 0.0, 0.0)));
        &mut heap
    };
    let mut out = [f64::NAN; 2];
    for m in 1..=last {
        let mut cycle = 0.0;
        for (demand, queue, busy) in stations.iter_mut() {
            // Wait for the customers queued ahead, less the half of a
            // service the one being served has already done.
            let residence = *demand * (1.0 + *queue - 0.5 * *busy);
            *queue = residence;
            cycle += residence;
        }
        let throughput = f64::from(m) / cycle;
        for (demand, queue, busy) in stations.iter_mut() {
            *queue *= throughput;
            *busy = throughput * *demand;
        }
        let wave = cycle / f64::from(m) / busiest;
        if m == lo {
            out[0] = wave;
        }
        if m == last {
            out[1] = wave;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(warps: f64, times: &[f64], expect: f64) {
        let got = interference(warps, times);
        assert!(
            (got - expect).abs() < 1e-9,
            "interference({warps}, {times:?}) = {got}, expected {expect}"
        );
    }

    #[test]
    fn one_resource_or_one_warp_loses_nothing() {
        check(8.0, &[100.0], 1.0);
        check(8.0, &[100.0, 0.0, 0.0], 1.0);
        check(1.0, &[100.0, 100.0], 1.0);
        check(0.5, &[100.0, 100.0], 1.0);
        check(8.0, &[], 1.0);
        check(8.0, &[0.0, 0.0], 1.0);
        check(f64::NAN, &[1.0, 1.0], 1.0);
        check(8.0, &[f64::INFINITY, 1.0], 1.0);
    }

    #[test]
    fn two_warps_on_two_balanced_resources() {
        // By hand: m = 1: residences D, D, cycle 2D, X = 1 / 2D, queues
        // 1/2, utilisations 1/2. m = 2: residences D (1 + 1/2 - 1/4) =
        // 1.25 D each, cycle 2.5 D, X = 2 / 2.5 D; the wave (2 warps) takes
        // 2 / X = 2.5 D = 1.25 T where T = 2 D.
        check(2.0, &[100.0, 100.0], 1.25);
    }

    #[test]
    fn a_fraction_of_a_warp_interpolates() {
        check(1.5, &[100.0, 100.0], 1.125);
        let two = interference(2.0, &[100.0, 100.0]);
        let three = interference(3.0, &[100.0, 100.0]);
        check(2.25, &[100.0, 100.0], 0.75 * two + 0.25 * three);
    }

    #[test]
    fn the_loss_falls_with_more_warps_and_with_imbalance() {
        let mut last = f64::INFINITY;
        for w in 2..=64 {
            let f = interference(f64::from(w), &[100.0, 100.0, 100.0]);
            assert!(f >= 1.0 && f < last, "{w} warps: {f} after {last}");
            last = f;
        }
        assert!(last < 1.05, "64 warps still lose {last}");
        let balanced = interference(3.0, &[100.0, 100.0, 100.0]);
        let lopsided = interference(3.0, &[100.0, 100.0, 30.0]);
        assert!(
            lopsided < balanced && lopsided > 1.0,
            "{lopsided} {balanced}"
        );
        // Far from balance the approximation would fall below the busiest
        // resource's time, which no schedule beats: it is held at 1.
        check(3.0, &[100.0, 30.0], 1.0);
    }

    /// The analysis as first written: a separate run per population, each
    /// with its own demands (`times / n`).
    fn two_runs(n: u32, times: &[f64]) -> f64 {
        let busiest = times.iter().copied().fold(0.0, f64::max);
        let per_warp = f64::from(n);
        let mut st: Vec<(f64, f64, f64)> = times
            .iter()
            .filter(|t| **t > 0.0)
            .map(|t| (t / per_warp, 0.0, 0.0))
            .collect();
        let mut x = 0.0;
        for m in 1..=n {
            let mut cycle = 0.0;
            for (d, q, u) in &mut st {
                let r = *d * (1.0 + *q - 0.5 * *u);
                *q = r;
                cycle += r;
            }
            x = f64::from(m) / cycle;
            for (d, q, u) in &mut st {
                *q *= x;
                *u = x * *d;
            }
        }
        per_warp / x / busiest
    }

    #[test]
    fn one_pass_gives_what_a_run_per_population_gives() {
        let few = [100.0, 80.0, 35.0, 0.0, 60.0];
        // More resources than the stack holds: the heap path.
        let many: Vec<f64> = (1..=20).map(|k| 10.0 + f64::from(k * 7 % 13)).collect();
        for times in [&few[..], &many[..]] {
            for w in [2.0, 3.0, 2.5, 4.25, 7.0, 16.0] {
                let lo = f64::floor(w);
                let frac = w - lo;
                let want = if frac == 0.0 {
                    two_runs(lo as u32, times)
                } else {
                    let at_lo = if lo <= 1.0 {
                        1.0
                    } else {
                        two_runs(lo as u32, times)
                    };
                    (1.0 - frac) * at_lo + frac * two_runs(lo as u32 + 1, times)
                }
                .max(1.0);
                let got = interference(w, times);
                assert!(
                    (got - want).abs() <= 1e-12 * want,
                    "{w} warps over {} resources: {got} against {want}",
                    times.len()
                );
            }
        }
    }

    #[test]
    fn the_order_of_the_resources_does_not_matter() {
        let a = interference(5.0, &[40.0, 100.0, 70.0]);
        let b = interference(5.0, &[100.0, 70.0, 40.0]);
        assert!((a - b).abs() < 1e-12);
    }

    #[test]
    fn it_is_bounded_by_the_sum_of_the_resources() {
        // The customers cannot take longer than serving everything in turn.
        for w in 2..=16 {
            let t = [30.0, 100.0, 60.0, 5.0];
            let f = interference(f64::from(w), &t);
            assert!(f <= t.iter().sum::<f64>() / 100.0, "{w}: {f}");
        }
    }
}
