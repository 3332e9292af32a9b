//! emu: the SIMT emulator of ptxperf. It executes PTX kernels on the CPU with
//! the semantics of a GPU and reports what happens to an [`observer::Observer`].
//!
//! A short tour:
//! - [`spec`]: launch specs (TOML) with integer expressions over defines, and
//!   the materialisation of argument buffers (the `prng` crate for `random` init).
//! - [`mem`]: the memory spaces: global allocations with bounds, per-CTA
//!   shared, per-thread local, param and const, and generic addressing.
//! - [`float`]: PTX floating-point semantics: rounding modes `.rn/.rz/.rm/.rp`
//!   through error-free transforms, `.ftz`, `.sat`, NaN rules, f16/bf16.
//! - [`simt`]: warp state: active masks, structure-of-arrays registers, the
//!   reconvergence stack (IPDOM and Kerr et al.'s barrier policy), CTA barriers.
//! - [`fault`]: fault reports naming CTA, thread, PTX line and instruction.
//! - [`observer`]: the event interface the characterization crate implements.
//! - [`exec`]: execution. The IR is decoded once into compact warp-wide ops
//!   ([`exec::ops`]); each warp runs until it blocks, one `match` per warp
//!   instruction and a loop over the 32 lanes; CTAs run in order or on
//!   several host threads with identical results. Entry points:
//!   [`exec::run_ptx`] (PTX text) and [`exec::launch()`] (a parsed module,
//!   with an observer).
//!
//! Choices where PTX leaves things open (each documented where it is made):
//! registers start at zero; `%clock`/`%clock64` count the warp's own
//! instructions (deterministic); threads that exited count as arrived at a
//! barrier of the whole CTA; integer division by zero gives all ones;
//! atomics of a warp apply in lane order; warps of a CTA are time-sliced
//! round-robin ([`exec::warp::TIME_SLICE`]); a runaway warp stops after
//! [`simt::DEFAULT_WARP_FUEL`] instructions; `random` buffer init draws
//! from [lo, hi) with xoshiro256**; `cp.async` copies at once (the waits
//! are no-ops) and reports a load of its copy size and a shared store to
//! the observer, as the `ld`/`st` pair moving the same bytes would (a lane
//! whose source size is 0 only zero-fills and reads nothing); an `mbarrier` is 8 bytes of shared memory in an encoding of
//! the emulator's, its arrivals apply in lane order and a wait that finds
//! its phase incomplete ends the warp's time slice (under the barrier
//! reconvergence policy the waiting split also yields to the warp's other
//! splits, which may be the ones still to arrive; exec/warp/mbarrier.rs;
//! its transaction count, of `expect_tx` and of the bulk copies that
//! complete bytes, gates each phase as its arrivals do); `cp.async.bulk`
//! copies at once in 16-byte pieces (reported 32 to an access); `elect.sync` elects
//! the lowest executing lane of its member mask; vector atomics (`.v2` ..
//! `.v8`) apply element by element; `griddepcontrol` is a no-op (one grid); `createpolicy` makes an opaque cache policy (the emulator's own encoding; cache hints change no value); tensor instructions (`mma.sync` m16n8k8/k16 f16/bf16, m16n8k4/k8 tf32, 8-bit integers, m8n8k4 f64,
//! `wmma.*` f16, bf16, u8 and s8 at m16n16k16, m32n8k16 and m8n32k16,
//! m16n16k8 tf32 (inputs read as tf32, the low 13 bits dropped;
//! `cvt.{rna,rn,rz}.tf32.f32` rounds to it) and m8n8k4 f64 `.rn`,
//! `ldmatrix`/`stmatrix`) accumulate in f32 in k order (exactly in
//! integers, with a fused multiply-add per step in f64) and use an
//! emulator-chosen wmma fragment layout (see the warp's tensor module);
//! video SIMD ops run in their default-selector form.

pub mod exec;
pub mod fault;
pub mod float;
pub mod mem;
pub mod observer;
pub mod progress;
pub mod simt;
pub mod spec;
