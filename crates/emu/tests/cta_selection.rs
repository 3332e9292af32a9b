//! Running a sample of CTAs: exactly the evenly spaced CTAs run, and only
//! their part of the output is written.

mod common;
use common::*;
use emu::exec::{CtaSelection, LaunchOptions, evenly_spaced};

#[track_caller]
fn check_evenly(total: u64, k: u64, expect: &[u32]) {
    assert_eq!(evenly_spaced(total, k), expect);
}

#[test]
fn evenly_spaced_ids() {
    check_evenly(8, 8, &[0, 1, 2, 3, 4, 5, 6, 7]);
    check_evenly(8, 20, &[0, 1, 2, 3, 4, 5, 6, 7]);
    check_evenly(8, 1, &[0]);
    check_evenly(8, 2, &[0, 7]);
    // (i * 7 + 1) / 2 for i = 0, 1, 2: 0, 4, 7.
    check_evenly(8, 3, &[0, 4, 7]);
    // (i * 99 + 1) / 3 for i = 0..4: 0, 33, 66, 99.
    check_evenly(100, 4, &[0, 33, 66, 99]);
    check_evenly(1, 5, &[0]);
    check_evenly(0, 5, &[]);
}

#[test]
fn a_sample_runs_only_its_ctas() {
    // map: 8 CTAs of 128 threads stride over 4096 elements, out[i] = poly(i),
    // so element i belongs to CTA (i mod 1024) / 128; with 3 sampled CTAs
    // (0, 4, 7) only their elements are written.
    let s = spec("map", &[]);
    let opts = LaunchOptions {
        ctas: CtaSelection::Evenly(3),
        ..Default::default()
    };
    let r = run_with("map", &s, opts).expect("sampled run");
    assert_eq!(r.stats.ctas, 3);
    let full = run("map", &[]);
    assert_eq!(
        r.stats.thread_instructions * 8,
        full.stats.thread_instructions * 3
    );
    let out = f32s(&r.buffers.iter().find(|b| b.name == "out").unwrap().bytes);
    let want = f32s(&full.buffers.iter().find(|b| b.name == "out").unwrap().bytes);
    for (i, (&o, &w)) in out.iter().zip(&want).enumerate() {
        let cta = ((i % 1024) / 128) as u32;
        if [0, 4, 7].contains(&cta) {
            assert_eq!(o.to_bits(), w.to_bits(), "out[{i}] of sampled CTA {cta}");
        } else {
            assert_eq!(o, 0.0, "out[{i}] of CTA {cta}, which did not run");
        }
    }
    // Parallel mode runs the same sample.
    let par = LaunchOptions {
        ctas: CtaSelection::Evenly(3),
        parallel: true,
        ..Default::default()
    };
    let rp = run_with("map", &s, par).expect("parallel sampled run");
    assert_eq!(rp.buffers, r.buffers);
}

#[track_caller]
fn check_spread(grid: [u32; 3], k: u64, expect: &[u32]) {
    assert_eq!(
        emu::exec::spread_ctas(grid, k),
        expect,
        "grid {grid:?}, k {k}"
    );
}

