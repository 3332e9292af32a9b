//! Corpus kernels run end to end and checked against CPU references written here.

mod common;
use common::*;

/// map_poly: out[i] = 0.5 x^2 + 2x + 1 (fma order as in the kernel), for x = i.
#[test]
fn map_poly() {
    let r = run("map", &[]);
    let out = f32s(buffer(&r, "out"));
    assert_eq!(out.len(), 4096);
    for (i, &o) in out.iter().enumerate() {
        let x = i as f32;
        let want = x.mul_add(2.0, x * (x * 0.5)) + 1.0;
        assert_eq!(o.to_bits(), want.to_bits(), "out[{i}] = {o}, want {want}");
    }
    assert_eq!(r.stats.ctas, 8);
    assert!(r.stats.thread_instructions > 4096 * 10);
}

use emu::simt::stack::Policy;

const POLICIES: [Policy; 2] = [Policy::Ipdom, Policy::Barrier];

#[test]
fn fold_reduce_sums_each_block_slice() {
    let r = run("fold_reduce", &[]);
    let partial = f32s(buffer(&r, "partial"));
    // 8192 ones over 8 blocks: each block folds 1024 of them.
    assert_eq!(partial, vec![1024.0; 8]);
}

fn matmul_reference(a: &[f32], b: &[f32], n: usize) -> Vec<f32> {
    let mut c = vec![0f32; n * n];
    for row in 0..n {
        for col in 0..n {
            let mut acc = 0f32;
            for k in 0..n {
                acc = a[row * n + k].mul_add(b[k * n + col], acc);
            }
            c[row * n + col] = acc;
        }
    }
    c
}

#[test]
fn matmul_naive_and_tiled_match_cpu() {
    for name in ["matmul_naive", "matmul_tiled"] {
        let r = run(name, &[]);
        let (a, b, c) = (
            f32s(buffer(&r, "A")),
            f32s(buffer(&r, "B")),
            f32s(buffer(&r, "C")),
        );
        let want = matmul_reference(&a, &b, 64);
        for (i, (&got, &w)) in c.iter().zip(&want).enumerate() {
            // Same summation order and fused multiply-adds: within 1e-5 relative.
            assert!(close(got, w, 1e-5), "{name}: C[{i}] = {got}, want {w}");
        }
    }
}

fn divergence_reference(x: i32, g: i32, limit: i32) -> i32 {
    let code = match g % 4 {
        0 => {
            if x % 3 == 0 {
                1
            } else {
                2
            }
        }
        1 => {
            if x % 3 == 1 {
                3
            } else {
                4
            }
        }
        m => 5 + m,
    };
    let (mut v, mut steps) = (x + 1, 0);
    for _ in 0..limit {
        if v == 1 {
            break;
        }
        if v & 1 == 0 {
            v >>= 1;
            if v > 100 {
                continue;
            }
        } else {
            v = 3 * v + 1;
        }
        steps += 1;
    }
    code * 1000 + steps
}

#[test]
fn divergence_nested_branches_and_loops_both_policies() {
    for p in POLICIES {
        let r = run_policy("divergence", &[], p);
        let (inp, out) = (i32s(buffer(&r, "in")), i32s(buffer(&r, "out")));
        for (g, (&x, &o)) in inp.iter().zip(&out).enumerate() {
            assert_eq!(o, divergence_reference(x, g as i32, 64), "{p:?} out[{g}]");
        }
    }
}

#[test]
fn early_return_both_policies() {
    for p in POLICIES {
        let r = run_policy("early_return", &[], p);
        let (inp, out) = (i32s(buffer(&r, "in")), i32s(buffer(&r, "out")));
        for (g, (&x, &o)) in inp.iter().zip(&out).enumerate() {
            let want = if g >= 1000 {
                -7
            } else if x < 0 {
                0
            } else if x % 7 == 0 {
                -1
            } else {
                x * x % 1009
            };
            assert_eq!(o, want, "{p:?} out[{g}] for x = {x}");
        }
    }
}

fn warps_of<T: Copy>(v: &[T]) -> impl Iterator<Item = &[T]> {
    v.chunks(32)
}

