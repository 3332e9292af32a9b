//! The time breakdown of a study: per configuration and in total, the wall
//! seconds spent in each pipeline stage ([`Stage`]: NVRTC, PTX parsing,
//! ptxas, emulation, characterization, cache model, models) and the rest
//! (`other`: reading and instantiating sources, building launches, cache
//! look-ups, saving profiles).
//!
//! All times are wall time measured with [`std::time::Instant`] on the
//! worker thread that evaluates the configuration, one clock read around
//! each stage call. A configuration's stages are disjoint intervals inside
//! its total, so their sum never exceeds it; with `jobs` workers the
//! configurations' totals add up to about `jobs` times the run's wall time.
//! A stage served by a cache (PTX cache, result cache) counts 0 s and one
//! hit. Times are reported only: no ranking or score reads them.

use std::time::Duration;

use pipeline::{Stage, StageTimes};

/// The breakdown of one configuration, or the sum over several.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Timings {
    /// Configurations added up here (1 for one configuration).
    pub configurations: usize,
    /// Wall time per stage.
    pub stages: StageTimes,
    /// Wall time of the whole configuration on its worker thread.
    pub total: Duration,
    /// PTX served from a cache (the PTX cache on disk, or this process's
    /// compilations of a launch spec's `.cu` source): NVRTC counted 0 s.
    pub ptx_cache_hits: usize,
    /// Results served from the result cache (`tune`; one per GPU served):
    /// every stage counted 0 s.
    pub result_cache_hits: usize,
}

impl Timings {
    /// A configuration's breakdown, nothing counted yet.
    pub fn one() -> Timings {
        Timings {
            configurations: 1,
            ..Timings::default()
        }
    }

    /// The time no stage accounts for: the total less the stages (never
    /// negative).
    pub fn other(&self) -> Duration {
        self.total.saturating_sub(self.stages.sum())
    }

    /// The time of `stage`.
    pub fn stage(&self, stage: Stage) -> Duration {
        self.stages.get(stage)
    }

    /// Add `other` (another configuration, or another sum) to this one.
    pub fn add(&mut self, other: &Timings) {
        self.configurations += other.configurations;
        self.stages.merge(&other.stages);
        self.total = self.total.saturating_add(other.total);
        self.ptx_cache_hits += other.ptx_cache_hits;
        self.result_cache_hits += other.result_cache_hits;
    }

    /// The sum of `all`.
    pub fn sum<'a>(all: impl IntoIterator<Item = &'a Timings>) -> Timings {
        all.into_iter().fold(Timings::default(), |mut acc, t| {
            acc.add(t);
            acc
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_is_the_rest_and_sums_add_every_field() {
        let mut a = Timings::one();
        a.stages.add(Stage::Nvrtc, Duration::from_millis(30));
        a.stages.add(Stage::Emulation, Duration::from_millis(50));
        a.total = Duration::from_millis(100);
        a.ptx_cache_hits = 1;
        assert_eq!(a.other(), Duration::from_millis(20));
        let mut b = Timings::one();
        b.total = Duration::from_millis(5);
        b.result_cache_hits = 1;
        let s = Timings::sum([&a, &b]);
        assert_eq!(s.configurations, 2);
        assert_eq!(s.total, Duration::from_millis(105));
        assert_eq!(s.stage(Stage::Nvrtc), Duration::from_millis(30));
        assert_eq!((s.ptx_cache_hits, s.result_cache_hits), (1, 1));
        assert_eq!(s.other(), Duration::from_millis(25));
        // Stages that exceed the total (they cannot when measured) leave no
        // negative rest.
        let mut c = Timings::one();
        c.stages.add(Stage::Models, Duration::from_millis(2));
        assert_eq!(c.other(), Duration::ZERO);
    }
}
