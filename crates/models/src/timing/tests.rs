//! Hand-computed cases for each limit, monotonicity, and the whole catalog.

use arch::{Catalog, OccupancyInput, occupancy};
use profile::KernelProfile;

use super::calibration::{self, Calibration};
use super::interference::interference;
use super::params::{DEFAULT_LAUNCH_SECONDS, FP32_DIV_SLOTS, arch_params};
use super::*;

/// The catalog's instruction-fetch curve of CC 9.0 (the H100 measurement).
fn h100_fetch_curve() -> arch::FetchCurve {
    match arch::cc::bundled_table()
        .ok()
        .and_then(|t| t.get(arch::ComputeCapability::new(9, 0)))
    {
        Some(e) => e.instruction_fetch.clone(),
        None => panic!("the bundled catalog has no CC 9.0 entry"),
    }
}

/// Round numbers: 10 SMs at 1 GHz, 4 schedulers, FP32 pipe 2 warp
/// instructions per clock, one shared pass and one LSU instruction per clock,
/// 100 GB/s DRAM, 400 GB/s L2, 0.1 µs launch.
fn arch() -> ArchParams {
    ArchParams {
        sm_count: 10.0,
        clock_hz: 1e9,
        issue_per_clock: 4.0,
        schedulers: 4.0,
        rate_fp32: 2.0,
        rate_fp64: 1.0,
        rate_sfu: 0.5,
        rate_int: 2.0,
        rate_int_mul: 2.0,
        rate_convert: 0.5,
        rate_lsu: 1.0,
        int_div_slots: 12.0,
        fp32_div_slots: 13.0,
        shared_passes_per_clock: 1.0,
        shared_wide_measured: false,
        l1tex_l2_sectors_per_clock: None,
        l1_bytes_per_clock: 128.0,
        instruction_fetch: h100_fetch_curve(),
        fetch_code_scale: 1.0,
        lat_fp32: 4.0,
        lat_fp64: 8.0,
        lat_sfu: 16.0,
        lat_int: 4.0,
        lat_int_mul: 4.0,
        lat_shared: 30.0,
        lat_l1: 30.0,
        lat_l2: 200.0,
        lat_dram: 500.0,
        l2_bytes_per_second: 400e9,
        dram_bytes_per_second: 100e9,
        launch_seconds: 1e-7,
        pcie_bytes_per_second: 10e9,
        dram_origin: Origin::Datasheet,
        l2_origin: Origin::Datasheet,
        latency_origin: Origin::Datasheet,
        launch_origin: Origin::Datasheet,
        pcie_origin: Origin::Datasheet,
    }
}

/// One block per SM on every SM, 4 warps per block, nothing to do yet.
fn base() -> TimingInputs {
    TimingInputs {
        blocks: 10.0,
        warps_per_block: 4.0,
        resident_blocks_per_sm: 1.0,
        mix: WarpMix::default(),
        shared_passes: 0.0,
        shared_wide_passes: 0.0,
        sectors: 0.0,
        lane_bytes: 0.0,
        l1_hit_rate: 0.0,
        l1_pending_hit_rate: 0.0,
        l2_hit_rate: 0.0,
        spill_l1_hit_rate: 1.0,
        l2_bytes: 0.0,
        dram_bytes: 0.0,
        ilp: 1.0,
        mlp_global: 1.0,
        mlp_shared: 1.0,
        code_bytes: 0.0,
        global_load_wavefronts: 0.0,
        pcie_read_bytes: 0.0,
        pcie_write_bytes: 0.0,
        tensor_unrated_macs: 0.0,
    }
}

/// Evaluate and compare the time (relative 1e-9) and the binding limit.
fn check(inp: &TimingInputs, seconds: f64, limit: Limit) {
    check_on(&arch(), inp, seconds, limit);
}

/// `check` on another GPU.
fn check_on(arch: &ArchParams, inp: &TimingInputs, seconds: f64, limit: Limit) {
    match evaluate(inp, arch) {
        Ok(t) => {
            assert!(
                (t.seconds - seconds).abs() <= 1e-9 * seconds,
                "time {} s, expected {seconds} s; {:?}",
                t.seconds,
                t.breakdown
            );
            assert_eq!(t.limit, limit, "{:?}", t.breakdown);
        }
        Err(e) => panic!("{e}"),
    }
}

