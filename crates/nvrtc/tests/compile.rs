//! Real compilations through NVRTC (skipped with a message when NVRTC is
//! absent, a failure when CI is set).

mod common;

use common::compiler_or_skip;
use nvrtc::{CompileOptions, NvrtcError, Severity};

const SAXPY: &str = r#"extern "C" __global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}
"#;

fn arch(a: &str) -> CompileOptions {
    CompileOptions {
        arch: Some(a.to_string()),
        ..CompileOptions::default()
    }
}

#[test]
fn version_is_12() {
    let Some(c) = compiler_or_skip() else { return };
    let (major, _minor) = c.nvrtc().version().expect("nvrtcVersion");
    assert_eq!(major, 12);
}

#[test]
fn saxpy_compiles_for_three_architectures() {
    let Some(c) = compiler_or_skip() else { return };
    for (sm, target) in [
        ("sm_70", ".target sm_70"),
        ("sm_80", ".target sm_80"),
        ("sm_90", ".target sm_90"),
    ] {
        let out = c
            .compile(SAXPY, "saxpy.cu", &arch(sm))
            .expect("saxpy compiles");
        assert!(
            out.ptx.contains(target),
            "{sm}: no `{target}` in\n{}",
            out.ptx
        );
        assert!(
            out.ptx.contains(".visible .entry saxpy("),
            "{sm}: entry missing"
        );
        assert!(
            out.ptx.contains("fma.rn.f32"),
            "{sm}: a*x+y should be one fma"
        );
        // -lineinfo is on by default: .loc lines and the program's .file, relative.
        assert!(out.ptx.contains(".loc\t1 "), "{sm}: no .loc");
        assert!(
            out.ptx.contains(".file\t1 \"saxpy.cu\""),
            "{sm}: .file not normalised:\n{}",
            out.ptx
        );
        assert!(
            out.options
                .contains(&format!("--gpu-architecture=compute_{}", &sm[3..]))
        );
    }
}

#[test]
fn sm_70_keeps_the_deprecation_warning_in_the_log() {
    let Some(c) = compiler_or_skip() else { return };
    let out = c
        .compile(SAXPY, "saxpy.cu", &arch("sm_70"))
        .expect("compiles");
    assert!(
        out.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Warning && d.message.contains("deprecated")),
        "log: {}",
        out.log
    );
    let out = c
        .compile(SAXPY, "saxpy.cu", &arch("sm_80"))
        .expect("compiles");
    assert!(
        out.diagnostics.is_empty(),
        "sm_80 log should be empty: {}",
        out.log
    );
}

#[test]
fn no_lineinfo_means_no_loc() {
    let Some(c) = compiler_or_skip() else { return };
    let opts = CompileOptions {
        lineinfo: false,
        ..arch("sm_80")
    };
    let out = c.compile(SAXPY, "saxpy.cu", &opts).expect("compiles");
    assert!(
        !out.ptx.contains(".loc"),
        "unexpected .loc without -lineinfo"
    );
}

#[test]
fn defines_reach_the_source() {
    let Some(c) = compiler_or_skip() else { return };
    let src = "extern \"C\" __global__ void k(int *o) { o[0] = VALUE * 3; }\n";
    let mut opts = arch("sm_80");
    opts.define("VALUE=14").expect("define");
    let out = c.compile(src, "k.cu", &opts).expect("compiles");
    assert!(
        out.ptx.contains("42;"),
        "VALUE*3 should fold to 42:\n{}",
        out.ptx
    );
    // Without the define the source does not compile.
    assert!(matches!(
        c.compile(src, "k.cu", &arch("sm_80")),
        Err(NvrtcError::Compile { .. })
    ));
}

