//! CUDA C++ as people write it: templated kernels named by their template-id
//! (`scale<float, 3>`, instantiated through NVRTC's name expressions), the
//! CCCL headers (`<cooperative_groups.h>` needs `<nv/target>`; CUB's block
//! primitives), the C and C++ standard headers NVRTC lacks (`<cstdint>`,
//! `<cmath>`, `<type_traits>` ...), and the note on a define that breaks a
//! header. Each runs the kernel on the emulator and checks its output.

mod common;

use common::kernels::{dumped, folder, run_kernel, run_refused, spec};
use common::{nvrtc_available, ptxperf_in};

const TEMPLATE_SOURCE: &str = r#"
template <typename T, int K>
__global__ void scale(const T* in, T* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * T(K);
}
"#;

fn template_spec(kernel: &str) -> String {
    spec(
        &format!(
            r#"kernel = "{kernel}"; defines = {{ ELEMS = 1000, FACTOR = 5 }}; grid = ["(ELEMS + 127) / 128"]; block = [128]"#
        ),
        &[
            ("in", "f32*", r#"len = "ELEMS"; init = "iota""#),
            ("out", "f32*", r#"len = "ELEMS""#),
            ("n", "i32", r#"value = "ELEMS""#),
        ],
    )
}

#[test]
fn a_template_id_kernel_is_instantiated_without_an_explicit_instantiation() {
    if !nvrtc_available() {
        return;
    }
    // A template argument may be a define: it is a macro where NVRTC reads
    // the name expression.
    for (kernel, k) in [
        ("scale<float, 3>", 3.0),
        ("scale<float,7>", 7.0),
        ("scale<float, FACTOR>", 5.0),
    ] {
        let (dir, _) = run_kernel("template", TEMPLATE_SOURCE, &template_spec(kernel));
        let out = dumped(&dir, "out", f32::from_le_bytes);
        assert_eq!(out.len(), 1000);
        for (i, v) in out.iter().enumerate() {
            assert_eq!(*v, i as f32 * k, "{kernel}: out[{i}]");
        }
        // `compile --spec` instantiates it too: the PTX has the entry.
        let c = ptxperf_in(&dir, &["compile", "--spec", "spec.toml", "-o", "k.ptx"]);
        assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
        let ptx = std::fs::read_to_string(dir.join("k.ptx")).unwrap_or_default();
        let mangled = format!("_Z5scaleIfLi{}EEvPKT_PS0_i", k as i32);
        assert!(ptx.contains(&mangled), "no {mangled} in the PTX");
    }
}

#[test]
fn a_template_id_that_names_nothing_is_an_error_with_the_name() {
    if !nvrtc_available() {
        return;
    }
    let err = run_refused(
        "template-missing",
        TEMPLATE_SOURCE,
        &template_spec("scal<float, 3>"),
    );
    assert!(err.contains("\"scal\" is undefined"), "{err}");
}

/// One block per 256 inputs: CUB's BlockReduce sums the block's values, a
/// cooperative-groups tile reduces each warp's with shuffles.
const CCCL_SOURCE: &str = r#"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/block/block_reduce.cuh>
namespace cg = cooperative_groups;

extern "C" __global__ void sums(const int* in, int* block_sum, int* warp_sum) {
    typedef cub::BlockReduce<int, 256> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    int v = in[blockIdx.x * 256 + threadIdx.x];
    int total = Reduce(tmp).Sum(v);
    if (threadIdx.x == 0) block_sum[blockIdx.x] = total;
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    int w = cg::reduce(warp, v, cg::plus<int>());
    if (warp.thread_rank() == 0) warp_sum[blockIdx.x * 8 + threadIdx.x / 32] = w;
}
"#;

fn cccl_spec() -> String {
    spec(
        r#"kernel = "sums"; defines = { BLOCKS = 4 }; grid = ["BLOCKS"]; block = [256]"#,
        &[
            ("in", "i32*", r#"len = "BLOCKS * 256"; init = "iota""#),
            ("block_sum", "i32*", r#"len = "BLOCKS""#),
            ("warp_sum", "i32*", r#"len = "BLOCKS * 8""#),
        ],
    )
}

#[test]
fn cooperative_groups_and_cub_compile_from_the_cccl_wheel_and_run() {
    if !nvrtc_available() {
        return;
    }
    let (dir, _) = run_kernel("cccl", CCCL_SOURCE, &cccl_spec());
    // The sum of first..first+len-1.
    let sum = |first: i32, len: i32| len * first + len * (len - 1) / 2;
    let blocks = dumped(&dir, "block_sum", i32::from_le_bytes);
    assert_eq!(
        blocks,
        (0..4).map(|b| sum(b * 256, 256)).collect::<Vec<_>>()
    );
    let warps = dumped(&dir, "warp_sum", i32::from_le_bytes);
    assert_eq!(warps, (0..32).map(|w| sum(w * 32, 32)).collect::<Vec<_>>());
}

#[test]
fn a_define_that_breaks_a_header_is_named() {
    if !nvrtc_available() {
        return;
    }
    // `N` becomes a macro inside CUB, where it names a template parameter.
    let spec = cccl_spec().replace("BLOCKS", "N");
    let dir = folder("collision", &[("k.cu", CCCL_SOURCE), ("spec.toml", &spec)]);
    // Both ways in: a launch (the pipeline) and `compile --spec`.
    for args in [
        &["run", "spec.toml"][..],
        &["compile", "--spec", "spec.toml"],
    ] {
        let out = ptxperf_in(&dir, args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("note: the define `N` appears in the header lines that failed"),
            "{args:?}: {err}"
        );
    }
}

/// The standard headers a kernel includes out of habit (NVRTC ships none;
/// ptxperf's stand-ins are backed by libcu++): their names in `std` and
/// their macros, checked by value.
const STD_SOURCE: &str = r#"
#include <cstdint>
#include <stdint.h>
#include <cstdio>
#include <cmath>
#include <cassert>
#include <climits>
#include <cfloat>
#include <type_traits>
#include <limits>
#include <algorithm>
#include <utility>
#include <array>

template <typename T>
__global__ void std_names(const T* in, T* out, std::int32_t* ints) {
    static_assert(std::is_floating_point<T>::value, "a float type");
    std::uint32_t i = threadIdx.x;
    T v = in[i];
    assert(v >= T(0));
    out[i] = std::sqrt(v) + std::max(v, T(2)) + std::abs(-v);
    std::array<std::int32_t, 2> a{INT_MAX, 7};
    std::swap(a[0], a[1]);
    ints[i] = a[0] + (FLT_MAX > 3.4e38f) + (std::numeric_limits<T>::digits == 24) * 10
        + (::int64_t)(INT64_MAX > 0) * 100;
}
"#;

/// `using namespace std;` with unqualified calls: `abs` must be one
/// function, whether CUDA's global one or `std::abs` (it once was two,
/// CUDA's and libcu++'s, and the call was ambiguous).
const USING_STD_SOURCE: &str = r#"
#include <cstdint>
#include <cmath>
#include <cstdlib>
#include <algorithm>
#include <type_traits>
#include <limits>
#include <array>
using namespace std;
extern "C" __global__ void unqualified(const float* in, float* out, int32_t* ints) {
    float x = in[threadIdx.x] - 8.0f;
    out[threadIdx.x] = abs(x) + sqrt(fabs(x)) + max(x, 0.0f) + (isfinite(x / x) ? 100.0f : 0.0f);
    array<int, 2> q{(int)threadIdx.x / 3, (int)threadIdx.x % 3};
    ints[threadIdx.x] = abs((int)x) * 1000 + q[0] * 10 + q[1]
        + (numeric_limits<int32_t>::max() == INT32_MAX) * 10000;
}
"#;

#[test]
fn unqualified_calls_after_using_namespace_std_are_not_ambiguous() {
    if !nvrtc_available() {
        return;
    }
    let spec = spec(
        r#"kernel = "unqualified"; grid = [1]; block = [16]"#,
        &[
            ("in", "f32*", r#"len = 16; init = "iota""#),
            ("out", "f32*", r#"len = 16"#),
            ("ints", "i32*", r#"len = 16"#),
        ],
    );
    let (dir, _) = run_kernel("using-std", USING_STD_SOURCE, &spec);
    let out = dumped(&dir, "out", f32::from_le_bytes);
    let ints = dumped(&dir, "ints", i32::from_le_bytes);
    for t in 0..16 {
        let x = t as f32 - 8.0;
        // x / x is NaN at 0 only.
        let finite = if x == 0.0 { 0.0 } else { 100.0 };
        let expect = x.abs() + x.abs().sqrt() + x.max(0.0) + finite;
        assert_eq!(out[t], expect, "out[{t}]");
        let (q, r) = (t as i32 / 3, t as i32 % 3);
        assert_eq!(
            ints[t],
            (x as i32).abs() * 1000 + q * 10 + r + 10000,
            "ints[{t}]"
        );
    }
}

#[test]
fn standard_headers_compile_without_a_host_library() {
    if !nvrtc_available() {
        return;
    }
    let spec = spec(
        r#"kernel = "std_names<float>"; grid = [1]; block = [64]"#,
        &[
            ("in", "f32*", r#"len = 64; init = "iota""#),
            ("out", "f32*", r#"len = 64"#),
            ("ints", "i32*", r#"len = 64"#),
        ],
    );
    let (dir, _) = run_kernel("std", STD_SOURCE, &spec);
    let out = dumped(&dir, "out", f32::from_le_bytes);
    for (i, v) in out.iter().enumerate() {
        let x = i as f32;
        assert_eq!(*v, x.sqrt() + x.max(2.0) + x, "out[{i}]");
    }
    let ints = dumped(&dir, "ints", i32::from_le_bytes);
    assert_eq!(ints, vec![7 + 1 + 10 + 100; 64]);
}

/// `<math.h>`'s macros, which nvcc's kernels get from the host library.
const MATH_MACROS_SOURCE: &str = r#"
#include <math.h>
extern "C" __global__ void consts(float* out, double* wide) {
    out[0] = INFINITY;
    out[1] = -HUGE_VALF;
    out[2] = isnan(NAN) ? 1.0f : 0.0f;
    out[3] = (float)M_PI;
    wide[0] = M_SQRT2;
    wide[1] = HUGE_VAL;
}
"#;

#[test]
fn the_math_header_macros_are_defined_and_named_where_missing() {
    if !nvrtc_available() {
        return;
    }
    let spec = spec(
        r#"kernel = "consts"; grid = [1]; block = [1]"#,
        &[("out", "f32*", "len = 4"), ("wide", "f64*", "len = 2")],
    );
    let (dir, _) = run_kernel("math-macros", MATH_MACROS_SOURCE, &spec);
    let out = dumped(&dir, "out", f32::from_le_bytes);
    assert_eq!(
        out,
        vec![f32::INFINITY, f32::NEG_INFINITY, 1.0, std::f32::consts::PI]
    );
    // The doubles as pairs of 32-bit words, low word first.
    let words = dumped(&dir, "wide", u32::from_le_bytes);
    let wide: Vec<f64> = words
        .chunks_exact(2)
        .map(|w| f64::from_bits(u64::from(w[0]) | (u64::from(w[1]) << 32)))
        .collect();
    assert_eq!(wide, vec![std::f64::consts::SQRT_2, f64::INFINITY]);
    // Without the include, NVRTC knows none of them, as nvcc would: the
    // error says where they come from.
    let bare = MATH_MACROS_SOURCE.replace("#include <math.h>", "");
    let err = run_refused("math-macros-bare", &bare, &spec);
    assert!(
        err.contains(
            "note: `INFINITY`, `NAN`, `HUGE_VAL`, `HUGE_VALF`, `M_PI`, `M_SQRT2` come from <math.h>"
        ),
        "{err}"
    );
}

/// `cuda::barrier` (mbarrier.init, arrive, test_wait on sm_80 and try_wait
/// on sm_90): each round, every thread writes its slot, the block meets at
/// the barrier, and each thread reads its neighbour's slot.
const BARRIER_SOURCE: &str = r#"
#include <cuda/barrier>
extern "C" __global__ void rounds(const int* in, int* out, int n_rounds) {
    __shared__ int tile[128];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    int acc = 0;
    for (int r = 0; r < n_rounds; ++r) {
        tile[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x] + r;
        bar.arrive_and_wait();
        acc += tile[(threadIdx.x + 1) % blockDim.x];
        bar.arrive_and_wait();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
"#;

/// The phase-parity wait and the other mbarrier forms, in inline PTX: warp 1
/// writes the block's data, then arrives; warp 0 reaches its wait on parity
/// 0 first (the emulator runs warp 0 first), so the wait must hand the SM to
/// warp 1 instead of spinning.
const PARITY_SOURCE: &str = r#"
extern "C" __global__ void parity(int* out) {
    __shared__ unsigned long long bar;
    __shared__ int data[32];
    unsigned addr = (unsigned)__cvta_generic_to_shared(&bar);
    if (threadIdx.x == 0)
        asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(addr), "r"(32));
    __syncthreads();
    if (threadIdx.x >= 32) {
        data[threadIdx.x - 32] = 10 * threadIdx.x;
        unsigned long long token;
        asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(token) : "r"(addr) : "memory");
        unsigned pending;
        asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pending) : "l"(token));
        out[threadIdx.x + 32] = pending;
    }
    unsigned done = 0;
    while (!done) {
        asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(addr) : "memory");
    }
    out[threadIdx.x] = data[threadIdx.x % 32];
}
"#;

#[test]
fn mbarriers_order_a_block_as_cuda_barrier_and_inline_ptx_use_them() {
    if !nvrtc_available() {
        return;
    }
    for arch in ["sm_80", "sm_90"] {
        let spec = spec(
            &format!(r#"kernel = "rounds"; arch = "{arch}"; grid = [2]; block = [128]"#),
            &[
                ("in", "i32*", r#"len = 256; init = "iota""#),
                ("out", "i32*", r#"len = 256"#),
                ("n_rounds", "i32", r#"value = 3"#),
            ],
        );
        let (dir, _) = run_kernel("barrier", BARRIER_SOURCE, &spec);
        let out = dumped(&dir, "out", i32::from_le_bytes);
        let expect: Vec<i32> = (0..256)
            .map(|i: i32| {
                let (block, t) = (i / 128, i % 128);
                (0..3).map(|r| block * 128 + (t + 1) % 128 + r).sum()
            })
            .collect();
        assert_eq!(out, expect, "{arch}");
    }
    let spec = spec(
        r#"kernel = "parity"; grid = [1]; block = [64]"#,
        &[("out", "i32*", r#"len = 96"#)],
    );
    let (dir, text) = run_kernel("parity", PARITY_SOURCE, &spec);
    // A failed wait ends the warp's time slice at once: warp 0 loops on it
    // once, not for a whole slice (4,096 instructions), so the profile is
    // not inflated by the emulator's own schedule (67 warp instructions).
    let executed: u64 = text
        .split("warp instructions ")
        .nth(1)
        .and_then(|t| t.split(',').next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no warp instruction count in\n{text}"));
    assert!(executed < 100, "{executed} warp instructions");
    let out = dumped(&dir, "out", i32::from_le_bytes);
    let data: Vec<i32> = (0..64).map(|t| 10 * (t % 32 + 32)).collect();
    assert_eq!(&out[..64], &data[..], "every thread read what warp 1 wrote");
    // The tokens are the state before each lane's arrival, in lane order.
    let pending: Vec<i32> = (0..32).map(|l| 32 - l).collect();
    assert_eq!(&out[64..], &pending[..]);
}

/// `cuda::memcpy_async` into shared memory, completed through a barrier
/// (cp.async, then cp.async.mbarrier.arrive, then the barrier's wait).
const MEMCPY_ASYNC_SOURCE: &str = r#"
#include <cooperative_groups.h>
#include <cuda/barrier>
namespace cg = cooperative_groups;
extern "C" __global__ void reverse(const float* in, float* out) {
    __shared__ float tile[128];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, tile, in + blockIdx.x * 128, sizeof(float) * 128, bar);
    bar.arrive_and_wait();
    out[blockIdx.x * 128 + threadIdx.x] = 2.0f * tile[127 - threadIdx.x];
}
"#;

#[test]
fn memcpy_async_with_a_barrier_delivers_the_tile() {
    if !nvrtc_available() {
        return;
    }
    let (_, out) = run_copy("memcpy-async", MEMCPY_ASYNC_SOURCE, "reverse", "sm_80", 128);
    assert_eq!(out, reversed_tiles());
}

/// Runs `kernel` of `source` on 2 CTAs of `block` threads for `arch`, with
/// `in` (iota) and `out` of 2 x `block` floats: its folder and `out`.
fn run_copy(
    tag: &str,
    source: &str,
    kernel: &str,
    arch: &str,
    block: u32,
) -> (std::path::PathBuf, Vec<f32>) {
    let n = 2 * block;
    let spec = spec(
        &format!(r#"kernel = "{kernel}"; arch = "{arch}"; grid = [2]; block = [{block}]"#),
        &[
            ("in", "f32*", &format!(r#"len = {n}; init = "iota""#)),
            ("out", "f32*", &format!("len = {n}")),
        ],
    );
    let (dir, _) = run_kernel(tag, source, &spec);
    let out = dumped(&dir, "out", f32::from_le_bytes);
    (dir, out)
}

/// Two tiles of 128, each reversed and doubled.
fn reversed_tiles() -> Vec<f32> {
    (0..256)
        .map(|i| 2.0 * ((i / 128) * 128 + 127 - i % 128) as f32)
        .collect()
}

/// The same copy with its size known to be a multiple of 16 bytes
/// (`cuda::aligned_size_t<16>`): on sm_80 a `cp.async` per 16 bytes, on
/// sm_90 one bulk copy (`cp.async.bulk ... mbarrier::complete_tx::bytes`,
/// issued by one thread) whose bytes the barrier expects (`mbarrier.expect_tx`)
/// before its phase can complete; the phase then waits for arrivals and bytes.
const MEMCPY_ASYNC_ALIGNED_SOURCE: &str = r#"
#include <cooperative_groups.h>
#include <cuda/barrier>
namespace cg = cooperative_groups;
extern "C" __global__ void reverse(const float* in, float* out) {
    __shared__ alignas(16) float tile[128];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, tile, in + blockIdx.x * 128, cuda::aligned_size_t<16>(sizeof(tile)), bar);
    bar.arrive_and_wait();
    out[blockIdx.x * 128 + threadIdx.x] = 2.0f * tile[127 - threadIdx.x];
}
"#;

#[test]
fn memcpy_async_of_aligned_bytes_is_a_bulk_copy_on_sm_90() {
    if !nvrtc_available() {
        return;
    }
    for (arch, copy) in [
        ("sm_80", "cp.async.cg.shared.global"),
        ("sm_90", "cp.async.bulk."),
    ] {
        let tag = format!("memcpy-bulk-{arch}");
        let (dir, out) = run_copy(&tag, MEMCPY_ASYNC_ALIGNED_SOURCE, "reverse", arch, 128);
        assert_eq!(out, reversed_tiles(), "{arch}");
        let ptx = ptxperf_in(&dir, &["compile", "k.cu", "--arch", arch, "-o", "k.ptx"]);
        assert!(ptx.status.success(), "{arch}: compile");
        let text = std::fs::read_to_string(dir.join("k.ptx")).unwrap_or_default();
        assert!(text.contains(copy), "{arch}: the PTX has no `{copy}`");
        // Every policy runs it: under the barrier policy the thread that
        // issues the bulk copy is a split of its own, and the waiting split
        // must let it run.
        let both = ptxperf_in(
            &dir,
            &["characterize", "spec.toml", "--reconvergence", "both"],
        );
        assert!(
            both.status.success(),
            "{arch}: characterize: {}",
            String::from_utf8_lossy(&both.stderr)
        );
    }
}

/// Hopper's bulk copies written out with libcu++: one thread copies the tile
/// in (`cuda::device::memcpy_async_tx`) and expects its bytes as it arrives
/// (`barrier_arrive_tx`: `mbarrier.arrive.expect_tx`), the block doubles it,
/// orders its writes for the copy engine (`fence.proxy.async.shared::cta`)
/// and one thread copies it out (`cuda::ptx::cp_async_bulk` with a bulk
/// group, committed and waited for).
const BULK_TX_SOURCE: &str = r#"
#include <cuda/barrier>
#include <cuda/ptx>
namespace ptx = cuda::ptx;
extern "C" __global__ void doubled(const float* __restrict__ in, float* __restrict__ out) {
    __shared__ alignas(16) float buf[256];
    #pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) { init(&bar, blockDim.x); ptx::fence_proxy_async(ptx::space_shared); }
    __syncthreads();
    cuda::barrier<cuda::thread_scope_block>::arrival_token token;
    if (threadIdx.x == 0) {
        cuda::device::memcpy_async_tx(buf, in + blockIdx.x * 256, cuda::aligned_size_t<16>(sizeof(buf)), bar);
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(buf));
    } else {
        token = bar.arrive();
    }
    bar.wait(std::move(token));
    buf[threadIdx.x] *= 2.0f;
    ptx::fence_proxy_async(ptx::space_shared);
    __syncthreads();
    if (threadIdx.x == 0) {
        ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, out + blockIdx.x * 256, buf, sizeof(buf));
        ptx::cp_async_bulk_commit_group();
        ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
    }
}
"#;

#[test]
fn bulk_copies_written_with_libcuxx_run_on_sm_90() {
    if !nvrtc_available() {
        return;
    }
    let (_, out) = run_copy("bulk-tx", BULK_TX_SOURCE, "doubled", "sm_90", 256);
    let expect: Vec<f32> = (0..512).map(|i| 2.0 * i as f32).collect();
    assert_eq!(out, expect);
}

/// Hopper's warp election (`cg::invoke_one` compiles to `elect.sync`), the
/// vector atomic `atomicAdd(float2*, float2)` (`atom.global.add.v2.f32`),
/// and the programmatic-dependent-launch controls (`griddepcontrol`, no-ops
/// for the one grid emulated).
const SM90_SOURCE: &str = r#"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void elected(const float* in, float2* acc, int* leaders) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    cg::invoke_one(warp, [&] {
        atomicAdd(acc, make_float2(v, 1.0f));
        leaders[i / 32] = i;
    });
    asm volatile("griddepcontrol.launch_dependents;");
}
"#;

#[test]
fn warp_election_vector_atomics_and_dependent_launch_controls_run() {
    if !nvrtc_available() {
        return;
    }
    let spec = spec(
        r#"kernel = "elected"; arch = "sm_90"; grid = [2]; block = [64]"#,
        &[
            ("in", "f32*", r#"len = 128; init = "iota""#),
            ("acc", "f32*", r#"len = 2"#),
            ("leaders", "i32*", r#"len = 4"#),
        ],
    );
    let (dir, _) = run_kernel("sm90", SM90_SOURCE, &spec);
    // The emulator elects each warp's lowest lane: threads 0, 32, 64, 96.
    assert_eq!(dumped(&dir, "leaders", i32::from_le_bytes), [0, 32, 64, 96]);
    assert_eq!(dumped(&dir, "acc", f32::from_le_bytes), [192.0, 4.0]);
}

/// Cluster registers without clusters: each CTA is the one CTA of its
/// cluster (`cg::this_cluster()` on sm_90); a kernel that asks for
/// clusters of several CTAs (`__cluster_dims__`) is refused by name.
const CLUSTER_SOURCE: &str = r#"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void ranks(unsigned* out) {
    cg::cluster_group c = cg::this_cluster();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned cid, ncid;
    asm("mov.u32 %0, %%clusterid.x;" : "=r"(cid));
    asm("mov.u32 %0, %%nclusterid.x;" : "=r"(ncid));
    unsigned* o = out + 6 * i;
    o[0] = c.block_rank();
    o[1] = c.num_blocks();
    o[2] = c.block_index().x;
    o[3] = c.dim_blocks().x;
    o[4] = cid;
    o[5] = ncid;
}
extern "C" __global__ void __cluster_dims__(2, 1, 1) paired(unsigned* out) {
    out[blockIdx.x] = cg::this_cluster().block_rank();
}
"#;

fn cluster_spec(kernel: &str) -> String {
    spec(
        &format!(r#"kernel = "{kernel}"; arch = "sm_90"; grid = [3]; block = [32]"#),
        &[("out", "u32*", "len = 576")],
    )
}

#[test]
fn a_launch_without_clusters_makes_each_cta_its_own_cluster() {
    if !nvrtc_available() {
        return;
    }
    let (dir, _) = run_kernel("cluster-regs", CLUSTER_SOURCE, &cluster_spec("ranks"));
    let out = dumped(&dir, "out", u32::from_le_bytes);
    for (i, o) in out.chunks_exact(6).enumerate() {
        let block = (i / 32) as u32;
        // Rank 0 of 1, at (0) of a 1-CTA cluster; cluster id = block id,
        // as many clusters as blocks.
        assert_eq!(o, [0, 1, 0, 1, block, 3], "thread {i}");
    }
    let err = run_refused("cluster-refused", CLUSTER_SOURCE, &cluster_spec("paired"));
    assert!(
        err.contains("clusters of 2 CTAs (.reqnctapercluster 2, 1, 1)")
            && err.contains("not supported by ptxperf yet"),
        "{err}"
    );
}
