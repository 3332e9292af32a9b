// scan_block: the scan combinator (seed 004, "ScanL", prefix sum) as a
// Hillis-Steele inclusive scan of each block's BLOCK elements in shared memory.
//
// Block b scans x[b*BLOCK .. (b+1)*BLOCK) independently, using two shared
// buffers (ping-pong) so each step reads only the previous step's values:
// step d adds the element 2^d positions to the left. log2(BLOCK) steps,
// __syncthreads() after each.
//
// Check: out[b*BLOCK + t] == sum of x[b*BLOCK .. b*BLOCK + t] (inclusive),
// per block. With integer inputs (x = iota, i32) the result is exact.
#ifndef BLOCK
#define BLOCK 256
#endif

extern "C" __global__ void scan_inclusive(const int *x, int *out, int n)
{
    __shared__ int buf[2][BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    int cur = 0;
    buf[cur][t] = (i < n) ? x[i] : 0;
    __syncthreads();
    for (int d = 1; d < BLOCK; d <<= 1) {
        int v = buf[cur][t];
        if (t >= d) {
            v += buf[cur][t - d];
        }
        buf[cur ^ 1][t] = v;
        cur ^= 1;
        __syncthreads();
    }
    if (i < n) {
        out[i] = buf[cur][t];
    }
}
