// warp_match_redux: __match_any_sync / __match_all_sync (sm_70+) and the
// warp-reduce intrinsics __reduce_add_sync / __reduce_min_sync /
// __reduce_max_sync (redux.sync, sm_80+ only). The sm_70 build takes the
// #else path (a shuffle tree), so the same source compiles for sm_70, sm_80
// and sm_90 and gives the same results.
//
// For thread g with key = in[g] % KEYS (KEYS distinct keys):
//   peers[g]  = __match_any_sync(FULL, key): the lanes with the same key;
//   leader[g] = 1 when g's lane is the lowest of its peers, else 0;
//   same[w]   = 1 when all 32 keys of warp w are equal (__match_all_sync), else 0;
//   wsum[w], wmin[w], wmax[w] = sum, min, max of in[] over warp w (lane 0 writes).
//
// Check (exact): peers bit l set iff lane l has the same key; leader as
// stated; same is 0 for random keys; wsum/wmin/wmax by a CPU fold over each
// warp. in = random integers in [0, 1000).
#define FULL 0xffffffffu
#ifndef KEYS
#define KEYS 4
#endif

extern "C" __global__ void warp_match_redux(const unsigned *in, unsigned *peers, int *leader, int *same, unsigned *wsum,
                                            unsigned *wmin, unsigned *wmax)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int w = g >> 5;
    unsigned x = in[g];
    unsigned key = x % KEYS;
    unsigned p = __match_any_sync(FULL, key);
    int pred = 0;
    __match_all_sync(FULL, key, &pred);
    peers[g] = p;
    leader[g] = (__ffs(p) - 1) == lane;
#if __CUDA_ARCH__ >= 800
    unsigned s = __reduce_add_sync(FULL, x);
    unsigned lo = __reduce_min_sync(FULL, x);
    unsigned hi = __reduce_max_sync(FULL, x);
#else
    unsigned s = x, lo = x, hi = x;
    for (int off = 16; off > 0; off >>= 1) {
        s += __shfl_xor_sync(FULL, s, off);
        lo = min(lo, __shfl_xor_sync(FULL, lo, off));
        hi = max(hi, __shfl_xor_sync(FULL, hi, off));
    }
#endif
    if (lane == 0) {
        same[w] = pred;
        wsum[w] = s;
        wmin[w] = lo;
        wmax[w] = hi;
    }
}
