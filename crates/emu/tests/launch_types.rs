//! A launch spec's argument types against the kernel's parameter types: a
//! float given for an integer parameter (or the reverse) is refused before
//! the launch, naming the argument and both types, even where the sizes agree
//! (an `f32` for an `int` is 4 bytes either way and used to run with the
//! float's bit pattern as the integer). Untyped `.b32`/`.b64` parameters take
//! either kind, and a pointer needs an integer parameter.

mod common;

use common::run_text;

/// Launch `k(.param <ptype> p)` with one `[[arg]]` of spec type `ty`
/// (a scalar with value 3, or a pointer to 4 elements when `ty` ends in
/// `*`); the launch's error text, or `None` when it ran.
fn launch(ptype: &str, ty: &str) -> Option<String> {
    let ptx = format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param {ptype} p)\n{{\nret;\n}}\n"
    );
    let arg = if ty.ends_with('*') {
        format!("name = \"p\"\ntype = \"{ty}\"\nlen = 4\n")
    } else {
        format!("name = \"p\"\ntype = \"{ty}\"\nvalue = 3\n")
    };
    let spec_text =
        format!("source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [1]\n[[arg]]\n{arg}");
    run_text(&ptx, &spec_text).err()
}

/// (PTX parameter type, spec type, the error's distinctive words or "" for a
/// launch that runs).
fn check(cases: &[(&str, &str, &str)]) {
    for &(ptype, ty, want) in cases {
        let got = launch(ptype, ty);
        match (want, got) {
            ("", None) => {}
            ("", Some(e)) => panic!(".param {ptype} with {ty}: refused: {e}"),
            (w, Some(e)) => assert!(e.contains(w), ".param {ptype} with {ty}: {e}"),
            (w, None) => panic!(".param {ptype} with {ty}: ran, expected `{w}`"),
        }
    }
}

#[test]
fn float_and_integer_arguments_must_match_the_parameter_kind() {
    check(&[
        // The case of the report: `f32` for an `int` parameter.
        (
            ".u32",
            "f32",
            "argument `p` is f32, but parameter 0 `p` is .u32: a float value for an integer parameter",
        ),
        (".s32", "f32", "a float value for an integer parameter"),
        (".u64", "f64", "a float value for an integer parameter"),
        (
            ".f32",
            "i32",
            "argument `p` is i32, but parameter 0 `p` is .f32: an integer value for a float parameter",
        ),
        (".f64", "u64", "an integer value for a float parameter"),
        // Matching kinds, and untyped bits, run.
        (".u32", "i32", ""),
        (".s32", "u32", ""),
        (".f32", "f32", ""),
        (".f64", "f64", ""),
        (".b32", "f32", ""),
        (".b32", "u32", ""),
        (".b64", "f64", ""),
        (".b16", "f16", ""),
        // The size check still comes with its own message.
        (".u64", "u32", "takes 8 bytes"),
    ]);
}

#[test]
fn pointers_need_an_integer_parameter() {
    check(&[
        (".u64", "f32*", ""),
        (".b64", "u8*", ""),
        (
            ".f64",
            "f32*",
            "pointer argument `p` is bound to parameter 0 `p`, which is .f64: a pointer needs an integer parameter",
        ),
    ]);
}
