//! Conformance of structural PTX features (issue 28): symbols in
//! initializers and addresses, predefined constants, deprecated `vote`,
//! `.reg` parameters of `.func`s, `ldmatrix` through generic addresses,
//! `.address_size 32` modules. Expected values are computed by hand from the
//! PTX ISA; each case cites the section it follows.

mod common;

use std::path::Path;

use common::{buffer, u32s};
use emu::exec::{LaunchOptions, LaunchResult, run_ptx};
use emu::observer::NoObserver;

/// Run kernel `k` of `body` (the module after its header) with one block of
/// `threads` threads and one `u32*` output buffer `out` of `len` elements.
fn run_k(header: &str, body: &str, threads: u32, len: usize) -> Result<LaunchResult, String> {
    let ptx = format!("{header}\n{body}");
    let spec_text = format!(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [{threads}]\n\
         [[arg]]\nname = \"out\"\ntype = \"u32*\"\nlen = {len}\n"
    );
    let spec =
        emu::spec::parse(&spec_text, Path::new("/k.toml"), &[]).map_err(|e| e.to_string())?;
    run_ptx(
        &ptx,
        "k.ptx",
        &spec,
        LaunchOptions::default(),
        &mut NoObserver,
    )
    .map_err(|e| e.to_string())
}

const SM80: &str = ".version 8.0\n.target sm_80\n.address_size 64";

/// Run and compare the `out` buffer with `want`.
fn check(name: &str, body: &str, threads: u32, want: &[u32]) {
    let r = run_k(SM80, body, threads, want.len()).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(u32s(buffer(&r, "out")), want, "{name}");
}

/// A kernel storing one u32 `%v` per thread at `out[tid]`, after `code`.
fn per_thread(decls: &str, code: &str) -> String {
    format!(
        "{decls}\n.visible .entry k(.param .u64 pout)\n{{\n.reg .b32 %r<8>;\n.reg .b32 %v;\n\
         .reg .b64 %x<8>;\n.reg .pred %p<4>;\n\
         ld.param.u64 %x0, [pout];\ncvta.to.global.u64 %x0, %x0;\nmov.u32 %r0, %tid.x;\n\
         mov.u32 %v, 0;\n{code}\nmul.wide.u32 %x1, %r0, 4;\nadd.s64 %x1, %x0, %x1;\n\
         st.global.u32 [%x1], %v;\nret;\n}}\n"
    )
}

// ---- Item 4: WARP_SZ --------------------------------------------------

/// PTX ISA 4.4 "Identifiers", table "Predefined Identifiers"
/// (`WARP_SZ`: the number of threads in a warp, 32), usable where an
/// immediate is.
#[test]
fn warp_sz_is_the_constant_32() {
    check(
        "mov WARP_SZ",
        &per_thread("", "mov.u32 %v, WARP_SZ;"),
        1,
        &[32],
    );
    // tid + WARP_SZ * 2 for tid 0..3: 64, 65, 66, 67.
    check(
        "mad with WARP_SZ",
        &per_thread("", "mad.lo.u32 %v, WARP_SZ, 2, %r0;"),
        4,
        &[64, 65, 66, 67],
    );
}

// ---- Item 5: vote without .sync -----------------------------------------

/// PTX ISA "vote (deprecated)": `vote.ballot.b32 d, {!}a` copies each active
/// thread's predicate into bit laneid of d; an inactive thread contributes
/// 0. `.all` / `.any` / `.uni` reduce over the active threads only.
#[test]
fn vote_without_sync_uses_the_active_threads() {
    // Lanes 0..15 are active (the others branch past); p = lane is odd.
    let vote = |mode: &str, out: &str| {
        per_thread(
            "",
            &format!(
                "setp.ge.u32 %p0, %r0, 16;\n@%p0 bra DONE;\nand.b32 %r1, %r0, 1;\n\
                 setp.eq.u32 %p1, %r1, 1;\nsetp.lt.u32 %p3, %r0, 100;\n{mode}\n{out}\nDONE:"
            ),
        )
    };
    let mut want = vec![0u32; 32];
    // Odd lanes 1..15 of the 16 active lanes: 0xAAAA.
    want[..16].fill(0xAAAA);
    check("ballot", &vote("vote.ballot.b32 %v, %p1;", ""), 32, &want);
    // !p: even active lanes 0..14: 0x5555 (inactive lanes 16..31 give 0).
    want[..16].fill(0x5555);
    check(
        "ballot of !p",
        &vote("vote.ballot.b32 %v, !%p1;", ""),
        32,
        &want,
    );
    // p3 (tid < 100) holds on every active lane: all = any = uni = 1.
    want[..16].fill(1);
    for mode in ["all", "any", "uni"] {
        check(
            mode,
            &vote(
                &format!("vote.{mode}.pred %p2, %p3;"),
                "selp.u32 %v, 1, 0, %p2;",
            ),
            32,
            &want,
        );
    }
    // p1 differs across active lanes: all = 0, any = 1, uni = 0.
    for (mode, v) in [("all", 0), ("any", 1), ("uni", 0)] {
        want[..16].fill(v);
        check(
            mode,
            &vote(
                &format!("vote.{mode}.pred %p2, %p1;"),
                "selp.u32 %v, 1, 0, %p2;",
            ),
            32,
            &want,
        );
    }
}
