//! Data-driven decode cases: one instruction inside a small kernel, checked
//! by its canonical printed form (`check`) or by the first diagnostic (`reject`).

use ptx::{Module, Opcode, Operand};

const PRELUDE: &str = ".version 8.8\n.target sm_90\n.address_size 64\n\
.global .align 4 .u32 g[4];\n\
.func (.param .b32 f_ret) f(.param .b32 f_p0)\n{\n\tret;\n}\n\
.visible .entry k(.param .u64 k_param_0)\n{\n\
\t.reg .pred %p<4>;\n\t.reg .b16 %rs<4>;\n\t.reg .b32 %r<8>;\n\t.reg .f32 %f<8>;\n\
\t.reg .b64 %rd<8>;\n\t.reg .f64 %fd<4>;\n\t.shared .align 4 .b8 smem[64];\n";

fn module(inst: &str) -> Result<Module, String> {
    let text = format!("{PRELUDE}\t{inst}\nEND:\n\tret;\n}}\n");
    ptx::parse("t.ptx", &text).map_err(|d| d.render("t.ptx", &text))
}

/// `inst` decodes, and prints back as `expected`.
fn check(inst: &str, expected: &str) {
    let m = module(inst).unwrap_or_else(|e| panic!("{inst}: {e}"));
    let (_, f) = m.entries().next().expect("kernel");
    let mut s = String::new();
    ptx::print::instruction(&mut s, &m, f, &f.instructions.as_slice()[0]).expect("print");
    assert_eq!(s, expected, "{inst}");
}

/// `inst` is rejected; the first diagnostic's message contains `message`.
fn reject(inst: &str, message: &str) {
    match module(inst) {
        Ok(_) => panic!("{inst}: accepted"),
        Err(e) => {
            let first = e.lines().next().unwrap_or_default();
            assert!(
                first.contains(message),
                "{inst}: got {first:?}, want {message:?}"
            );
        }
    }
}

#[test]
fn arithmetic() {
    let cases = [
        ("add.s32 %r1, %r2, -4;", "add.s32 %r1, %r2, -4;"),
        (
            "add.rn.ftz.sat.f32 %f1, %f2, 0f3F800000;",
            "add.rn.ftz.sat.f32 %f1, %f2, 0f3F800000;",
        ),
        ("add.cc.u32 %r1, %r2, 1;", "add.cc.u32 %r1, %r2, 1;"),
        ("addc.cc.u32 %r1, %r2, %r3;", "addc.cc.u32 %r1, %r2, %r3;"),
        (
            "sub.f64 %fd1, %fd2, 0d3FF0000000000000;",
            "sub.f64 %fd1, %fd2, 0d3FF0000000000000;",
        ),
        ("mul.wide.s32 %rd1, %r2, 4;", "mul.wide.s32 %rd1, %r2, 4;"),
        ("mul.hi.u32 %r1, %r2, %r3;", "mul.hi.u32 %r1, %r2, %r3;"),
        (
            "mad.lo.s32 %r1, %r2, %r3, %r4;",
            "mad.lo.s32 %r1, %r2, %r3, %r4;",
        ),
        (
            "mad.rn.f64 %fd1, %fd2, %fd3, %fd1;",
            "mad.rn.f64 %fd1, %fd2, %fd3, %fd1;",
        ),
        (
            "madc.hi.cc.u32 %r1, %r2, %r3, %r4;",
            "madc.hi.cc.u32 %r1, %r2, %r3, %r4;",
        ),
        (
            "fma.rn.f32 %f1, %f2, %f3, %f4;",
            "fma.rn.f32 %f1, %f2, %f3, %f4;",
        ),
        (
            "fma.rn.relu.bf16x2 %r1, %r2, %r3, %r4;",
            "fma.rn.relu.bf16x2 %r1, %r2, %r3, %r4;",
        ),
        (
            "div.rn.f64 %fd1, %fd2, %fd3;",
            "div.rn.f64 %fd1, %fd2, %fd3;",
        ),
        ("div.full.f32 %f1, %f2, %f3;", "div.full.f32 %f1, %f2, %f3;"),
        (
            "div.approx.ftz.f32 %f1, %f2, %f3;",
            "div.approx.ftz.f32 %f1, %f2, %f3;",
        ),
        ("rem.s32 %r1, %r2, 7;", "rem.s32 %r1, %r2, 7;"),
        ("min.NaN.f32 %f1, %f2, %f3;", "min.NaN.f32 %f1, %f2, %f3;"),
        (
            "max.xorsign.abs.f16 %rs1, %rs2, %rs3;",
            "max.xorsign.abs.f16 %rs1, %rs2, %rs3;",
        ),
        ("max.f16x2 %r1, %r2, %r3;", "max.f16x2 %r1, %r2, %r3;"),
        ("abs.ftz.f32 %f1, %f2;", "abs.ftz.f32 %f1, %f2;"),
        ("neg.s32 %r1, %r2;", "neg.s32 %r1, %r2;"),
        ("add.u16x2 %r1, %r2, %r3;", "add.u16x2 %r1, %r2, %r3;"),
        (
            "mul.rn.bf16 %rs1, %rs2, %rs3;",
            "mul.rn.bf16 %rs1, %rs2, %rs3;",
        ),
        ("mul24.lo.u32 %r1, %r2, %r3;", "mul24.lo.u32 %r1, %r2, %r3;"),
        ("sad.u32 %r1, %r2, %r3, %r4;", "sad.u32 %r1, %r2, %r3, %r4;"),
        ("copysign.f32 %f1, %f2, %f3;", "copysign.f32 %f1, %f2, %f3;"),
        ("testp.finite.f32 %p1, %f1;", "testp.finite.f32 %p1, %f1;"),
        (
            "add.f32 %f1, %f2, 1.5;",
            "add.f32 %f1, %f2, 0d3FF8000000000000;",
        ),
        (
            "add.s64 %rd1, %rd2, 0xFFFFFFFFFFFFFFFF;",
            "add.s64 %rd1, %rd2, -1;",
        ),
    ];
    for (i, e) in cases {
        check(i, e);
    }
}

