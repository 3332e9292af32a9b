// matmul_naive: C = A * B for N x N row-major float matrices, one thread per
// element of C, every operand read from global memory (Kothapalli et al.,
// seed 000, section 5.1, before tiling; also the matrix-multiplication
// experiment of seed 002).
//
// Thread (x, y) of the 2D grid computes C[row = y][col = x] =
// sum_k A[row][k] * B[k][col], k ascending, accumulated in a float.
//
// Check: compare C with a CPU product (same summation order) within 1e-4
// relative; A and B are random in [-1, 1) (seeds 1 and 2, see spec.toml).
#ifndef N
#define N 64
#endif

extern "C" __global__ void matmul_naive(const float *A, const float *B, float *C)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < N && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < N; ++k) {
            acc += A[row * N + k] * B[k * N + col];
        }
        C[row * N + col] = acc;
    }
}
