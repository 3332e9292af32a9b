//! One warp: its call frames (each with registers and a reconvergence
//! stack), its threads' local memory, and the loop that executes ops until
//! the warp waits at a barrier, finishes, or faults.

use std::cell::Cell;

use ptx::SpecialReg;

use super::alu::L;
use super::decode::{Func, Program};
use super::idle::Idle;
use super::ops::*;
use crate::fault::{CudaSite, Fault, FaultKind, FaultSite};
use crate::mem::{GlobalMemory, Region, Space};
use crate::observer::{Observer, Site};
use crate::simt::barrier::{CtaBarriers, RedOp, Release};
use crate::simt::stack::{Policy, SimtStack};
use crate::simt::{Mask, WARP_SIZE, lanes};

mod access;
mod collective;
mod control;
mod execute;
mod mbarrier;
mod memory_ops;
mod surface;
mod tensor;
mod tensor_int;
mod tensor_wmma;
mod texture;

/// A source operand's lanes: a register's, borrowed, or a value made for
/// the operand (an immediate, a special register, a frame address).
// The value is kept inline on purpose: it lives on the stack for one
// instruction, and boxing it would allocate per operand.
#[allow(clippy::large_enum_variant)]
enum Operand<'s> {
    Reg(&'s L),
    Value(L),
}

impl std::ops::Deref for Operand<'_> {
    type Target = L;

    #[inline]
    fn deref(&self) -> &L {
        match self {
            Operand::Reg(v) => v,
            Operand::Value(v) => v,
        }
    }
}

/// Warp instructions a warp runs before the scheduler moves to the next
/// ready warp of its CTA (a fixed number: scheduling stays deterministic).
pub const TIME_SLICE: u32 = 4096;

/// Deepest call nesting before a call-stack-overflow fault.
pub const MAX_CALL_DEPTH: usize = 256;

/// Launch-wide, read-only facts every warp needs.
pub struct LaunchCtx<'a> {
    pub prog: &'a Program,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub params: &'a Region,
    pub consts: &'a Region,
    pub policy: Policy,
    pub fuel: u64,
    pub dynamic_shared: u32,
    pub shared_total: u64,
    /// The device heap's (base, bytes), where the kernel calls malloc.
    pub heap: Option<(u64, u64)>,
    /// The texture objects of the launch; object `k`'s handle is `k + 1`.
    pub textures: &'a [Texture],
    /// Ops to skip, in a run for addresses alone
    /// ([`crate::exec::LaunchOptions::addresses_only`]).
    pub idle: Option<&'a crate::exec::idle::IdleOps>,
}

/// A texture object: a global buffer of texels (row after row, x fastest)
/// and how fetches read it.
#[derive(Debug, Clone)]
pub struct Texture {
    /// The argument's name, for messages.
    pub name: String,
    /// The buffer's global address.
    pub base: u64,
    /// The channel type.
    pub elem: crate::spec::ScalarType,
    pub view: crate::spec::TextureView,
}

/// State of the CTA the warp belongs to.
pub struct CtaState<'a> {
    pub id: [u32; 3],
    pub linear: u32,
    pub shared: Region,
    pub barriers: CtaBarriers,
    pub global: &'a mut GlobalMemory,
    pub printf: &'a mut String,
    /// Barriers completed while a warp ran: the scheduler wakes their warps.
    pub releases: Vec<Release>,
}

