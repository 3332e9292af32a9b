// printf_kernel: device-side printf (vprintf in PTX, with its argument buffer
// in local memory), from a few threads only.
//
// Thread 0 of every block prints "block B: first x = X, sum of squares = S"
// where X = in[B * blockDim.x] (float, printed with %f) and S is an int; every
// thread writes out[g] = (int)in[g] * (int)in[g] (in = iota).
//
// Check: out[g] == g * g (exact); the emulator's printf output, in block
// order, is one line per block:
//   "block %d: first x = %f, sum of squares = %d\n" with B, B*blockDim.x and
//   the sum of g*g over the block's threads, computed by thread 0 in a loop.

extern "C" __global__ void printf_kernel(const float *in, int *out, int n)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n) {
        return;
    }
    int v = (int)in[g];
    out[g] = v * v;
    if (threadIdx.x == 0) {
        int s = 0;
        for (int t = 0; t < (int)blockDim.x && g + t < n; ++t) {
            int u = (int)in[g + t];
            s += u * u;
        }
        printf("block %d: first x = %f, sum of squares = %d\n", (int)blockIdx.x, in[g], s);
    }
}
