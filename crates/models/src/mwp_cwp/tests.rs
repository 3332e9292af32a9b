//! The worked example of models.md 1.8 (seed 002's slide table), in every
//! mode, with every intermediate value; and the case selection.

use super::*;

/// The slide example: FX5600-like, Freq = 1 GHz, Mem_Bandwidth = 80 GB/s (models.md 1.8).
fn worked_example() -> MwpCwpParams {
    MwpCwpParams {
        threads_per_warp: 32.0,
        issue_cycles: 4.0,
        freq_ghz: 1.0,
        mem_bandwidth_gbs: 80.0,
        mem_ld: 420.0,
        departure_del_uncoal: 10.0,
        departure_del_coal: 4.0,
        threads_per_block: 128.0,
        blocks: 80.0,
        active_blocks_per_sm: 5.0,
        active_sms: 16.0,
        comp_insts: 27.0,
        uncoal_mem_insts: 6.0,
        coal_mem_insts: 0.0,
        synch_insts: 6.0,
        coal_per_mw: 1.0,
        uncoal_per_mw: 32.0,
        load_bytes_per_warp: 128.0,
        general_coal_latency: false,
    }
}

/// Evaluate `p` in `mode` and compare the named quantities with `expected`
/// (absolute tolerance `tol`), and the case number.
fn check(p: &MwpCwpParams, mode: Mode, case: u8, expected: &[(&str, f64)], tol: f64) {
    let r = match evaluate(p, mode) {
        Ok(r) => r,
        Err(e) => panic!("{mode:?}: {e}"),
    };
    assert_eq!(r.case.number(), case, "{mode:?}: case");
    for &(name, want) in expected {
        let got = match name {
            "N" => r.n,
            "Weight_uncoal" => r.weight_uncoal,
            "Weight_coal" => r.weight_coal,
            "Mem_L_Uncoal" => r.mem_l_uncoal,
            "Mem_L_Coal" => r.mem_l_coal,
            "Mem_L" => r.mem_l,
            "Departure_delay" => r.departure_delay,
            "MWP_Without_BW_full" => r.mwp_without_bw_full,
            "MWP_Without_BW" => r.mwp_without_bw,
            "BW_per_warp" => r.bw_per_warp,
            "MWP_peak_BW" => r.mwp_peak_bw,
            "MWP" => r.mwp,
            "Comp_cycles" => r.comp_cycles,
            "Mem_cycles" => r.mem_cycles,
            "CWP_full" => r.cwp_full,
            "CWP" => r.cwp,
            "Comp_p" => r.comp_p,
            "#Rep" => r.rep,
            "Exec_cycles_app" => r.exec_cycles_app,
            "Synch_cost" => r.synch_cost,
            "Exec_cycles" => r.exec_cycles,
            "seconds" => r.seconds,
            other => panic!("unknown quantity {other}"),
        };
        assert!(
            (got - want).abs() <= tol,
            "{mode:?}: {name} = {got}, expected {want}"
        );
    }
}

#[test]
fn worked_example_exact() {
    check(
        &worked_example(),
        Mode::Exact,
        2,
        &[
            ("N", 20.0),
            ("Weight_uncoal", 1.0),
            ("Weight_coal", 0.0),
            ("Departure_delay", 320.0),
            ("Mem_L_Uncoal", 730.0),
            ("Mem_L", 730.0),
            ("MWP_Without_BW_full", 2.28125),
            ("MWP_Without_BW", 2.28125),
            ("BW_per_warp", 128.0 / 730.0),
            ("MWP_peak_BW", 80.0 / (128.0 / 730.0 * 16.0)),
            ("MWP", 2.28125),
            ("Comp_cycles", 132.0),
            ("Mem_cycles", 4380.0),
            ("CWP_full", 4512.0 / 132.0),
            ("CWP", 20.0),
            ("Comp_p", 22.0),
            ("#Rep", 1.0),
            ("Exec_cycles_app", 38_428.187_5),
            ("Synch_cost", 12_300.0),
            ("Exec_cycles", 50_728.187_5),
            ("seconds", 50_728.187_5e-9),
        ],
        1e-9,
    );
}

#[test]
fn worked_example_exact_rounded_values_as_printed() {
    // models.md 1.8 prints MWP_peak_BW = 28.5156 and BW_per_warp = 0.175342 for the exact mode.
    check(
        &worked_example(),
        Mode::Exact,
        2,
        &[
            ("MWP_peak_BW", 28.5156),
            ("BW_per_warp", 0.175342),
            ("CWP_full", 34.1818),
        ],
        5e-5,
    );
}

#[test]
fn worked_example_paper_rounding() {
    check(
        &worked_example(),
        Mode::PaperExample,
        2,
        &[
            ("N", 20.0),
            ("Departure_delay", 320.0),
            ("Mem_L", 730.0),
            ("MWP_Without_BW_full", 2.28),
            ("BW_per_warp", 0.175),
            ("MWP_peak_BW", 28.57),
            ("MWP", 2.28),
            ("Comp_cycles", 132.0),
            ("Mem_cycles", 4380.0),
            ("CWP_full", 34.18),
            ("CWP", 20.0),
            ("#Rep", 1.0),
            ("Exec_cycles_app", 38_450.0),
            ("Synch_cost", 12_288.0),
            ("Exec_cycles", 50_738.0),
        ],
        1e-9,
    );
}

