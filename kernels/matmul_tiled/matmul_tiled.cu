// matmul_tiled: C = A * B for N x N row-major float matrices with TILE x TILE
// tiles of A and B staged in shared memory (Kothapalli et al., seed 000,
// section 5.1: 16 x 16 blocks, each thread loads one element of A and one of B
// per tile, then multiplies the tiles; seed 002's matrix multiplication).
//
// N must be a multiple of TILE; block = (TILE, TILE), grid = (N/TILE, N/TILE).
// Thread (tx, ty) of block (bx, by) computes C[by*TILE+ty][bx*TILE+tx],
// summing over tiles t ascending and within a tile k ascending.
//
// Check: compare C with a CPU product within 1e-4 relative (same inputs as
// matmul_naive, so both kernels' outputs can also be compared to each other).
#ifndef N
#define N 64
#endif
#ifndef TILE
#define TILE 16
#endif

extern "C" __global__ void matmul_tiled(const float *A, const float *B, float *C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < N / TILE; ++t) {
        As[ty][tx] = A[row * N + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            acc += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();
    }
    C[row * N + col] = acc;
}
