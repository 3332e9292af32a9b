//! A run for addresses alone (`LaunchOptions::addresses_only`, what the
//! characterization and the L2 warm-up of a sample's neighbours run) skips
//! the arithmetic whose results are only stored. Over every corpus kernel (kernels/*/spec.toml,
//! the checked-in PTX of each architecture), on the first CTAs of its grid:
//! every instruction event, memory request (addresses of every active
//! lane), branch and barrier is the one of the full run, in the same order,
//! and so are the instruction counts; and the skipping is real, since
//! some kernels' output buffers then differ.

mod common;

use common::corpus;

use emu::exec::{LaunchOptions, LaunchResult, launch_ctas};
use emu::observer::{BarrierEvent, BranchEvent, MemEvent, Observer, Site};
use emu::simt::Mask;
use pipeline::{LoadOptions, load_spec_with};

/// Every event of a run, in order.
#[derive(Default, PartialEq, Debug)]
struct Events(Vec<String>);

impl Observer for Events {
    fn instruction(&mut self, site: Site, active: Mask) {
        self.0.push(format!("i {site:?} {active:x}"));
    }
    fn memory(&mut self, e: &MemEvent<'_>) {
        let addrs: Vec<u64> = emu::simt::lanes(e.active).map(|l| e.addrs[l]).collect();
        self.0.push(format!(
            "m {:?} {:?} {:?} {} {:x} {addrs:?}",
            e.site, e.space, e.kind, e.size, e.active
        ));
    }
    fn branch(&mut self, e: &BranchEvent) {
        self.0.push(format!("b {e:?}"));
    }
    fn barrier(&mut self, e: &BarrierEvent) {
        self.0.push(format!("s {e:?}"));
    }
}

#[test]
fn every_address_branch_and_count_is_the_full_runs() {
    let dirs = corpus();
    assert!(dirs.len() >= 25, "corpus not found: {} kernels", dirs.len());
    let mut runs = 0;
    let mut outputs_differ = Vec::new();
    for dir in &dirs {
        for arch in ["sm_70", "sm_80", "sm_90"] {
            let ptx = dir.join(format!("{arch}.ptx"));
            if !ptx.is_file() {
                continue;
            }
            let opts = LoadOptions {
                ptx: Some(ptx.clone()),
                ..LoadOptions::default()
            };
            let loaded = load_spec_with(&dir.join("spec.toml"), &[], &opts)
                .unwrap_or_else(|e| panic!("{}: {e}", ptx.display()));
            let ctas = loaded.spec.ctas().min(3) as u32;
            let ids: Vec<u32> = (0..ctas).collect();
            let run = |addresses_only: bool| -> (Result<LaunchResult, String>, Events) {
                let mut events = Events::default();
                let opts = LaunchOptions {
                    addresses_only,
                    ..LaunchOptions::default()
                };
                let r = launch_ctas(
                    &loaded.module,
                    &loaded.ptx,
                    &loaded.ptx_file,
                    &loaded.spec,
                    opts,
                    &ids,
                    &mut events,
                )
                .map_err(|f| f.to_string());
                (r, events)
            };
            let (full, full_events) = run(false);
            let (fast, fast_events) = run(true);
            let name = ptx.display().to_string();
            assert!(!full_events.0.is_empty(), "{name}: no events");
            assert_eq!(
                full_events.0.len(),
                fast_events.0.len(),
                "{name}: event count"
            );
            for (k, (a, b)) in full_events.0.iter().zip(&fast_events.0).enumerate() {
                assert_eq!(a, b, "{name}: event {k}");
            }
            match (full, fast) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a.stats, b.stats, "{name}: counts");
                    if a.buffers
                        .iter()
                        .zip(&b.buffers)
                        .any(|(x, y)| x.bytes != y.bytes)
                    {
                        outputs_differ.push(name);
                    }
                }
                (Err(a), Err(b)) => assert_eq!(a, b, "{name}: faults"),
                (a, b) => panic!(
                    "{name}: full run {:?}, addresses only {:?}",
                    a.err(),
                    b.err()
                ),
            }
            runs += 1;
        }
    }
    assert!(runs >= 75, "only {runs} runs");
    // The map kernel stores f(x) of what it loads: f is skipped.
    assert!(
        outputs_differ.iter().any(|n| n.contains("/map/")),
        "nothing was skipped where it should be: {outputs_differ:?}"
    );
    assert!(outputs_differ.len() >= 10, "{outputs_differ:?}");
}
