// scan_blelloch: the work-efficient (Blelloch) exclusive scan of each block's
// 2*blockDim.x elements in shared memory: an up-sweep (reduce) phase building
// partial sums in a tree, the root cleared, then a down-sweep phase; each
// thread handles two elements. Written as a function template instantiated
// for int (C++ linkage: the entry is _Z13scan_blellochIiEvPKT_PS0_i, named
// "scan_blelloch" in the launch spec).
//
// Block b scans x[b*2B .. (b+1)*2B), B = blockDim.x (a power of two, at most
// MAXB), with elements past n read as 0.
//
// Check: out[b*2B + k] == sum of x[b*2B .. b*2B + k) (exclusive, per block;
// out at the block's first element is 0). x = iota (i32): exact.
#ifndef MAXB
#define MAXB 128
#endif

template <typename T>
__global__ void scan_blelloch(const T *x, T *out, int n)
{
    __shared__ T s[2 * MAXB];
    int t = threadIdx.x;
    int m = 2 * blockDim.x;
    int base = blockIdx.x * m;
    s[2 * t] = (base + 2 * t < n) ? x[base + 2 * t] : T(0);
    s[2 * t + 1] = (base + 2 * t + 1 < n) ? x[base + 2 * t + 1] : T(0);
    int offset = 1;
    for (int d = m >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1;
            int bi = offset * (2 * t + 2) - 1;
            s[bi] += s[ai];
        }
        offset <<= 1;
    }
    if (t == 0) {
        s[m - 1] = T(0);
    }
    for (int d = 1; d < m; d <<= 1) {
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1;
            int bi = offset * (2 * t + 2) - 1;
            T v = s[ai];
            s[ai] = s[bi];
            s[bi] += v;
        }
    }
    __syncthreads();
    if (base + 2 * t < n) {
        out[base + 2 * t] = s[2 * t];
    }
    if (base + 2 * t + 1 < n) {
        out[base + 2 * t + 1] = s[2 * t + 1];
    }
}

template __global__ void scan_blelloch<int>(const int *x, int *out, int n);