#[test]
fn transcendental_and_special() {
    for i in [
        "rcp.rn.f64 %fd1, %fd2;",
        "rcp.approx.ftz.f32 %f1, %f2;",
        "sqrt.rn.f32 %f1, %f2;",
        "sqrt.approx.f32 %f1, %f2;",
        "rsqrt.approx.f64 %fd1, %fd2;",
        "sin.approx.f32 %f1, %f2;",
        "cos.approx.ftz.f32 %f1, %f2;",
        "lg2.approx.ftz.f32 %f1, %f2;",
        "ex2.approx.f16x2 %r1, %r2;",
        "tanh.approx.f32 %f1, %f2;",
        "mov.u32 %r1, %tid.x;",
        "mov.u32 %r1, %ctaid.y;",
        "mov.u32 %r1, %laneid;",
        "mov.u64 %rd1, %clock64;",
        "mov.u32 %r1, %envreg3;",
        "mov.u32 %r1, %lanemask_lt;",
        "mov.u32 %r1, %dynamic_smem_size;",
        "mov.b32 %r1, {%rs1, %rs2};",
        "mov.b64 {%r1, %r2}, %rd1;",
        "mov.b32 {_, %rs1}, %r1;",
        "mov.u64 %rd1, smem;",
        "mov.u64 %rd1, g+8;",
        "mov.u64 %rd1, f;",
    ] {
        check(i, i);
    }
}

#[test]
fn compare_select_logic() {
    for i in [
        "setp.lt.s32 %p1, %r1, %r2;",
        "setp.gtu.ftz.f32 %p1|%p2, %f1, %f2;",
        "setp.lt.and.s32 %p1, %r1, %r2, !%p3;",
        "setp.eq.b16 %p1, %rs1, 0;",
        "set.lt.u32.f32 %r1, %f1, %f2;",
        "selp.b32 %r1, %r2, 1, %p1;",
        "slct.s32.s32 %r1, %r2, 1, %r3;",
        "and.pred %p1, %p2, %p3;",
        "or.b32 %r1, %r2, -2147483648;",
        "xor.b64 %rd1, %rd2, %rd3;",
        "not.pred %p1, %p2;",
        "cnot.b32 %r1, %r2;",
        "lop3.b32 %r1, %r2, %r3, %r4, 150;",
        "shl.b32 %r1, %r2, 3;",
        "shr.s32 %r1, %r2, 31;",
        "shf.l.wrap.b32 %r1, %r2, %r3, %r4;",
        "shf.r.clamp.b32 %r1, %r2, %r3, 5;",
        "prmt.b32 %r1, %r2, %r3, 21520;",
        "prmt.b32.f4e %r1, %r2, %r3, %r4;",
        "bfe.u32 %r1, %r2, 8, 4;",
        "bfi.b64 %rd1, %rd2, %rd3, 0, 8;",
        "brev.b32 %r1, %r2;",
        "popc.b64 %r1, %rd2;",
        "clz.b32 %r1, %r2;",
        "bfind.shiftamt.u32 %r1, %r2;",
        "fns.b32 %r1, %r2, %r3, 1;",
        "dp4a.s32.s32 %r1, %r2, %r3, %r4;",
        "dp2a.lo.u32.u32 %r1, %r2, %r3, %r4;",
        "vabsdiff4.u32.u32.u32.add %r1, %r2, %r3, %r4;",
        "@%p1 bra END;",
        "@!%p1 bra.uni END;",
    ] {
        check(i, i);
    }
}

