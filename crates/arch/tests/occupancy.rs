//! Occupancy against NVIDIA's CUDA Occupancy Calculator rules, hand-checked.
//! Each case writes the arithmetic next to it. Notation: W = warps per block,
//! "warps: 64/4 = 16" is the warp limit, "regs: ..." the register limit,
//! "smem: ..." the shared-memory limit, "max 16" the block limit.

use std::sync::OnceLock;

use arch::{ArchError, Catalog, Limiter, OccupancyInput, occupancy};

/// The bundled catalog, parsed once for all cases.
fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| Catalog::bundled().unwrap_or_else(|e| panic!("{e}")))
}

fn run(gpu: &str, threads: u32, regs: u32, smem: u64) -> Result<arch::Occupancy, ArchError> {
    let g = catalog().get(gpu).unwrap_or_else(|e| panic!("{e}"));
    occupancy(
        g,
        &OccupancyInput {
            threads_per_block: threads,
            registers_per_thread: regs,
            shared_per_block_bytes: smem,
        },
    )
}

fn check(gpu: &str, threads: u32, regs: u32, smem: u64, blocks: u32, limiter: Limiter) {
    let o = run(gpu, threads, regs, smem)
        .unwrap_or_else(|e| panic!("{gpu} {threads}/{regs}/{smem}: {e}"));
    let case = format!("{gpu} threads={threads} regs={regs} smem={smem}: {o:?}");
    assert_eq!(o.active_blocks_per_sm, blocks, "{case}");
    assert_eq!(o.limiter, limiter, "{case}");
    assert_eq!(
        o.active_warps_per_sm,
        blocks * threads.div_ceil(32),
        "{case}"
    );
}

use Limiter::{Blocks, Registers, SharedMemory, Warps};

#[test]
fn cc_1_0_and_1_1() {
    // CC 1.0 (FX5600): 24 warps, 8 blocks, 8192 regs per block-allocation unit 256
    // (warps rounded up to 2), 16 KB shared in 512-B units.
    // W=4; regs: 4*32*16 = 2048 -> 8192/2048 = 4; warps: 24/4 = 6.
    check("quadro-fx5600", 128, 16, 0, 4, Registers);
    // The MWP-CWP worked example's 5 active blocks of 128 threads: W=4, warps 24/4 = 6,
    // regs 4*32*10 = 1280 -> 6; smem ceil(3000, 512) = 3072 -> 16384/3072 = 5.
    check("quadro-fx5600", 128, 10, 3000, 5, SharedMemory);
    // W=8; warps: 24/8 = 3; regs: 8*32*8 = 2048 -> 4.
    check("quadro-fx5600", 256, 8, 0, 3, Warps);
    // W=1 (rounded to 2 for registers); regs: 2*32*8 = 512 -> 16; warps 24; max 8.
    check("geforce-8800-gtx", 32, 8, 0, 8, Blocks);
    // CC 1.1: W=3 -> 4 for registers; regs: 4*32*20 = 2560 -> 8192/2560 = 3; warps 24/3 = 8.
    check("geforce-8800-gt", 96, 20, 0, 3, Registers);
}

#[test]
fn cc_1_3() {
    // GTX 280: 32 warps, 8 blocks, 16384 regs in 512-register units per block.
    // W=8; regs: 8*32*17 = 4352 -> ceil 512 = 4608 -> 16384/4608 = 3; warps 32/8 = 4.
    check("geforce-gtx-280", 256, 17, 0, 3, Registers);
    // W=2; regs: 2*32*10 = 640 -> 1024 -> 16; smem: 16384/4096 = 4; warps 16.
    check("geforce-gtx-280", 64, 10, 4096, 4, SharedMemory);
    // W=16; regs: 16*32*32 = 16384 -> 1; warps 32/16 = 2.
    check("geforce-gtx-280", 512, 32, 0, 1, Registers);
}

