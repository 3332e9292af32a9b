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