#[test]
fn warp_shuffle_reductions() {
    let r = run("warp_shuffle", &[]);
    let x = i32s(buffer(&r, "in"));
    let (sum, max) = (i32s(buffer(&r, "warp_sum")), i32s(buffer(&r, "warp_max")));
    let (bcast, up) = (i32s(buffer(&r, "bcast")), i32s(buffer(&r, "up")));
    for (w, xs) in warps_of(&x).enumerate() {
        assert_eq!(sum[w], xs.iter().sum::<i32>(), "warp_sum[{w}]");
        assert_eq!(Some(&max[w]), xs.iter().max(), "warp_max[{w}]");
        for l in 0..32 {
            let g = w * 32 + l;
            assert_eq!(bcast[g], xs[(l + 1) % 32], "bcast[{g}]");
            assert_eq!(up[g], if l == 0 { xs[0] } else { xs[l - 1] }, "up[{g}]");
        }
    }
}

#[test]
fn warp_votes_and_activemask() {
    let r = run("warp_vote", &[]);
    let x = i32s(buffer(&r, "in"));
    let ballot = u32s(buffer(&r, "ballot"));
    let (any, all) = (i32s(buffer(&r, "any")), i32s(buffer(&r, "all")));
    let (even_mask, even_ballot) = (
        u32s(buffer(&r, "even_mask")),
        u32s(buffer(&r, "even_ballot")),
    );
    let votes = i32s(buffer(&r, "votes"));
    for (w, xs) in warps_of(&x).enumerate() {
        let bits = |f: &dyn Fn(i32) -> bool| {
            xs.iter()
                .enumerate()
                .fold(0u32, |m, (l, &v)| m | ((f(v) as u32) << l))
        };
        let b = bits(&|v| v > 50);
        let even = bits(&|v| v % 2 == 0);
        assert_eq!(ballot[w], b, "ballot[{w}]");
        assert_eq!(any[w], xs.iter().any(|&v| v > 95) as i32, "any[{w}]");
        assert_eq!(all[w], 1, "all[{w}]");
        assert_eq!(even_mask[w], even, "even_mask[{w}]");
        assert_eq!(even_ballot[w], b & even, "even_ballot[{w}]");
        for l in 0..32 {
            assert_eq!(votes[w * 32 + l], b.count_ones() as i32);
        }
    }
}

#[test]
fn warp_match_and_redux() {
    let r = run("warp_match_redux", &[]);
    let x = u32s(buffer(&r, "in"));
    let (peers, leader, same) = (
        u32s(buffer(&r, "peers")),
        i32s(buffer(&r, "leader")),
        i32s(buffer(&r, "same")),
    );
    let (wsum, wmin, wmax) = (
        u32s(buffer(&r, "wsum")),
        u32s(buffer(&r, "wmin")),
        u32s(buffer(&r, "wmax")),
    );
    for (w, xs) in warps_of(&x).enumerate() {
        for l in 0..32 {
            let key = xs[l] % 4;
            let want: u32 = (0..32)
                .filter(|&k| xs[k] % 4 == key)
                .fold(0, |m, k| m | 1 << k);
            assert_eq!(peers[w * 32 + l], want, "peers[{}]", w * 32 + l);
            assert_eq!(
                leader[w * 32 + l],
                (want.trailing_zeros() as usize == l) as i32
            );
        }
        let all_same = xs.iter().all(|&v| v % 4 == xs[0] % 4);
        assert_eq!(same[w], all_same as i32);
        assert_eq!(wsum[w], xs.iter().sum::<u32>());
        assert_eq!(Some(&wmin[w]), xs.iter().min());
        assert_eq!(Some(&wmax[w]), xs.iter().max());
    }
}