#[test]
fn a_compile_error_returns_the_log_with_locations() {
    let Some(c) = compiler_or_skip() else { return };
    let src = "extern \"C\" __global__ void k(float *x)\n{\n    x[0] = undefined_thing;\n}\n";
    let err = c
        .compile(src, "bad.cu", &arch("sm_80"))
        .expect_err("must fail");
    let NvrtcError::Compile {
        name,
        log,
        diagnostics,
        ..
    } = err
    else {
        panic!("expected a compile error, got {err:?}")
    };
    assert_eq!(name, "bad.cu");
    assert!(
        log.contains("identifier \"undefined_thing\" is undefined"),
        "log: {log}"
    );
    let first = diagnostics.first().expect("one diagnostic");
    assert_eq!(
        (first.file.as_deref(), first.line, first.col, first.severity),
        (Some("bad.cu"), Some(3), Some(12), Severity::Error)
    );
    assert!(
        first
            .render()
            .starts_with("bad.cu:3:12: error: identifier \"undefined_thing\" is undefined")
    );
}

#[test]
fn cuda_fp16_header_is_found_and_used() {
    let Some(c) = compiler_or_skip() else { return };
    assert!(
        c.include_dir().is_some(),
        "CUDA headers not found next to NVRTC"
    );
    let src = r#"#include <cuda_fp16.h>
extern "C" __global__ void hadd(const __half2 *a, const __half2 *b, __half2 *o)
{
    int i = threadIdx.x;
    o[i] = __hadd2(a[i], b[i]);
}
"#;
    let out = c
        .compile(src, "hadd.cu", &arch("sm_80"))
        .expect("fp16 kernel compiles");
    assert!(
        out.ptx.contains("add.f16x2"),
        "no packed half add:\n{}",
        out.ptx
    );
}

#[test]
fn name_expressions_give_mangled_names() {
    let Some(c) = compiler_or_skip() else { return };
    let src = "template <int T> __global__ void scale(float *x) { x[threadIdx.x] *= T; }\n";
    let opts = CompileOptions {
        name_expressions: vec!["scale<3>".into()],
        ..arch("sm_80")
    };
    let out = c.compile(src, "scale.cu", &opts).expect("compiles");
    assert_eq!(
        out.lowered_names,
        vec![("scale<3>".to_string(), "_Z5scaleILi3EEvPf".to_string())]
    );
    assert!(out.ptx.contains(".entry _Z5scaleILi3EEvPf("));
    assert_eq!(nvrtc::plain_name("_Z5scaleILi3EEvPf"), "scale");
}

#[test]
fn sources_with_nul_bytes_are_rejected_as_values() {
    let Some(c) = compiler_or_skip() else { return };
    let err = c
        .compile("a\0b", "nul.cu", &arch("sm_80"))
        .expect_err("NUL");
    assert_eq!(err, NvrtcError::InvalidText("source"));
    let bad_arch = c.compile(SAXPY, "saxpy.cu", &arch("sm_x"));
    assert!(matches!(bad_arch, Err(NvrtcError::InvalidOption(_))));
    // An option NVRTC itself rejects comes back as a compile error with its log.
    let opts = CompileOptions {
        extra: vec!["--no-such-option".into()],
        ..arch("sm_80")
    };
    let Err(NvrtcError::Compile { log, .. }) = c.compile(SAXPY, "saxpy.cu", &opts) else {
        panic!("expected an error")
    };
    assert!(!log.trim().is_empty());
}

#[test]
fn loading_a_file_that_is_not_a_library_is_an_error_value() {
    let t = common::TempTree::new("notalib");
    let fake = t.root.join("libnvrtc.so.12");
    std::fs::write(&fake, b"not an ELF file").expect("write");
    let err = nvrtc::Nvrtc::load(&fake).expect_err("not a library");
    assert!(matches!(err, NvrtcError::Load { .. }), "{err:?}");
}

#[test]
fn wmma_header_is_found() {
    // <mma.h> comes from the runtime wheel but includes crt/mma.h, which only
    // the nvcc wheel ships: both folders must be on the include path.
    let Some(c) = compiler_or_skip() else { return };
    let src = r#"#include <mma.h>
using namespace nvcuda;
extern "C" __global__ void k(const half *a, const half *b, float *c) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
"#;
    let out = c
        .compile(src, "wmma.cu", &arch("sm_80"))
        .expect("wmma compiles");
    assert!(
        out.ptx.contains("wmma.mma.sync"),
        "no wmma.mma.sync in the PTX"
    );
}
