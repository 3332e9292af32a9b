//! Tuning spaces: --param parsing, space files, expansion order and
//! restrictions on hand-counted spaces, launch shapes.

use std::path::Path;

use tune::{Config, Param, Space, TuneError, parse_param_arg};
use validate::ParamValue;

fn int(v: i64) -> ParamValue {
    ParamValue::Int(v)
}

fn s(v: &str) -> ParamValue {
    ParamValue::Str(v.to_string())
}

fn space_of(args: &[&str], restrictions: &[&str]) -> Space {
    let mut space = Space::default();
    for a in args {
        space.add_param(parse_param_arg(a).expect(a)).expect(a);
    }
    for r in restrictions {
        space.add_restriction(r).expect(r);
    }
    space
}

fn parse(text: &str) -> Result<Space, TuneError> {
    Space::parse("space.toml", text, Path::new("/specs"))
}

const XYT: [&str; 3] = ["block_size_x=16,32,64", "block_size_y=1,2,4,8", "tile=1,2"];

/// (kept, total, rejected per restriction) of a space.
fn check_counts(args: &[&str], restrictions: &[&str], kept: usize, total: u64, rejected: &[u64]) {
    let e = space_of(args, restrictions).expand().expect("expands");
    assert_eq!(e.total, total, "{args:?} {restrictions:?}");
    assert_eq!(e.kept.len(), kept, "{args:?} {restrictions:?}");
    let counts: Vec<u64> = e.rejected_by.iter().map(|(_, n)| *n).collect();
    assert_eq!(counts, rejected, "{args:?} {restrictions:?}");
}

#[test]
fn hand_counted_spaces() {
    check_counts(&XYT, &[], 24, 24, &[]);
    // x*y >= 64: 16x{4,8}, 32x{2,4,8}, 64x{1,2,4,8} = 9 pairs, times 2 tiles.
    check_counts(&XYT, &["block_size_x*block_size_y >= 64"], 18, 24, &[6]);
    // Of those 18, tile 2 with x != 64 is 5 pairs more.
    check_counts(
        &XYT,
        &[
            "block_size_x*block_size_y >= 64",
            "tile == 1 or block_size_x == 64",
        ],
        13,
        24,
        &[6, 5],
    );
    // A restriction that holds everywhere, and one that holds nowhere.
    check_counts(&XYT, &["True", "block_size_x > 64"], 0, 24, &[0, 24]);
    check_counts(&["a=1"], &[], 1, 1, &[]);
    check_counts(&["a=1,2,3", "b=x,y"], &["b == 'y'"], 3, 6, &[3]);
    // Python's chained comparison and C's logic agree.
    check_counts(
        &XYT,
        &["32 <= block_size_x*block_size_y <= 128"],
        check_manual(|x, y| (32..=128).contains(&(x * y))) * 2,
        24,
        &[24 - check_manual(|x, y| (32..=128).contains(&(x * y))) as u64 * 2],
    );
}