#[test]
fn global_atomics_every_op() {
    let r = run("atomics_global", &[]);
    let x = i32s(buffer(&r, "in"));
    let rr = i32s(buffer(&r, "r"));
    let or = x.iter().fold(0i32, |m, &v| m | 1 << (v % 31));
    assert_eq!(rr[0], x.iter().sum::<i32>());
    assert_eq!(rr[1], x.iter().min().map(|m| m - 1000).unwrap_or(0));
    assert_eq!(Some(&rr[2]), x.iter().max());
    assert_eq!(
        (rr[3], rr[4]),
        (1, 1),
        "exactly one exch and one cas winner"
    );
    assert_eq!(rr[5], or);
    assert_eq!(rr[6], 0);
    assert_eq!(rr[7], x.iter().fold(0, |m, &v| m ^ v));
    assert_eq!(rr[8], x.iter().filter(|&&v| v % 2 == 0).count() as i32);
    assert_eq!(u32s(buffer(&r, "and_mask")), vec![!(or as u32)]);
    assert_eq!(
        f32s(buffer(&r, "fsum")),
        vec![x.iter().map(|&v| (v % 8) as f32).sum::<f32>()]
    );
    let flag = i32s(buffer(&r, "flag"));
    assert_eq!(flag[0], 1);
    assert!(flag[1] >= 1 && flag[1] <= 2048);
}

#[test]
fn local_memory_arrays() {
    let r = run("local_memory", &[]);
    let data = u32s(buffer(&r, "data"));
    let (mode, count, perm) = (
        i32s(buffer(&r, "mode")),
        i32s(buffer(&r, "count")),
        u32s(buffer(&r, "perm")),
    );
    for i in 0..256 {
        let (mut hist, mut pos) = ([0i32; 16], [0u32; 16]);
        for j in 0..8 {
            let w = data[i * 8 + j];
            for d in 0..8 {
                hist[((w >> (4 * d)) & 15) as usize] += 1;
            }
            pos[((w >> (4 * (j % 8))) & 15) as usize] = j as u32;
        }
        let (mut best, mut bc) = (0, hist[0]);
        for (k, &h) in hist.iter().enumerate().skip(1) {
            if h > bc {
                (best, bc) = (k as i32, h);
            }
        }
        let p = (0..16).fold(0u32, |acc, k| acc ^ pos[k].wrapping_mul(k as u32 + 1));
        assert_eq!((mode[i], count[i], perm[i]), (best, bc, p), "thread {i}");
    }
}

#[test]
fn half_and_bfloat16() {
    use half::{bf16, f16};
    let r = run("half_bf16", &[]);
    let h = |b: &[u8]| {
        b.chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect::<Vec<_>>()
    };
    let (xh, yh_out, xb, zb, c) = (
        h(buffer(&r, "xh")),
        h(buffer(&r, "yh")),
        h(buffer(&r, "xb")),
        h(buffer(&r, "zb")),
        h(buffer(&r, "c")),
    );
    let m = f32s(buffer(&r, "m"));
    // yh was overwritten: recompute its initial value from the spec's seed.
    let s = spec("half_bf16", &[]);
    let emu::spec::ArgSpec::Buffer(yb) = &s.args[1] else {
        panic!("yh is a buffer")
    };
    let yh0 = h(&s.initial_bytes(yb.elem, yb.len, &yb.init).expect("yh init"));
    let a = f16::from_f32(1.5);
    for i in 0..1024 {
        for k in [2 * i, 2 * i + 1] {
            let x = f16::from_bits(xh[k]);
            let want = f16::from_f64(a.to_f64() * x.to_f64() + f16::from_bits(yh0[k]).to_f64());
            assert_eq!(yh_out[k], want.to_bits(), "yh[{k}]");
            let b = bf16::from_bits(xb[k]);
            let sq = bf16::from_f32(b.to_f32() * b.to_f32());
            assert_eq!(
                zb[k],
                bf16::from_f32(sq.to_f32() + 1.0).to_bits(),
                "zb[{k}]"
            );
            assert_eq!(c[k], f16::from_f32(x.to_f32() * 3.1).to_bits(), "c[{k}]");
        }
        let hi = f16::from_bits(xh[2 * i])
            .to_f32()
            .max(f16::from_bits(xh[2 * i + 1]).to_f32());
        assert_eq!(m[i], hi + bf16::from_bits(xb[2 * i]).to_f32(), "m[{i}]");
    }
}

