//! Merging the collectors of a forked run (one per contiguous range of
//! CTAs, in launch order) into the collector a sequential run would have
//! filled, and the check that the ranges saw what a sequential run sees.
//!
//! Every figure merges exactly: counts add, maxima take the maximum, the
//! footprint is a union of sector sets, the per-CTA list is concatenated in
//! launch order and then sorted by CTA id, and the state that depends on
//! event order (shared-memory producers, per-thread counts) lives within
//! one CTA, which one range runs whole. So the merged numbers do not
//! depend on how many ranges there were.

use crate::collector::{Collector, CtaCounts, Traffic};
use crate::counters::add_classes;

impl Collector<'_> {
    /// Add the collector of the range that ran after this one's.
    pub(crate) fn absorb(&mut self, o: Collector<'_>) {
        self.totals.add(&o.totals);
        self.ctas.extend(o.ctas);
        self.max_depth = self.max_depth.max(o.max_depth);
        for (m, x) in self.thread_max.iter_mut().zip(&o.thread_max) {
            *m = (*m).max(*x);
        }
        add_classes(&mut self.thread_sum, &o.thread_sum);
        self.threads_seen += o.threads_seen;
        for (mine, theirs) in self.lines.iter_mut().zip(&o.lines) {
            for (a, b) in mine.iter_mut().zip(theirs) {
                a.add(b);
            }
        }
        self.watched.union_with(&o.watched);
        match (&mut self.others, &o.others) {
            (Some(a), Some(b)) => a.union_with(b),
            (None, Some(b)) => self.others = Some(b.clone()),
            _ => {}
        }
    }

    /// Order the per-CTA counts by CTA id, a CTA that ran twice (an
    /// explicit list may repeat one) counted once with both runs' counts.
    pub(crate) fn finish(&mut self) {
        self.ctas.sort_by_key(|&(id, _)| id);
        let mut merged: Vec<(u32, CtaCounts)> = Vec::with_capacity(self.ctas.len());
        for &(id, c) in &self.ctas {
            match merged.last_mut() {
                Some((last, m)) if *last == id => {
                    m.warp_instructions += c.warp_instructions;
                    m.thread_instructions += c.thread_instructions;
                }
                _ => merged.push((id, c)),
            }
        }
        self.ctas = merged;
    }

    /// Distinct global sectors and 128-byte lines the watched CTAs touched.
    pub(crate) fn footprint(&self) -> (u64, u64) {
        let mut all = self.watched.loads.clone();
        all.union_with(&self.watched.stores);
        (all.sectors(), all.lines())
    }
}

/// Whether some range loaded a global sector that an earlier range stored
/// to: its run then read memory that a sequential run would have changed
/// first (sector granularity: a false alarm costs a sequential run, never a
/// wrong number).
pub(crate) fn ranges_conflict(ranges: &[Collector<'_>]) -> bool {
    let mut written = Traffic::default();
    for r in ranges {
        let others = r.others.as_ref();
        let read_written = [Some(&r.watched), others]
            .into_iter()
            .flatten()
            .any(|t| t.loads.intersects(&written.stores));
        if read_written {
            return true;
        }
        written.stores.union_with(&r.watched.stores);
        if let Some(o) = others {
            written.stores.union_with(&o.stores);
        }
    }
    false
}