#[test]
fn worked_example_klaraptor() {
    check(
        &worked_example(),
        Mode::Klaraptor,
        2,
        &[
            ("MWP_Without_BW_full", 3.0),
            ("MWP", 3.0),
            ("CWP_full", 35.0),
            ("CWP", 20.0),
            ("#Rep", 1.0),
            ("Exec_cycles_app", 29_244.0),
            ("Synch_cost", 19_200.0),
            ("Exec_cycles", 48_444.0),
        ],
        1e-9,
    );
}

#[test]
fn case_three_when_memory_is_hidden() {
    // Coalesced loads, enough warps: CWP = (2520 + 504)/504 = 6 < MWP = 16.4, and
    // Comp_cycles (504) <= Mem_cycles (2520), so Case 2's second test does not fire.
    let p = MwpCwpParams {
        comp_insts: 120.0,
        uncoal_mem_insts: 0.0,
        coal_mem_insts: 6.0,
        ..worked_example()
    };
    // Mem_L = 420 (coalesced), Departure_delay = 4: MWP_Without_BW_full = 105, capped by
    // MWP_peak_BW = 80/(128/420*16) = 16.40625.
    let mwp = 80.0 / (128.0 / 420.0 * 16.0);
    let exec = 420.0 + 504.0 * 20.0;
    let synch = 4.0 * (mwp - 1.0) * 6.0 * 5.0;
    check(
        &p,
        Mode::Exact,
        3,
        &[
            ("MWP", mwp),
            ("CWP", 6.0),
            ("Exec_cycles_app", exec),
            ("Synch_cost", synch),
            ("Exec_cycles", exec + synch),
        ],
        1e-9,
    );
}

#[test]
fn computation_heavier_than_memory_is_case_two() {
    // HK-19's second test: Comp_cycles (4000) > Mem_cycles (2520) gives Case 2 even though MWP > CWP.
    let p = MwpCwpParams {
        comp_insts: 994.0,
        uncoal_mem_insts: 0.0,
        coal_mem_insts: 6.0,
        ..worked_example()
    };
    let mwp = 80.0 / (128.0 / 420.0 * 16.0);
    check(
        &p,
        Mode::Exact,
        2,
        &[
            ("CWP", 1.63),
            (
                "Exec_cycles_app",
                2520.0 * 20.0 / mwp + 4000.0 / 6.0 * (mwp - 1.0),
            ),
        ],
        1e-9,
    );
}

#[test]
fn case_one_with_one_warp() {
    // One block of one warp per SM: N = 1, so MWP = CWP = 1.
    let p = MwpCwpParams {
        threads_per_block: 32.0,
        active_blocks_per_sm: 1.0,
        blocks: 16.0,
        ..worked_example()
    };
    // (Mem_cycles + Comp_cycles + Comp_p * 0) * 1 = 4380 + 132.
    check(
        &p,
        Mode::Exact,
        1,
        &[
            ("N", 1.0),
            ("MWP", 1.0),
            ("CWP", 1.0),
            ("Exec_cycles_app", 4512.0),
            ("Synch_cost", 0.0),
        ],
        1e-9,
    );
}

#[test]
fn bandwidth_limited_mwp() {
    // 1 GB/s of bandwidth: MWP_peak_BW = 1/(0.1753*16) = 0.356 binds.
    let p = MwpCwpParams {
        mem_bandwidth_gbs: 1.0,
        ..worked_example()
    };
    let peak = 1.0 / (128.0 / 730.0 * 16.0);
    check(
        &p,
        Mode::Exact,
        2,
        &[
            ("MWP", peak),
            (
                "Exec_cycles_app",
                4380.0 * 20.0 / peak + 22.0 * (peak - 1.0),
            ),
        ],
        1e-6,
    );
}

#[test]
fn no_memory_instruction_is_pure_computation() {
    let p = MwpCwpParams {
        uncoal_mem_insts: 0.0,
        synch_insts: 0.0,
        ..worked_example()
    };
    check(
        &p,
        Mode::Exact,
        3,
        &[
            ("Mem_L", 0.0),
            ("MWP", 20.0),
            ("CWP", 1.0),
            ("Exec_cycles", 4.0 * 27.0 * 20.0),
        ],
        1e-9,
    );
}

#[test]
fn fractional_rep_is_kept_except_in_klaraptor_mode() {
    let p = MwpCwpParams {
        blocks: 40.0,
        ..worked_example()
    };
    check(&p, Mode::Exact, 2, &[("#Rep", 0.5)], 0.0);
    check(&p, Mode::Klaraptor, 2, &[("#Rep", 1.0)], 0.0);
}

#[test]
fn no_instruction_is_an_error() {
    let p = MwpCwpParams {
        comp_insts: 0.0,
        uncoal_mem_insts: 0.0,
        ..worked_example()
    };
    assert!(evaluate(&p, Mode::Exact).is_err());
    let p = MwpCwpParams {
        active_sms: 0.0,
        ..worked_example()
    };
    assert!(evaluate(&p, Mode::Exact).is_err());
    let p = MwpCwpParams {
        mem_ld: f64::NAN,
        ..worked_example()
    };
    assert!(evaluate(&p, Mode::Exact).is_err());
}