#[test]
fn spread_ids() {
    // A 1-D grid narrower than k: one point per equal part, jittered by
    // u_i = frac(sqrt 2 + i / phi) = 0.414, 0.032, 0.650, ... in the first
    // half and mirrored (1 - u) in the second: k = 2 at 0.414 and 1.586 of
    // 2 parts of 8 columns, 1.66 and 6.34.
    check_spread([8, 1, 1], 2, &[1, 6]);
    // k = 4: (0.414, 1.032, 2.968, 3.586) * 8 / 4 = 0.83, 2.06, 5.94, 7.17;
    // the pairs sum to 7, the mirror of each other.
    check_spread([8, 1, 1], 4, &[0, 2, 5, 7]);
    // Odd k: the middle point has no partner and sits at the centre
    // (1.5 * 8 / 3 = 4); the others at 0.414 and 2.586 of 3 parts.
    check_spread([8, 1, 1], 3, &[1, 4, 6]);
    check_spread([8, 1, 1], 8, &[0, 1, 2, 3, 4, 5, 6, 7]);
    check_spread([8, 1, 1], 9, &[0, 1, 2, 3, 4, 5, 6, 7]);
    check_spread([1, 1, 1], 3, &[0]);
    check_spread([0, 4, 1], 3, &[]);
    // At least as many points as columns: the midpoints (i + 1/2) * 4 / 6 =
    // 0.33, 1, 1.67, 2.33, 3, 3.67 reach every column (0, 1, 1, 2, 3, 3;
    // rows 0, 1, 1, 0, 0, 0: ids 0, 5, 5, 2, 3, 3).
    check_spread([4, 2, 1], 6, &[0, 2, 3, 5]);
    // 8 x 4 CTAs, k = 4: x = 0, 2, 5, 7; y = floor(frac(i a) * 4) with
    // a = 0.81917...: 0, 3, 2, 1 (0, .819, .638, .458); ids x + 8 y = 0, 26,
    // 21, 15.
    check_spread([8, 4, 1], 4, &[0, 15, 21, 26]);
    // Point 0 is always in row 0 and layer 0: x = 1, 5; y = 0, 4; z = 0, 2.
    check_spread([7, 5, 3], 2, &[1, 5 + 4 * 7 + 2 * 35]);
}

#[test]
fn spread_does_not_alias_with_the_bits_of_a_power_of_two_grid() {
    // Work that grows with the set bits of the CTA id (cuRAND's skip-ahead
    // does one matrix product per set bit of its subsequence). On 4,096
    // CTAs the mean is 6 set bits; midpoints (i + 1/2) * 4096 / k are
    // multiples of 2048 / k and hold 2 (k = 4) to 4 (k = 64) on average.
    // Mirrored pairs x, 4095 - x hold 12 between them (an even k).
    let bits =
        |ids: &[u32]| ids.iter().map(|i| f64::from(i.count_ones())).sum::<f64>() / ids.len() as f64;
    for k in [2, 4, 8, 16, 64] {
        let ids = emu::exec::spread_ctas([4096, 1, 1], k);
        assert_eq!(ids.len() as u64, k, "k {k}: {ids:?}");
        assert_eq!(bits(&ids), 6.0, "k {k}: {ids:?}");
        // Work linear in the id is sampled exactly too.
        let mean = ids.iter().map(|&i| f64::from(i)).sum::<f64>() / k as f64;
        assert_eq!(mean, 4095.0 / 2.0, "k {k}: {ids:?}");
    }
    // An odd k keeps that: the pairs and the centre, 2048 (where one point in
    // k still holds a single set bit).
    for k in [3, 5, 15] {
        let ids = emu::exec::spread_ctas([4096, 1, 1], k);
        let sum: u64 = ids.iter().map(|&i| u64::from(i)).sum();
        assert_eq!(sum, (k - 1) / 2 * 4095 + 2048, "k {k}: {ids:?}");
    }
}

#[test]
fn spread_samples_every_column_where_even_spacing_aliases() {
    // 4 columns x 64 rows: evenly spaced linear ids with k = 4 are 0, 85,
    // 170, 255, i.e. columns 0, 1, 2, 3 here; with k = 5 they are 0, 64, 128,
    // 191, 255: columns 0, 0, 0, 3, 3. A kernel whose work depends on the
    // column is extrapolated from two of them.
    let columns = |ids: &[u32]| {
        let mut c: Vec<u32> = ids.iter().map(|i| i % 4).collect();
        c.sort_unstable();
        c.dedup();
        c
    };
    assert_eq!(columns(&evenly_spaced(256, 5)), [0, 3]);
    for k in [4, 5, 8, 16] {
        let ids = emu::exec::spread_ctas([4, 64, 1], k);
        assert_eq!(ids.len() as u64, k, "k {k}: {ids:?}");
        assert_eq!(columns(&ids), [0, 1, 2, 3], "k {k}: {ids:?}");
        // Rows spread too (a low-discrepancy sequence, not a Latin square:
        // at k = 16 two pairs of samples share a row).
        let mut rows: Vec<u32> = ids.iter().map(|i| i / 4).collect();
        rows.sort_unstable();
        rows.dedup();
        assert!(rows.len() as u64 * 8 >= k * 7, "k {k}: {ids:?}");
    }
}