#[test]
fn memory() {
    let cases = [
        (
            "ld.param.u64 %rd1, [k_param_0];",
            "ld.param.u64 %rd1, [k_param_0];",
        ),
        (
            "ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];",
            "ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];",
        ),
        (
            "ld.local.u32 %r1, [%rd1+-4];",
            "ld.local.u32 %r1, [%rd1+-4];",
        ),
        (
            "ld.shared.f32 %f1, [smem+4];",
            "ld.shared.f32 %f1, [smem+4];",
        ),
        (
            "ld.volatile.shared.u32 %r1, [%r2];",
            "ld.volatile.shared.u32 %r1, [%r2];",
        ),
        (
            "ld.acquire.gpu.global.u32 %r1, [%rd1];",
            "ld.acquire.gpu.global.u32 %r1, [%rd1];",
        ),
        (
            "ld.relaxed.sys.global.u32 %r1, [%rd1];",
            "ld.relaxed.sys.global.u32 %r1, [%rd1];",
        ),
        (
            "ld.global.cg.f32 %f1, [%rd1];",
            "ld.global.cg.f32 %f1, [%rd1];",
        ),
        (
            "ld.global.L1::evict_last.u32 %r1, [%rd1];",
            "ld.global.L1::evict_last.u32 %r1, [%rd1];",
        ),
        ("ld.u32 %r1, [%rd1];", "ld.u32 %r1, [%rd1];"),
        ("ld.const.f32 %f1, [g];", "ld.const.f32 %f1, [g];"),
        ("ldu.global.f32 %f1, [%rd1];", "ldu.global.f32 %f1, [%rd1];"),
        (
            "st.global.v2.f32 [%rd1], {%f1, %f2};",
            "st.global.v2.f32 [%rd1], {%f1, %f2};",
        ),
        (
            "st.release.gpu.global.u32 [%rd1], %r1;",
            "st.release.gpu.global.u32 [%rd1], %r1;",
        ),
        (
            "st.global.wt.f32 [%rd1], %f1;",
            "st.global.wt.f32 [%rd1], %f1;",
        ),
        ("st.shared.u32 [%r1], 0;", "st.shared.u32 [%r1], 0;"),
        ("cvt.rn.f32.s32 %f1, %r1;", "cvt.rn.f32.s32 %f1, %r1;"),
        ("cvt.rzi.s32.f32 %r1, %f1;", "cvt.rzi.s32.f32 %r1, %f1;"),
        ("cvt.u64.u32 %rd1, %r1;", "cvt.u64.u32 %rd1, %r1;"),
        (
            "cvt.rn.f16x2.f32 %r1, %f1, %f2;",
            "cvt.rn.f16x2.f32 %r1, %f1, %f2;",
        ),
        (
            "cvt.rn.satfinite.e4m3x2.f32 %rs1, %f1, %f2;",
            "cvt.rn.satfinite.e4m3x2.f32 %rs1, %f1, %f2;",
        ),
        ("cvt.sat.f32.f32 %f1, %f2;", "cvt.sat.f32.f32 %f1, %f2;"),
        (
            "cvta.to.global.u64 %rd1, %rd2;",
            "cvta.to.global.u64 %rd1, %rd2;",
        ),
        ("cvta.shared.u64 %rd1, smem;", "cvta.shared.u64 %rd1, smem;"),
        ("isspacep.global %p1, %rd1;", "isspacep.global %p1, %rd1;"),
        ("prefetch.global.L2 [%rd1];", "prefetch.global.L2 [%rd1];"),
        (
            "atom.global.add.f32 %f1, [%rd1], %f2;",
            "atom.global.add.f32 %f1, [%rd1], %f2;",
        ),
        (
            "atom.shared.cas.b32 %r1, [%r2], %r3, %r4;",
            "atom.shared.cas.b32 %r1, [%r2], %r3, %r4;",
        ),
        (
            "atom.add.noftz.f16x2 %r1, [%rd1], %r2;",
            "atom.add.noftz.f16x2 %r1, [%rd1], %r2;",
        ),
        (
            "atom.acq_rel.gpu.global.exch.b64 %rd1, [%rd2], %rd3;",
            "atom.acq_rel.gpu.global.exch.b64 %rd1, [%rd2], %rd3;",
        ),
        (
            "atom.global.v2.f32.add %r1, [%rd1], %r2;",
            "atom.global.add.v2.f32 %r1, [%rd1], %r2;",
        ),
        (
            "red.relaxed.gpu.global.add.u32 [%rd1], 1;",
            "red.relaxed.gpu.global.add.u32 [%rd1], 1;",
        ),
        (
            "red.global.max.s32 [%rd1], %r1;",
            "red.global.max.s32 [%rd1], %r1;",
        ),
    ];
    for (i, e) in cases {
        check(i, e);
    }
}

