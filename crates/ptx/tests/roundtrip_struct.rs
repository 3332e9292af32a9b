//! Printing round-trips the structural syntax of issue 28: `generic(v)+off`
//! initializers, `.reg` parameters of `.func`s, `WARP_SZ`, `vote` without
//! `.sync`, `.global` / `.const` variables (with initializers) in bodies,
//! vector registers and their elements.

/// Parse, print, reparse: the same IR, and printing is a fixed point.
fn round_trip(name: &str, body: &str) -> String {
    let src = format!(".version 8.0\n.target sm_80\n.address_size 64\n{body}");
    let m = ptx::parse(name, &src).unwrap_or_else(|d| panic!("{}", d.render(name, &src)));
    let printed = m.to_string();
    let again = ptx::parse("printed.ptx", &printed)
        .unwrap_or_else(|d| panic!("{name}: {}", d.render("printed.ptx", &printed)));
    assert!(again == m, "{name}: reparsed IR differs:\n{printed}");
    assert_eq!(again.to_string(), printed, "{name}: not a fixed point");
    printed
}

#[test]
fn structural_syntax_round_trips() {
    let p = round_trip(
        "init",
        ".const .u32 c[2] = {1, 2};\n.global .u64 t[3] = {c, generic(c)+4, generic(c+4)};\n",
    );
    // ISA 5.4.4 spells the offset outside the operator; `generic(c+4)` is the same address.
    assert!(p.contains("{c, generic(c)+4, generic(c)+4}"), "{p}");
    let p = round_trip(
        "reg params",
        ".func (.reg .u32 r) f (.reg .u32 a, .param .u32 b)\n{\n.reg .b32 %t;\n\
         ld.param.u32 %t, [b];\nadd.u32 r, a, %t;\nret;\n}\n\
         .visible .entry k()\n{\n.reg .b32 %x;\n.reg .pred %p;\n.param .u32 pb;\n\
         mov.u32 %x, WARP_SZ;\ncall (%x), f, (%x, pb);\nvote.any.pred %p, %p;\n\
         vote.ballot.b32 %x, !%p;\nret;\n}\n",
    );
    // The parameter registers are declared by the header only.
    assert!(p.contains(".reg .u32 r"), "{p}");
    assert_eq!(p.matches(".reg .u32 a").count(), 1, "{p}");
    assert!(p.contains("mov.u32 %x, 32;"), "{p}");
    let p = round_trip(
        "body statics",
        ".visible .entry k()\n{\n.global .align 4 .u32 t[2] = {1, 2};\n.const .u32 c = 3;\n\
         {\n.global .u32 g = 4;\n}\nret;\n}\n",
    );
    assert!(p.contains(".global .align 4 .u32 t[2] = {1, 2};"), "{p}");
    let p = round_trip(
        "vector registers",
        ".visible .entry k(.param .u64 a)\n{\n.reg .v4 .f32 V;\n.reg .f32 %f<2>;\n.reg .b64 %x;\n\
         ld.param.u64 %x, [a];\nld.global.v4.f32 V, [%x];\nadd.f32 V.w, V.r, V.y;\n\
         mov.v4.f32 {%f0, %f1, _, _}, V;\nmov.v4.f32 V, {%f1, %f0, %f0, %f1};\nst.global.v4.f32 [%x], V;\nret;\n}\n",
    );
    // `.r` is printed as the element's `.x` name.
    assert!(p.contains("add.f32 V.w, V.x, V.y;"), "{p}");
}
