//! NVRTC logs parsed into diagnostics and rendered as file:line:col.

use nvrtc::{Diagnostic, Severity, parse_log, render_log};

/// A log exactly as NVRTC 12.9 wrote it for a two-error program (captured once).
const TWO_ERRORS: &str = "kernels/a/a.cu(3): error: identifier \"foo\" is undefined\n    x[0]=foo + bar;\n         ^\n\nkernels/a/a.cu(3): error: identifier \"bar\" is undefined\n    x[0]=foo + bar;\n               ^\n\nkernels/a/a.cu(2): warning #177-D: variable \"y\" was declared but never referenced\n    int y = 3;\n        ^\n\nRemark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n\n2 errors detected in the compilation of \"kernels/a/a.cu\".\n";

fn diag(
    file: Option<&str>,
    line: Option<u32>,
    col: Option<u32>,
    severity: Severity,
    code: Option<&str>,
    message: &str,
) -> Diagnostic {
    Diagnostic {
        file: file.map(str::to_string),
        line,
        col,
        severity,
        code: code.map(str::to_string),
        message: message.to_string(),
        excerpt: Vec::new(),
    }
}

fn check(log: &str, expected: &[Diagnostic]) {
    let mut got = parse_log(log);
    for d in &mut got {
        d.excerpt.clear();
    }
    assert_eq!(got, expected, "diagnostics of {log:?}");
}

#[test]
fn errors_and_warnings_with_carets() {
    check(
        TWO_ERRORS,
        &[
            diag(
                Some("kernels/a/a.cu"),
                Some(3),
                Some(8),
                Severity::Error,
                None,
                "identifier \"foo\" is undefined",
            ),
            diag(
                Some("kernels/a/a.cu"),
                Some(3),
                Some(14),
                Severity::Error,
                None,
                "identifier \"bar\" is undefined",
            ),
            diag(
                Some("kernels/a/a.cu"),
                Some(2),
                Some(7),
                Severity::Warning,
                Some("177-D"),
                "variable \"y\" was declared but never referenced",
            ),
        ],
    );
}

#[test]
fn driver_level_messages_have_no_location() {
    check(
        "nvrtc: warning: Architectures prior to '<compute/sm>_75' are deprecated and may be removed in a future release\n",
        &[diag(
            None,
            None,
            None,
            Severity::Warning,
            None,
            "Architectures prior to '<compute/sm>_75' are deprecated and may be removed in a future release",
        )],
    );
    check(
        "nvrtc: error: invalid value for --gpu-architecture (-arch)\n",
        &[diag(
            None,
            None,
            None,
            Severity::Error,
            None,
            "invalid value for --gpu-architecture (-arch)",
        )],
    );
}

#[test]
fn catastrophic_errors_and_odd_lines() {
    check(
        "k.cu(1): catastrophic error: cannot open source file \"cuda_fp16.h\"\n  #include <cuda_fp16.h>\n                        ^\n\n1 catastrophic error detected in the compilation of \"k.cu\".\nCompilation terminated.\n",
        &[diag(
            Some("k.cu"),
            Some(1),
            Some(23),
            Severity::Error,
            None,
            "cannot open source file \"cuda_fp16.h\"",
        )],
    );
    check("", &[]);
    check("no diagnostics here\n(nothing): at all\n", &[]);
    check("f(x): error: not a line number\n", &[]);
    check(
        "dir(1)/k.cu(7): remark #1: just saying\n",
        &[diag(
            Some("dir(1)/k.cu"),
            Some(7),
            None,
            Severity::Remark,
            Some("1"),
            "just saying",
        )],
    );
}

#[test]
fn rendering_uses_file_line_col_and_keeps_the_excerpt() {
    let rendered = render_log(TWO_ERRORS);
    let expected = "kernels/a/a.cu:3:8: error: identifier \"foo\" is undefined\n    x[0]=foo + bar;\n         ^\n\
kernels/a/a.cu:3:14: error: identifier \"bar\" is undefined\n    x[0]=foo + bar;\n               ^\n\
kernels/a/a.cu:2:7: warning: variable \"y\" was declared but never referenced [#177-D]\n    int y = 3;\n        ^";
    assert_eq!(rendered, expected);
    // A log with no recognisable diagnostic is shown as it is.
    assert_eq!(render_log("something odd\n"), "something odd");
}

/// An NVRTC log with one error in a header, echoing `line`, and one in the program.
fn header_error_log(line: &str) -> String {
    format!(
        "/inc/cub/detail/type_traits.cuh(109): error: expected a \",\" or \">\"\n  {line}\n          ^\n\nk.cu(3): error: identifier \"M\" is undefined\n    x[0] = M;\n           ^\n\n2 errors detected in the compilation of \"k.cu\".\n"
    )
}

#[track_caller]
fn check_collisions(header_line: &str, defines: &[&str], expected: &[&str]) {
    let diags = parse_log(&header_error_log(header_line));
    assert_eq!(
        nvrtc::define_collisions(&diags, "k.cu", defines),
        expected,
        "{header_line}"
    );
}

#[test]
fn a_define_named_in_a_failing_header_line_is_a_likely_collision() {
    check_collisions(
        "template <typename T, ::cuda::std::size_t N>",
        &["N", "TILE"],
        &["N"],
    );
    // Whole words only: `N` is not in `NN`, `N_` or `size_tN`.
    check_collisions("template <int NN, int N_, int size_tN>", &["N"], &[]);
    check_collisions("a[N]", &["N", "A", "a"], &["N", "a"]);
    // The program's own errors are the user's code, not a collision.
    check_collisions("int x;", &["M"], &[]);
    check_collisions("int x;", &[], &[]);
}

#[test]
fn the_collision_note_names_the_defines() {
    assert_eq!(nvrtc::define_collision_note(&[]), None);
    let note = nvrtc::define_collision_note(&["N", "BS"]).unwrap_or_default();
    assert!(
        note.starts_with("note: the defines `N`, `BS` appear in"),
        "{note}"
    );
    let note = nvrtc::define_collision_note(&["N"]).unwrap_or_default();
    assert!(
        note.starts_with("note: the define `N` appears in"),
        "{note}"
    );
}

/// `math_macro_note` of a log: the `<math.h>` macros named as undefined.
fn check_math_note(log: &str, expect: Option<&str>) {
    let note = nvrtc::math_macro_note(&parse_log(log));
    match (note.as_deref(), expect) {
        (Some(n), Some(e)) => assert!(n.starts_with(e), "{n}"),
        (n, e) => assert_eq!(n, e, "{log}"),
    }
}

#[test]
fn math_macros_used_without_math_h_are_named() {
    // Other undefined identifiers: no note.
    check_math_note(TWO_ERRORS, None);
    check_math_note(
        "k.cu(3): error: identifier \"INFINITY\" is undefined\n    float m = -INFINITY;\n               ^\n\n1 error detected in the compilation of \"k.cu\".\n",
        Some("note: `INFINITY` comes from <math.h>, which nvcc includes"),
    );
    check_math_note(
        "k.cu(3): error: identifier \"M_PI\" is undefined\n    x = M_PI;\n        ^\n\nk.cu(4): error: identifier \"NAN\" is undefined\n    y = NAN;\n        ^\n\n2 errors detected in the compilation of \"k.cu\".\n",
        Some("note: `NAN`, `M_PI` come from <math.h>"),
    );
    // A warning that names one is not an error to explain.
    check_math_note(
        "k.cu(3): warning #20: identifier \"M_PI\" is undefined\n    x = M_PI;\n        ^\n\n",
        None,
    );
}
