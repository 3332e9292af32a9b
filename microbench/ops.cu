// Microbenchmarks of seed 004 (Monro, "Cost Models for Combinator Parallelism
// in GPGPUs"), written for ptxperf: one operation timed with clock() at thread
// level, the operand staged in shared memory first and the result written back
// so that the compiler cannot remove the operation.
//
// Each kernel times OPS dependent applications of its operation (OPS is a
// define, default 1 as in the seed; a runner varies it to fit cost per
// operation). x of the measurement CSV is the number of operations performed
// by the launch: threads * OPS.
//
// Kernels (C linkage, so the runner finds them by name):
//   int_add int_mul int_cmp int_and int_or          on 4-byte integers
//   dbl_add dbl_mul dbl_cmp dbl_and dbl_or          on doubles (and/or are logical, as in the seed)
// Arguments: (T *data, long long *cycles, T operand, int n)

#ifndef OPS
#define OPS 1
#endif

#define BENCH(NAME, T, EXPR)                                                   \
    extern "C" __global__ void NAME(T *data, long long *cycles, T operand,     \
                                    int n)                                     \
    {                                                                          \
        extern __shared__ unsigned char smem_raw[];                            \
        T *stage = reinterpret_cast<T *>(smem_raw);                            \
        int tid = blockIdx.x * blockDim.x + threadIdx.x;                       \
        if (tid >= n) return;                                                  \
        stage[threadIdx.x] = data[tid];                                        \
        T v = stage[threadIdx.x];                                              \
        long long start = clock64();                                           \
        _Pragma("unroll") for (int i = 0; i < OPS; ++i) { v = (EXPR); }        \
        long long stop = clock64();                                            \
        cycles[tid] = stop - start;                                            \
        stage[threadIdx.x] = v;                                                \
        data[tid] = stage[threadIdx.x];                                        \
    }

BENCH(int_add, int, v + operand)
BENCH(int_mul, int, v * operand)
BENCH(int_cmp, int, (v < operand) ? v + 1 : v - 1)
BENCH(int_and, int, (v && operand) ? 1 : 0)
BENCH(int_or, int, (v || operand) ? 1 : 0)
BENCH(dbl_add, double, v + operand)
BENCH(dbl_mul, double, v * operand)
BENCH(dbl_cmp, double, (v < operand) ? v + 1.0 : v - 1.0)
BENCH(dbl_and, double, (v != 0.0 && operand != 0.0) ? 1.0 : 0.0)
BENCH(dbl_or, double, (v != 0.0 || operand != 0.0) ? 1.0 : 0.0)
