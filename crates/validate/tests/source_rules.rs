//! Kernel Tuner's define prefix and its loop_unroll_factor rule
//! (kernel_tuner 1.5.0 util.prepare_kernel_string).

use validate::ParamValue;
use validate::source::{
    Define, defines_read_by, drop_unroll_pragmas, instantiate_source, kernel_tuner_defines,
};

fn check_classify(name: &str, value: &str, expected: Define) {
    assert_eq!(Define::classify(name, value), expected);
}

#[test]
fn loop_unroll_factor_names_become_constexpr_or_drop_the_pragma() {
    check_classify(
        "loop_unroll_factor_channel",
        "0",
        Define::DropUnrollPragma {
            name: "loop_unroll_factor_channel".into(),
        },
    );
    check_classify(
        "loop_unroll_factor_x",
        "4",
        Define::Constexpr {
            name: "loop_unroll_factor_x".into(),
            value: "4".into(),
        },
    );
    // The rule is "contains", not "starts with".
    check_classify(
        "my_loop_unroll_factor",
        "2",
        Define::Constexpr {
            name: "my_loop_unroll_factor".into(),
            value: "2".into(),
        },
    );
    // Only the exact string "0" drops: "00" is a constexpr like any other value.
    check_classify(
        "loop_unroll_factor_x",
        "00",
        Define::Constexpr {
            name: "loop_unroll_factor_x".into(),
            value: "00".into(),
        },
    );
    check_classify(
        "block_size_x",
        "0",
        Define::Macro {
            name: "block_size_x".into(),
            value: "0".into(),
        },
    );
    check_classify(
        "unroll",
        "0",
        Define::Macro {
            name: "unroll".into(),
            value: "0".into(),
        },
    );
}

/// `drop_unroll_pragmas(source, name)` must give `expected`.
fn check_drop(source: &str, name: &str, expected: &str) {
    assert_eq!(
        drop_unroll_pragmas(source, name),
        expected,
        "source {source:?}"
    );
}

#[test]
fn drop_follows_the_regex_newline_space_pragma_unroll_name() {
    let n = "loop_unroll_factor_channel";
    check_drop(
        "a\n    #pragma unroll loop_unroll_factor_channel\n    for (;;) {}\n",
        n,
        "a\n\n    for (;;) {}\n",
    );
    // Tabs and several spaces between the words.
    check_drop(
        "a\n\t#pragma\tunroll   loop_unroll_factor_channel\nb",
        n,
        "a\n\nb",
    );
    // \s* before '#' spans blank lines: they go with the match.
    check_drop(
        "a\n\n  \n#pragma unroll loop_unroll_factor_channel\nb",
        n,
        "a\n\nb",
    );
    // Every occurrence goes.
    check_drop(
        "x\n#pragma unroll loop_unroll_factor_channel\ny\n#pragma unroll loop_unroll_factor_channel\nz",
        n,
        "x\n\ny\n\nz",
    );
    // Commented out, another name, a bare unroll, or no newline before: kept.
    check_drop(
        "a\n//    #pragma unroll loop_unroll_factor_channel\nb",
        n,
        "a\n//    #pragma unroll loop_unroll_factor_channel\nb",
    );
    check_drop(
        "a\n#pragma unroll loop_unroll_factor_x\nb",
        n,
        "a\n#pragma unroll loop_unroll_factor_x\nb",
    );
    check_drop("a\n#pragma unroll\nb", n, "a\n#pragma unroll\nb");
    check_drop(
        "#pragma unroll loop_unroll_factor_channel\nb",
        n,
        "#pragma unroll loop_unroll_factor_channel\nb",
    );
    check_drop(
        "a\n#pragmaunroll loop_unroll_factor_channel\nb",
        n,
        "a\n#pragmaunroll loop_unroll_factor_channel\nb",
    );
    // Only the matched prefix goes: what follows the name stays, as with re.sub.
    check_drop(
        "a\n#pragma unroll loop_unroll_factor_channel2\nb",
        n,
        "a\n2\nb",
    );
    check_drop("", n, "");
}

#[test]
fn instantiate_puts_the_prefix_and_line_directive_in_front() {
    let defines = vec![
        Define::Macro {
            name: "block_size_x".into(),
            value: "32".into(),
        },
        Define::Constexpr {
            name: "loop_unroll_factor_x".into(),
            value: "4".into(),
        },
        Define::DropUnrollPragma {
            name: "loop_unroll_factor_y".into(),
        },
        Define::Macro {
            name: "kernel_tuner".into(),
            value: "1".into(),
        },
    ];
    let src = "k\n  #pragma unroll loop_unroll_factor_y\n  #pragma unroll loop_unroll_factor_x\n";
    assert_eq!(
        instantiate_source(src, &defines),
        "#define block_size_x 32\nconstexpr int loop_unroll_factor_x = 4;\n#define kernel_tuner 1\n#line 1\nk\n\n  #pragma unroll loop_unroll_factor_x\n"
    );
    // Nothing to define: the source is untouched, no #line.
    assert_eq!(instantiate_source(src, &[]), src);
    // A value with a newline becomes a line continuation.
    let multi = vec![Define::Macro {
        name: "m".into(),
        value: "a\nb".into(),
    }];
    assert_eq!(
        instantiate_source("", &multi),
        "#define m a\\\nb\n#line 1\n"
    );
}

