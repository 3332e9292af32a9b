//! Seed 000's case studies on the GTX 280 (R = 1.3 GHz, N_C = 8, D = 4, N_t = 32).

use super::adapter::{MemoryPattern, comp_cycles, memory_cycles};
use super::*;
use profile::ClassMix;

const GTX280_R: f64 = 1.3e9;

fn gtx280(n_b: f64, n_w: f64, comp: f64, memory: f64) -> KothapalliParams {
    KothapalliParams {
        n_b,
        n_w,
        n_t: 32.0,
        comp_cycles: comp,
        memory_cycles: memory,
        n_c: 8.0,
        d: 4.0,
        r_hz: GTX280_R,
    }
}

/// Evaluate `p` with `variant` and compare seconds with `seconds` to a relative `rel`.
fn check(p: &KothapalliParams, variant: Variant, seconds: f64, rel: f64) {
    let r = match evaluate(p, variant) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    assert!(
        ((r.seconds - seconds) / seconds).abs() <= rel,
        "{variant:?}: {} s, expected {seconds} s",
        r.seconds
    );
    assert!((r.cycles - r.seconds * p.r_hz).abs() <= 1e-6 * r.cycles);
}

/// List ranking, local-ranking phase, N = 2^22 (seed 000 section 5.2).
///
/// Thread and block counts: the paper says p = N / log N splitters and one
/// thread per splitter, so N / log N = 4,194,304 / 22 = 190,650.2 threads,
/// i.e. 190,651 threads in blocks of 512 = ceil(372.4) = 373 blocks, and
/// N_B = ceil(373 / 30) = 13 blocks per SM, N_w = 16. Each thread walks about
/// 4 log N = 88 elements with 3 uncoalesced global accesses of 500 cycles
/// each: N_memory = 4 * 22 * 3 * 500 = 132,000; computation is ignored.
/// C(K) = 13 * 16 * 32 * 132,000 / (8 * 4) = 27,456,000 cycles = 21.12 ms,
/// the paper's "about 21.0 ms". The paper's printed expression starts from
/// N / 512 blocks (one thread per *element*), which gives 443.6 ms instead
/// (checked below): the 21 ms follows only from N / log N threads.
#[test]
fn list_ranking_2_pow_22_is_about_21_ms() {
    let n = 4_194_304.0_f64;
    let log_n = n.log2();
    let threads = (n / log_n).ceil();
    let blocks = (threads / 512.0).ceil();
    assert_eq!(blocks, 373.0);
    let n_b = (blocks / 30.0).ceil();
    assert_eq!(n_b, 13.0);
    let memory = 4.0 * log_n * 3.0 * 500.0;
    assert_eq!(memory, 132_000.0);
    check(
        &gtx280(n_b, 16.0, 0.0, memory),
        Variant::Max,
        0.021_12,
        1e-3,
    );
    // MAX and SUM agree because computation is ignored (the paper shows only MAX).
    check(
        &gtx280(n_b, 16.0, 0.0, memory),
        Variant::Sum,
        0.021_12,
        1e-3,
    );
    // Within 1 % of the paper's 21.0 ms.
    check(&gtx280(n_b, 16.0, 0.0, memory), Variant::Max, 0.021, 0.01);
}

#[test]
fn list_ranking_as_printed_is_not_21_ms() {
    // N / (512 * 30) * 16 * 32/(8*4) * 4 log N * 3 * 500 / 1.3e9, verbatim.
    let n = 4_194_304.0_f64;
    let printed = n / (512.0 * 30.0) * 16.0 * (32.0 / 32.0) * 4.0 * 22.0 * 3.0 * 500.0 / 1.3e9;
    check(
        &gtx280(n / (512.0 * 30.0), 16.0, 0.0, 132_000.0),
        Variant::Max,
        printed,
        1e-12,
    );
    assert!((printed - 0.4436).abs() < 1e-3, "{printed}");
}

/// Matrix multiplication, 16x16 tiles, N = 128 (seed 000 section 5.1), the
/// paper's formula verbatim: N^2/(256*30) * 8 * 32 * (760N/16) / (32 * 1.3e9).
/// With N_B = N^2/(256*30) unrounded, N = 128 gives 79.8 us (MAX) and 105.0 us
/// (SUM, N_memory = 240N/16); with N_B rounded up to 3 blocks, 112.2 us (MAX).
/// None is the "around 11 ms" the paper states: 11 ms is 100x the rounded figure.
#[test]
fn matrix_multiplication_formula_at_128() {
    let n = 128.0_f64;
    let n_b = n * n / (256.0 * 30.0);
    let comp = 760.0 * n / 16.0;
    let memory = 240.0 * n / 16.0;
    let verbatim = n * n / (256.0 * 30.0) * 8.0 * 32.0 * comp / (32.0 * 1.3e9);
    check(
        &gtx280(n_b, 8.0, comp, memory),
        Variant::Max,
        verbatim,
        1e-12,
    );
    check(
        &gtx280(n_b, 8.0, comp, memory),
        Variant::Max,
        79.82e-6,
        1e-3,
    );
    check(
        &gtx280(n_b, 8.0, comp, memory),
        Variant::Sum,
        105.03e-6,
        1e-3,
    );
    check(
        &gtx280(3.0, 8.0, comp, memory),
        Variant::Max,
        112.25e-6,
        1e-3,
    );
}

