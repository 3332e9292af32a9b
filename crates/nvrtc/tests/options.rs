//! Compile options to NVRTC arguments.

use std::path::PathBuf;

use nvrtc::CompileOptions;
use nvrtc::options::virtual_arch;

fn check(opts: &CompileOptions, expected: &[&str]) {
    let args = opts.to_args().expect("valid options");
    assert_eq!(args, expected, "arguments of {opts:?}");
}

#[test]
fn defaults_are_cxx17_and_lineinfo() {
    check(&CompileOptions::default(), &["--std=c++17", "-lineinfo"]);
}

#[test]
fn arch_becomes_a_virtual_architecture() {
    let with = |arch: &str| CompileOptions {
        arch: Some(arch.into()),
        ..CompileOptions::default()
    };
    check(
        &with("sm_80"),
        &["--gpu-architecture=compute_80", "--std=c++17", "-lineinfo"],
    );
    check(
        &with("sm_70"),
        &["--gpu-architecture=compute_70", "--std=c++17", "-lineinfo"],
    );
    check(
        &with("compute_90"),
        &["--gpu-architecture=compute_90", "--std=c++17", "-lineinfo"],
    );
    check(
        &with("sm_90a"),
        &["--gpu-architecture=compute_90a", "--std=c++17", "-lineinfo"],
    );
    check(
        &with("sm_100"),
        &["--gpu-architecture=compute_100", "--std=c++17", "-lineinfo"],
    );
}

fn check_arch(arch: &str, expected: Option<&str>) {
    assert_eq!(virtual_arch(arch).ok().as_deref(), expected, "arch {arch}");
}

#[test]
fn malformed_archs_are_rejected() {
    check_arch("sm_86", Some("compute_86"));
    check_arch("sm_8", None);
    check_arch("sm_", None);
    check_arch("80", None);
    check_arch("sm_8x", None);
    check_arch("gfx90a", None);
    check_arch("sm_1000", None);
    check_arch("", None);
}

#[test]
fn defines_includes_and_extras_keep_their_order() {
    let mut o = CompileOptions {
        lineinfo: false,
        std: None,
        ..CompileOptions::default()
    };
    o.define("N=4096").expect("define");
    o.define("USE_SHARED").expect("define");
    o.define("ALPHA=1.5f").expect("define");
    o.define(" B = 2").expect("define");
    o.include_dirs.push(PathBuf::from("/opt/include"));
    o.extra.push("--use_fast_math".into());
    check(
        &o,
        &[
            "-DN=4096",
            "-DUSE_SHARED",
            "-DALPHA=1.5f",
            "-DB= 2",
            "-I/opt/include",
            "--use_fast_math",
        ],
    );
}

#[test]
fn bad_define_names_are_errors() {
    for bad in ["", "=3", "1N=2", "A-B=1", "A B"] {
        let mut o = CompileOptions::default();
        let err = o.define(bad).expect_err(bad);
        assert!(
            err.to_string().contains("is not a macro name"),
            "{bad}: {err}"
        );
    }
    let o = CompileOptions {
        defines: vec![("9x".into(), None)],
        ..CompileOptions::default()
    };
    assert!(o.to_args().is_err());
}

#[test]
fn no_lineinfo_and_other_std() {
    let o = CompileOptions {
        lineinfo: false,
        std: Some("c++20".into()),
        ..CompileOptions::default()
    };
    check(&o, &["--std=c++20"]);
}