#[test]
fn defines_come_in_kernel_tuners_order() {
    let (bx, t, u, g) = (
        ParamValue::Int(64),
        ParamValue::Int(2),
        ParamValue::Int(0),
        ParamValue::Str("fast".into()),
    );
    let params = [
        ("tile", &t),
        ("block_size_x", &bx),
        ("loop_unroll_factor_k", &u),
        ("mode", &g),
    ];
    let defines = kernel_tuner_defines(
        [10, 20, 1],
        [64, 1, 1],
        ["block_size_x", "block_size_y", "block_size_z"],
        &params,
    );
    let names: Vec<&str> = defines.iter().map(Define::name).collect();
    // block_size_x keeps its place after the grid, though it is second among the parameters.
    assert_eq!(
        names,
        [
            "grid_size_x",
            "grid_size_y",
            "grid_size_z",
            "block_size_x",
            "block_size_y",
            "block_size_z",
            "tile",
            "loop_unroll_factor_k",
            "mode",
            "kernel_tuner"
        ]
    );
    let lines: String = defines.iter().filter_map(Define::prefix_line).collect();
    assert_eq!(
        lines,
        "#define grid_size_x 10\n#define grid_size_y 20\n#define grid_size_z 1\n#define block_size_x 64\n#define block_size_y 1\n#define block_size_z 1\n#define tile 2\n#define mode fast\n#define kernel_tuner 1\n"
    );
}

/// The names of the defines `defines_read_by` keeps for `text`, of
/// `#define`s `a`, `use_shmem`, `kernel_tuner`, a constexpr
/// `loop_unroll_factor_t` and a dropped unroll pragma `loop_unroll_factor_x`.
fn check_read_by(text: &str, expect: &[&str]) {
    let defines = vec![
        Define::classify("a", "1"),
        Define::classify("use_shmem", "0"),
        Define::classify("kernel_tuner", "1"),
        Define::classify("loop_unroll_factor_t", "2"),
        Define::classify("loop_unroll_factor_x", "0"),
    ];
    let kept: Vec<String> = defines_read_by(text, &defines)
        .into_iter()
        .map(|d| match d {
            Define::Macro { name, .. }
            | Define::Constexpr { name, .. }
            | Define::DropUnrollPragma { name } => name,
        })
        .collect();
    assert_eq!(kept, expect, "for {text:?}");
}

#[test]
fn defines_the_source_never_spells_leave_the_compiled_text() {
    let kept_always = "loop_unroll_factor_x";
    check_read_by("int x = a;", &["a", kept_always]);
    check_read_by(
        "#pragma unroll loop_unroll_factor_t\nfor (;;) {} // a",
        &["a", "loop_unroll_factor_t", kept_always],
    );
    check_read_by(
        "#ifdef kernel_tuner\n#endif",
        &["kernel_tuner", kept_always],
    );
    // A name inside a longer one is not spelled; a run inside a number is
    // taken as one (the `a` of `2a`), which only keeps more.
    check_read_by("int use_shmem_x = ba;", &[kept_always]);
    check_read_by("int x = 2a;", &["a", kept_always]);
    // In a comment or a string it counts (that only keeps more).
    check_read_by("/* use_shmem */ \"a\"", &["a", "use_shmem", kept_always]);
    // An include or token pasting could spell anything: every define stays.
    let all = [
        "a",
        "use_shmem",
        "kernel_tuner",
        "loop_unroll_factor_t",
        kept_always,
    ];
    check_read_by("#include \"k.h\"\nint x;", &all);
    check_read_by("#define CAT(x, y) x##y\nint z;", &all);
}

/// Two configurations that differ in a parameter the source never reads
/// compile the same text: the PTX cache serves the second.
#[test]
fn twins_in_an_unread_parameter_instantiate_alike() {
    let text = "__global__ void k(float *o) { o[0] = block_size_x; }\n";
    let twin = |shmem: i64| {
        let values = [ParamValue::Int(32), ParamValue::Int(shmem)];
        let params = [("block_size_x", &values[0]), ("use_shmem", &values[1])];
        let defines = kernel_tuner_defines(
            [4, 1, 1],
            [32, 1, 1],
            ["block_size_x", "block_size_y", "block_size_z"],
            &params,
        );
        instantiate_source(text, &defines_read_by(text, &defines))
    };
    assert_eq!(twin(0), twin(1));
    assert!(
        twin(0).starts_with("#define block_size_x 32\n#line 1\n"),
        "{}",
        twin(0)
    );
}