#[test]
fn cc_2_0() {
    // C2075: 48 warps, 8 blocks, 32768 regs, per-warp unit 64, warp granularity 2, smem unit 128.
    // W=8; regs/warp: 21*32 = 672 -> 704; 32768/704 = 46 warps (even) -> 46/8 = 5; warps 48/8 = 6.
    check("tesla-c2075", 256, 21, 0, 5, Registers);
    // W=6; smem: ceil(10000, 128) = 10112 -> 49152/10112 = 4; warps 8; max 8.
    check("tesla-c2075", 192, 0, 10000, 4, SharedMemory);
    // W=2; regs/warp 640 -> 51 warps -> 50 (granularity 2) -> 25; warps 24; max 8.
    check("tesla-c2075", 64, 20, 0, 8, Blocks);
}

#[test]
fn cc_3_0_and_5_0() {
    // GTX 680: 64 warps, 16 blocks, 63 regs/thread max.
    // W=4; regs/warp: 63*32 = 2016 -> 2048; 65536/2048 = 32 warps -> 8 blocks; warps 16.
    check("geforce-gtx-680", 128, 63, 0, 8, Registers);
    // W=2; regs/warp 512 -> 128 warps -> 64; warps 32; max 16.
    check("geforce-gtx-680", 64, 16, 0, 16, Blocks);
    // GTX 960M (5.0): 64 KB shared in 256-B units.
    // W=8; regs/warp 1024 -> 64 warps -> 8; smem: 65536/12288 = 5; warps 8.
    check("geforce-gtx-960m", 256, 32, 12288, 5, SharedMemory);
    // W=32; warps: 64/32 = 2.
    check("geforce-gtx-960m", 1024, 0, 0, 2, Warps);
}

#[test]
fn cc_6_0_warp_granularity_two() {
    // P100: two register sub-partitions (warp granularity 2).
    // W=7; regs/warp 40*32 = 1280; 65536/1280 = 51 -> 50 warps -> 50/7 = 7 (with
    // granularity 4 it would be 48/7 = 6); warps 64/7 = 9.
    check("tesla-p100-pcie-16gb", 224, 40, 0, 7, Registers);
}

#[test]
fn cc_7_0_and_7_5() {
    // V100: 96 KB shared, no reserved bytes, 256-B units.
    // W=8; regs/warp 2048 -> 32 warps -> 4; warps 8.
    check("tesla-v100-sxm2-16gb", 256, 64, 0, 4, Registers);
    // W=4; regs/warp 1024 -> 64 warps -> 16; smem: 98304/49152 = 2.
    check("tesla-v100-sxm2-16gb", 128, 32, 49152, 2, SharedMemory);
    // smem: ceil(8000, 256) = 8192 -> 12; regs 16; warps 16.
    check("tesla-v100-pcie-16gb", 128, 32, 8000, 12, SharedMemory);
    // T4: 32 warps, 16 blocks. W=8; warps 32/8 = 4; regs 64 warps -> 8.
    check("tesla-t4", 256, 32, 0, 4, Warps);
    // W=1; warps 32; regs/warp 512 -> 128; max 16.
    check("tesla-t4", 32, 16, 0, 16, Blocks);
}

#[test]
fn cc_8_0_8_6_8_9() {
    // A100: 1 KB reserved per block, 128-B units, 164 KB shared.
    // smem: 0 + 1024 -> 167936/1024 = 164; W=8; warps 64/8 = 8.
    check("a100-pcie-40gb", 256, 0, 0, 8, Warps);
    // smem: 40000 + 1024 = 41024 -> 41088 -> 167936/41088 = 4; regs/warp 768 -> 85 -> 84 warps -> 21; warps 16.
    check("a100-pcie-40gb", 128, 24, 40000, 4, SharedMemory);
    // W=1; regs 256 warps -> 256; smem 164; warps 64; max 32.
    check("a100-sxm4-80gb", 32, 8, 0, 32, Blocks);
    // RTX 3090 (8.6): 48 warps, 16 blocks. W=8; warps 48/8 = 6; regs 64 warps -> 8.
    check("geforce-rtx-3090", 256, 32, 0, 6, Warps);
    // W=4; regs/warp 72*32 = 2304 (9*256); 65536/2304 = 28 warps -> 7; warps 12.
    check("geforce-rtx-3090", 128, 72, 0, 7, Registers);
    // RTX 4090 (8.9): 48 warps, 24 blocks. W=1; warps 48; regs 64; smem 100; max 24.
    check("geforce-rtx-4090", 32, 32, 0, 24, Blocks);
    // smem: 20000 + 1024 = 21024 -> 21120 -> 102400/21120 = 4; warps 48/8 = 6.
    check("geforce-rtx-4090", 256, 0, 20000, 4, SharedMemory);
}

