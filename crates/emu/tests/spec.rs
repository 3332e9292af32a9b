//! Launch spec parsing: expressions, every field, every init, and errors
//! with file:line:col.

use std::path::Path;

use emu::spec::expr::eval;
use emu::spec::{ArgSpec, DefineValue, Init, LaunchSpec, Number, ScalarType, SourceKind, parse};

fn check_expr(text: &str, expected: Result<i64, &str>) {
    let lookup = |n: &str| match n {
        "N" => Some(64),
        "M" => Some(3),
        "BIG" => Some(i64::MAX),
        _ => None,
    };
    let got = eval(text, &lookup).map_err(|e| e.message);
    match expected {
        Ok(v) => assert_eq!(got, Ok(v), "{text}"),
        Err(msg) => {
            let err = got.expect_err(text);
            assert!(err.contains(msg), "{text}: {err} lacks {msg}");
        }
    }
}

#[test]
fn expressions() {
    check_expr("42", Ok(42));
    check_expr("0x10", Ok(16));
    check_expr("1_000", Ok(1000));
    check_expr("N*N", Ok(4096));
    check_expr("N * N + 1", Ok(4097));
    check_expr("1 + 2 * 3", Ok(7));
    check_expr("(1 + 2) * 3", Ok(9));
    check_expr("N / M", Ok(21));
    check_expr("N % M", Ok(1));
    check_expr("-N + 1", Ok(-63));
    check_expr("--3", Ok(3));
    check_expr("+5", Ok(5));
    check_expr("10 - 3 - 2", Ok(5));
    check_expr("100 / 10 / 5", Ok(2));
    check_expr("((N))", Ok(64));
    check_expr("N/0", Err("division by zero"));
    check_expr("N%0", Err("division by zero"));
    check_expr("BIG + 1", Err("overflow"));
    check_expr("BIG * 2", Err("overflow"));
    check_expr("K", Err("unknown define `K`"));
    check_expr("", Err("empty"));
    check_expr("1 +", Err("ends too early"));
    check_expr("(1", Err("unclosed"));
    check_expr("1 2", Err("unexpected number `2`"));
    check_expr("1 $ 2", Err("unexpected character `$`"));
    check_expr("12abc", Err("bad number `12abc`"));
    check_expr(&"(".repeat(200), Err("nested deeper"));
}

#[test]
fn expression_error_offsets() {
    let err = eval("1 + K", &|_| None).expect_err("unknown");
    assert_eq!(err.offset, 4);
}

const BASE: &str = r#"
source = "k.ptx"
kernel = "k"
grid = [2]
block = [32]
"#;

fn parse_ok(extra: &str) -> LaunchSpec {
    let text = format!("{BASE}{extra}");
    match parse(&text, Path::new("dir/spec.toml"), &[]) {
        Ok(s) => s,
        Err(e) => panic!("{e}\n{text}"),
    }
}

/// Parse `text` (a whole spec) and check the error's line, column and message.
fn check_err(text: &str, line: usize, col: usize, msg: &str) {
    let err = parse(text, Path::new("s.toml"), &[]).expect_err(text);
    assert_eq!((err.line, err.col), (line, col), "{err}");
    assert!(err.message.contains(msg), "{err} lacks {msg}");
    assert!(
        err.to_string()
            .starts_with(&format!("s.toml:{line}:{col}: error: ")),
        "{err}"
    );
}

fn base_with(extra: &str) -> String {
    format!("{BASE}{extra}")
}

#[test]
fn minimal_spec() {
    let s = parse_ok("");
    assert_eq!(s.source, Path::new("dir/k.ptx"));
    assert_eq!(s.source_kind, SourceKind::Ptx);
    assert_eq!(s.kernel, "k");
    assert_eq!(s.grid, [2, 1, 1]);
    assert_eq!(s.block, [32, 1, 1]);
    assert_eq!(s.dynamic_shared, 0);
    assert_eq!(s.ctas(), 2);
    assert_eq!(s.threads_per_cta(), 32);
    assert!(s.args.is_empty() && s.constants.is_empty() && s.arch.is_none() && s.fuel.is_none());
}

