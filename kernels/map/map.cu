// map: the elementwise combinator of Monro's cost models (seed 004, "Map").
//
// Computes, for every i < n:  out[i] = A * x[i] * x[i] + B * x[i] + 1.0f
// with A and B compile-time defines (floats). One thread per element, a
// grid-stride loop so any grid covers n.
//
// Check: out[i] == A*x*x + B*x + 1 with x = iota (x[i] = i), within 1e-6
// relative (NVRTC contracts the multiply-adds into fma).
#ifndef A
#define A 0.5f
#endif
#ifndef B
#define B 2.0f
#endif

extern "C" __global__ void map_poly(const float *x, float *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float v = x[i];
        out[i] = A * v * v + B * v + 1.0f;
    }
}
