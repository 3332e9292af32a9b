// dp_prmt: byte permutes, dot products and SIMD video intrinsics.
//
// Thread i < n reads x = a[i], y = b[i] (random 32-bit words) and writes 20
// results, out[k*n + i] for k = 0..19:
//   k = 0..2    __byte_perm(x, y, s) with s = 0x3210 + i, 0x7654, 0x5140 ^ i
//               (CUDA's __byte_perm uses the low 3 bits of each nibble)
//   k = 3       prmt.b32 x, y, 0x89ab ^ i (inline asm: bit 3 of a selector
//               nibble replicates the sign of the selected byte)
//   k = 4..9    prmt.b32.{f4e, b4e, rc8, ecl, ecr, rc16} x, y, i (inline asm:
//               NVRTC has no intrinsic for the modes)
//   k = 10..11  __dp2a_lo / __dp2a_hi, signed (int) operands, c = i
//   k = 12..13  __dp2a_lo / __dp2a_hi, unsigned operands, c = 7
//   k = 14..15  __dp4a signed with c = -i, unsigned with c = 3
//   k = 16..19  __vabsdiffu4(x, y), __vsadu4(x, y), __vabsdiffu2(x, y),
//               __vsadu2(x, y) (NVRTC emits vabsdiff4 / vabsdiff2 with .add
//               for the sums of absolute differences)
//
// Check: bit-exact against a CPU reference written from the PTX ISA's
// definitions of prmt, dp2a, dp4a and the video instructions (crates/emu/
// tests/byteperm.rs).

#ifndef OUTS
#define OUTS 20
#endif

#define PRMT(mode, d, x, y, s) asm("prmt.b32." mode " %0, %1, %2, %3;" : "=r"(d) : "r"(x), "r"(y), "r"(s))

extern "C" __global__ void dp_prmt(const unsigned *a, const unsigned *b, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    unsigned x = a[i];
    unsigned y = b[i];
    unsigned s = (unsigned)i;
    unsigned r[OUTS];
    r[0] = __byte_perm(x, y, 0x3210 + s);
    r[1] = __byte_perm(x, y, 0x7654);
    r[2] = __byte_perm(x, y, 0x5140 ^ s);
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r[3]) : "r"(x), "r"(y), "r"(0x89abu ^ s));
    PRMT("f4e", r[4], x, y, s);
    PRMT("b4e", r[5], x, y, s);
    PRMT("rc8", r[6], x, y, s);
    PRMT("ecl", r[7], x, y, s);
    PRMT("ecr", r[8], x, y, s);
    PRMT("rc16", r[9], x, y, s);
    r[10] = (unsigned)__dp2a_lo((int)x, (int)y, i);
    r[11] = (unsigned)__dp2a_hi((int)x, (int)y, i);
    r[12] = __dp2a_lo(x, y, 7u);
    r[13] = __dp2a_hi(x, y, 7u);
    r[14] = (unsigned)__dp4a((int)x, (int)y, -i);
    r[15] = __dp4a(x, y, 3u);
    r[16] = __vabsdiffu4(x, y);
    r[17] = __vsadu4(x, y);
    r[18] = __vabsdiffu2(x, y);
    r[19] = __vsadu2(x, y);
    for (int k = 0; k < OUTS; k++) {
        out[k * n + i] = r[k];
    }
}
