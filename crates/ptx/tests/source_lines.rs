//! CUDA source lines from `.file` and `.loc` (`ptx::analysis::SourceLines`):
//! each case is a kernel body and, per instruction, the `file:line` it maps
//! to (`-` for none).

use ptx::analysis::SourceLines;

fn module(files: &str, body: &str) -> String {
    format!(
        ".version 7.8\n.target sm_80\n.address_size 64\n{files}\n\
         .visible .entry k(.param .u64 p)\n{{\n.reg .b32 %r<4>;\n{body}\n}}\n"
    )
}

/// Parse the module and compare the line of each instruction of `k` with `expect`.
fn check(files: &str, body: &str, expect: &[&str]) {
    let text = module(files, body);
    let m = ptx::parse("t.ptx", &text).unwrap_or_else(|d| panic!("{}", d.render("t.ptx", &text)));
    let lines = SourceLines::of(&m);
    let got: Vec<String> = lines
        .function(0)
        .iter()
        .map(|l| {
            l.map_or("-".to_string(), |l| {
                format!("{}:{}", lines.file_name(l), l.line)
            })
        })
        .collect();
    assert_eq!(got, expect, "body:\n{body}");
}

#[test]
fn no_line_info() {
    check("", "mov.u32 %r1, 1;\nret;", &["-", "-"]);
}

#[test]
fn loc_applies_until_the_next() {
    check(
        ".file 1 \"k.cu\"",
        "mov.u32 %r1, 1;\n.loc 1 7 3\nmov.u32 %r2, 2;\nadd.s32 %r3, %r1, %r2;\n.loc 1 9 1\nret;",
        &["-", "k.cu:7", "k.cu:7", "k.cu:9"],
    );
}

#[test]
fn line_zero_is_no_line() {
    check(
        ".file 1 \"k.cu\"",
        ".loc 1 4 1\nmov.u32 %r1, 1;\n.loc 1 0 5\nmov.u32 %r2, 2;\n.loc 1 5 1\nret;",
        &["k.cu:4", "-", "k.cu:5"],
    );
}

#[test]
fn several_files_with_timestamps() {
    check(
        ".file 1 \"dir/k.cu\"\n.file 2 \"dir/k.h\", 1700000000, 321",
        ".loc 2 12 9\nmov.u32 %r1, 1;\n.loc 1 30 2\nret;",
        &["dir/k.h:12", "dir/k.cu:30"],
    );
}

#[test]
fn file_numbers_need_not_start_at_one() {
    check(
        ".file 3 \"c.cu\"\n.file 5 \"d.cu\"",
        ".loc 5 2 1\nmov.u32 %r1, 1;\n.loc 3 8 1\nret;",
        &["d.cu:2", "c.cu:8"],
    );
}

#[test]
fn inlined_loc_names_the_callee_line() {
    check(
        ".file 1 \"k.cu\"",
        ".loc 1 20 5, function_name $L__info_string0, inlined_at 1 40 3\nmov.u32 %r1, 1;\n.loc 1 41 1\nret;",
        &["k.cu:20", "k.cu:41"],
    );
}

/// NVRTC's `tex1Dfetch<float>`: its body sits in the built-in header, two
/// levels deep (4584 inlined at 4590, inlined at the kernel's line 3).
const TEX_FILES: &str = ".file 1 \"t.cu\"\n.file 2 \"<builtin>/__nv_nvrtc_builtin_header.h\"";
const TEX_BODY: &str = ".loc 1 3 5\nmov.u32 %r1, 1;\n\
    .loc 2 4590 1, function_name $L__info_string0, inlined_at 1 3 5\n\
    .loc 2 4584 1, function_name $L__info_string1, inlined_at 2 4590 1\n\
    mov.u32 %r2, 2;\n.loc 1 4 1\nret;";

