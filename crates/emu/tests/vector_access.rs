//! Vector loads and stores (`.v2`, `.v4`) across a warp: the fast paths of
//! global and shared memory against values worked out by hand and against
//! the per-lane path (generic addresses take it), and a misaligned vector
//! access still faults with the vector's alignment.

use std::path::Path;

use emu::exec::{LaunchOptions, RunError, run_ptx};
use emu::fault::FaultKind;
use emu::mem::MemFaultKind;
use emu::observer::NoObserver;

mod common;

/// One CTA of 32 threads; `buf` is 512 u32 (2 KiB) of zeros.
fn run(body: &str) -> Result<Vec<u32>, RunError> {
    let ptx = format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 buf)\n{{\n\
         .reg .b32 %r<16>;\n.reg .b64 %rd<16>;\n.reg .pred %p<4>;\n\
         .shared .align 16 .b32 s[160];\n\
         ld.param.u64 %rd1, [buf];\ncvta.to.global.u64 %rd1, %rd1;\nmov.u32 %r1, %tid.x;\n\
         mul.wide.u32 %rd2, %r1, 16;\nmov.u64 %rd3, s;\n{body}\nret;\n}}\n"
    );
    let spec = emu::spec::parse(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [32]\n\
         [[arg]]\nname = \"buf\"\ntype = \"u32*\"\nlen = 512\n",
        Path::new("k.toml"),
        &[],
    )
    .expect("spec parses");
    let r = run_ptx(
        &ptx,
        "k.ptx",
        &spec,
        LaunchOptions::default(),
        &mut NoObserver,
    )?;
    Ok(common::u32s(&r.buffers[0].bytes))
}

/// Each thread stores {t, t+100, t+200, t+300} as one `v4` into shared
/// memory, reads its neighbour's (t+1 mod 32) back as one `v4` (through
/// `space`: "shared" is the fast path, "" a generic address and the
/// per-lane path), stores it to global as a `v4`, reloads it as a `v2` of
/// u64 and stores that swapped 512 bytes on.
fn neighbours_through(space: &str) -> Vec<u32> {
    let addr = if space.is_empty() {
        "cvta.shared.u64 %rd6, %rd6;\n"
    } else {
        ""
    };
    let body = format!(
        "add.u32 %r2, %r1, 100;\nadd.u32 %r3, %r1, 200;\nadd.u32 %r4, %r1, 300;\n\
         add.s64 %rd4, %rd3, %rd2;\nst.shared.v4.u32 [%rd4], {{%r1, %r2, %r3, %r4}};\n\
         add.u32 %r5, %r1, 1;\nand.b32 %r5, %r5, 31;\nmul.wide.u32 %rd5, %r5, 16;\n\
         add.s64 %rd6, %rd3, %rd5;\n{addr}\
         ld{dot}{space}.v4.u32 {{%r6, %r7, %r8, %r9}}, [%rd6];\n\
         add.s64 %rd7, %rd1, %rd2;\nst.global.v4.u32 [%rd7], {{%r6, %r7, %r8, %r9}};\n\
         ld.global.v2.u64 {{%rd8, %rd9}}, [%rd7];\n\
         add.s64 %rd10, %rd7, 512;\nst.global.v2.u64 [%rd10], {{%rd9, %rd8}};",
        dot = if space.is_empty() { "" } else { "." },
    );
    run(&body).unwrap_or_else(|e| panic!("{space}: {e}"))
}

#[test]
fn vector_accesses_move_every_lanes_elements() {
    let fast = neighbours_through("shared");
    for t in 0..32u32 {
        let n = (t + 1) % 32;
        let want = [n, n + 100, n + 200, n + 300];
        let t = t as usize;
        assert_eq!(fast[4 * t..4 * t + 4], want, "v4 of thread {t}");
        // The v2.u64 reload, stored swapped: words 2, 3, then 0, 1.
        let swapped = [want[2], want[3], want[0], want[1]];
        assert_eq!(
            fast[128 + 4 * t..128 + 4 * t + 4],
            swapped,
            "v2 of thread {t}"
        );
    }
    assert!(
        fast[256..].iter().all(|&w| w == 0),
        "nothing past the two regions"
    );
    assert_eq!(neighbours_through(""), fast, "the per-lane path agrees");
}

#[test]
fn half_a_warp_loads_and_stores_only_its_lanes() {
    // Lanes 16 to 31 are off: their global words stay zero.
    let body = "add.u32 %r2, %r1, 7;\nsetp.lt.u32 %p1, %r1, 16;\n\
                add.s64 %rd7, %rd1, %rd2;\n\
                @%p1 st.global.v2.u32 [%rd7], {%r1, %r2};\n\
                @%p1 ld.global.v2.u32 {%r3, %r4}, [%rd7];\n\
                @%p1 st.global.v2.u32 [%rd7+8], {%r4, %r3};";
    let words = run(body).expect("runs");
    for t in 0..32usize {
        let want = if t < 16 {
            [t as u32, t as u32 + 7, t as u32 + 7, t as u32]
        } else {
            [0; 4]
        };
        assert_eq!(words[4 * t..4 * t + 4], want, "thread {t}");
    }
}

#[test]
fn a_misaligned_vector_faults_with_the_vectors_alignment() {
    for (access, align) in [
        ("ld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [%rd4+4];", 16),
        ("st.shared.v2.u32 [%rd4+4], {%r1, %r1};", 8),
        ("ld.global.v4.u32 {%r6, %r7, %r8, %r9}, [%rd7+8];", 16),
    ] {
        let body = format!("add.s64 %rd4, %rd3, %rd2;\nadd.s64 %rd7, %rd1, %rd2;\n{access}");
        let Err(RunError::Fault(f)) = run(&body) else {
            panic!("{access}: no fault")
        };
        let FaultKind::Memory(m) = &f.kind else {
            panic!("{access}: {f}")
        };
        assert_eq!(m.kind, MemFaultKind::Misaligned { align }, "{access}");
    }
}
