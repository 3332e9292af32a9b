//! scripts/sass-schedule.py (one warp's issue schedule from ptxas's control
//! bits) on hand-made `nvdisasm -c -hex` text: the control fields are read
//! from the right bits, a load frees its barrier its latency after issue,
//! `--after-barrier`, `--kernel`, `--loop` and `--latency` do what they say,
//! and bad input stops it with exit status 1 and nothing on stdout.
//!
//! Needs `python3`. Without it the test is skipped with a message, except
//! under CI (env `CI` set), where that is a failure.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/sass-schedule.py");
    match Command::new("python3").arg(script).args(args).output() {
        Ok(o) => o,
        Err(e) => panic!("cannot run python3: {e}"),
    }
}

/// The high 64 bits of a Volta-and-later instruction with these control
/// fields (stall bits 41-44, write barrier 46-48, read barrier 49-51, wait
/// mask 52-57 of the high half).
fn high(stall: u64, write_barrier: u64, read_barrier: u64, wait_mask: u64) -> u64 {
    stall << 41 | write_barrier << 46 | read_barrier << 49 | wait_mask << 52
}

/// One instruction as nvdisasm prints it: address, text and low half on one
/// line, the high half on the next.
fn instruction(address: u32, text: &str, high: u64) -> String {
    format!(
        "        /*{address:04x}*/                   {text} ;                 /* 0x000000000000794d */\n                                                                 /* 0x{high:016x} */\n"
    )
}

fn section(name: &str) -> String {
    format!("\t.section\t.text.{name},\"ax\",@progbits\n.text.{name}:\n")
}

/// A kernel of six instructions: a shared load and two FMAs (the first
/// waits for the load), a barrier, a predicated shared load and an FMA that
/// waits for it; then a one-instruction kernel; then a loop of a shared
/// load, an FMA that waits for it and the branch back, ended as nvdisasm
/// ends a kernel, with a branch to itself.
fn sass() -> String {
    let none = 7;
    let mut s = String::from("\t.headerflags\t@\"EF_CUDA_SM75\"\n");
    s += &section("_Z6kernelPf");
    s += &instruction(0x00, "LDS.U R4, [R2]", high(1, 0, none, 0));
    s += &instruction(
        0x10,
        "FFMA R5, R4, c[0x3][0x0], R5",
        high(2, none, none, 0b1),
    );
    s += &instruction(0x20, "FFMA R6, R4, c[0x3][0x4], R6", high(1, none, none, 0));
    s += &instruction(0x30, "BAR.SYNC 0x0", high(1, none, none, 0));
    s += &instruction(0x40, "@!P0 LDS.U R7, [R2+0x4]", high(1, 1, none, 0));
    s += &instruction(
        0x50,
        "FFMA R5, R7, c[0x3][0x8], R5",
        high(4, none, none, 0b10),
    );
    s += &section("_Z5smallv");
    s += &instruction(0x00, "EXIT", high(3, none, none, 0));
    // Five instructions, one fewer than the first kernel, which stays the
    // default (the largest).
    s += &section("_Z4loopv");
    s += ".L_x_0:\n";
    s += &instruction(0x00, "LDS.U R4, [R2]", high(1, 0, none, 0));
    s += &instruction(
        0x10,
        "FFMA R5, R4, c[0x3][0x0], R5",
        high(1, none, none, 0b1),
    );
    s += &instruction(0x20, "@P0 BRA `(.L_x_0)", high(1, none, none, 0));
    s += &instruction(0x30, "EXIT", high(1, none, none, 0));
    s += ".L_x_1:\n";
    s += &instruction(0x40, "BRA `(.L_x_1)", high(1, none, none, 0));
    s
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxperf-sass-schedule-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("{}: {e}", dir.display());
    }
    let path = dir.join(name);
    if let Err(e) = std::fs::write(&path, text) {
        panic!("{}: {e}", path.display());
    }
    path
}

/// The tab-separated row of the one file, as (kernel, instructions, ffma,
/// lds, ldg, stall cycles, replay cycles).
fn row(out: &Output) -> Vec<String> {
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].starts_with("file\tkernel\t"), "{text}");
    lines[1].split('\t').skip(1).map(str::to_string).collect()
}

fn check(args: &[&str], expect: &[&str]) {
    let file = temp_file("k.sass", &sass());
    let mut all = vec!["--sass"];
    all.extend_from_slice(args);
    let path = file.to_string_lossy().to_string();
    all.push(&path);
    assert_eq!(row(&run(&all)), expect, "{args:?}");
}

#[test]
fn one_warp_is_replayed_through_the_control_bits() {
    if !common::python_runs() {
        return;
    }
    // The load issues at 0 and frees barrier 0 at 19 (LDS's default
    // latency); the first FMA waits to 19 and stalls 2; then 22, 23; the
    // second load issues at 23 and frees barrier 1 at 42; the last FMA
    // waits to 42 and stalls 4: 46. Stalls alone: 1+2+1+1+1+4 = 10.
    check(&[], &["_Z6kernelPf", "6", "3", "2", "0", "10", "46.0"]);
    // Twice the load latency: 40, then 42, 43, 44; the load at 44 frees at
    // 84; 88.
    check(
        &["--latency", "LDS=40"],
        &["_Z6kernelPf", "6", "3", "2", "0", "10", "88.0"],
    );
    // After the barrier: the load at 0, the FMA at 19, 4 more: 23.
    check(
        &["--after-barrier"],
        &["_Z6kernelPf", "2", "1", "1", "0", "5", "23.0"],
    );
    // The smaller kernel by name: one instruction stalling 3.
    check(
        &["--kernel", "small"],
        &["_Z5smallv", "1", "0", "0", "0", "3", "3.0"],
    );
    // The loop's body, not the self-branch after EXIT: one iteration alone
    // takes 21 (the load frees at 19, the FMA issues at 19, the branch at
    // 20); the second one starts at 21 and ends at 42, so 21 per iteration.
    check(
        &["--kernel", "loop", "--loop"],
        &["_Z4loopv", "3", "1", "1", "0", "3", "21.0"],
    );
    // LDS at 40: an iteration alone ends at 42 (40, 41, 42), and so does
    // the second after it: 42 per iteration.
    check(
        &["--kernel", "loop", "--loop", "--latency", "LDS=40"],
        &["_Z4loopv", "3", "1", "1", "0", "3", "42.0"],
    );
}

#[test]
fn bad_input_stops_it_with_a_message() {
    if !common::python_runs() {
        return;
    }
    let good = temp_file("good.sass", &sass());
    let good = good.to_string_lossy().to_string();
    let half = sass().lines().take(4).collect::<Vec<_>>().join("\n");
    let truncated = temp_file("half.sass", &half);
    let truncated = truncated.to_string_lossy().to_string();
    let cases: [(Vec<&str>, &str); 6] = [
        (
            vec!["--sass", &good, &truncated],
            "expected the instruction's second half",
        ),
        (
            vec!["--sass", "--kernel", "small", "--after-barrier", &good],
            "has no BAR",
        ),
        (
            vec!["--sass", "--kernel", "small", "--loop", &good],
            "has no backward branch",
        ),
        (
            vec!["--sass", "--latency", "LDS", &good],
            "is not OP=CYCLES",
        ),
        (
            vec!["--sass", "--kernel", "absent", &good],
            "no kernel with SASS found",
        ),
        (vec!["--sass", "/nonexistent/k.sass"], "No such file"),
    ];
    for (args, message) in cases {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{args:?}: {err}");
        assert!(
            out.stdout.is_empty(),
            "{args:?}: nothing printed before the error"
        );
    }
}
