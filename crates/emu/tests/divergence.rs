//! Hand-written PTX for the divergence shapes the reconvergence machinery
//! must get right, each run under both policies against a CPU reference:
//! divergence inside a loop with barriers outside the divergent region,
//! nested divergence with an early return, and a loop with break and continue.

use std::path::Path;

use emu::exec::{LaunchOptions, run_ptx};
use emu::observer::NoObserver;
use emu::simt::stack::Policy;

const HEAD: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

fn run(body: &str, threads: u32, shared: u32) -> Vec<Vec<i32>> {
    let ptx = format!(
        "{HEAD}.visible .entry k(.param .u64 out)\n{{\n.reg .b32 %r<32>;\n.reg .b64 %rd<8>;\n.reg .pred %p<8>;\n\
         .shared .align 4 .b8 sm[{shared}];\n\
         ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\nmov.u32 %r1, %tid.x;\n\
         mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\n{body}\nret;\n}}\n"
    );
    let spec_text = format!(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [{threads}]\n[[arg]]\nname = \"out\"\ntype = \"i32*\"\nlen = {threads}\ninit = {{ fill = -99 }}\n"
    );
    let spec = emu::spec::parse(&spec_text, Path::new("k.toml"), &[]).expect("spec");
    [Policy::Ipdom, Policy::Barrier]
        .into_iter()
        .map(|policy| {
            let r = run_ptx(
                &ptx,
                "k.ptx",
                &spec,
                LaunchOptions {
                    policy,
                    ..Default::default()
                },
                &mut NoObserver,
            )
            .unwrap_or_else(|e| panic!("{policy:?}: {e}\n{ptx}"));
            r.buffers[0]
                .bytes
                .chunks_exact(4)
                .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        })
        .collect()
}

/// for k in 0..4 { if tid odd { v += 2k } else { v -= 1 }; s[tid] = v; sync; v += s[(tid+1) % n]; sync }
#[test]
fn divergence_in_a_loop_with_barriers_outside() {
    let body = "mov.u32 %r2, 0;\nmov.u32 %r3, 0;\n\
        LOOP:\nand.b32 %r4, %r1, 1;\nsetp.eq.u32 %p1, %r4, 0;\n@%p1 bra EVEN;\n\
        shl.b32 %r5, %r2, 1;\nadd.s32 %r3, %r3, %r5;\nbra.uni JOIN;\n\
        EVEN:\nsub.s32 %r3, %r3, 1;\n\
        JOIN:\nmov.u32 %r6, sm;\nshl.b32 %r7, %r1, 2;\nadd.u32 %r8, %r6, %r7;\nst.shared.u32 [%r8], %r3;\nbar.sync 0;\n\
        add.u32 %r9, %r1, 1;\nrem.u32 %r9, %r9, 64;\nshl.b32 %r9, %r9, 2;\nadd.u32 %r9, %r6, %r9;\nld.shared.u32 %r10, [%r9];\n\
        add.s32 %r3, %r3, %r10;\nbar.sync 0;\n\
        add.u32 %r2, %r2, 1;\nsetp.lt.u32 %p2, %r2, 4;\n@%p2 bra LOOP;\nst.global.u32 [%rd3], %r3;";
    let mut v = vec![0i32; 64];
    for k in 0..4 {
        for (t, x) in v.iter_mut().enumerate() {
            *x += if t % 2 == 1 { 2 * k } else { -1 };
        }
        let s = v.clone();
        for (t, x) in v.iter_mut().enumerate() {
            *x += s[(t + 1) % 64];
        }
    }
    for out in run(body, 64, 256) {
        assert_eq!(out, v);
    }
}

/// Nested divergence with an early return: tid % 3 == 0 returns at once;
/// the rest split on tid % 2, and the odd ones again on tid % 5.
#[test]
fn nested_divergence_with_early_return() {
    let body = "rem.u32 %r2, %r1, 3;\nsetp.eq.u32 %p1, %r2, 0;\n@%p1 bra OUT;\n\
        and.b32 %r3, %r1, 1;\nsetp.eq.u32 %p2, %r3, 0;\n@%p2 bra EVEN;\n\
        rem.u32 %r4, %r1, 5;\nsetp.eq.u32 %p3, %r4, 0;\n@%p3 bra FIVE;\nmov.u32 %r5, 1;\nbra.uni INNER;\n\
        FIVE:\nmov.u32 %r5, 2;\n\
        INNER:\nadd.u32 %r5, %r5, 10;\nbra.uni DONE;\n\
        EVEN:\nmov.u32 %r5, 3;\n\
        DONE:\nmul.lo.u32 %r5, %r5, 100;\nadd.u32 %r5, %r5, %r1;\nst.global.u32 [%rd3], %r5;\n\
        OUT:";
    let want: Vec<i32> = (0..64)
        .map(|t| {
            if t % 3 == 0 {
                -99
            } else if t % 2 == 0 {
                300 + t
            } else if t % 5 == 0 {
                1200 + t
            } else {
                1100 + t
            }
        })
        .collect();
    for out in run(body, 64, 4) {
        assert_eq!(out, want);
    }
}

