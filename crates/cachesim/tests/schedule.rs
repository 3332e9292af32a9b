//! The wave scheduler: which CTA runs on which SM, in which slot and wave, and when.

mod common;

use cachesim::{CtaPlacement, Kind::*, Path::*, simulate};
use common::{launch, small, trace};

/// (cta, sm, slot, wave, start_round, end_round)
type Row = (u32, u32, u32, u32, u64, u64);

/// Runs CTAs `0..lengths.len()` (one warp each, `lengths[i]` single-sector loads)
/// on `sms` SMs with `resident` CTAs per SM and compares the placement.
fn check(lengths: &[u32], resident: u32, sms: u32, expect: &[Row], rounds: u64) {
    let sector = [0u64];
    let mut reqs = Vec::new();
    for (cta, &n) in lengths.iter().enumerate() {
        for _ in 0..n {
            reqs.push((cta as u32, 0, Load, Global, sector.as_slice()));
        }
    }
    let r = simulate(
        &small(),
        &launch(lengths.len() as u32, resident, sms),
        &trace(&reqs),
    )
    .unwrap();
    let expect: Vec<CtaPlacement> = expect
        .iter()
        .map(
            |&(cta, sm, slot, wave, start_round, end_round)| CtaPlacement {
                cta,
                sm,
                slot,
                wave,
                start_round,
                end_round,
            },
        )
        .collect();
    assert_eq!(r.schedule, expect);
    assert_eq!(r.rounds, rounds);
}

#[test]
fn equal_ctas_run_in_full_waves() {
    // 7 CTAs of 2 requests, 2 SMs x 2 resident = 4 slots; slot k is on SM k % 2.
    // Wave 0: CTAs 0..3 on SMs 0,1,0,1 (slots 0,0,1,1), rounds 0-1.
    // All finish in round 1; slots refill in slot order: CTA 4 -> SM 0 slot 0,
    // CTA 5 -> SM 1 slot 0, CTA 6 -> SM 0 slot 1, rounds 2-3. Total 4 rounds.
    check(
        &[2; 7],
        2,
        2,
        &[
            (0, 0, 0, 0, 0, 1),
            (1, 1, 0, 0, 0, 1),
            (2, 0, 1, 0, 0, 1),
            (3, 1, 1, 0, 0, 1),
            (4, 0, 0, 1, 2, 3),
            (5, 1, 0, 1, 2, 3),
            (6, 0, 1, 1, 2, 3),
        ],
        4,
    );
}

#[test]
fn a_finished_cta_frees_its_slot_for_the_next() {
    // Lengths 3,1,2,2,1,1,1 on 2 SMs x 2 slots.
    // Round 0: CTAs 0-3 issue; CTA 1 (SM 1 slot 0) is done -> CTA 4 takes it (wave 1) at round 1.
    // Round 1: CTAs 2, 3 and 4 finish; freed slots in order: SM1/slot0 -> CTA 5 (wave 2),
    //          SM0/slot1 -> CTA 6 (wave 1); SM1/slot1 stays empty.
    // Round 2: CTA 0 issues its third request, CTAs 5 and 6 their only one. 3 rounds.
    check(
        &[3, 1, 2, 2, 1, 1, 1],
        2,
        2,
        &[
            (0, 0, 0, 0, 0, 2),
            (1, 1, 0, 0, 0, 0),
            (2, 0, 1, 0, 0, 1),
            (3, 1, 1, 0, 0, 1),
            (4, 1, 0, 1, 1, 1),
            (5, 1, 0, 2, 2, 2),
            (6, 0, 1, 1, 2, 2),
        ],
        3,
    );
}

#[test]
fn one_resident_cta_per_sm() {
    // 5 CTAs of 1 request on 3 SMs, 1 slot each: CTAs 0,1,2 on SMs 0,1,2 in round 0,
    // CTAs 3,4 on SMs 0,1 in round 1 (wave 1).
    check(
        &[1; 5],
        1,
        3,
        &[
            (0, 0, 0, 0, 0, 0),
            (1, 1, 0, 0, 0, 0),
            (2, 2, 0, 0, 0, 0),
            (3, 0, 0, 1, 1, 1),
            (4, 1, 0, 1, 1, 1),
        ],
        2,
    );
}

#[test]
fn per_wave_counters() {
    // 3 CTAs on 1 SM x 1 slot, each reading the same sector: wave 0 misses L1,
    // waves 1 and 2 hit it (the L1 survives across CTAs). Each wave has 1 CTA, 1 request.
    let s = [0u64];
    let t = trace(&[
        (0, 0, Load, Global, &s),
        (1, 0, Load, Global, &s),
        (2, 0, Load, Global, &s),
    ]);
    let r = simulate(&small(), &launch(3, 1, 1), &t).unwrap();
    let got: Vec<(u64, u64, u64, u64)> = r
        .waves
        .iter()
        .map(|w| (w.ctas, w.requests, w.l1.hits, w.l1.misses))
        .collect();
    assert_eq!(got, vec![(1, 1, 0, 1), (1, 1, 1, 0), (1, 1, 1, 0)]);
}

#[test]
fn sampled_cta_ids_are_dispatched_in_id_order() {
    // CTAs 40, 7, 19 given out of order: dispatch is 7, 19, 40 onto SMs 0, 1, 0.
    let s = [0u64];
    let t = trace(&[
        (40, 0, Load, Global, &s),
        (7, 0, Load, Global, &s),
        (19, 0, Load, Global, &s),
    ]);
    let r = simulate(&small(), &launch(64, 1, 2), &t).unwrap();
    let got: Vec<(u32, u32, u32)> = r.schedule.iter().map(|p| (p.cta, p.sm, p.wave)).collect();
    assert_eq!(got, vec![(7, 0, 0), (19, 1, 0), (40, 0, 1)]);
}
