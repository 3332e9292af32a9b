//! A register outside its frame (the decoder and the frame disagree) is an
//! internal fault at the instruction that used it, never a read of zero or a
//! dropped write. The disagreement is made by shrinking a decoded frame.

use std::path::Path;

use crate::exec::LaunchOptions;
use crate::exec::launch::{prepare, run_prepared};
use crate::fault::{Fault, FaultKind};
use crate::observer::NoObserver;

const PTX: &str = ".version 8.0
.target sm_80
.address_size 64
.visible .entry k()
{
.reg .pred %p<2>;
.reg .b32 %r<4>;
.reg .b64 %rd<4>;
mov.u32 %r1, %tid.x;
setp.eq.u32 %p1, %r1, 0;
st.global.u32 [%rd1], %r1;
ret;
}
";

/// Run `k` with its frame cut to `n_regs` registers and `n_preds` predicates.
fn fault_with_frame(n_regs: usize, n_preds: usize) -> Fault {
    let spec = crate::spec::parse(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [32]\n",
        Path::new("k.toml"),
        &[],
    )
    .expect("spec parses");
    let module = ptx::parse("k.ptx", PTX).expect("PTX parses");
    let mut p = prepare(&module, PTX, "k.ptx", &spec).expect("launch prepares");
    let entry = p.code.entry as usize;
    let func = &mut p.code.prog.funcs[entry];
    assert!(func.n_regs >= 6 && func.n_preds >= 1, "slots as declared");
    func.n_regs = n_regs;
    func.n_preds = n_preds;
    match run_prepared(p, &spec, LaunchOptions::default(), &mut NoObserver) {
        Err(f) => *f,
        Ok(_) => panic!("a register outside the frame ran without a fault"),
    }
}

fn check(f: &Fault, message: &str, line: u32) {
    let FaultKind::Internal(m) = &f.kind else {
        panic!("expected an internal fault, got {f}")
    };
    assert!(m.contains(message), "{m}");
    assert!(m.contains("frame of `k`"), "{m}");
    let site = f.site.as_ref().expect("the fault has a site");
    assert_eq!((site.file.as_str(), site.line), ("k.ptx", line), "{f}");
    assert_eq!(f.thread, [0, 0, 0]);
}

#[test]
fn a_write_outside_the_frame_faults() {
    check(&fault_with_frame(0, 2), "write of register slot 1", 9);
}

#[test]
fn a_predicate_outside_the_frame_faults() {
    check(&fault_with_frame(8, 0), "write of predicate slot 1", 10);
}

#[test]
fn a_read_outside_the_frame_faults_before_the_zero_is_used() {
    // %rd1 is slot 5: read as zero, the store would fault at address 0; the
    // register fault is the one reported.
    check(&fault_with_frame(4, 2), "read of register slot 5", 11);
}
