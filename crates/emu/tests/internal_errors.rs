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

#[test]
fn a_function_without_a_control_flow_graph_is_a_launch_error() {
    let spec = emu::spec::parse(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [32]\n\
         [[arg]]\nname = \"buf\"\ntype = \"u32*\"\nlen = 4\n",
        Path::new("k.toml"),
        &[],
    )
    .expect("spec parses");
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
