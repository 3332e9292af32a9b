// divergence: nested divergent branches and loops with break and continue,
// for the reconvergence machinery (Kerr et al., seed 001: divergence and
// activity factor; both the immediate-post-dominator and the barrier policy).
//
// For thread g with x = in[g] (iota in the spec, so lanes differ):
//   - outer branch on g % 4 (four paths in a warp), an inner branch on x % 3
//     inside two of them;
//   - a loop of at most LIMIT steps of the Collatz map on v = x + 1, that skips
//     (continue) the counting of even values greater than 100, and leaves
//     (break) when v reaches 1;
//   out[g] = code * 1000 + steps, where code identifies the branch path and
//   steps counts the odd-or-small values seen before the break or LIMIT.
//
// Check: replay the same C on the CPU per thread (integers, exact).
#ifndef LIMIT
#define LIMIT 64
#endif

extern "C" __global__ void divergence(const int *in, int *out, int n)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n) {
        return;
    }
    int x = in[g];
    int code;
    if (g % 4 == 0) {
        code = (x % 3 == 0) ? 1 : 2;
    } else if (g % 4 == 1) {
        if (x % 3 == 1) {
            code = 3;
        } else {
            code = 4;
        }
    } else {
        code = 5 + (g % 4);
    }
    int v = x + 1;
    int steps = 0;
    for (int k = 0; k < LIMIT; ++k) {
        if (v == 1) {
            break;
        }
        if ((v & 1) == 0) {
            v >>= 1;
            if (v > 100) {
                continue;
            }
        } else {
            v = 3 * v + 1;
        }
        steps += 1;
    }
    out[g] = code * 1000 + steps;
}