#[test]
fn design_example() {
    let text = r#"
source = "saxpy.cu"
kernel = "saxpy"
defines = { N = 4096 }
arch = "sm_80"
grid = ["N/256", 1, 1]
block = [256, 1, 1]
dynamic_shared = 0

[[arg]]
name = "a"
type = "f32"
value = 2.0

[[arg]]
name = "x"
type = "f32*"
len = "N"
init = "iota"

[[constant]]
name = "d_filter"
type = "f32"
len = 225
init = { random = { seed = 7, lo = 0.0, hi = 1.0 } }
"#;
    let s = parse(text, Path::new("saxpy.toml"), &[]).expect("parses");
    assert_eq!(s.source_kind, SourceKind::Cuda);
    assert_eq!(s.grid, [16, 1, 1]);
    assert_eq!(s.arch.as_deref(), Some("sm_80"));
    assert_eq!(s.define("N"), Some(4096));
    assert_eq!(
        s.args[0],
        ArgSpec::Scalar {
            name: "a".into(),
            ty: ScalarType::F32,
            value: Number::Float(2.0)
        }
    );
    let ArgSpec::Buffer(x) = &s.args[1] else {
        panic!("x is a buffer")
    };
    assert_eq!(
        (x.len, x.elem, &x.init),
        (4096, ScalarType::F32, &Init::Iota)
    );
    assert_eq!(s.constants[0].len, 225);
    assert_eq!(
        s.constants[0].init,
        Init::Random {
            seed: 7,
            lo: Number::Float(0.0),
            hi: Number::Float(1.0)
        }
    );
}

#[test]
fn every_scalar_type() {
    for t in ScalarType::ALL {
        let s = parse_ok(&format!(
            "[[arg]]\nname = \"v\"\ntype = \"{}\"\nvalue = 3\n",
            t.name()
        ));
        assert_eq!(
            s.args[0],
            ArgSpec::Scalar {
                name: "v".into(),
                ty: t,
                value: Number::Int(3)
            }
        );
        let s = parse_ok(&format!(
            "[[arg]]\nname = \"p\"\ntype = \"{}*\"\nlen = 4\n",
            t.name()
        ));
        let ArgSpec::Buffer(b) = &s.args[0] else {
            panic!("buffer")
        };
        assert_eq!((b.elem, b.len, b.bytes()), (t, 4, 4 * t.size() as u64));
    }
}

#[test]
fn dims_and_defines() {
    let s = parse_ok("defines = { N = 8, M = \"N*2\", L = \"M+N\", F = 1.5, T = \"1.5f\" }\n");
    assert_eq!(s.define("M"), Some(16));
    assert_eq!(s.define("L"), Some(24));
    assert_eq!(s.define("F"), None);
    let t = s
        .defines
        .iter()
        .find(|(n, _)| n == "T")
        .map(|(_, v)| v.clone());
    assert_eq!(t, Some(DefineValue::Text("1.5f".into())));
    let text = "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [4, 3, 2]\nblock = [8, \"2*2\"]\n";
    let s = parse(text, Path::new("s.toml"), &[]).expect("parses");
    assert_eq!((s.grid, s.block), ([4, 3, 2], [8, 4, 1]));
}

#[test]
fn set_overrides_defines() {
    let text =
        base_with("defines = { N = 8 }\n[[arg]]\nname = \"x\"\ntype = \"u32*\"\nlen = \"N*N\"\n");
    let over = vec![("N".to_string(), "16".to_string())];
    let s = parse(&text, Path::new("s.toml"), &over).expect("parses");
    let ArgSpec::Buffer(b) = &s.args[0] else {
        panic!("buffer")
    };
    assert_eq!(b.len, 256);
    // A new define by --set, and a text one.
    let over = vec![
        ("NEW".to_string(), "3*3".to_string()),
        ("S".to_string(), "abc".to_string()),
    ];
    let s = parse(&text, Path::new("s.toml"), &over).expect("parses");
    assert_eq!(s.define("NEW"), Some(9));
    assert_eq!(s.define("S"), None);
}

