//! Reconvergence policies agree on outputs; parallel CTAs give the
//! sequential bytes; the observer sees what the counters count.

mod common;
use common::*;

use emu::exec::{LaunchOptions, launch};
use emu::observer::{AccessKind, BranchEvent, MemEvent, Observer, Site};
use emu::simt::Mask;
use emu::simt::stack::Policy;

/// Kernels with barriers, divergence inside loops, early exits and calls.
const KERNELS: [&str; 14] = [
    "fold_reduce",
    "scan_block",
    "scan_blelloch",
    "histogram_shared",
    "matmul_tiled",
    "transpose_tiled",
    "radix_shared",
    "radix_tree",
    "stencil_ns",
    "divergence",
    "early_return",
    "device_calls",
    "local_memory",
    "list_ranking",
];

#[test]
fn both_policies_give_the_same_outputs() {
    for name in KERNELS {
        let a = run_policy(name, &[], Policy::Ipdom);
        let b = run_policy(name, &[], Policy::Barrier);
        assert_eq!(a.buffers, b.buffers, "{name}");
        assert_eq!(a.printf, b.printf, "{name}");
        // Reconverging only at barriers never issues fewer warp instructions (Kerr et al., Figure 4).
        assert!(
            b.stats.warp_instructions >= a.stats.warp_instructions,
            "{name}: {:?} vs {:?}",
            b.stats,
            a.stats
        );
    }
    let a = run_policy("divergence", &[], Policy::Ipdom);
    let b = run_policy("divergence", &[], Policy::Barrier);
    assert!(
        b.stats.warp_instructions > a.stats.warp_instructions,
        "barrier policy splits warps for longer"
    );
}