#[test]
fn warp_sync_tensor() {
    for i in [
        "shfl.sync.bfly.b32 %r1, %r2, 2, 31, -1;",
        "shfl.sync.down.b32 %r1|%p1, %r2, 1, 31, -1;",
        "vote.sync.ballot.b32 %r1, %p1, -1;",
        "vote.sync.all.pred %p1, !%p2, %r1;",
        "match.any.sync.b32 %r1, %r2, -1;",
        "match.all.sync.b64 %r1|%p1, %rd2, -1;",
        "redux.sync.add.s32 %r1, %r2, -1;",
        "activemask.b32 %r1;",
        "elect.sync %r1|%p1, -1;",
        "elect.sync _|%p1, %r2;",
        "griddepcontrol.wait;",
        "griddepcontrol.launch_dependents;",
        "bar.sync 0;",
        "bar.arrive 1, 64;",
        "bar.red.popc.u32 %r1, 0, %p1;",
        "barrier.sync.aligned 0;",
        "bar.warp.sync -1;",
        "membar.gl;",
        "membar.cta;",
        "fence.acq_rel.gpu;",
        "fence.sc.sys;",
        "fence.proxy.alias;",
        "cvt.rna.tf32.f32 %r1, %f1;",
        "cvt.rna.satfinite.tf32.f32 %r1, %f1;",
        "fence.proxy.async;",
        "fence.proxy.async.global;",
        "fence.proxy.async.shared::cta;",
        "cp.async.cg.shared.global [%r1], [%rd1], 16;",
        "cp.async.ca.shared.global.L2::128B [%r1], [%rd1], 4, %r2;",
        "cp.async.commit_group;",
        "cp.async.wait_group 0;",
        "cp.async.wait_all;",
        "cp.async.mbarrier.arrive.shared.b64 [%r1];",
        "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%r1];",
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], %r2, [%r3];",
        "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.L2::cache_hint [%r1], [%rd1], 256, [%r3], %rd2;",
        "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], 512;",
        "cp.async.bulk.commit_group;",
        "cp.async.bulk.wait_group 1;",
        "cp.async.bulk.wait_group.read 0;",
        "cp.async.bulk.prefetch.L2.global [%rd1], 1024;",
        "mbarrier.init.shared.b64 [%r1], %r2;",
        "mbarrier.init.shared::cta.b64 [smem], 32;",
        "mbarrier.inval.shared.b64 [%r1];",
        "mbarrier.arrive.shared.b64 %rd1, [%r1];",
        "mbarrier.arrive.release.cta.shared::cta.b64 %rd1, [%r1], %r2;",
        "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%r1], 128;",
        "mbarrier.arrive.noComplete.shared.b64 %rd1, [%r1], %r2;",
        "mbarrier.arrive_drop.shared.b64 %rd1, [%r1];",
        "mbarrier.test_wait.shared.b64 %p1, [%r1], %rd1;",
        "mbarrier.test_wait.parity.shared.b64 %p1, [%r1], %r2;",
        "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p1, [%r1], 0, 1000;",
        "mbarrier.pending_count.b64 %r1, %rd1;",
        "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 64;",
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];",
        "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r1, %r2}, [%r5];",
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4};",
        "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r0}, [%rd1], 16;",
        "wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f0}, 16;",
        "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f0}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r0}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r0}, {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f0};",
        "nanosleep.u32 %r1;",
        "trap;",
        "brkpt;",
        "exit;",
        "ret.uni;",
    ] {
        check(i, i);
    }
}

