// transpose_naive: out = in^T for an N x N row-major float matrix, straight
// from global memory: reads are coalesced (consecutive threads read
// consecutive columns of a row), writes are strided by N (uncoalesced).
//
// Thread (x, y) of the 2D grid writes out[x*N + y] = in[y*N + x].
//
// Check: out[c*N + r] == in[r*N + c] for all r, c (exact; in = iota).
#ifndef N
#define N 64
#endif

extern "C" __global__ void transpose_naive(float *out, const float *in)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < N && y < N) {
        out[x * N + y] = in[y * N + x];
    }
}
