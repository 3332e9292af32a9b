// tensor_wmma: half-precision GEMM on tensor cores through the warp matrix
// (wmma) builtins that <mma.h> wraps (NVRTC's include path lacks the
// crt/mma.h that <mma.h> needs, so the kernel calls the builtins directly:
// __hmma_m16n16k16_ld_a/ld_b/ld_c_*, __hmma_m16n16k16_mma_*,
// __hmma_m16n16k16_st_c_*; the layout argument is 0 = row-major,
// 1 = column-major, and the mma's is 2*(A col-major) + (B col-major)).
//
// Each warp computes one 16x16 tile of two N x N products (N = 64):
//   c32 = A * B           A, B row-major, f32 accumulation, row-major store
//   c16 = A' * B'         A' = the buffer a read column-major (element (i,k)
//                         at a[k*N + i]), B' = b read column-major (element
//                         (k,j) at b[j*N + k]), f16 accumulation, stored
//                         column-major (element (i,j) at c16[j*N + i]).
// K is walked in steps of 16, each step one mma_sync with C = the running
// accumulator. Grid: N*N/256 warps, 4 warps per CTA.
//
// Check: f16 inputs are exact in f32 and so are their products; the CPU
// reference sums them in f64 and allows 1e-5 relative error for c32 and
// the f16 rounding of each 16-step partial result for c16 (see the emu
// test crates/emu/tests/tensor.rs, which also checks the emulator's exact
// summation order bit for bit). Inputs: random in [-1, 1) as f16.
#include <cuda_fp16.h>

#ifndef N
#define N 64
#endif

extern "C" __global__ void tensor_wmma(const __half *a, const __half *b, float *c32, __half *c16)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tiles = N / 16;
    int ti = warp / tiles;
    int tj = warp % tiles;
    if (ti >= tiles) {
        return;
    }
    int fa[8], fb[8];
    float acc32[8];
    int acc16[4];
    for (int e = 0; e < 8; e++) {
        acc32[e] = 0.0f;
    }
    for (int e = 0; e < 4; e++) {
        acc16[e] = 0;
    }
    for (int k = 0; k < N; k += 16) {
        // Row-major A tile (ti, k) and B tile (k, tj), f32 accumulate.
        __hmma_m16n16k16_ld_a(fa, (const int *)(a + ti * 16 * N + k), N, 0);
        __hmma_m16n16k16_ld_b(fb, (const int *)(b + k * N + tj * 16), N, 0);
        __hmma_m16n16k16_mma_f32f32(acc32, fa, fb, acc32, 0, 0);
        // Column-major A' tile (ti, k) and B' tile (k, tj), f16 accumulate.
        __hmma_m16n16k16_ld_a(fa, (const int *)(a + k * N + ti * 16), N, 1);
        __hmma_m16n16k16_ld_b(fb, (const int *)(b + tj * 16 * N + k), N, 1);
        __hmma_m16n16k16_mma_f16f16(acc16, fa, fb, acc16, 3, 0);
    }
    __hmma_m16n16k16_st_c_f32(c32 + ti * 16 * N + tj * 16, acc32, N, 0);
    __hmma_m16n16k16_st_c_f16((int *)(c16 + tj * 16 * N + ti * 16), acc16, N, 1);
}
