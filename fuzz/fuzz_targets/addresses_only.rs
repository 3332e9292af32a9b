//! A run for addresses alone against the full run, on the inputs of
//! `emulate` (PTX, a NUL, a launch spec; or PTX alone). A run for addresses
//! (`LaunchOptions::addresses_only`) skips the arithmetic whose results
//! nothing but stores reads, and promises every instruction, memory,
//! branch and barrier event, every count and every fault of the full run.
//! This target checks that promise on whatever the fuzzer makes: the two
//! runs' events (hashed in order), counts and faults must be equal. The
//! one allowed difference is the fault that says the analysis was fooled
//! (`emu::exec::idle::is_stale_read`): its callers then run the launch
//! again whole.
#![no_main]

use std::hash::{DefaultHasher, Hash, Hasher};

use emu::exec::{CtaSelection, LaunchOptions, run_ptx};
use emu::observer::{BarrierEvent, BranchEvent, MemEvent, Observer, Site};
use emu::simt::Mask;
use libfuzzer_sys::fuzz_target;

mod common;

const FUEL: u64 = 20_000;

/// Every event of a run, hashed in order, and how many there were.
#[derive(Default)]
struct Events {
    hash: DefaultHasher,
    count: u64,
}

impl Events {
    fn finish(&self) -> (u64, u64) {
        (self.hash.finish(), self.count)
    }
}

impl Observer for Events {
    fn instruction(&mut self, site: Site, active: Mask) {
        (0u8, site.func, site.pc, site.warp, active).hash(&mut self.hash);
        self.count += 1;
    }
    fn memory(&mut self, e: &MemEvent<'_>) {
        (1u8, e.site.func, e.site.pc, e.site.warp, e.active, e.size).hash(&mut self.hash);
        format!("{:?} {:?}", e.space, e.kind).hash(&mut self.hash);
        for l in emu::simt::lanes(e.active) {
            e.addrs[l].hash(&mut self.hash);
        }
        self.count += 1;
    }
    fn branch(&mut self, e: &BranchEvent) {
        format!("b {e:?}").hash(&mut self.hash);
        self.count += 1;
    }
    fn barrier(&mut self, e: &BarrierEvent) {
        format!("s {e:?}").hash(&mut self.hash);
        self.count += 1;
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((ptx, spec)) = common::ptx_and_spec(data) else {
        return;
    };
    let run = |addresses_only: bool| {
        let opts = LaunchOptions {
            parallel: false,
            fuel: Some(FUEL),
            ctas: CtaSelection::Evenly(2),
            addresses_only,
            ..LaunchOptions::default()
        };
        let mut events = Events::default();
        let r = run_ptx(&ptx, "fuzz.ptx", &spec, opts, &mut events);
        (r, events.finish())
    };
    let (full, full_events) = run(false);
    let (fast, fast_events) = run(true);
    match (full, fast) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.stats, b.stats, "counts");
            assert_eq!(full_events, fast_events, "events");
        }
        (Err(a), Err(b)) => {
            let (a, b) = (a.to_string(), b.to_string());
            if !b.contains(emu::exec::idle::STALE_READ) {
                assert_eq!(a, b, "faults");
                assert_eq!(full_events, fast_events, "events");
            }
        }
        (Ok(_), Err(b)) => {
            let b = b.to_string();
            assert!(
                b.contains(emu::exec::idle::STALE_READ),
                "only the run for addresses faulted: {b}"
            );
        }
        (Err(a), Ok(_)) => panic!("only the full run faulted: {a}"),
    }
});
