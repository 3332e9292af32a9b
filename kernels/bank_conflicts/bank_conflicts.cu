// bank_conflicts: the shared-memory access-conflict experiment of Kothapalli
// et al. (seed 000, section 4.2 and Appendix B.2, Listing 2), with STRIDE,
// OFFSET and BANK as defines. Thread t stores into S[(t*BANK) % 512], so BANK
// threads of a half-warp (a warp on current GPUs) land in the same bank:
// BANK = 1 is conflict free, larger values serialise more.
//
// Changes from the listing, so the experiment survives the optimiser and a
// CPU emulation stays short: the shared array is volatile (the listing's
// stores are never read back, and NVVM would delete them), the inner loop
// count is ITERS (10000 in the paper), and each thread writes the sum of the
// values it loaded to out[global thread id].
//
// Check: out[g] == sum of a[idx] over the indices thread g visits (the same
// index formula as coalescing.cu); with a = iota the sums are exact integers
// below 2^24.
#ifndef STRIDE
#define STRIDE 32
#endif
#ifndef OFFSET
#define OFFSET 0
#endif
#ifndef BANK
#define BANK 1
#endif
#ifndef ITERS
#define ITERS 16
#endif

extern "C" __global__ void conflicts(const float *a, float *out, int N)
{
    int n_elem_per_thread = N / (gridDim.x * blockDim.x);
    int block_start_idx = n_elem_per_thread * blockIdx.x * blockDim.x;
    int thread_start_idx = block_start_idx + (threadIdx.x / STRIDE) * n_elem_per_thread * STRIDE
                           + ((threadIdx.x + OFFSET) % STRIDE);
    int thread_end_idx = thread_start_idx + n_elem_per_thread * STRIDE;
    if (thread_end_idx > N) {
        thread_end_idx = N;
    }
    __shared__ volatile int S[512];
    float acc = 0.0f;
    for (int idx = thread_start_idx; idx < thread_end_idx; idx += STRIDE) {
        float v = a[idx];
        for (int i = 0; i < ITERS; i++) {
            S[(threadIdx.x * BANK) % 512] = v;
        }
        acc += v;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
