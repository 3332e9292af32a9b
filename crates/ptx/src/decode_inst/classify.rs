//! Interpreting one modifier word of an instruction: a type suffix, an
//! opcode-specific word (comparison, atomic operation, video selector ...)
//! or a flag, recorded in the [`Modifiers`] and named by its category.

use super::modifiers::{F, is_scalar_video, is_video};
use crate::ir::*;

/// Interprets one modifier word (without its dot) for `op`.
pub(super) fn classify(op: Opcode, t: &str, m: &mut Modifiers, types: &mut Vec<Type>) -> Option<F> {
    use Opcode as O;
    if let Some(ty) = Type::from_name(t) {
        types.push(ty);
        return Some(F::Type);
    }
    // Words whose meaning depends on the opcode come first.
    let specific = match op {
        O::Setp | O::Set => {
            if let Some(c) = CmpOp::from_name(t) {
                m.cmp = Some(c);
                Some(F::Cmp)
            } else if let Some(b) = BoolOp::from_name(t) {
                m.bool_op = Some(b);
                Some(F::BoolOp)
            } else {
                None
            }
        }
        O::Atom | O::Red | O::Redux => AtomOp::from_name(t).map(|a| {
            m.atom_op = Some(a);
            F::AtomOp
        }),
        O::Bar | O::Barrier => {
            if let Some(b) = BarMode::from_name(t) {
                m.bar_mode = Some(b);
                Some(F::BarMode)
            } else if let Some(a @ (AtomOp::Popc | AtomOp::And | AtomOp::Or)) = AtomOp::from_name(t)
            {
                m.atom_op = Some(a);
                Some(F::AtomOp)
            } else {
                None
            }
        }
        _ if op.is_surface_load() || op.is_surface_store() => SurfaceClamp::from_name(t).map(|c| {
            m.surface_clamp = Some(c);
            F::SurfaceClamp
        }),
        O::Vote => VoteMode::from_name(t).map(|v| {
            m.vote_mode = Some(v);
            F::VoteMode
        }),
        O::Match => MatchMode::from_name(t).map(|v| {
            m.match_mode = Some(v);
            F::MatchMode
        }),
        O::Shfl => ShflMode::from_name(t).map(|v| {
            m.shfl_mode = Some(v);
            F::ShflMode
        }),
        O::Shf => {
            if let Some(d) = ShfDir::from_name(t) {
                m.shf_dir = Some(d);
                Some(F::ShfDir)
            } else {
                ShfMode::from_name(t).map(|v| {
                    m.shf_mode = Some(v);
                    F::ShfMode
                })
            }
        }
        O::Vmad if t == "po" => {
            m.video_po = true;
            Some(F::VideoMad)
        }
        O::Vmad => VideoScale::from_name(t).map(|s| {
            m.video_scale = Some(s);
            F::VideoMad
        }),
        O::Vset | O::Vset2 | O::Vset4 if CmpOp::from_name(t).is_some() => {
            m.cmp = CmpOp::from_name(t);
            Some(F::Cmp)
        }
        _ if is_scalar_video(op) && VideoOp2::from_name(t).is_some() => {
            m.video_op2 = VideoOp2::from_name(t);
            Some(F::VideoOp2)
        }
        O::Bmsk | O::Vshl | O::Vshr => ShfMode::from_name(t).map(|v| {
            m.shf_mode = Some(v);
            F::ShfMode
        }),
        O::Prmt => PrmtMode::from_name(t).map(|v| {
            m.prmt_mode = Some(v);
            F::PrmtMode
        }),
        O::Testp => TestpOp::from_name(t).map(|v| {
            m.testp = Some(v);
            F::Testp
        }),
        O::Mbarrier => match (m.mbarrier_op, t) {
            (Some(MbarrierOp::Arrive), "expect_tx") if !m.expect_tx => {
                m.expect_tx = true;
                Some(F::MbarrierOp)
            }
            (Some(MbarrierOp::TestWait | MbarrierOp::TryWait), "parity") if !m.parity => {
                m.parity = true;
                Some(F::Parity)
            }
            (Some(MbarrierOp::Arrive | MbarrierOp::ArriveDrop), "noComplete") if !m.no_complete => {
                m.no_complete = true;
                Some(F::NoComplete)
            }
            (None, _) => MbarrierOp::from_name(t).map(|o| {
                m.mbarrier_op = Some(o);
                F::MbarrierOp
            }),
            _ => None,
        },
        O::CpAsyncBulk if m.completion.is_none() => BulkCompletion::from_name(t).map(|c| {
            m.completion = Some(c);
            F::BulkCompletion
        }),
        O::CpAsyncBulkWaitGroup if t == "read" && !m.read => {
            m.read = true;
            Some(F::BulkRead)
        }
        O::CpAsyncBulkPrefetch => CacheLevel::from_name(t).map(|l| {
            m.level = Some(l);
            F::Level
        }),
        O::CpAsyncMbarrierArrive if t == "noinc" && !m.noinc => {
            m.noinc = true;
            Some(F::Noinc)
        }
        O::Wmma => {
            if let Some(w) = WmmaOp::from_name(t) {
                m.wmma_op = Some(w);
                Some(F::WmmaOp)
            } else {
                Fragment::from_name(t).map(|v| {
                    m.fragment = Some(v);
                    F::Fragment
                })
            }
        }
        O::Ldmatrix | O::Stmatrix => match t {
            "x1" | "x2" | "x4" => {
                m.num = t[1..].parse().ok();
                Some(F::Num)
            }
            "trans" => {
                m.trans = true;
                Some(F::Trans)
            }
            _ => None,
        },
        O::Membar => {
            let s = match t {
                "cta" => Some(MemScope::Cta),
                "gl" => Some(MemScope::Gpu),
                "sys" => Some(MemScope::Sys),
                _ => None,
            };
            s.map(|s| {
                m.scope = Some(s);
                F::Scope
            })
        }
        O::Cvt if t == "pack" => {
            m.pack = true;
            Some(F::Pack)
        }
        O::Cvta if t == "to" => {
            m.cvta_to = true;
            Some(F::CvtaTo)
        }
        O::Prefetch | O::Prefetchu => CacheLevel::from_name(t).map(|l| {
            m.level = Some(l);
            F::Level
        }),
        O::Bra | O::Call | O::Ret | O::BrxIdx if t == "uni" => {
            m.uni = true;
            Some(F::Uni)
        }
        O::Bfind if t == "shiftamt" => {
            m.shiftamt = true;
            Some(F::Shiftamt)
        }
        O::Min | O::Max => match t {
            "NaN" => {
                m.nan = true;
                Some(F::Nan)
            }
            "xorsign" | "abs" => {
                m.xorsign_abs = true;
                Some(F::XorsignAbs)
            }
            _ => None,
        },
        // `createpolicy.fractional.L2::evict_last{.L2::evict_first}`,
        // `createpolicy.range.global.L2::...`, `createpolicy.cvt.L2`.
        O::Createpolicy => match (m.policy, t) {
            (None, _) => PolicyKind::from_name(t).map(|k| {
                m.policy = Some(k);
                F::Policy
            }),
            (Some(PolicyKind::Range), "global") => Some(F::Policy),
            (Some(PolicyKind::Cvt), "L2") => Some(F::Policy),
            (Some(PolicyKind::Fractional | PolicyKind::Range), _) if m.priorities.len() < 2 => {
                L2Priority::from_name(t).map(|p| {
                    m.priorities.push(p);
                    F::Policy
                })
            }
            _ => None,
        },
        // `fence.proxy.alias`, `fence.proxy.async`, `.async.global` and
        // `.async.shared::cta`: the words come split at their dots.
        O::Fence => match (m.proxy_word, m.proxy, t) {
            (false, None, "proxy") => {
                m.proxy_word = true;
                Some(F::Proxy)
            }
            (true, None, "alias") => {
                m.proxy = Some(ProxyKind::Alias);
                Some(F::Proxy)
            }
            (true, None, "async") => {
                m.proxy = Some(ProxyKind::Async);
                Some(F::Proxy)
            }
            (true, Some(ProxyKind::Async), "global") => {
                m.proxy = Some(ProxyKind::AsyncGlobal);
                Some(F::Proxy)
            }
            (true, Some(ProxyKind::Async), "shared::cta") => {
                m.proxy = Some(ProxyKind::AsyncShared);
                Some(F::Proxy)
            }
            _ => None,
        },
        _ if is_video(op) && t == "add" => {
            m.video_add = true;
            Some(F::VideoAdd)
        }
        _ => None,
    };
    if specific.is_some() {
        return specific;
    }
    if matches!(op, O::Mma | O::Wmma)
        && let Some(l) = Layout::from_name(t)
    {
        if m.layout_a.is_none() {
            m.layout_a = Some(l);
        } else {
            m.layout_b = Some(l);
        }
        return Some(F::Layout);
    }
    if let Some(v) = MulPart::from_name(t) {
        m.mul_part = Some(v);
        return Some(F::MulPart);
    }
    if let Some(r) = Rounding::from_name(t) {
        m.rounding = Some(r);
        return Some(F::Rounding);
    }
    if let Some(s) = StateSpace::from_name(t) {
        // cp.async names destination then source space.
        if matches!(op, O::CpAsync | O::CpAsyncBulk) && m.space.is_some() {
            m.src_space = Some(s);
        } else {
            m.space = Some(s);
        }
        return Some(F::Space);
    }
    if let Some(s) = MemSem::from_name(t) {
        m.sem = Some(s);
        return Some(F::Sem);
    }
    if let Some(s) = MemScope::from_name(t) {
        m.scope = Some(s);
        return Some(F::Scope);
    }
    if let Some(c) = CacheOp::from_name(t) {
        m.cache = Some(c);
        return Some(F::Cache);
    }
    if let Some(h) = CacheHint::from_name(t) {
        m.cache_hints.push(h);
        return Some(F::Hint);
    }
    if let Some(v) = VecWidth::from_name(t) {
        m.vec = Some(v);
        return Some(F::Vec);
    }
    if let Some(p) = Precision::from_name(t) {
        m.precision = Some(p);
        return Some(F::Precision);
    }
    if let Some(s) = Shape::from_name(t) {
        m.shape = Some(s);
        return Some(F::Shape);
    }
    let flag = match t {
        "ftz" => (&mut m.ftz, F::Ftz),
        "sat" => (&mut m.sat, F::Sat),
        "satfinite" => (&mut m.satfinite, F::Satfinite),
        "relu" => (&mut m.relu, F::Relu),
        "noftz" => (&mut m.noftz, F::Noftz),
        "cc" => (&mut m.carry_out, F::Cc),
        "nc" => (&mut m.nc, F::Nc),
        "sync" => (&mut m.sync, F::Sync),
        "aligned" => (&mut m.aligned, F::Aligned),
        _ => return None,
    };
    *flag.0 = true;
    Some(flag.1)
}
