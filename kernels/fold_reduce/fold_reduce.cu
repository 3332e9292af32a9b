// fold_reduce: the fold (reduce) combinator (seed 004, "Fold") as a
// shared-memory tree reduction.
//
// Each thread first sums a grid-stride slice of x, then the block folds its
// blockDim.x partial sums in dynamic shared memory (extern __shared__, one
// float per thread: dynamic_shared = 4 * blockDim.x) with a halving tree and
// __syncthreads() between levels. Thread 0 writes the block's sum to
// partial[blockIdx.x]. blockDim.x must be a power of two.
//
// Check: sum(partial) == sum(x). With x = fill 1.0 every partial sum is an
// exact integer: partial[b] == number of elements handled by block b
// (n / gridDim.x when n is a multiple of gridDim.x * blockDim.x).
extern "C" __global__ void fold_sum(const float *x, float *partial, int n)
{
    extern __shared__ float sdata[];
    unsigned tid = threadIdx.x;
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x) {
        acc += x[i];
    }
    sdata[tid] = acc;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        partial[blockIdx.x] = sdata[0];
    }
}
