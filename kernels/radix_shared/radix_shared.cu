// radix_shared: binary LSD radix sort, third implementation of Gogolinska et
// al. (seed 003, section 5): as radix_tree (tree-shaped partial sums computed
// by all threads), but the zeros[] and ones[] arrays live in shared memory.
// The keys stay in global memory (A and B alternate, BITS even).
//
// One block of THREADS (a power of two) threads; n = THREADS * MEMSIZE keys.
//
// Check: A == the input sorted ascending (exact).
#ifndef THREADS
#define THREADS 64
#endif
#ifndef MEMSIZE
#define MEMSIZE 16
#endif
#ifndef BITS
#define BITS 16
#endif

extern "C" __global__ void radix_shared(unsigned *A, unsigned *B)
{
    __shared__ unsigned zeros[THREADS];
    __shared__ unsigned ones[THREADS];
    unsigned t = threadIdx.x;
    unsigned *src = A;
    unsigned *dst = B;
    for (int bit = 0; bit < BITS; ++bit) {
        unsigned v[MEMSIZE];
        unsigned z = 0;
#pragma unroll
        for (int m = 0; m < MEMSIZE; ++m) {
            v[m] = src[t * MEMSIZE + m];
            z += ((v[m] >> bit) & 1u) == 0u;
        }
        zeros[t] = z;
        ones[t] = MEMSIZE - z;
        __syncthreads();
        for (unsigned half = 1; half < THREADS; half <<= 1) {
            if (t & half) {
                unsigned from = (t & ~(2 * half - 1)) + half - 1;
                zeros[t] += zeros[from];
                ones[t] += ones[from];
            }
            __syncthreads();
        }
        unsigned total_zeros = zeros[THREADS - 1];
        unsigned pz = zeros[t] - z;
        unsigned po = total_zeros + ones[t] - (MEMSIZE - z);
        __syncthreads();
#pragma unroll
        for (int m = 0; m < MEMSIZE; ++m) {
            if (((v[m] >> bit) & 1u) == 0u) {
                dst[pz++] = v[m];
            } else {
                dst[po++] = v[m];
            }
        }
        __syncthreads();
        unsigned *tmp = src;
        src = dst;
        dst = tmp;
    }
}
