// warp_vote: warp votes and the active mask, inside and outside divergence.
//
// For warp w with x = in[g] (random integers in [0, 100)):
//   ballot[w] = __ballot_sync(FULL, x > THRESHOLD)    (lane 0 writes)
//   any[w]    = __any_sync(FULL, x > 95)              (lane 0 writes; 0 or 1)
//   all[w]    = __all_sync(FULL, x >= 0)              (lane 0 writes; 1)
//   inside the divergent branch `if (x % 2 == 0)`:
//     even_mask[w] = __activemask() of the threads that took the branch, and
//     even_ballot[w] = __ballot_sync(that mask, x > THRESHOLD)
//     (written by the lowest lane of the branch, found with __ffs)
//   votes[g] = __popc(ballot) for every thread.
//
// Check (exact): ballot bit l is set iff lane l's x > THRESHOLD; even_mask
// bit l iff lane l's x is even (0 when no lane is even: then nothing is
// written and the spec's zeros remain); even_ballot = ballot & even_mask.
// even_mask assumes the branch's threads run together, as in the emulator's
// lockstep SIMT model (Volta+ hardware may report a subset).
#define FULL 0xffffffffu
#ifndef THRESHOLD
#define THRESHOLD 50
#endif

extern "C" __global__ void warp_vote(const int *in, unsigned *ballot, int *any, int *all, unsigned *even_mask,
                                     unsigned *even_ballot, int *votes)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int w = g >> 5;
    int x = in[g];
    unsigned b = __ballot_sync(FULL, x > THRESHOLD);
    int an = __any_sync(FULL, x > 95);
    int al = __all_sync(FULL, x >= 0);
    if (lane == 0) {
        ballot[w] = b;
        any[w] = an;
        all[w] = al;
    }
    if (x % 2 == 0) {
        unsigned mask = __activemask();
        unsigned eb = __ballot_sync(mask, x > THRESHOLD);
        if (lane == __ffs(mask) - 1) {
            even_mask[w] = mask;
            even_ballot[w] = eb;
        }
    }
    votes[g] = __popc(b);
}
