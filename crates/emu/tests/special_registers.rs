//! Special registers over a 3D grid of 3D blocks: every thread writes the
//! values it reads to a slot indexed by its global linear id.

use std::path::Path;

use emu::exec::{LaunchOptions, run_ptx};
use emu::observer::NoObserver;

/// Registers read, in output order (one u32 each).
const SREGS: [&str; 16] = [
    "%tid.x",
    "%tid.y",
    "%tid.z",
    "%ntid.x",
    "%ntid.y",
    "%ntid.z",
    "%ctaid.x",
    "%ctaid.y",
    "%ctaid.z",
    "%nctaid.x",
    "%nctaid.y",
    "%nctaid.z",
    "%laneid",
    "%warpid",
    "%lanemask_lt",
    "%lanemask_ge",
];

#[test]
fn special_registers_in_3d() {
    let (grid, block) = ([2u32, 3, 2], [4u32, 5, 3]);
    let n = SREGS.len();
    let mut body = String::new();
    // Global linear id = ((ctaid.z*nctaid.y + ctaid.y)*nctaid.x + ctaid.x) * threads + linear tid.
    body.push_str(
        "mov.u32 %r1, %tid.x;\nmov.u32 %r2, %tid.y;\nmov.u32 %r3, %tid.z;\nmov.u32 %r4, %ntid.x;\nmov.u32 %r5, %ntid.y;\nmov.u32 %r6, %ntid.z;\n\
         mad.lo.u32 %r7, %r3, %r5, %r2;\nmad.lo.u32 %r7, %r7, %r4, %r1;\n\
         mov.u32 %r8, %ctaid.x;\nmov.u32 %r9, %ctaid.y;\nmov.u32 %r10, %ctaid.z;\nmov.u32 %r11, %nctaid.x;\nmov.u32 %r12, %nctaid.y;\n\
         mad.lo.u32 %r13, %r10, %r12, %r9;\nmad.lo.u32 %r13, %r13, %r11, %r8;\nmul.lo.u32 %r14, %r4, %r5;\nmul.lo.u32 %r14, %r14, %r6;\n\
         mad.lo.u32 %r15, %r13, %r14, %r7;\n",
    );
    body.push_str(&format!(
        "mul.wide.u32 %rd2, %r15, {};\nadd.s64 %rd3, %rd1, %rd2;\n",
        4 * n
    ));
    for (k, s) in SREGS.iter().enumerate() {
        body.push_str(&format!(
            "mov.u32 %r16, {s};\nst.global.u32 [%rd3+{}], %r16;\n",
            4 * k
        ));
    }
    let ptx = format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 out)\n{{\n.reg .b32 %r<20>;\n.reg .b64 %rd<4>;\n\
         ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\n{body}ret;\n}}\n"
    );
    let threads = grid.iter().product::<u32>() * block.iter().product::<u32>();
    let spec = emu::spec::parse(
        &format!(
            "source = \"k.ptx\"\nkernel = \"k\"\ngrid = {grid:?}\nblock = {block:?}\n[[arg]]\nname = \"out\"\ntype = \"u32*\"\nlen = {}\n",
            threads as usize * n
        ),
        Path::new("k.toml"),
        &[],
    )
    .expect("spec");
    for parallel in [false, true] {
        let r = run_ptx(
            &ptx,
            "k.ptx",
            &spec,
            LaunchOptions {
                parallel,
                ..Default::default()
            },
            &mut NoObserver,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let out: Vec<u32> = r.buffers[0]
            .bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let mut g = 0usize;
        for cz in 0..grid[2] {
            for cy in 0..grid[1] {
                for cx in 0..grid[0] {
                    for tz in 0..block[2] {
                        for ty in 0..block[1] {
                            for tx in 0..block[0] {
                                let t = tx + ty * block[0] + tz * block[0] * block[1];
                                let lane = t % 32;
                                let want = [
                                    tx,
                                    ty,
                                    tz,
                                    block[0],
                                    block[1],
                                    block[2],
                                    cx,
                                    cy,
                                    cz,
                                    grid[0],
                                    grid[1],
                                    grid[2],
                                    lane,
                                    t / 32,
                                    (1u32 << lane) - 1,
                                    !((1u32 << lane) - 1),
                                ];
                                assert_eq!(
                                    &out[g * n..(g + 1) * n],
                                    &want,
                                    "thread ({tx},{ty},{tz}) of CTA ({cx},{cy},{cz})"
                                );
                                g += 1;
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(g as u32, threads);
        assert_eq!(r.stats.ctas, 12);
        assert_eq!(
            r.stats.warps,
            12 * 2,
            "60 threads per CTA make two warps, the second partial"
        );
    }
}
