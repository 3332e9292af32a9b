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

/// The `out` buffer, as u64 words, of a launch of `ptx` with the spec
/// `spec_text`; `parallel`: asked to run on several host threads, it must
/// still run sequentially (the heap is shared).
fn launch(ptx: &str, spec_text: &str, parallel: bool) -> Vec<u64> {
    let spec =
        emu::spec::parse(spec_text, Path::new("/k.toml"), &[]).unwrap_or_else(|e| panic!("{e}"));
    let opts = LaunchOptions {
        parallel,
        ..Default::default()
    };
    let r = run_ptx(ptx, "k.ptx", &spec, opts, &mut NoObserver).unwrap_or_else(|e| panic!("{e}"));
    if parallel {
        assert!(r.stats.ran_sequentially, "a malloc kernel ran in parallel");
    }
    r.buffers[0]
        .bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect()
}

/// The spec of `threads` threads in CTAs of `block`, each asking for
/// `size * (tid + 1)` bytes.
fn spec(size: u64, threads: u32, block: u32) -> String {
    format!(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [{}]\nblock = [{block}]\n\
         [[arg]]\nname = \"size\"\ntype = \"u64\"\nvalue = {size}\n\
         [[arg]]\nname = \"out\"\ntype = \"u64*\"\nlen = 128\n",
        threads / block
    )
}

/// (pointers, read back) of `threads` threads (in CTAs of `block`) asking
/// for `size * (tid + 1)` bytes each.
fn run(size: u64, threads: u32, block: u32) -> (Vec<u64>, Vec<u64>) {
    let words = launch(PTX, &spec(size, threads, block), true);
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

/// The same kernel in a 32-bit module (`.address_size 32`): malloc takes and
/// returns 4 bytes, and the block a thread gets is its own.
#[test]
fn a_32_bit_module_passes_4_byte_sizes_and_pointers() {
    let ptx = PTX
        .replace(".address_size 64", ".address_size 32")
        .replace(
            ".extern .func (.param .b64 func_retval0) malloc\n(\n\t.param .b64 malloc_param_0",
            ".extern .func (.param .b32 func_retval0) malloc\n(\n\t.param .b32 malloc_param_0",
        )
        .replace(".param .b64 free_param_0", ".param .b32 free_param_0")
        .replace(
            "\t.param .b64 param0;\n\tst.param.b64 [param0], %rd4;\n\t.param .b64 retval0;\n\tcall.uni (retval0), malloc, (param0);\n\tld.param.b64 %rd5, [retval0];",
            "\t.param .b32 param0;\n\tcvt.u32.u64 %r2, %rd4;\n\tst.param.b32 [param0], %r2;\n\t.param .b32 retval0;\n\tcall.uni (retval0), malloc, (param0);\n\tld.param.b32 %r2, [retval0];\n\tcvt.u64.u32 %rd5, %r2;",
        )
        .replace(
            "\t.param .b64 param0;\n\tst.param.b64 [param0], %rd5;\n\tcall.uni free, (param0);",
            "\t.param .b32 param0;\n\tcvt.u32.u64 %r2, %rd5;\n\tst.param.b32 [param0], %r2;\n\tcall.uni free, (param0);",
        )
        .replace("ld.param.u64 %rd2, [out];", "ld.param.u32 %r2, [out];\n\tcvt.u64.u32 %rd2, %r2;")
        .replace(".param .u64 out", ".param .u32 out")
        .replace("st.u64 [%rd5], %rd3;\n\tld.u64 %rd8, [%rd5];", "cvt.u32.u64 %r2, %rd5;\n\tst.u64 [%r2], %rd3;\n\tld.u64 %rd8, [%r2];")
        .replace("cvta.to.global.u64 %rd2, %rd2;", "");
    assert!(ptx.contains("ld.param.b32 %r2, [retval0]"), "{ptx}");
    let words = launch(&ptx, &spec(24, 32, 32), false);
    let ptrs = &words[..32];
    assert!(ptrs.iter().all(|&p| p != 0 && p < 1 << 32), "{ptrs:?}");
    for t in 1..32 {
        // 24 (t + 1) bytes, rounded up to 16.
        assert_eq!(
            ptrs[t] - ptrs[t - 1],
            (24 * t as u64).next_multiple_of(16),
            "thread {t}"
        );
    }
    assert_eq!(&words[64..96], &(0..32).collect::<Vec<u64>>()[..]);
}
