//! Progress on a terminal (issue 27, point 5). The spinner of `run`,
//! `characterize` and `predict`, and the bar of `tune` and `validate`, are
//! drawn only when stderr is a terminal, so these tests give the command a
//! pseudo-terminal as its stderr and read what it drew there. Piped or with
//! `-q`, nothing of the progress may appear.

#![cfg(target_os = "linux")]

use std::fs::File;
use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

mod common;

/// A pseudo-terminal of 120 x 40 characters: (controller, terminal end).
fn open_pty() -> (OwnedFd, OwnedFd) {
    let mut controller: libc::c_int = -1;
    let mut terminal: libc::c_int = -1;
    let size = libc::winsize {
        ws_row: 40,
        ws_col: 120,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two descriptors into the locals; the name
    // buffer and termios may be null, and `size` outlives the call.
    let rc = unsafe {
        libc::openpty(
            &mut controller,
            &mut terminal,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(rc, 0, "openpty failed: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened and are owned by nobody else.
    unsafe {
        (
            OwnedFd::from_raw_fd(controller),
            OwnedFd::from_raw_fd(terminal),
        )
    }
}

/// What `ptxperf ARGS` (run in `dir`) draws on its stderr when that is a
/// terminal, with its exit status; stdout is discarded.
fn stderr_on_terminal(dir: &Path, args: &[&str]) -> (String, bool) {
    let (controller, terminal) = open_pty();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptxperf"))
        .envs(common::tool_env())
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(terminal))
        .spawn()
        .expect("ptxperf starts");
    // The child holds the only terminal end now (ours moved into Stdio and
    // was closed after the spawn), so reading ends when the child exits:
    // Linux then answers EIO rather than end-of-file.
    let reader = std::thread::spawn(move || {
        let mut file = File::from(controller);
        let mut bytes = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match file.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => bytes.extend_from_slice(&buf[..n]),
            }
        }
        bytes
    });
    let status = child.wait().expect("ptxperf runs");
    let bytes = reader.join().expect("the reader finishes");
    (
        String::from_utf8_lossy(&bytes).into_owned(),
        status.success(),
    )
}

/// The same command with stderr piped: (stderr, success).
fn stderr_piped(dir: &Path, args: &[&str]) -> (String, bool) {
    let out = common::ptxperf_in(dir, args);
    (
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.success(),
    )
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A launch spec of the corpus map kernel over `n` elements, from its
/// checked-in PTX (no NVRTC needed), written into a fresh folder.
fn map_spec(name: &str, n: u64) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxperf-progress-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp folder");
    let ptx = repo().join("kernels/map/sm_80.ptx");
    let defines = format!("N = {n}");
    let spec = common::MapSpec {
        source: &ptx.display().to_string(),
        kernel: "map_poly",
        defines: &defines,
        grid: "N / 128",
        block: "128",
        input: "x",
        n_type: "i32",
    }
    .text();
    std::fs::write(dir.join("map.toml"), spec).expect("spec written");
    dir
}

/// Elements that keep the emulator busy for about a second in this build,
/// so the spinner (redrawn every 100 ms) shows the CTAs being counted.
fn busy_elements() -> u64 {
    if cfg!(debug_assertions) {
        1 << 19
    } else {
        1 << 23
    }
}

/// Spinner text and stderr lines: the CTA count drawn by the spinner.
fn check_spinner(command: &str) {
    let dir = map_spec(command, busy_elements());
    let mut args = vec![command, "map.toml"];
    if command == "predict" {
        args.extend(["--gpu", "a100-sxm4-80gb", "--model", "timing"]);
    }
    let (drawn, ok) = stderr_on_terminal(&dir, &args);
    assert!(ok, "{command} failed on a terminal:\n{drawn}");
    assert!(
        drawn.contains("emulating every CTA") || drawn.contains("emulating:"),
        "{command}: no emulation stage on the terminal:\n{drawn}"
    );
    assert!(
        drawn.contains(" CTAs (") && drawn.contains(" %)"),
        "{command}: no CTA count on the terminal:\n{drawn}"
    );

    args.push("-q");
    let (quiet, ok) = stderr_on_terminal(&dir, &args);
    assert!(ok, "{command} -q failed:\n{quiet}");
    assert!(
        !quiet.contains("CTAs (") && !quiet.contains("emulating"),
        "{command} -q drew progress:\n{quiet}"
    );
    args.pop();

    let (piped, ok) = stderr_piped(&dir, &args);
    assert!(ok, "{command} failed piped:\n{piped}");
    assert!(
        !piped.contains("CTAs (") && !piped.contains("emulating"),
        "{command} drew progress into a pipe:\n{piped}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_shows_the_ctas_it_emulates_on_a_terminal_only() {
    check_spinner("run");
}

#[test]
fn characterize_shows_the_ctas_it_emulates_on_a_terminal_only() {
    check_spinner("characterize");
}

#[test]
fn predict_shows_the_ctas_it_emulates_on_a_terminal_only() {
    check_spinner("predict");
}

#[test]
fn tune_shows_a_bar_of_configurations_on_a_terminal_only() {
    if !common::nvrtc_available() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("ptxperf-progress-{}-tune", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp folder");
    let spec = repo().join("kernels/map/spec.toml");
    let spec = spec.to_str().expect("utf-8 path");
    let args = [
        "tune",
        spec,
        "--gpu",
        "a100-sxm4-80gb",
        "--param",
        "N=4096,8192,16384,32768",
        "--model",
        "timing",
        "--no-cache",
    ];
    let (drawn, ok) = stderr_on_terminal(&dir, &args);
    assert!(ok, "tune failed on a terminal:\n{drawn}");
    assert!(
        drawn.contains("/4 configurations"),
        "tune: no bar of 4 configurations on the terminal:\n{drawn}"
    );
    let (piped, ok) = stderr_piped(&dir, &args);
    assert!(ok, "tune failed piped:\n{piped}");
    assert!(
        !piped.contains("configurations (eta"),
        "tune drew its bar into a pipe:\n{piped}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
