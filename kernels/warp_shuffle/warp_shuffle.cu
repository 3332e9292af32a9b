// warp_shuffle: warp-level reductions with shuffles, no shared memory.
//
// Every warp w (global warp index, warps of 32 consecutive threads) takes
// x = in[g] for its 32 threads g and computes:
//   sum: a tree with __shfl_down_sync(FULL, v, 16, 8, 4, 2, 1); lane 0 writes
//        warp_sum[w];
//   max: a butterfly with __shfl_xor_sync, every lane ends with the maximum;
//        lane 31 writes warp_max[w];
//   bcast[g] = __shfl_sync(FULL, x, (lane + 1) % 32): each thread gets its
//        right neighbour's value (rotation within the warp);
//   up[g] = __shfl_up_sync(FULL, x, 1) (lane 0 keeps its own x).
//
// Check (integers, exact): warp_sum[w] = sum of the warp's x, warp_max[w] =
// max, bcast and up as stated. in = random integers in [0, 1000).
#define FULL 0xffffffffu

extern "C" __global__ void warp_shuffle(const int *in, int *warp_sum, int *warp_max, int *bcast, int *up)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int w = g >> 5;
    int x = in[g];
    int s = x;
    for (int off = 16; off > 0; off >>= 1) {
        s += __shfl_down_sync(FULL, s, off);
    }
    int m = x;
    for (int mask = 1; mask < 32; mask <<= 1) {
        m = max(m, __shfl_xor_sync(FULL, m, mask));
    }
    if (lane == 0) {
        warp_sum[w] = s;
    }
    if (lane == 31) {
        warp_max[w] = m;
    }
    bcast[g] = __shfl_sync(FULL, x, (lane + 1) & 31);
    up[g] = __shfl_up_sync(FULL, x, 1);
}