fn seconds(inp: &TimingInputs) -> f64 {
    match evaluate(inp, &arch()) {
        Ok(t) => t.seconds,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn pure_compute_is_bound_by_the_fp32_pipe() {
    // 4 warps x 1000 FFMA / 2 per clock = 2000 cycles; issue 4 x 1000 / 4 =
    // 1000; chain 1000 x 4 / ILP 8 = 500. 2000 cycles at 1 GHz + 0.1 µs.
    let mut inp = base();
    inp.mix.fp32 = 1000.0;
    inp.ilp = 8.0;
    check(&inp, 2e-6 + 1e-7, Limit::ComputeIssue);
    // Issue-bound when the pipe is wide: integer adds on a 2/clock pipe and
    // FFMA on a 2/clock pipe together fill 4 warps x 2000 / 4 = 2000 slots.
    inp.mix.int_add = 1000.0;
    check(&inp, 2e-6 + 1e-7, Limit::ComputeIssue);
}

#[test]
fn an_fp32_division_is_a_reciprocal_and_fp32_refinement() {
    // 4 warps x 100 divisions: issue 4 x 100 x 13 / 4 = 1300 slots; the FP32
    // pipe 4 x 100 x 12 / 2 = 2400 cycles; the SFU 4 x 100 / 0.5 = 800;
    // chain 100 x (16 + 12 x 4) / ILP 8 = 800. 2400 cycles + 0.1 µs.
    let mut inp = base();
    inp.mix.fp32_div = 100.0;
    inp.ilp = 8.0;
    check(&inp, 2.4e-6 + 1e-7, Limit::ComputeIssue);
    // As many plain FP32 instructions cost a thirteenth of the pipe time.
    let mut plain = base();
    plain.mix.fp32 = 100.0;
    plain.ilp = 8.0;
    check(&plain, 200e-9 + 1e-7, Limit::ComputeIssue);
    // One warp alone waits its chain: 100 x (16 + 12 x 4) = 6400 cycles.
    inp.warps_per_block = 1.0;
    inp.ilp = 1.0;
    check(&inp, 6.4e-6 + 1e-7, Limit::Latency);
}

#[test]
fn integer_division_slots_follow_ptxas_where_it_targets_the_gpu() {
    for (id, slots) in [
        ("geforce-rtx-3090", 20.0),
        ("tesla-v100-sxm2-16gb", 20.0),
        ("tesla-p100-pcie-16gb", 31.3),
        ("tesla-k20m", 12.0),
    ] {
        let gpu = match Catalog::bundled().and_then(|c| c.get(id).cloned()) {
            Ok(g) => g,
            Err(e) => panic!("{id}: {e}"),
        };
        assert_eq!(arch_params(&gpu, None).int_div_slots, slots, "{id}");
    }
}

#[test]
fn a_register_addressed_constant_load_takes_an_issue_slot() {
    // 8 warps x 500 integer adds: the integer pipe 8 x 500 / 2 = 2000
    // cycles binds (issue 8 x 500 / 4 = 1000).
    let mut inp = base();
    inp.warps_per_block = 8.0;
    inp.mix.int_add = 500.0;
    inp.ilp = 8.0;
    check(&inp, 2e-6 + 1e-7, Limit::ComputeIssue);
    // 1500 LDC more have no pipe of their own but take issue slots:
    // 8 x 2000 / 4 = 4000 cycles; the chain 500 + 1500 x 1 = 2000.
    inp.mix.const_loads = 1500.0;
    check(&inp, 4e-6 + 1e-7, Limit::ComputeIssue);
}

#[test]
fn dram_streaming_time_is_bytes_over_bandwidth_plus_launch() {
    let mut inp = base();
    inp.mix.global = 2.0;
    inp.sectors = 8.0;
    inp.mlp_global = 2.0;
    inp.l2_bytes = 1e9;
    inp.dram_bytes = 1e9;
    check(&inp, 1e9 / 100e9 + 1e-7, Limit::DramBandwidth);
    inp.dram_bytes = 1e8;
    inp.l2_bytes = 1e9;
    check(&inp, 1e9 / 400e9 + 1e-7, Limit::L2Bandwidth);
}

#[test]
fn dram_streaming_on_a_calibrated_gpu_uses_the_stream_plateau() {
    let gpu = match Catalog::bundled().and_then(|c| c.get("a100-sxm4-80gb").cloned()) {
        Ok(g) => g,
        Err(e) => panic!("{e}"),
    };
    let cal = calibration::bundled("a100-sxm4-80gb");
    let peak = cal.as_ref().and_then(|c| c.stream_peak_gbps);
    assert!(peak.is_some_and(|g| g > 1000.0), "{peak:?}");
    let a = arch_params(&gpu, cal.as_ref());
    assert_eq!(a.dram_origin, Origin::Calibrated);
    let mut inp = base();
    inp.blocks = 108.0;
    inp.mix.global = 1.0;
    inp.sectors = 4.0;
    inp.dram_bytes = 4e9;
    inp.l2_bytes = 4e9;
    let t = evaluate(&inp, &a).map(|t| (t.seconds, t.limit));
    let expected = 4e9 / (peak.unwrap_or(f64::NAN) * 1e9) + DEFAULT_LAUNCH_SECONDS;
    assert!(
        matches!(t, Ok((s, Limit::DramBandwidth)) if (s - expected).abs() < 1e-9 * expected),
        "{t:?} vs {expected}"
    );
    // Without the calibration: the datasheet bandwidth times the stream efficiency.
    let d = arch_params(&gpu, None);
    assert_eq!(d.dram_origin, Origin::Datasheet);
    let ratio = d.dram_bytes_per_second / (gpu.memory.bandwidth_gbs * 1e9);
    assert!((ratio - params::DRAM_EFFICIENCY).abs() < 1e-12);
}

#[test]
fn the_l1_data_path_carries_the_larger_of_the_sectors_and_the_lanes_bytes() {
    // 4 warps of 100 global loads each, latency hidden (MLP 100): LSU pipe
    // 4 x 100 / 1 = 400 cycles, issue 100. 128-bit loads whose 32 lanes
    // share 2 sectors: the lanes take 512 B a request, 4 x 100 x 512 / 128
    // = 1600 cycles of L1, where the sectors alone would take 200.
    let mut inp = TimingInputs {
        mix: WarpMix {
            global: 100.0,
            ..WarpMix::default()
        },
        mlp_global: 100.0,
        sectors: 200.0,
        lane_bytes: 100.0 * 512.0,
        ..base()
    };
    check(&inp, 1.6e-6 + 1e-7, Limit::L1Bandwidth);
    // 32-bit loads, each lane in its own 32-byte sector of a strided row
    // (8 sectors a request): the sectors are more, 4 x 800 x 32 / 128.
    inp.sectors = 800.0;
    inp.lane_bytes = 100.0 * 128.0;
    check(&inp, 0.8e-6 + 1e-7, Limit::L1Bandwidth);
}

#[test]
fn low_occupancy_dependent_loads_are_latency_bound() {
    // One warp per SM, 10 dependent DRAM loads: chain 10 x 500 = 5000 cycles;
    // issue 10 / 4, LSU 10 / 1, L1 10 x 32 / 128 cycles are far below.
    let mut inp = base();
    inp.warps_per_block = 1.0;
    inp.mix.global = 10.0;
    inp.sectors = 10.0;
    check(&inp, 5e-6 + 1e-7, Limit::Latency);
    // Half the loads hit L2 (L1 misses everything): 5 x 200 + 5 x 500 = 3500.
    inp.l2_hit_rate = 0.5;
    check(&inp, 3.5e-6 + 1e-7, Limit::Latency);
    // Two independent loads in flight halve the chain: 1750.
    inp.mlp_global = 2.0;
    check(&inp, 1.75e-6 + 1e-7, Limit::Latency);
}

/// `adapter::pending_hit_share(ages, mlp)` against a hand sum.
fn check_pending(ages: [f64; 6], mlp: f64, expect: f64) {
    let got = adapter::pending_hit_share(&ages, mlp);
    assert!(
        (got - expect).abs() <= 1e-12,
        "ages {ages:?}, MLP {mlp}: {got}, expected {expect}"
    );
}

#[test]
fn hits_younger_than_the_mlp_are_on_misses_in_flight() {
    let ages = [0.4, 0.1, 0.1, 0.1, 0.1, 0.1];
    // One load in flight: only the same round's hits (other warps' loads
    // issued alongside) find the miss in flight.
    check_pending(ages, 1.0, 0.4);
    // Two: ages 0 and 1.
    check_pending(ages, 2.0, 0.5);
    // Three: half of the 2-3 bucket.
    check_pending(ages, 3.0, 0.55);
    // Twelve: 0 to 7 whole, half of 8-15.
    check_pending(ages, 12.0, 0.75);
    // 32 and more: every bucket (the last read as 16 to 31).
    check_pending(ages, 40.0, 0.9);
}

#[test]
fn a_hit_on_a_miss_in_flight_waits_like_the_miss() {
    // L1 hits 0.8, L2 hits 0.5 of the misses: 0.8 x 30 + 0.2 x (100 + 250)
    // = 94 cycles. With 0.5 of the lookups hitting misses in flight, only
    // 0.3 wait an L1 hit: 0.3 x 30 + 0.7 x 350 = 254.
    let mut inp = base();
    inp.l1_hit_rate = 0.8;
    inp.l2_hit_rate = 0.5;
    let lat = |i: &TimingInputs| global_latency(i, &arch());
    assert!((lat(&inp) - 94.0).abs() < 1e-9, "{}", lat(&inp));
    inp.l1_pending_hit_rate = 0.5;
    assert!((lat(&inp) - 254.0).abs() < 1e-9, "{}", lat(&inp));
}

#[test]
fn stores_wait_for_nothing_and_spill_reloads_wait_an_l1_or_l2_hit() {
    // One warp per SM, 10 dependent DRAM loads (chain 5000 cycles) and 10
    // stores: the stores add issue and LSU time, not chain.
    let mut inp = base();
    inp.warps_per_block = 1.0;
    inp.mix.global = 20.0;
    inp.mix.global_stores = 10.0;
    inp.sectors = 20.0;
    check(&inp, 5e-6 + 1e-7, Limit::Latency);
    // 10 of the loads are spill reloads instead: 10 x 500 + 10 x 30 (L1).
    inp.mix.global = 30.0;
    inp.mix.spill_loads = 10.0;
    check(&inp, 5.3e-6 + 1e-7, Limit::Latency);
    // Half the spills fit in L1: 10 x (0.5 x 30 + 0.5 x 200) = 1150 cycles.
    inp.spill_l1_hit_rate = 0.5;
    check(&inp, 6.15e-6 + 1e-7, Limit::Latency);
    // None fit: 10 x 200 (L2).
    inp.spill_l1_hit_rate = 0.0;
    check(&inp, 7e-6 + 1e-7, Limit::Latency);
}

#[test]
fn code_beyond_the_instruction_caches_slows_a_lone_warp_and_the_sm() {
    // Pipes that serve each scheduler one warp instruction per clock.
    let mut a = arch();
    a.rate_fp32 = 4.0;
    a.rate_int = 4.0;
    let warps = |n: f64, code_bytes: f64| {
        let mut inp = base();
        inp.warps_per_block = n;
        inp.ilp = 8.0;
        inp.code_bytes = code_bytes;
        inp
    };
    // One warp per SM, 1000 FFMA with ILP 8: one per clock, 1000 cycles;
    // with 128 KB of code 2.4 clocks each (fetch::warp_slowdown).
    for (code, cycles) in [(0.0, 1000.0), (131072.0, 2400.0)] {
        let mut inp = warps(1.0, code);
        inp.mix.fp32 = 1000.0;
        check_on(&a, &inp, cycles * 1e-9 + 1e-7, Limit::Latency);
    }
    // 16 warps of 4000 integer adds: issue 16 x 4000 / 4 = 16,000 cycles
    // (as the pipe; the four warps of a scheduler, queueing for dispatch
    // and pipe alike, lose a little: "Dispatch and pipes share the warps");
    // on 128 KB 16 x 4000 / (4 x 4.04 / 5.73) = 22,693, above the pipe and
    // the chain (4000 x 2.4 = 9600). There the four warps of a scheduler
    // queue ("Few warps"): 22,693 / 4 cycles of issue each per 9600 -
    // 22,693 / 4 of waiting for fetch, utilisation 0.995.
    let even = 16000.0 * interference(4.0, &[16000.0, 16000.0]);
    let slow_issue = 16.0 * 4000.0 / (4.0 * 4.04 / 5.73);
    let slow_issue = slow_issue * interference(4.0, &[slow_issue, 16000.0]);
    let ratio = (slow_issue / 4.0) / (9600.0 - slow_issue / 4.0);
    for (code, cycles) in [
        (0.0, even),
        (131072.0, slow_issue / closed_queue_utilisation(4.0, ratio)),
    ] {
        let mut inp = warps(16.0, code);
        inp.mix.int_add = 4000.0;
        check_on(&a, &inp, cycles * 1e-9 + 1e-7, Limit::ComputeIssue);
    }
}

#[test]
fn a_smaller_instruction_cache_reads_the_fetch_curve_at_a_larger_size() {
    // The curve's GPU has 4x this GPU's instruction cache: 32 KB of code
    // here costs what 128 KB costs there (2.4 clocks an instruction for a
    // lone warp, the test above), and 8 KB what 32 KB costs there (full rate).
    let mut a = arch();
    a.rate_fp32 = 4.0;
    a.fetch_code_scale = 4.0;
    for (code, cycles) in [(8192.0, 1000.0), (32768.0, 2400.0)] {
        let mut inp = base();
        inp.warps_per_block = 1.0;
        inp.ilp = 8.0;
        inp.code_bytes = code;
        inp.mix.fp32 = 1000.0;
        check_on(&a, &inp, cycles * 1e-9 + 1e-7, Limit::Latency);
    }
    // The breakdown keeps the code's own size, and gives the scale.
    let mut inp = base();
    inp.code_bytes = 32768.0;
    inp.mix.fp32 = 1000.0;
    let code = evaluate(&inp, &a).map(|t| t.breakdown.get("code_bytes").copied());
    assert_eq!(code.ok().flatten(), Some(32768.0));
    let scale = evaluate(&inp, &a).map(|t| t.breakdown.get("fetch_code_scale").copied());
    assert_eq!(scale.ok().flatten(), Some(4.0));
}

#[test]
fn a_single_warp_issues_one_instruction_per_clock_whatever_its_parallelism() {
    // One warp per SM on a GPU whose pipes each serve a scheduler one warp
    // instruction per clock (rates 4 = schedulers), 1000 FFMA with ILP 8 and
    // 1000 shared loads with MLP 100 (LSU and banks 4 per clock too): latency over parallelism would be
    // 1000 x 4 / 8 + 1000 x 30 / 100 = 800 cycles, but one warp issues at
    // most one instruction per clock: 1000 + 1000 = 2000 cycles.
    let mut a = arch();
    a.rate_fp32 = 4.0;
    a.rate_lsu = 4.0;
    a.shared_passes_per_clock = 4.0;
    let mut inp = base();
    inp.warps_per_block = 1.0;
    inp.mix.fp32 = 1000.0;
    inp.ilp = 8.0;
    inp.mix.shared = 1000.0;
    inp.shared_passes = 1000.0;
    inp.mlp_shared = 100.0;
    check_on(&a, &inp, 2e-6 + 1e-7, Limit::Latency);
    // Where the parallelism does not cover the latency, the latency counts:
    // ILP 2 gives 1000 x 4 / 2 = 2000 for the FFMAs, 3000 in all.
    inp.ilp = 2.0;
    check_on(&a, &inp, 3e-6 + 1e-7, Limit::Latency);
}

#[test]
fn one_warp_gets_its_schedulers_share_of_the_shared_banks() {
    // 4 schedulers share one bank pass per clock: a lone warp's 1000
    // conflict-free loads (MLP 100, so latency hides) take 4 x 1000 cycles,
    // as the H100 measured (one warp: a load per 4 clocks, the SM: 1 per
    // clock). Four warps, one per scheduler, take the same time together.
    // (The LSU pipe issues 4 per clock here, so only the banks bind.)
    let mut a = arch();
    a.rate_lsu = 4.0;
    let mut inp = base();
    inp.warps_per_block = 1.0;
    inp.mix.shared = 1000.0;
    inp.shared_passes = 1000.0;
    inp.mlp_shared = 100.0;
    check_on(&a, &inp, 4e-6 + 1e-7, Limit::Latency);
    inp.warps_per_block = 4.0;
    check_on(&a, &inp, 4e-6 + 1e-7, Limit::Latency);
    // Eight warps: two per scheduler, and the banks bind at 8000 cycles.
    inp.warps_per_block = 8.0;
    check_on(&a, &inp, 8e-6 + 1e-7, Limit::SharedMemory);
}

#[test]
fn a_barrier_puts_a_blocks_tile_loads_before_its_own_work() {
    // One block of 4 warps per SM. Each warp: 10 global loads that miss to
    // DRAM (500 cycles, MLP 1: 5000 cycles of chain) and 4000 FFMA with ILP 8
    // (the 4 warps keep the FP32 pipe busy 4 x 4000 / 2 = 8000 cycles).
    // Without a barrier the loads of one warp overlap the others' FFMAs:
    // max(pipe 8000, chain 5000 + 4000) = 9000 cycles.
    let mut inp = base();
    inp.mix.global = 10.0;
    inp.mix.fp32 = 4000.0;
    inp.ilp = 8.0;
    check(&inp, 9e-6 + 1e-7, Limit::Latency);
    // With a barrier (load the tile, __syncthreads, compute) the block's
    // FFMAs wait for its loads: 5000 + max(4000 + 30, 8000) = 13000 cycles.
    inp.mix.barrier = 1.0;
    check(&inp, 13e-6 + 1e-7, Limit::Latency);
    // The breakdown keeps both: the block's term and one warp's chain.
    let bd = evaluate(&inp, &arch())
        .map(|t| t.breakdown)
        .unwrap_or_default();
    assert_eq!(bd.get("block_chain_cycles"), Some(&13000.0), "{bd:?}");
    assert_eq!(bd.get("warp_chain_cycles"), Some(&9030.0), "{bd:?}");
    // Two resident blocks overlap each other's phases: the wave of 2 blocks
    // needs 16000 cycles of FP32 pipe, above one block's 13000. Two warps
    // per scheduler queue for it ("Few warps"): each needs 8000 cycles of
    // pipe per 5000 of waiting, ratio 1.6, utilisation
    // 1 - 1 / (1 + 2 x 1.6 + 2 x 1.6^2) = 0.8927, so 16000 / 0.8927 cycles.
    inp.resident_blocks_per_sm = 2.0;
    inp.blocks = 20.0;
    check(
        &inp,
        16000.0 / (1.0 - 1.0 / 9.32) * 1e-9 + 1e-7,
        Limit::ComputeIssue,
    );
}

#[test]
fn with_barriers_the_blocks_not_their_warps_queue_for_the_sm() {
    // One block of 32 warps per SM (8 per scheduler), the warps of the test
    // above: the block loads its tile (5000 cycles), then its FFMAs keep
    // the FP32 pipe busy 32 x 4000 / 2 = 64000 cycles; the barrier lets
    // nothing overlap them, so the wave takes 5000 + 64000 = 69000 cycles.
    // Taking the block's 8 warps per scheduler as the queue's customers
    // counted the other warps' FFMAs as each warp's waiting time, and
    // charged the pipe again: 64000 / 0.7855 = 81500 cycles.
    let mut inp = base();
    inp.warps_per_block = 32.0;
    inp.mix.global = 10.0;
    inp.mix.fp32 = 4000.0;
    inp.mix.barrier = 1.0;
    inp.ilp = 8.0;
    check(&inp, 69e-6 + 1e-7, Limit::Latency);
    let bd = evaluate(&inp, &arch())
        .map(|t| t.breakdown)
        .unwrap_or_default();
    // The blocks' queue: 1 block, served 64000 per 5000 of loads,
    // utilisation 12.8 / 13.8, so 64000 / (12.8 / 13.8) = 69000.
    let u = bd.get("queue_utilisation").copied().unwrap_or(0.0);
    assert!((u - 12.8 / 13.8).abs() < 1e-12, "{bd:?}");
    // Two such blocks per SM overlap one's loads with the other's FFMAs:
    // 128000 cycles of pipe, the two blocks the customers, ratio 64000 /
    // 5000 = 12.8: utilisation 1 - 1 / (1 + 2 x 12.8 + 2 x 12.8^2).
    inp.resident_blocks_per_sm = 2.0;
    inp.blocks = 20.0;
    let u2 = 1.0 - 1.0 / (1.0 + 2.0 * 12.8 + 2.0 * 12.8 * 12.8);
    check(&inp, 128000.0 / u2 * 1e-9 + 1e-7, Limit::ComputeIssue);
}

/// `scheduler_imbalance(warps, schedulers)` against the hand-dealt count.
fn check_imbalance(warps: f64, schedulers: f64, expect: f64) {
    let got = scheduler_imbalance(warps, schedulers);
    assert!(
        (got - expect).abs() <= 1e-12,
        "{warps} warps on {schedulers} schedulers: {got}, expected {expect}"
    );
}

#[test]
fn the_busiest_scheduler_holds_the_warps_rounded_up() {
    // Even deals: every scheduler holds the mean.
    check_imbalance(8.0, 4.0, 1.0);
    check_imbalance(48.0, 4.0, 1.0);
    check_imbalance(6.0, 2.0, 1.0);
    // 6 warps on 4 schedulers: two hold 2, two hold 1; the busiest 2 is
    // 4/3 of the mean 1.5.
    check_imbalance(6.0, 4.0, 4.0 / 3.0);
    check_imbalance(5.0, 4.0, 8.0 / 5.0);
    // Fewer warps than schedulers: one warp on its own scheduler, S / W.
    check_imbalance(1.0, 4.0, 4.0);
    check_imbalance(3.0, 4.0, 4.0 / 3.0);
    // One scheduler, no warps or no number: nothing to deal.
    check_imbalance(3.0, 1.0, 1.0);
    check_imbalance(0.0, 4.0, 1.0);
    check_imbalance(f64::NAN, 4.0, 1.0);
    check_imbalance(6.0, f64::NAN, 1.0);
}

#[test]
fn six_warps_on_four_schedulers_take_as_long_as_eight() {
    // 4000 FFMA per warp with ILP 8 (chain 4000 cycles): the FP32 pipe
    // serves 2 warp instructions per clock, 0.5 per scheduler. Eight warps,
    // two per scheduler: 2 x 4000 / 0.5 = 16000 cycles. Six warps put two
    // on two of the schedulers, which take as long; an even share would be
    // 6 x 4000 / 2 = 12000.
    let mut inp = base();
    inp.mix.fp32 = 4000.0;
    inp.ilp = 8.0;
    inp.warps_per_block = 8.0;
    check(&inp, 16e-6 + 1e-7, Limit::ComputeIssue);
    inp.warps_per_block = 6.0;
    check(&inp, 16e-6 + 1e-7, Limit::ComputeIssue);
    // The banks serve the whole SM: 6 warps' 4000 conflict-free shared
    // loads (MLP 100) take 6 x 4000 / 1 = 24000 cycles, not 32000.
    let mut inp = base();
    inp.warps_per_block = 6.0;
    inp.mix.shared = 4000.0;
    inp.shared_passes = 4000.0;
    inp.mlp_shared = 100.0;
    let mut a = arch();
    a.rate_lsu = 4.0;
    check_on(&a, &inp, 24e-6 + 1e-7, Limit::SharedMemory);
}

/// `closed_queue_utilisation(customers, ratio)` against the closed form.
fn check_queue(customers: f64, ratio: f64, expect: f64) {
    let u = closed_queue_utilisation(customers, ratio);
    assert!(
        (u - expect).abs() <= 1e-12,
        "U({customers}, {ratio}) = {u}, expected {expect}"
    );
}

#[test]
fn closed_queue_utilisation_cases() {
    // One customer: busy ratio / (1 + ratio) of the time.
    check_queue(1.0, 1.0, 0.5);
    check_queue(1.0, 3.0, 0.75);
    // Fewer than one counts as one.
    check_queue(0.25, 3.0, 0.75);
    // Two: 1 - 1 / (1 + 2r + 2r^2).
    check_queue(2.0, 1.0, 0.8);
    check_queue(2.0, 0.5, 1.0 - 1.0 / 2.5);
    // Three: 1 - 1 / (1 + 3r + 6r^2 + 6r^3).
    check_queue(3.0, 1.0, 1.0 - 1.0 / 16.0);
    // Between two and three: the straight line between them.
    check_queue(2.5, 1.0, 0.5 * 0.8 + 0.5 * (1.0 - 1.0 / 16.0));
    // No waiting at all (ratio infinite): always busy.
    check_queue(2.0, f64::INFINITY, 1.0);
}

#[test]
fn few_warps_per_scheduler_queue_between_the_throughput_and_latency_bounds() {
    // 8 warps (two per scheduler), 1000 FFMA each with ILP 8 on a 2-per-clock
    // FP32 pipe: 4000 cycles of pipe; 10 dependent DRAM loads (MLP 1) make a
    // chain of 5000 + 1000 = 6000. The bounds say max(4000, 6000) = 6000;
    // each warp needs 2000 cycles of pipe per 4000 of waiting, ratio 0.5,
    // utilisation 0.6: 4000 / 0.6 = 6667 cycles, above both bounds.
    let mut inp = base();
    inp.warps_per_block = 8.0;
    inp.mix.fp32 = 1000.0;
    inp.ilp = 8.0;
    inp.mix.global = 10.0;
    check(&inp, 4000.0 / 0.6 * 1e-9 + 1e-7, Limit::Latency);
    // Far from the knee either bound alone holds: 200 warps of the same
    // work are pipe-bound (100,000 cycles, utilisation within 1e-12 of 1).
    inp.warps_per_block = 200.0;
    let t = seconds(&inp);
    assert!((t - (1e-4 + 1e-7)).abs() <= 1e-9 * t, "{t}");
}

#[test]
fn a_tenth_of_a_wave_more_costs_a_tail_wave() {
    // Two resident blocks per SM, 10 SMs: a wave is 20 blocks. Each block is 4
    // warps x 1000 FFMA, so 2 blocks take 4000 cycles on the FP32 pipe.
    let mut inp = base();
    inp.mix.fp32 = 1000.0;
    inp.ilp = 8.0;
    inp.resident_blocks_per_sm = 2.0;
    inp.blocks = 20.0;
    check(&inp, 4e-6 + 1e-7, Limit::ComputeIssue);
    // 22 blocks = 1.1 waves: a tail wave of one block per SM, 2000 cycles.
    inp.blocks = 22.0;
    check(&inp, 6e-6 + 1e-7, Limit::ComputeIssue);
    // One resident block: 1.1 waves cost two full waves; the tail binds
    // only when it costs more than the full waves (here equal: not).
    inp.resident_blocks_per_sm = 1.0;
    inp.blocks = 11.0;
    check(&inp, 4e-6 + 1e-7, Limit::ComputeIssue);
    // A grid of fewer blocks than SMs runs one partial wave.
    inp.blocks = 3.0;
    check(&inp, 2e-6 + 1e-7, Limit::ComputeIssue);
}

#[test]
fn launch_overhead_binds_a_tiny_kernel() {
    let mut inp = base();
    inp.mix.fp32 = 10.0;
    inp.ilp = 8.0;
    // 4 x 10 / 2 = 20 cycles = 20 ns, below the 0.1 µs launch.
    check(&inp, 20e-9 + 1e-7, Limit::LaunchTail);
}

#[test]
fn bank_conflicts_multiply_shared_passes() {
    // 8 warps x 100 shared loads, MLP 10: conflict-free 800 passes at one per
    // clock = 800 cycles, above issue (8 x 100 / 4 = 200) and the chain
    // (100 x 30 / 10 = 300).
    let mut inp = base();
    inp.warps_per_block = 8.0;
    inp.mix.shared = 100.0;
    inp.shared_passes = 100.0;
    inp.mlp_shared = 10.0;
    check(&inp, 0.8e-6 + 1e-7, Limit::SharedMemory);
    // 4-way conflicts: 400 passes per warp, 3200 cycles.
    inp.shared_passes = 400.0;
    check(&inp, 3.2e-6 + 1e-7, Limit::SharedMemory);
    // 32-way: 3200 passes per warp, 25600 cycles.
    inp.shared_passes = 3200.0;
    check(&inp, 25.6e-6 + 1e-7, Limit::SharedMemory);
}

/// A GA10x-like SM: 16 LD/ST lanes (a 32-lane request every 2 clocks),
/// banks that return one 128-B pass per clock to wide accesses (measured),
/// or, with `measured` false, passes at the 32-bit rate (0.5 per clock).
fn ga10x_like(measured: bool) -> ArchParams {
    let mut a = arch();
    a.rate_lsu = 0.5;
    a.shared_wide_measured = measured;
    a.shared_passes_per_clock = if measured { 1.0 } else { 0.5 };
    a
}

/// 8 warps, each with 100 shared requests of `passes` bank passes and
/// `wide` passes for their width (MLP 10, so the chain hides).
fn shared_loads(passes: f64, wide: f64) -> TimingInputs {
    let mut inp = base();
    inp.warps_per_block = 8.0;
    inp.mix.shared = 100.0;
    inp.shared_passes = passes;
    inp.shared_wide_passes = wide;
    inp.mlp_shared = 10.0;
    inp
}

/// 8 warps of 100 shared requests (`shared_loads`) on a GA10x-like SM
/// whose wide rate is `measured` or not: the time and the limit.
fn check_shared(measured: bool, passes: f64, wide: f64, cycles: f64, limit: Limit) {
    let inp = shared_loads(passes, wide);
    check_on(&ga10x_like(measured), &inp, cycles * 1e-9 + 1e-7, limit);
}

#[test]
fn wide_shared_accesses_replay_only_their_conflicts() {
    // 128-bit loads, conflict free: 4 passes each, 8 x 400 = 3200 cycles
    // of banks; the LSU pipe 8 x 100 / 0.5 = 1600; issue 200, no replays.
    check_shared(true, 400.0, 400.0, 3200.0, Limit::SharedMemory);
    // Where the wide rate is unknown a request's first pass goes at the
    // 32-bit rate (2 clocks) and the 3 its width adds at the banks' full
    // width (1 clock each), none replayed: banks 8 x 100 x (2 + 3) = 4000
    // cycles, issue 200.
    check_shared(false, 400.0, 400.0, 4000.0, Limit::SharedMemory);
    // There a 2-way conflict's 4 extra passes go at the 32-bit rate and
    // replay: banks 8 x 100 x (2 + 3 + 4 x 2) = 10400, issue 200 + 8 x 400
    // / 0.5 = 6600.
    check_shared(false, 800.0, 400.0, 10400.0, Limit::SharedMemory);
    // 32-bit loads are what they were: one pass each at the 32-bit rate,
    // banks 8 x 100 / 0.5 = 1600 cycles, as long as the LSU pipe.
    check_shared(false, 100.0, 100.0, 1600.0, Limit::SharedMemory);
    // 128-bit with 2-way conflicts: 8 passes, 4 of them replays: banks
    // 8 x 800 = 6400, issue 200 + 8 x 400 = 3400.
    check_shared(true, 800.0, 400.0, 6400.0, Limit::SharedMemory);
    // Broadcast 128-bit loads whose distinct words fit one pass still
    // return 4 registers per lane: 4 passes.
    check_shared(true, 100.0, 400.0, 3200.0, Limit::SharedMemory);
}

#[test]
fn the_lsu_lanes_hold_back_narrow_shared_accesses() {
    // 32-bit loads, conflict free: banks 8 x 100 = 800 cycles, but 16 lanes
    // take a request every 2 clocks: the LSU pipe, 1600 cycles, named by
    // the shared memory whose requests fill it.
    check_shared(true, 100.0, 100.0, 1600.0, Limit::SharedMemory);
    // Global loads queue in the same pipe: 50 more per warp, 2400 cycles,
    // two thirds of them the shared requests'.
    let with_global = |global: f64| {
        let mut inp = shared_loads(100.0, 100.0);
        inp.mix.global = global;
        inp.mlp_global = global;
        inp.l1_hit_rate = 1.0;
        inp
    };
    check_on(
        &ga10x_like(true),
        &with_global(50.0),
        2.4e-6 + 1e-7,
        Limit::SharedMemory,
    );
    // 200 global loads per warp: 4800 cycles, a third of them shared: the
    // pipe is named as any other ("compute issue").
    check_on(
        &ga10x_like(true),
        &with_global(200.0),
        4.8e-6 + 1e-7,
        Limit::ComputeIssue,
    );
}

/// The LSU pipe's cycles of one wave (`wave_pipe_cycles`) for 4 warps of
/// 100 global loads that hit L1, with `l2_sectors` sectors per warp between
/// L1 and L2 in the cache model's traffic, on an SM whose L1TEX passes
/// `per_clock` of them per clock (`None`: before Volta).
fn check_l1tex_l2(per_clock: Option<f64>, l2_sectors: f64, expect: f64, limit: Limit) {
    let mut a = arch();
    a.l1tex_l2_sectors_per_clock = per_clock;
    let mut inp = base();
    inp.mix.global = 100.0;
    inp.mlp_global = 100.0;
    inp.l1_hit_rate = 1.0;
    inp.sectors = 100.0;
    inp.l2_bytes = l2_sectors * 32.0 * inp.blocks * inp.warps_per_block;
    match evaluate(&inp, &a) {
        Ok(t) => assert_eq!(
            (t.breakdown["wave_pipe_cycles"], t.limit),
            (expect, limit),
            "{per_clock:?} per clock, {l2_sectors} sectors"
        ),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn sectors_between_l1_and_l2_hold_the_lsu_pipe_from_volta_on() {
    use Limit::{ComputeIssue, L1Bandwidth};
    // 4 warps x 100 requests at one per clock: 400 cycles, the pipe.
    check_l1tex_l2(None, 0.0, 400.0, ComputeIssue);
    // Before Volta the L2 traffic does not enter the pipe.
    check_l1tex_l2(None, 50.0, 400.0, ComputeIssue);
    // From Volta on each of a warp's 50 sectors takes a clock: 4 x 150.
    check_l1tex_l2(Some(1.0), 50.0, 600.0, ComputeIssue);
    // At two sectors per clock, half of that.
    check_l1tex_l2(Some(2.0), 50.0, 500.0, ComputeIssue);
    // No traffic, no cost.
    check_l1tex_l2(Some(1.0), 0.0, 400.0, ComputeIssue);
    // 100 sectors a warp take half the pipe: the L1TEX pipeline, named
    // "L1 bandwidth", holds the loads back.
    check_l1tex_l2(Some(1.0), 100.0, 800.0, L1Bandwidth);
}

#[test]
fn the_l1tex_l2_rate_applies_from_volta_on() {
    for (id, expect) in [
        ("geforce-gtx-1080-ti", None),
        ("tesla-p100-pcie-16gb", None),
        ("tesla-v100-pcie-16gb", Some(1.0)),
        ("titan-rtx", Some(1.0)),
        ("geforce-rtx-3090", Some(1.0)),
        ("h100-sxm5-80gb", Some(1.0)),
    ] {
        let gpu = match Catalog::bundled().and_then(|c| c.get(id).cloned()) {
            Ok(g) => g,
            Err(e) => panic!("{id}: {e}"),
        };
        assert_eq!(
            arch_params(&gpu, None).l1tex_l2_sectors_per_clock,
            expect,
            "{id}"
        );
    }
}

/// `adapter::wide_passes` of a shared traffic record.
fn check_wide(requests: f64, bytes: f64, expect: f64) {
    let t = profile::Traffic {
        requests,
        transactions: requests,
        bytes,
    };
    assert_eq!(
        adapter::wide_passes(&t),
        expect,
        "{requests} requests, {bytes} B"
    );
}

#[test]
fn a_shared_access_needs_a_pass_per_128_bytes() {
    // Full warps: 32-bit, 64-bit and 128-bit.
    check_wide(100.0, 100.0 * 32.0 * 4.0, 100.0);
    check_wide(100.0, 100.0 * 32.0 * 8.0, 200.0);
    check_wide(100.0, 100.0 * 32.0 * 16.0, 400.0);
    // Half-warps of 64-bit: 128 B, one pass each; at least one per request.
    check_wide(100.0, 100.0 * 16.0 * 8.0, 100.0);
    check_wide(100.0, 100.0 * 4.0, 100.0);
    check_wide(0.0, 0.0, 0.0);
}

#[test]
fn the_wide_shared_rate_comes_from_the_catalog_where_measured() {
    for (id, passes, measured) in [
        ("geforce-rtx-3090", 126.1 / 128.0, true),
        ("rtx-a4000", 126.1 / 128.0, true),
        ("tesla-t4", 57.6 / 128.0, false),
        ("h100-sxm5-80gb", 127.4 / 128.0, false),
    ] {
        let gpu = match Catalog::bundled().and_then(|c| c.get(id).cloned()) {
            Ok(g) => g,
            Err(e) => panic!("{id}: {e}"),
        };
        let a = arch_params(&gpu, None);
        assert_eq!(
            (a.shared_passes_per_clock, a.shared_wide_measured),
            (passes, measured),
            "{id}"
        );
    }
}

#[test]
fn more_dram_bytes_is_never_faster() {
    let mut inp = base();
    inp.mix.global = 4.0;
    inp.mix.fp32 = 50.0;
    inp.sectors = 16.0;
    inp.l2_bytes = 1e6;
    let mut last = 0.0;
    for k in 0..40 {
        inp.dram_bytes = f64::from(k) * 2.5e5;
        let t = seconds(&inp);
        assert!(t >= last, "{} bytes: {t} < {last}", inp.dram_bytes);
        last = t;
    }
    assert!(last > seconds(&base()));
}

#[test]
fn higher_occupancy_is_never_slower_when_latency_bound() {
    let mut inp = base();
    inp.warps_per_block = 2.0;
    inp.blocks = 640.0;
    inp.mix.global = 20.0;
    inp.mix.fp32 = 20.0;
    inp.sectors = 20.0;
    let mut last = f64::INFINITY;
    // Within 0.01 %: a block more per SM can turn the last full wave into a
    // tail wave while the warps of a scheduler queue a little longer ("Few
    // warps"), 8.07561e-5 s at 9 blocks against 8.07555e-5 s at 8.
    for b in 1..=32 {
        inp.resident_blocks_per_sm = f64::from(b);
        let t = seconds(&inp);
        assert!(t <= last * (1.0 + 1e-4), "{b} blocks/SM: {t} > {last}");
        last = t;
    }
    inp.resident_blocks_per_sm = 1.0;
    assert!(last < seconds(&inp));
}

#[test]
fn bad_inputs_are_errors() {
    let cases: [fn(&mut TimingInputs); 5] = [
        |i| i.blocks = 0.0,
        |i| i.ilp = 0.5,
        |i| i.l1_hit_rate = 1.5,
        |i| i.dram_bytes = f64::NAN,
        |i| i.mix.fp32 = -1.0,
    ];
    for f in cases {
        let mut inp = base();
        f(&mut inp);
        assert!(evaluate(&inp, &arch()).is_err(), "{inp:?}");
    }
    let mut a = arch();
    a.dram_bytes_per_second = 0.0;
    assert!(evaluate(&base(), &a).is_err());
}

#[test]
fn bundled_calibrations_parse() {
    for id in calibration::bundled_ids() {
        let c = calibration::bundled(id);
        assert!(
            c.as_ref()
                .is_some_and(|c| c.gpu == id && c.stream_peak_gbps.is_some_and(|g| g > 0.0)),
            "{id}: {c:?}"
        );
    }
    assert_eq!(calibration::bundled("no-such-gpu"), None);
    let h100 = calibration::bundled("h100-pcie-80gb");
    assert!(
        h100.as_ref()
            .is_some_and(|c| c.latency.is_some() && c.l2_bandwidth.is_some())
    );
    assert!(Calibration::from_toml("x.toml", "gpu = 3").is_err());
}

/// A small synthetic profile: `blocks` x 256 threads with the given per-thread
/// FFMA, global and shared counts, coalesced 4-byte accesses.
fn profile(blocks: u32, ffma: f64, global: f64, shared: f64, barriers: f64) -> KernelProfile {
    let mut p = KernelProfile::default();
    p.launch.grid = [blocks, 1, 1];
    p.launch.block = [256, 1, 1];
    p.resources.registers_per_thread = 32;
    p.resources.static_shared_per_block = 4096;
    let warps = f64::from(blocks) * 8.0;
    let w = &mut p.warp_instructions;
    w.fp32_fma = ffma * warps;
    w.int_add = 10.0 * warps;
    w.global_load = global * warps;
    w.shared_load = shared * warps;
    w.barrier = barriers * warps;
    p.global.loads.requests = global * warps;
    p.global.loads.transactions = global * warps * 4.0;
    p.global.loads.bytes = global * warps * 128.0;
    p.shared.loads.requests = shared * warps;
    p.shared.loads.transactions = shared * warps * 2.0;
    p.sync.barriers_per_thread = barriers;
    p
}

#[test]
fn every_catalog_gpu_gives_a_finite_positive_time() {
    let catalog = match Catalog::bundled() {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    let profiles = [
        profile(1, 10.0, 1.0, 0.0, 0.0),
        profile(4096, 1000.0, 4.0, 200.0, 2.0),
        profile(100_000, 2.0, 3.0, 0.0, 0.0),
    ];
    for gpu in catalog.gpus() {
        for p in &profiles {
            let input = OccupancyInput {
                threads_per_block: 256,
                registers_per_thread: p.resources.registers_per_thread,
                shared_per_block_bytes: p.resources.static_shared_per_block,
            };
            let occ = match occupancy(gpu, &input) {
                Ok(o) => o,
                Err(e) => panic!("{}: {e}", gpu.id),
            };
            match adapter::predict(p, gpu, &occ) {
                Ok(pr) => {
                    assert!(pr.seconds.is_finite() && pr.seconds > 0.0, "{}", gpu.id);
                    assert!(pr.breakdown.values().all(|v| v.is_finite()), "{}", gpu.id);
                    assert_eq!(pr.model, NAME);
                }
                Err(e) => panic!("{}: {e}", gpu.id),
            }
        }
    }
}

#[test]
fn adapter_reads_counts_per_warp_and_bank_passes() {
    let gpu = match Catalog::bundled().and_then(|c| c.get("tesla-v100-sxm2-16gb").cloned()) {
        Ok(g) => g,
        Err(e) => panic!("{e}"),
    };
    let mut p = profile(160, 100.0, 4.0, 50.0, 1.0);
    // Per warp: 2 IEEE divisions, 3 IEEE square roots, 5 indexed constant
    // loads (160 blocks x 8 warps).
    let warps = 160.0 * 8.0;
    p.warp_instructions.fp32_div = 2.0 * warps;
    p.warp_instructions.sfu_ieee = 3.0 * warps;
    p.warp_instructions.constant_indexed = 5.0 * warps;
    let input = OccupancyInput {
        threads_per_block: 256,
        registers_per_thread: 32,
        shared_per_block_bytes: 4096,
    };
    let occ = match occupancy(&gpu, &input) {
        Ok(o) => o,
        Err(e) => panic!("{e}"),
    };
    let inp = match adapter::inputs(&p, &gpu, &occ) {
        Ok(i) => i,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(inp.blocks, 160.0);
    assert_eq!(inp.warps_per_block, 8.0);
    assert_eq!(inp.mix.fp32, 100.0);
    assert_eq!(
        (inp.mix.fp32_div, inp.mix.sfu, inp.mix.const_loads),
        (5.0, 0.0, 5.0)
    );
    assert_eq!(inp.mix.global, 4.0);
    assert_eq!(inp.shared_passes, 100.0);
    // 4 transactions of 32 B per request = 4 sectors; DRAM falls back to 32 B each.
    assert_eq!(inp.sectors, 16.0);
    assert_eq!(inp.dram_bytes, 160.0 * 8.0 * 16.0 * 32.0);
    // Loads of one barrier interval: 4 global loads / (1 barrier + 1) = 2.
    assert_eq!(inp.mlp_global, 2.0);
    assert_eq!(inp.mlp_shared, 25.0);
}

/// A catalog GPU and its occupancy for the [`profile`] kernel: 256 threads,
/// 32 registers per thread, 4 KB of shared memory per block.
fn gpu_and_occupancy(gpu_id: &str) -> (arch::Gpu, arch::Occupancy) {
    let gpu = match Catalog::bundled().and_then(|c| c.get(gpu_id).cloned()) {
        Ok(g) => g,
        Err(e) => panic!("{e}"),
    };
    let input = OccupancyInput {
        threads_per_block: 256,
        registers_per_thread: 32,
        shared_per_block_bytes: 4096,
    };
    match occupancy(&gpu, &input) {
        Ok(o) => (gpu, o),
        Err(e) => panic!("{e}"),
    }
}

/// Adapter inputs of `p` on a V100 at 256 threads, 32 registers per thread.
fn v100_inputs(p: &KernelProfile) -> TimingInputs {
    let (gpu, occ) = gpu_and_occupancy("tesla-v100-sxm2-16gb");
    match adapter::inputs(p, &gpu, &occ) {
        Ok(i) => i,
        Err(e) => panic!("{e}"),
    }
}

/// Spill bytes (loads, stores) and static instruction count against the
/// expected spill instructions per warp.
fn check_spills(load: u64, store: u64, static_insts: u64, expected: f64) {
    let mut p = profile(160, 100.0, 4.0, 0.0, 0.0);
    let plain = v100_inputs(&p);
    p.analysis.spills.load_bytes = load;
    p.analysis.spills.store_bytes = store;
    p.analysis.spills.static_instructions = static_insts;
    let warps = 160.0 * 8.0;
    assert_eq!(adapter::spill_instructions_per_warp(&p, warps), expected);
    let inp = v100_inputs(&p);
    assert_eq!(inp.mix.global, plain.mix.global + expected);
    // Each spill instruction moves 32 threads x 4 B = 4 sectors.
    assert_eq!(inp.sectors, plain.sectors + 4.0 * expected);
    assert!(seconds(&inp) >= seconds(&plain));
}

#[test]
fn register_spills_are_local_traffic_spread_over_the_executed_code() {
    // 114 instructions executed per warp (100 FFMA, 10 int, 4 loads).
    check_spills(0, 0, 57, 0.0);
    // 8 B of spill loads + 8 B of stores = 4 static spill instructions; each
    // static instruction runs 114 / 57 = 2 times per warp.
    check_spills(8, 8, 57, 8.0);
    check_spills(40, 0, 114, 10.0);
    // Without a static count the spills are not spread (unknown): no cost.
    check_spills(40, 40, 0, 0.0);
}

/// The code size instruction fetch reads: ptxas's SASS bytes where the
/// profile has them, else PTX instructions x the architecture's bytes per
/// instruction (the V100's 16), else 0.
fn check_code_bytes(static_insts: u64, sass_bytes: u64, expect: f64) {
    let mut p = profile(160, 100.0, 4.0, 0.0, 0.0);
    p.analysis.spills.static_instructions = static_insts;
    p.analysis.spills.sass_bytes = sass_bytes;
    assert_eq!(
        v100_inputs(&p).code_bytes,
        expect,
        "{static_insts} {sass_bytes}"
    );
}

#[test]
fn the_code_size_is_ptxas_s_where_known() {
    check_code_bytes(0, 0, 0.0);
    check_code_bytes(1000, 0, 16_000.0);
    check_code_bytes(1000, 48_960, 48_960.0);
    check_code_bytes(0, 4096, 4096.0);
}

fn check_integer_converts(fraction: Option<f64>, int_moved: f64) {
    let mut p = profile(160, 10.0, 1.0, 0.0, 0.0);
    p.warp_instructions.convert = 30.0 * 160.0 * 8.0;
    p.workload.integer_convert_fraction = fraction;
    let inp = v100_inputs(&p);
    assert_eq!(inp.mix.convert, 30.0 - int_moved, "{fraction:?}");
    assert_eq!(inp.mix.int_add, 10.0 + int_moved, "{fraction:?}");
}

#[test]
fn integer_conversions_go_to_the_integer_pipe() {
    check_integer_converts(None, 0.0);
    check_integer_converts(Some(0.0), 0.0);
    check_integer_converts(Some(0.25), 7.5);
    check_integer_converts(Some(1.0), 30.0);
    // Out of range or not finite: clamped or ignored.
    check_integer_converts(Some(2.0), 30.0);
    check_integer_converts(Some(f64::NAN), 0.0);
}

/// (conversion-pipe, integer-pipe) instructions per warp on `gpu_id` of a
/// kernel with 10 integer instructions and `convert` conversions per warp,
/// of which the shares `integer` (widenings), `int32` (32-bit integer to
/// FP32) and `narrow` (8/16-bit unsigned to FP32) are given, built by
/// `compiler`.
fn convert_and_int(
    gpu_id: &str,
    convert: f64,
    (integer, int32, narrow): (Option<f64>, Option<f64>, Option<f64>),
    compiler: Option<(u32, u32)>,
) -> (f64, f64) {
    let (gpu, occ) = gpu_and_occupancy(gpu_id);
    let mut p = profile(160, 10.0, 1.0, 0.0, 0.0);
    p.warp_instructions.convert = convert * 160.0 * 8.0;
    p.workload.integer_convert_fraction = integer;
    p.workload.int32_to_f32_convert_fraction = int32;
    p.workload.narrow_uint_to_f32_convert_fraction = narrow;
    p.resources.compiler = compiler.map(|(a, b)| profile::CompilerVersion::new(a, b));
    match adapter::inputs(&p, &gpu, &occ) {
        Ok(i) => (i.mix.convert, i.mix.int_add),
        Err(e) => panic!("{e}"),
    }
}

/// 30 conversions per warp of which `int32` are 32-bit integer to FP32 and
/// 7.5 integer widenings, on `gpu_id`: what stays on the conversion pipe.
fn check_i2fp(gpu_id: &str, int32: Option<f64>, on_convert_pipe: f64) {
    let fractions = (Some(0.25), int32.map(|n| n / 30.0), None);
    let got = convert_and_int(gpu_id, 30.0, fractions, None);
    let expected = (on_convert_pipe, 10.0 + 30.0 - on_convert_pipe);
    assert_eq!(got, expected, "{gpu_id} {int32:?}");
}

#[test]
fn int32_to_f32_conversions_leave_the_conversion_pipe_from_cc_8_6() {
    // CC 7.0 and 8.0: I2F on the conversion unit.
    check_i2fp("tesla-v100-sxm2-16gb", Some(12.0), 22.5);
    check_i2fp("a100-sxm4-80gb", Some(12.0), 22.5);
    // CC 8.6, 8.9, 9.0: I2FP on the integer ALU.
    check_i2fp("geforce-rtx-3090", Some(12.0), 10.5);
    check_i2fp("geforce-rtx-4090", Some(12.0), 10.5);
    check_i2fp("h100-sxm5-80gb", Some(12.0), 10.5);
    check_i2fp("h100-sxm5-80gb", None, 22.5);
    // Never more than every conversion.
    check_i2fp("h100-sxm5-80gb", Some(30.0), 0.0);
}

/// 32 conversions per warp of which 16 are 32-bit integer to FP32 and 8
/// unsigned 8/16-bit to FP32, built by `compiler`, on `gpu_id`: what stays
/// on the conversion pipe.
fn check_narrow_i2fp(gpu_id: &str, compiler: Option<(u32, u32)>, on_convert_pipe: f64) {
    let fractions = (None, Some(0.5), Some(0.25));
    let got = convert_and_int(gpu_id, 32.0, fractions, compiler);
    let expected = (on_convert_pipe, 10.0 + 32.0 - on_convert_pipe);
    assert_eq!(got, expected, "{gpu_id} {compiler:?}");
}

#[test]
fn narrow_unsigned_to_f32_leaves_the_conversion_pipe_with_ptxas_13_from_cc_8_6() {
    // ptxas 13 on CC 8.6 and 9.0: the 8/16-bit sources join the 32-bit ones on I2FP.
    check_narrow_i2fp("geforce-rtx-3090", Some((13, 0)), 8.0);
    check_narrow_i2fp("h100-sxm5-80gb", Some((13, 0)), 8.0);
    check_narrow_i2fp("h100-sxm5-80gb", Some((13, 2)), 8.0);
    // ptxas 12.x, or an unknown compiler (taken as 12.x): I2F.U8/U16 stay.
    check_narrow_i2fp("h100-sxm5-80gb", Some((12, 9)), 16.0);
    check_narrow_i2fp("h100-sxm5-80gb", None, 16.0);
    // CC 8.0 keeps every I2F with either compiler.
    check_narrow_i2fp("a100-sxm4-80gb", Some((13, 0)), 32.0);
}

/// (conversion-pipe, FP64-pipe) instructions per warp on `gpu_id` of a
/// kernel with 30 conversions per warp, of which `float64` are from or to a
/// 64-bit type and 6 integer widenings, and 3 FP64 instructions per warp.
fn check_float64_converts(gpu_id: &str, float64: Option<f64>, expected: (f64, f64)) {
    let (gpu, occ) = gpu_and_occupancy(gpu_id);
    let mut p = profile(160, 10.0, 1.0, 0.0, 0.0);
    p.warp_instructions.convert = 30.0 * 160.0 * 8.0;
    p.warp_instructions.fp64 = 3.0 * 160.0 * 8.0;
    p.workload.integer_convert_fraction = Some(0.2);
    p.workload.float64_convert_fraction = float64.map(|n| n / 30.0);
    let got = match adapter::inputs(&p, &gpu, &occ) {
        Ok(i) => (i.mix.convert, i.mix.fp64),
        Err(e) => panic!("{e}"),
    };
    assert_eq!(got, expected, "{gpu_id} {float64:?}");
}

#[test]
fn float64_conversions_take_the_fp64_pipe_where_it_is_the_slower() {
    // FP64 2 per clock against 16 conversions (GA10x, Ada, Turing), 4
    // against 32 (GP102): the 12 conversions from and to 64-bit types
    // join the 3 FP64 instructions.
    check_float64_converts("geforce-rtx-3090", Some(12.0), (12.0, 15.0));
    check_float64_converts("rtx-a4000", Some(12.0), (12.0, 15.0));
    check_float64_converts("geforce-rtx-4090", Some(12.0), (12.0, 15.0));
    check_float64_converts("titan-rtx", Some(12.0), (12.0, 15.0));
    check_float64_converts("geforce-gtx-1080-ti", Some(12.0), (12.0, 15.0));
    // FP64 32 or 64 per clock (GV100, GA100, GH100, GK110): they stay on the
    // conversion unit.
    check_float64_converts("tesla-v100-sxm2-16gb", Some(12.0), (24.0, 3.0));
    check_float64_converts("a100-sxm4-80gb", Some(12.0), (24.0, 3.0));
    check_float64_converts("h100-sxm5-80gb", Some(12.0), (24.0, 3.0));
    check_float64_converts("tesla-k20m", Some(12.0), (24.0, 3.0));
    // An older profile (no fraction) keeps every conversion where it was;
    // never more than the conversions left after the integer ones.
    check_float64_converts("geforce-rtx-3090", None, (24.0, 3.0));
    check_float64_converts("geforce-rtx-3090", Some(30.0), (0.0, 27.0));
}

/// FP64-pipe instructions per warp of a kernel with 10 FP64 instructions
/// per warp, of which the shares `div_sqrt` and `rcp` are given.
fn check_fp64_sequences(div_sqrt: Option<f64>, rcp: Option<f64>, expected: f64) {
    let (gpu, occ) = gpu_and_occupancy("rtx-a4000");
    let mut p = profile(160, 10.0, 1.0, 0.0, 0.0);
    p.warp_instructions.fp64 = 10.0 * 160.0 * 8.0;
    p.workload.fp64_div_sqrt_fraction = div_sqrt;
    p.workload.fp64_rcp_fraction = rcp;
    let got = match adapter::inputs(&p, &gpu, &occ) {
        Ok(i) => i.mix.fp64,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(got, expected, "{div_sqrt:?} {rcp:?}");
}

#[test]
fn fp64_divisions_count_the_operations_of_their_sequence() {
    check_fp64_sequences(None, None, 10.0);
    // 2 divisions or square roots: 8 operations each, 2 x 7 more.
    check_fp64_sequences(Some(0.2), None, 24.0);
    // 5 reciprocals: 5 operations each, 5 x 4 more.
    check_fp64_sequences(None, Some(0.5), 30.0);
    check_fp64_sequences(Some(0.25), Some(0.5), 47.5);
    // Out of range or not finite: clamped or ignored.
    check_fp64_sequences(Some(2.0), Some(f64::NAN), 80.0);
}

fn check_lsu_lanes(shared_bytes_per_clock: f64, lanes: f64) {
    let got = super::params::lsu_lanes(shared_bytes_per_clock, 32.0);
    assert_eq!(got, lanes, "{shared_bytes_per_clock} B/clk");
}

#[test]
fn lsu_lanes_are_the_power_of_two_at_or_above_the_measured_shared_rate_over_4_bytes() {
    // Measured rates a little under LSU count x 4 B (T4, RTX 3060, H100).
    check_lsu_lanes(57.6, 16.0);
    check_lsu_lanes(62.8, 16.0);
    check_lsu_lanes(127.4, 32.0);
    // Theoretical figures map to themselves.
    check_lsu_lanes(64.0, 16.0);
    check_lsu_lanes(128.0, 32.0);
    // Never more than 32 lanes, never fewer than one.
    check_lsu_lanes(256.0, 32.0);
    check_lsu_lanes(0.5, 1.0);
}

/// The spill L1 hit rate of the [`profile`] kernel on `gpu_id` with the
/// given ptxas figures.
fn check_spill_hits(gpu_id: &str, stack_frame: u64, spill_stores: u64, expected: f64) {
    let (gpu, occ) = gpu_and_occupancy(gpu_id);
    let mut p = profile(160, 100.0, 4.0, 0.0, 0.0);
    p.analysis.spills.stack_frame_bytes = stack_frame;
    p.analysis.spills.store_bytes = spill_stores;
    let got = adapter::spill_l1_hit_rate(&p, &gpu, &occ, 8.0);
    assert_eq!(
        got, expected,
        "{gpu_id} frame {stack_frame} stores {spill_stores}"
    );
}

#[test]
fn spills_hit_l1_as_far_as_the_resident_threads_frames_fit_in_it() {
    // V100: 8 blocks of 256 threads resident (2048 threads); 4 KB of shared
    // per block takes the 32 KB carve-out, leaving 128 - 32 = 96 KB of L1.
    let v100 = "tesla-v100-sxm2-16gb";
    check_spill_hits(v100, 0, 0, 1.0); // no spills
    check_spill_hits(v100, 48, 48, 1.0); // 2048 x 48 B = 96 KB: all fit
    check_spill_hits(v100, 96, 40, 0.5); // 192 KB: half; the frame decides
    check_spill_hits(v100, 0, 192, 0.25); // no frame: the spill stores
    // Maxwell and Pascal cache local loads in L2 only.
    check_spill_hits("tesla-p100-pcie-16gb", 8, 8, 0.0);
    check_spill_hits("geforce-gtx-titan-x-maxwell", 8, 8, 0.0);
}

/// `predict` of `p` on `gpu` at its own occupancy for the [`profile`] kernel.
fn predict_on(p: &KernelProfile, gpu: &arch::Gpu) -> crate::prediction::Prediction {
    let (_, occ) = gpu_and_occupancy(&gpu.id);
    match adapter::predict(p, gpu, &occ) {
        Ok(pr) => pr,
        Err(e) => panic!("{}: {e}", gpu.id),
    }
}

#[test]
fn a_sustained_clock_scales_the_sms_time_and_leaves_dram_alone() {
    // The H100 PCIe has a calibrated L1 rate (gpu-benches, in GB/s).
    let (gpu, _) = gpu_and_occupancy("h100-pcie-80gb");
    let half = match gpu.with_sustained_clock(gpu.rated_clock_mhz() / 2.0) {
        Ok(g) => g,
        Err(e) => panic!("{e}"),
    };
    // Per-clock figures stay, including the calibrated L1 rate: an L1 moves
    // its bytes per clock at whatever clock it runs.
    let cal = calibration::bundled(&gpu.id);
    assert!(cal.as_ref().is_some_and(|c| c.l1_bandwidth.is_some()));
    let (rated, held) = (
        arch_params(&gpu, cal.as_ref()),
        arch_params(&half, cal.as_ref()),
    );
    assert_eq!(held.clock_hz, rated.clock_hz / 2.0);
    assert_eq!(held.l1_bytes_per_clock, rated.l1_bytes_per_clock);
    assert_eq!(held.dram_bytes_per_second, rated.dram_bytes_per_second);
    let sm = |p: &crate::prediction::Prediction| p.breakdown["sm_seconds"];
    let dram = |p: &crate::prediction::Prediction| p.breakdown["dram_seconds"];
    // Compute-bound: the SMs' time doubles.
    let compute = profile(4096, 1000.0, 1.0, 0.0, 0.0);
    let (a, b) = (predict_on(&compute, &gpu), predict_on(&compute, &half));
    assert!(
        (sm(&b) / sm(&a) - 2.0).abs() < 1e-9,
        "{} {}",
        sm(&a),
        sm(&b)
    );
    assert_eq!(dram(&a), dram(&b));
    // Streaming: DRAM binds at either clock, and the time stays.
    let stream = profile(100_000, 2.0, 3.0, 0.0, 0.0);
    let (a, b) = (predict_on(&stream, &gpu), predict_on(&stream, &half));
    assert_eq!(dram(&a), dram(&b));
    assert!(sm(&b) < dram(&b), "{} {}", sm(&b), dram(&b));
    assert_eq!(a.seconds, b.seconds);
}

mod lines {
    use crate::timing::Limit;
    use crate::timing::lines::{LineCost, LineLoad, Pipe, limit_of, line_cost};

    use super::*;

    /// The cost of `load` on the test architecture, hit rates 0.
    fn check(load: LineLoad, expect: [f64; 6]) {
        let arch = arch();
        let c = line_cost(&load, &arch, 0.0, 0.0);
        let got = [
            c.issue_cycles,
            c.replay_cycles,
            c.shared_cycles,
            c.l1_cycles,
            c.dram_cycles,
            c.divergence_cycles,
        ];
        for (g, e) in got.iter().zip(expect) {
            assert!(
                (g - e).abs() <= 1e-9 * e.abs().max(1.0),
                "{load:?}: {got:?} vs {expect:?}"
            );
        }
    }

    #[test]
    fn terms_follow_the_wave_equations() {
        let arch = arch();
        let sms = arch.sm_count;
        let dram_per_clock = arch.dram_bytes_per_second / arch.clock_hz;
        // 1000 full warp instructions: issue only.
        check(
            LineLoad {
                warp_instructions: 1000.0,
                mean_active_threads: 32.0,
                ..LineLoad::default()
            },
            [1000.0 / arch.issue_per_clock / sms, 0.0, 0.0, 0.0, 0.0, 0.0],
        );
        // 100 shared requests, 4-way conflicts: 300 replays, 400 passes
        // (so too 128-bit accesses where the wide rate is not measured, as
        // on this architecture; wide_shared_lines_... below where it is).
        check(
            LineLoad {
                warp_instructions: 100.0,
                mean_active_threads: 16.0,
                shared_requests: 100.0,
                shared_passes: 400.0,
                ..LineLoad::default()
            },
            [
                100.0 / arch.issue_per_clock / sms,
                300.0 / arch.shared_passes_per_clock / sms,
                400.0 / arch.shared_passes_per_clock / sms,
                0.0,
                0.0,
                0.5 * 100.0 / arch.issue_per_clock / sms,
            ],
        );
        // 100 executions of an FP32 division: 13 issue slots each.
        check(
            LineLoad {
                warp_instructions: 100.0,
                fp32_div: 100.0,
                mean_active_threads: 32.0,
                ..LineLoad::default()
            },
            [1300.0 / arch.issue_per_clock / sms, 0.0, 0.0, 0.0, 0.0, 0.0],
        );
        // 10 sectors: L1 and DRAM; then the same sectors read by 128-bit
        // loads that hand the lanes 2048 bytes: L1 carries the lanes'
        // bytes, DRAM only the sectors.
        for (lane_bytes, l1_bytes) in [(0.0, 320.0), (2048.0, 2048.0)] {
            check(
                LineLoad {
                    sectors: 10.0,
                    lane_bytes,
                    ..LineLoad::default()
                },
                [
                    0.0,
                    0.0,
                    0.0,
                    l1_bytes / arch.l1_bytes_per_clock / sms,
                    320.0 / dram_per_clock,
                    0.0,
                ],
            );
        }
    }

    /// One line of 100 shared requests with `passes` bank passes and
    /// `wide` for their width, on a GA10x-like SM whose wide rate is
    /// `measured` or not: its (replay, shared) cycles, in cycles of one SM
    /// times the SM count.
    fn check_shared_line(measured: bool, passes: f64, wide: f64, expect: (f64, f64)) {
        let arch = ga10x_like(measured);
        let c = line_cost(
            &LineLoad {
                warp_instructions: 100.0,
                mean_active_threads: 32.0,
                shared_requests: 100.0,
                shared_passes: passes,
                shared_wide_passes: wide,
                ..LineLoad::default()
            },
            &arch,
            0.0,
            0.0,
        );
        let sms = arch.sm_count;
        assert_eq!(
            (c.replay_cycles, c.shared_cycles),
            (expect.0 / sms, expect.1 / sms),
            "measured {measured}, {passes} passes, {wide} for the width"
        );
    }

    #[test]
    fn wide_shared_lines_replay_only_their_conflicts() {
        // 100 128-bit requests with 2-way conflicts: 800 passes, 400 for
        // the width, 400 replays.
        check_shared_line(true, 800.0, 400.0, (400.0, 800.0));
        // 100 conflict-free 32-bit requests: 100 passes, but the 16 lanes
        // take 2 clocks a request: 200.
        check_shared_line(true, 100.0, 100.0, (0.0, 200.0));
        // Where the wide rate is unknown, the same 2-way conflicted 128-bit
        // requests: per request the first pass and the 4 conflict passes
        // at the 32-bit rate (2 clocks each), the 3 of the width at 1 clock,
        // so 1300 cycles; the 4 conflict passes replay, 800 cycles.
        check_shared_line(false, 800.0, 400.0, (800.0, 1300.0));
        // There conflict-free 128-bit requests: 2 + 3 clocks, no replays.
        check_shared_line(false, 400.0, 400.0, (0.0, 500.0));
        // And 32-bit ones as before: one pass at the 32-bit rate.
        check_shared_line(false, 100.0, 100.0, (0.0, 200.0));
    }

    /// 100 full warp executions of one instruction on `pipe` (`int_div` or
    /// `fp32_div` of them divisions): its nonzero pipe times and its cost,
    /// each times the SM count.
    fn check_pipes(pipe: Option<Pipe>, divs: (f64, f64), expect: &[(Pipe, f64)], cost: f64) {
        let arch = arch();
        let c = line_cost(
            &LineLoad {
                warp_instructions: 100.0,
                int_div: divs.0,
                fp32_div: divs.1,
                mean_active_threads: 32.0,
                pipe,
                ..LineLoad::default()
            },
            &arch,
            0.0,
            0.0,
        );
        let got: Vec<(Pipe, f64)> = Pipe::ALL
            .into_iter()
            .map(|p| (p, c.pipe(p) * arch.sm_count))
            .filter(|(_, t)| *t > 0.0)
            .collect();
        assert_eq!(got, expect, "{pipe:?}, divisions {divs:?}");
        assert_eq!(c.cycles() * arch.sm_count, cost, "{pipe:?}");
    }

    #[test]
    fn pipes_take_their_instructions_at_their_rates() {
        use Pipe::*;
        // Issue is 100 / 4 per clock = 25 without divisions. FP64 at 1 per
        // clock: 100, the cost; FP32 at 2: 50; the SFU at 0.5: 200.
        check_pipes(Some(Fp64), (0.0, 0.0), &[(Fp64, 100.0)], 100.0);
        check_pipes(Some(Fp32), (0.0, 0.0), &[(Fp32, 50.0)], 50.0);
        check_pipes(Some(Sfu), (0.0, 0.0), &[(Sfu, 200.0)], 200.0);
        // IEEE FP32 divisions: one SFU instruction each (100 at 0.5 per
        // clock: 200) and 12 on the FP32 pipe (1,200 at 2: 600, the
        // largest; issue is 1,300 slots at 4: 325).
        check_pipes(
            Some(Fp32),
            (0.0, 100.0),
            &[(Fp32, 600.0), (Sfu, 200.0)],
            600.0,
        );
        // Integer divisions: 12 integer slots each at 2 per clock: 600.
        check_pipes(Some(IntMul), (100.0, 0.0), &[(Int, 600.0)], 600.0);
        // No pipe (a load without sectors): issue alone.
        check_pipes(None, (0.0, 0.0), &[], 25.0);
    }

    #[test]
    fn the_busiest_pipe_binds_compute_and_is_named() {
        let arch = arch();
        let on = |pipe: Pipe, n: f64| {
            line_cost(
                &LineLoad {
                    warp_instructions: n,
                    mean_active_threads: 32.0,
                    pipe: Some(pipe),
                    ..LineLoad::default()
                },
                &arch,
                0.0,
                0.0,
            )
        };
        // A CUDA line of 100 FP32 and 60 conversion instructions: the
        // conversions' 120 outlast the FP32 pipe's 50 and the issue's 40.
        let mut line = on(Pipe::Fp32, 100.0);
        line.add(&on(Pipe::Convert, 60.0));
        let (pipe, t) = line.busiest_pipe().unwrap_or((Pipe::Fp32, 0.0));
        assert_eq!(pipe, Pipe::Convert);
        assert_eq!(t * arch.sm_count, 120.0);
        assert_eq!(line.term(Limit::ComputeIssue) * arch.sm_count, 120.0);
        assert_eq!(line.pipe(Pipe::Fp32) * arch.sm_count, 50.0);
        assert_eq!(LineCost::default().busiest_pipe(), None);
    }

    #[test]
    fn limits_are_read_back_from_the_bottleneck_text() {
        for (text, limit) in [
            (
                "shared memory (calibrated bandwidths)",
                Some(Limit::SharedMemory),
            ),
            (
                "DRAM bandwidth (datasheet bandwidths)",
                Some(Limit::DramBandwidth),
            ),
            (
                "launch/tail (datasheet bandwidths)",
                Some(Limit::LaunchTail),
            ),
            ("latency (calibrated bandwidths)", Some(Limit::Latency)),
            ("memory", None),
        ] {
            assert_eq!(limit_of(text), limit, "{text}");
        }
    }
}

/// Mapped host memory (docs: "Mapped host memory"): the PCIe time, bytes
/// over the link's rate (10 GB/s here, each direction), and the device time
/// overlap as a two-stage pipeline over the waves.
#[test]
fn mapped_host_memory_adds_the_pcie_time_exposed_by_the_waves() {
    // Device: 4 warps x 1000 FFMA / 2 per clock = 2000 cycles per wave (2 µs).
    let mut inp = base();
    inp.mix.fp32 = 1000.0;
    inp.ilp = 8.0;
    // One wave: nothing overlaps, PCIe 1e5 B / 10 GB/s = 10 µs, plus 2 µs.
    inp.pcie_read_bytes = 1e5;
    check(&inp, 1e-5 + 2e-6 + 1e-7, Limit::PcieBandwidth);
    // Four waves (8 µs of device time): one wave's share of the shorter stage.
    inp.blocks = 40.0;
    check(&inp, 1e-5 + 8e-6 / 4.0 + 1e-7, Limit::PcieBandwidth);
    // Writes run on the other direction: the longer direction counts.
    inp.pcie_write_bytes = 3e5;
    check(&inp, 3e-5 + 8e-6 / 4.0 + 1e-7, Limit::PcieBandwidth);
    // Little mapped traffic: the device binds and a quarter of the PCIe
    // time (1 µs) shows.
    inp.pcie_read_bytes = 1e4;
    inp.pcie_write_bytes = 0.0;
    check(&inp, 8e-6 + 1e-6 / 4.0 + 1e-7, Limit::ComputeIssue);
    // None: the time of before, and no PCIe figures in the breakdown.
    inp.pcie_read_bytes = 0.0;
    check(&inp, 8e-6 + 1e-7, Limit::ComputeIssue);
    match evaluate(&inp, &arch()) {
        Ok(t) => assert!(!t.breakdown.contains_key("pcie_seconds")),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn pcie_overlap_cases() {
    let check = |device: f64, pcie: f64, waves: f64, want: f64| {
        let got = overlap_pcie(device, pcie, waves);
        assert!(
            (got - want).abs() <= 1e-12,
            "{device} {pcie} {waves}: {got}"
        );
    };
    check(5.0, 0.0, 1.0, 5.0);
    check(5.0, 3.0, 1.0, 8.0);
    check(5.0, 3.0, 3.0, 6.0);
    check(3.0, 5.0, 3.0, 6.0);
    check(5.0, 3.0, 0.5, 8.0);
    check(0.0, 3.0, 10.0, 3.0);
}

#[test]
fn the_pcie_rate_is_the_catalogs_else_the_default() {
    let gpu = |id: &str| match Catalog::bundled().and_then(|c| c.get(id).cloned()) {
        Ok(g) => g,
        Err(e) => panic!("{e}"),
    };
    let a = arch_params(&gpu("geforce-rtx-3090"), None);
    assert_eq!(
        (a.pcie_bytes_per_second, a.pcie_origin),
        (24.6e9, Origin::Datasheet)
    );
    let a = arch_params(&gpu("titan-rtx"), None);
    assert_eq!(a.pcie_bytes_per_second, 12.3e9);
    let a = arch_params(&gpu("a100-sxm4-80gb"), None);
    assert_eq!(
        (a.pcie_bytes_per_second, a.pcie_origin),
        (super::params::DEFAULT_PCIE_GBS * 1e9, Origin::Default)
    );
}

#[test]
fn the_adapter_moves_mapped_bytes_from_dram_to_pcie() {
    let mut p = profile(160, 100.0, 4.0, 0.0, 0.0);
    p.global.dram_bytes = Some(1e6);
    let plain = v100_inputs(&p);
    assert_eq!((plain.pcie_read_bytes, plain.pcie_write_bytes), (0.0, 0.0));
    p.global.host_mapped_read_bytes = Some(3e5);
    p.global.host_mapped_written_bytes = Some(1e5);
    let mapped = v100_inputs(&p);
    assert_eq!(
        (mapped.pcie_read_bytes, mapped.pcie_write_bytes),
        (3e5, 1e5)
    );
    assert_eq!(mapped.dram_bytes, plain.dram_bytes - 4e5);
    assert!(seconds(&mapped) > seconds(&plain));
}

/// The expansion constants are the committed ptxas measurement's
/// (data/ptxas/sass-per-op.tsv, `scripts/sass-per-op.py`): a rerun of the
/// script with another ptxas that moves them fails here.
#[test]
fn expansion_slots_are_the_committed_ptxas_measurement() {
    let tsv = include_str!("../../../../data/ptxas/sass-per-op.tsv");
    let per_op = |op: &str, arch: &str| -> f64 {
        let row = tsv.lines().find_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f.len() == 4 && f[0] == op && f[1] == arch).then(|| f[2].parse::<f64>())
        });
        match row {
            Some(Ok(v)) => v,
            _ => panic!("no {op} row for {arch} in sass-per-op.tsv"),
        }
    };
    for (arch, major) in [
        ("sm_52", 5),
        ("sm_61", 6),
        ("sm_75", 7),
        ("sm_86", 8),
        ("sm_90", 9),
    ] {
        for op in ["div.rn.f32", "rcp.rn.f32", "sqrt.rn.f32"] {
            let v = per_op(op, arch);
            assert!((v - FP32_DIV_SLOTS).abs() <= 1.7, "{op} on {arch}: {v}");
        }
        let mean = ["div.s32", "div.u32", "rem.s32", "rem.u32"]
            .iter()
            .map(|op| per_op(op, arch))
            .sum::<f64>()
            / 4.0;
        let slots = params::int_div_slots_measured(major).unwrap_or(f64::NAN);
        assert!(
            (slots - mean).abs() <= 0.6,
            "{arch}: {slots} against {mean}"
        );
        // The register-addressed load adds one instruction to its
        // multiply (sm_90's immediate-address kernels schedule unevenly:
        // its row is 1.45, so that architecture is compared with its one
        // IMAD instead).
        let folded = match arch {
            "sm_90" => 1.0,
            _ => per_op("ld.const [table+imm]", arch),
        };
        let ldc = per_op("ld.const [reg+imm]", arch) - folded;
        assert!((ldc - 1.0).abs() <= 0.05, "{arch}: LDC {ldc}");
    }
}

/// Replays per warp of `profile(160, ...)` with 4 loads per warp, `lines`
/// lines per warp over those loads, `ro` of the loads on the read-only path
/// with `ro_lines` lines, on GPU `id`; and what the wave charges for them.
fn check_replays(id: &str, lines: Option<f64>, ro: f64, ro_lines: f64, expect: f64) {
    let warps = 160.0 * 8.0;
    let mut p = profile(160, 100.0, 4.0, 0.0, 0.0);
    let (gpu, occ) = gpu_and_occupancy(id);
    let plain = match adapter::inputs(&p, &gpu, &occ) {
        Ok(i) => i,
        Err(e) => panic!("{e}"),
    };
    p.global.load_lines = lines.map(|l| l * warps);
    p.global.read_only_load_requests = Some(ro * warps);
    p.global.read_only_load_lines = Some(ro_lines * warps);
    assert_eq!(adapter::load_replays(&p, &gpu) / warps, expect, "{id}");
    let inp = match adapter::inputs(&p, &gpu, &occ) {
        Ok(i) => i,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(inp.mix.load_replays, expect, "{id}");
    assert_eq!(inp.mix.global, plain.mix.global, "{id}");
    // Each replay: an issue slot, an LSU pass and a cycle of the chain.
    let arch = arch_params(&gpu, None);
    let (a, b) = (
        wave_cycles(&inp, &arch, 1.0),
        wave_cycles(&plain, &arch, 1.0),
    );
    let warps = inp.warps_per_block;
    let close = |x: f64, y: f64| (x - y).abs() < 1e-9 * y.max(1.0);
    assert!(
        close(a.issue - b.issue, warps * expect / arch.issue_per_clock),
        "{id}"
    );
    assert!(close(a.lsu - b.lsu, warps * expect / arch.rate_lsu), "{id}");
    let chain = warp_chain_cycles(&inp, &arch) - warp_chain_cycles(&plain, &arch);
    assert!(close(chain, expect), "{id}: {chain}");
}

#[test]
fn fermi_and_kepler_replay_a_load_per_further_line() {
    // 4 loads touching 10 lines: 6 replays; coalesced ones (4 lines): none.
    check_replays("tesla-k20m", Some(10.0), 0.0, 0.0, 6.0);
    check_replays("tesla-c2075", Some(10.0), 0.0, 0.0, 6.0);
    check_replays("tesla-k20m", Some(4.0), 0.0, 0.0, 0.0);
    // One of the loads read-only with 5 of the lines: 3 plain loads on 5
    // lines, 2 replays.
    check_replays("tesla-k20m", Some(10.0), 1.0, 5.0, 2.0);
    // Maxwell on, and profiles without line counts: none.
    check_replays("geforce-gtx-titan-x-maxwell", Some(10.0), 0.0, 0.0, 0.0);
    check_replays("tesla-v100-sxm2-16gb", Some(10.0), 0.0, 0.0, 0.0);
    check_replays("tesla-k20m", None, 0.0, 0.0, 0.0);
}

/// 8 warps of 100 global loads that hit L1 (MLP 100, so the chain hides),
/// each taking `wavefronts` passes of the L1's data stage, beside
/// `shared` shared requests of one pass each.
fn data_stage(wavefronts: f64, shared: f64) -> TimingInputs {
    let mut inp = base();
    inp.warps_per_block = 8.0;
    inp.mix.global = 100.0;
    inp.mlp_global = 100.0;
    inp.l1_hit_rate = 1.0;
    inp.sectors = 100.0;
    inp.lane_bytes = 100.0 * 128.0;
    inp.global_load_wavefronts = 100.0 * wavefronts;
    inp.mix.shared = shared;
    inp.shared_passes = shared;
    inp.shared_wide_passes = shared;
    inp.mlp_shared = shared.max(1.0);
    inp
}

#[test]
fn global_loads_pass_the_banks_with_the_shared_accesses() {
    let check_stage = |wavefronts: f64, shared: f64, cycles: f64, limit: Limit| {
        let inp = data_stage(wavefronts, shared);
        check_on(&ga10x_like(true), &inp, cycles * 1e-9 + 1e-7, limit);
    };
    // CLBlast's float4 loads of A with 8 threads along M: 16 wavefronts a
    // request, 8 x 100 x 16 = 12800 cycles of the data stage, where the
    // LSU pipe takes 8 x 100 / 0.5 = 1600 and the sectors' bytes 800.
    check_stage(16.0, 0.0, 12800.0, Limit::L1Bandwidth);
    // Coalesced loads: one wavefront each, 800 cycles; the LSU pipe binds.
    check_stage(1.0, 0.0, 1600.0, Limit::ComputeIssue);
    // Shared requests share the stage: 8 x (100 x 4 + 100) = 4000 cycles
    // (the LSU pipe 8 x 200 / 0.5 = 3200), the global loads' part 3200 of
    // it.
    check_stage(4.0, 100.0, 4000.0, Limit::L1Bandwidth);
    // Mostly shared: 8 x (100 + 500) = 4800 cycles of the stage, the LSU
    // pipe 8 x 600 / 0.5 = 9600.
    check_stage(1.0, 500.0, 9600.0, Limit::SharedMemory);
}

#[test]
fn no_wavefronts_no_change() {
    // A profile without the count predicts as before the stage had it.
    let inp = data_stage(0.0, 0.0);
    let t = evaluate(&inp, &ga10x_like(true)).expect("valid inputs");
    assert!(!t.breakdown.contains_key("wave_shared_global_cycles"));
    let with = evaluate(&data_stage(16.0, 0.0), &ga10x_like(true)).expect("valid inputs");
    assert_eq!(
        with.breakdown.get("wave_shared_global_cycles"),
        Some(&12800.0)
    );
}

/// The mix's shared accesses and the width's passes of `profile(160, ...)`
/// with 8 shared loads per warp moving `bytes` a warp each in `passes`
/// passes, `merged` of them issued as part of a wider access.
fn shared_inputs(merged: Option<f64>, bytes: f64, passes: f64) -> (f64, f64, f64) {
    let warps = 160.0 * 8.0;
    let mut p = profile(160, 100.0, 1.0, 8.0, 1.0);
    p.shared.merged_accesses = merged.map(|m| m * warps);
    p.shared.loads.requests = (8.0 - merged.unwrap_or(0.0)) * warps;
    p.shared.loads.bytes = bytes * warps;
    p.shared.loads.transactions = passes * warps;
    let (gpu, occ) = gpu_and_occupancy("rtx-a4000");
    match adapter::inputs(&p, &gpu, &occ) {
        Ok(i) => (i.mix.shared, i.shared_passes, i.shared_wide_passes),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn merged_shared_accesses_are_not_issued() {
    // Eight 32-bit loads, conflict free: 8 issued, 8 passes.
    assert_eq!(shared_inputs(None, 8.0 * 128.0, 8.0), (8.0, 8.0, 8.0));
    assert_eq!(shared_inputs(Some(0.0), 8.0 * 128.0, 8.0), (8.0, 8.0, 8.0));
    // The same words as two LDS.128 (6 merged): 2 issued, 8 passes.
    assert_eq!(shared_inputs(Some(6.0), 8.0 * 128.0, 8.0), (2.0, 8.0, 8.0));
    // Every lane the same float4, twice: 4 passes counted, where bytes /
    // 128 would say 8; the width's passes are the passes counted.
    assert_eq!(shared_inputs(Some(6.0), 8.0 * 128.0, 4.0), (2.0, 4.0, 4.0));
}

#[test]
fn matrix_multiplies_hold_the_tensor_pipe() {
    // 4 warps x 1000 SM cycles of tensor work each = 4000 cycles, beside
    // which their 10 issue slots per warp are nothing.
    let mut inp = base();
    inp.mix.tensor_cycles = 1000.0;
    inp.mix.int_add = 10.0;
    check(&inp, 4e-6 + 1e-7, Limit::ComputeIssue);
}

/// The timing inputs of the [`profile`] kernel with `macs` multiply-adds
/// of f16 multiplicands and an f32 accumulator per warp, on `gpu_id`.
fn tensor_inputs(gpu_id: &str, macs: f64) -> TimingInputs {
    let (gpu, occ) = gpu_and_occupancy(gpu_id);
    let mut p = profile(160, 100.0, 4.0, 50.0, 1.0);
    let warps = 160.0 * 8.0;
    p.tensor.f16_f32 = macs * warps;
    p.tensor.instructions = macs / 4096.0 * warps;
    match adapter::inputs(&p, &gpu, &occ) {
        Ok(i) => i,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn tensor_work_is_charged_at_the_catalogs_rate_of_its_kind() {
    // 64 wmma m16n16k16 per warp: 262,144 multiply-adds. The A100 does
    // 1,024 per clock per SM with an f32 accumulator, a GeForce RTX 3090
    // 256 (half its f16-accumulate rate).
    let macs = 64.0 * 4096.0;
    let a100 = tensor_inputs("a100-sxm4-80gb", macs);
    assert_eq!(a100.mix.tensor_cycles, macs / 1024.0);
    assert_eq!(a100.tensor_unrated_macs, 0.0);
    let rtx = tensor_inputs("geforce-rtx-3090", macs);
    assert_eq!(rtx.mix.tensor_cycles, macs / 256.0);
    // Volta's tensor cores: 512 either way.
    let v100 = tensor_inputs("tesla-v100-sxm2-16gb", macs);
    assert_eq!(v100.mix.tensor_cycles, macs / 512.0);
    // Turing's T4: 512 with an f32 accumulator.
    let t4 = tensor_inputs("tesla-t4", macs);
    assert_eq!(t4.mix.tensor_cycles, macs / 512.0);
    // No rate in the catalog (a GeForce Turing board's f32-accumulate rate
    // is not sourced): issue slots only, and the breakdown says how much
    // went unrated.
    let rtx2080 = tensor_inputs("geforce-rtx-2080-ti", macs);
    assert_eq!(rtx2080.mix.tensor_cycles, 0.0);
    assert_eq!(rtx2080.tensor_unrated_macs, macs * 160.0 * 8.0);
    let (gpu, occ) = gpu_and_occupancy("geforce-rtx-2080-ti");
    let mut p = profile(160, 100.0, 4.0, 50.0, 1.0);
    p.tensor.f16_f32 = macs * 160.0 * 8.0;
    match adapter::predict(&p, &gpu, &occ) {
        Ok(t) => assert_eq!(
            t.breakdown.get("tensor_unrated_macs"),
            Some(&(macs * 160.0 * 8.0))
        ),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn dispatch_fp32_and_lsu_all_busy_take_longer_than_the_busiest() {
    // 16 warps (4 per scheduler), each 2000 FFMA and 1000 conflict-free
    // shared loads: dispatch 16 x 3000 / 4 = 12,000 cycles, the FP32 pipe
    // 16 x 2000 / 2 = 16,000, the LSU pipe 16 x 1000 = 16,000; the banks
    // (2 passes a clock here) 8,000. Three resources near full with four
    // warps a scheduler: the wave takes the busiest's time times the
    // queueing loss of the three ("Dispatch and pipes share the warps").
    let mut a = arch();
    a.shared_passes_per_clock = 2.0;
    let wave = |fp32: f64, shared: f64| {
        let mut inp = base();
        inp.warps_per_block = 16.0;
        inp.ilp = 64.0;
        inp.mlp_shared = 1000.0;
        inp.mix.fp32 = fp32;
        inp.mix.shared = shared;
        inp.shared_passes = shared;
        match evaluate(&inp, &a) {
            Ok(t) => (
                t.breakdown["full_wave_cycles"],
                t.breakdown["dispatch_interference"],
            ),
            Err(e) => panic!("{e}"),
        }
    };
    let (cycles, loss) = wave(2000.0, 1000.0);
    let expect = interference(4.0, &[12000.0, 16000.0, 16000.0]);
    assert!(expect > 1.1, "three balanced resources lose only {expect}");
    assert!((loss - expect).abs() < 1e-12, "{loss} against {expect}");
    assert!(
        (cycles - 16000.0 * expect).abs() < 1e-6 * cycles,
        "{cycles} against {}",
        16000.0 * expect
    );
    // The FP32 pipe alone, with a dispatch half as busy, loses nothing.
    let (cycles, loss) = wave(2000.0, 0.0);
    assert_eq!(loss, 1.0);
    assert!((cycles - 16000.0).abs() < 1e-6 * cycles, "{cycles}");
}
