//! The emulator's own inconsistencies are errors with a message, never a
//! silent change of semantics: here, a function whose control-flow graph
//! cannot be built (no reconvergence points) stops the launch, naming the
//! kernel, the PTX line and the reason.

use std::path::Path;

use emu::exec::{LaunchOptions, RunError, run_ptx};
use emu::fault::FaultKind;
use emu::observer::NoObserver;

const PTX: &str = ".version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 buf)
{
.reg .b32 %r<4>;
.reg .b64 %rd<4>;
ld.param.u64 %rd1, [buf];
brx.idx %r1, %rd1;
ret;
}
";

/// `k(buf)` on one CTA of `block` threads, `buf` a u32 buffer of one word each.
fn spec(block: u32) -> emu::spec::LaunchSpec {
    let text = format!(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [{block}]\n\
         [[arg]]\nname = \"buf\"\ntype = \"u32*\"\nlen = {block}\n"
    );
    emu::spec::parse(&text, Path::new("k.toml"), &[]).expect("spec parses")
}

#[test]
fn a_function_without_a_control_flow_graph_is_a_launch_error() {
    let spec = spec(32);
    let err = run_ptx(
        PTX,
        "k.ptx",
        &spec,
        LaunchOptions::default(),
        &mut NoObserver,
    );
    let Err(RunError::Fault(f)) = err else {
        panic!("expected a launch error, got {err:?}")
    };
    let FaultKind::Launch(m) = &f.kind else {
        panic!("expected a launch error, got {f}")
    };
    assert!(m.contains("kernel `k`"), "{m}");
    assert!(m.contains("k.ptx:9:"), "{m}");
    assert!(m.contains("control-flow graph"), "{m}");
    assert!(m.contains("branch without a label target"), "{m}");
}

/// A function named in a global's initializer (a table of functions) holds
/// the address `mov` would give it, so an indirect call through the table
/// reaches it; it used to be a silent 0.
#[test]
fn a_function_table_initializer_holds_callable_addresses() {
    let ptx = ".version 8.0
.target sm_80
.address_size 64
.func (.param .b32 r) seven()
{
.reg .b32 %r<2>;
mov.u32 %r1, 7;
st.param.b32 [r], %r1;
ret;
}
.global .align 8 .u64 table[1] = {seven};
.visible .entry k(.param .u64 buf)
{
.reg .b32 %r<4>;
.reg .b64 %rd<4>;
ld.param.u64 %rd1, [buf];
cvta.to.global.u64 %rd1, %rd1;
ld.global.u64 %rd2, [table];
{
.param .b32 rv;
proto: .callprototype (.param .b32 _) _ ();
call (rv), %rd2, (), proto;
ld.param.b32 %r1, [rv];
}
st.global.u32 [%rd1], %r1;
ret;
}
";
    let spec = spec(1);
    let run = run_ptx(
        ptx,
        "k.ptx",
        &spec,
        LaunchOptions::default(),
        &mut NoObserver,
    );
    let out = match run {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(out.buffers[0].bytes, 7u32.to_le_bytes());
}
