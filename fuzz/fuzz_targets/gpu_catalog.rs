//! Arbitrary bytes, read as UTF-8 (lossy), through the GPU catalog reader
//! (crates/arch): one GPU file, then the same text as two files of a
//! catalog (a duplicate id). A GPU that validates then goes through the
//! derived figures and the occupancy calculator for a few launches: a
//! validated GPU must not divide by zero or overflow anywhere.
#![no_main]

use arch::catalog::{Catalog, parse_gpu};
use arch::occupancy::{OccupancyInput, occupancy};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let gpu = match parse_gpu("fuzz.toml", &text) {
        Ok(g) => g,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let _ = (
        gpu.compute_capability.sm_name(),
        gpu.clock_mhz(),
        gpu.rated_clock_mhz(),
        gpu.peak_fp32_flops(),
        gpu.peak_fp64_flops(),
        gpu.dram_bytes_per_second(),
        gpu.dram_bytes_per_cycle(),
        gpu.issue_cycles(),
        gpu.mem_ld(),
        gpu.l1_data_bytes(None),
        gpu.numeric_fields(),
    );
    for (threads, registers, shared) in [
        (1, 0, 0),
        (32, 32, 0),
        (256, 64, 48 * 1024),
        (1024, 255, 1 << 20),
        (u32::MAX, u32::MAX, u64::MAX),
    ] {
        let input = OccupancyInput {
            threads_per_block: threads,
            registers_per_thread: registers,
            shared_per_block_bytes: shared,
        };
        if let Ok(o) = occupancy(&gpu, &input) {
            assert!((0.0..=1.0).contains(&o.occupancy), "occupancy {o:?}");
        }
    }
    let twice = Catalog::from_texts([
        ("a.toml".to_string(), text.as_ref()),
        ("b.toml".to_string(), text.as_ref()),
    ]);
    assert!(twice.is_err(), "a duplicate id must be refused");
});