#[test]
fn parallel_ctas_match_sequential_bytes() {
    for name in [
        "matmul_tiled",
        "map",
        "histogram_shared",
        "printf_kernel",
        "divergence",
        "conv2d",
        "syrk",
    ] {
        let s = spec(name, &[]);
        let seq = run_with(name, &s, LaunchOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        let par = run_with(
            name,
            &s,
            LaunchOptions {
                parallel: true,
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(seq.buffers, par.buffers, "{name}");
        assert_eq!(seq.printf, par.printf, "{name}");
        assert_eq!(
            seq.stats.thread_instructions, par.stats.thread_instructions,
            "{name}"
        );
        assert!(!par.stats.ran_sequentially, "{name}");
    }
    // Global atomics: parallel mode falls back to sequential, and says so.
    let s = spec("atomics_global", &[]);
    let par = run_with(
        "atomics_global",
        &s,
        LaunchOptions {
            parallel: true,
            ..Default::default()
        },
    )
    .expect("runs");
    let seq = run_with("atomics_global", &s, LaunchOptions::default()).expect("runs");
    assert!(par.stats.ran_sequentially);
    assert_eq!(par.buffers, seq.buffers);
}

#[test]
fn runs_are_repeatable() {
    let a = run("atomics_global", &[]);
    let b = run("atomics_global", &[]);
    assert_eq!(a.buffers, b.buffers);
    assert_eq!(a.stats, b.stats);
}

#[derive(Default)]
struct Counter {
    warp_instructions: u64,
    thread_instructions: u64,
    loads: u64,
    stores: u64,
    load_lanes: u64,
    branches: u64,
    divergent: u64,
    max_depth: u32,
    ctas: u32,
}

impl Observer for Counter {
    fn instruction(&mut self, _site: Site, active: Mask) {
        self.warp_instructions += 1;
        self.thread_instructions += active.count_ones() as u64;
    }
    fn memory(&mut self, e: &MemEvent<'_>) {
        match e.kind {
            AccessKind::Load => {
                self.loads += 1;
                self.load_lanes += e.active.count_ones() as u64;
            }
            AccessKind::Store => self.stores += 1,
            AccessKind::Atomic => {}
        }
    }
    fn branch(&mut self, e: &BranchEvent) {
        self.branches += 1;
        self.divergent += e.divergent as u64;
    }
    fn stack_depth(&mut self, _cta: u32, _warp: u32, depth: u32) {
        self.max_depth = self.max_depth.max(depth);
    }
    fn cta_end(&mut self, _cta: u32) {
        self.ctas += 1;
    }
}

fn observe(name: &str) -> (Counter, emu::exec::LaunchResult) {
    let (text, file) = ptx(name);
    let module = ptx::parse(&file, &text).expect("parses");
    let s = spec(name, &[]);
    let mut c = Counter::default();
    let r = launch(&module, &text, &file, &s, LaunchOptions::default(), &mut c).expect("runs");
    (c, r)
}

#[test]
fn observer_sees_the_launch() {
    let (c, r) = observe("map");
    assert_eq!(c.warp_instructions, r.stats.warp_instructions);
    assert_eq!(c.thread_instructions, r.stats.thread_instructions);
    assert_eq!(c.ctas, 8);
    // 4096 elements, one load of x and one store of out each, in full warps.
    assert_eq!(
        c.load_lanes,
        4096 + 3 * 1024,
        "x loads plus the three ld.param per thread"
    );
    assert_eq!(c.stores, 4096 / 32);
    assert_eq!(c.divergent, 0, "map has no divergence");
    let (d, _) = observe("divergence");
    assert!(d.divergent > 0 && d.divergent < d.branches);
    assert!(d.max_depth >= 3, "nested divergence pushes the stack");
}

/// One module, several kernels: `plain` stores, `counts` calls a function
/// that does a global atomic, `through_pointer` calls a store through a
/// function pointer. Only what a kernel can run decides whether its CTAs
/// run in parallel.
const SEVERAL_KERNELS: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .func bump(.param .b64 bump_p)
{
    .reg .b64 %rd<2>;
    .reg .b32 %r<2>;
    ld.param.u64 %rd1, [bump_p];
    atom.global.add.u32 %r1, [%rd1], 1;
    ret;
}

.visible .func put(.param .b64 put_p)
{
    .reg .b64 %rd<2>;
    .reg .b32 %r<2>;
    ld.param.u64 %rd1, [put_p];
    mov.u32 %r1, 7;
    st.global.u32 [%rd1], %r1;
    ret;
}

.visible .entry plain(.param .u64 out)
{
    .reg .b64 %rd<4>;
    .reg .b32 %r<2>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %ctaid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r1;
    ret;
}

.visible .entry counts(.param .u64 out)
{
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd2;
    call.uni bump, (param0);
    }
    ret;
}

.visible .entry through_pointer(.param .u64 out)
{
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u64 %rd3, put;
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd2;
    prototype_0 : .callprototype ()_ (.param .b64 _);
    call %rd3, (param0), prototype_0;
    }
    ret;
}
"#;

fn run_kernel_of_module(kernel: &str) -> emu::exec::LaunchResult {
    let spec_text = format!(
        "source = \"k.ptx\"\nkernel = \"{kernel}\"\ngrid = [8]\nblock = [32]\n\
         [[arg]]\nname = \"out\"\ntype = \"u32*\"\nlen = 8\n"
    );
    let spec = emu::spec::parse(&spec_text, std::path::Path::new("/k.toml"), &[])
        .unwrap_or_else(|e| panic!("{e}"));
    emu::exec::run_ptx(
        SEVERAL_KERNELS,
        "k.ptx",
        &spec,
        LaunchOptions {
            parallel: true,
            ..Default::default()
        },
        &mut emu::observer::NoObserver,
    )
    .unwrap_or_else(|e| panic!("{kernel}: {e}"))
}

#[test]
fn another_kernels_atomics_do_not_make_a_launch_sequential() {
    let plain = run_kernel_of_module("plain");
    assert!(!plain.stats.ran_sequentially);
    assert_eq!(u32s(buffer(&plain, "out")), (0..8).collect::<Vec<u32>>());
    // An atomic in a callee counts; so does any function behind a pointer.
    let counts = run_kernel_of_module("counts");
    assert!(counts.stats.ran_sequentially);
    assert_eq!(u32s(buffer(&counts, "out"))[0], 8 * 32);
    let through = run_kernel_of_module("through_pointer");
    assert!(through.stats.ran_sequentially);
    assert_eq!(u32s(buffer(&through, "out"))[0], 7);
}
