//! One test per fault class: each asserts the fault kind, the faulting
//! thread and CTA, and the PTX line and instruction text it names.

use std::path::Path;

use emu::exec::{LaunchOptions, RunError, run_ptx};
use emu::fault::{Fault, FaultKind};
use emu::mem::{MemFaultKind, Space};
use emu::observer::NoObserver;
use emu::simt::stack::Policy;

const HEAD: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

fn spec(grid: u32, block: u32, extra: &str) -> emu::spec::LaunchSpec {
    let text = format!(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [{grid}]\nblock = [{block}]\n{extra}\
         [[arg]]\nname = \"buf\"\ntype = \"u32*\"\nlen = 64\n"
    );
    emu::spec::parse(&text, Path::new("k.toml"), &[]).expect("spec parses")
}

/// Run `body` (a kernel `k(.param .u64 buf)` with %r, %rd, %p registers) and return its fault.
fn fault_of(body: &str, grid: u32, block: u32, extra: &str, policy: Policy) -> (Fault, String) {
    let ptx = format!(
        "{HEAD}.visible .entry k(.param .u64 buf)\n{{\n.reg .b32 %r<16>;\n.reg .b64 %rd<16>;\n.reg .pred %p<8>;\n\
         ld.param.u64 %rd1, [buf];\ncvta.to.global.u64 %rd1, %rd1;\nmov.u32 %r1, %tid.x;\n{body}\nret;\n}}\n"
    );
    let s = spec(grid, block, extra);
    match run_ptx(
        &ptx,
        "k.ptx",
        &s,
        LaunchOptions {
            policy,
            ..Default::default()
        },
        &mut NoObserver,
    ) {
        Err(RunError::Fault(f)) => (*f, ptx),
        Err(RunError::Parse(p)) => panic!("PTX does not parse:\n{p}\n{ptx}"),
        Ok(_) => panic!("no fault:\n{ptx}"),
    }
}

/// The 1-based line of the first line of `ptx` containing `needle`.
fn line_of(ptx: &str, needle: &str) -> u32 {
    ptx.lines()
        .position(|l| l.contains(needle))
        .map(|i| i as u32 + 1)
        .expect("needle in PTX")
}

fn check_site(f: &Fault, ptx: &str, needle: &str, thread: [u32; 3], cta: [u32; 3]) {
    let site = f.site.as_ref().expect("fault has a site");
    assert_eq!(site.file, "k.ptx");
    assert_eq!(site.line, line_of(ptx, needle), "{f}");
    assert!(
        site.instruction
            .contains(needle.split_whitespace().next().unwrap_or(needle)),
        "{f}"
    );
    assert_eq!(site.function, "k");
    assert_eq!((f.thread, f.cta), (thread, cta), "{f}");
    let msg = f.to_string();
    assert!(
        msg.starts_with(&format!("k.ptx:{}: error: kernel fault in CTA", site.line)),
        "{msg}"
    );
}

#[test]
fn out_of_bounds_global_load() {
    // Thread t reads buf[t + 60]: threads 4.. run past the 64 elements.
    let body = "add.u32 %r2, %r1, 60;\nmul.wide.u32 %rd2, %r2, 4;\nadd.s64 %rd3, %rd1, %rd2;\nld.global.u32 %r3, [%rd3];";
    let (f, ptx) = fault_of(body, 2, 32, "", Policy::Ipdom);
    check_site(&f, &ptx, "ld.global.u32", [4, 0, 0], [0, 0, 0]);
    let FaultKind::Memory(m) = &f.kind else {
        panic!("{f}")
    };
    assert_eq!(
        (m.space, m.kind, m.write),
        (Space::Global, MemFaultKind::OutOfBounds, false)
    );
    assert_eq!(m.nearest.as_ref().map(|n| n.name.as_str()), Some("buf"));
    assert!(
        f.to_string().contains("0 bytes past the end of `buf`"),
        "{f}"
    );
}

#[test]
fn out_of_bounds_store_in_second_cta() {
    // Global index ctaid*32 + tid; CTA 2 (threads 64..95) writes past the end.
    let body = "mov.u32 %r4, %ctaid.x;\nmad.lo.s32 %r2, %r4, 32, %r1;\nmul.wide.u32 %rd2, %r2, 4;\n\
                add.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r1;";
    let (f, ptx) = fault_of(body, 3, 32, "", Policy::Ipdom);
    check_site(&f, &ptx, "st.global.u32", [0, 0, 0], [2, 0, 0]);
    let FaultKind::Memory(m) = &f.kind else {
        panic!("{f}")
    };
    assert!(m.write);
}

