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