#[test]
fn calls_and_scopes() {
    let inst = "{\n\t.param .b32 param0;\n\t.param .b32 retval0;\n\tst.param.b32 [param0], %r1;\n\t\
                call.uni (retval0), f, (param0);\n\tld.param.b32 %r2, [retval0];\n\t}";
    let m = module(inst).expect("call sequence decodes");
    let (_, k) = m.entries().next().expect("kernel");
    assert_eq!(k.scopes.len(), 1);
    assert_eq!(
        k.locals.len(),
        3,
        "smem (body level), then param0 and retval0 (block level)"
    );
    assert_eq!(k.locals.as_slice()[0].scope, None);
    assert_eq!(k.locals.as_slice()[1].scope, Some(0));
    let call = &k.instructions.as_slice()[1];
    assert_eq!(call.opcode, Opcode::Call);
    assert!(matches!(
        call.operands[1],
        Operand::Symbol(ptx::Symbol::Function(_), 0)
    ));
    // Two blocks may declare the same register name: distinct registers.
    let inst =
        "{ .reg .pred %q; setp.ne.u32 %q, %r1, 0; }\n\t{ .reg .pred %q; @%q add.u32 %r1, %r1, 1; }";
    let m = module(inst).expect("scoped registers");
    let (_, k) = m.entries().next().expect("kernel");
    let names: Vec<&str> = k
        .regs
        .iter()
        .filter(|(_, r)| r.name == "%q")
        .map(|(_, r)| r.name.as_str())
        .collect();
    assert_eq!(names.len(), 2);
    let g0 = &k.instructions.as_slice()[0].operands[0];
    let g1 = k.instructions.as_slice()[1].guard.expect("guard");
    assert_ne!(*g0, Operand::Reg(g1.reg));
    // A label resolves to the index of the following instruction.
    let m = module("@%p1 bra END;").expect("branch");
    let (_, k) = m.entries().next().expect("kernel");
    let Operand::Label(l) = k.instructions.as_slice()[0].operands[0] else {
        panic!("label operand")
    };
    assert_eq!(k.label_target(l), Some(1));
    // A block register is not visible after its block.
    reject(
        "{ .reg .b32 %t; mov.u32 %t, 1; }\n\tmov.u32 %r1, %t;",
        "undeclared register `%t`",
    );
}