#[test]
fn inits() {
    let cases = [
        ("init = \"zeros\"", Init::Zeros),
        ("init = \"iota\"", Init::Iota),
        ("init = { fill = 1.5 }", Init::Fill(Number::Float(1.5))),
        ("init = { fill = 7 }", Init::Fill(Number::Int(7))),
        ("init = { fill = \"3*3\" }", Init::Fill(Number::Int(9))),
        (
            "init = { random = { seed = 1, lo = -2, hi = 5 } }",
            Init::Random {
                seed: 1,
                lo: Number::Int(-2),
                hi: Number::Int(5),
            },
        ),
        (
            "init = { file = \"x.bin\" }",
            Init::File("dir/x.bin".into()),
        ),
        ("", Init::Zeros),
    ];
    for (line, want) in cases {
        let s = parse_ok(&format!(
            "[[arg]]\nname = \"x\"\ntype = \"f32*\"\nlen = 4\n{line}\n"
        ));
        let ArgSpec::Buffer(b) = &s.args[0] else {
            panic!("buffer")
        };
        assert_eq!(b.init, want, "{line}");
    }
}

/// A kernel source given where a launch spec goes: the TOML error says so
/// and points to the spec's documentation and the command that takes it.
fn check_source_given(file: &str, text: &str, msg: &str) {
    let err = parse(text, Path::new(file), &[]).expect_err(text);
    assert!(err.message.contains(msg), "{err} lacks {msg}");
    assert!(err.message.contains("docs/launch-spec.md"), "{err}");
    assert!(err.line >= 1, "{err} has no position");
}

#[test]
fn a_kernel_source_given_as_a_spec_says_so() {
    let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n";
    check_source_given("k.ptx", ptx, "this is PTX, not a launch spec");
    check_source_given("k.ptx", ptx, "`ptxperf check FILE.ptx`");
    let cu = "__global__ void k(float *x) { x[0] = 1.0f; }\n";
    check_source_given("k.cu", cu, "this is a kernel source, not a launch spec");
    check_source_given("k.cuh", cu, "`ptxperf compile FILE.cu`");
    // A spec file with a syntax error gets the parser's message alone.
    let err = parse("[launch\n", Path::new("k.toml"), &[]).expect_err("unclosed table");
    assert!(!err.message.contains("launch spec:"), "{err}");
}

#[test]
fn errors_have_positions() {
    check_err(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\n",
        1,
        1,
        "missing key `block`",
    );
    check_err(&base_with("bogus = 1\n"), 6, 1, "unknown key `bogus`");
    // An experiment file's key: the message says which command reads it.
    check_err(
        &base_with("problem_size = [4096]\n"),
        6,
        1,
        "looks like an experiment file",
    );
    check_err(
        &base_with("grid_div = [16]\n"),
        6,
        1,
        "`ptxperf tune --experiment FILE`",
    );
    check_err(&base_with("fuel = \"N\"\n"), 6, 9, "unknown define `N`");
    check_err(
        &base_with("dynamic_shared = \"1 + X\"\n"),
        6,
        23,
        "unknown define `X`",
    );
    check_err(
        "source = \"k.txt\"\nkernel = \"k\"\ngrid = [1]\nblock = [1]\n",
        1,
        10,
        "must end in .cu or .ptx",
    );
    check_err(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = []\nblock = [1]\n",
        3,
        8,
        "1 to 3 entries",
    );
    check_err(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1,1,1,1]\nblock = [1]\n",
        3,
        8,
        "1 to 3 entries",
    );
    check_err(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [0]\nblock = [1]\n",
        3,
        9,
        "out of range",
    );
    check_err(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [1024, 2]\n",
        4,
        9,
        "at most 1024",
    );
    check_err(
        &base_with("[[arg]]\nname = \"a\"\ntype = \"f33\"\nvalue = 1\n"),
        8,
        8,
        "unknown type `f33`",
    );
    check_err(
        &base_with("[[arg]]\nname = \"a\"\ntype = \"u8\"\nvalue = 300\n"),
        9,
        9,
        "out of range for type u8",
    );
    check_err(
        &base_with("[[arg]]\nname = \"a\"\ntype = \"i32\"\nvalue = 1.5\n"),
        9,
        9,
        "not an integer",
    );
    check_err(
        &base_with("[[arg]]\nname = \"a\"\ntype = \"f32*\"\n"),
        6,
        1,
        "missing key `len`",
    );
    check_err(
        &base_with("[[arg]]\nname = \"a\"\ntype = \"f32*\"\nlen = 1\nvalue = 2\n"),
        10,
        9,
        "not value",
    );
    check_err(
        &base_with("[[arg]]\nname = \"a\"\ntype = \"f32\"\nvalue = 1\nlen = 2\n"),
        10,
        7,
        "not len",
    );
    check_err(
        &base_with("[[arg]]\nname = \"a\"\ntype = \"f32*\"\nlen = 1\ninit = \"ones\"\n"),
        10,
        8,
        "unknown init `ones`",
    );
    check_err(
        &base_with("[[arg]]\nname = \"a\"\ntype = \"f32*\"\nlen = 1\ninit = { fil = 1 }\n"),
        10,
        10,
        "unknown init `fil`",
    );
    check_err(
        &base_with(
            "[[arg]]\nname = \"a\"\ntype = \"u8\"\nvalue = 1\n[[arg]]\nname = \"a\"\ntype = \"u8\"\nvalue = 2\n",
        ),
        10,
        1,
        "given twice",
    );
    check_err(
        &base_with("[[constant]]\nname = \"c\"\ntype = \"f32*\"\n"),
        8,
        8,
        "not a pointer",
    );
    check_err(
        &base_with("[[arg]]\nname = \"a\"\ntype = \"f32*\"\nlen = -1\n"),
        9,
        7,
        "out of range",
    );
    check_err(
        "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1\n",
        3,
        10,
        "unclosed array",
    );
}