#[test]
fn misaligned_access() {
    let body = "add.s64 %rd3, %rd1, 2;\nld.global.u32 %r3, [%rd3];";
    let (f, ptx) = fault_of(body, 1, 32, "", Policy::Ipdom);
    check_site(&f, &ptx, "ld.global.u32", [0, 0, 0], [0, 0, 0]);
    let FaultKind::Memory(m) = &f.kind else {
        panic!("{f}")
    };
    assert_eq!(m.kind, MemFaultKind::Misaligned { align: 4 });
}

#[test]
fn shared_out_of_bounds() {
    // 32 threads, 8-byte stride, a 128-byte dynamic shared region: thread 16 is the first out.
    let body = "mul.lo.u32 %r2, %r1, 8;\ncvt.u64.u32 %rd5, %r2;\nst.shared.u32 [%rd5], %r1;";
    let (f, ptx) = fault_of(body, 1, 32, "dynamic_shared = 128\n", Policy::Ipdom);
    check_site(&f, &ptx, "st.shared.u32", [16, 0, 0], [0, 0, 0]);
    let FaultKind::Memory(m) = &f.kind else {
        panic!("{f}")
    };
    assert_eq!(
        (m.space, m.kind),
        (Space::Shared, MemFaultKind::OutOfBounds)
    );
}

#[test]
fn divergent_barrier() {
    let body =
        "setp.lt.u32 %p1, %r1, 16;\n@%p1 bra SKIP;\nbar.sync 0;\nSKIP:\nadd.u32 %r2, %r1, 1;";
    let (f, ptx) = fault_of(body, 1, 32, "", Policy::Ipdom);
    check_site(&f, &ptx, "bar.sync 0", [16, 0, 0], [0, 0, 0]);
    assert!(
        matches!(
            f.kind,
            FaultKind::DivergentBarrier {
                barrier: 0,
                active: 0xffff_0000,
                live: u32::MAX
            }
        ),
        "{f}"
    );
}

#[test]
fn barrier_deadlock() {
    // Warp 0 waits on barrier 0, warp 1 on barrier 1: neither completes.
    let body = "setp.lt.u32 %p1, %r1, 32;\n@%p1 bra W0;\nbar.sync 1;\nbra.uni DONE;\nW0:\nbar.sync 0;\nDONE:\nadd.u32 %r2, %r1, 1;";
    for policy in [Policy::Ipdom, Policy::Barrier] {
        let (f, ptx) = fault_of(body, 1, 64, "", policy);
        check_site(&f, &ptx, "bar.sync 0", [0, 0, 0], [0, 0, 0]);
        assert!(
            matches!(
                f.kind,
                FaultKind::Deadlock {
                    barrier: 0,
                    arrived: 32,
                    expected: 64
                }
            ),
            "{f}"
        );
    }
}

#[test]
fn trap_and_breakpoint() {
    let body = "setp.eq.u32 %p1, %r1, 7;\n@%p1 trap;";
    let (f, ptx) = fault_of(body, 1, 32, "", Policy::Ipdom);
    check_site(&f, &ptx, "trap", [7, 0, 0], [0, 0, 0]);
    assert_eq!(f.kind, FaultKind::Trap);
    assert!(f.to_string().contains("the kernel aborted itself"), "{f}");
    let body = "setp.eq.u32 %p1, %r1, 9;\n@%p1 brkpt;";
    let (f, ptx) = fault_of(body, 1, 32, "", Policy::Ipdom);
    check_site(&f, &ptx, "brkpt", [9, 0, 0], [0, 0, 0]);
    assert_eq!(f.kind, FaultKind::Breakpoint);
}

#[test]
fn runaway_kernel_runs_out_of_fuel() {
    let body = "LOOP:\nadd.u32 %r2, %r2, 1;\nbra.uni LOOP;";
    let (f, ptx) = fault_of(body, 1, 32, "fuel = 1000\n", Policy::Ipdom);
    assert_eq!(f.kind, FaultKind::FuelExhausted { budget: 1000 });
    let site = f.site.as_ref().expect("site");
    assert!(
        site.line == line_of(&ptx, "add.u32 %r2") || site.line == line_of(&ptx, "bra.uni LOOP"),
        "{f}"
    );
    assert_eq!(f.thread, [0, 0, 0]);
}