#[test]
fn cc_9_0() {
    // H100: 228 KB shared, 1 KB reserved, 128-B units.
    // smem: 49152 + 1024 = 50176 -> 233472/50176 = 4; warps 16.
    check("h100-sxm5-80gb", 128, 0, 49152, 4, SharedMemory);
    // W=32; regs/warp 2048 -> 32 warps -> 1; warps 64/32 = 2.
    check("h100-pcie-80gb", 1024, 64, 0, 1, Registers);
    // W=3; regs/warp 168*32 = 5376 (21*256); 65536/5376 = 12 warps -> 4; warps 21.
    check("h200-sxm-141gb", 96, 168, 0, 4, Registers);
}

#[test]
fn carveout_is_the_smallest_that_keeps_the_blocks() {
    let check = |gpu, threads, regs, smem, carveout_kib: Option<u64>, occupancy: f64| {
        let o = run(gpu, threads, regs, smem).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(o.carveout_bytes, carveout_kib.map(|k| k * 1024), "{o:?}");
        assert_eq!(o.occupancy, occupancy, "{o:?}");
    };
    // 2 blocks x 49152 = 96 KB: the largest carve-out; 8 of 64 warps.
    check("tesla-v100-sxm2-16gb", 128, 32, 49152, Some(96), 0.125);
    // 16 blocks x 1024 = 16 KB -> the 16 KB carve-out; 64 of 64 warps.
    check("tesla-v100-sxm2-16gb", 128, 32, 1000, Some(16), 1.0);
    // 4 x 41088 = 164352 B > 132 KB -> 164 KB.
    check("a100-pcie-40gb", 128, 24, 40000, Some(164), 0.25);
    // 4 x 50176 = 200704 B = 196 KB exactly.
    check("h100-sxm5-80gb", 128, 0, 49152, Some(196), 0.25);
    // 8 blocks x 1024 reserved = 8 KB.
    check("a100-pcie-40gb", 256, 0, 0, Some(8), 1.0);
    // Fixed shared memory (5.0): no carve-out.
    check("geforce-gtx-960m", 1024, 0, 0, None, 1.0);
}

#[test]
fn ties_are_all_listed() {
    // FX5600, W=4: warps 24/4 = 6; regs 4*32*10 = 1280 -> 6: both limit.
    let o = run("quadro-fx5600", 128, 10, 0).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.limiters, vec![Warps, Registers]);
    assert_eq!(o.limiter, Warps);
}

#[test]
fn unlaunchable_launches_are_errors() {
    let check = |gpu, threads, regs, smem, contains: &str| match run(gpu, threads, regs, smem) {
        Err(e @ ArchError::Unlaunchable { .. }) => {
            assert!(e.to_string().contains(contains), "{e}")
        }
        other => panic!("{gpu} {threads}/{regs}/{smem}: {other:?}"),
    };
    check("geforce-gtx-280", 513, 8, 0, "threads per block");
    check("geforce-gtx-280", 0, 8, 0, "threads per block");
    check("geforce-gtx-680", 128, 64, 0, "registers per thread");
    check("tesla-t4", 128, 16, 65537, "shared memory");
    // CC 1.0 per-block registers: 16 warps * 32 * 20 = 10240 > 8192.
    check("quadro-fx5600", 512, 20, 0, "registers per block");
    // Shared within the opt-in limit but the 1 KB reserve makes it exceed the SM:
    // A100 166912 + 1024 = 167936 fits exactly (1 block); H100 opt-in 232448 + 1024 = 233472 fits.
    assert!(run("a100-pcie-40gb", 128, 16, 166_912).is_ok());
    assert!(run("h100-sxm5-80gb", 128, 16, 232_448).is_ok());
}