/// Counts (x, y) pairs of XYT satisfying `f`, by loops written here.
fn check_manual(f: impl Fn(i64, i64) -> bool) -> usize {
    let mut n = 0;
    for x in [16, 32, 64] {
        for y in [1, 2, 4, 8] {
            if f(x, y) {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn first_parameter_varies_slowest() {
    let space = space_of(&XYT, &[]);
    let at = |i: u64| -> Vec<ParamValue> {
        let c: Config = space.config_at(i).expect("in range");
        assert_eq!(c.index, i);
        c.values.into_iter().map(|(_, v)| v).collect()
    };
    assert_eq!(at(0), [int(16), int(1), int(1)]);
    assert_eq!(at(1), [int(16), int(1), int(2)]);
    assert_eq!(at(2), [int(16), int(2), int(1)]);
    assert_eq!(at(8), [int(32), int(1), int(1)]);
    assert_eq!(at(23), [int(64), int(8), int(2)]);
    assert!(space.config_at(24).is_none());
    let all = space.expand().expect("expands").kept;
    let indices: Vec<u64> = all.iter().map(|c| c.index).collect();
    assert_eq!(indices, (0..24).collect::<Vec<_>>());
    assert_eq!(all[5].label(), "block_size_x=16,block_size_y=4,tile=2");
}

fn param_ok(arg: &str, name: &str, values: &[ParamValue]) {
    assert_eq!(
        parse_param_arg(arg),
        Ok(Param {
            name: name.into(),
            values: values.to_vec()
        }),
        "{arg}"
    );
}

fn param_err(arg: &str, fragment: &str) {
    let e = parse_param_arg(arg).expect_err(arg).to_string();
    assert!(e.contains(fragment), "{arg}: {e}");
}

#[test]
fn param_arguments() {
    param_ok(
        "block_size_x=16,32,64",
        "block_size_x",
        &[int(16), int(32), int(64)],
    );
    param_ok(" n = 1 , -2 ", "n", &[int(1), int(-2)]);
    param_ok(
        "variant=shared,global",
        "variant",
        &[s("shared"), s("global")],
    );
    param_ok("mix=1,a", "mix", &[int(1), s("a")]);
    param_ok("f=1.5", "f", &[s("1.5")]);
    param_err("block_size_x", "NAME=V1");
    param_err("=1,2", "not a parameter name");
    param_err("1x=1", "not a parameter name");
    param_err("a-b=1", "not a parameter name");
    param_err("and=1", "reserved");
    param_err("x=1,,2", "empty value");
    param_err("x=", "empty value");
    param_err("x=1,2,1", "given twice");
}

#[test]
fn command_line_overrides_the_file() {
    let mut space = parse("[params]\na = [1, 2]\nb = [3, 4, 5]\n").expect("parses");
    space
        .add_param(parse_param_arg("a=7").expect("parses"))
        .expect("adds");
    space
        .add_param(parse_param_arg("c=0,1").expect("parses"))
        .expect("adds");
    let names: Vec<&str> = space.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert_eq!(space.size(), Some(6));
}

#[test]
fn space_files() {
    let space = parse(
        r#"
experiment = "../experiments/convolution.toml"
restrictions = ["block_size_x*block_size_y <= 1024", "variant != 'slow' or tile == 1"]

[params]
block_size_x = [16, 32, 64]
block_size_y = [1, 2]
tile = [1, 2]
variant = ["fast", "slow"]
"#,
    )
    .expect("parses");
    assert_eq!(space.params.len(), 4);
    assert_eq!(space.params[3].values, [s("fast"), s("slow")]);
    assert_eq!(
        space.experiment.as_deref(),
        Some(Path::new("/specs/../experiments/convolution.toml"))
    );
    // 3*2*2*2 = 24; the second restriction drops slow with tile 2: 6.
    let e = space.expand().expect("expands");
    assert_eq!((e.total, e.kept.len()), (24, 18));
}

/// A space file's parameters keep the file's order (Kernel Tuner's
/// `tune_params` order, which `--sample`, the labels and `--kt-cache`
/// follow), not the alphabetical order of `toml`'s tables.
#[test]
fn space_files_keep_the_order_of_their_parameters() {
    let space = parse(
        "[params]\ngrid_width = [4096]\nzeta = [1, 2]\nblock_size_x = [32, 64]\nalpha = [\"a\", \"b\"]\n",
    )
    .expect("parses");
    let names: Vec<&str> = space.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["grid_width", "zeta", "block_size_x", "alpha"]);
    let e = space.expand().expect("expands");
    let labels: Vec<String> = e.kept.iter().take(3).map(Config::label).collect();
    assert_eq!(
        labels,
        [
            "grid_width=4096,zeta=1,block_size_x=32,alpha=a",
            "grid_width=4096,zeta=1,block_size_x=32,alpha=b",
            "grid_width=4096,zeta=1,block_size_x=64,alpha=a",
        ]
    );
}

fn file_err(text: &str, fragment: &str) {
    let e = parse(text).expect_err(text).to_string();
    assert!(e.contains(fragment), "{text}: {e}");
    assert!(e.starts_with("space.toml"), "{e}");
}

#[test]
fn space_file_errors() {
    file_err("[params]\nx = 3\n", "at params.x: expected a list");
    file_err("[params]\nx = [1, [2]]\n", "params.x[1]");
    file_err("[params]\nx = [1, 1]\n", "given twice");
    file_err("[params]\nx = []\n", "no values");
    file_err(
        "[params]\nx = [1]\nrestrictions = [\"x > 1\"]\n",
        "before `[params]`",
    );
    file_err(
        "restrictions = [\"x >\"]\n[params]\nx = [1]\n",
        "restrictions[0]",
    );
    file_err("restrictions = [\"x >\"]\n[params]\nx = [1]\n", "column 4");
    file_err("nonsense = 1\n", "1:1");
    file_err(
        "[params]\nx = [1]\n[launch]\nblock = [\"x +\"]\n",
        "launch.block[0]",
    );
    file_err(
        "[params]\nx = [1]\n[launch]\ngrid = [1]\nproblem_size = [4]\n",
        "either `grid`",
    );
}

#[test]
fn unknown_names_and_failing_restrictions() {
    let e = space_of(&["x=1,2"], &["x > 0 and y > 1"])
        .expand()
        .expect_err("y is unknown")
        .to_string();
    assert!(
        e.contains("column 11") && e.contains("`y` is not a parameter"),
        "{e}"
    );
    let e = space_of(&["x=0,1"], &["4 / x > 1"])
        .expand()
        .expect_err("division by zero")
        .to_string();
    assert!(e.contains("x=0") && e.contains("division by zero"), "{e}");
    // A guard makes the same point a plain rejection.
    let ok = space_of(&["x=0,1"], &["x != 0 and 4 / x > 1"]).expand();
    assert_eq!(ok.map(|e| e.kept.len()), Ok(1));
}

#[test]
fn too_large_spaces_are_errors() {
    let args: Vec<String> = (0..10).map(|i| format!("p{i}=1,2,3,4,5,6,7,8")).collect();
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let space = space_of(&refs, &[]);
    assert_eq!(space.size(), Some(8u64.pow(10)));
    let e = space.expand().expect_err("too large").to_string();
    assert!(e.contains("1073741824"), "{e}");
}

/// (grid, block, dynamic shared) of the first configuration of a file.
fn dims(text: &str, config: u64) -> (Option<[u64; 3]>, [u64; 3], u64) {
    let space = parse(text).expect("parses");
    let c = space.config_at(config).expect("in range");
    let d = space.launch.dims(&c).expect("evaluates");
    (d.grid, d.block, d.dynamic_shared_bytes)
}

#[test]
fn launch_shapes() {
    // Kernel Tuner defaults: block from block_size_*, grid undefined.
    assert_eq!(
        dims("[params]\nblock_size_x = [32]\n", 0),
        (None, [32, 1, 1], 0)
    );
    assert_eq!(dims("[params]\nn = [1]\n", 0), (None, [256, 1, 1], 0));
    // The convolution experiment's rule: grid = ceil(problem / (block*tile)).
    let conv = "[params]\nblock_size_x = [16, 48]\nblock_size_y = [8]\ntile_size_x = [1, 2]\ntile_size_y = [3]\n\
        [launch]\nproblem_size = [4096, 4096]\ngrid_div = [\"block_size_x*tile_size_x\", \"block_size_y*tile_size_y\"]\n";
    assert_eq!(dims(conv, 0), (Some([256, 171, 1]), [16, 8, 1], 0));
    assert_eq!(dims(conv, 3), (Some([43, 171, 1]), [48, 8, 1], 0));
    // grid_div left out: divide by the block-size parameter.
    let default_div = "[params]\nblock_size_x = [100]\n[launch]\nproblem_size = [1000, 7]\n";
    assert_eq!(dims(default_div, 0), (Some([10, 7, 1]), [100, 1, 1], 0));
    // Explicit grid, block and dynamic shared memory.
    let explicit = "[params]\nt = [64, 128]\n[launch]\ngrid = [\"1024/t\", 2]\nblock = [\"t\", 2]\ndynamic_shared = \"t*2*4\"\n";
    assert_eq!(dims(explicit, 1), (Some([8, 2, 1]), [128, 2, 1], 1024));
}

fn dims_err(text: &str, fragment: &str) {
    let space = parse(text).expect("parses");
    let c = space.config_at(0).expect("in range");
    let e = space.launch.dims(&c).expect_err(text).to_string();
    assert!(e.contains(fragment), "{text}: {e}");
}

#[test]
fn launch_shape_errors() {
    dims_err("[params]\nblock_size_x = [0]\n", "expected a positive size");
    dims_err("[params]\nblock_size_x = [\"wide\"]\n", "not an integer");
    dims_err(
        "[params]\nt = [0]\n[launch]\ngrid = [\"8/t\"]\n",
        "division by zero",
    );
    dims_err(
        "[params]\nt = [1]\n[launch]\nblock = [\"u\"]\n",
        "unknown integer name `u`",
    );
    dims_err(
        "[params]\nt = [1]\n[launch]\ndynamic_shared = \"t - 2\"\n",
        "expected >= 0",
    );
    dims_err(
        "[params]\nt = [1]\n[launch]\nproblem_size = [8]\ngrid_div = [\"t - 1\"]\n",
        "grid_div[0]",
    );
}

/// The expansion against the plain one: every point built and each
/// restriction evaluated on it in order (`Space::first_broken`).
fn expand_one_by_one(space: &Space) -> Result<(Vec<Config>, Vec<u64>), TuneError> {
    let mut kept = Vec::new();
    let mut rejected = vec![0u64; space.restrictions.len()];
    for index in 0..space.size().expect("size") {
        let config = space.config_at(index).expect("in range");
        match space.first_broken(&config)? {
            None => kept.push(config),
            Some(i) => rejected[i] += 1,
        }
    }
    Ok((kept, rejected))
}

#[test]
fn the_verdict_tables_agree_with_evaluating_every_point() {
    let params = [
        "a=1,2,3,4,6,8",
        "b=0,1,2,3",
        "kind=\"x\",\"y\"",
        "c=16,32,64",
        "d=1,2,4,8,16",
    ];
    let cases: [&[&str]; 6] = [
        &["a % 2 == 0", "a * c <= 128", "b < 3 or d > 2"],
        &["kind == \"x\" or a > 2", "c % (a * d) == 0"],
        // Division by zero where b is 0: an error at the first such point
        // that passes the restrictions before it, as point by point.
        &["a > 1", "c / b > 10"],
        &["b != 0 and c / b > 10", "d * a <= c"],
        // Reads no parameter.
        &["1 + 1 == 2", "a + b + c + d > 20"],
        &["d > 100"],
    ];
    for restrictions in cases {
        let space = space_of(&params, restrictions);
        let plain = expand_one_by_one(&space);
        let tables = space.expand();
        match (plain, tables) {
            (Ok((kept, rejected)), Ok(e)) => {
                assert_eq!(e.kept, kept, "{restrictions:?}");
                let counts: Vec<u64> = e.rejected_by.iter().map(|(_, n)| *n).collect();
                assert_eq!(counts, rejected, "{restrictions:?}");
                assert_eq!(e.total, 6 * 4 * 2 * 3 * 5);
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{restrictions:?}"),
            (a, b) => panic!(
                "{restrictions:?}: one by one {:?}, tables {:?}",
                a.err(),
                b.err()
            ),
        }
    }
    // The error case is an error (not a silent pass) in both.
    assert!(
        space_of(&params, &["a > 1", "c / b > 10"])
            .expand()
            .is_err()
    );
}