#[test]
fn features_not_supported_yet_say_so() {
    reject(
        "barrier.cluster.arrive;",
        "`barrier`: a thread block cluster barrier (sm_90) is not supported by ptxperf yet",
    );
    reject(
        "mapa.shared::cluster.u32 %r1, %r2, %r3;",
        "distributed shared memory of a thread block cluster (sm_90) is not supported",
    );
    reject(
        "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2}], [%r3];",
        "a bulk tensor copy (TMA with a tensor map, sm_90) is not supported",
    );
    reject(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r1], [%rd1], 16, [%r2], %rs1;",
        "a bulk copy multicast to a thread block cluster (sm_90a) is not supported",
    );
    reject(
        "wgmma.fence.sync.aligned;",
        "warpgroup matrix multiply-accumulate",
    );
    // Fetches of one to three dimensions run (below); layered textures,
    // mipmap levels, separate samplers and surfaces say so.
    reject(
        "tex.a2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %f5, %f6, %f6}];",
        "a texture fetch other than `tex1Dfetch`, `tex1D`, `tex2D` or `tex3D` on a texture object (`tex.{1d,2d,3d}.v4` with `.s32` or `.f32` coordinates) is not supported",
    );
    reject(
        "tex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}], %f7;",
        "a texture fetch other than `tex1Dfetch`",
    );
    check(
        "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];",
        "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];",
    );
    check(
        "tex.3d.v4.s32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f5, %f6, %f7, %f7}];",
        "tex.3d.v4.s32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f5, %f6, %f7, %f7}];",
    );
    reject(
        "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, %rd2, {%r1}];",
        "a texture fetch other than `tex1Dfetch`",
    );
    reject(
        "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%r1}];",
        "`tex` with a predicate destination (`d|p`) is not supported by ptxperf yet",
    );
    reject(
        "suq.width.b32 %r1, [%rd1];",
        "a texture or surface instruction is not supported",
    );
    reject(
        "sured.b.add.2d.u32.trap [%rd1, {%r1, %r2}], %r3;",
        "a texture or surface instruction is not supported",
    );
    // Unformatted surface reads and writes of 1 to 3 dimensions run.
    for inst in [
        "suld.b.2d.b32.trap {%r1}, [%rd1, {%r2, %r3}];",
        "suld.b.1d.v4.b8.clamp {%rs0, %rs1, %rs2, %rs3}, [%rd1, {%r6}];",
        "sust.b.3d.v4.b32.zero [%rd2, {%r7, %r6, %r5, %r5}], {%r1, %r2, %r3, %r4};",
        "sust.b.2d.b64.trap [%rd2, {%r1, %r2}], {%rd3};",
    ] {
        check(inst, inst);
    }
    reject(
        "sust.p.2d.v4.b32.trap [%rd2, {%r1, %r2}], {%r3, %r4, %r5, %r6};",
        "a surface access other than `surf1Dread` ... `surf3Dwrite`",
    );
    reject(
        "suld.b.a2d.b32.trap {%r1}, [%rd1, {%r2, %r3, %r4, %r4}];",
        "a surface access other than `surf1Dread`",
    );
    reject(
        "suld.b.2d.b32 {%r1}, [%rd1, {%r2, %r3}];",
        "a surface access other than `surf1Dread`",
    );
    // As many coordinates as dimensions; four for 3D.
    reject(
        "sust.b.3d.b32.trap [%rd2, {%r1, %r2, %r3}], {%r4};",
        "`sust.b.3d` takes a vector of 4 coordinate(s) `{x, y, z, _}`, found 3",
    );
    reject(
        "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5}];",
        "`tex.2d` takes a vector of 2 coordinate(s) `{x, y}`, found 1",
    );
    reject(
        "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, %r1];",
        "the coordinates of a texture or surface access are a vector `{x, ...}`",
    );
    check(
        "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}];",
        "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}];",
    );
    check(
        "tex.1d.v4.u32.s32 {%r1, %r2, %r3, %r4}, [%rd1, {%r5}];",
        "tex.1d.v4.u32.s32 {%r1, %r2, %r3, %r4}, [%rd1, {%r5}];",
    );
    reject(
        "tex.1d.v2.f32.s32 {%f1, %f2}, [%rd1, {%r1}];",
        "a texture fetch other than `tex1Dfetch`",
    );
    // What is supported is not caught: cp.async itself, bulk copies of
    // contiguous bytes, barrier.sync.
    check(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 16, [%r2];",
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 16, [%r2];",
    );
    check(
        "cp.async.cg.shared.global [%r1], [%rd1], 16;",
        "cp.async.cg.shared.global [%r1], [%rd1], 16;",
    );
    check("barrier.sync 0;", "barrier.sync 0;");
}

#[test]
fn rejected_fence_forms() {
    reject("fence.proxy;", "`fence.proxy` needs a proxy kind");
    reject(
        "fence.proxy.global;",
        "modifier `.global` is not valid for `fence`",
    );
    reject(
        "fence.proxy.tensormap::generic.release.cta;",
        "unknown modifier `.tensormap::generic`",
    );
}

#[test]
fn rejected_bulk_copy_forms() {
    reject(
        "cp.async.bulk.shared::cluster.global [%r1], [%rd1], 16;",
        "`cp.async.bulk` needs a completion mechanism",
    );
    reject(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 16;",
        "operand",
    );
    reject(
        "cp.async.bulk.global.shared::cta.bulk_group.read [%rd1], [%r1], 16;",
        "unknown modifier `.read`",
    );
}

