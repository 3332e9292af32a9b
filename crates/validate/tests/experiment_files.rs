//! Experiment-file parsing and launch errors: each names its TOML key (or
//! line and column for syntax) and the problem.

use std::path::Path;

use validate::{Experiment, Init, LaunchArg, Location, ParamValue, ScalarType, ScalarValue};

const HEAD: &str = "source = \"k.cu\"\nkernel = \"k\"\nproblem_size = [1000]\n";

fn parse(text: &str) -> Result<Experiment, validate::FileError> {
    Experiment::parse("e.toml", text, Path::new("/base"), "e")
}

/// Parsing `text` fails at `at` with a message containing `needle`.
fn check_parse_error(text: &str, at: Location, needle: &str) {
    match parse(text) {
        Ok(_) => panic!("expected an error for {text:?}"),
        Err(e) => {
            assert_eq!(e.at, at, "{e}");
            assert!(e.message.contains(needle), "{e}");
        }
    }
}

#[test]
fn a_kernel_source_given_as_an_experiment_says_so() {
    let cu = "__global__ void k(float *x) { x[0] = 1.0f; }\n";
    for file in ["k.cu", "k.ptx", "k.opencl"] {
        let e = Experiment::parse(file, cu, Path::new("/base"), "k").expect_err(file);
        assert!(matches!(e.at, Location::LineCol(1, _)), "{e}");
        assert!(e.message.contains("not an experiment file"), "{e}");
        assert!(e.message.contains("docs/experiments.md"), "{e}");
    }
    // A TOML file's syntax error gets the parser's message alone.
    let e = parse("[[arg]\n").expect_err("unclosed array of tables");
    assert!(!e.message.contains("not an experiment file"), "{e}");
}

#[test]
fn parse_errors_name_their_place() {
    check_parse_error(
        "source = \"k.cu\"\nkernel = 3\n",
        Location::LineCol(2, 10),
        "string",
    );
    check_parse_error(
        "source = \"k.cu\"\nkernel = \"k\"\n",
        Location::LineCol(1, 1),
        "problem_size",
    );
    check_parse_error(
        &format!("{HEAD}colour = 1\n"),
        Location::LineCol(4, 1),
        "unknown field",
    );
    check_parse_error(
        &format!("{HEAD}grid_div = [\"block_size_x*\"]\n"),
        Location::Key("grid_div[0]".into()),
        "ends too early",
    );
    check_parse_error(
        "source = \"k.cu\"\nkernel = \"k\"\nproblem_size = []\n",
        Location::Key("problem_size".into()),
        "1 to 3",
    );
    check_parse_error(
        &format!("{HEAD}[[arg]]\nname = \"a\"\ntype = \"float*\"\nlen = 4\n"),
        Location::Key("arg[0].type".into()),
        "unknown type `float*`",
    );
    check_parse_error(
        &format!("{HEAD}[[arg]]\nname = \"a\"\ntype = \"f32*\"\n"),
        Location::Key("arg[0].len".into()),
        "needs `len`",
    );
    check_parse_error(
        &format!("{HEAD}[[arg]]\nname = \"n\"\ntype = \"i32\"\n"),
        Location::Key("arg[0].value".into()),
        "needs `value`",
    );
    check_parse_error(
        &format!("{HEAD}[[arg]]\nname = \"n\"\ntype = \"i32\"\nvalue = 1.5\n"),
        Location::Key("arg[0].value".into()),
        "not an integer",
    );
    check_parse_error(
        &format!("{HEAD}[[arg]]\nname = \"a\"\ntype = \"f32*\"\nlen = 4\ninit = \"ones\"\n"),
        Location::Key("arg[0].init".into()),
        "unknown init",
    );
    check_parse_error(
        &format!(
            "{HEAD}[[arg]]\nname = \"a\"\ntype = \"f32*\"\nlen = 4\ninit = {{ fill = 1.0, file = \"x\" }}\n"
        ),
        Location::Key("arg[0].init".into()),
        "exactly one",
    );
    check_parse_error(
        &format!("{HEAD}[[constant]]\nname = \"c\"\ntype = \"f32\"\nlen = \"a $ b\"\n"),
        Location::Key("constant[0].len".into()),
        "column 3",
    );
}

fn p(v: i64) -> ParamValue {
    ParamValue::Int(v)
}

