//! Library and header discovery on fake directory trees.

mod common;

use std::path::PathBuf;

use common::TempTree;
use nvrtc::{NvrtcError, SearchContext, locate_headers, locate_library};

const WHEEL_LIB: &str = "lib/python3.11/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12";
const WHEEL_INC: &str = "lib/python3.11/site-packages/nvidia/cuda_runtime/include/cuda_fp16.h";

/// A context that sees nothing of this machine.
fn empty() -> SearchContext {
    SearchContext::default()
}

fn check(ctx: &SearchContext, expected: Option<&PathBuf>) {
    match (locate_library(ctx), expected) {
        (Ok(found), Some(e)) => assert_eq!(&found.path, e),
        (Err(NvrtcError::NotFound { .. }), None) => {}
        (got, e) => panic!("locate_library: got {got:?}, expected {e:?}"),
    }
}

#[test]
fn explicit_path_file_or_directory_is_the_only_candidate() {
    let t = TempTree::new("explicit");
    let lib = t.file("custom/libnvrtc.so.12");
    let venv_lib = t.file(&format!("proj/.venv/{WHEEL_LIB}"));
    check(
        &SearchContext {
            explicit: Some(lib.clone()),
            ..empty()
        },
        Some(&lib),
    );
    check(
        &SearchContext {
            explicit: Some(t.root.join("custom")),
            ..empty()
        },
        Some(&lib),
    );
    // A wrong explicit path does not fall back to the venv, even though one exists.
    let ctx = SearchContext {
        explicit: Some(t.root.join("nope.so")),
        cwd: Some(t.root.join("proj")),
        ..empty()
    };
    check(&ctx, None);
    let _ = venv_lib;
}

#[test]
fn env_var_then_cuda_home_then_venv() {
    let t = TempTree::new("order");
    let env_lib = t.file("env/libnvrtc.so.12");
    let home_lib64 = t.file("cuda/lib64/libnvrtc.so.12");
    let venv_lib = t.file(&format!("proj/.venv/{WHEEL_LIB}"));
    let cwd = Some(t.dir("proj/src/deep"));
    let all = SearchContext {
        env_nvrtc: Some(t.root.join("env").into()),
        cuda_home: Some(t.root.join("cuda").into()),
        cwd: cwd.clone(),
        ..empty()
    };
    check(&all, Some(&env_lib));
    // A bad env var falls through to CUDA_HOME.
    check(
        &SearchContext {
            env_nvrtc: Some(t.root.join("missing").into()),
            ..all.clone()
        },
        Some(&home_lib64),
    );
    check(
        &SearchContext {
            env_nvrtc: None,
            cuda_home: None,
            ..all.clone()
        },
        Some(&venv_lib),
    );
    // CUDA_HOME/lib is tried after lib64.
    let t2 = TempTree::new("cudalib");
    let home_lib = t2.file("cuda/lib/libnvrtc.so.12");
    check(
        &SearchContext {
            cuda_home: Some(t2.root.join("cuda").into()),
            ..empty()
        },
        Some(&home_lib),
    );
}

#[test]
fn venv_is_found_above_the_executable_too() {
    let t = TempTree::new("exe");
    let venv_lib = t.file(&format!("repo/.venv/{WHEEL_LIB}"));
    let exe_dir = t.dir("repo/target/release");
    let elsewhere = t.dir("elsewhere");
    check(
        &SearchContext {
            cwd: Some(elsewhere.clone()),
            exe_dir: Some(exe_dir),
            ..empty()
        },
        Some(&venv_lib),
    );
    check(
        &SearchContext {
            cwd: Some(elsewhere),
            ..empty()
        },
        None,
    );
}

#[test]
fn python_site_packages_come_last() {
    let t = TempTree::new("python");
    let site = t.dir("site");
    let lib = t.file("site/nvidia/cuda_nvrtc/lib/libnvrtc.so.12");
    // A fake interpreter that prints one site-packages directory.
    let script = t.root.join("fakepython");
    std::fs::write(&script, format!("#!/bin/sh\necho '{}'\n", site.display()))
        .expect("write script");
    set_executable(&script);
    check(
        &SearchContext {
            python: Some(script.clone().into()),
            ..empty()
        },
        Some(&lib),
    );
    let missing = SearchContext {
        python: Some(t.root.join("no-such-python").into()),
        ..empty()
    };
    let err = locate_library(&missing).expect_err("nothing to find");
    assert!(
        err.to_string().contains("the interpreter could not be run"),
        "{err}"
    );
}

