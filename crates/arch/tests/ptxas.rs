//! ptxas on a tiny PTX text. Skipped with a message when ptxas is absent,
//! except under CI (env `CI` set), where its absence is a failure.

use arch::ptxas::{find_ptxas, run_ptxas};

/// One entry: 256 floats of static shared memory, a barrier, a global store.
const PTX: &str = r#"
.version 7.0
.target sm_80
.address_size 64

.visible .entry neighbour(.param .u64 out)
{
    .reg .b32 %r<6>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<6>;
    .shared .align 4 .b8 buf[1024];

    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    cvt.rn.f32.u32 %f1, %r1;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, buf;
    add.s32 %r4, %r3, %r2;
    st.shared.f32 [%r4], %f1;
    bar.sync 0;
    xor.b32 %r5, %r2, 4;
    add.s32 %r5, %r3, %r5;
    ld.shared.f32 %f2, [%r5];
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.f32 [%rd4], %f2;
    ret;
}
"#;

#[test]
fn ptxas_reports_registers_and_shared() {
    let ptxas = match find_ptxas(None) {
        Ok(p) => p,
        Err(e) => {
            assert!(std::env::var_os("CI").is_none(), "CI is set and {e}");
            println!("skipping: {e}");
            return;
        }
    };
    let kernels = run_ptxas(&ptxas, PTX, "sm_80").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(kernels.len(), 1, "{kernels:?}");
    let k = &kernels[0];
    assert_eq!(k.name, "neighbour");
    assert!((4..=32).contains(&k.registers), "{k:?}");
    assert_eq!(k.shared_bytes, 1024, "{k:?}");
    assert_eq!(k.stack_frame_bytes, 0, "{k:?}");
    // The entry's SASS, read from the cubin: 16 B per instruction on sm_80,
    // a few dozen instructions and the alignment padding after them.
    let code = k.code_bytes.unwrap_or(0);
    assert!(
        code.is_multiple_of(16) && (16 * 8..=16 * 256).contains(&code),
        "{k:?}"
    );
    // Bad PTX is an error value carrying ptxas's message.
    let bad = PTX.replace("ret;", "bogus.instruction;");
    let err = run_ptxas(&ptxas, &bad, "sm_80")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("ptxas failed"), "{err}");
}