/// i counts up; skip (continue) multiples of 3, leave (break) when the sum passes tid.
#[test]
fn loop_with_break_and_continue() {
    let body = "mov.u32 %r2, 0;\nmov.u32 %r3, 0;\n\
        LOOP:\nadd.u32 %r2, %r2, 1;\nsetp.gt.u32 %p4, %r2, 40;\n@%p4 bra END;\n\
        rem.u32 %r4, %r2, 3;\nsetp.eq.u32 %p1, %r4, 0;\n@%p1 bra LOOP;\n\
        add.u32 %r3, %r3, %r2;\nsetp.gt.u32 %p2, %r3, %r1;\n@%p2 bra END;\nbra.uni LOOP;\n\
        END:\nmul.lo.u32 %r5, %r2, 1000;\nadd.u32 %r5, %r5, %r3;\nst.global.u32 [%rd3], %r5;";
    let want: Vec<i32> = (0..64)
        .map(|t| {
            let (mut i, mut s) = (0, 0);
            loop {
                i += 1;
                if i > 40 {
                    break;
                }
                if i % 3 == 0 {
                    continue;
                }
                s += i;
                if s > t {
                    break;
                }
            }
            i * 1000 + s
        })
        .collect();
    for out in run(body, 64, 4) {
        assert_eq!(out, want);
    }
}

/// Calls through function pointers whose targets differ between lanes:
/// even lanes call `inc`, odd lanes `dbl`; both groups join after the call.
#[test]
fn indirect_calls_with_divergent_targets() {
    let func = |name: &str, op: &str| {
        format!(
            ".func (.param .b32 r) {name}(.param .b32 x)\n{{\n.reg .b32 %r<4>;\nld.param.b32 %r1, [x];\n{op}\nst.param.b32 [r], %r2;\nret;\n}}\n"
        )
    };
    let ptx = format!(
        "{HEAD}{}{}.visible .entry k(.param .u64 out)\n{{\n.reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n.reg .pred %p<4>;\n\
         ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\nmov.u32 %r1, %tid.x;\nmul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\n\
         mov.u64 %rd4, inc;\nmov.u64 %rd5, dbl;\nand.b32 %r2, %r1, 1;\nsetp.eq.u32 %p1, %r2, 0;\nselp.b64 %rd6, %rd4, %rd5, %p1;\n\
         {{\n.param .b32 a;\nst.param.b32 [a], %r1;\n.param .b32 rv;\nproto: .callprototype (.param .b32 _) _ (.param .b32 _);\n\
         call (rv), %rd6, (a), proto;\nld.param.b32 %r3, [rv];\n}}\nst.global.u32 [%rd3], %r3;\nret;\n}}\n",
        func("inc", "add.s32 %r2, %r1, 1;"),
        func("dbl", "mul.lo.s32 %r2, %r1, 2;")
    );
    let spec = emu::spec::parse(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [64]\n[[arg]]\nname = \"out\"\ntype = \"i32*\"\nlen = 64\n",
        Path::new("k.toml"),
        &[],
    )
    .expect("spec");
    let want: Vec<i32> = (0..64)
        .map(|t| if t % 2 == 0 { t + 1 } else { 2 * t })
        .collect();
    for policy in [Policy::Ipdom, Policy::Barrier] {
        let r = run_ptx(
            &ptx,
            "k.ptx",
            &spec,
            LaunchOptions {
                policy,
                ..Default::default()
            },
            &mut NoObserver,
        )
        .unwrap_or_else(|e| panic!("{policy:?}: {e}"));
        let out: Vec<i32> = r.buffers[0]
            .bytes
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert_eq!(out, want, "{policy:?}");
    }
}

/// Lane 0 writes a value and arrives on an mbarrier; the other lanes of its
/// warp arrive and wait for the phase, then read the value. The waiting
/// lanes are the branch's taken path, which runs first: they must yield to
/// lane 0's path (a GPU with independent thread scheduling runs both),
/// under either policy, and every lane then reads what lane 0 wrote.
#[test]
fn a_path_that_waits_on_an_mbarrier_lets_the_other_path_arrive() {
    let body = "mov.u32 %r2, sm;\nadd.u32 %r3, %r2, 8;\n\
        setp.eq.u32 %p1, %r1, 0;\n@!%p1 bra INITED;\nmbarrier.init.shared.b64 [%r2], 32;\nINITED:\nbar.sync 0;\n\
        setp.ne.u32 %p2, %r1, 0;\n@%p2 bra CONSUMER;\n\
        st.shared.u32 [%r3], 42;\nmbarrier.arrive.shared.b64 %rd4, [%r2];\nbra.uni JOIN;\n\
        CONSUMER:\nmbarrier.arrive.shared.b64 %rd4, [%r2];\n\
        SPIN:\nmbarrier.test_wait.shared.b64 %p3, [%r2], %rd4;\n@!%p3 bra SPIN;\n\
        JOIN:\nld.shared.u32 %r4, [%r3];\nst.global.u32 [%rd3], %r4;";
    for out in run(body, 32, 16) {
        assert_eq!(out, vec![42; 32]);
    }
}
