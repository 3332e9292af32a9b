//! Where the time of one kernel's trip through the pipeline goes: wall
//! seconds per [`Stage`], measured with [`std::time::Instant`] around each
//! stage call (never per instruction or per event), on the thread that does
//! the work.
//!
//! The stages are sub-intervals of one thread's work, none inside another,
//! so their sum never exceeds the wall time of the whole; what is left
//! (reading sources, building launches, caches, saving profiles) is the
//! caller's `other`. The times are reported only: nothing ranks or scores by
//! them.

use std::time::{Duration, Instant};

/// A step of the pipeline whose time is kept apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// NVRTC compiling CUDA C++ to PTX (0 when the PTX came from a cache).
    Nvrtc,
    /// Parsing the PTX, resolving the entry, measuring its shared memory.
    PtxParse,
    /// ptxas runs for the register and shared-memory counts.
    Ptxas,
    /// The emulator running the kernel, with the collector and the cache
    /// trace recorder watching (their per-event work is part of it: it is
    /// not timed apart, so as not to cost a clock read per event); sampling
    /// probes included.
    Emulation,
    /// Turning the collected counts into Kerr et al.'s metrics and the
    /// models' profile: the instruction table, the collector's totals, the
    /// per-line rows, the static analyses (ILP, conversions, register
    /// estimate).
    Characterization,
    /// The trace's finishing and the L1/L2 simulation (`cachesim`).
    CacheModel,
    /// Occupancy and every analytical model.
    Models,
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 7] = [
        Stage::Nvrtc,
        Stage::PtxParse,
        Stage::Ptxas,
        Stage::Emulation,
        Stage::Characterization,
        Stage::CacheModel,
        Stage::Models,
    ];

    /// The stage's name in JSON keys and tables.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Nvrtc => "nvrtc",
            Stage::PtxParse => "ptx_parse",
            Stage::Ptxas => "ptxas",
            Stage::Emulation => "emulation",
            Stage::Characterization => "characterization",
            Stage::CacheModel => "cache_model",
            Stage::Models => "models",
        }
    }

    fn index(self) -> usize {
        match self {
            Stage::Nvrtc => 0,
            Stage::PtxParse => 1,
            Stage::Ptxas => 2,
            Stage::Emulation => 3,
            Stage::Characterization => 4,
            Stage::CacheModel => 5,
            Stage::Models => 6,
        }
    }
}

/// Wall time per [`Stage`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StageTimes {
    times: [Duration; 7],
}

impl StageTimes {
    /// Count `d` to `stage`.
    pub fn add(&mut self, stage: Stage, d: Duration) {
        if let Some(t) = self.times.get_mut(stage.index()) {
            *t = t.saturating_add(d);
        }
    }

    /// Run `f`, counting its wall time to `stage`.
    pub fn time<T>(&mut self, stage: Stage, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = f();
        self.add(stage, start.elapsed());
        out
    }

    /// The time counted to `stage`.
    pub fn get(&self, stage: Stage) -> Duration {
        self.times
            .get(stage.index())
            .copied()
            .unwrap_or(Duration::ZERO)
    }

    /// Every stage's time added up.
    pub fn sum(&self) -> Duration {
        self.times
            .iter()
            .fold(Duration::ZERO, |a, t| a.saturating_add(*t))
    }

    /// Add `other`'s times, stage by stage.
    pub fn merge(&mut self, other: &StageTimes) {
        for stage in Stage::ALL {
            self.add(stage, other.get(stage));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_add_up_and_keep_apart() {
        let mut t = StageTimes::default();
        t.add(Stage::Nvrtc, Duration::from_millis(3));
        t.add(Stage::Models, Duration::from_millis(2));
        t.add(Stage::Nvrtc, Duration::from_millis(1));
        assert_eq!(t.get(Stage::Nvrtc), Duration::from_millis(4));
        assert_eq!(t.get(Stage::Emulation), Duration::ZERO);
        assert_eq!(t.sum(), Duration::from_millis(6));
        let mut u = StageTimes::default();
        u.merge(&t);
        u.merge(&t);
        assert_eq!(u.get(Stage::Models), Duration::from_millis(4));
        let v = u.time(Stage::CacheModel, || 7);
        assert_eq!(v, 7);
        assert!(u.sum() >= Duration::from_millis(12));
    }

    #[test]
    fn stage_names_are_distinct() {
        let mut names: Vec<&str> = Stage::ALL.iter().map(|s| s.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Stage::ALL.len());
        for (i, s) in Stage::ALL.iter().enumerate() {
            assert_eq!(s.index(), i);
        }
    }
}
