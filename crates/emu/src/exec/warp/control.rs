//! Calls into device functions (frames, argument and return copies, the
//! depth limit) and CTA barriers (arrival, parking, `bar.red`).

use ptx::BarMode;

use super::execute::{ExecResult, mem_err};
use super::{CtaState, Frame, LaunchCtx, MAX_CALL_DEPTH, Warp, WarpState};
use crate::exec::ops::*;
use crate::fault::FaultKind;
use crate::observer::{BarrierEvent, BarrierKind, Observer, Site};
use crate::simt::barrier::Arrival;
use crate::simt::stack::{Policy, SimtStack};
use crate::simt::{Mask, WARP_SIZE, lanes};

/// The first (up to) 8 little-endian bytes as a register value.
pub(super) fn le_u64(bytes: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = bytes.len().min(8);
    b[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(b)
}

impl Warp {
    /// Device-side `malloc(size)` for each active lane, in lane order: the
    /// next `size` bytes of the launch's heap, rounded up to 16 (the
    /// alignment CUDA's allocations have), or 0 (NULL) when the heap is
    /// exhausted or `size` is 0. The heap's free pointer lives in its first
    /// bytes, in global memory, so sequential CTAs share it; a kernel that
    /// calls malloc runs its CTAs sequentially (as with global atomics), which
    /// makes the addresses the same on any number of host threads. `free`
    /// returns nothing to the heap.
    pub(super) fn malloc(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        exec: Mask,
        (size, size_bytes): (CallArg, u8),
        (ret, ret_bytes): (CallRet, u8),
    ) -> ExecResult {
        let Some((heap, heap_bytes)) = lx.heap else {
            let why = "internal: malloc without a device heap".to_string();
            return Err((FaultKind::Unsupported(why), None));
        };
        let base = self.top().base;
        let sizes = match size {
            CallArg::Value(src) => self.fetch(lx, cta, src),
            CallArg::Frame(from) => {
                let mut v = [0u64; WARP_SIZE];
                for l in lanes(exec) {
                    let mut b = [0u8; 8];
                    self.local[l]
                        .read(base + from, &mut b[..usize::from(size_bytes)], 1)
                        .map_err(mem_err(l))?;
                    v[l] = u64::from_le_bytes(b);
                }
                v
            }
        };
        let end = heap + heap_bytes;
        let mut out = [0u64; WARP_SIZE];
        for l in lanes(exec) {
            let mut b = [0u8; 8];
            cta.global.read(heap, &mut b, 1).map_err(mem_err(l))?;
            let next = u64::from_le_bytes(b);
            let want = sizes[l].checked_next_multiple_of(16).unwrap_or(u64::MAX);
            if sizes[l] == 0 || want > end.saturating_sub(next) {
                continue;
            }
            out[l] = next;
            cta.global
                .write(heap, &(next + want).to_le_bytes(), 1)
                .map_err(mem_err(l))?;
        }
        match ret {
            CallRet::Reg(r) => self.write(r, &out, exec),
            CallRet::Frame(to) => {
                for l in lanes(exec) {
                    let bytes = out[l].to_le_bytes();
                    self.local[l]
                        .write(base + to, &bytes[..usize::from(ret_bytes)], 1)
                        .map_err(mem_err(l))?;
                }
            }
        }
        Ok(())
    }

    pub(super) fn call(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &CtaState<'_>,
        callee: u32,
        args: &[CallArg],
        rets: &[CallRet],
        exec: Mask,
    ) -> ExecResult {
        if self.frames.len() >= MAX_CALL_DEPTH {
            return Err((
                FaultKind::CallStackOverflow {
                    depth: self.frames.len() as u32,
                },
                None,
            ));
        }
        let f = lx
            .prog
            .funcs
            .get(callee as usize)
            .ok_or((FaultKind::Unsupported("call target".into()), None))?;
        let caller = self.top();
        let caller_base = caller.base;
        let caller_size = lx
            .prog
            .funcs
            .get(caller.func as usize)
            .map_or(0, |c| c.frame_size);
        let base = caller_base + caller_size;
        // Each thread's local stack is bounded like the call depth.
        if base + f.frame_size > crate::exec::layout::MAX_SPACE_BYTES {
            return Err((
                FaultKind::CallStackOverflow {
                    depth: self.frames.len() as u32,
                },
                None,
            ));
        }
        let mut regs = vec![[0; WARP_SIZE]; f.n_regs];
        for l in lanes(exec) {
            self.local[l].grow((base + f.frame_size) as usize);
        }
        for (k, arg) in args.iter().enumerate() {
            let Some(&(to, size)) = f.params.get(k) else {
                continue;
            };
            let to_reg = f.param_regs.get(k).copied().flatten();
            // `.reg` passing (ISA 7.1): the value, truncated to the parameter's size.
            let value = match arg {
                CallArg::Value(src) => Some(self.fetch(lx, cta, *src)),
                CallArg::Frame(_) => None,
            };
            for l in lanes(exec) {
                let mut bytes = vec![0u8; size as usize];
                match (arg, value) {
                    (_, Some(v)) => {
                        let n = bytes.len().min(8);
                        bytes[..n].copy_from_slice(&v[l].to_le_bytes()[..n]);
                    }
                    (CallArg::Frame(from), None) => self.local[l]
                        .read(caller_base + from, &mut bytes, 1)
                        .map_err(mem_err(l))?,
                    (CallArg::Value(_), None) => {}
                }
                match to_reg.and_then(|r| regs.get_mut(r as usize)) {
                    Some(r) => r[l] = le_u64(&bytes),
                    None => self.local[l]
                        .write(base + to, &bytes, 1)
                        .map_err(mem_err(l))?,
                }
            }
        }
        let policy = self.top().simt.policy();
        self.frames.push(Frame {
            func: callee,
            regs,
            preds: vec![0; f.n_preds],
            simt: SimtStack::new(policy, exec, 0),
            base,
            rets_to: rets.to_vec(),
            returned: 0,
            ret_layout: f.rets.clone(),
            ret_regs: f.ret_regs.clone(),
        });
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn barrier<O: Observer>(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        obs: &mut O,
        site: Site,
        pc: u32,
        exec: Mask,
        mode: BarMode,
        id: Src,
        count: Option<Src>,
        red: Option<(crate::simt::barrier::RedOp, PSrc)>,
        d: Option<VoteDst>,
    ) -> ExecResult {
        let kind = match mode {
            BarMode::Sync => BarrierKind::Sync,
            BarMode::Arrive => BarrierKind::Arrive,
            BarMode::Red => BarrierKind::Red,
        };
        let first = exec.trailing_zeros() as usize;
        let id_v = self.fetch(lx, cta, id)[first.min(31)] as u32;
        obs.barrier(&BarrierEvent {
            site,
            kind,
            barrier: id_v,
            active: exec,
        });
        if exec == 0 {
            self.next(pc);
            return Ok(());
        }
        let live = self.frames[0].simt.live();
        let wait = mode != BarMode::Arrive;
        if wait && self.top().simt.policy() == Policy::Ipdom && exec != live {
            return Err((
                FaultKind::DivergentBarrier {
                    barrier: id_v,
                    active: exec,
                    live,
                },
                None,
            ));
        }
        let expected = count.map(|c| self.fetch(lx, cta, c)[first] as u32);
        let true_threads = red.map_or(0, |(_, p)| (self.pred(p) & exec).count_ones());
        let arrival = Arrival {
            warp: self.id,
            threads: exec.count_ones(),
            expected,
            wait,
            true_threads,
        };
        let release = cta
            .barriers
            .arrive(id_v, arrival)
            .map_err(|e| (FaultKind::Barrier(e), None))?;
        if let (Some((op, _)), Some(d)) = (red, d) {
            self.pending_red = Some((d, op, exec));
        }
        if !wait {
            self.next(pc);
        } else if self.top_mut().simt.park(pc + 1) {
            self.state = WarpState::Waiting;
        }
        if let Some(r) = release {
            cta.releases.push(r);
        }
        Ok(())
    }
}