#[test]
fn bit_intrinsics() {
    let r = run("bit_tricks", &[]);
    let (x, y, out) = (
        u32s(buffer(&r, "x")),
        u32s(buffer(&r, "y")),
        u32s(buffer(&r, "out")),
    );
    for i in 0..256 {
        let (a, b) = (x[i], y[i]);
        let bytes = ((b as u64) << 32) | a as u64;
        let perm = (0..4).fold(0u32, |acc, k| {
            acc | ((((bytes >> (8 * ((0x7351u32 >> (4 * k)) & 7))) & 0xff) as u32) << (8 * k))
        });
        let fl = (((((b as u64) << 32) | a as u64) << (b & 31)) >> 32) as u32;
        let fr = ((((b as u64) << 32) | a as u64) >> (a & 31)) as u32;
        let w = ((a as u64) << 32) | b as u64;
        let want = [
            a.count_ones(),
            a.leading_zeros(),
            if a == 0 { 0 } else { a.trailing_zeros() + 1 },
            a.reverse_bits(),
            perm,
            fl,
            fr,
            (a >> 7) & 0x1ff,
            (a & !(0xff << 12)) | ((b & 0xff) << 12),
            w.count_ones() + (b as u64).leading_zeros() + ((a as u64 * b as u64) >> 32) as u32,
        ];
        assert_eq!(&out[i * 10..i * 10 + 10], &want, "thread {i}");
    }
}

#[test]
fn device_function_calls_and_recursion() {
    fn gcd(mut a: i32, mut b: i32) -> i32 {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    }
    fn fib(k: i32) -> i32 {
        if k < 2 { k } else { fib(k - 1) + fib(k - 2) }
    }
    let r = run("device_calls", &[]);
    let (ia, ib) = (i32s(buffer(&r, "ia")), i32s(buffer(&r, "ib")));
    let (g, f, h) = (
        i32s(buffer(&r, "g")),
        i32s(buffer(&r, "f")),
        f32s(buffer(&r, "h")),
    );
    for i in 0..256 {
        let (a, b) = (ia[i], ib[i]);
        assert_eq!(g[i], gcd(a, b), "g[{i}]");
        assert_eq!(f[i], fib(a % 12), "f[{i}]");
        let want = (a as f32 + (b as f32 - a as f32) * 0.25) * (i % 3) as f32;
        assert!(close(h[i], want, 1e-6), "h[{i}] = {}, want {want}", h[i]);
    }
    assert!(r.stats.max_stack_depth >= 1);
}

#[test]
fn fp64_polynomial() {
    let r = run("fp64", &[]);
    let x = f64s(buffer(&r, "in"));
    let (out, f) = (f64s(buffer(&r, "out")), f32s(buffer(&r, "f")));
    let k: Vec<i64> = buffer(&r, "k")
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect();
    for i in 0..1024 {
        let v = x[i];
        let p = ((0.125 * v + 0.75) * v - 1.25) * v + 0.5;
        let want = p / (1.0 + v * v) + v.sqrt();
        assert!(
            (out[i] - want).abs() <= 1e-14 * want.abs().max(1.0),
            "out[{i}] = {}, want {want}",
            out[i]
        );
        assert_eq!(f[i], out[i] as f32, "f[{i}]");
        assert_eq!(k[i], (v * 1000.0) as i64, "k[{i}]");
    }
}

#[test]
fn printf_output_in_block_order() {
    let r = run("printf_kernel", &[]);
    assert_eq!(
        i32s(buffer(&r, "out")),
        (0..256).map(|g| g * g).collect::<Vec<i32>>()
    );
    let want: String = (0..4)
        .map(|b| {
            let s: i32 = (b * 64..(b + 1) * 64).map(|g| g * g).sum();
            format!(
                "block {b}: first x = {:.6}, sum of squares = {s}\n",
                (b * 64) as f32
            )
        })
        .collect();
    assert_eq!(r.printf, want);
}

