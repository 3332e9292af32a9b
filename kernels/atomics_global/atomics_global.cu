// atomics_global: global-memory atomics whose final results do not depend on
// the order in which threads perform them (so the output is deterministic).
//
// r (i32, 9 slots) starts at 0, and_mask (u32, 1 slot) starts at 0xFFFFFFFF,
// flag (i32, 2 slots) and fsum (f32, 1 slot) start at 0. Every thread g < n
// with x = in[g] (random integers in [0, 1000)) does:
//   atomicAdd(&r[0], x)                  r[0] = sum of x
//   atomicMin(&r[1], x - 1000)           r[1] = min(x) - 1000   (all < 0)
//   atomicMax(&r[2], x)                  r[2] = max(x)
//   atomicExch(&flag[0], 1) returned 0   counted in r[3]: exactly 1 thread
//   atomicCAS(&flag[1], 0, g+1) won      counted in r[4]: exactly 1 thread
//   atomicOr(&r[5], 1 << (x % 31))       r[5] = OR of the bits
//   atomicAnd(and_mask, ~(1 << (x % 31))) and_mask = ~r[5]
//   atomicXor(&r[7], x)                  r[7] = XOR of x
//   atomicAdd(&fsum[0], float(x % 8))    fsum[0] = sum of x % 8 (small
//                                        integers: exact in any order)
//   x even: increment r[8] with an atomicCAS retry loop
//                                        r[8] = number of even x
// r[6] is unused (stays 0); flag[1] ends holding the winner's g + 1 (order
// dependent: not checked).
//
// Check: the values above, exactly.
extern "C" __global__ void atomics_global(const int *in, int *r, unsigned *and_mask, int *flag, float *fsum, int n)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n) {
        return;
    }
    int x = in[g];
    atomicAdd(&r[0], x);
    atomicMin(&r[1], x - 1000);
    atomicMax(&r[2], x);
    if (atomicExch(&flag[0], 1) == 0) {
        atomicAdd(&r[3], 1);
    }
    if (atomicCAS(&flag[1], 0, g + 1) == 0) {
        atomicAdd(&r[4], 1);
    }
    atomicOr(&r[5], 1 << (x % 31));
    atomicAnd(and_mask, ~(1u << (x % 31)));
    atomicXor(&r[7], x);
    atomicAdd(&fsum[0], (float)(x % 8));
    if ((x & 1) == 0) {
        int old = r[8];
        int assumed;
        do {
            assumed = old;
            old = atomicCAS(&r[8], assumed, assumed + 1);
        } while (old != assumed);
    }
}
