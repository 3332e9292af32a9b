// early_return: threads that leave the kernel at different points (bounds
// check on a size that is not a multiple of the block, data-dependent early
// exits), so warps finish with partial active masks.
//
// For g < n:  x = in[g];
//   x < 0          -> out[g] = 0 and return;
//   x % 7 == 0     -> out[g] = -1 and return;
//   otherwise      -> out[g] = x * x % 1009 (integer).
// Threads with g >= n return at once and write nothing (out stays -7 there,
// the spec's fill value).
//
// Check: per element, the rule above (integers, exact); in = random integers
// in [-100, 1000).
extern "C" __global__ void early_return(const int *in, int *out, int n)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n) {
        return;
    }
    int x = in[g];
    if (x < 0) {
        out[g] = 0;
        return;
    }
    if (x % 7 == 0) {
        out[g] = -1;
        return;
    }
    out[g] = x * x % 1009;
}
