// radix_global: binary LSD radix sort, first implementation of Gogolinska et
// al. (seed 003, section 5): global memory only, the prefix sums of phase 2
// computed sequentially by thread 0.
//
// One block of THREADS threads sorts n = THREADS * MEMSIZE unsigned keys of
// BITS bits. Thread t owns A[t*MEMSIZE .. (t+1)*MEMSIZE). For every bit
// (least significant first), three phases separated by __syncthreads():
//  1. each thread copies its part to registers and counts its keys with a 0
//     bit (zeros[t]) and a 1 bit (ones[t]);
//  2. thread 0 turns zeros[] and ones[] into exclusive prefix sums and adds
//     the total number of zeros to every ones[] entry (the output positions);
//  3. each thread writes its keys, in order, to the other buffer: 0-bit keys
//     from position zeros[t] on, 1-bit keys from ones[t] on (stable).
// The buffers alternate A -> B -> A; BITS is even, so the result ends in A.
//
// Check: A == the input sorted ascending (exact); zeros/ones are scratch.
#ifndef THREADS
#define THREADS 64
#endif
#ifndef MEMSIZE
#define MEMSIZE 16
#endif
#ifndef BITS
#define BITS 16
#endif

extern "C" __global__ void radix_global(unsigned *A, unsigned *B, unsigned *zeros, unsigned *ones)
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
        if (t == 0) {
            unsigned sz = 0, so = 0;
            for (int j = 0; j < THREADS; ++j) {
                unsigned a = zeros[j], b = ones[j];
                zeros[j] = sz;
                ones[j] = so;
                sz += a;
                so += b;
            }
            for (int j = 0; j < THREADS; ++j) {
                ones[j] += sz;
            }
        }
        __syncthreads();
        unsigned pz = zeros[t], po = ones[t];
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
