// Microbenchmarks of seed 004 (Monro, "Cost Models for Combinator Parallelism
// in GPGPUs"), written for ptxperf: one operation timed with clock64() at
// thread level, the operand staged in shared memory first and the result
// written back so that the compiler cannot remove the operation.
//
// Each kernel times OPS dependent applications of its operation (OPS is a
// define, default 1 as in the seed). The runner (crates/gpurun) compiles this
// file once per OPS value, launches every kernel over n threads, reads back
// the per-thread cycle counts and writes one CSV row per (kernel, OPS):
//   x    = OPS, the dependent operations each thread performs;
//   time = the median over threads of the cycles between the two clock64()
//          reads, unit `cycles`.
// A line fitted to time against x then gives A = cycles per dependent
// operation (its latency) and B = the timing overhead, which is what
// fit::combinators::OpLatencies::from_datasets expects.
//
// Every step is a volatile inline-PTX statement, so NVVM keeps the chain of
// OPS steps in order between the clock reads. ptxas does not honour
// `volatile`, though: measured on an H100 (data/measured/h100-sxm5-80gb,
// driver 580, PTX JIT-compiled by the driver), the int_add, int_mul, int_and
// and int_or chains took no longer at OPS = 64 than at OPS = 1 (adds of one
// operand fold into IMAD/LEA pairs already in ptxas 12.9's sm_90 SASS, a
// power of one operand into a few squarings), while the double chains scale
// (dbl_add 4.2 cycles per step). The integer rows of such a GPU are the
// timing frame, not the operations; the double rows hold.
//
// Kernels (C linkage, so the runner finds them by name):
//   int_add int_mul int_cmp int_and int_or   on 4-byte integers
//   dbl_add dbl_mul dbl_cmp dbl_and dbl_or   on doubles
// cmp is a compare turned back into a value (setp + selp: v = v < operand ? 1 : -1);
// and/or are logical, as in the seed (v = (v != 0) && (operand != 0)).
// Arguments: (T *data, long long *cycles, T operand, int n)
// Dynamic shared memory: blockDim.x * sizeof(T) bytes.

#ifndef OPS
#define OPS 1
#endif

#define BENCH(NAME, T, STEP)                                                   \
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
        _Pragma("unroll") for (int i = 0; i < OPS; ++i) { STEP; }              \
        long long stop = clock64();                                            \
        cycles[tid] = stop - start;                                            \
        stage[threadIdx.x] = v;                                                \
        data[tid] = stage[threadIdx.x];                                        \
    }

// 0d3FF0000000000000 is 1.0, 0dBFF0000000000000 is -1.0 (PTX double literals).
BENCH(int_add, int, asm volatile("add.s32 %0, %0, %1;" : "+r"(v) : "r"(operand)))
BENCH(int_mul, int, asm volatile("mul.lo.s32 %0, %0, %1;" : "+r"(v) : "r"(operand)))
BENCH(int_cmp, int,
      asm volatile("{ .reg .pred p; setp.lt.s32 p, %0, %1; selp.s32 %0, 1, -1, p; }"
                   : "+r"(v) : "r"(operand)))
BENCH(int_and, int,
      asm volatile("{ .reg .pred p, q; setp.ne.s32 p, %0, 0; setp.ne.and.s32 q, %1, 0, p; "
                   "selp.s32 %0, 1, 0, q; }"
                   : "+r"(v) : "r"(operand)))
BENCH(int_or, int,
      asm volatile("{ .reg .pred p, q; setp.ne.s32 p, %0, 0; setp.ne.or.s32 q, %1, 0, p; "
                   "selp.s32 %0, 1, 0, q; }"
                   : "+r"(v) : "r"(operand)))
BENCH(dbl_add, double, asm volatile("add.rn.f64 %0, %0, %1;" : "+d"(v) : "d"(operand)))
BENCH(dbl_mul, double, asm volatile("mul.rn.f64 %0, %0, %1;" : "+d"(v) : "d"(operand)))
BENCH(dbl_cmp, double,
      asm volatile("{ .reg .pred p; setp.lt.f64 p, %0, %1; "
                   "selp.f64 %0, 0d3FF0000000000000, 0dBFF0000000000000, p; }"
                   : "+d"(v) : "d"(operand)))
BENCH(dbl_and, double,
      asm volatile("{ .reg .pred p, q; setp.ne.f64 p, %0, 0d0000000000000000; "
                   "setp.ne.and.f64 q, %1, 0d0000000000000000, p; "
                   "selp.f64 %0, 0d3FF0000000000000, 0d0000000000000000, q; }"
                   : "+d"(v) : "d"(operand)))
BENCH(dbl_or, double,
      asm volatile("{ .reg .pred p, q; setp.ne.f64 p, %0, 0d0000000000000000; "
                   "setp.ne.or.f64 q, %1, 0d0000000000000000, p; "
                   "selp.f64 %0, 0d3FF0000000000000, 0d0000000000000000, q; }"
                   : "+d"(v) : "d"(operand)))
