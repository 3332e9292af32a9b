//! The driver: places CTAs on SMs in waves and advances all SMs in lockstep
//! rounds, one request per warp per round, through the shared hierarchy.

use serde::{Deserialize, Serialize};

use crate::config::CacheConfig;
use crate::error::CacheSimError;
use crate::hierarchy::Hierarchy;
use crate::report::{CacheReport, CtaPlacement, Extrapolated, Tally};
use crate::request::{Path, TRACE_SECTOR_BYTES, Trace};

/// The launch the trace comes from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Launch {
    /// CTAs in the whole grid (the trace may hold only a sample of them).
    pub grid_ctas: u32,
    /// CTAs resident at once on one SM (from the occupancy calculation).
    pub resident_ctas_per_sm: u32,
    /// SMs on the GPU.
    pub num_sms: u32,
    /// Factor scaling the simulated traffic to the whole grid; `None` means
    /// `grid_ctas / simulated CTAs`.
    pub cta_weight: Option<f64>,
}

impl Launch {
    /// Checks that the launch can be simulated.
    pub fn validate(&self) -> Result<(), CacheSimError> {
        if self.num_sms == 0 {
            return Err(CacheSimError::Launch("zero SMs".to_string()));
        }
        if self.resident_ctas_per_sm == 0 {
            return Err(CacheSimError::Launch(
                "zero resident CTAs per SM".to_string(),
            ));
        }
        if self.num_sms > 4096 {
            return Err(CacheSimError::Launch(format!(
                "{} SMs: at most 4096 are modelled",
                self.num_sms
            )));
        }
        if u64::from(self.num_sms) * u64::from(self.resident_ctas_per_sm) > 1 << 24 {
            return Err(CacheSimError::Launch(
                "more than 2^24 resident CTAs on the GPU".to_string(),
            ));
        }
        if let Some(w) = self.cta_weight
            && !(w.is_finite() && w >= 0.0)
        {
            return Err(CacheSimError::Launch(format!(
                "cta_weight {w} is not a finite non-negative number"
            )));
        }
        Ok(())
    }
}

/// A CTA occupying a residency slot.
struct Resident {
    /// Index into `trace.ctas`.
    cta: usize,
    wave: u32,
    placement: usize,
    /// Next request of each warp (index into `trace.reqs`).
    cursors: Vec<u32>,
    /// Warps with requests left.
    live_warps: usize,
}

/// Runs `trace` through the hierarchy described by `config` on `launch`.
///
/// CTAs are dispatched in ascending id order. Residency slot `k` belongs to SM
/// `k % num_sms`, so the first `num_sms * resident` CTAs go round-robin over the
/// SMs; when a CTA issues its last request, the next CTA takes its slot from the
/// following round. Each round, SM 0 to SM n-1 in turn let every warp of every
/// resident CTA (slot order, then warp order) issue its next request.
pub fn simulate(
    config: &CacheConfig,
    launch: &Launch,
    trace: &Trace,
) -> Result<CacheReport, CacheSimError> {
    simulate_warmed(config, launch, trace, None)
}

/// CTAs that ran before the simulated ones and whose data is still in L2
/// when they need it (see [`simulate_warmed`]).
#[derive(Clone, Copy)]
pub struct Warmup<'a> {
    /// Their requests.
    pub trace: &'a Trace,
    /// Which of the trace's CTAs to replay (by id).
    pub keep: &'a dyn Fn(u32) -> bool,
    /// How far ahead of the simulated CTAs each replayed CTA runs, as a
    /// fraction of its rounds (one request per warp and round, as the
    /// simulated CTAs issue them): 1 replays it whole before the first
    /// round; less replays its first `lead` of rounds first and then one
    /// round before each round of the simulation, so that what it shares
    /// with a simulated CTA reaches L2 shortly before that CTA asks for it.
    pub lead: f64,
}

/// A replayed CTA's progress.
struct Shadow {
    /// Its warps' `[start, end)` ranges of the warm-up trace's requests.
    warps: std::ops::Range<usize>,
    /// Its longest warp's request count.
    rounds: u32,
    /// Rounds replayed so far.
    done: u32,
    /// Rounds it runs ahead of the simulation.
    lead: u32,
}

