//! The repository's experiment files reproduce Kernel Tuner's launches.
//! Kernel Tuner (1.5.0, util.py): block = (block_size_x, block_size_y,
//! block_size_z); grid[d] = ceil(problem_size[d] / grid_div[d]); defines in
//! the order grid_size_x/y/z, block_size_x/y/z, the other parameters in
//! tune_params_keys order, kernel_tuner.

use std::path::{Path, PathBuf};

use validate::{Define, Experiment, Init, LaunchArg, ParamValue};

fn experiment(name: &str) -> Experiment {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../experiments")
        .join(name);
    Experiment::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// Each argument's name and element count (0 for a scalar), in order.
fn arg_lens(launch: &validate::Launch) -> Vec<(String, u64)> {
    launch
        .args
        .iter()
        .map(|a| match a {
            LaunchArg::Buffer { name, len, .. } => (name.clone(), *len),
            LaunchArg::Scalar { name, .. } => (name.clone(), 0),
        })
        .collect()
}

fn mac(name: &str, value: i64) -> Define {
    Define::Macro {
        name: name.into(),
        value: value.to_string(),
    }
}

/// Kernel Tuner's key order in the kt-convolution caches.
const CONV_KEYS: [&str; 8] = [
    "block_size_x",
    "block_size_y",
    "filter_height",
    "filter_width",
    "read_only",
    "tile_size_x",
    "tile_size_y",
    "use_padding",
];

/// A 15x15 convolution's buffers: output 4096*4096, input (4096+14)^2,
/// filter 15*15; the constant d_filter 15*15.
fn check_conv_buffers(launch: &validate::Launch) {
    assert_eq!(
        arg_lens(launch),
        vec![
            ("output".to_string(), 16_777_216),
            ("input".to_string(), 4110 * 4110),
            ("filter".to_string(), 225)
        ]
    );
    assert_eq!(launch.constants.len(), 1);
    assert_eq!(
        (launch.constants[0].name.as_str(), launch.constants[0].len),
        ("d_filter", 225)
    );
}

/// One convolution configuration (15x15 filter) and the grid computed by
/// hand; checks grid, block, every define in order, and the buffer sizes.
fn check_conv(bx: i64, by: i64, tx: i64, ty: i64, read_only: i64, padding: i64, grid: [u64; 2]) {
    let exp = experiment("convolution.toml");
    let values = [bx, by, 15, 15, read_only, tx, ty, padding].map(ParamValue::Int);
    let params: Vec<(&str, &ParamValue)> = CONV_KEYS.iter().copied().zip(values.iter()).collect();
    let launch = exp.launch(&params).unwrap_or_else(|e| panic!("{e}"));
    let case = format!("bx={bx} by={by} tx={tx} ty={ty}");
    assert_eq!(launch.grid, [grid[0], grid[1], 1], "{case}");
    assert_eq!(launch.block, [bx as u64, by as u64, 1], "{case}");
    assert_eq!(launch.kernel, "convolution_kernel");
    assert!(
        launch
            .source
            .main
            .ends_with("third_party/kernel_tuner/convolution.cu")
    );
    let expected = vec![
        mac("grid_size_x", grid[0] as i64),
        mac("grid_size_y", grid[1] as i64),
        mac("grid_size_z", 1),
        mac("block_size_x", bx),
        mac("block_size_y", by),
        mac("block_size_z", 1),
        mac("filter_height", 15),
        mac("filter_width", 15),
        mac("read_only", read_only),
        mac("tile_size_x", tx),
        mac("tile_size_y", ty),
        mac("use_padding", padding),
        mac("kernel_tuner", 1),
    ];
    assert_eq!(launch.defines, expected, "{case}");
    check_conv_buffers(&launch);
}

#[test]
fn convolution_reproduces_kernel_tuners_grid_for_20_configurations() {
    // grid = (ceil(4096 / (bx*tx)), ceil(4096 / (by*ty))):
    check_conv(16, 16, 1, 1, 0, 0, [256, 256]); // 4096/16 = 256; 4096/16 = 256
    check_conv(32, 8, 2, 4, 1, 0, [64, 128]); // 4096/64 = 64; 4096/32 = 128
    check_conv(48, 8, 1, 1, 0, 1, [86, 512]); // 4096/48 = 85.33 -> 86; 4096/8 = 512
    check_conv(48, 4, 3, 3, 1, 1, [29, 342]); // 4096/144 = 28.44 -> 29; 4096/12 = 341.33 -> 342
    check_conv(112, 2, 5, 7, 0, 0, [8, 293]); // 4096/560 = 7.31 -> 8; 4096/14 = 292.57 -> 293
    check_conv(128, 1, 8, 8, 1, 0, [4, 512]); // 4096/1024 = 4; 4096/8 = 512
    check_conv(1, 32, 1, 1, 0, 1, [4096, 128]); // 4096/1 = 4096; 4096/32 = 128
    check_conv(96, 16, 6, 5, 1, 1, [8, 52]); // 4096/576 = 7.11 -> 8; 4096/80 = 51.2 -> 52
    check_conv(64, 4, 7, 2, 0, 0, [10, 512]); // 4096/448 = 9.14 -> 10; 4096/8 = 512
    check_conv(2, 32, 3, 6, 1, 0, [683, 22]); // 4096/6 = 682.67 -> 683; 4096/192 = 21.33 -> 22
    check_conv(4, 16, 5, 1, 0, 1, [205, 256]); // 4096/20 = 204.8 -> 205; 4096/16 = 256
    check_conv(8, 32, 8, 7, 1, 1, [64, 19]); // 4096/64 = 64; 4096/224 = 18.29 -> 19
    check_conv(112, 1, 1, 1, 0, 0, [37, 4096]); // 4096/112 = 36.57 -> 37; 4096/1 = 4096
    check_conv(96, 2, 2, 8, 1, 0, [22, 256]); // 4096/192 = 21.33 -> 22; 4096/16 = 256
    check_conv(128, 8, 3, 4, 0, 1, [11, 128]); // 4096/384 = 10.67 -> 11; 4096/32 = 128
    check_conv(16, 4, 7, 5, 1, 1, [37, 205]); // 4096/112 = 36.57 -> 37; 4096/20 = 204.8 -> 205
    check_conv(32, 32, 1, 3, 0, 0, [128, 43]); // 4096/32 = 128; 4096/96 = 42.67 -> 43
    check_conv(48, 2, 4, 6, 1, 0, [22, 342]); // 4096/192 = 21.33 -> 22; 4096/12 = 341.33 -> 342
    check_conv(64, 16, 8, 1, 0, 1, [8, 256]); // 4096/512 = 8; 4096/16 = 256
    check_conv(8, 1, 6, 8, 1, 1, [86, 512]); // 4096/48 = 85.33 -> 86; 4096/8 = 512
}

#[test]
fn convolution_constants_match_the_filter_argument() {
    // Kernel Tuner copies the filter array itself into d_filter: same data.
    let exp = experiment("convolution.toml");
    let values = [16, 16, 15, 15, 0, 1, 1, 0].map(ParamValue::Int);
    let params: Vec<(&str, &ParamValue)> = CONV_KEYS.iter().copied().zip(values.iter()).collect();
    let launch = exp.launch(&params).unwrap_or_else(|e| panic!("{e}"));
    let filter_init = launch.args.iter().find_map(|a| match a {
        LaunchArg::Buffer { name, init, .. } if name == "filter" => Some(init.clone()),
        _ => None,
    });
    assert_eq!(filter_init, Some(launch.constants[0].init.clone()));
}

const DEDISP_KEYS: [&str; 8] = [
    "block_size_x",
    "block_size_y",
    "block_size_z",
    "tile_size_x",
    "tile_size_y",
    "tile_stride_x",
    "tile_stride_y",
    "loop_unroll_factor_channel",
];

/// A dedispersion configuration; the grid follows the tuning script, which
/// passes no grid_div: (ceil(25000/bx), ceil(2048/by), 1).
fn check_dedisp(bx: i64, by: i64, tx: i64, ty: i64, grid: [u64; 3]) {
    let exp = experiment("dedispersion.toml");
    let values = [bx, by, 1, tx, ty, 0, 1, 0].map(ParamValue::Int);
    let params: Vec<(&str, &ParamValue)> = DEDISP_KEYS.iter().copied().zip(values.iter()).collect();
    let launch = exp.launch(&params).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(launch.grid, grid, "bx={bx} by={by}");
    assert_eq!(launch.block, [bx as u64, by as u64, 1]);
    assert_eq!(launch.kernel, "dedispersion_kernel");
    assert_eq!(launch.include_dirs.len(), 1);
    // loop_unroll_factor_channel = 0: no define, the pragma is dropped.
    assert_eq!(
        launch.defines.last(),
        Some(&Define::Macro {
            name: "kernel_tuner".into(),
            value: "1".into()
        })
    );
    assert!(launch.defines.contains(&Define::DropUnrollPragma {
        name: "loop_unroll_factor_channel".into()
    }));
    assert_eq!(launch.defines[0], mac("grid_size_x", grid[0] as i64));
}

#[test]
fn dedispersion_grid_and_arguments() {
    check_dedisp(32, 32, 4, 8, [782, 64, 1]); // 25000/32 = 781.25 -> 782; 2048/32 = 64
    check_dedisp(1, 256, 1, 1, [25000, 8, 1]); // 25000/1; 2048/256 = 8
    check_dedisp(16, 40, 2, 3, [1563, 52, 1]); // 25000/16 = 1562.5 -> 1563; 2048/40 = 51.2 -> 52
    check_dedisp(8, 248, 3, 7, [3125, 9, 1]); // 25000/8 = 3125; 2048/248 = 8.26 -> 9

    let exp = experiment("dedispersion.toml");
    let values = [32, 32, 1, 1, 1, 0, 0, 0].map(ParamValue::Int);
    let params: Vec<(&str, &ParamValue)> = DEDISP_KEYS.iter().copied().zip(values.iter()).collect();
    let launch = exp.launch(&params).unwrap_or_else(|e| panic!("{e}"));
    let lens: Vec<u64> = launch
        .args
        .iter()
        .map(|a| match a {
            LaunchArg::Buffer { len, .. } => *len,
            LaunchArg::Scalar { .. } => 0,
        })
        .collect();
    // input 1536 * 25650 bytes, output 2048 * 25000, shifts 1536.
    assert_eq!(lens, vec![39_398_400, 51_200_000, 1536]);
    let Some(LaunchArg::Buffer {
        init: Init::Values(shifts),
        ..
    }) = launch.args.get(2)
    else {
        panic!("shifts should be formula values")
    };
    // shift_0 = 4148.808 * (1/1425^2 - 1/1724.8046875^2) / 0.00004096
    //         = 4148.808 * (4.92459e-7 - 3.36140e-7) / 4.096e-5 = 15.8335
    assert!(
        (shifts[0] - 15.833_460_991_209).abs() < 1e-9,
        "{}",
        shifts[0]
    );
    assert_eq!(shifts[1535], 0.0);
    assert!(shifts.windows(2).all(|w| w[0] > w[1]));
    // The script asserts max_shift > (dm_first + nr_dms*dm_step) * shifts[0].
    assert!(650.0 > 2048.0 * 0.02 * shifts[0]);
}

/// hotspot_milo.py's parameters, in its `tune_params` order.
const HOTSPOT_KEYS: [&str; 10] = [
    "grid_width",
    "grid_height",
    "block_size_x",
    "block_size_y",
    "tile_size_x",
    "tile_size_y",
    "temporal_tiling_factor",
    "max_tfactor",
    "loop_unroll_factor_t",
    "sh_power",
];

/// The experiment's launch and restrictions for one hotspot configuration
/// (bx, by, tx, ty, temporal tiling, unroll, sh_power); the kernel source
/// is not read, so this holds without it.
fn hotspot(v: [i64; 7]) -> (Experiment, Vec<ParamValue>) {
    let [bx, by, tx, ty, t, unroll, sh] = v;
    let values = [4096, 4096, bx, by, tx, ty, t, 10, unroll, sh].map(ParamValue::Int);
    (experiment("hotspot-milo.toml"), values.to_vec())
}

fn hotspot_params(values: &[ParamValue]) -> Vec<(&str, &ParamValue)> {
    HOTSPOT_KEYS.iter().copied().zip(values.iter()).collect()
}

/// grid_div_x = [block_size_x, tile_size_x], grid_div_y likewise, over a
/// 4096 x 4096 problem.
fn check_hotspot_grid(v: [i64; 7], grid: [u64; 3]) {
    let (exp, values) = hotspot(v);
    let params = hotspot_params(&values);
    assert!(
        exp.admits(&params).unwrap_or_else(|e| panic!("{e}")),
        "{v:?}"
    );
    let launch = exp.launch(&params).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(launch.grid, grid, "{v:?}");
    assert_eq!(launch.block, [v[0] as u64, v[1] as u64, 1]);
}

#[test]
fn hotspot_grid_and_arguments() {
    check_hotspot_grid([96, 8, 2, 2, 2, 1, 0], [22, 256, 1]); // 4096/192 = 21.3 -> 22; 4096/16
    check_hotspot_grid([32, 1, 10, 7, 1, 1, 1], [13, 586, 1]); // 4096/320 = 12.8; 4096/7 = 585.1
    check_hotspot_grid([1024, 1, 1, 1, 1, 1, 0], [4, 4096, 1]);

    let (exp, values) = hotspot([96, 8, 2, 2, 6, 3, 0]);
    let launch = exp
        .launch(&hotspot_params(&values))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(launch.kernel, "calculate_temp");
    assert!(
        launch
            .source
            .paths()
            .next()
            .is_some_and(|p| p.ends_with("third_party/benchmark_hub/hotspot_milo.cu"))
    );
    // Kernel Tuner's defines: the grid, the block, the parameters in order,
    // the unroll factor as a constant for `#pragma unroll loop_unroll_factor_t`.
    assert_eq!(
        launch.defines[..7],
        [
            mac("grid_size_x", 22),
            mac("grid_size_y", 256),
            mac("grid_size_z", 1),
            mac("block_size_x", 96),
            mac("block_size_y", 8),
            mac("block_size_z", 1),
            mac("grid_width", 4096),
        ]
    );
    assert!(launch.defines.contains(&Define::Constexpr {
        name: "loop_unroll_factor_t".into(),
        value: "3".into()
    }));
    assert_eq!(launch.defines.last(), Some(&mac("kernel_tuner", 1)));
    // power and temp carry a 10-cell border: 4116^2 floats; temp_dst 4096^2;
    // then 1/Rx, 1/Ry, 1/Rz and step/cap of get_input_arguments(4096, 4096).
    let want = [
        ("power", 16_941_456),
        ("temp", 16_941_456),
        ("temp_dst", 16_777_216),
        ("Rx_1", 0),
        ("Ry_1", 0),
        ("Rz_1", 0),
        ("step_div_cap", 0),
    ];
    let want: Vec<(String, u64)> = want.iter().map(|(n, l)| (n.to_string(), *l)).collect();
    assert_eq!(arg_lens(&launch), want);
    let Some(LaunchArg::Scalar {
        value: validate::ScalarValue::Float(rz),
        ..
    }) = launch.args.get(5)
    else {
        panic!("Rz_1 should be a float scalar")
    };
    // Rz = t_chip / (K_SI * (0.016/4096)^2) = 327680, so 1/Rz = 2^-15 / 10.
    assert!((rz - 1.0 / 327_680.0).abs() < 1e-12, "{rz}");
}

/// hotspot_milo.py's four CUDA restrictions, each rejecting a configuration
/// the others admit.
#[test]
fn hotspot_restrictions_are_the_scripts() {
    let admits = |v: [i64; 7]| {
        let (exp, values) = hotspot(v);
        exp.admits(&hotspot_params(&values))
            .unwrap_or_else(|e| panic!("{e}"))
    };
    assert!(admits([64, 16, 2, 2, 1, 1, 0]));
    // block_size_x*block_size_y >= 32
    assert!(!admits([4, 4, 1, 1, 1, 1, 0]));
    assert!(admits([4, 8, 1, 1, 1, 1, 0]));
    // temporal_tiling_factor % loop_unroll_factor_t == 0
    assert!(!admits([64, 16, 1, 1, 9, 2, 0]));
    assert!(admits([64, 16, 1, 1, 9, 3, 0]));
    // block_size_x*block_size_y <= 1024
    assert!(!admits([64, 32, 1, 1, 1, 1, 0]));
    // The tile in 48 KiB: (128 + 2) * (32 + 2) floats, double-buffered,
    // is 35,360 B; the power tile beside them makes it 53,040 B.
    assert!(!admits([64, 16, 2, 2, 1, 1, 1]));
    assert!(admits([64, 16, 2, 1, 1, 1, 1])); // (130 * 18) * 3 * 4 = 28,080 B
}

/// convolution_milo.py's parameters, in its `tune_params` order.
const CONV_MILO_KEYS: [&str; 10] = [
    "block_size_x",
    "block_size_y",
    "tile_size_x",
    "tile_size_y",
    "read_only",
    "use_padding",
    "use_shmem",
    "use_cmem",
    "filter_height",
    "filter_width",
];

/// Whether convolution-milo.toml admits (bx, by, tx, ty, read_only,
/// use_padding, use_shmem) with the script's use_cmem 1 and 15 x 15 filter.
fn conv_milo_admits(exp: &Experiment, v: [i64; 7]) -> bool {
    let [bx, by, tx, ty, ro, pad, sh] = v;
    let values = [bx, by, tx, ty, ro, pad, sh, 1, 15, 15].map(ParamValue::Int);
    let params: Vec<(&str, &ParamValue)> =
        CONV_MILO_KEYS.iter().copied().zip(values.iter()).collect();
    exp.admits(&params).unwrap_or_else(|e| panic!("{e}"))
}

/// The script's four restrictions, each rejecting a configuration the
/// others admit, and the space they leave: its values enumerated and
/// checked against the restrictions written out here (4,362 of 10,240,
/// what experiments/convolution-milo-space.toml says).
#[test]
fn convolution_milo_restrictions_are_the_scripts() {
    let exp = experiment("convolution-milo.toml");
    assert!(conv_milo_admits(&exp, [48, 4, 2, 2, 1, 1, 1]));
    // use_padding==0 or block_size_x % 32 != 0
    assert!(!conv_milo_admits(&exp, [64, 4, 2, 2, 1, 1, 1]));
    // block_size_x*block_size_y<=1024
    assert!(!conv_milo_admits(&exp, [128, 16, 1, 1, 0, 0, 0]));
    assert!(conv_milo_admits(&exp, [64, 16, 1, 1, 0, 0, 0]));
    // use_padding==0 or use_shmem != 0
    assert!(!conv_milo_admits(&exp, [48, 4, 2, 2, 1, 1, 0]));
    // use_shmem == 0 or (bx*tx + 14) * (by*ty + 14) < 12*1024:
    // (64*2 + 14) * (16*4 + 14) = 11,076 fits, (64*4 + 14) * 78 = 21,060 not;
    // without shared memory the size is not restricted.
    assert!(conv_milo_admits(&exp, [64, 16, 2, 4, 0, 0, 1]));
    assert!(!conv_milo_admits(&exp, [64, 16, 4, 4, 0, 0, 1]));
    assert!(conv_milo_admits(&exp, [64, 16, 4, 4, 0, 0, 0]));

    let oracle = |[bx, by, tx, ty, _, pad, sh]: [i64; 7]| {
        (pad == 0 || bx % 32 != 0)
            && bx * by <= 1024
            && (pad == 0 || sh != 0)
            && (sh == 0 || (bx * tx + 14) * (by * ty + 14) < 12 * 1024)
    };
    let (mut all, mut admitted) = (0, 0);
    for bx in (1..=16).map(|i| 16 * i) {
        for by in [1, 2, 4, 8, 16] {
            for tx in 1..=4 {
                for ty in 1..=4 {
                    for flags in 0..8 {
                        let v = [bx, by, tx, ty, flags & 1, (flags >> 1) & 1, flags >> 2];
                        let got = conv_milo_admits(&exp, v);
                        assert_eq!(got, oracle(v), "{v:?}");
                        all += 1;
                        admitted += i64::from(got);
                    }
                }
            }
        }
    }
    assert_eq!((all, admitted), (10_240, 4_362));
}

/// benchmark_hub's convolution_milo.cu is Kernel Tuner's convolution.cu:
/// the experiment compiles the same copy, with the same arguments.
#[test]
fn convolution_milo_launches_kernel_tuners_convolution() {
    let exp = experiment("convolution-milo.toml");
    let values = [48, 4, 3, 2, 1, 1, 1, 1, 15, 15].map(ParamValue::Int);
    let params: Vec<(&str, &ParamValue)> =
        CONV_MILO_KEYS.iter().copied().zip(values.iter()).collect();
    let launch = exp.launch(&params).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        launch
            .source
            .main
            .ends_with("third_party/kernel_tuner/convolution.cu")
    );
    assert_eq!(launch.kernel, "convolution_kernel");
    // 4096/144 = 28.44 -> 29; 4096/8 = 512.
    assert_eq!(launch.grid, [29, 512, 1]);
    assert_eq!(launch.block, [48, 4, 1]);
    assert_eq!(
        launch.defines[3..],
        [
            mac("block_size_x", 48),
            mac("block_size_y", 4),
            mac("block_size_z", 1),
            mac("tile_size_x", 3),
            mac("tile_size_y", 2),
            mac("read_only", 1),
            mac("use_padding", 1),
            mac("use_shmem", 1),
            mac("use_cmem", 1),
            mac("filter_height", 15),
            mac("filter_width", 15),
            mac("kernel_tuner", 1),
        ]
    );
    check_conv_buffers(&launch);
}
