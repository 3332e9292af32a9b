//! Emulated thread-instructions per second on one host thread, for five
//! kinds of kernel: ALU-bound (a hand-written PTX loop of dependent fmas,
//! and issue 25's integer recurrence: 64 x 256 threads x 2,000 iterations),
//! global-memory streaming (the corpus `map` kernel), the shared-memory tiled
//! matrix multiplication, and a divergent kernel (the corpus `divergence`).
//!
//! Run: `cargo bench -p emu --bench throughput` (a plain main that times and
//! prints; issue 3's target is 3e8 thread-instructions/s for the ALU kernel,
//! issue 25's that the integer recurrence stays at about 4e8).

use std::path::Path;
use std::time::Instant;

use emu::exec::{LaunchOptions, run_ptx};
use emu::observer::NoObserver;

const ALU_PTX: &str = r#".version 8.0
.target sm_80
.address_size 64
.visible .entry alu(.param .u64 out, .param .u32 iters)
{
.reg .pred %p<2>;
.reg .f32 %f<8>;
.reg .b32 %r<8>;
.reg .b64 %rd<4>;
ld.param.u64 %rd1, [out];
ld.param.u32 %r1, [iters];
mov.u32 %r2, %tid.x;
cvt.rn.f32.u32 %f1, %r2;
mov.f32 %f2, 0f3F800000;
mov.f32 %f3, 0f3F000000;
mov.u32 %r3, 0;
LOOP:
fma.rn.f32 %f2, %f2, %f3, %f1;
fma.rn.f32 %f3, %f3, %f2, %f1;
mul.f32 %f4, %f2, %f3;
add.f32 %f2, %f4, %f2;
fma.rn.f32 %f3, %f4, %f3, %f2;
add.s32 %r3, %r3, 1;
setp.lt.u32 %p1, %r3, %r1;
@%p1 bra LOOP;
cvta.to.global.u64 %rd2, %rd1;
mul.wide.u32 %rd3, %r2, 4;
add.s64 %rd2, %rd2, %rd3;
st.global.f32 [%rd2], %f3;
ret;
}
"#;

/// The launch of a hand-written loop kernel `kernel(out, iters)`: 64 x 256
/// threads, each storing one `element` to `out`.
fn loop_spec(kernel: &str, element: &str, iters: u32) -> String {
    format!(
        r#"source = "{kernel}.ptx"
kernel = "{kernel}"
grid = [64]
block = [256]
[[arg]]
name = "out"
type = "{element}*"
len = 256
[[arg]]
name = "iters"
type = "u32"
value = {iters}
"#
    )
}

/// Issue 25's integer recurrence: a linear congruential step, a shift and
/// an exclusive or per iteration, each depending on the last.
const INT_PTX: &str = r#".version 8.0
.target sm_80
.address_size 64
.visible .entry lcg(.param .u64 out, .param .u32 iters)
{
.reg .pred %p<2>;
.reg .b32 %r<8>;
.reg .b64 %rd<4>;
ld.param.u64 %rd1, [out];
ld.param.u32 %r1, [iters];
mov.u32 %r2, %tid.x;
mov.u32 %r4, %r2;
mov.u32 %r3, 0;
LOOP:
mad.lo.u32 %r4, %r4, 1664525, 1013904223;
shr.u32 %r5, %r4, 13;
xor.b32 %r4, %r4, %r5;
add.s32 %r3, %r3, 1;
setp.lt.u32 %p1, %r3, %r1;
@%p1 bra LOOP;
cvta.to.global.u64 %rd2, %rd1;
mul.wide.u32 %rd3, %r2, 4;
add.s64 %rd2, %rd2, %rd3;
st.global.u32 [%rd2], %r4;
ret;
}
"#;

/// CPU time this thread has run, in seconds (Linux schedstat, nanoseconds);
/// on a shared machine it is steadier than wall time. `None` elsewhere.
fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 * 1e-9)
}

fn measure(label: &str, ptx: &str, file: &str, spec: &emu::spec::LaunchSpec) {
    let opts = LaunchOptions::default();
    // One warm-up run, then the best of five, by thread CPU time (wall time
    // where schedstat is missing) and by wall time.
    let (mut best_cpu, mut best_wall) = (f64::MAX, f64::MAX);
    let mut instr = 0;
    for _ in 0..6 {
        let (t, c) = (Instant::now(), thread_cpu_seconds());
        match run_ptx(ptx, file, spec, opts, &mut NoObserver) {
            Ok(r) => instr = r.stats.thread_instructions,
            Err(e) => {
                println!("{label}: failed: {e}");
                return;
            }
        }
        let wall = t.elapsed().as_secs_f64();
        let cpu = match (c, thread_cpu_seconds()) {
            (Some(a), Some(b)) => b - a,
            _ => wall,
        };
        best_cpu = best_cpu.min(cpu);
        best_wall = best_wall.min(wall);
    }
    let per = |s: f64| if s > 0.0 { instr as f64 / s } else { 0.0 };
    println!(
        "{label:<26} {instr:>10} thread-instr  cpu {best_cpu:>7.4} s {:>10.3e}/s   wall {best_wall:>7.4} s {:>10.3e}/s",
        per(best_cpu),
        per(best_wall)
    );
}

fn corpus(name: &str, sets: &[(&str, &str)]) -> Option<(String, String, emu::spec::LaunchSpec)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../kernels")
        .join(name);
    let text = std::fs::read_to_string(dir.join("spec.toml")).ok()?;
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let spec = emu::spec::parse(&text, &dir.join("spec.toml"), &sets).ok()?;
    let ptx = std::fs::read_to_string(dir.join("sm_80.ptx")).ok()?;
    Some((ptx, format!("kernels/{name}/sm_80.ptx"), spec))
}

fn main() {
    println!("emu throughput, one host thread (sequential CTAs)");
    for (label, kernel, ptx, element, iters) in [
        ("alu (fma loop)", "alu", ALU_PTX, "f32", 200),
        ("integer recurrence (lcg)", "lcg", INT_PTX, "u32", 2000),
    ] {
        let file = format!("{kernel}.ptx");
        match emu::spec::parse(
            &loop_spec(kernel, element, iters),
            Path::new("loop.toml"),
            &[],
        ) {
            Ok(spec) => measure(label, ptx, &file, &spec),
            Err(e) => println!("{kernel} spec: {e}"),
        }
    }
    for (label, name, sets) in [
        ("streaming (map, N=2^20)", "map", vec![("N", "1048576")]),
        ("matmul_tiled (N=64)", "matmul_tiled", vec![]),
        ("divergent (divergence)", "divergence", vec![("N", "16384")]),
    ] {
        match corpus(name, &sets) {
            Some((ptx, file, mut spec)) => {
                if name == "divergence" {
                    spec.grid = [64, 1, 1];
                }
                measure(label, &ptx, &file, &spec)
            }
            None => println!("{label}: corpus kernel {name} not found"),
        }
    }
}
