//! `ld` of a type narrower than its destination register, in every state
//! space. PTX ISA 9.4.1 "Operand Size Exceeding Instruction-Type Size":
//! "When a destination operand has a size that exceeds the instruction-type
//! size, the destination data is zero- or sign-extended to the size of the
//! destination register. If the corresponding instruction type is signed
//! integer, the data is sign-extended; otherwise, the data is zero-extended."
//! Expected values are worked out by hand from the stored bytes.

mod snippet;

use std::path::Path;

use emu::exec::{LaunchOptions, run_ptx};
use emu::observer::NoObserver;
use snippet::check;

/// Stores `word` (little-endian bytes 80 7f 01 80 in most cases) at `at`,
/// then runs `loads`; one case, as the scratch words share the output buffer.
fn after_store(store: &str, loads: &str, outs: &[&str], want: &[u64]) {
    check(&[], &format!("{store}\n{loads}"), outs, &[(&[], want)]);
}

#[test]
fn global_signed_loads_sign_extend_to_each_register_width() {
    // 0x8001_7f80 in memory: bytes [0x80, 0x7f, 0x01, 0x80].
    let store = "mov.b32 %r0, 0x80017f80;\nst.global.b32 [%out], %r0;";
    // s8 0x80 = -128: to 64 bits 0xffff_ffff_ffff_ff80, to 32 0xffff_ff80,
    // to 16 0xff80. s8 0x7f = 127 stays 0x7f.
    after_store(
        store,
        "ld.global.s8 %rd1, [%out];\nld.global.s8 %r1, [%out];\n\
         ld.global.s8 %h1, [%out];\nld.global.s8 %rd2, [%out+1];",
        &["%rd1", "%r1", "%h1", "%rd2"],
        &[0xffff_ffff_ffff_ff80, 0xffff_ff80, 0xff80, 0x7f],
    );
    // s16 at +2 is 0x8001 (negative): 0xffff_ffff_ffff_8001; s32 0x8001_7f80
    // (negative): 0xffff_ffff_8001_7f80.
    after_store(
        store,
        "ld.global.s16 %rd1, [%out+2];\nld.global.s32 %rd2, [%out];\n\
         ld.global.s16 %r1, [%out+2];",
        &["%rd1", "%rd2", "%r1"],
        &[0xffff_ffff_ffff_8001, 0xffff_ffff_8001_7f80, 0xffff_8001],
    );
    // Unsigned and bit-size types zero-extend.
    after_store(
        store,
        "ld.global.u8 %rd1, [%out];\nld.global.b16 %rd2, [%out+2];\n\
         ld.global.u32 %rd3, [%out];",
        &["%rd1", "%rd2", "%rd3"],
        &[0x80, 0x8001, 0x8001_7f80],
    );
}

#[test]
fn vector_loads_sign_extend_each_element() {
    // Bytes [0x80, 0x7f, 0x01, 0x80]: as v2.s16 the elements 0x7f80
    // (positive) and 0x8001 (negative); as v4.s8 -128, 127, 1, -128.
    let store = "mov.b32 %r0, 0x80017f80;\nst.global.b32 [%out], %r0;";
    after_store(
        store,
        "ld.global.v2.s16 {%rd1, %rd2}, [%out];",
        &["%rd1", "%rd2"],
        &[0x7f80, 0xffff_ffff_ffff_8001],
    );
    // Each element to its own register's width; the sink takes nothing.
    after_store(
        store,
        "ld.global.v4.s8 {%rd1, %r1, %h1, _}, [%out];",
        &["%rd1", "%r1", "%h1"],
        &[0xffff_ffff_ffff_ff80, 0x7f, 0x01],
    );
}

#[test]
fn shared_and_local_signed_loads_sign_extend() {
    check(
        &[],
        "{\n.shared .align 4 .b8 sbuf[4];\n.local .align 4 .b8 lbuf[4];\n\
         mov.b32 %r0, 0x80017f80;\nst.shared.b32 [sbuf], %r0;\nst.local.b32 [lbuf], %r0;\n\
         ld.shared.s8 %rd1, [sbuf];\nld.shared.s16 %rd2, [sbuf+2];\n\
         ld.local.s8 %rd3, [lbuf+3];\nld.local.s32 %rd4, [lbuf];\n}",
        &["%rd1", "%rd2", "%rd3", "%rd4"],
        &[(
            &[],
            &[
                0xffff_ffff_ffff_ff80,
                0xffff_ffff_ffff_8001,
                0xffff_ffff_ffff_ff80,
                0xffff_ffff_8001_7f80,
            ],
        )],
    );
}

/// Runs a kernel with parameters `b` (.s8 = -128), `h` (.s16 = -2) and `w`
/// (.s32 = -3), and a `.const` array, storing four 64-bit results.
#[test]
fn param_and_const_signed_loads_sign_extend() {
    let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .const .align 4 .b8 ctab[4] = {0x80, 0x7f, 0x01, 0x80};\n\
        .visible .entry k(.param .u64 out, .param .s8 b, .param .s16 h, .param .s32 w)\n{\n\
        .reg .b64 %rd<8>;\n\
        ld.param.u64 %rd0, [out];\n\
        ld.param.s8 %rd1, [b];\nld.param.s16 %rd2, [h];\nld.param.s32 %rd3, [w];\n\
        ld.const.s8 %rd4, [ctab];\nld.const.s16 %rd5, [ctab+2];\n\
        st.global.b64 [%rd0], %rd1;\nst.global.b64 [%rd0+8], %rd2;\n\
        st.global.b64 [%rd0+16], %rd3;\nst.global.b64 [%rd0+24], %rd4;\n\
        st.global.b64 [%rd0+32], %rd5;\nret;\n}\n";
    let spec_text = "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [1]\n\
        [[arg]]\nname = \"out\"\ntype = \"u64*\"\nlen = 5\n\
        [[arg]]\nname = \"b\"\ntype = \"i8\"\nvalue = -128\n\
        [[arg]]\nname = \"h\"\ntype = \"i16\"\nvalue = -2\n\
        [[arg]]\nname = \"w\"\ntype = \"i32\"\nvalue = -3\n";
    let spec = emu::spec::parse(spec_text, Path::new("/k.toml"), &[]).expect("spec");
    let r = run_ptx(
        ptx,
        "k.ptx",
        &spec,
        LaunchOptions::default(),
        &mut NoObserver,
    )
    .expect("run");
    let got: Vec<u64> = r.buffers[0]
        .bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect();
    // -128 = 0xff..ff80, -2 = 0xff..fffe, -3 = 0xff..fffd; the const bytes
    // 0x80 (s8) and 0x8001 (s16 at +2) are negative too.
    assert_eq!(
        got,
        [
            0xffff_ffff_ffff_ff80,
            0xffff_ffff_ffff_fffe,
            0xffff_ffff_ffff_fffd,
            0xffff_ffff_ffff_ff80,
            0xffff_ffff_ffff_8001,
        ]
    );
}