#[test]
fn matrix_multiplication_scales_as_n_cubed() {
    // C(K) grows as N^2 (blocks) x N (work per thread); 2048 vs 128 is 16^3.
    let at = |n: f64| {
        let p = gtx280(
            n * n / (256.0 * 30.0),
            8.0,
            760.0 * n / 16.0,
            240.0 * n / 16.0,
        );
        evaluate(&p, Variant::Max)
            .map(|r| r.seconds)
            .unwrap_or(f64::NAN)
    };
    assert!((at(2048.0) / at(128.0) - 4096.0).abs() < 1e-6);
}

/// `N_comp` and `N_memory` for one thread's mix, against the paper's costs.
fn check_costs(mix: ClassMix, pattern: MemoryPattern, comp: f64, memory: f64) {
    let c = OpCosts::GTX280;
    assert_eq!(comp_cycles(&mix, &c), comp, "N_comp of {mix:?}");
    assert!(
        (memory_cycles(&mix, &c, &pattern) - memory).abs() < 1e-9,
        "N_memory of {mix:?}"
    );
}

const UNCOALESCED: MemoryPattern = MemoryPattern {
    coalesced_fraction: 0.0,
    threads_per_transaction: 1.0,
    shared_conflict_ways: 1.0,
};

#[test]
fn per_operation_costs() {
    // Section 3.2: additions 4, 32-bit multiplications 16, modulus 48.
    check_costs(
        ClassMix {
            int_add: 2.0,
            int_mul: 2.0,
            ..ClassMix::default()
        },
        UNCOALESCED,
        40.0,
        0.0,
    );
    check_costs(
        ClassMix {
            int_div: 1.0,
            ..ClassMix::default()
        },
        UNCOALESCED,
        48.0,
        0.0,
    );
    // An uncoalesced global access: 500 cycles.
    check_costs(
        ClassMix {
            global_load: 3.0,
            ..ClassMix::default()
        },
        UNCOALESCED,
        0.0,
        1500.0,
    );
    // Coalesced, one transaction per half-warp (k = 16): (500 + 16)/16 = 32.25.
    let coalesced = MemoryPattern {
        coalesced_fraction: 1.0,
        threads_per_transaction: 16.0,
        ..UNCOALESCED
    };
    check_costs(
        ClassMix {
            global_load: 1.0,
            ..ClassMix::default()
        },
        coalesced,
        0.0,
        32.25,
    );
    // Shared memory: 4 cycles, 4k with k-way contention (section 3.2, QRQW).
    let conflicted = MemoryPattern {
        shared_conflict_ways: 8.0,
        ..UNCOALESCED
    };
    check_costs(
        ClassMix {
            shared_store: 1.0,
            ..ClassMix::default()
        },
        UNCOALESCED,
        0.0,
        4.0,
    );
    check_costs(
        ClassMix {
            shared_store: 1.0,
            ..ClassMix::default()
        },
        conflicted,
        0.0,
        32.0,
    );
}

#[test]
fn pipeline_depth_and_cores_divide() {
    // Equation (3): doubling N_C * D halves the cycles.
    let a = gtx280(2.0, 4.0, 100.0, 10.0);
    let b = KothapalliParams { d: 8.0, ..a };
    let (ra, rb) = match (evaluate(&a, Variant::Max), evaluate(&b, Variant::Max)) {
        (Ok(ra), Ok(rb)) => (ra, rb),
        other => panic!("{other:?}"),
    };
    assert_eq!(ra.cycles, 2.0 * 4.0 * 32.0 * 100.0 / 32.0);
    assert_eq!(rb.cycles * 2.0, ra.cycles);
}

#[test]
fn bad_parameters_are_errors() {
    assert!(evaluate(&gtx280(0.0, 16.0, 1.0, 1.0), Variant::Max).is_err());
    assert!(evaluate(&gtx280(1.0, 16.0, -1.0, 1.0), Variant::Sum).is_err());
    assert!(
        evaluate(
            &KothapalliParams {
                r_hz: f64::INFINITY,
                ..gtx280(1.0, 1.0, 1.0, 1.0)
            },
            Variant::Max
        )
        .is_err()
    );
}
