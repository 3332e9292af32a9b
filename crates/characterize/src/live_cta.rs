//! [`LiveCta`]: what the collector keeps about the CTA that is running (the
//! emulator runs one CTA of a range at a time, from `cta_begin` to
//! `cta_end`). Its buffers are reused from CTA to CTA: nothing is allocated
//! per event, and per CTA only when the block or shared window grows.

use std::collections::HashMap;

use emu::simt::{Mask, WARP_SIZE, lanes};
use ptx::analysis::InstClass;

use crate::counters::ClassCounts;

const CLASSES: usize = InstClass::COUNT;

/// Shared words (4 bytes) below this index have a slot in the dense table;
/// the shared window is at most 16 MiB (`emu::exec::layout::MAX_SPACE_BYTES`).
/// Generic addresses of shared memory are far above and go to the map.
const DENSE_WORDS: u64 = 1 << 22;

/// The last non-exempt store to each shared word of the running CTA.
#[derive(Debug, Default)]
struct Producers {
    /// Per word: (generation, thread). A slot counts only when its
    /// generation is the running CTA's, so a new CTA starts empty without
    /// clearing the table.
    dense: Vec<(u32, u32)>,
    generation: u32,
    /// Words at or above `DENSE_WORDS` (generic addresses), cleared per CTA.
    sparse: HashMap<u64, u32>,
}

impl Producers {
    fn reset(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // After 2^32 CTAs the generations repeat: start over.
            self.dense.iter_mut().for_each(|s| *s = (0, 0));
            self.generation = 1;
        }
        self.sparse.clear();
    }

    fn get(&self, word: u64) -> Option<u32> {
        if word < DENSE_WORDS {
            let &(g, t) = self.dense.get(word as usize)?;
            (g == self.generation).then_some(t)
        } else {
            self.sparse.get(&word).copied()
        }
    }

    fn set(&mut self, word: u64, thread: u32) {
        if word < DENSE_WORDS {
            let i = word as usize;
            if i >= self.dense.len() {
                self.dense.resize(i + 1, (0, 0));
            }
            self.dense[i] = (self.generation, thread);
        } else {
            self.sparse.insert(word, thread);
        }
    }
}

/// The running CTA.
#[derive(Debug, Default)]
pub(crate) struct LiveCta {
    /// Whether the running CTA is watched (the rest of the state is then live).
    pub(crate) watched: bool,
    pub(crate) id: u32,
    pub(crate) warp_instructions: u64,
    pub(crate) thread_instructions: u64,
    threads: usize,
    /// `[thread][class]` issues by a partial warp (flattened).
    per_thread: Vec<u64>,
    /// `[warp][class]` issues by every lane of a warp: one add instead of 32.
    per_warp: Vec<u64>,
    producers: Producers,
}

impl LiveCta {
    /// Start CTA `id` of `threads` threads.
    pub(crate) fn begin(&mut self, id: u32, threads: usize) {
        self.watched = true;
        self.id = id;
        self.warp_instructions = 0;
        self.thread_instructions = 0;
        self.threads = threads;
        self.per_thread.clear();
        self.per_thread.resize(threads * CLASSES, 0);
        self.per_warp.clear();
        self.per_warp
            .resize(threads.div_ceil(WARP_SIZE) * CLASSES, 0);
        self.producers.reset();
    }

    /// Count an issue of `class` by the lanes of `mask` of warp `warp`.
    #[inline]
    pub(crate) fn count(&mut self, warp: u32, class: InstClass, mask: Mask) {
        let k = class.index();
        let first = warp as usize * WARP_SIZE;
        if mask == Mask::MAX {
            if let Some(n) = self.per_warp.get_mut(warp as usize * CLASSES + k) {
                *n += 1;
            }
            return;
        }
        for lane in lanes(mask) {
            let t = first + lane;
            if t < self.threads
                && let Some(n) = self.per_thread.get_mut(t * CLASSES + k)
            {
                *n += 1;
            }
        }
    }

    /// Fold the per-thread counts into maxima and sums; returns the threads.
    pub(crate) fn finish(&mut self, max: &mut ClassCounts, sum: &mut ClassCounts) -> u64 {
        self.watched = false;
        for (t, row) in self.per_thread.chunks_exact(CLASSES).enumerate() {
            let w = t / WARP_SIZE * CLASSES;
            let whole = self.per_warp.get(w..w + CLASSES).unwrap_or(&[]);
            for k in 0..CLASSES {
                let n = row[k] + whole.get(k).copied().unwrap_or(0);
                max[k] = max[k].max(n);
                sum[k] += n;
            }
        }
        self.threads as u64
    }

    /// The thread that last stored (non-exempt) to shared word `word`.
    #[inline]
    pub(crate) fn producer(&self, word: u64) -> Option<u32> {
        self.producers.get(word)
    }

    #[inline]
    pub(crate) fn set_producer(&mut self, word: u64, thread: u32) {
        self.producers.set(word, thread);
    }
}