#[test]
fn materialized_buffers() {
    let s = parse_ok("");
    let bytes = |t, n, init: Init| s.initial_bytes(t, n, &init).expect("materializes");
    assert_eq!(bytes(ScalarType::U8, 3, Init::Zeros), vec![0, 0, 0]);
    assert_eq!(
        bytes(ScalarType::U16, 3, Init::Iota),
        vec![0, 0, 1, 0, 2, 0]
    );
    assert_eq!(
        bytes(ScalarType::F32, 2, Init::Iota),
        [0f32.to_le_bytes(), 1f32.to_le_bytes()].concat()
    );
    assert_eq!(
        bytes(ScalarType::I32, 2, Init::Fill(Number::Int(-1))),
        vec![0xff; 8]
    );
    assert_eq!(
        bytes(ScalarType::F64, 1, Init::Fill(Number::Float(1.5))),
        1.5f64.to_le_bytes().to_vec()
    );
    assert_eq!(
        bytes(ScalarType::F16, 1, Init::Fill(Number::Float(1.0))),
        vec![0x00, 0x3c]
    );
    assert_eq!(
        bytes(ScalarType::BF16, 1, Init::Fill(Number::Float(1.0))),
        vec![0x80, 0x3f]
    );
    assert_eq!(
        bytes(ScalarType::U8, 300, Init::Iota)[257],
        1,
        "iota wraps at the element width"
    );
    // Random: deterministic, within bounds, seed-dependent.
    let r = |seed| {
        bytes(
            ScalarType::I32,
            1000,
            Init::Random {
                seed,
                lo: Number::Int(-3),
                hi: Number::Int(3),
            },
        )
    };
    assert_eq!(r(1), r(1));
    assert_ne!(r(1), r(2));
    let vals: Vec<i32> = r(1)
        .chunks(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert!(vals.iter().all(|v| (-3..3).contains(v)), "hi is exclusive");
    for v in -3..3 {
        assert!(vals.contains(&v), "{v} never drawn");
    }
    let f = bytes(
        ScalarType::F32,
        1000,
        Init::Random {
            seed: 5,
            lo: Number::Float(2.0),
            hi: Number::Float(4.0),
        },
    );
    assert!(
        f.chunks(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .all(|v| (2.0..=4.0).contains(&v))
    );
    // Errors.
    let bad = |t, init: Init| s.initial_bytes(t, 4, &init).expect_err("fails").message;
    assert!(bad(ScalarType::U8, Init::Fill(Number::Int(256))).contains("out of range"));
    assert!(
        bad(
            ScalarType::U8,
            Init::Random {
                seed: 0,
                lo: Number::Int(0),
                hi: Number::Int(257)
            }
        )
        .contains("out of range")
    );
    assert!(
        bad(
            ScalarType::U8,
            Init::Random {
                seed: 0,
                lo: Number::Int(3),
                hi: Number::Int(3)
            }
        )
        .contains("empty")
    );
    assert!(
        bad(
            ScalarType::F32,
            Init::Random {
                seed: 0,
                lo: Number::Float(2.0),
                hi: Number::Float(1.0)
            }
        )
        .contains("empty")
    );
    assert!(bad(ScalarType::F32, Init::File("/nonexistent/x.bin".into())).contains("cannot read"));
}

#[test]
fn file_init_checks_size() {
    let dir = std::env::temp_dir().join(format!("emu-spec-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("x.bin");
    std::fs::write(&file, [1u8, 2, 3, 4, 5, 6, 7, 8]).expect("write");
    let s = parse_ok("");
    assert_eq!(
        s.initial_bytes(ScalarType::U16, 4, &Init::File(file.clone()))
            .expect("reads"),
        vec![1, 2, 3, 4, 5, 6, 7, 8]
    );
    let err = s
        .initial_bytes(ScalarType::U16, 3, &Init::File(file))
        .expect_err("size");
    assert!(err.message.contains("holds 8 bytes"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn order_dependent_buffers() {
    let arg = |extra: &str| format!("[[arg]]\nname = \"f\"\ntype = \"i32*\"\nlen = 2\n{extra}");
    let flag = |s: &LaunchSpec| match &s.args[0] {
        ArgSpec::Buffer(b) => b.order_dependent,
        other => panic!("{other:?} is not a buffer"),
    };
    assert!(!flag(&parse_ok(&arg(""))));
    assert!(flag(&parse_ok(&arg("order_dependent = true\n"))));
    assert!(!flag(&parse_ok(&arg("order_dependent = false\n"))));
    check_err(
        &base_with(&arg("order_dependent = 1\n")),
        10,
        19,
        "expected true or false, found integer",
    );
    check_err(
        &base_with("[[arg]]\nname = \"n\"\ntype = \"i32\"\nvalue = 1\norder_dependent = true\n"),
        10,
        19,
        "a scalar argument takes value, not order_dependent",
    );
}

#[test]
fn host_mapped_buffers() {
    let arg = |extra: &str| format!("[[arg]]\nname = \"f\"\ntype = \"i32*\"\nlen = 2\n{extra}");
    let flag = |s: &LaunchSpec| match &s.args[0] {
        ArgSpec::Buffer(b) => b.host_mapped,
        other => panic!("{other:?} is not a buffer"),
    };
    assert!(!flag(&parse_ok(&arg(""))));
    assert!(flag(&parse_ok(&arg("host_mapped = true\n"))));
    assert!(!flag(&parse_ok(&arg("host_mapped = false\n"))));
    check_err(
        &base_with(&arg("host_mapped = \"yes\"\n")),
        10,
        15,
        "expected true or false, found string",
    );
    check_err(
        &base_with("[[arg]]\nname = \"n\"\ntype = \"i32\"\nvalue = 1\nhost_mapped = true\n"),
        10,
        15,
        "a scalar argument takes value, not host_mapped",
    );
}

/// The block and grid `spec` gives under each [`emu::spec::Limits`], or the
/// error's message.
fn check_limits(spec: &str, limits: emu::spec::Limits, expect: Result<([u32; 3], [u32; 3]), &str>) {
    let got = emu::spec::parse_with(spec, Path::new("s.toml"), &[], limits)
        .map(|s| (s.grid, s.block))
        .map_err(|e| e.message);
    match (&got, &expect) {
        (Ok(g), Ok(e)) => assert_eq!(g, e, "{spec}"),
        (Err(g), Err(e)) => assert!(g.contains(e), "{spec}: {g}"),
        _ => panic!("{spec}: {got:?}, wanted {expect:?}"),
    }
}

#[test]
fn unchecked_limits_leave_the_launch_shape_to_the_gpu() {
    use emu::spec::Limits::{Checked, Unchecked};
    let huge_block = "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [2048, 2]\n";
    check_limits(
        huge_block,
        Checked,
        Err("block has 4096 threads; at most 1024"),
    );
    check_limits(huge_block, Unchecked, Ok(([1, 1, 1], [2048, 2, 1])));
    let tall_grid = "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1, 70000]\nblock = [32]\n";
    check_limits(tall_grid, Checked, Err("grid exceeds the limits"));
    check_limits(tall_grid, Unchecked, Ok(([1, 70000, 1], [32, 1, 1])));
    // Other errors stay errors.
    let zero = "source = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [0]\n";
    check_limits(zero, Unchecked, Err(""));
}
