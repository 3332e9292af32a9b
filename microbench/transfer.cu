// Data-transfer microbenchmarks of seed 004, written for ptxperf: the cost of
// moving data between global and shared memory, timed with clock64() around
// the transfer by each thread. Host-to-device and device-to-host copies are
// timed by the host runner with events (no kernel needed).
//
// Each thread moves ELEMS 4-byte words (ELEMS is a define), strided by blockDim.x,
// so that a warp's accesses are coalesced. The runner
// (crates/gpurun) compiles this file once per ELEMS value and writes one CSV
// row per (kernel, ELEMS):
//   x    = bytes moved per block = blockDim.x * ELEMS * 4;
//   time = the median over threads of the cycles between the two clock64()
//          reads, unit `cycles`. global_to_shared ends its timed region with
//          __syncthreads(), so each thread's count covers its whole block's
//          transfer; shared_to_global ends with __threadfence_block(), which
//          orders the stores but does not wait for them to reach DRAM, so it
//          times the issue of the stores.
// Arguments: global_to_shared(const float *global, long long *cycles, float *sink)
//            shared_to_global(float *global, long long *cycles, float seed)
// `global` holds gridDim.x * blockDim.x * ELEMS floats; `cycles` and `sink`
// one entry per thread.
// Dynamic shared memory: blockDim.x * ELEMS * 4 bytes.

#ifndef ELEMS
#define ELEMS 1
#endif

extern "C" __global__ void global_to_shared(const float *global, long long *cycles, float *sink)
{
    extern __shared__ float tile[];
    const float *src = global + (size_t)blockIdx.x * blockDim.x * ELEMS;
    long long start = clock64();
#pragma unroll
    for (int i = 0; i < ELEMS; ++i) {
        tile[i * blockDim.x + threadIdx.x] = src[i * blockDim.x + threadIdx.x];
    }
    __syncthreads();
    long long stop = clock64();
    cycles[blockIdx.x * blockDim.x + threadIdx.x] = stop - start;
    // Keep the loads alive: one value per thread leaves the block.
    sink[blockIdx.x * blockDim.x + threadIdx.x] = tile[(threadIdx.x * 7) % (blockDim.x * ELEMS)];
}

extern "C" __global__ void shared_to_global(float *global, long long *cycles, float seed)
{
    extern __shared__ float tile[];
#pragma unroll
    for (int i = 0; i < ELEMS; ++i) {
        tile[i * blockDim.x + threadIdx.x] = seed + (float)(i * blockDim.x + threadIdx.x);
    }
    __syncthreads();
    float *dst = global + (size_t)blockIdx.x * blockDim.x * ELEMS;
    long long start = clock64();
#pragma unroll
    for (int i = 0; i < ELEMS; ++i) {
        dst[i * blockDim.x + threadIdx.x] = tile[i * blockDim.x + threadIdx.x];
    }
    __threadfence_block();
    long long stop = clock64();
    cycles[blockIdx.x * blockDim.x + threadIdx.x] = stop - start;
}
