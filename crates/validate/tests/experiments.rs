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
    // output 4096*4096, input (4096+14)^2, filter 15*15; d_filter 15*15.
    let lens: Vec<(String, u64)> = launch
        .args
        .iter()
        .map(|a| match a {
            LaunchArg::Buffer { name, len, .. } => (name.clone(), *len),
            LaunchArg::Scalar { name, .. } => (name.clone(), 0),
        })
        .collect();
    assert_eq!(
        lens,
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