#[test]
fn shared_histogram_with_shared_atomics() {
    let r = run("histogram_shared", &[]);
    let (data, hist) = (u32s(buffer(&r, "data")), u32s(buffer(&r, "local_hist")));
    let mut want = vec![0u32; 8 * 256];
    for (i, &d) in data.iter().enumerate() {
        let b = (i / 256) % 8;
        want[b * 256 + (d % 256) as usize] += 1;
    }
    assert_eq!(hist, want);
}

#[test]
fn block_scan() {
    let r = run("scan_block", &[]);
    let (x, out) = (i32s(buffer(&r, "x")), i32s(buffer(&r, "out")));
    for b in 0..4 {
        let mut acc = 0;
        for t in 0..256 {
            acc += x[b * 256 + t];
            assert_eq!(out[b * 256 + t], acc, "out[{}]", b * 256 + t);
        }
    }
}

#[test]
fn transposes() {
    for name in ["transpose_naive", "transpose_tiled"] {
        let r = run(name, &[]);
        let (inp, out) = (f32s(buffer(&r, "in")), f32s(buffer(&r, "out")));
        for row in 0..64 {
            for col in 0..64 {
                assert_eq!(
                    out[col * 64 + row],
                    inp[row * 64 + col],
                    "{name} ({row}, {col})"
                );
            }
        }
    }
}

#[test]
fn coalescing_strides() {
    for stride in ["32", "1", "4"] {
        let r = run("coalescing", &[("STRIDE", stride)]);
        let a = f32s(buffer(&r, "a"));
        let s: usize = stride.parse().unwrap_or(1);
        let mut touched = vec![0u32; 4096];
        let per = 4096 / (4 * 128);
        for b in 0..4 {
            for t in 0..128 {
                let start = per * b * 128 + (t / s) * per * s + (t % s);
                let end = (start + per * s).min(4096);
                let mut idx = start;
                while idx < end {
                    touched[idx] += 1;
                    idx += s;
                }
            }
        }
        for (i, &v) in a.iter().enumerate() {
            assert_eq!(
                v,
                i as f32 * 2f32.powi(touched[i] as i32),
                "STRIDE={stride} a[{i}]"
            );
        }
    }
}

#[test]
fn radix_sorts_sort() {
    for name in ["radix_global", "radix_shared", "radix_tree"] {
        let s = spec(name, &[]);
        let emu::spec::ArgSpec::Buffer(a) = &s.args[0] else {
            panic!("A is a buffer")
        };
        let mut want = u32s(&s.initial_bytes(a.elem, a.len, &a.init).expect("A init"));
        want.sort_unstable();
        for p in POLICIES {
            let r = run_policy(name, &[], p);
            assert_eq!(u32s(buffer(&r, "A")), want, "{name} {p:?}");
        }
    }
}

#[test]
fn list_ranking_walks_sublists() {
    let r = run("list_ranking", &[]);
    let succ = i32s(buffer(&r, "succ"));
    let (rank, owner) = (i32s(buffer(&r, "rank")), i32s(buffer(&r, "owner")));
    let (sublen, next) = (
        i32s(buffer(&r, "sublen")),
        i32s(buffer(&r, "next_splitter")),
    );
    for s in 0..64 {
        let (mut e, mut k) = (s * 64, 0);
        let nx = loop {
            assert_eq!((rank[e], owner[e]), (k, s as i32), "element {e}");
            k += 1;
            let nx = succ[e];
            if nx < 0 || nx % 64 == 0 {
                break nx;
            }
            e = nx as usize;
        };
        assert_eq!(
            (sublen[s], next[s]),
            (k, if nx < 0 { -1 } else { nx }),
            "sublist {s}"
        );
    }
    assert_eq!(sublen.iter().sum::<i32>(), 4096);
}

#[test]
fn syrk_update() {
    let r = run("syrk", &[]);
    let (a, c) = (f32s(buffer(&r, "A")), f32s(buffer(&r, "C")));
    for i in 0..64 {
        for j in 0..64 {
            let mut acc = 0f32;
            for k in 0..64 {
                acc = a[i * 64 + k].mul_add(a[j * 64 + k], acc);
            }
            let want = 0.5 * 1.0 + 1.5 * acc;
            assert!(
                close(c[i * 64 + j], want, 1e-5),
                "C[{i}][{j}] = {}, want {want}",
                c[i * 64 + j]
            );
        }
    }
}