#[test]
fn code_of_nvrtcs_builtin_header_is_given_its_call_site() {
    check(TEX_FILES, TEX_BODY, &["t.cu:3", "t.cu:3", "t.cu:4"]);
    // One level: the call site of the inlined_at.
    check(
        TEX_FILES,
        ".loc 2 77 1, function_name $L__info_string0, inlined_at 1 9 2\nmov.u32 %r1, 1;\nret;",
        &["t.cu:9", "t.cu:9"],
    );
    // A chain that never leaves the header keeps the header's line.
    check(
        TEX_FILES,
        ".loc 2 77 1, function_name $L__info_string0, inlined_at 2 80 2\nmov.u32 %r1, 1;\nret;",
        &["<builtin>/__nv_nvrtc_builtin_header.h:77"; 2],
    );
    // A header a user can open keeps its own line.
    check(
        ".file 1 \"t.cu\"\n.file 2 \"include/cuda_fp16.hpp\"",
        ".loc 2 4590 1, function_name $L__info_string0, inlined_at 1 3 5\n\
         .loc 2 4584 1, function_name $L__info_string1, inlined_at 2 4590 1\n\
         mov.u32 %r1, 1;\nret;",
        &["include/cuda_fp16.hpp:4584"; 2],
    );
}

#[test]
fn a_chain_of_inlined_locs_prints_and_parses_back_the_same() {
    let text = module(TEX_FILES, TEX_BODY);
    let m = ptx::parse("t.ptx", &text).unwrap_or_else(|d| panic!("{}", d.render("t.ptx", &text)));
    let printed = m.to_string();
    assert!(
        printed.contains(".loc 2 4590 1, function_name $L__info_string0, inlined_at 1 3 5"),
        "{printed}"
    );
    let again = ptx::parse("printed.ptx", &printed)
        .unwrap_or_else(|d| panic!("{}", d.render("printed.ptx", &printed)));
    assert!(again == m, "{printed}");
    assert_eq!(again.to_string(), printed);
}

#[test]
fn a_loc_inlined_at_itself_over_and_over_stays_bounded() {
    // `.loc`s that name each other's position as their call site, one that
    // names its own, and a run of 2,000 each inlined at the one before: the
    // chain must not grow with the number of directives (nor overflow the
    // stack), and the module must print and parse back the same.
    let mut body = String::new();
    for _ in 0..2000 {
        body.push_str(".loc 1 5 1, function_name $L__info_string0, inlined_at 1 6 1\n");
        body.push_str(".loc 1 6 1, function_name $L__info_string0, inlined_at 1 5 1\n");
        body.push_str(".loc 1 7 1, function_name $L__info_string0, inlined_at 1 7 1\n");
        body.push_str(".loc 1 6 1, function_name $L__info_string0, inlined_at 1 5 1\n");
    }
    body.push_str("mov.u32 %r1, 1;\n");
    for k in 0..2000 {
        body.push_str(&format!(
            ".loc 1 {} 1, function_name $L__info_string0, inlined_at 1 {k} 1\n",
            k + 1
        ));
    }
    body.push_str("mov.u32 %r1, 1;\n");
    body.push_str("ret;");
    let text = module(".file 1 \"k.cu\"", &body);
    let m = ptx::parse("t.ptx", &text).unwrap_or_else(|d| panic!("{}", d.render("t.ptx", &text)));
    let (_, f) = m.entries().next().expect("kernel");
    let deepest = f
        .instructions
        .iter()
        .filter_map(|(_, i)| i.loc.as_ref())
        .map(|l| l.inline_depth())
        .max();
    assert!(deepest.is_some_and(|d| d <= 33), "{deepest:?}");
    let printed = m.to_string();
    let again = ptx::parse("printed.ptx", &printed).expect("reparses");
    assert!(again == m);
}

#[test]
fn corpus_kernel_maps_to_its_cu_lines() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let path = root.join("kernels/bank_conflicts/sm_80.ptx");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let m = ptx::parse("sm_80.ptx", &text)
        .unwrap_or_else(|d| panic!("{}", d.render("sm_80.ptx", &text)));
    let lines = SourceLines::of(&m);
    assert_eq!(lines.files, ["kernels/bank_conflicts/bank_conflicts.cu"]);
    // The shared store `S[(threadIdx.x * BANK) % 512] = v;` is line 44.
    let (fi, f) = m
        .functions
        .iter()
        .enumerate()
        .map(|(i, (_, f))| (i, f))
        .next()
        .expect("a function");
    let store = f
        .instructions
        .iter()
        .position(|(_, i)| ptx::analysis::class_of(i) == ptx::analysis::InstClass::StShared)
        .expect("a shared store");
    let l = lines.get(fi, store).expect("the store has a line");
    assert_eq!(
        (lines.file_name(l), l.line),
        ("kernels/bank_conflicts/bank_conflicts.cu", 44)
    );
}
