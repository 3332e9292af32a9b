//! The op interpreter: one `match` per warp instruction. Arithmetic and
//! control flow are here; memory ([`super::memory_ops`]), warp-collective
//! ([`super::collective`]) and call/barrier ([`super::control`]) ops call out.

use super::{CtaState, LaunchCtx, Warp};
use crate::exec::alu::{self, L, mask_of};
use crate::exec::ops::*;
use crate::exec::printf;
use crate::fault::FaultKind;
use crate::observer::{BranchEvent, Observer, Site};
use crate::simt::{Mask, WARP_SIZE, lanes};

pub(super) type ExecResult = Result<(), (FaultKind, Option<usize>)>;

pub(super) fn mem_err(lane: usize) -> impl Fn(crate::mem::MemFault) -> (FaultKind, Option<usize>) {
    move |f| (FaultKind::Memory(f), Some(lane))
}

impl Warp {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn exec<O: Observer>(
        &mut self,
        op: &Op,
        lx: &LaunchCtx<'_>,
        cta: &mut CtaState<'_>,
        obs: &mut O,
        site: Site,
        pc: u32,
        active: Mask,
        exec: Mask,
    ) -> ExecResult {
        // Ops that do nothing for predicated-off lanes, except control flow
        // and warp-collective ones which handle `exec` themselves.
        let collective = matches!(
            op,
            Op::Bra { .. }
                | Op::BrxIdx { .. }
                | Op::Bar { .. }
                | Op::Exit
                | Op::Ret
                | Op::CallIndirect { .. }
        );
        if exec == 0 && !collective {
            self.next(pc);
            return Ok(());
        }
        match op {
            Op::Nop | Op::WarpSync => {}
            Op::Mov { d, a } => {
                let in_place = match *a {
                    Src::Reg(s) => self.copy_reg(*d, s, exec),
                    _ => false,
                };
                if !in_place {
                    let v = self.fetch(lx, cta, *a);
                    self.write(*d, &v, exec);
                }
            }
            Op::MovVec { d, a } => {
                // At most 4 elements (`.v4`): no allocation.
                let mut vals = [[0u64; WARP_SIZE]; 4];
                for (v, s) in vals.iter_mut().zip(a) {
                    *v = self.fetch(lx, cta, *s);
                }
                for (r, v) in d.iter().zip(&vals) {
                    if let Some(r) = r {
                        self.write(*r, v, exec);
                    }
                }
            }
            Op::Pack { d, parts, bits } => {
                let mut out = [0u64; WARP_SIZE];
                for (k, p) in parts.iter().enumerate() {
                    let v = self.fetch(lx, cta, *p);
                    let sh = k as u32 * *bits as u32;
                    for l in 0..WARP_SIZE {
                        out[l] |= (v[l] & mask_of(*bits as u32)) << sh;
                    }
                }
                self.write(*d, &out, exec);
            }
            Op::Unpack { parts, a, bits } => {
                let v = self.fetch(lx, cta, *a);
                for (k, p) in parts.iter().enumerate() {
                    let Some(d) = p else { continue };
                    let sh = k as u32 * *bits as u32;
                    let mut out = [0u64; WARP_SIZE];
                    for l in 0..WARP_SIZE {
                        out[l] = (v[l] >> sh) & mask_of(*bits as u32);
                    }
                    self.write(*d, &out, exec);
                }
            }
            Op::IntHalves {
                op,
                halves,
                signed,
                relu,
                d,
                a,
                b,
            } => {
                let (x, y) = (self.fetch(lx, cta, *a), self.fetch(lx, cta, *b));
                let mut out = [0u64; WARP_SIZE];
                alu::int_halves(*op, *halves, *signed, *relu, &x, &y, &mut out);
                self.write(*d, &out, exec);
            }
            Op::Int2 {
                op,
                bits,
                signed,
                d,
                a,
                b,
            } => {
                // Bound one by one: `[*a, *b].map(|s| self.operand(..))` ran
                // the emulator's integer benchmark 2.5x slower (docs/speed.md).
                let x_op = self.operand(lx, cta, *a);
                let x = &*x_op;
                let y_op = self.operand(lx, cta, *b);
                let y = &*y_op;
                let mut out = [0u64; WARP_SIZE];
                alu::int2(*op, *bits, *signed, x, y, &mut out);
                self.write(*d, &out, exec);
            }
            Op::Int1 {
                op,
                bits,
                signed,
                d,
                a,
            } => {
                let x = self.fetch(lx, cta, *a);
                let mut out = [0u64; WARP_SIZE];
                alu::int1(*op, *bits, *signed, &x, &mut out);
                self.write(*d, &out, exec);
            }
            Op::Int3 {
                op,
                bits,
                signed,
                d,
                a,
                b,
                c,
            } => {
                let x_op = self.operand(lx, cta, *a);
                let x = &*x_op;
                let y_op = self.operand(lx, cta, *b);
                let y = &*y_op;
                let z_op = self.operand(lx, cta, *c);
                let z = &*z_op;
                let mut out = [0u64; WARP_SIZE];
                alu::int3(*op, *bits, *signed, x, y, z, &mut out);
                self.write(*d, &out, exec);
            }
            Op::Bfi {
                bits,
                d,
                a,
                b,
                pos,
                len,
            } => {
                let (x, y) = (self.fetch(lx, cta, *a), self.fetch(lx, cta, *b));
                let (p, n) = (self.fetch(lx, cta, *pos), self.fetch(lx, cta, *len));
                let mut out = [0u64; WARP_SIZE];
                alu::bfi(*bits, &x, &y, &p, &n, &mut out);
                self.write(*d, &out, exec);
            }
            Op::F2 { op, ty, m, d, a, b } => {
                let x_op = self.operand(lx, cta, *a);
                let x = &*x_op;
                let y_op = self.operand(lx, cta, *b);
                let y = &*y_op;
                let mut out = [0u64; WARP_SIZE];
                alu::float2(*op, *ty, *m, x, y, &mut out);
                self.write(*d, &out, exec);
            }
            Op::F1 { op, ty, m, d, a } => {
                let x_op = self.operand(lx, cta, *a);
                let x = &*x_op;
                let mut out = [0u64; WARP_SIZE];
                alu::float1(*op, *ty, *m, x, &mut out);
                self.write(*d, &out, exec);
            }
            Op::Fma { ty, m, d, a, b, c } => {
                let x_op = self.operand(lx, cta, *a);
                let x = &*x_op;
                let y_op = self.operand(lx, cta, *b);
                let y = &*y_op;
                let z_op = self.operand(lx, cta, *c);
                let z = &*z_op;
                let mut out = [0u64; WARP_SIZE];
                alu::fma(*ty, *m, x, y, z, &mut out);
                self.write(*d, &out, exec);
            }
            Op::Setp {
                cmp,
                ty,
                packed,
                d,
                d2,
                a,
                b,
                comb,
            } => {
                let x_op = self.operand(lx, cta, *a);
                let x = &*x_op;
                let y_op = self.operand(lx, cta, *b);
                let y = &*y_op;
                let t = alu::compare(*cmp, *ty, x, y, false);
                let t2 = if *packed {
                    alu::compare(*cmp, *ty, x, y, true)
                } else {
                    !t
                };
                self.set_pred(*d, self.combine(t, comb), exec);
                if let Some(d2) = d2 {
                    self.set_pred(*d2, self.combine(t2, comb), exec);
                }
            }
            Op::Set {
                cmp,
                ty,
                packed,
                one,
                d,
                a,
                b,
                comb,
            } => {
                let x_op = self.operand(lx, cta, *a);
                let x = &*x_op;
                let y_op = self.operand(lx, cta, *b);
                let y = &*y_op;
                let lo = self.combine(alu::compare(*cmp, *ty, x, y, false), comb);
                let hi = if *packed {
                    self.combine(alu::compare(*cmp, *ty, x, y, true), comb)
                } else {
                    0
                };
                let bit = |m: Mask, l: usize| ((m >> l) & 1) as u64;
                let out: L =
                    std::array::from_fn(|l| (bit(lo, l) * one) | ((bit(hi, l) * one) << 16));
                self.write(*d, &out, exec);
            }
            Op::Selp { d, a, b, p } => {
                let (x, y) = (self.fetch(lx, cta, *a), self.fetch(lx, cta, *b));
                let p = self.pred(*p);
                let out: L = std::array::from_fn(|l| if (p >> l) & 1 != 0 { x[l] } else { y[l] });
                self.write(*d, &out, exec);
            }
            Op::PredLogic { op, d, a, b } => {
                let (x, y) = (self.pred(*a), self.pred(*b));
                let v = match op {
                    PredOp::And => x & y,
                    PredOp::Or => x | y,
                    PredOp::Xor => x ^ y,
                    PredOp::Not => !x,
                    PredOp::Mov => x,
                };
                self.set_pred(*d, v, exec);
            }
            Op::CvtTf32 {
                round,
                satfinite,
                d,
                a,
            } => {
                let x = self.fetch(lx, cta, *a);
                let out = x.map(|v| u64::from(alu::to_tf32(v as u32, *round, *satfinite)));
                self.write(*d, &out, exec);
            }
            Op::Cvt {
                from,
                to,
                m,
                dbits,
                d,
                a,
            } => {
                let x = self.fetch(lx, cta, *a);
                let mut out = [0u64; WARP_SIZE];
                alu::cvt_lanes(*from, *to, *m, &x, exec, &mut out)
                    .map_err(|(e, l)| (FaultKind::Unsupported(e.to_string()), Some(l)))?;
                if to.is_signed() && to.bits() < *dbits as u32 {
                    for l in lanes(exec) {
                        out[l] = alu::sx(out[l], to.bits()) as u64 & mask_of(*dbits as u32);
                    }
                }
                self.write(*d, &out, exec);
            }
            Op::CvtPack {
                kind,
                m,
                d,
                a,
                b,
                c,
            } => {
                let out = self.map3(lx, cta, [*a, *b, *c], |x, y, z| {
                    alu::cvt_pack(*kind, *m, x, y, z)
                });
                self.write(*d, &out, exec);
            }
            Op::Cvta {
                to_generic: tg,
                width,
                space,
                d,
                a,
                bits32,
            } => {
                let x = self.fetch(lx, cta, *a);
                let out: L = std::array::from_fn(|l| {
                    let v = if *tg {
                        width.to_generic(*space, x[l])
                    } else {
                        width.from_generic(*space, x[l])
                    };
                    if *bits32 { v & 0xffff_ffff } else { v }
                });
                self.write(*d, &out, exec);
            }
            Op::Isspacep { width, space, d, a } => {
                let x = self.fetch(lx, cta, *a);
                let v = x
                    .iter()
                    .enumerate()
                    .fold(0, |m, (l, &a)| m | (width.is_space(*space, a) as u32) << l);
                self.set_pred(*d, v, exec);
            }
            Op::Tex {
                rank,
                float_coords,
                out,
                d,
                handle,
                coords,
            } => {
                let fetch = super::texture::Fetch {
                    rank: *rank,
                    float_coords: *float_coords,
                    out: *out,
                };
                self.texture_fetch(lx, cta, obs, site, exec, fetch, d, *handle, coords)?;
            }
            Op::Suld {
                access,
                d,
                handle,
                coords,
            } => {
                self.surface_load(lx, cta, obs, site, exec, *access, d, *handle, coords)?;
            }
            Op::Sust {
                access,
                src,
                handle,
                coords,
            } => {
                self.surface_store(lx, cta, obs, site, exec, *access, src, *handle, coords)?;
            }
            Op::Ld {
                space,
                bytes,
                sext,
                d,
                addr,
            } => {
                self.load(lx, cta, obs, site, exec, space, bytes, sext, d, addr, true)?;
            }
            Op::St {
                space,
                bytes,
                src,
                addr,
            } => {
                self.store(lx, cta, obs, site, exec, space, bytes, src, addr)?;
            }
            Op::Atom {
                space,
                op,
                ty,
                d,
                addr,
                b,
                c,
            } => {
                self.atomic(lx, cta, obs, site, exec, space, op, ty, d, addr, b, c)?;
            }
            Op::AtomVec {
                space,
                op,
                ty,
                d,
                addr,
                b,
            } => {
                self.atomic_vec(lx, cta, obs, site, exec, *space, *op, *ty, d, addr, b)?;
            }
            Op::Bra { target, reconv } => {
                let divergent = exec != 0 && exec != active;
                obs.branch(&BranchEvent {
                    site,
                    active,
                    taken: exec,
                    divergent,
                });
                self.top_mut().simt.branch(exec, *target, pc + 1, *reconv);
                return Ok(());
            }
            Op::Carry {
                sub,
                carry_in,
                carry_out,
                bits,
                d,
                a,
                b,
            } => {
                let (x, y) = (self.fetch(lx, cta, *a), self.fetch(lx, cta, *b));
                let m = mask_of(*bits as u32);
                let mut out = [0u64; WARP_SIZE];
                let mut cf: Mask = 0;
                for l in lanes(exec) {
                    let flag = (self.carry >> l) & 1 != 0;
                    // CC.CF is the adder's carry-out, as on NVIDIA hardware:
                    // a subtraction is a + !b + 1 (`sub.cc`) or a + !b + CF
                    // (`subc`), so after a subtraction CF is the complement
                    // of the borrow. Pure add or pure sub chains give the
                    // exact multi-word result either way; mixed chains
                    // (`add.cc` then `subc`) behave as the GPU does.
                    let cin = match (*sub, *carry_in) {
                        (true, false) => 1,
                        (_, true) => flag as u128,
                        (false, false) => 0,
                    };
                    let xa = (x[l] & m) as u128;
                    let yb = if *sub { !y[l] & m } else { y[l] & m } as u128;
                    let r = xa + yb + cin;
                    out[l] = r as u64 & m;
                    cf |= ((r > m as u128) as u32) << l;
                }
                self.write(*d, &out, exec);
                if *carry_out {
                    self.carry = (self.carry & !exec) | (cf & exec);
                }
            }
            Op::MadCarry {
                hi,
                signed,
                carry_in,
                carry_out,
                bits,
                d,
                a,
                b,
                c,
            } => {
                let (x, y, z) = (
                    self.fetch(lx, cta, *a),
                    self.fetch(lx, cta, *b),
                    self.fetch(lx, cta, *c),
                );
                let w = *bits as u32;
                let m = mask_of(w);
                let mut out = [0u64; WARP_SIZE];
                let mut cf: Mask = 0;
                for l in lanes(exec) {
                    let p = if *hi {
                        alu::high_product(x[l], y[l], w, *signed)
                    } else {
                        x[l].wrapping_mul(y[l])
                    } & m;
                    let cin = (*carry_in && (self.carry >> l) & 1 != 0) as u128;
                    let r = p as u128 + (z[l] & m) as u128 + cin;
                    out[l] = r as u64 & m;
                    cf |= ((r > m as u128) as u32) << l;
                }
                self.write(*d, &out, exec);
                if *carry_out {
                    self.carry = (self.carry & !exec) | (cf & exec);
                }
            }
            Op::CpAsync {
                dst,
                src,
                dst_space,
                src_space,
                size,
                src_size,
            } => {
                self.cp_async(
                    lx, cta, obs, site, exec, dst, src, dst_space, src_space, size, src_size,
                )?;
            }
            Op::BrxIdx {
                idx,
                targets,
                reconv,
            } => {
                let ix = self.fetch(lx, cta, *idx);
                // Group the lanes by target, in lane order.
                let mut groups: Vec<(Mask, u32)> = Vec::new();
                for l in lanes(exec) {
                    let t = *targets.get(ix[l] as u32 as usize).ok_or((
                        FaultKind::Unsupported(format!(
                            "brx.idx index {} outside its {} targets",
                            ix[l] as u32,
                            targets.len()
                        )),
                        Some(l),
                    ))?;
                    match groups.iter_mut().find(|(_, g)| *g == t) {
                        Some((m, _)) => *m |= 1 << l,
                        None => groups.push((1 << l, t)),
                    }
                }
                let divergent = groups.len() > 1 || exec != active;
                obs.branch(&BranchEvent {
                    site,
                    active,
                    taken: exec,
                    divergent,
                });
                if exec != active {
                    // Guarded-off lanes fall through.
                    groups.push((active & !exec, pc + 1));
                }
                self.top_mut().simt.branch_multi(&groups, *reconv);
                return Ok(());
            }
            Op::Testp {
                op,
                f64: is64,
                d,
                a,
            } => {
                let x = self.fetch(lx, cta, *a);
                let mut v: Mask = 0;
                for (l, &bits) in x.iter().enumerate() {
                    let (nan, inf, sub) = if *is64 {
                        let y = f64::from_bits(bits);
                        (y.is_nan(), y.is_infinite(), y.is_subnormal())
                    } else {
                        let y = f32::from_bits(bits as u32);
                        (y.is_nan(), y.is_infinite(), y.is_subnormal())
                    };
                    let r = match op {
                        ptx::TestpOp::Finite => !nan && !inf,
                        ptx::TestpOp::Infinite => inf,
                        ptx::TestpOp::Number => !nan,
                        ptx::TestpOp::NotANumber => nan,
                        // Zero counts as normal, as on an H200 (docs/conformance.md).
                        ptx::TestpOp::Normal => !nan && !inf && !sub,
                        ptx::TestpOp::Subnormal => sub,
                    };
                    v |= (r as u32) << l;
                }
                self.set_pred(*d, v, exec);
            }
            Op::Slct {
                d,
                a,
                b,
                c,
                float_c,
                ftz,
            } => {
                let (x, y, z) = (
                    self.fetch(lx, cta, *a),
                    self.fetch(lx, cta, *b),
                    self.fetch(lx, cta, *c),
                );
                let out: L = std::array::from_fn(|l| {
                    let pick_a = if *float_c {
                        let c = f32::from_bits(z[l] as u32);
                        // PTX ISA slct: with .ftz a subnormal c is flushed to
                        // a zero of its sign, and -0.0 >= 0 selects a.
                        c >= 0.0 || (*ftz && c.is_subnormal())
                    } else {
                        z[l] as u32 as i32 >= 0
                    };
                    if pick_a { x[l] } else { y[l] }
                });
                self.write(*d, &out, exec);
            }
            Op::Dp4a {
                a_signed,
                b_signed,
                d,
                a,
                b,
                c,
            } => {
                let (x, y, z) = (
                    self.fetch(lx, cta, *a),
                    self.fetch(lx, cta, *b),
                    self.fetch(lx, cta, *c),
                );
                let byte = |v: u64, k: u32, s: bool| -> i64 {
                    let b = (v >> (8 * k)) & 0xff;
                    if s { b as u8 as i8 as i64 } else { b as i64 }
                };
                let out: L = std::array::from_fn(|l| {
                    let sum: i64 = (0..4)
                        .map(|k| byte(x[l], k, *a_signed) * byte(y[l], k, *b_signed))
                        .sum();
                    (sum.wrapping_add(z[l] as u32 as i32 as i64) as u64) & 0xffff_ffff
                });
                self.write(*d, &out, exec);
            }
            Op::Dp2a {
                hi,
                a_signed,
                b_signed,
                d,
                a,
                b,
                c,
            } => {
                let (x, y, z) = (
                    self.fetch(lx, cta, *a),
                    self.fetch(lx, cta, *b),
                    self.fetch(lx, cta, *c),
                );
                let out: L =
                    std::array::from_fn(|l| alu::dp2a(*hi, *a_signed, *b_signed, x[l], y[l], z[l]));
                self.write(*d, &out, exec);
            }
            Op::Video { f, d, a, b, c } => {
                let out = self.map3(lx, cta, [*a, *b, *c], |x, y, z| alu::video(*f, x, y, z));
                self.write(*d, &out, exec);
            }
            Op::ScalarVideo { f, d, a, b, c } => {
                let out = self.map3(lx, cta, [*a, *b, *c], |x, y, z| {
                    alu::scalar_video(f, x, y, z)
                });
                self.write(*d, &out, exec);
            }
            Op::Tensor(t) => self.tensor(lx, cta, obs, site, exec, t)?,
            Op::Exit => {
                let n = self.exit_threads(exec);
                cta.releases.extend(cta.barriers.exit(n));
                if exec != active {
                    self.next(pc);
                }
                return Ok(());
            }
            Op::Ret => {
                if self.frames.len() == 1 {
                    let n = self.exit_threads(exec);
                    cta.releases.extend(cta.barriers.exit(n));
                } else {
                    self.ret(exec);
                }
                if exec != active {
                    self.next(pc);
                }
                return Ok(());
            }
            Op::Trap => return Err((FaultKind::Trap, None)),
            Op::Brkpt => return Err((FaultKind::Breakpoint, None)),
            Op::CallIndirect { target, args, rets } => {
                let t = self.fetch(lx, cta, *target);
                let mut groups: Vec<(Mask, u64)> = Vec::new();
                for l in lanes(exec) {
                    match groups.iter_mut().find(|(_, g)| *g == t[l]) {
                        Some((m, _)) => *m |= 1 << l,
                        None => groups.push((1 << l, t[l])),
                    }
                }
                match groups.as_slice() {
                    [(_, ptr)] if exec == active => {
                        let callee = ptr.wrapping_sub(crate::exec::decode::FUNC_BASE);
                        if !lx
                            .prog
                            .funcs
                            .get(callee as usize)
                            .is_some_and(|f| f.has_body)
                        {
                            let why = format!("call through the invalid function pointer {ptr:#x}");
                            return Err((FaultKind::Unsupported(why), None));
                        }
                        self.next(pc);
                        self.call(lx, cta, callee as u32, args, rets, exec)?;
                    }
                    _ => {
                        // Lanes with different targets (or guarded off): each group
                        // re-executes this call on its own; all join after it.
                        let mut split: Vec<(Mask, u32)> =
                            groups.iter().map(|&(m, _)| (m, pc)).collect();
                        split.push((active & !exec, pc + 1));
                        self.top_mut().simt.branch_multi(&split, pc + 1);
                    }
                }
                return Ok(());
            }
            Op::Call { callee, args, rets } => {
                self.next(pc);
                self.call(lx, cta, *callee, args, rets, exec)?;
                return Ok(());
            }
            Op::Vprintf { fmt, args, ret } => {
                let base = self.top().base;
                for l in lanes(exec) {
                    let mut p = [0u8; 8];
                    self.local[l]
                        .read(base + fmt, &mut p, 1)
                        .map_err(mem_err(l))?;
                    let fmt_addr = u64::from_le_bytes(p);
                    self.local[l]
                        .read(base + args, &mut p, 1)
                        .map_err(mem_err(l))?;
                    let args_addr = u64::from_le_bytes(p);
                    let this: &Warp = self;
                    let mut read = |a: u64, buf: &mut [u8]| {
                        this.load_lane(lx, cta, MemSpace::Generic, l, a, buf, 1)
                    };
                    let text =
                        printf::format(fmt_addr, args_addr, &mut read).map_err(mem_err(l))?;
                    cta.printf.push_str(&text);
                    if let Some(r) = ret {
                        self.local[l]
                            .write(base + r, &(text.len() as u32).to_le_bytes(), 1)
                            .map_err(mem_err(l))?;
                    }
                }
            }
            Op::Malloc {
                size,
                ret,
                size_bytes,
                ret_bytes,
            } => self.malloc(lx, cta, exec, (*size, *size_bytes), (*ret, *ret_bytes))?,
            Op::Free => {}
            Op::Bar {
                mode,
                id,
                count,
                red,
                d,
            } => {
                self.barrier(lx, cta, obs, site, pc, exec, *mode, *id, *count, *red, *d)?;
                return Ok(());
            }
            Op::Shfl {
                mode,
                d,
                dp,
                a,
                b,
                c,
            } => {
                self.shuffle(lx, cta, exec, mode, d, dp, a, b, c)?;
            }
            Op::Vote { mode, d, a } => {
                self.vote(exec, mode, d, a)?;
            }
            Op::Activemask { d } => self.write(*d, &[exec as u64; WARP_SIZE], exec),
            Op::Elect { d, p, mask } => {
                let members = self.fetch(lx, cta, *mask);
                let first = exec.trailing_zeros() as usize;
                let candidates = exec & members[first] as Mask;
                let leader = candidates.trailing_zeros();
                if let Some(d) = d {
                    self.write(*d, &[u64::from(leader.min(31)); WARP_SIZE], exec);
                }
                let lead: Mask = if candidates == 0 { 0 } else { 1 << leader };
                self.set_pred(*p, lead, exec);
            }
            Op::Mbarrier {
                op,
                space,
                addr,
                d,
                b,
                tx,
                parity,
            } => {
                self.mbarrier(lx, cta, exec, *op, *space, addr, *d, *b, *tx, *parity)?;
            }
            Op::BulkCopy {
                dst,
                dst_space,
                src,
                src_space,
                size,
                mbar,
            } => {
                self.bulk_copy(
                    lx, cta, obs, site, exec, dst, *dst_space, src, *src_space, size, mbar,
                )?;
            }
            Op::MbarrierPendingCount { d, state } => {
                let v = self.fetch(lx, cta, *state);
                self.write(*d, &super::mbarrier::pending(&v), exec);
            }
            Op::Match {
                mode,
                bits,
                d,
                dp,
                a,
            } => {
                self.match_sync(lx, cta, exec, mode, bits, d, dp, a)?;
            }
            Op::Redux { op, signed, d, a } => {
                self.redux(lx, cta, exec, op, signed, d, a)?;
            }
            Op::Unsupported(why) => return Err((FaultKind::Unsupported(why.clone()), None)),
        }
        self.next(pc);
        Ok(())
    }
}
