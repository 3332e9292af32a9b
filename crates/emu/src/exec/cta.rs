//! One CTA: its warps, shared memory and barriers, and the scheduler that
//! runs each ready warp until it blocks, wakes the warps a completed barrier
//! releases, and reports a deadlock when every remaining warp waits.

use super::warp::{CtaState, LaunchCtx, Warp, WarpState};
use crate::fault::{Fault, FaultKind};
use crate::mem::{GlobalMemory, Region};
use crate::observer::Observer;
use crate::simt::barrier::CtaBarriers;

/// Counters of one CTA's execution.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CtaStats {
    pub warps: u64,
    pub warp_instructions: u64,
    pub thread_instructions: u64,
    pub max_stack_depth: u64,
}

impl CtaStats {
    pub fn add(&mut self, o: &CtaStats) {
        self.warps += o.warps;
        self.warp_instructions += o.warp_instructions;
        self.thread_instructions += o.thread_instructions;
        self.max_stack_depth = self.max_stack_depth.max(o.max_stack_depth);
    }
}

#[allow(clippy::too_many_arguments)]
pub fn run_cta<O: Observer>(
    lx: &LaunchCtx<'_>,
    entry: u32,
    id: [u32; 3],
    linear: u32,
    shared: Region,
    global: &mut GlobalMemory,
    printf: &mut String,
    obs: &mut O,
) -> Result<CtaStats, Box<Fault>> {
    let threads: u32 = lx.block.iter().product();
    let func = &lx.prog.funcs[entry as usize];
    let n_warps = threads.div_ceil(32);
    let mut warps: Vec<Warp> = (0..n_warps)
        .map(|w| {
            Warp::new(
                w,
                w * 32,
                (threads - w * 32).min(32),
                entry,
                func,
                lx.policy,
            )
        })
        .collect();
    let mut cta = CtaState {
        id,
        linear,
        shared,
        barriers: CtaBarriers::new(threads),
        global,
        printf,
        releases: Vec::new(),
    };
    obs.cta_begin(linear);
    loop {
        let mut ran = false;
        for w in 0..warps.len() {
            if warps[w].state != WarpState::Ready {
                continue;
            }
            ran = true;
            warps[w].run(lx, &mut cta, obs)?;
            for r in std::mem::take(&mut cta.releases) {
                for &wid in &r.warps {
                    if let Some(wp) = warps.get_mut(wid as usize) {
                        wp.release(&r);
                    }
                }
            }
        }
        if warps.iter().all(|w| w.state == WarpState::Done) {
            break;
        }
        if !ran {
            let (barrier, arrived, expected) = cta
                .barriers
                .pending()
                .first()
                .copied()
                .unwrap_or((0, 0, threads));
            let w = warps
                .iter()
                .find(|w| w.state == WarpState::Waiting)
                .unwrap_or(&warps[0]);
            return Err(Box::new(w.waiting_fault(
                lx,
                &cta,
                FaultKind::Deadlock {
                    barrier,
                    arrived,
                    expected,
                },
            )));
        }
    }
    obs.cta_end(linear);
    let mut stats = CtaStats {
        warps: n_warps as u64,
        ..Default::default()
    };
    for w in &warps {
        stats.warp_instructions += w.executed;
        stats.thread_instructions += w.thread_instructions;
        stats.max_stack_depth = stats.max_stack_depth.max(w.max_stack_depth() as u64);
    }
    Ok(stats)
}
