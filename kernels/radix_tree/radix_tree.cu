// radix_tree: binary LSD radix sort, second implementation of Gogolinska et
// al. (seed 003, section 5): as radix_global, but phase 2 computes the prefix
// sums of zeros[] and ones[] (global memory) with all threads, as a tree of
// partial sums: in cycle c (c = 1 .. log2 THREADS) every element t in the
// upper half of its 2^c-aligned group adds the last element of the lower half,
// (t & ~(2^c - 1)) + 2^(c-1) - 1, which after the previous cycle holds the
// lower half's sum. After log2(THREADS) cycles zeros[t] and ones[t] are
// inclusive prefix sums; the last step adds the total of zeros to the ones
// positions (seed 003, Fig. 5 and the text after it).
//
// One block of THREADS (a power of two) threads; n = THREADS * MEMSIZE keys
// of BITS bits; buffers alternate A -> B -> A (BITS even).
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

extern "C" __global__ void radix_tree(unsigned *A, unsigned *B, unsigned *zeros, unsigned *ones)
{
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