#[test]
fn conv2d_with_constant_filter() {
    let s = spec("conv2d", &[]);
    let filt = f32s(
        &s.initial_bytes(
            s.constants[0].elem,
            s.constants[0].len,
            &s.constants[0].init,
        )
        .expect("filter"),
    );
    let r = run("conv2d", &[]);
    let (inp, out) = (f32s(buffer(&r, "in")), f32s(buffer(&r, "out")));
    for y in 0..64i32 {
        for x in 0..64i32 {
            let mut acc = 0f32;
            for j in 0..5 {
                for i in 0..5 {
                    let (yy, xx) = (y + j - 2, x + i - 2);
                    if (0..64).contains(&yy) && (0..64).contains(&xx) {
                        acc += filt[(j * 5 + i) as usize] * inp[(yy * 64 + xx) as usize];
                    }
                }
            }
            let got = out[(y * 64 + x) as usize];
            assert!(close(got, acc, 1e-5), "out[{y}][{x}] = {got}, want {acc}");
        }
    }
}

#[test]
fn bank_conflict_sums() {
    for bank in ["1", "2", "16"] {
        let r = run("bank_conflicts", &[("BANK", bank)]);
        let (a, out) = (f32s(buffer(&r, "a")), f32s(buffer(&r, "out")));
        let per = 4096 / 512;
        for b in 0..4 {
            for t in 0..128 {
                let start = per * b * 128 + (t / 32) * per * 32 + t % 32;
                let end = (start + per * 32).min(4096);
                let want: f32 = (start..end).step_by(32).map(|i| a[i]).sum();
                assert_eq!(out[b * 128 + t], want, "BANK={bank} out[{}]", b * 128 + t);
            }
        }
    }
}

#[test]
fn blelloch_exclusive_scan() {
    let r = run("scan_blelloch", &[]);
    let (x, out) = (i32s(buffer(&r, "x")), i32s(buffer(&r, "out")));
    for b in 0..4 {
        let mut acc = 0;
        for k in 0..256 {
            assert_eq!(out[b * 256 + k], acc, "out[{}]", b * 256 + k);
            acc += x[b * 256 + k];
        }
    }
}

#[test]
fn stencil_in_a_namespace() {
    let r = run("stencil_ns", &[]);
    let (inp, out) = (f32s(buffer(&r, "in")), f32s(buffer(&r, "out")));
    for i in 0..1024 {
        let l = if i > 0 { inp[i - 1] } else { 0.0 };
        let rr = if i + 1 < 1024 { inp[i + 1] } else { 0.0 };
        let want = 0.25 * l + 0.5 * inp[i] + 0.25 * rr;
        assert!(
            close(out[i], want, 1e-6),
            "out[{i}] = {}, want {want}",
            out[i]
        );
    }
}

/// async_copy: two-stage cp.async staging with a run-time zero-fill (the
/// float4s past n read nothing or part of a float4), then sums read across
/// threads from shared memory. Each float4's sum in the kernel's order.
#[test]
fn async_copies_stage_tiles_with_zero_fill() {
    let r = run("async_copy", &[]);
    let (x, out) = (f32s(buffer(&r, "x")), f32s(buffer(&r, "out")));
    assert_eq!((x.len(), out.len()), (4002, 16 * 64));
    let at = |i: usize| x.get(i).copied().unwrap_or(0.0);
    let s = |j: usize| ((at(4 * j) + at(4 * j + 1)) + at(4 * j + 2)) + at(4 * j + 3);
    for (j, &o) in out.iter().enumerate() {
        let want = s(j) + s(j ^ 1);
        assert_eq!(o.to_bits(), want.to_bits(), "out[{j}] = {o}, want {want}");
    }
    // Past the data: the last float4s are wholly zero-filled.
    assert_eq!(out[1020..], [0.0; 4]);
}