#[test]
fn launch_defaults_follow_kernel_tuner() {
    let exp = parse(&format!(
        "{HEAD}include_dirs = [\"inc\"]\n[[arg]]\nname = \"n\"\ntype = \"i32\"\nvalue = \"n_items*2\"\n[[arg]]\nname = \"s\"\ntype = \"f32\"\nvalue = 2\n[[arg]]\nname = \"x\"\ntype = \"f32*\"\nlen = 10\ninit = {{ formula = \"i / 4 + n_items\" }}\n"
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    // No block-size parameters: Kernel Tuner's block (256, 1, 1); the grid
    // divides by the block-size parameters, absent -> 1: ceil(1000/1) = 1000.
    let n_items = p(3);
    let launch = exp
        .launch(&[("n_items", &n_items)])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(launch.block, [256, 1, 1]);
    assert_eq!(launch.grid, [1000, 1, 1]);
    assert_eq!(launch.source, validate::SourceFiles::single("/base/k.cu"));
    assert_eq!(
        launch.include_dirs,
        vec![Path::new("/base/inc").to_path_buf()]
    );
    assert_eq!(
        launch.args[0],
        LaunchArg::Scalar {
            name: "n".into(),
            ty: ScalarType::I32,
            value: ScalarValue::Int(6)
        }
    );
    assert_eq!(
        launch.args[1],
        LaunchArg::Scalar {
            name: "s".into(),
            ty: ScalarType::F32,
            value: ScalarValue::Float(2.0)
        }
    );
    // i/4 + 3 in reals: 3, 3.25, 3.5, ...
    let LaunchArg::Buffer {
        init: Init::Values(v),
        ..
    } = &launch.args[2]
    else {
        panic!("formula")
    };
    assert_eq!(v.len(), 10);
    assert_eq!((v[0], v[1], v[9]), (3.0, 3.25, 5.25));

    // With block_size_x = 128 and no grid_div: ceil(1000/128) = 8.
    let b = p(128);
    let launch = exp
        .launch(&[("block_size_x", &b), ("n_items", &n_items)])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((launch.grid, launch.block), ([8, 1, 1], [128, 1, 1]));
    assert_eq!(
        launch.compile_key(),
        exp.launch(&[("block_size_x", &b), ("n_items", &n_items)])
            .map(|l| l.compile_key())
            .unwrap_or_default()
    );
}

/// Launching with `params` fails at key `key` with `needle` in the message.
fn check_launch_error(extra: &str, params: &[(&str, &ParamValue)], key: &str, needle: &str) {
    let exp = parse(&format!("{HEAD}{extra}")).unwrap_or_else(|e| panic!("{e}"));
    match exp.launch(params) {
        Ok(l) => panic!("expected an error, got {l:?}"),
        Err(e) => {
            assert_eq!(e.at, Location::Key(key.into()), "{e}");
            assert!(e.message.contains(needle), "{e}");
        }
    }
}

#[test]
fn launch_errors_name_their_key() {
    let zero = p(0);
    let neg = p(-4);
    let text = ParamValue::Str("fast".into());
    check_launch_error(
        "grid_div = [\"tile\"]\n",
        &[],
        "grid_div[0]",
        "unknown integer name `tile`",
    );
    check_launch_error(
        "grid_div = [\"tile\"]\n",
        &[("tile", &zero)],
        "grid_div[0]",
        "not positive",
    );
    check_launch_error(
        "grid_div = [\"8/tile\"]\n",
        &[("tile", &zero)],
        "grid_div[0]",
        "division by zero",
    );
    check_launch_error(
        "",
        &[("block_size_x", &zero)],
        "block (block_size_x)",
        "not a positive size",
    );
    check_launch_error(
        "",
        &[("block_size_y", &text)],
        "block (block_size_y)",
        "not an integer",
    );
    check_launch_error(
        "[[arg]]\nname = \"a\"\ntype = \"f32*\"\nlen = \"n\"\n",
        &[("n", &neg)],
        "arg[0].len",
        "expected >= 0",
    );
    check_launch_error(
        "[[arg]]\nname = \"a\"\ntype = \"f32*\"\nlen = \"n\"\n",
        &[("n", &text)],
        "arg[0].len",
        "unknown integer name `n`",
    );
    check_launch_error(
        "[[arg]]\nname = \"a\"\ntype = \"f32*\"\nlen = 4\ninit = { formula = \"1/(i-2)\" }\n",
        &[],
        "arg[0].init",
        "division by zero",
    );
    check_launch_error(
        "[[arg]]\nname = \"a\"\ntype = \"f32*\"\nlen = \"1024*1024*1024\"\ninit = { formula = \"i\" }\n",
        &[],
        "arg[0].init",
        "too many",
    );
}

#[test]
fn kernel_tuner_keys_are_checked() {
    let body = "kernel = \"k\"\nproblem_size = [1000]\n";
    check_parse_error(
        &format!("source = []\n{body}"),
        Location::Key("source".into()),
        "non-empty list",
    );
    check_parse_error(
        &format!("{HEAD}block_size_names = []\n"),
        Location::Key("block_size_names".into()),
        "1 to 3 names",
    );
    check_parse_error(
        &format!("{HEAD}block_size_names = [\"MDIMC\", \"N DIMC\"]\n"),
        Location::Key("block_size_names[1]".into()),
        "not a parameter name",
    );
    check_parse_error(
        &format!("{HEAD}restrictions = [\"a % b == 0\", \"a <\"]\n"),
        Location::Key("restrictions[1]".into()),
        "`a <`",
    );
    check_parse_error(
        &format!("{HEAD}[[arg]]\nname = \"n\"\ntype = \"i32\"\nvalue = 1\nhost_mapped = true\n"),
        Location::Key("arg[0].host_mapped".into()),
        "only a buffer",
    );
    check_parse_error(
        &format!("{HEAD}replace = [{{ from = \"\", to = \"x\" }}]\n"),
        Location::Key("replace[0].from".into()),
        "empty",
    );
}

#[test]
fn kernel_tuner_keys_shape_the_launch() {
    let text = "source = [\"a.cl\", \"b.cl\"]\nheader = \"h.h\"\nkernel = \"k\"\n\
        problem_size = [64, 32]\nblock_size_names = [\"MDIMC\", \"NDIMC\"]\n\
        restrictions = [\"MWG % MDIMC == 0\", \"NDIMC <= 16 and MWG // 2 >= 8\"]\n\
        [[arg]]\nname = \"x\"\ntype = \"f64*\"\nlen = 10\nhost_mapped = true\n";
    let e = parse(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(e.source.main, Path::new("/base/a.cl"));
    assert_eq!(e.source.more, [Path::new("/base/b.cl")]);
    assert_eq!(e.source.header.as_deref(), Some(Path::new("/base/h.h")));
    assert_eq!(e.block_size_names, ["MDIMC", "NDIMC", "block_size_z"]);
    let cases: [(i64, i64, i64, bool); 4] = [
        (32, 8, 8, true),
        (32, 8, 32, false), // NDIMC > 16
        (24, 16, 8, false), // 24 % 16
        (8, 8, 8, false),   // 8 // 2 < 8
    ];
    for (mwg, mdimc, ndimc, ok) in cases {
        let v = [p(mwg), p(mdimc), p(ndimc)];
        let params = [("MWG", &v[0]), ("MDIMC", &v[1]), ("NDIMC", &v[2])];
        assert_eq!(
            e.admits(&params),
            Ok(ok),
            "MWG={mwg} MDIMC={mdimc} NDIMC={ndimc}"
        );
        let launch = e.launch(&params).unwrap_or_else(|e| panic!("{e}"));
        // Block from the named parameters; the grid divides by them too.
        assert_eq!(launch.block, [mdimc as u64, ndimc as u64, 1]);
        assert_eq!(
            launch.grid,
            [
                64u64.div_ceil(mdimc as u64),
                32u64.div_ceil(ndimc as u64),
                1
            ]
        );
        assert_eq!(launch.args[0].host_mapped_bytes(), 80);
    }
    // A restriction reading a name the configuration lacks is an error.
    let v = p(1);
    let err = e.admits(&[("MWG", &v)]).expect_err("MDIMC is missing");
    assert_eq!(err.at, Location::Key("restrictions[0]".into()));
}

#[test]
fn sources_are_concatenated_after_the_header_and_edited() {
    let dir = std::env::temp_dir().join(format!("ptxperf-exp-src-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("h.h"), "#define H 1").expect("write");
    std::fs::write(dir.join("a.cl"), "__local T* p;\n").expect("write");
    std::fs::write(dir.join("b.cl"), "__local T q[4];\n").expect("write");
    let load = |extra: &str| {
        let text =
            format!("source = [\"a.cl\", \"b.cl\"]\nkernel = \"k\"\nproblem_size = [1]\n{extra}");
        Experiment::parse("e.toml", &text, &dir, "e").unwrap_or_else(|e| panic!("{e}"))
    };
    let plain = load("").source.read().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(plain, "__local T* p;\n__local T q[4];\n");
    let edited = load("header = \"h.h\"\nreplace = [{ from = \"__local T*\", to = \"T*\" }]\n")
        .source
        .read()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(edited, "#define H 1\n#line 1\nT* p;\n__local T q[4];\n");
    let unmatched = load("replace = [{ from = \"__global\", to = \"\" }]\n")
        .source
        .read();
    match unmatched {
        Err(e @ validate::ReadSourceError::Unmatched { index: 0, .. }) => {
            assert!(e.to_string().contains("`__global` occurs nowhere"), "{e}")
        }
        other => panic!("expected Unmatched, got {other:?}"),
    }
    let missing = load("header = \"nope.h\"\n").source.read();
    assert!(
        matches!(&missing, Err(validate::ReadSourceError::Read { path, .. }) if path.ends_with("nope.h")),
        "{missing:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