#[test]
fn a_spread_sample_runs_only_its_ctas() {
    let s = spec("map", &[]);
    let opts = LaunchOptions {
        ctas: CtaSelection::Spread(2),
        ..Default::default()
    };
    let r = run_with("map", &s, opts).expect("sampled run");
    assert_eq!(r.stats.ctas, 2);
}

/// map with n = 256: CTAs 0 and 1 (128 threads each) map one element per
/// thread; CTAs 2 to 7 find their first index past n and exit.
fn guarded_map() -> (ptx::Module, String, String, emu::spec::LaunchSpec) {
    let s = spec("map", &[("N", "256")]);
    let (text, file) = ptx("map");
    let module = ptx::parse(&file, &text).expect("map parses");
    (module, text, file, s)
}

#[test]
fn a_listed_subset_runs_exactly_those_ctas() {
    let (module, text, file, s) = guarded_map();
    let run_ids = |ids: &[u32]| {
        emu::exec::launch_ctas(
            &module,
            &text,
            &file,
            &s,
            LaunchOptions::default(),
            ids,
            &mut emu::observer::NoObserver,
        )
        .expect("subset run")
    };
    let both = run_ids(&[1, 6, 99]);
    assert_eq!(both.stats.ctas, 2, "id 99 is past the 8-CTA grid");
    let (one, six) = (run_ids(&[1]), run_ids(&[6]));
    assert_eq!(
        both.stats.warp_instructions,
        one.stats.warp_instructions + six.stats.warp_instructions
    );
    assert!(one.stats.warp_instructions > six.stats.warp_instructions);
    // Only CTA 1's elements (128..256) are written.
    let full = run("map", &[("N", "256")]);
    let out = f32s(&both.buffers.iter().find(|b| b.name == "out").unwrap().bytes);
    let want = f32s(&full.buffers.iter().find(|b| b.name == "out").unwrap().bytes);
    for (i, (&o, &w)) in out.iter().zip(&want).enumerate() {
        if (128..256).contains(&i) {
            assert_eq!(o.to_bits(), w.to_bits(), "out[{i}]");
        } else {
            assert_eq!(o, 0.0, "out[{i}] belongs to CTA 0, which did not run");
        }
    }
}

#[test]
fn a_probe_tells_ctas_that_exit_at_once_from_those_that_work() {
    let (module, text, file, s) = guarded_map();
    let per_warp = |id: u32| {
        let r = emu::exec::launch_ctas(
            &module,
            &text,
            &file,
            &s,
            LaunchOptions::default(),
            &[id],
            &mut emu::observer::NoObserver,
        )
        .expect("one CTA");
        r.stats.warp_instructions / r.stats.warps
    };
    let (idle, busy) = (per_warp(5), per_warp(0));
    assert!(idle < busy, "idle {idle}, busy {busy}");
    let probe = |fuel: u64| {
        emu::exec::probe_ctas(
            &module,
            &text,
            &file,
            &s,
            emu::simt::stack::Policy::Ipdom,
            &[0, 1, 2, 5, 7, 8],
            fuel,
        )
        .expect("probe")
    };
    // A budget of exactly the idle CTAs' instructions per warp lets them
    // finish; id 8 is past the grid.
    let (i, b) = (Some(idle * 4), None);
    assert_eq!(probe(idle), [b, b, i, i, i, Some(0)]);
    let all = Some(busy * 4);
    assert_eq!(probe(busy), [all, all, i, i, i, Some(0)]);
    assert_eq!(probe(idle - 1), [b, b, b, b, b, Some(0)]);
}
