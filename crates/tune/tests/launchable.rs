//! Launchability on hand-checked cases (limits from gpus/*.toml: the GTX 280
//! is CC 1.3 with 512 threads, 16 KB shared, 16384 registers per block; the
//! A100 is CC 8.0 with 1024 threads, 48 KB static / 163 KB opt-in shared,
//! 65536 registers).

use arch::{Catalog, Gpu, Limiter};
use tune::{Candidate, Config, LaunchDims, Rejection, Resources, check_launch, filter_launchable};

fn gpu(id: &str) -> Gpu {
    Catalog::bundled()
        .expect("bundled catalog")
        .get(id)
        .expect(id)
        .clone()
}

const GT200: &str = "geforce-gtx-280";
const A100: &str = "a100-pcie-40gb";

fn dims(block: [u64; 3], grid: Option<[u64; 3]>) -> LaunchDims {
    LaunchDims {
        grid,
        block,
        dynamic_shared_bytes: 0,
    }
}

fn res(regs: u32, static_smem: u64, dynamic_smem: u64) -> Resources {
    Resources {
        registers_per_thread: regs,
        static_shared_bytes: static_smem,
        dynamic_shared_bytes: dynamic_smem,
    }
}

fn rejected(id: &str, block: [u64; 3], grid: Option<[u64; 3]>, r: Resources, expected: Rejection) {
    let got = check_launch(&gpu(id), &dims(block, grid), &r);
    assert_eq!(
        got.map(|o| o.active_blocks_per_sm),
        Err(expected),
        "{id} {block:?}"
    );
}

/// Launchable with `blocks` resident blocks limited by `limiter`.
fn accepted(id: &str, block: [u64; 3], r: Resources, blocks: u32, limiter: Limiter) {
    let o = check_launch(&gpu(id), &dims(block, Some([1, 1, 1])), &r)
        .unwrap_or_else(|e| panic!("{id} {block:?}: {e}"));
    assert_eq!(
        (o.active_blocks_per_sm, o.limiter),
        (blocks, limiter),
        "{id} {block:?}"
    );
}

#[test]
fn block_shapes() {
    // 32x32 = 1024 threads, above CC 1.3's 512.
    rejected(
        GT200,
        [32, 32, 1],
        None,
        res(0, 0, 0),
        Rejection::ThreadsPerBlock {
            threads: 1024,
            max: 512,
        },
    );
    rejected(
        GT200,
        [1024, 1, 1],
        None,
        res(0, 0, 0),
        Rejection::BlockDimension {
            dim: 0,
            size: 1024,
            max: 512,
        },
    );
    rejected(
        A100,
        [1, 1, 128],
        None,
        res(0, 0, 0),
        Rejection::BlockDimension {
            dim: 2,
            size: 128,
            max: 64,
        },
    );
    rejected(
        A100,
        [32, 0, 1],
        None,
        res(0, 0, 0),
        Rejection::BlockDimension {
            dim: 1,
            size: 0,
            max: 1024,
        },
    );
    // 32x32 fits the A100: 2 blocks of 32 warps fill its 64.
    accepted(A100, [32, 32, 1], res(0, 0, 0), 2, Limiter::Warps);
    // 16x16 on the GTX 280: 8 warps per block, 32 warps per SM -> 4 blocks.
    accepted(GT200, [16, 16, 1], res(0, 0, 0), 4, Limiter::Warps);
}

#[test]
fn grid_shapes() {
    // CC 1.x grids are two-dimensional and at most 65535 wide.
    rejected(
        GT200,
        [64, 1, 1],
        Some([4, 4, 2]),
        res(0, 0, 0),
        Rejection::GridDimension {
            dim: 2,
            size: 2,
            max: 1,
        },
    );
    rejected(
        GT200,
        [64, 1, 1],
        Some([70000, 1, 1]),
        res(0, 0, 0),
        Rejection::GridDimension {
            dim: 0,
            size: 70000,
            max: 65535,
        },
    );
    let ok = check_launch(
        &gpu(A100),
        &dims([64, 1, 1], Some([70000, 1, 1])),
        &res(0, 0, 0),
    );
    assert!(ok.is_ok(), "{ok:?}");
}

