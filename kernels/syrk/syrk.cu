// syrk: symmetric rank-k update C = alpha * A * A^T + beta * C for an N x M
// row-major matrix A and an N x N matrix C, one thread per element of C
// (the SYRK experiment of seed 002, PolyBench/GPU style: the whole of C is
// computed, not only one triangle).
//
// C[i][j] = beta * C[i][j] + alpha * sum_{k<M} A[i][k] * A[j][k], k ascending,
// where i = row (y), j = column (x).
//
// Check: a CPU evaluation within 1e-4 relative; the result is symmetric up to
// rounding when C starts symmetric (C starts as fill 1.0 in spec.toml).
#ifndef N
#define N 64
#endif
#ifndef M
#define M 64
#endif

extern "C" __global__ void syrk(const float *A, float *C, float alpha, float beta)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < N && j < N) {
        float acc = 0.0f;
        for (int k = 0; k < M; ++k) {
            acc += A[i * M + k] * A[j * M + k];
        }
        C[i * N + j] = beta * C[i * N + j] + alpha * acc;
    }
}
