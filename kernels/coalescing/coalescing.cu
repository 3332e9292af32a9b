// coalescing: the coalescing experiment of Kothapalli et al. (seed 000,
// section 4.1 and Appendix B.1, Listing 1), as published, with STRIDE and
// OFFSET as defines. STRIDE is the gap between the elements one thread
// accesses in sequence: STRIDE = 32 gives every warp consecutive elements
// (fully coalesced), STRIDE = 1 gives each thread a contiguous run, so a warp's
// accesses are n_elem_per_thread elements apart (uncoalesced). The number of
// accesses per thread does not depend on STRIDE.
//
// Thread t of block b touches idx = start, start+STRIDE, ... < end with
//   per    = N / (gridDim.x * blockDim.x)
//   start  = per*b*blockDim.x + (t / STRIDE)*per*STRIDE + ((t + OFFSET) % STRIDE)
//   end    = min(start + per*STRIDE, N)
// and doubles a[idx] (a[idx] = a[idx] + a[idx]).
//
// Check: replay the index formula on the CPU: every element is multiplied by
// 2^(number of times it is touched); with STRIDE dividing blockDim.x and
// OFFSET = 0 that is exactly once, so a[i] == 2 * i for a = iota.
#ifndef STRIDE
#define STRIDE 32
#endif
#ifndef OFFSET
#define OFFSET 0
#endif

extern "C" __global__ void coalescing(float *a, int N)
{
    int n_elem_per_thread = N / (gridDim.x * blockDim.x);
    int block_start_idx = n_elem_per_thread * blockIdx.x * blockDim.x;
    int thread_start_idx = block_start_idx + (threadIdx.x / STRIDE) * n_elem_per_thread * STRIDE
                           + ((threadIdx.x + OFFSET) % STRIDE);
    int thread_end_idx = thread_start_idx + n_elem_per_thread * STRIDE;
    if (thread_end_idx > N) {
        thread_end_idx = N;
    }
    for (int idx = thread_start_idx; idx < thread_end_idx; idx += STRIDE) {
        a[idx] = a[idx] + a[idx];
    }
}
