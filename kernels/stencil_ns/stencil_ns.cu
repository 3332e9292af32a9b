// stencil_ns: a 1D three-point stencil with a shared-memory halo, declared in
// a C++ namespace (C++ linkage: the entry is _ZN7ptxperf10stencil_1dEPKfPfi,
// named "ptxperf::stencil_1d" or just "stencil_1d" in the launch spec).
//
// out[i] = W0 * in[i-1] + W1 * in[i] + W0 * in[i+1], with in[-1] and in[n]
// taken as 0. Each block stages its BLOCK elements plus one halo element on
// each side in shared memory.
//
// Check: the same formula on the CPU within 1e-6 relative (in = iota, so
// interior values are (2*W0 + W1) * i).
#ifndef BLOCK
#define BLOCK 128
#endif
#define W0 0.25f
#define W1 0.5f

namespace ptxperf {

__global__ void stencil_1d(const float *in, float *out, int n)
{
    __shared__ float s[BLOCK + 2];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    int t = threadIdx.x + 1;
    s[t] = (i < n) ? in[i] : 0.0f;
    if (threadIdx.x == 0) {
        s[0] = (i > 0 && i - 1 < n) ? in[i - 1] : 0.0f;
    }
    if (threadIdx.x == BLOCK - 1) {
        s[BLOCK + 1] = (i + 1 < n) ? in[i + 1] : 0.0f;
    }
    __syncthreads();
    if (i < n) {
        out[i] = W0 * s[t - 1] + W1 * s[t] + W0 * s[t + 1];
    }
}

} // namespace ptxperf
