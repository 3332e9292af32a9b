//! `ptxperf measure`: a launch timed on this machine's GPU and its buffers
//! compared with the emulator's, as text and JSON.

use gpurun::compare::Comparison;
use gpurun::{SpecRun, SpecRunResult, TimeStats};

/// One measured launch, and its buffers against the emulator's.
pub struct Report<'a> {
    pub kernel: &'a str,
    pub entry: &'a str,
    pub run: &'a SpecRun,
    pub measured: &'a SpecRunResult,
    pub stats: TimeStats,
    pub comparisons: Option<&'a [Comparison]>,
}

impl Report<'_> {
    fn cc(&self) -> String {
        let (major, minor) = self.measured.compute_capability;
        format!("{major}.{minor}")
    }

    /// The times and the comparisons as text.
    pub fn text(&self) -> String {
        let (r, s) = (self.run, self.stats);
        let mut out = format!("kernel {} ({})\n", self.kernel, self.entry);
        out.push_str(&format!(
            "grid {:?}, block {:?}, dynamic shared {} B\n",
            r.grid, r.block, r.dynamic_shared
        ));
        out.push_str(&format!(
            "device {}, compute capability {}\n",
            self.measured.device,
            self.cc()
        ));
        out.push_str(&format!(
            "time per launch over {} launches ({} warm-up): median {:.3} µs, min {:.3} µs, mean {:.3} µs, max {:.3} µs\n",
            self.measured.times_ms.len(),
            r.warmup,
            s.median * 1e3,
            s.min * 1e3,
            s.mean * 1e3,
            s.max * 1e3
        ));
        if let Some(cmp) = self.comparisons {
            out.push_str("buffers after the first launch, GPU against the emulator:\n");
            for c in cmp {
                out.push_str(&format!("  {}: {c}\n", c.buffer));
            }
        }
        out
    }

    /// The same as JSON.
    pub fn json(&self) -> serde_json::Value {
        let (r, s) = (self.run, self.stats);
        let mut v = serde_json::json!({
            "kernel": self.kernel,
            "entry": self.entry,
            "device": self.measured.device,
            "cc": self.cc(),
            "grid": r.grid,
            "block": r.block,
            "dynamic_shared": r.dynamic_shared,
            "warmup": r.warmup,
            "reps": r.reps,
            "times_ms": self.measured.times_ms,
            "median_ms": s.median,
            "min_ms": s.min,
            "mean_ms": s.mean,
            "max_ms": s.max,
        });
        if let (Some(cmp), Some(obj)) = (self.comparisons, v.as_object_mut()) {
            obj.insert("compare".into(), serde_json::json!(cmp));
        }
        v
    }
}
