//! A launch spec's kernel on a real GPU, the part that needs no GPU: what to
//! launch ([`SpecRun`], built from the bytes the emulator binds,
//! [`emu::exec::host_launch`]), what comes back ([`SpecRunResult`]) and the
//! statistics of the launch times ([`TimeStats`]). The launch itself is
//! [`crate::run_spec`].

use emu::exec::{HostArg, HostConstant, HostLaunch};
use emu::spec::LaunchSpec;

/// One kernel argument, in parameter order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelArg {
    /// A device buffer allocated for the launch and filled with `bytes`; the
    /// parameter receives its 64-bit address.
    Buffer { name: String, bytes: Vec<u8> },
    /// A scalar's raw little-endian bytes, exactly the parameter's size.
    Scalar { name: String, bytes: Vec<u8> },
}

/// Everything one measurement launches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecRun {
    /// The PTX text; the driver's JIT compiles it for the device.
    pub ptx: String,
    /// The entry as the PTX names it (mangled for C++).
    pub entry: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Dynamic shared memory per CTA, bytes.
    pub dynamic_shared: u32,
    pub args: Vec<KernelArg>,
    /// `__constant__` / `__device__` symbols written before the first launch.
    pub constants: Vec<HostConstant>,
    /// Untimed launches after the first one, before the timed ones.
    pub warmup: u32,
    /// Timed launches; at least 1.
    pub reps: u32,
}

impl SpecRun {
    /// The launch of `spec` with the bytes the emulator binds (`host`, from
    /// [`emu::exec::host_launch`] on the same module), the PTX text `ptx`,
    /// and the warm-up and repetition counts.
    pub fn new(ptx: &str, spec: &LaunchSpec, host: HostLaunch, warmup: u32, reps: u32) -> Self {
        let args = host
            .args
            .into_iter()
            .map(|a| match a {
                HostArg::Scalar { name, bytes } => KernelArg::Scalar { name, bytes },
                HostArg::Buffer { name, bytes, .. } => KernelArg::Buffer { name, bytes },
                // `host_launch` refuses structs with pointer members, so none
                // reaches here; without pointers a struct is a scalar's bytes.
                HostArg::Struct { name, bytes, .. } => KernelArg::Scalar { name, bytes },
            })
            .collect();
        SpecRun {
            ptx: ptx.to_string(),
            entry: host.entry,
            grid: spec.grid,
            block: spec.block,
            dynamic_shared: spec.dynamic_shared,
            args,
            constants: host.constants,
            warmup,
            reps,
        }
    }
}

/// A buffer argument's contents after the first launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutBuffer {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// What a measurement returns.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecRunResult {
    /// The device's name (cuDeviceGetName).
    pub device: String,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
    /// Each timed launch, ms (CUDA events around the launch on the stream).
    pub times_ms: Vec<f64>,
    /// Every buffer argument, in argument order, as the FIRST launch left it
    /// (from the initial bytes). The timed launches that follow start from
    /// whatever the previous launch left: a kernel that updates its data in
    /// place is timed on already-modified data.
    pub buffers: Vec<OutBuffer>,
}

/// Median, minimum, mean and maximum of launch times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeStats {
    pub median: f64,
    pub min: f64,
    pub mean: f64,
    pub max: f64,
}

impl TimeStats {
    /// The statistics of `times` (the median of an even count is the mean of
    /// the two middle values); `None` for no times.
    pub fn of(times: &[f64]) -> Option<TimeStats> {
        if times.is_empty() {
            return None;
        }
        let mut v = times.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        Some(TimeStats {
            median,
            min: v[0],
            mean: v.iter().sum::<f64>() / n as f64,
            max: v[n - 1],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// A kernel with a buffer, an i32, an f32 and a constant table.
    const PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.const .align 4 .b8 coef[16];
.visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1, .param .f32 k_param_2)
{
    ret;
}
"#;

    const SPEC: &str = r#"
source = "k.ptx"
kernel = "k"
grid = [2, 1, 1]
block = [32, 1, 1]
dynamic_shared = 64

[[arg]]
name = "data"
type = "u16*"
len = 3
init = "iota"

[[arg]]
name = "n"
type = "i32"
value = -2

[[arg]]
name = "scale"
type = "f32"
value = 1.5

[[constant]]
name = "coef"
type = "f32"
len = 2
init = { fill = 1.0 }
"#;

    fn spec_run(spec_text: &str) -> Result<SpecRun, String> {
        let spec = emu::spec::parse(spec_text, Path::new("t/spec.toml"), &[])
            .map_err(|e| e.to_string())?;
        let module = ptx::parse("k.ptx", PTX).map_err(|d| d.render("k.ptx", PTX))?;
        let host = emu::exec::host_launch(&module, "k.ptx", &spec).map_err(|f| f.to_string())?;
        Ok(SpecRun::new(PTX, &spec, host, 3, 20))
    }

    #[test]
    fn a_spec_marshals_to_the_bytes_the_emulator_binds() {
        let run = spec_run(SPEC).expect("valid spec");
        assert_eq!(run.entry, "k");
        assert_eq!((run.grid, run.block), ([2, 1, 1], [32, 1, 1]));
        assert_eq!(run.dynamic_shared, 64);
        assert_eq!((run.warmup, run.reps), (3, 20));
        let one = 1.0f32.to_le_bytes();
        let check = |i: usize, want: KernelArg| assert_eq!(run.args[i], want, "argument {i}");
        check(
            0,
            KernelArg::Buffer {
                name: "data".into(),
                bytes: vec![0, 0, 1, 0, 2, 0],
            },
        );
        check(
            1,
            KernelArg::Scalar {
                name: "n".into(),
                bytes: (-2i32).to_le_bytes().to_vec(),
            },
        );
        check(
            2,
            KernelArg::Scalar {
                name: "scale".into(),
                bytes: 1.5f32.to_le_bytes().to_vec(),
            },
        );
        assert_eq!(run.args.len(), 3);
        assert_eq!(
            run.constants,
            vec![HostConstant {
                name: "coef".into(),
                bytes: [one, one].concat(),
            }]
        );
    }

    #[test]
    fn a_spec_the_emulator_refuses_is_refused_here_too() {
        let check = |from: &str, to: &str, want: &str| {
            let e = spec_run(&SPEC.replace(from, to)).expect_err(want);
            assert!(e.contains(want), "{e}");
        };
        check(
            "type = \"i32\"",
            "type = \"i64\"",
            "argument `n` is i64 (8 bytes), but parameter 1",
        );
        check("name = \"coef\"", "name = \"nope\"", "no such __constant__");
        check("len = 2", "len = 5", "20 bytes do not fit the symbol's 16");
        check("kernel = \"k\"", "kernel = \"q\"", "no kernel `q`");
    }

    #[test]
    fn time_stats() {
        let check = |times: &[f64], want: Option<(f64, f64, f64, f64)>| {
            let got = TimeStats::of(times).map(|s| (s.median, s.min, s.mean, s.max));
            assert_eq!(got, want, "{times:?}");
        };
        check(&[], None);
        check(&[2.0], Some((2.0, 2.0, 2.0, 2.0)));
        check(&[3.0, 1.0, 2.0], Some((2.0, 1.0, 2.0, 3.0)));
        check(&[4.0, 1.0, 2.0, 3.0], Some((2.5, 1.0, 2.5, 4.0)));
    }
}
