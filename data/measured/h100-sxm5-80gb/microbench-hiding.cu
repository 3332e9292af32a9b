#define SF 4096
__constant__ float cf[16];
#define M 1

extern "C" __global__ void mb_lds_ffma_1(float* out, long long* cycles, int iters, float mul, float add) {
  extern __shared__ float dyn[];
  float* s = dyn;
  int t = threadIdx.x, lane = t & 31;
  // For lds_chase each word holds the index of a word 32 further on (same
  // bank, its own lane's column), so each load depends on the last.
  for (int i = t; i < SF; i += blockDim.x) s[i] = __int_as_float((i + 32) & (SF - 1));
  float a[M];
  int j[M];
  #pragma unroll
  for (int k = 0; k < M; k++) { a[k] = t + k; j[k] = (k * 128 + lane) & (SF - 1); }
  __syncthreads();
  long long c0 = clock64();
  int base = ((t >> 5) * 64) & (SF - 1);
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < M; k++) { a[k] = fmaf(s[(base + k * 32 + lane) & (SF - 1)], cf[k], a[k]); }
    base = (base + 32 * M + 1) & (SF - 1);
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < M; k++) sum += a[k] + (float)j[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
#undef M
#define M 2

extern "C" __global__ void mb_lds_ffma_2(float* out, long long* cycles, int iters, float mul, float add) {
  extern __shared__ float dyn[];
  float* s = dyn;
  int t = threadIdx.x, lane = t & 31;
  // For lds_chase each word holds the index of a word 32 further on (same
  // bank, its own lane's column), so each load depends on the last.
  for (int i = t; i < SF; i += blockDim.x) s[i] = __int_as_float((i + 32) & (SF - 1));
  float a[M];
  int j[M];
  #pragma unroll
  for (int k = 0; k < M; k++) { a[k] = t + k; j[k] = (k * 128 + lane) & (SF - 1); }
  __syncthreads();
  long long c0 = clock64();
  int base = ((t >> 5) * 64) & (SF - 1);
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < M; k++) { a[k] = fmaf(s[(base + k * 32 + lane) & (SF - 1)], cf[k], a[k]); }
    base = (base + 32 * M + 1) & (SF - 1);
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < M; k++) sum += a[k] + (float)j[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
#undef M
#define M 4

extern "C" __global__ void mb_lds_ffma_4(float* out, long long* cycles, int iters, float mul, float add) {
  extern __shared__ float dyn[];
  float* s = dyn;
  int t = threadIdx.x, lane = t & 31;
  // For lds_chase each word holds the index of a word 32 further on (same
  // bank, its own lane's column), so each load depends on the last.
  for (int i = t; i < SF; i += blockDim.x) s[i] = __int_as_float((i + 32) & (SF - 1));
  float a[M];
  int j[M];
  #pragma unroll
  for (int k = 0; k < M; k++) { a[k] = t + k; j[k] = (k * 128 + lane) & (SF - 1); }
  __syncthreads();
  long long c0 = clock64();
  int base = ((t >> 5) * 64) & (SF - 1);
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < M; k++) { a[k] = fmaf(s[(base + k * 32 + lane) & (SF - 1)], cf[k], a[k]); }
    base = (base + 32 * M + 1) & (SF - 1);
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < M; k++) sum += a[k] + (float)j[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
#undef M
#define M 8

extern "C" __global__ void mb_lds_ffma_8(float* out, long long* cycles, int iters, float mul, float add) {
  extern __shared__ float dyn[];
  float* s = dyn;
  int t = threadIdx.x, lane = t & 31;
  // For lds_chase each word holds the index of a word 32 further on (same
  // bank, its own lane's column), so each load depends on the last.
  for (int i = t; i < SF; i += blockDim.x) s[i] = __int_as_float((i + 32) & (SF - 1));
  float a[M];
  int j[M];
  #pragma unroll
  for (int k = 0; k < M; k++) { a[k] = t + k; j[k] = (k * 128 + lane) & (SF - 1); }
  __syncthreads();
  long long c0 = clock64();
  int base = ((t >> 5) * 64) & (SF - 1);
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < M; k++) { a[k] = fmaf(s[(base + k * 32 + lane) & (SF - 1)], cf[k], a[k]); }
    base = (base + 32 * M + 1) & (SF - 1);
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < M; k++) sum += a[k] + (float)j[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
#undef M
#define M 16

extern "C" __global__ void mb_lds_ffma_16(float* out, long long* cycles, int iters, float mul, float add) {
  extern __shared__ float dyn[];
  float* s = dyn;
  int t = threadIdx.x, lane = t & 31;
  // For lds_chase each word holds the index of a word 32 further on (same
  // bank, its own lane's column), so each load depends on the last.
  for (int i = t; i < SF; i += blockDim.x) s[i] = __int_as_float((i + 32) & (SF - 1));
  float a[M];
  int j[M];
  #pragma unroll
  for (int k = 0; k < M; k++) { a[k] = t + k; j[k] = (k * 128 + lane) & (SF - 1); }
  __syncthreads();
  long long c0 = clock64();
  int base = ((t >> 5) * 64) & (SF - 1);
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < M; k++) { a[k] = fmaf(s[(base + k * 32 + lane) & (SF - 1)], cf[k], a[k]); }
    base = (base + 32 * M + 1) & (SF - 1);
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < M; k++) sum += a[k] + (float)j[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
#undef M
#define M 1

extern "C" __global__ void mb_ffma_1(float* out, long long* cycles, int iters, float mul, float add) {
  extern __shared__ float dyn[];
  float* s = dyn;
  int t = threadIdx.x, lane = t & 31;
  // For lds_chase each word holds the index of a word 32 further on (same
  // bank, its own lane's column), so each load depends on the last.
  for (int i = t; i < SF; i += blockDim.x) s[i] = __int_as_float((i + 32) & (SF - 1));
  float a[M];
  int j[M];
  #pragma unroll
  for (int k = 0; k < M; k++) { a[k] = t + k; j[k] = (k * 128 + lane) & (SF - 1); }
  __syncthreads();
  long long c0 = clock64();
  int base = ((t >> 5) * 64) & (SF - 1);
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < M; k++) { a[k] = fmaf(a[k], mul, add); }
    base = (base + 32 * M + 1) & (SF - 1);
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < M; k++) sum += a[k] + (float)j[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
#undef M
#define M 2

extern "C" __global__ void mb_ffma_2(float* out, long long* cycles, int iters, float mul, float add) {
  extern __shared__ float dyn[];
  float* s = dyn;
  int t = threadIdx.x, lane = t & 31;
  // For lds_chase each word holds the index of a word 32 further on (same
  // bank, its own lane's column), so each load depends on the last.
  for (int i = t; i < SF; i += blockDim.x) s[i] = __int_as_float((i + 32) & (SF - 1));
  float a[M];
  int j[M];
  #pragma unroll
  for (int k = 0; k < M; k++) { a[k] = t + k; j[k] = (k * 128 + lane) & (SF - 1); }
  __syncthreads();
  long long c0 = clock64();
  int base = ((t >> 5) * 64) & (SF - 1);
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < M; k++) { a[k] = fmaf(a[k], mul, add); }
    base = (base + 32 * M + 1) & (SF - 1);
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < M; k++) sum += a[k] + (float)j[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
#undef M
#define M 4

extern "C" __global__ void mb_ffma_4(float* out, long long* cycles, int iters, float mul, float add) {
  extern __shared__ float dyn[];
  float* s = dyn;
  int t = threadIdx.x, lane = t & 31;
  // For lds_chase each word holds the index of a word 32 further on (same
  // bank, its own lane's column), so each load depends on the last.
  for (int i = t; i < SF; i += blockDim.x) s[i] = __int_as_float((i + 32) & (SF - 1));
  float a[M];
  int j[M];
  #pragma unroll
  for (int k = 0; k < M; k++) { a[k] = t + k; j[k] = (k * 128 + lane) & (SF - 1); }
  __syncthreads();
  long long c0 = clock64();
  int base = ((t >> 5) * 64) & (SF - 1);
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < M; k++) { a[k] = fmaf(a[k], mul, add); }
    base = (base + 32 * M + 1) & (SF - 1);
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < M; k++) sum += a[k] + (float)j[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
#undef M
#define M 8

extern "C" __global__ void mb_ffma_8(float* out, long long* cycles, int iters, float mul, float add) {
  extern __shared__ float dyn[];
  float* s = dyn;
  int t = threadIdx.x, lane = t & 31;
  // For lds_chase each word holds the index of a word 32 further on (same
  // bank, its own lane's column), so each load depends on the last.
  for (int i = t; i < SF; i += blockDim.x) s[i] = __int_as_float((i + 32) & (SF - 1));
  float a[M];
  int j[M];
  #pragma unroll
  for (int k = 0; k < M; k++) { a[k] = t + k; j[k] = (k * 128 + lane) & (SF - 1); }
  __syncthreads();
  long long c0 = clock64();
  int base = ((t >> 5) * 64) & (SF - 1);
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < M; k++) { a[k] = fmaf(a[k], mul, add); }
    base = (base + 32 * M + 1) & (SF - 1);
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < M; k++) sum += a[k] + (float)j[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
#undef M
#define M 16

extern "C" __global__ void mb_ffma_16(float* out, long long* cycles, int iters, float mul, float add) {
  extern __shared__ float dyn[];
  float* s = dyn;
  int t = threadIdx.x, lane = t & 31;
  // For lds_chase each word holds the index of a word 32 further on (same
  // bank, its own lane's column), so each load depends on the last.
  for (int i = t; i < SF; i += blockDim.x) s[i] = __int_as_float((i + 32) & (SF - 1));
  float a[M];
  int j[M];
  #pragma unroll
  for (int k = 0; k < M; k++) { a[k] = t + k; j[k] = (k * 128 + lane) & (SF - 1); }
  __syncthreads();
  long long c0 = clock64();
  int base = ((t >> 5) * 64) & (SF - 1);
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < M; k++) { a[k] = fmaf(a[k], mul, add); }
    base = (base + 32 * M + 1) & (SF - 1);
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < M; k++) sum += a[k] + (float)j[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
#undef M
#define M 1

extern "C" __global__ void mb_lds_chase_1(float* out, long long* cycles, int iters, float mul, float add) {
  extern __shared__ float dyn[];
  float* s = dyn;
  int t = threadIdx.x, lane = t & 31;
  // For lds_chase each word holds the index of a word 32 further on (same
  // bank, its own lane's column), so each load depends on the last.
  for (int i = t; i < SF; i += blockDim.x) s[i] = __int_as_float((i + 32) & (SF - 1));
  float a[M];
  int j[M];
  #pragma unroll
  for (int k = 0; k < M; k++) { a[k] = t + k; j[k] = (k * 128 + lane) & (SF - 1); }
  __syncthreads();
  long long c0 = clock64();
  int base = ((t >> 5) * 64) & (SF - 1);
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < M; k++) { j[k] = __float_as_int(s[j[k]]); }
    base = (base + 32 * M + 1) & (SF - 1);
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < M; k++) sum += a[k] + (float)j[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
#undef M
#define M 2

extern "C" __global__ void mb_lds_chase_2(float* out, long long* cycles, int iters, float mul, float add) {
  extern __shared__ float dyn[];
  float* s = dyn;
  int t = threadIdx.x, lane = t & 31;
  // For lds_chase each word holds the index of a word 32 further on (same
  // bank, its own lane's column), so each load depends on the last.
  for (int i = t; i < SF; i += blockDim.x) s[i] = __int_as_float((i + 32) & (SF - 1));
  float a[M];
  int j[M];
  #pragma unroll
  for (int k = 0; k < M; k++) { a[k] = t + k; j[k] = (k * 128 + lane) & (SF - 1); }
  __syncthreads();
  long long c0 = clock64();
  int base = ((t >> 5) * 64) & (SF - 1);
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < M; k++) { j[k] = __float_as_int(s[j[k]]); }
    base = (base + 32 * M + 1) & (SF - 1);
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < M; k++) sum += a[k] + (float)j[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
#undef M
#define M 4

extern "C" __global__ void mb_lds_chase_4(float* out, long long* cycles, int iters, float mul, float add) {
  extern __shared__ float dyn[];
  float* s = dyn;
  int t = threadIdx.x, lane = t & 31;
  // For lds_chase each word holds the index of a word 32 further on (same
  // bank, its own lane's column), so each load depends on the last.
  for (int i = t; i < SF; i += blockDim.x) s[i] = __int_as_float((i + 32) & (SF - 1));
  float a[M];
  int j[M];
  #pragma unroll
  for (int k = 0; k < M; k++) { a[k] = t + k; j[k] = (k * 128 + lane) & (SF - 1); }
  __syncthreads();
  long long c0 = clock64();
  int base = ((t >> 5) * 64) & (SF - 1);
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < M; k++) { j[k] = __float_as_int(s[j[k]]); }
    base = (base + 32 * M + 1) & (SF - 1);
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < M; k++) sum += a[k] + (float)j[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
#undef M
#define M 8

extern "C" __global__ void mb_lds_chase_8(float* out, long long* cycles, int iters, float mul, float add) {
  extern __shared__ float dyn[];
  float* s = dyn;
  int t = threadIdx.x, lane = t & 31;
  // For lds_chase each word holds the index of a word 32 further on (same
  // bank, its own lane's column), so each load depends on the last.
  for (int i = t; i < SF; i += blockDim.x) s[i] = __int_as_float((i + 32) & (SF - 1));
  float a[M];
  int j[M];
  #pragma unroll
  for (int k = 0; k < M; k++) { a[k] = t + k; j[k] = (k * 128 + lane) & (SF - 1); }
  __syncthreads();
  long long c0 = clock64();
  int base = ((t >> 5) * 64) & (SF - 1);
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < M; k++) { j[k] = __float_as_int(s[j[k]]); }
    base = (base + 32 * M + 1) & (SF - 1);
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < M; k++) sum += a[k] + (float)j[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
#undef M
#define M 16

extern "C" __global__ void mb_lds_chase_16(float* out, long long* cycles, int iters, float mul, float add) {
  extern __shared__ float dyn[];
  float* s = dyn;
  int t = threadIdx.x, lane = t & 31;
  // For lds_chase each word holds the index of a word 32 further on (same
  // bank, its own lane's column), so each load depends on the last.
  for (int i = t; i < SF; i += blockDim.x) s[i] = __int_as_float((i + 32) & (SF - 1));
  float a[M];
  int j[M];
  #pragma unroll
  for (int k = 0; k < M; k++) { a[k] = t + k; j[k] = (k * 128 + lane) & (SF - 1); }
  __syncthreads();
  long long c0 = clock64();
  int base = ((t >> 5) * 64) & (SF - 1);
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < M; k++) { j[k] = __float_as_int(s[j[k]]); }
    base = (base + 32 * M + 1) & (SF - 1);
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < M; k++) sum += a[k] + (float)j[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
#undef M
#define N 256

extern "C" __global__ void mb_straight_256(float* out, long long* cycles, int iters, float mul, float add) {
  int t = threadIdx.x;
  float a[8];
  #pragma unroll
  for (int k = 0; k < 8; k++) a[k] = t + k;
  __syncthreads();
  long long c0 = clock64();
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < N; k++) a[k & 7] = fmaf(a[k & 7], mul, add);
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < 8; k++) sum += a[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
#undef N
#define N 2048

extern "C" __global__ void mb_straight_2048(float* out, long long* cycles, int iters, float mul, float add) {
  int t = threadIdx.x;
  float a[8];
  #pragma unroll
  for (int k = 0; k < 8; k++) a[k] = t + k;
  __syncthreads();
  long long c0 = clock64();
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < N; k++) a[k & 7] = fmaf(a[k & 7], mul, add);
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < 8; k++) sum += a[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
#undef N
#define N 8192

extern "C" __global__ void mb_straight_8192(float* out, long long* cycles, int iters, float mul, float add) {
  int t = threadIdx.x;
  float a[8];
  #pragma unroll
  for (int k = 0; k < 8; k++) a[k] = t + k;
  __syncthreads();
  long long c0 = clock64();
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < N; k++) a[k & 7] = fmaf(a[k & 7], mul, add);
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < 8; k++) sum += a[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
#undef N
#define N 32768

extern "C" __global__ void mb_straight_32768(float* out, long long* cycles, int iters, float mul, float add) {
  int t = threadIdx.x;
  float a[8];
  #pragma unroll
  for (int k = 0; k < 8; k++) a[k] = t + k;
  __syncthreads();
  long long c0 = clock64();
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < N; k++) a[k & 7] = fmaf(a[k & 7], mul, add);
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < 8; k++) sum += a[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
#undef N
