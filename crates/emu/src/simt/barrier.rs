//! CTA barriers (`bar.sync`, `bar.arrive`, `bar.red`, `barrier.*`): 16
//! named barriers per CTA, each counting arriving threads until the expected
//! count; warps that wait are parked until then.
//!
//! Threads that exited count as arrived at a barrier that expects the whole
//! CTA (no thread count operand), as on GPUs since Volta, so that an early
//! `return` before `__syncthreads()` does not hang the CTA.

use std::fmt;

/// Named barriers per CTA (PTX ISA, `bar`: barrier ids 0..15).
pub const NUM_BARRIERS: usize = 16;

/// The reduction of `bar.red`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedOp {
    Popc,
    And,
    Or,
}

/// One warp's arrival at a barrier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arrival {
    pub warp: u32,
    /// Threads of the warp arriving (its active lanes).
    pub threads: u32,
    /// The thread count operand `b`, if given.
    pub expected: Option<u32>,
    /// `bar.sync`/`bar.red` wait; `bar.arrive` does not.
    pub wait: bool,
    /// For `bar.red`: arriving threads whose predicate is true.
    pub true_threads: u32,
}

/// A barrier that completed: the warps to wake, and the reduction results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    pub barrier: u32,
    pub warps: Vec<u32>,
    /// Threads with a true predicate, and all threads counted, for `bar.red`.
    pub true_threads: u32,
    pub threads: u32,
}

impl Release {
    pub fn red(&self, op: RedOp) -> u32 {
        match op {
            RedOp::Popc => self.true_threads,
            RedOp::And => (self.true_threads == self.threads) as u32,
            RedOp::Or => (self.true_threads > 0) as u32,
        }
    }
}

/// A misuse of a barrier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BarrierError {
    BadId { id: u32 },
    BadCount { count: u32, cta_threads: u32 },
    CountMismatch { id: u32, first: u32, now: u32 },
}

impl fmt::Display for BarrierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BadId { id } => write!(f, "barrier id {id} is out of range 0..{NUM_BARRIERS}"),
            Self::BadCount { count, cta_threads } => {
                write!(
                    f,
                    "barrier thread count {count} is not a positive multiple of 32 up to the CTA's {cta_threads} threads"
                )
            }
            Self::CountMismatch { id, first, now } => {
                write!(
                    f,
                    "barrier {id} used with thread count {now} while it counts to {first}"
                )
            }
        }
    }
}

#[derive(Debug, Clone, Default)]
struct Slot {
    expected: Option<u32>,
    arrived: u32,
    true_threads: u32,
    waiting: Vec<u32>,
}

/// Barrier state of one CTA.
#[derive(Debug, Clone)]
pub struct CtaBarriers {
    slots: Vec<Slot>,
    cta_threads: u32,
    exited: u32,
}

impl CtaBarriers {
    pub fn new(cta_threads: u32) -> Self {
        Self {
            slots: vec![Slot::default(); NUM_BARRIERS],
            cta_threads,
            exited: 0,
        }
    }

    /// Record an arrival. Returns the release when this arrival completes the
    /// barrier (the arriving warp is included in `warps` if it waits).
    pub fn arrive(&mut self, id: u32, a: Arrival) -> Result<Option<Release>, BarrierError> {
        let cta_threads = self.cta_threads;
        let slot = self
            .slots
            .get_mut(id as usize)
            .ok_or(BarrierError::BadId { id })?;
        if let Some(count) = a.expected
            && (count == 0
                || count % 32 != 0 && count != cta_threads
                || count > cta_threads.next_multiple_of(32))
        {
            return Err(BarrierError::BadCount { count, cta_threads });
        }
        let now = a.expected.unwrap_or(cta_threads);
        if slot.arrived > 0 {
            let first = slot.expected.unwrap_or(cta_threads);
            if first != now {
                return Err(BarrierError::CountMismatch { id, first, now });
            }
        }
        slot.expected = a.expected;
        slot.arrived += a.threads;
        slot.true_threads += a.true_threads;
        if a.wait {
            slot.waiting.push(a.warp);
        }
        Ok(self.try_release(id))
    }

    /// Threads of the CTA exited; may complete barriers that count the whole CTA.
    pub fn exit(&mut self, threads: u32) -> Vec<Release> {
        self.exited += threads;
        (0..NUM_BARRIERS as u32)
            .filter_map(|id| self.try_release(id))
            .collect()
    }

    fn try_release(&mut self, id: u32) -> Option<Release> {
        let exited = self.exited;
        let cta_threads = self.cta_threads;
        let slot = self.slots.get_mut(id as usize)?;
        if slot.arrived == 0 {
            return None;
        }
        let (target, have) = match slot.expected {
            Some(count) => (count.min(cta_threads), slot.arrived),
            None => (cta_threads, slot.arrived + exited),
        };
        if have < target {
            return None;
        }
        let s = std::mem::take(slot);
        Some(Release {
            barrier: id,
            warps: s.waiting,
            true_threads: s.true_threads,
            threads: s.arrived,
        })
    }

    /// Barriers with arrivals still pending: (id, arrived, expected), for deadlock reports.
    pub fn pending(&self) -> Vec<(u32, u32, u32)> {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.arrived > 0)
            .map(|(i, s)| (i as u32, s.arrived, s.expected.unwrap_or(self.cta_threads)))
            .collect()
    }
}