impl Shadow {
    /// Replay this CTA's rounds up to `upto` (exclusive) into L2.
    fn replay_until(&mut self, upto: u32, trace: &Trace, mem: &mut Hierarchy) {
        let upto = upto.min(self.rounds);
        while self.done < upto {
            for &(start, end) in &trace.warps[self.warps.clone()] {
                let i = start + self.done;
                if i >= end {
                    continue;
                }
                let q = trace.reqs[i as usize];
                if q.path == Path::Local {
                    continue;
                }
                let sectors = &trace.sectors[q.start as usize..(q.start + q.len) as usize];
                sectors.iter().for_each(|&s| mem.warm_l2(s));
            }
            self.done += 1;
        }
    }
}

/// [`simulate`], with the L2 warmed by the global, read-only and constant
/// sectors of `warmup`'s kept CTAs, in ascending id, as if they had run just
/// before or alongside (clean: their stores reached DRAM; nothing of theirs
/// is counted, and the L1s start cold). A kept CTA is replayed round by
/// round (request `r` of each of its warps in round `r`), `warmup.lead` of
/// its rounds ahead of the simulation: whole before it when its data fits
/// L2 beside the rest, else as a stream a little ahead of the simulated
/// CTAs, so that a long CTA's data (a GEMM's panels, megabytes each) is not
/// pushed out of L2 by the rest of the replay before it is used. A sample of CTAs spread over the grid
/// loses the reuse between a sampled CTA and its unsampled neighbours (a
/// stencil's halo rows, read by the CTA above first); replaying the
/// neighbours that precede each sampled CTA in launch order gives the
/// sampled CTA the L2 hits it has in the full launch, and leaves it the
/// misses on what it shares with the neighbours that follow it (which hit
/// there instead): one miss per shared sector, as in the full launch.
pub fn simulate_warmed(
    config: &CacheConfig,
    launch: &Launch,
    trace: &Trace,
    warmup: Option<Warmup<'_>>,
) -> Result<CacheReport, CacheSimError> {
    config.validate()?;
    launch.validate()?;
    if let Some(c) = trace.ctas.iter().find(|c| c.id >= launch.grid_ctas) {
        return Err(CacheSimError::CtaOutOfGrid {
            cta: c.id,
            grid: launch.grid_ctas,
        });
    }
    let num_sms = launch.num_sms as usize;
    let resident = launch.resident_ctas_per_sm as usize;
    let n_slots = num_sms * resident;
    let mut mem = Hierarchy::new(config, num_sms);
    let mut shadows: Vec<Shadow> = Vec::new();
    if let Some(w) = warmup {
        let lead = if w.lead.is_finite() {
            w.lead.clamp(0.0, 1.0)
        } else {
            1.0
        };
        for c in w.trace.ctas.iter().filter(|c| (w.keep)(c.id)) {
            let warps = c.warp_start as usize..c.warp_end as usize;
            let rounds = w.trace.warps[warps.clone()]
                .iter()
                .map(|&(start, end)| end - start)
                .max()
                .unwrap_or(0);
            let ahead = ((f64::from(rounds) * lead).ceil() as u32).clamp(1, rounds.max(1));
            let mut shadow = Shadow {
                warps,
                rounds,
                done: 0,
                lead: ahead,
            };
            shadow.replay_until(ahead, w.trace, &mut mem);
            shadows.push(shadow);
        }
        shadows.retain(|s| s.done < s.rounds);
    }
    let mut slots: Vec<Option<Resident>> = (0..n_slots).map(|_| None).collect();
    let mut generation = vec![0u32; n_slots];
    let mut waves: Vec<Tally> = Vec::new();
    let mut schedule: Vec<CtaPlacement> = Vec::with_capacity(trace.ctas.len());
    let mut next_cta = 0usize;
    let mut round: u64 = 0;

    let mut dispatch = |slot: usize,
                        round: u64,
                        slots: &mut Vec<Option<Resident>>,
                        waves: &mut Vec<Tally>,
                        schedule: &mut Vec<CtaPlacement>| {
        while next_cta < trace.ctas.len() {
            let c = trace.ctas[next_cta];
            let wave = generation[slot];
            generation[slot] += 1;
            if waves.len() <= wave as usize {
                waves.resize(wave as usize + 1, Tally::default());
            }
            waves[wave as usize].ctas += 1;
            schedule.push(CtaPlacement {
                cta: c.id,
                sm: (slot % num_sms) as u32,
                slot: (slot / num_sms) as u32,
                wave,
                start_round: round,
                end_round: round,
            });
            let warps = &trace.warps[c.warp_start as usize..c.warp_end as usize];
            let cursors: Vec<u32> = warps.iter().map(|w| w.0).collect();
            let live_warps = warps.iter().filter(|w| w.0 < w.1).count();
            next_cta += 1;
            if live_warps > 0 {
                slots[slot] = Some(Resident {
                    cta: next_cta - 1,
                    wave,
                    placement: schedule.len() - 1,
                    cursors,
                    live_warps,
                });
                return;
            }
        }
    };

    for slot in 0..n_slots {
        dispatch(slot, 0, &mut slots, &mut waves, &mut schedule);
    }
    let mut freed: Vec<usize> = Vec::new();
    while slots.iter().any(Option::is_some) {
        if let Some(w) = warmup {
            let round = u32::try_from(round).unwrap_or(u32::MAX);
            for s in &mut shadows {
                s.replay_until(round.saturating_add(s.lead), w.trace, &mut mem);
            }
        }
        mem.set_round(u32::try_from(round).unwrap_or(u32::MAX));
        for sm in 0..num_sms {
            for r in 0..resident {
                let slot = r * num_sms + sm;
                let Some(res) = slots[slot].as_mut() else {
                    continue;
                };
                let c = trace.ctas[res.cta];
                let tally = &mut waves[res.wave as usize];
                let warps = &trace.warps[c.warp_start as usize..c.warp_end as usize];
                for (cur, &(_, end)) in res.cursors.iter_mut().zip(warps) {
                    if *cur >= end {
                        continue;
                    }
                    let q = trace.reqs[*cur as usize];
                    let sectors = &trace.sectors[q.start as usize..(q.start + q.len) as usize];
                    mem.issue(sm, q.kind, q.path, sectors, tally);
                    *cur += 1;
                    if *cur == end {
                        res.live_warps -= 1;
                    }
                }
                if res.live_warps == 0 {
                    schedule[res.placement].end_round = round;
                    slots[slot] = None;
                    freed.push(slot);
                }
            }
        }
        round += 1;
        freed.sort_unstable();
        for slot in freed.drain(..) {
            dispatch(slot, round, &mut slots, &mut waves, &mut schedule);
        }
    }

    let mut total = Tally::default();
    waves.iter().for_each(|w| total.add(w));
    let flush = if config.flush_l2_at_end {
        mem.l2_dirty_sectors()
    } else {
        0
    };
    total.dram_write_sectors += flush;
    let l2_sector = u64::from(config.l2.sector_bytes);
    let tb = u64::from(TRACE_SECTOR_BYTES);
    let dram_read_bytes = total.dram_read_sectors * l2_sector;
    let dram_write_bytes = total.dram_write_sectors * l2_sector;
    let l2_to_sm_bytes = total.l2_to_sm_sectors * tb;
    let sm_to_l2_bytes = total.sm_to_l2_write_sectors * tb;
    let weight = match (launch.cta_weight, trace.ctas.len()) {
        (Some(w), _) => w,
        (None, 0) => 0.0,
        (None, n) => f64::from(launch.grid_ctas) / n as f64,
    };
    Ok(CacheReport {
        total,
        l1_per_sm: mem.l1_per_sm,
        waves,
        flush_write_sectors: flush,
        dram_read_bytes,
        dram_write_bytes,
        l2_to_sm_bytes,
        sm_to_l2_bytes,
        rounds: round,
        schedule,
        extrapolated: Extrapolated {
            weight,
            dram_read_bytes: dram_read_bytes as f64 * weight,
            dram_write_bytes: dram_write_bytes as f64 * weight,
            l2_to_sm_bytes: l2_to_sm_bytes as f64 * weight,
            sm_to_l2_bytes: sm_to_l2_bytes as f64 * weight,
        },
    })
}
