// bit_tricks: the integer bit intrinsics: __popc, __popcll, __clz, __clzll,
// __ffs, __brev, __byte_perm, __funnelshift_l / __funnelshift_r, and plain
// shift/mask bit-field extraction and insertion (bfe / bfi-like), plus the
// 64-bit multiply-high __umulhi.
//
// Thread i < n with a = x[i], b = y[i] (random u32) writes 10 words to
// out[i*10 .. i*10+10):
//   0: __popc(a)                 1: __clz(a)            2: __ffs(a)
//   3: __brev(a)                 4: __byte_perm(a, b, 0x7351)
//   5: __funnelshift_l(a, b, b & 31)     6: __funnelshift_r(a, b, a & 31)
//   7: (a >> 7) & 0x1FF          (bit field of 9 bits at 7)
//   8: (a & ~(0xFF << 12)) | ((b & 0xFF) << 12)   (insert 8 bits at 12)
//   9: __popcll(((u64)a << 32) | b) + __clzll((u64)b) + __umulhi(a, b)
//
// Check: the CUDA semantics of each intrinsic, on the CPU (exact): __ffs is
// 1-based and 0 for 0; __byte_perm selects bytes of the 64-bit value {b, a}
// (a is bytes 0-3) by the selector's nibbles; funnel shifts shift the 64-bit
// {hi = b, lo = a} and take the high (l) or low (r) word, shift clamped to 32
// by `& 31` here.
extern "C" __global__ void bit_tricks(const unsigned *x, const unsigned *y, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    unsigned a = x[i];
    unsigned b = y[i];
    unsigned *o = out + i * 10;
    o[0] = __popc(a);
    o[1] = __clz(a);
    o[2] = __ffs(a);
    o[3] = __brev(a);
    o[4] = __byte_perm(a, b, 0x7351);
    o[5] = __funnelshift_l(a, b, b & 31);
    o[6] = __funnelshift_r(a, b, a & 31);
    o[7] = (a >> 7) & 0x1FFu;
    o[8] = (a & ~(0xFFu << 12)) | ((b & 0xFFu) << 12);
    unsigned long long w = ((unsigned long long)a << 32) | b;
    o[9] = __popcll(w) + __clzll((unsigned long long)b) + __umulhi(a, b);
}
