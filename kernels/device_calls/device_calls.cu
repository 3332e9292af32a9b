// device_calls: calls to non-inlined device functions (.func in PTX) with
// parameters and return values, one of them recursive.
//
//   gcd(a, b)           iterative Euclid, __noinline__, returns int
//   blend(x, y, t, s)   four parameters (float, float, float, int), returns
//                       float: (x + (y - x) * t) * s
//   fib(k)              recursive Fibonacci, __noinline__ (fib(0) = 0,
//                       fib(1) = 1), k <= 11 so the call tree stays small
//
// For i < n with a = ia[i], b = ib[i] (random integers in [1, 1000)):
//   g[i] = gcd(a, b)
//   f[i] = fib(a % 12)
//   h[i] = blend((float)a, (float)b, 0.25f, i % 3)
//
// Check: the same functions on the CPU (g and f exact; h within 1e-6
// relative, since the multiply-add may be contracted).
__device__ __noinline__ int gcd(int a, int b)
{
    while (b != 0) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

__device__ __noinline__ float blend(float x, float y, float t, int s)
{
    return (x + (y - x) * t) * (float)s;
}

__device__ __noinline__ int fib(int k)
{
    if (k < 2) {
        return k;
    }
    return fib(k - 1) + fib(k - 2);
}

extern "C" __global__ void device_calls(const int *ia, const int *ib, int *g, int *f, float *h, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    int a = ia[i];
    int b = ib[i];
    g[i] = gcd(a, b);
    f[i] = fib(a % 12);
    h[i] = blend((float)a, (float)b, 0.25f, i % 3);
}
