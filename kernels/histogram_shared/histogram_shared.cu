// histogram_shared: per-block histograms built in shared memory with shared
// atomics (Kothapalli et al., seed 000, section 5.3: each block reads its share
// of the input coalesced, updates a BINS-bin histogram in shared memory, then
// copies it to global memory coalesced; the local histograms are summed later).
//
// Element i falls into bin data[i] % BINS. Block b handles the grid-stride
// slice i = b*blockDim.x + t, += gridDim.x*blockDim.x and writes its
// histogram to local_hist[b*BINS .. (b+1)*BINS).
//
// Check: for every block b and bin k, local_hist[b*BINS+k] equals the CPU
// count of elements of b's slice in bin k (exact, integers); summing over
// blocks gives the histogram of the whole input.
#ifndef BINS
#define BINS 256
#endif

extern "C" __global__ void histogram_shared(const unsigned *data, unsigned *local_hist, int n)
{
    __shared__ unsigned hist[BINS];
    for (int k = threadIdx.x; k < BINS; k += blockDim.x) {
        hist[k] = 0;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        atomicAdd(&hist[data[i] % BINS], 1u);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < BINS; k += blockDim.x) {
        local_hist[blockIdx.x * BINS + k] = hist[k];
    }
}
