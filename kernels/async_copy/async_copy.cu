// async_copy: sums of neighbouring float4s of x, staged in shared memory by
// Ampere's asynchronous copies (cp.async, the cuda_pipeline.h primitives) in
// two stages: while a block sums one tile it already copies the next.
//
// x holds n floats (n need not be a multiple of 4); the grid strides over
// `tiles` tiles of THREADS float4s each. Thread t of the block that owns tile
// k copies the float4 j = k*THREADS + t (16 bytes; the floats past n are
// zero-filled, and a float4 wholly past n reads nothing), then writes
//   out[j] = s(j) + s(j ^ 1),  s(j) = ((x[4j] + x[4j+1]) + x[4j+2]) + x[4j+3]
// with x[i] = 0 for i >= n: its own float4 and its neighbour's, read from
// shared memory after the copy completed.
//
// Check: out against that sum on the CPU, bit for bit (same order, no
// fused operations).
#include <cuda_pipeline.h>

#define THREADS 64

__device__ __forceinline__ void fetch(float4 *slot, const float *x, int n, int j)
{
    int left = n - 4 * j;  // floats of x from 4j on
    size_t zfill = left >= 4 ? 0 : (left <= 0 ? 16 : 16 - 4 * left);
    const float4 *src = reinterpret_cast<const float4 *>(x) + (zfill == 16 ? 0 : j);
    __pipeline_memcpy_async(slot, src, 16, zfill);
    __pipeline_commit();
}

extern "C" __global__ void async_copy(const float *__restrict__ x, float *__restrict__ out,
                                      int n, int tiles)
{
    __shared__ __align__(16) float4 stage[2][THREADS];
    const int t = threadIdx.x;
    int buf = 0;
    int tile = blockIdx.x;
    if (tile < tiles) {
        fetch(&stage[0][t], x, n, tile * THREADS + t);
    }
    for (; tile < tiles; tile += gridDim.x) {
        int next = tile + gridDim.x;
        if (next < tiles) {
            fetch(&stage[buf ^ 1][t], x, n, next * THREADS + t);
            __pipeline_wait_prior(1);  // the current tile's copy, not the next's
        } else {
            __pipeline_wait_prior(0);
        }
        __syncthreads();
        float4 a = stage[buf][t];
        float4 b = stage[buf][t ^ 1];
        out[tile * THREADS + t] = (((a.x + a.y) + a.z) + a.w) + (((b.x + b.y) + b.z) + b.w);
        __syncthreads();  // every thread read this stage before it is refilled
        buf ^= 1;
    }
}