struct Frame {
    func: u32,
    regs: Vec<L>,
    preds: Vec<Mask>,
    simt: SimtStack,
    /// Offset of this frame in each thread's local memory.
    base: u64,
    /// Where the return values go in the caller.
    rets_to: Vec<CallRet>,
    /// Threads that executed `ret` (as opposed to `exit`).
    returned: Mask,
    /// The callee's own return slots (offset, size) in this frame.
    ret_layout: Vec<(u64, u64)>,
    /// The callee's `.reg` return registers (`None`: the frame slot holds it).
    ret_regs: Vec<Option<R>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarpState {
    Ready,
    Waiting,
    Done,
}

pub struct Warp {
    pub id: u32,
    first_thread: u32,
    frames: Vec<Frame>,
    local: Vec<Region>,
    pub executed: u64,
    pub thread_instructions: u64,
    pub state: WarpState,
    /// A `bar.red` waiting for its result: destination, reduction, lanes.
    pending_red: Option<(VoteDst, RedOp, Mask)>,
    /// Set by an mbarrier wait that found its phase incomplete: the warp
    /// ends its time slice so the warps that will arrive can run.
    yield_slice: bool,
    max_depth: usize,
    /// CC.CF of each lane (carry, or borrow after a subtraction).
    carry: Mask,
    /// The first register index out of its frame's range that an access of
    /// the current op used (see [`RegFault`]).
    reg_fault: Cell<Option<RegFault>>,
}

/// A register index outside the frame: the decoder and the frame disagree,
/// an emulator bug. The accessors cannot return an error without a branch
/// at each of their hundred call sites, so they note it here, read a zero or
/// drop the write, and [`Warp::step`] turns the note into a fault before
/// the op's results can be used: one test per op, not per access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RegFault {
    Read(R),
    Write(R),
    PredRead(P),
    PredWrite(P),
}

impl RegFault {
    fn message(self, func: &str, n_regs: usize, n_preds: usize) -> String {
        let (what, index, n) = match self {
            RegFault::Read(r) => ("read of register", r as usize, n_regs),
            RegFault::Write(r) => ("write of register", r as usize, n_regs),
            RegFault::PredRead(p) => ("read of predicate", p as usize, n_preds),
            RegFault::PredWrite(p) => ("write of predicate", p as usize, n_preds),
        };
        format!("{what} slot {index}, but the frame of `{func}` has {n} (decoder bug)")
    }
}

type Res<T> = Result<T, FaultKind>;

impl Warp {
    pub fn new(
        id: u32,
        first_thread: u32,
        threads: u32,
        entry: u32,
        func: &Func,
        policy: Policy,
    ) -> Warp {
        let mask = crate::simt::first_lanes(threads as usize);
        let frame = Frame {
            func: entry,
            regs: vec![[0; WARP_SIZE]; func.n_regs],
            preds: vec![0; func.n_preds],
            simt: SimtStack::new(policy, mask, 0),
            base: 0,
            rets_to: Vec::new(),
            returned: 0,
            ret_layout: Vec::new(),
            ret_regs: Vec::new(),
        };
        let local = (0..WARP_SIZE)
            .map(|_| Region::new(Space::Local, func.frame_size as usize, true))
            .collect();
        Warp {
            id,
            first_thread,
            frames: vec![frame],
            local,
            executed: 0,
            thread_instructions: 0,
            state: if mask == 0 {
                WarpState::Done
            } else {
                WarpState::Ready
            },
            pending_red: None,
            yield_slice: false,
            max_depth: 1,
            carry: 0,
            reg_fault: Cell::new(None),
        }
    }

    pub fn max_stack_depth(&self) -> usize {
        self.max_depth
    }

    fn top(&self) -> &Frame {
        &self.frames[self.frames.len() - 1]
    }

    fn top_mut(&mut self) -> &mut Frame {
        let n = self.frames.len() - 1;
        &mut self.frames[n]
    }

    /// Thread index (x, y, z) of a lane.
    pub fn tid(&self, lx: &LaunchCtx<'_>, lane: usize) -> [u32; 3] {
        let t = self.first_thread + lane as u32;
        let [bx, by, _] = lx.block;
        [t % bx, (t / bx) % by, t / (bx * by)]
    }