#[test]
fn registers() {
    rejected(
        GT200,
        [64, 1, 1],
        None,
        res(128, 0, 0),
        Rejection::RegistersPerThread {
            registers: 128,
            max: 124,
        },
    );
    // 256 threads x 32 registers on CC 1.3: 8 warps * 32 * 32 = 8192 per
    // block, 16384 per SM -> 2 blocks, registers the limiter.
    accepted(GT200, [256, 1, 1], res(32, 0, 0), 2, Limiter::Registers);
    // 512 threads x 40 registers = 20480 > 16384 per block.
    let got = check_launch(&gpu(GT200), &dims([512, 1, 1], None), &res(40, 0, 0));
    match got {
        Err(Rejection::NoActiveBlock { detail }) => {
            assert!(detail.contains("registers"), "{detail}")
        }
        other => panic!("{other:?}"),
    }
    // 1024 threads need at most 64 registers on the A100.
    accepted(A100, [1024, 1, 1], res(64, 0, 0), 1, Limiter::Registers);
    let got = check_launch(&gpu(A100), &dims([1024, 1, 1], None), &res(65, 0, 0));
    assert!(
        matches!(got, Err(Rejection::NoActiveBlock { .. })),
        "{got:?}"
    );
}

#[test]
fn shared_memory() {
    rejected(
        GT200,
        [64, 1, 1],
        None,
        res(0, 17000, 0),
        Rejection::StaticSharedMemory {
            bytes: 17000,
            max: 16384,
        },
    );
    rejected(
        GT200,
        [64, 1, 1],
        None,
        res(0, 8000, 9000),
        Rejection::SharedMemory {
            bytes: 17000,
            max: 16384,
        },
    );
    // Static shared memory may not use the A100's opt-in; dynamic may.
    rejected(
        A100,
        [64, 1, 1],
        None,
        res(0, 50000, 0),
        Rejection::StaticSharedMemory {
            bytes: 50000,
            max: 49152,
        },
    );
    accepted(
        A100,
        [64, 1, 1],
        res(0, 0, 100_000),
        1,
        Limiter::SharedMemory,
    );
    rejected(
        A100,
        [64, 1, 1],
        None,
        res(0, 40000, 130_000),
        Rejection::SharedMemory {
            bytes: 170_000,
            max: 166_912,
        },
    );
    // 8 KB per block on the GTX 280 (16 KB per SM, 512-byte units): 2 blocks.
    accepted(GT200, [64, 1, 1], res(0, 8192, 0), 2, Limiter::SharedMemory);
}

#[test]
fn filtering_keeps_order_and_reasons() {
    let candidate = |i: u64, x: u64, y: u64, smem: u64| Candidate {
        config: Config {
            index: i,
            values: Vec::new(),
        },
        dims: dims([x, y, 1], None),
        resources: res(16, smem, 0),
    };
    let f = filter_launchable(
        &gpu(GT200),
        vec![
            candidate(0, 8, 8, 0),
            candidate(1, 32, 32, 0),
            candidate(2, 16, 16, 0),
            candidate(3, 16, 16, 20000),
            candidate(4, 64, 16, 0),
        ],
    );
    let kept: Vec<u64> = f
        .launchable
        .iter()
        .map(|l| l.candidate.config.index)
        .collect();
    assert_eq!(kept, [0, 2]);
    let kinds: Vec<(u64, &str)> = f
        .rejected
        .iter()
        .map(|(c, r)| (c.config.index, r.kind()))
        .collect();
    assert_eq!(
        kinds,
        [
            (1, "threads_per_block"),
            (3, "static_shared_memory"),
            (4, "threads_per_block")
        ]
    );
    assert_eq!(
        f.rejected_by_kind(),
        [("static_shared_memory", 1), ("threads_per_block", 2)]
    );
    assert_eq!(
        f.rejected[0].1.to_string(),
        "1024 threads per block (at most 512)"
    );
}
