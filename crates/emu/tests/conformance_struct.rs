//! Conformance of structural PTX features (issue 28): symbols in
//! initializers and addresses, predefined constants, deprecated `vote`,
//! `.reg` parameters of `.func`s, `ldmatrix` through generic addresses,
//! `.address_size 32` modules. Expected values are computed by hand from the
//! PTX ISA; each case cites the section it follows.

mod common;

use common::{buffer, run_text, u32s};
use emu::exec::LaunchResult;

/// Run kernel `k` of `body` (the module after its header) with one block of
/// `threads` threads and one `u32*` output buffer `out` of `len` elements.
fn run_k(header: &str, body: &str, threads: u32, len: usize) -> Result<LaunchResult, String> {
    let spec_text = format!(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [{threads}]\n\
         [[arg]]\nname = \"out\"\ntype = \"u32*\"\nlen = {len}\n"
    );
    run_text(&format!("{header}\n{body}"), &spec_text)
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

/// A one-thread kernel that stores `%v` at `out[i]` after each snippet.
fn stores(decls: &str, locals: &str, snippets: &[&str]) -> String {
    let body: String = snippets
        .iter()
        .enumerate()
        .map(|(i, s)| format!("{s}\nst.global.u32 [%x0+{}], %v;\n", 4 * i))
        .collect();
    format!(
        "{decls}\n.visible .entry k(.param .u64 pout)\n{{\n.reg .b32 %r<8>;\n.reg .b32 %v;\n\
         .reg .b64 %x<8>;\n.reg .pred %p<4>;\n{locals}\n\
         ld.param.u64 %x0, [pout];\ncvta.to.global.u64 %x0, %x0;\n{body}ret;\n}}\n"
    )
}

// ---- Item 1: variable addresses in initializers ------------------------

/// PTX ISA 5.4.4 "Initializers": a variable named in an initializer is its
/// address in its own state space, as `mov` gives it; `generic(var)` is its
/// generic address; `var+offset` adds a byte offset. Only `.global` and
/// `.const` variables may be named.
#[test]
fn initializer_addresses_follow_the_variable_state_space() {
    let decls = ".const .align 4 .u32 c0[2] = {11, 22};\n\
                 .const .align 8 .u64 pc = c0;\n\
                 .const .align 8 .u64 pcg = generic(c0);\n\
                 .global .align 4 .u32 g0[2] = {33, 44};\n\
                 .global .align 8 .u64 tbl[2] = {generic(c0)+4, generic(g0)+4};\n\
                 .global .align 8 .u64 pg = g0+4;";
    let body = stores(
        decls,
        "",
        &[
            // pc = offset of c0 in .const: ld.const through it reads c0[1] = 22.
            "ld.const.u64 %x1, [pc];\nld.const.u32 %v, [%x1+4];",
            // pc equals what mov gives for c0 (ISA: "as is the case when taking
            // the address of a variable with a mov instruction").
            "ld.const.u64 %x1, [pc];\nmov.u64 %x2, c0;\nsetp.eq.u64 %p0, %x1, %x2;\nselp.u32 %v, 1, 0, %p0;",
            // generic(c0) is cvta.const of that address, read by a generic ld: c0[0] = 11.
            "ld.const.u64 %x1, [pcg];\ncvta.const.u64 %x2, c0;\nsetp.eq.u64 %p0, %x1, %x2;\n@%p0 ld.u32 %v, [%x1];\n@!%p0 mov.u32 %v, 0;",
            // tbl[0] = generic(c0)+4: c0[1] = 22 through a generic ld.
            "ld.global.u64 %x1, [tbl];\nld.u32 %v, [%x1];",
            // tbl[1] = generic(g0)+4: g0[1] = 44.
            "ld.global.u64 %x1, [tbl+8];\nld.u32 %v, [%x1];",
            // pg = g0+4 in the .global space: ld.global reads g0[1] = 44.
            "ld.global.u64 %x1, [pg];\nld.global.u32 %v, [%x1];",
        ],
    );
    check("initializers", &body, 1, &[22, 1, 11, 22, 44, 44]);
}

// ---- Item 9: variables named in generic addresses -----------------------

/// PTX ISA 6.4.1 "Addresses as Operands": `[var]` and `[var+imm]` address
/// the variable; with generic addressing that is the variable's generic
/// address, which lies in the variable's own state space.
#[test]
fn generic_access_through_variable_names() {
    let body = stores(
        ".shared .align 4 .u32 msh[4];",
        ".shared .align 4 .u32 bsh[2];\n.local .align 4 .u32 loc[2];",
        &[
            "st.u32 [msh+8], 5;\nld.shared.u32 %v, [msh+8];",
            "st.shared.u32 [msh+12], 6;\nld.u32 %v, [msh+12];",
            "st.u32 [bsh+4], 7;\nld.shared.u32 %v, [bsh+4];",
            "st.local.u32 [loc+4], 8;\nld.u32 %v, [loc+4];",
            "st.u32 [loc], 9;\nld.local.u32 %v, [loc];",
            // The kernel parameter through a generic ld: its low word equals ld.param's.
            "ld.u64 %x1, [pout];\nld.param.u64 %x2, [pout];\nsetp.eq.u64 %p0, %x1, %x2;\nselp.u32 %v, 1, 0, %p0;",
        ],
    );
    check("generic symbols", &body, 1, &[5, 6, 7, 8, 9, 1]);
}

// ---- Item 3: ldmatrix with a generic address ----------------------------

/// PTX ISA "ldmatrix": without `.shared` the address is generic and must
/// point into shared memory. Lane l's register holds row l/4, columns
/// 2(l%4) and 2(l%4)+1 of the 8x8 b16 matrix (its transpose with .trans);
/// lanes 0..7 give the row addresses.
#[test]
fn ldmatrix_through_a_generic_address() {
    for trans in [false, true] {
        let t = if trans { ".trans" } else { "" };
        // Element (r, c) = 8r + c, so row r of 8 halves sits at sm + 16r.
        let body = per_thread(
            ".shared .align 16 .b16 sm[64];",
            &format!(
                "and.b32 %r1, %r0, 63;\nmul.wide.u32 %x2, %r1, 2;\nmov.u64 %x3, sm;\nadd.s64 %x4, %x3, %x2;\n\
                 cvt.u16.u32 %rs0, %r1;\nst.shared.u16 [%x4], %rs0;\nadd.u32 %r2, %r1, 32;\n\
                 cvt.u16.u32 %rs0, %r2;\nst.shared.u16 [%x4+64], %rs0;\nbar.sync 0;\n\
                 and.b32 %r3, %r0, 7;\nmul.wide.u32 %x5, %r3, 16;\nadd.s64 %x5, %x3, %x5;\n\
                 cvta.shared.u64 %x6, %x5;\nldmatrix.sync.aligned.m8n8.x1{t}.b16 {{%v}}, [%x6];"
            ),
        )
        .replace(".reg .b32 %v;", ".reg .b32 %v;\n.reg .b16 %rs0;");
        let want: Vec<u32> = (0..32u32)
            .map(|l| {
                let (r, c) = (l / 4, 2 * (l % 4));
                let e = |r: u32, c: u32| 8 * r + c;
                if trans {
                    e(c, r) | (e(c + 1, r) << 16)
                } else {
                    e(r, c) | (e(r, c + 1) << 16)
                }
            })
            .collect();
        check(&format!("ldmatrix{t}"), &body, 32, &want);
    }
    // A generic address outside shared memory (the output buffer) is refused.
    let body = per_thread("", "ldmatrix.sync.aligned.m8n8.x1.b16 {%v}, [%x0];");
    let e = run_k(SM80, &body, 32, 32).expect_err("global address");
    assert!(e.contains("not in shared memory"), "{e}");
}

// ---- Item 6: .reg parameters of .func -----------------------------------

/// PTX ISA 7.1 "Function declarations and definitions" and "call": a
/// `.func` may take and return `.reg` parameters, used in its body like
/// registers; `call (d), f, (a, b)` passes registers or immediates by value
/// and writes the result register. `.param` and `.reg` parameters may mix.
#[test]
fn func_with_reg_parameters() {
    let decls = ".func (.reg .u32 %res) inc_ptr (.reg .u32 %ptr, .reg .u32 %inc)\n{\n\
                 add.u32 %res, %ptr, %inc;\nret;\n}\n\
                 .func (.reg .u64 wide, .param .u32 narrow) mixed (.param .u32 a, .reg .u16 h)\n{\n\
                 .reg .b32 %t;\nld.param.u32 %t, [a];\ncvt.u64.u16 wide, h;\nshl.b64 wide, wide, 32;\n\
                 st.param.u32 [narrow], %t;\nret;\n}";
    let body = per_thread(
        decls,
        // out[tid] = (tid + 4) + 1000; then mixed: wide = h << 32, narrow = a.
        "call (%r1), inc_ptr, (%r0, 4);\ncall (%r2), inc_ptr, (%r1, 1000);\n\
         .reg .u16 %h;\ncvt.u16.u32 %h, %r0;\n\
         {\n.param .u32 pa;\n.param .u32 pn;\nst.param.u32 [pa], 7;\n\
         call (%x3, pn), mixed, (pa, %h);\nld.param.u32 %r3, [pn];\n}\n\
         shr.u64 %x3, %x3, 32;\ncvt.u32.u64 %r4, %x3;\n\
         mad.lo.u32 %v, %r4, 100000, %r2;\nmad.lo.u32 %v, %r3, 10000000, %v;",
    );
    // tid + 1004 + 100000 * tid + 7 * 10^7.
    let want: Vec<u32> = (0..4)
        .map(|t| 70_000_000 + 100_000 * t + t + 1004)
        .collect();
    check(".reg params", &body, 4, &want);
    // Through a function pointer and a prototype with .reg parameters: 2 tid + 1.
    let decls = ".func (.reg .u32 r) twice1 (.reg .u32 a)\n{\nmad.lo.u32 r, a, 2, 1;\nret;\n}";
    let body = per_thread(
        decls,
        "proto: .callprototype (.reg .u32 _) _ (.reg .u32 _);\nmov.u64 %x3, twice1;\n\
         call (%v), %x3, (%r0), proto;",
    );
    check(".reg params, indirect", &body, 4, &[1, 3, 5, 7]);
}

// ---- Item 10: .address_size 32 -------------------------------------------

/// PTX ISA 11.1.3 ".address_size": with 32-bit addresses, pointers (kernel
/// parameters, generic addresses, cvta results) are `.u32`. A spec's buffer
/// binds to a `.param .u32` parameter; the kernel reads `in[tid]` through it
/// with `ld.global`, doubles it, writes `out[tid]` with a generic `st`, and
/// round-trips a shared variable through `cvta.shared.u32` and a generic `ld`.
/// A `generic(c0)` initializer is a 32-bit generic address too.
#[test]
fn address_size_32_binds_u32_pointers() {
    let header = ".version 8.0\n.target sm_80\n.address_size 32";
    let body = ".const .align 4 .u32 c0 = 7;\n.global .align 4 .u32 pc0 = generic(c0);\n\
                .visible .entry k(.param .u32 pin, .param .u32 pout)\n{\n\
                .reg .b32 %r<12>;\n.reg .pred %p0;\n.shared .align 4 .u32 sh[32];\n\
                ld.param.u32 %r1, [pin];\nld.param.u32 %r2, [pout];\nmov.u32 %r0, %tid.x;\n\
                shl.b32 %r3, %r0, 2;\nadd.u32 %r4, %r1, %r3;\nld.global.u32 %r5, [%r4];\n\
                mov.u32 %r6, sh;\nadd.u32 %r6, %r6, %r3;\ncvta.shared.u32 %r7, %r6;\n\
                shl.b32 %r8, %r5, 1;\nst.u32 [%r7], %r8;\nld.shared.u32 %r9, [%r6];\n\
                isspacep.shared %p0, %r7;\n@!%p0 mov.u32 %r9, 0;\n\
                ld.global.u32 %r11, [pc0];\nld.u32 %r11, [%r11];\nmul.lo.u32 %r9, %r9, %r11;\n\
                cvta.global.u32 %r10, %r2;\nadd.u32 %r10, %r10, %r3;\nst.u32 [%r10], %r9;\nret;\n}\n";
    let spec_text = "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [8]\n\
         [[arg]]\nname = \"in\"\ntype = \"u32*\"\nlen = 8\ninit = \"iota\"\n\
         [[arg]]\nname = \"out\"\ntype = \"u32*\"\nlen = 8\n";
    let r = run_text(&format!("{header}\n{body}"), spec_text).unwrap_or_else(|e| panic!("{e}"));
    // in[t] = t (iota); out[t] = 2 in[t] * c0, c0 = 7 read through a
    // 32-bit generic(c0) initializer (ISA 5.4.4).
    let want: Vec<u32> = (0..8).map(|t| 2 * t * 7).collect();
    assert_eq!(u32s(buffer(&r, "out")), want);
}

/// In a 64-bit module a pointer still needs a 64-bit parameter.
#[test]
fn address_size_64_refuses_u32_pointer_parameters() {
    let body = ".visible .entry k(.param .u32 pout)\n{\nret;\n}\n";
    let e = run_k(SM80, body, 1, 1).expect_err("32-bit pointer parameter");
    assert!(e.contains("needs a 64-bit parameter"), "{e}");
}

// ---- Item 8: .global and .const declared in a function body ---------------

/// PTX ISA 5.1: only `.reg` and `.local` are confined to function scope
/// (5.1.1, 5.1.5); nothing confines `.global` (5.1.4) or `.const` (5.1.3)
/// to module scope. A body `.global` / `.const` variable has static
/// storage (one instance, kept across calls) and takes an initializer
/// (5.4.4); its name is visible in its block only.
#[test]
fn global_and_const_variables_in_a_body() {
    let decls = ".func (.reg .u32 r) bump ()\n{\n.global .align 4 .u32 cnt = 40;\n\
                 ld.global.u32 r, [cnt];\nadd.u32 r, r, 1;\nst.global.u32 [cnt], r;\nret;\n}";
    let locals = ".global .align 4 .u32 tbl[3] = {10, 20, 30};\n\
                  .const .align 4 .u32 ctab[2] = {7, 9};";
    let body = stores(
        decls,
        locals,
        &[
            "ld.global.u32 %v, [tbl+8];",
            "ld.const.u32 %v, [ctab+4];",
            // Generic access through the name (item 9) and through cvta.
            "ld.u32 %v, [tbl+4];",
            "mov.u64 %x1, ctab;\ncvta.const.u64 %x1, %x1;\nld.u32 %v, [%x1];",
            // Two calls: the counter's storage persists, 40 -> 41 -> 42.
            "call (%v), bump, ();\ncall (%v), bump, ();",
            // A block-scoped .global with an initializer.
            "{\n.global .align 4 .u32 inner = 5;\nld.global.u32 %v, [inner];\n}",
        ],
    );
    check("body statics", &body, 1, &[30, 9, 20, 7, 42, 5]);
}

// ---- Item 7: vector registers ----------------------------------------------

/// PTX ISA 6.4.2 "Vector Operands" and 5.2.3 "Vectors": a `.reg .v4` register
/// is a whole operand of mov, ld and st; its elements are `.x .y .z .w` (or
/// `.r .g .b .a`); `mov.v4` moves between it and a brace list.
#[test]
fn vector_registers() {
    let body = stores(
        ".shared .align 16 .b8 scr[16];",
        ".reg .v4 .u32 V;\n.reg .v4 .u32 W;\n.reg .v2 .u32 P;",
        &[
            "mov.u32 %r1, 10;\nmov.u32 %r2, 20;\nmov.u32 %r3, 30;\nmov.u32 %r4, 40;\n\
             mov.v4.u32 V, {%r1,%r2,%r3,%r4};\nmov.u32 %v, V.z;",
            // V.w = V.x + V.y = 30; .a names the same element.
            "add.u32 V.w, V.x, V.y;\nmov.u32 %v, V.a;",
            "mov.u32 %v, V.g;",
            // V = (10, 20, 30, 30) through shared memory and back: r1 + r4 = 40.
            "st.shared.v4.u32 [scr], V;\nld.shared.v4.u32 W, [scr];\n\
             mov.v4.u32 {%r1,%r2,_,%r4}, W;\nadd.u32 %v, %r1, %r4;",
            // P = (V.w, V.x) = (30, 10): 30 - 10.
            "mov.v2.u32 P, {V.w, V.x};\nsub.u32 %v, P.x, P.y;",
            // Bytes 8..16 of scr: (30, 30).
            "ld.shared.v2.u32 P, [scr+8];\nmul.lo.u32 %v, P.r, P.g;",
        ],
    );
    check("vector registers", &body, 1, &[30, 30, 20, 40, 20, 900]);
}

// ---- Diagnostics ----------------------------------------------------------

/// Structural errors are diagnostics at the offending name (file:line:col):
/// - ISA 5.4.4: "Only variables in .global or .const state spaces may be
///   used in initializers";
/// - ISA 5.4.4: "variable initialization is supported only for constant
///   and global state spaces";
/// - ISA 5.1.6: kernel (`.entry`) parameters are in the `.param` space;
/// - ISA 6.4.2: vector elements exist up to the vector's length.
#[test]
fn structural_diagnostics() {
    let cases = [
        (
            ".shared .u32 s;\n.global .u64 p = s;\n",
            "m.ptx:5:18",
            "only .global and .const",
        ),
        (
            ".visible .entry k()\n{\n.local .u32 x = 5;\nret;\n}\n",
            "m.ptx:6:13",
            "cannot have an initializer",
        ),
        (
            ".visible .entry k(.reg .u32 a)\n{\nret;\n}\n",
            "m.ptx:4:29",
            "must be in .param space",
        ),
        // ISA 6.4.2: elements .x .y of a .v2 vector; none of a scalar.
        (
            ".visible .entry k()\n{\n.reg .v2 .u32 P;\n.reg .u32 s;\nmov.u32 s, P.w;\nret;\n}\n",
            "m.ptx:8:12",
            "past the 2 elements of `P`",
        ),
        (
            ".visible .entry k()\n{\n.reg .v2 .u32 P;\n.reg .u32 s;\nmov.u32 s, s.x;\nret;\n}\n",
            "m.ptx:8:12",
            "`s` is not a vector register",
        ),
    ];
    for (body, at, what) in cases {
        let src = format!("{SM80}\n{body}");
        let err = ptx::parse("m.ptx", &src).expect_err(what);
        let msg = err.render("m.ptx", &src);
        assert!(msg.contains(at) && msg.contains(what), "{msg}");
    }
}