    /// Wake after a barrier completed; deliver a pending `bar.red` result.
    pub fn release(&mut self, r: &Release) {
        if let Some((d, op, mask)) = self.pending_red.take() {
            let v = r.red(op);
            let lanes_v = [v as u64; WARP_SIZE];
            match d {
                VoteDst::Reg(d) => self.write(d, &lanes_v, mask),
                VoteDst::Pred(p) => self.set_pred(p, if v != 0 { mask } else { 0 }, mask),
            }
        }
        for f in &mut self.frames {
            f.simt.release();
        }
        if self.state == WarpState::Waiting {
            self.state = WarpState::Ready;
        }
    }

    fn special(&self, lx: &LaunchCtx<'_>, cta: &CtaState<'_>, s: SpecialReg, out: &mut L) {
        use SpecialReg as S;
        for (l, o) in out.iter_mut().enumerate() {
            let tid = self.tid(lx, l);
            let lane = l as u32;
            *o = match s {
                S::Tid(d) => tid[d.index()] as u64,
                S::Ntid(d) => lx.block[d.index()] as u64,
                S::Ctaid(d) => cta.id[d.index()] as u64,
                S::Nctaid(d) => lx.grid[d.index()] as u64,
                S::Laneid => lane as u64,
                S::Warpid => self.id as u64,
                S::Nwarpid => lx.block.iter().product::<u32>().div_ceil(32) as u64,
                S::Smid | S::Gridid => 0,
                S::Nsmid => 1,
                S::LanemaskEq => 1u64 << lane,
                S::LanemaskLe => (u64::MAX >> (63 - lane)) & 0xffff_ffff,
                S::LanemaskLt => ((1u64 << lane) - 1) & 0xffff_ffff,
                S::LanemaskGe => (0xffff_ffffu64 << lane) & 0xffff_ffff,
                S::LanemaskGt => (0xffff_fffeu64 << lane) & 0xffff_ffff,
                // Deterministic clocks: the warp's own instruction count.
                S::Clock => self.executed & 0xffff_ffff,
                S::ClockHi => self.executed >> 32,
                S::Clock64 => self.executed,
                S::GlobalTimer => self.executed * 1000,
                S::GlobalTimerLo => (self.executed * 1000) & 0xffff_ffff,
                S::GlobalTimerHi => (self.executed * 1000) >> 32,
                // Every CTA is a cluster of its own (the implicit 1 x 1 x 1
                // cluster of a launch without clusters; a kernel that asks
                // for larger ones is refused at launch).
                S::ClusterId(d) => cta.id[d.index()] as u64,
                S::NClusterId(d) => lx.grid[d.index()] as u64,
                S::ClusterCtaId(_) | S::ClusterCtaRank | S::IsExplicitCluster => 0,
                S::ClusterNCtaId(_) | S::ClusterNCtaRank => 1,
                S::DynamicSmemSize => lx.dynamic_shared as u64,
                S::TotalSmemSize | S::AggrSmemSize => lx.shared_total,
                _ => 0,
            };
        }
    }

    #[inline]
    /// `f` of the three sources, lane by lane.
    fn map3(
        &self,
        lx: &LaunchCtx<'_>,
        cta: &CtaState<'_>,
        [a, b, c]: [Src; 3],
        f: impl Fn(u64, u64, u64) -> u64,
    ) -> L {
        let (x, y, z) = (
            self.fetch(lx, cta, a),
            self.fetch(lx, cta, b),
            self.fetch(lx, cta, c),
        );
        std::array::from_fn(|l| f(x[l], y[l], z[l]))
    }

    fn fetch(&self, lx: &LaunchCtx<'_>, cta: &CtaState<'_>, s: Src) -> L {
        match s {
            Src::Reg(r) => match self.top().regs.get(r as usize) {
                Some(v) => *v,
                None => self.bad_reg(RegFault::Read(r), [0; WARP_SIZE]),
            },
            Src::Imm(v) => [v; WARP_SIZE],
            Src::Frame(off) => [self.top().base + off; WARP_SIZE],
            Src::Sreg(sr) => {
                let mut out = [0; WARP_SIZE];
                self.special(lx, cta, sr, &mut out);
                out
            }
        }
    }

