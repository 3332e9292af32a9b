//! Device-side `malloc` and `free` (CUDA's device heap, 8 MB): each call
//! returns the next 16-byte-aligned block of the launch's heap in thread
//! order, NULL once the heap is spent or for 0 bytes; the memory is usable;
//! `free` returns nothing; a kernel that calls malloc runs sequentially, so
//! the addresses are the same on any number of host threads.

use emu::exec::{LaunchOptions, run_ptx};
use emu::observer::NoObserver;
use std::path::Path;

/// `k(size_per_thread, out)`: each thread mallocs `size * (tid + 1)`
/// bytes (`size` 0: 0 bytes), stores its tid there and reads it back, frees
/// it, and writes to out[tid] the pointer (0 for NULL) and to out[64 + tid]
/// what it read back.
const PTX: &str = r#".version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b64 func_retval0) malloc
(
	.param .b64 malloc_param_0
)
;
.extern .func free
(
	.param .b64 free_param_0
)
;
.visible .entry k(.param .u64 size, .param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<12>;
	ld.param.u64 %rd1, [size];
	ld.param.u64 %rd2, [out];
	cvta.to.global.u64 %rd2, %rd2;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.s32 %r1, %r1, %r2, %r3;
	cvt.u64.u32 %rd3, %r1;
	add.s64 %rd4, %rd3, 1;
	mul.lo.s64 %rd4, %rd4, %rd1;
	{
	.param .b64 param0;
	st.param.b64 [param0], %rd4;
	.param .b64 retval0;
	call.uni (retval0), malloc, (param0);
	ld.param.b64 %rd5, [retval0];
	}
	shl.b64 %rd6, %rd3, 3;
	add.s64 %rd7, %rd2, %rd6;
	st.global.u64 [%rd7], %rd5;
	setp.eq.s64 %p1, %rd5, 0;
	@%p1 bra DONE;
	st.u64 [%rd5], %rd3;
	ld.u64 %rd8, [%rd5];
	st.global.u64 [%rd7+512], %rd8;
	{
	.param .b64 param0;
	st.param.b64 [param0], %rd5;
	call.uni free, (param0);
	}
DONE:
	ret;
}
"#;

/// (pointers, read back) of `threads` threads (in CTAs of `block`) asking
/// for `size * (tid + 1)` bytes each.
fn run(size: u64, threads: u32, block: u32) -> (Vec<u64>, Vec<u64>) {
    let spec = format!(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [{}]\nblock = [{block}]\n\
         [[arg]]\nname = \"size\"\ntype = \"u64\"\nvalue = {size}\n\
         [[arg]]\nname = \"out\"\ntype = \"u64*\"\nlen = 128\n",
        threads / block
    );
    let spec = emu::spec::parse(&spec, Path::new("/k.toml"), &[]).unwrap_or_else(|e| panic!("{e}"));
    // Asked to run in parallel, it runs sequentially (the heap is shared).
    let opts = LaunchOptions {
        parallel: true,
        ..Default::default()
    };
    let r = run_ptx(PTX, "k.ptx", &spec, opts, &mut NoObserver).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.stats.ran_sequentially, "a malloc kernel ran in parallel");
    let words: Vec<u64> = r.buffers[0]
        .bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect();
    (words[..64].to_vec(), words[64..].to_vec())
}

#[test]
fn blocks_come_in_thread_order_aligned_and_usable() {
    // 10 * (t + 1) bytes, each rounded up to 16: 16, 32, 32, 48, ...
    let (ptrs, back) = run(10, 64, 32);
    assert!(ptrs.iter().all(|&p| p != 0 && p % 16 == 0), "{ptrs:?}");
    let mut expect = ptrs[0];
    for (t, &p) in ptrs.iter().enumerate() {
        assert_eq!(p, expect, "thread {t}");
        expect += (10 * (t as u64 + 1)).next_multiple_of(16);
    }
    assert_eq!(back, (0..64).collect::<Vec<u64>>());
    // The same addresses from CTAs of 8 threads (8 CTAs), and again.
    assert_eq!(run(10, 64, 8).0, ptrs);
}

#[test]
fn a_spent_heap_and_zero_bytes_give_null() {
    // 1 MiB * (t + 1): threads 0 to 2 take 6 MiB of the 8; thread 3 would
    // need 4 more and gets NULL, as does every later one (free returns
    // nothing).
    let (ptrs, back) = run(1 << 20, 64, 64);
    assert!(ptrs[..3].iter().all(|&p| p != 0), "{ptrs:?}");
    assert!(ptrs[3..].iter().all(|&p| p == 0), "{ptrs:?}");
    assert_eq!(&back[..3], &[0, 1, 2]);
    let (ptrs, _) = run(0, 32, 32);
    assert!(ptrs[..32].iter().all(|&p| p == 0), "{ptrs:?}");
}