#[cfg(unix)]
fn set_executable(p: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[cfg(not(unix))]
fn set_executable(_p: &std::path::Path) {}

#[test]
fn the_not_found_error_lists_every_place_and_the_install_command() {
    let t = TempTree::new("notfound");
    let cwd = t.dir("proj");
    let ctx = SearchContext {
        env_nvrtc: Some(t.root.join("env").into()),
        cuda_home: Some(t.root.join("cuda").into()),
        cwd: Some(cwd.clone()),
        ..empty()
    };
    let err = locate_library(&ctx).expect_err("nothing there");
    let msg = err.to_string();
    let expected_lines = [
        "NVRTC (libnvrtc.so.12) not found; searched, in order:".to_string(),
        format!(
            "  - PTXPERF_NVRTC: {} (not found)",
            t.root.join("env").display()
        ),
        format!(
            "  - CUDA_HOME: {} (not found)",
            t.root.join("cuda/lib64/libnvrtc.so.12").display()
        ),
        format!(
            "  - CUDA_HOME: {} (not found)",
            t.root.join("cuda/lib/libnvrtc.so.12").display()
        ),
        format!(
            "  - .venv above the current directory {}: no .venv/lib/python3*/site-packages in it or above it",
            cwd.display()
        ),
        "  - python3 site-packages: not set".to_string(),
        "install it with: bash scripts/setup.sh".to_string(),
    ];
    assert_eq!(msg, expected_lines.join("\n"));
}

#[test]
fn headers_env_cuda_home_next_to_library_and_venv() {
    let t = TempTree::new("headers");
    let env_inc = t.dir("inc");
    t.file("inc/cuda_fp16.h");
    let home = t.dir("cuda");
    t.file("cuda/include/cuda_fp16.h");
    let venv_h = t.file(&format!("proj/.venv/{WHEEL_INC}"));
    let venv_lib = t.file(&format!("proj/.venv/{WHEEL_LIB}"));
    let venv_inc = venv_h.parent().map(PathBuf::from).expect("parent");
    let find = |ctx: &SearchContext, lib: Option<&PathBuf>| {
        locate_headers(ctx, lib.map(|p| p.as_path()))
            .ok()
            .map(|l| l.path)
    };

    let ctx = SearchContext {
        env_include: Some(env_inc.clone().into()),
        cuda_home: Some(home.clone().into()),
        ..empty()
    };
    assert_eq!(find(&ctx, None), Some(env_inc));
    let ctx = SearchContext {
        cuda_home: Some(home.clone().into()),
        ..empty()
    };
    assert_eq!(find(&ctx, None), Some(home.join("include")));
    // Next to the NVRTC wheel: the runtime wheel's include directory.
    assert_eq!(find(&empty(), Some(&venv_lib)), Some(venv_inc.clone()));
    // From the venv above the current directory.
    let ctx = SearchContext {
        cwd: Some(t.dir("proj/a/b")),
        ..empty()
    };
    assert_eq!(find(&ctx, None), Some(venv_inc));
    // A directory without cuda_fp16.h does not count.
    let ctx = SearchContext {
        env_include: Some(t.dir("empty").into()),
        ..empty()
    };
    assert_eq!(find(&ctx, None), None);
    let err = locate_headers(&empty(), None).expect_err("nothing");
    assert!(
        err.to_string()
            .starts_with("the CUDA headers (cuda_fp16.h) not found"),
        "{err}"
    );
}

#[test]
fn the_builtins_library_beside_libnvrtc() {
    // A CUDA 13 wheel: libnvrtc, its builtins and their .alt variants.
    let t = TempTree::new("builtins");
    let lib = t.file("cu13/lib/libnvrtc.so.13");
    let builtins = t.file("cu13/lib/libnvrtc-builtins.so.13.0");
    t.file("cu13/lib/libnvrtc-builtins.alt.so.13.0");
    t.file("cu13/lib/libnvrtc.alt.so.13");
    assert_eq!(nvrtc::builtins_beside(&lib), Some(builtins));
    // None beside it: nothing to load first.
    let lonely = t.file("solo/libnvrtc.so.12");
    assert_eq!(nvrtc::builtins_beside(&lonely), None);
    // Two versions: ambiguous, so none is chosen.
    let two = t.file("two/libnvrtc.so.12");
    t.file("two/libnvrtc-builtins.so.12.8");
    t.file("two/libnvrtc-builtins.so.12.9");
    assert_eq!(nvrtc::builtins_beside(&two), None);
}