    /// A source operand by reference: registers are not copied; other
    /// kinds are materialised in the [`Operand`] itself. (A caller-provided
    /// zeroed buffer per operand cost three 256-byte memsets an FMA, half
    /// of `exec`'s own time on a GEMM.)
    #[inline]
    fn operand<'s>(&'s self, lx: &LaunchCtx<'_>, cta: &CtaState<'_>, s: Src) -> Operand<'s> {
        if let Src::Reg(r) = s
            && let Some(v) = self.top().regs.get(r as usize)
        {
            return Operand::Reg(v);
        }
        Operand::Value(self.fetch(lx, cta, s))
    }

    #[inline]
    fn write(&mut self, d: R, v: &L, mask: Mask) {
        let Some(r) = self.top_mut().regs.get_mut(d as usize) else {
            self.bad_reg(RegFault::Write(d), ());
            return;
        };
        if mask == Mask::MAX {
            *r = *v;
            return;
        }
        for l in 0..WARP_SIZE {
            let on = (mask >> l) & 1 != 0;
            r[l] = if on { v[l] } else { r[l] };
        }
    }

    /// `mov d, s` between registers in place (one copy, where fetching and
    /// writing made two). False when either is out of range: the caller's
    /// general path reports it.
    #[inline]
    fn copy_reg(&mut self, d: R, s: R, mask: Mask) -> bool {
        let regs = &mut self.top_mut().regs;
        let (d, s) = (d as usize, s as usize);
        if d >= regs.len() || s >= regs.len() {
            return false;
        }
        if mask == Mask::MAX {
            regs.copy_within(s..=s, d);
        } else {
            for l in crate::simt::lanes(mask) {
                regs[d][l] = regs[s][l];
            }
        }
        true
    }

    /// Note an out-of-range register (the first of the op wins) and give
    /// `stand_in` to the caller, which [`Warp::step`] then discards by faulting.
    #[cold]
    #[inline(never)]
    fn bad_reg<T>(&self, fault: RegFault, stand_in: T) -> T {
        if self.reg_fault.get().is_none() {
            self.reg_fault.set(Some(fault));
        }
        stand_in
    }

    fn pred(&self, p: PSrc) -> Mask {
        match p {
            PSrc::Imm(b) => {
                if b {
                    Mask::MAX
                } else {
                    0
                }
            }
            PSrc::Reg(r, neg) => {
                let v = match self.top().preds.get(r as usize) {
                    Some(v) => *v,
                    None => self.bad_reg(RegFault::PredRead(r), 0),
                };
                if neg { !v } else { v }
            }
        }
    }

    /// `BoolOp(t, c)` of setp / set, or `t` without a combiner.
    fn combine(&self, t: Mask, comb: &Option<(ptx::BoolOp, PSrc)>) -> Mask {
        match comb {
            None => t,
            Some((bop, p)) => {
                let p = self.pred(*p);
                match bop {
                    ptx::BoolOp::And => t & p,
                    ptx::BoolOp::Or => t | p,
                    ptx::BoolOp::Xor => t ^ p,
                }
            }
        }
    }

    fn set_pred(&mut self, p: P, value: Mask, mask: Mask) {
        match self.top_mut().preds.get_mut(p as usize) {
            Some(r) => *r = (*r & !mask) | (value & mask),
            None => self.bad_reg(RegFault::PredWrite(p), ()),
        }
    }

    /// Run until the warp waits at a barrier, finishes, or faults.
    pub fn run<O: Observer>(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        obs: &mut O,
    ) -> Result<(), Box<Fault>> {
        // A completed barrier hands control back so the scheduler can wake its
        // warps; so does the end of a time slice, so that a warp spinning on
        // a flag another warp of the CTA sets lets that warp run.
        let mut slice = 0;
        self.yield_slice = false;
        while self.state == WarpState::Ready
            && cta.releases.is_empty()
            && !self.yield_slice
            && slice < TIME_SLICE
        {
            slice += 1;
            if let Err((kind, lane, pc)) = self.step(lx, cta, obs) {
                return Err(Box::new(self.fault(lx, cta, kind, lane, pc)));
            }
        }
        if self.yield_slice
            && let Some(frame) = self.frames.last_mut()
        {
            frame.simt.yield_split();
        }
        Ok(())
    }

    /// A fault at the barrier this warp waits on (deadlock reports).
    pub fn waiting_fault(&self, lx: &LaunchCtx<'_>, cta: &CtaState<'_>, kind: FaultKind) -> Fault {
        let (lane, pc) = self.frames.last().map_or((0, 0), |f| {
            let e = f
                .simt
                .entries()
                .iter()
                .rev()
                .find(|e| e.waiting)
                .or(f.simt.top());
            e.map_or((0, 0), |e| {
                (e.mask.trailing_zeros() as usize, e.pc.saturating_sub(1))
            })
        });
        self.fault(lx, cta, kind, lane.min(WARP_SIZE - 1), pc)
    }

    fn fault(
        &self,
        lx: &LaunchCtx<'_>,
        cta: &CtaState<'_>,
        kind: FaultKind,
        lane: usize,
        pc: u32,
    ) -> Fault {
        let site = self.frames.last().and_then(|f| {
            let func = lx.prog.funcs.get(f.func as usize)?;
            let cuda = func
                .source
                .get(pc as usize)
                .copied()
                .flatten()
                .and_then(|l| {
                    Some(CudaSite {
                        file: lx.prog.source_files.get(l.file as usize)?.clone(),
                        line: l.line,
                        text: None,
                    })
                });
            Some(FaultSite {
                file: lx.prog.file.clone(),
                line: func.lines.get(pc as usize).copied().unwrap_or(0),
                function: func.name.clone(),
                instruction: func.text.get(pc as usize).cloned().unwrap_or_default(),
                cuda,
            })
        });
        Fault {
            kind,
            cta: cta.id,
            thread: self.tid(lx, lane),
            warp: self.id,
            lane: lane as u32,
            site,
        }
    }

    /// Execute one op. Errors carry the faulting lane and pc.
    fn step<O: Observer>(
        &mut self,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        obs: &mut O,
    ) -> Result<(), (FaultKind, usize, u32)> {
        let Some(frame) = self.frames.last() else {
            self.state = WarpState::Done;
            return Ok(());
        };
        if frame.simt.done() {
            self.pop_frame().map_err(|k| (k, 0, 0))?;
            return Ok(());
        }
        if frame.simt.waiting() {
            self.state = WarpState::Waiting;
            return Ok(());
        }
        let pc = frame.simt.pc();
        let active = frame.simt.active();
        let first = active.trailing_zeros() as usize;
        let func_idx = frame.func;
        let func = &lx.prog.funcs[func_idx as usize];
        let guard = func.guards.get(pc as usize).copied().flatten();
        let exec = match guard {
            None => active,
            Some((p, neg)) => match frame.preds.get(p as usize) {
                Some(&v) => active & if neg { !v } else { v },
                None => {
                    let why = RegFault::PredRead(p).message(&func.name, func.n_regs, func.n_preds);
                    return Err((FaultKind::Internal(why), first, pc));
                }
            },
        };
        self.executed += 1;
        if self.executed > lx.fuel {
            return Err((FaultKind::FuelExhausted { budget: lx.fuel }, first, pc));
        }
        self.thread_instructions += exec.count_ones() as u64;
        let site = Site {
            cta: cta.linear,
            warp: self.id,
            func: func_idx,
            pc,
            line: func.lines.get(pc as usize).copied().unwrap_or(0),
        };
        obs.instruction(site, exec);
        // Falling off the end of a body returns, like `ret`.
        let op = func.ops.get(pc as usize).unwrap_or(&Op::Ret);
        let fault_lane = |m: Mask| {
            if m == 0 {
                first
            } else {
                m.trailing_zeros() as usize
            }
        };
        let depth_before = self.top().simt.depth();
        let result = match lx.idle.map(|t| t.of_op(func_idx, pc)) {
            Some(Idle::Skips) => {
                self.next(pc);
                Ok(())
            }
            Some(Idle::Unread) => self.unread_load(op, lx, cta, obs, site, pc, active, exec),
            Some(Idle::Stale) => {
                let places = match op {
                    Op::St { space, addr, .. } => {
                        let addrs = self.addrs(lx, cta, addr);
                        memory_ops::places_of(cta, *space, &addrs, exec)
                    }
                    _ => u64::MAX,
                };
                cta.global.mark_stale(places);
                self.exec(op, lx, cta, obs, site, pc, active, exec)
            }
            _ => self.exec(op, lx, cta, obs, site, pc, active, exec),
        };
        // An out-of-range register outranks whatever the op made of the zero
        // it read instead (a memory fault at address 0, say).
        if let Some(bad) = self.reg_fault.take() {
            let why = bad.message(&func.name, func.n_regs, func.n_preds);
            return Err((FaultKind::Internal(why), fault_lane(exec), pc));
        }
        if let Err((k, lane)) = result {
            return Err((k, lane.unwrap_or(fault_lane(exec)), pc));
        }
        if let Some(f) = self.frames.last() {
            let d = f.simt.depth();
            if d != depth_before {
                self.max_depth = self.max_depth.max(d);
                obs.stack_depth(cta.linear, self.id, d as u32);
            }
        }
        Ok(())
    }

    fn next(&mut self, pc: u32) {
        self.top_mut().simt.goto(pc + 1);
    }

    fn ret(&mut self, mask: Mask) {
        if self.frames.len() == 1 {
            self.exit_threads(mask);
            return;
        }
        let f = self.top_mut();
        f.returned |= mask;
        f.simt.exit(mask);
    }

    /// Threads leave the kernel: out of every frame.
    fn exit_threads(&mut self, mask: Mask) -> u32 {
        for f in &mut self.frames {
            f.simt.exit(mask);
        }
        mask.count_ones()
    }

    /// The top frame finished: copy return values of returning threads, pop.
    fn pop_frame(&mut self) -> Res<()> {
        let Some(f) = self.frames.pop() else {
            return Ok(());
        };
        if self.frames.is_empty() {
            self.state = WarpState::Done;
            return Ok(());
        }
        let caller_base = self.top().base;
        // The callee's return slots were laid out in its frame; rets_to in the caller's.
        for (k, &to) in f.rets_to.iter().enumerate() {
            let Some(&(from, size)) = f.ret_layout.get(k) else {
                continue;
            };
            let from_reg = f.ret_regs.get(k).copied().flatten();
            for l in lanes(f.returned) {
                let mut buf = vec![0u8; size as usize];
                match from_reg.and_then(|r| f.regs.get(r as usize)) {
                    Some(r) => {
                        let n = buf.len().min(8);
                        buf[..n].copy_from_slice(&r[l].to_le_bytes()[..n]);
                    }
                    None => self.local[l]
                        .read(f.base + from, &mut buf, 1)
                        .map_err(FaultKind::Memory)?,
                }
                match to {
                    CallRet::Frame(to) => self.local[l]
                        .write(caller_base + to, &buf, 1)
                        .map_err(FaultKind::Memory)?,
                    CallRet::Reg(r) => {
                        if let Some(dst) = self.top_mut().regs.get_mut(r as usize) {
                            dst[l] = control::le_u64(&buf);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