#[test]
fn rejected_mbarrier_forms() {
    reject(
        "mbarrier.b64 %rd1, [%r1];",
        "`mbarrier` needs an operation: .init",
    );
    reject(
        "mbarrier.wait.shared.b64 %p1, [%r1], %rd1;",
        "unknown modifier `.wait` for `mbarrier`",
    );
    reject(
        "mbarrier.init.shared.b64 [%r1];",
        "takes 2 operand(s), found 1",
    );
    reject(
        "mbarrier.test_wait.shared.b64 %p1, [%r1];",
        "takes 3 to 4 operand(s), found 2",
    );
    reject(
        "mbarrier.arrive.parity.shared.b64 %rd1, [%r1];",
        "unknown modifier `.parity` for `mbarrier`",
    );
    reject(
        "mbarrier.test_wait.parity.parity.shared.b64 %p1, [%r1], 0;",
        "unknown modifier `.parity` for `mbarrier`",
    );
}

#[test]
fn rejected_instructions() {
    let cases = [
        ("add.s32 %r1, %r2;", "takes 3 operand(s), found 2"),
        (
            "add.b32 %r1, %r2, %r3;",
            "type `.b32` is not valid for `add`",
        ),
        ("popc.f32 %r1, %f1;", "type `.f32` is not valid for `popc`"),
        ("mul.lo %r1, %r2, %r3;", "needs 1 type suffix(es), found 0"),
        (
            "ld.global.v4.f32 {%f1, %f2}, [%rd1];",
            "vector operand has 2 elements but `.v4` needs 4",
        ),
        ("ld.global.v4.f32 %f1, [%rd1];", "needs a vector operand"),
        ("st.global.f32 %rd1, %f1;", "must be an address"),
        ("bra %r1;", "undeclared label `%r1`"),
        ("@%r1 bra END;", "is not a predicate register"),
        (
            "setp.lt.s32 %p1, %r1, %r2, %p2;",
            "takes 3 operand(s), found 4",
        ),
        (
            "shfl.sync.bfly.b32 %r1, %r2, 1, 31;",
            "takes 5 operand(s), found 4",
        ),
        (
            "atom.global.banana.u32 %r1, [%rd1], 1;",
            "unknown modifier `.banana` for `atom`",
        ),
        ("ret.f32;", "takes no type suffix"),
        ("mov.u32 %r1, %nosuch;", "undeclared register `%nosuch`"),
        ("mov.u32 %r1, END;", "label `END` cannot be used as a value"),
        ("cvt.f32 %f1, %r1;", "needs 2 type suffix(es), found 1"),
        (
            "ld.global.f32 %f1, [%rd1+0f3F800000];",
            "expected an integer",
        ),
        ("mov.u32 %r1, 1, 2;", "takes 2 operand(s), found 3"),
        (
            "call.uni (%r1), 5, (%r2);",
            "needs a function name or register",
        ),
        ("sin.approx.f32 %f1, [%rd1];", "not an address"),
        (
            "bar.sync.u32.u32 0;",
            "needs 0 to 1 type suffix(es), found 2",
        ),
    ];
    for (i, m) in cases {
        reject(i, m);
    }
}

/// `createpolicy` (what `cuda::annotated_ptr` and cache-hinted loads use):
/// its three kinds, one or two L2 priorities, printed back as written.
#[test]
fn createpolicy_forms() {
    for inst in [
        "createpolicy.fractional.L2::evict_last.b64 %rd1, 0f3F800000;",
        "createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rd1, 0f3F000000;",
        "createpolicy.fractional.L2::evict_first.b64 %rd1;",
        "createpolicy.range.global.L2::evict_last.L2::evict_first.b64 %rd1, [%rd2], 1024, 4096;",
        "createpolicy.cvt.L2.b64 %rd1, %rd2;",
    ] {
        check(inst, inst);
    }
    reject("createpolicy.b64 %rd1;", "`createpolicy` needs a kind");
    reject(
        "createpolicy.L2::evict_last.b64 %rd1;",
        "modifier `.L2::evict_last` is not valid for `createpolicy`",
    );
    reject(
        "createpolicy.fractional.b64 %rd1;",
        "`createpolicy` needs an L2 priority",
    );
    reject(
        "createpolicy.range.global.L2::evict_last.b64 %rd1, [%rd2], 1024;",
        "operand",
    );
}