#[test]
fn default_fuel_stops_a_stuck_kernel() {
    // No fuel key: the default budget applies (checked, not timed).
    let body = "LOOP:\nbra.uni LOOP;";
    let (f, _) = fault_of(body, 1, 1, "", Policy::Ipdom);
    assert_eq!(
        f.kind,
        FaultKind::FuelExhausted {
            budget: emu::simt::DEFAULT_WARP_FUEL
        }
    );
}

#[test]
fn call_stack_overflow() {
    let ptx = format!(
        "{HEAD}.func rec(.param .b32 x)\n{{\n.reg .b32 %r<4>;\nld.param.b32 %r1, [x];\n{{\n.param .b32 a;\nst.param.b32 [a], %r1;\ncall rec, (a);\n}}\nret;\n}}\n\
         .visible .entry k(.param .u64 buf)\n{{\n.reg .b32 %r<4>;\n{{\n.param .b32 a;\nst.param.b32 [a], %r1;\ncall rec, (a);\n}}\nret;\n}}\n"
    );
    let s = spec(1, 32, "");
    let Err(RunError::Fault(f)) =
        run_ptx(&ptx, "k.ptx", &s, LaunchOptions::default(), &mut NoObserver)
    else {
        panic!("expected a fault")
    };
    assert!(
        matches!(f.kind, FaultKind::CallStackOverflow { depth: 256 }),
        "{f}"
    );
    let site = f.site.as_ref().expect("site");
    assert_eq!(site.function, "rec");
    assert_eq!(site.line, line_of(&ptx, "call rec, (a);"));
    assert_eq!(f.thread, [0, 0, 0]);
}

#[test]
fn launch_errors() {
    let ptx = format!("{HEAD}.visible .entry k(.param .u64 buf)\n{{\nret;\n}}\n");
    let mut s = spec(1, 32, "");
    s.kernel = "nope".into();
    let Err(RunError::Fault(f)) =
        run_ptx(&ptx, "k.ptx", &s, LaunchOptions::default(), &mut NoObserver)
    else {
        panic!("expected a launch error")
    };
    assert!(
        matches!(&f.kind, FaultKind::Launch(m) if m.contains("no kernel `nope`") && m.contains("kernels: k")),
        "{f}"
    );
    let s = spec(
        1,
        32,
        "[[arg]]\nname = \"extra\"\ntype = \"u32\"\nvalue = 1\n",
    );
    let Err(RunError::Fault(f)) =
        run_ptx(&ptx, "k.ptx", &s, LaunchOptions::default(), &mut NoObserver)
    else {
        panic!("expected a launch error")
    };
    assert!(
        f.to_string()
            .contains("takes 1 parameters, the spec gives 2"),
        "{f}"
    );
    let Err(RunError::Parse(p)) = run_ptx(
        "not ptx",
        "k.ptx",
        &spec(1, 1, ""),
        LaunchOptions::default(),
        &mut NoObserver,
    ) else {
        panic!("expected a parse error")
    };
    assert!(p.contains("k.ptx:1:"), "{p}");
}

/// Warp 0 spins on a shared flag that warp 1 sets after a long loop: the
/// time-sliced scheduler lets warp 1 run, so the kernel finishes (no fuel fault).
#[test]
fn spin_wait_between_warps_makes_progress() {
    let body = "setp.ge.u32 %p1, %r1, 32;\n@%p1 bra PRODUCER;\n\
                SPIN:\nld.volatile.shared.u32 %r3, [0];\nsetp.eq.u32 %p2, %r3, 0;\n@%p2 bra SPIN;\nbra.uni DONE;\n\
                PRODUCER:\nmov.u32 %r4, 0;\nLOOP:\nadd.u32 %r4, %r4, 1;\nsetp.lt.u32 %p3, %r4, 20000;\n@%p3 bra LOOP;\n\
                st.volatile.shared.u32 [0], %r4;\nDONE:\nadd.u32 %r5, %r1, 1;";
    let ptx = format!(
        "{HEAD}.visible .entry k(.param .u64 buf)\n{{\n.reg .b32 %r<16>;\n.reg .b64 %rd<16>;\n.reg .pred %p<8>;\n\
         mov.u32 %r1, %tid.x;\n{body}\nret;\n}}\n"
    );
    let s = spec(1, 64, "dynamic_shared = 4\nfuel = 200000\n");
    let r = run_ptx(&ptx, "k.ptx", &s, LaunchOptions::default(), &mut NoObserver);
    assert!(r.is_ok(), "{:?}", r.err().map(|e| e.to_string()));
}
