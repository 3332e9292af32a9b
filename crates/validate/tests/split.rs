//! The committed split (data/split.toml): roles by path, parts by hash, the
//! check fraction on real spaces, the same part on every GPU, and errors
//! with their place.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use validate::split::{Part, Role, Split};
use validate::{Dataset, import_dataset};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn committed() -> Split {
    Split::load(&repo().join("data/split.toml")).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_committed_split_parses_with_thirty_percent_check() {
    let s = committed();
    assert_eq!(s.check_percent, 30);
    assert_eq!(s.salt, "ptxperf split 2026-11-27");
}

fn check_role(path: &str, want: Role) {
    assert_eq!(committed().role_of(Path::new(path)), want, "{path}");
}

#[test]
fn roles_follow_the_dataset_paths() {
    check_role(
        "data/measured/h100-sxm5-80gb/convolution.json.gz",
        Role::Development,
    );
    check_role(
        "/abs/data/measured/h100-sxm5-80gb/vector_add.json",
        Role::Development,
    );
    check_role(
        "data/measured/h200-sxm-141gb/dedispersion.json.gz",
        Role::Check,
    );
    check_role(
        "../shared/data/groundtruth/kt-vector-add/test_cache_time_energy.json",
        Role::Development,
    );
    // A file named like a folder pattern is not in that folder.
    check_role("data/h200-sxm-141gb", Role::Split);
    check_role(
        "../shared/data/groundtruth/kt-gemm/KT_gemm_RTX_3090.json.gz",
        Role::Split,
    );
    check_role("test_cache_time_energy.json", Role::Split);
    check_role(
        "../shared/data/groundtruth/kt-pnpoly/KT_pnpoly_RTX_2080_Ti.json.gz",
        Role::Excluded,
    );
    check_role(
        "../shared/data/groundtruth/kt-pnpoly/KT_pnpoly_RTX_Titan.json.gz",
        Role::Excluded,
    );
    check_role(
        "../shared/data/groundtruth/kt-pnpoly/KT_pnpoly_RTX_3090.json.gz",
        Role::Split,
    );
}

#[test]
fn an_excluded_file_says_why_and_is_in_neither_part() {
    let s = committed();
    let titan = Path::new("../shared/data/groundtruth/kt-pnpoly/KT_pnpoly_RTX_Titan.json.gz");
    let why = s
        .exclusion(titan)
        .expect("the TITAN RTX pnpoly file is excluded");
    assert!(why.contains("2e7 points") && why.contains("PCIe"), "{why}");
    assert_eq!(
        s.exclusion(Path::new("kt-pnpoly/KT_pnpoly_RTX_3090.json.gz")),
        None
    );
    let text = r#"
salt = "s"
check_percent = 30
[[dataset]]
path = "bad.json"
role = "excluded"
why = "impossible times"
"#;
    let s = Split::parse(text, "split.toml").expect("parses");
    let d = import_dataset(&repo().join("data/measured/h100-sxm5-80gb/vector_add.json"))
        .unwrap_or_else(|e| panic!("{e}"));
    let row = &d.rows[0];
    assert_eq!(s.part_of(Path::new("x/bad.json"), &d, row), None);
    assert!(s.part_of(Path::new("x/good.json"), &d, row).is_some());
    for part in [Part::Development, Part::Check] {
        assert!(s.rows_in(Path::new("x/bad.json"), &d, part).is_empty());
    }
}

fn check_part(kernel: &str, values: &[(&str, &str)], want: Part) {
    let s = committed();
    let got = s.part_by_hash(kernel, values.iter().map(|(n, v)| (*n, v.to_string())));
    assert_eq!(got, want, "{kernel} {values:?}");
    // The order of the parameters does not matter.
    let rev = s.part_by_hash(
        kernel,
        values.iter().rev().map(|(n, v)| (*n, v.to_string())),
    );
    assert_eq!(rev, want, "{kernel} {values:?} reversed");
}

#[test]
fn parts_by_hash_are_fixed() {
    // Golden: these change only with a new salt or hash, which is a new split.
    check_part(
        "convolution_kernel",
        &[("block_size_x", "16"), ("block_size_y", "16")],
        Part::Development,
    );
    check_part(
        "convolution_kernel",
        &[("block_size_x", "32"), ("block_size_y", "8")],
        Part::Check,
    );
    check_part("Xgemm", &[("MWG", "64"), ("NWG", "64")], Part::Development);
}

fn groundtruth(rel: &str) -> Option<PathBuf> {
    let p = repo().join("../shared/data/groundtruth").join(rel);
    if p.is_file() {
        Some(p)
    } else {
        assert!(
            std::env::var_os("CI").is_none(),
            "{}: the shared ground truth is missing on CI",
            p.display()
        );
        println!(
            "{}: not here (a user's machine); nothing checked",
            p.display()
        );
        None
    }
}

fn parts(split: &Split, path: &Path, d: &Dataset) -> HashMap<Vec<String>, Part> {
    d.rows
        .iter()
        .map(|r| {
            let key = r.values.iter().map(|v| v.to_string()).collect();
            let part = split.part_of(path, d, r).expect("not an excluded file");
            (key, part)
        })
        .collect()
}

#[test]
fn a_split_space_has_about_thirty_percent_check_and_the_same_part_on_every_gpu() {
    let s = committed();
    let Some(a) = groundtruth("kt-convolution/KT_convolution_RTX_3090.json.gz") else {
        return;
    };
    let Some(b) = groundtruth("kt-convolution/KT_convolution_RTX_2080_Ti.json.gz") else {
        return;
    };
    let (da, db) = (
        import_dataset(&a).unwrap_or_else(|e| panic!("{e}")),
        import_dataset(&b).unwrap_or_else(|e| panic!("{e}")),
    );
    let check = s.rows_in(&a, &da, Part::Check).len();
    let dev = s.rows_in(&a, &da, Part::Development).len();
    assert_eq!(check + dev, da.rows.len());
    let frac = check as f64 / da.rows.len() as f64;
    assert!(
        (0.27..=0.33).contains(&frac),
        "check fraction {frac:.3} of {}",
        da.rows.len()
    );
    let (pa, pb) = (parts(&s, &a, &da), parts(&s, &b, &db));
    let mut shared = 0;
    for (key, part) in &pa {
        if let Some(other) = pb.get(key) {
            assert_eq!(part, other, "{key:?}");
            shared += 1;
        }
    }
    assert!(shared > 1000, "only {shared} configurations in both files");
}

fn check_error(text: &str, want: &str) {
    match Split::parse(text, "split.toml") {
        Ok(s) => panic!("{text:?} parsed: {s:?}"),
        Err(e) => assert_eq!(e.to_string(), want, "{text:?}"),
    }
}

#[test]
fn bad_split_files_are_errors_with_their_place() {
    check_error(
        "salt = \"s\"\ncheck_percent = 0\n",
        "split.toml: error: at check_percent: 0 is out of range: 1 to 99",
    );
    check_error(
        "salt = \"s\"\ncheck_percent = 100\n",
        "split.toml: error: at check_percent: 100 is out of range: 1 to 99",
    );
    let e = Split::parse(
        "salt = \"s\"\ncheck_percent = 30\n[[dataset]]\npath = \"x\"\nrole = \"maybe\"\n",
        "split.toml",
    )
    .map(|_| ())
    .map_err(|e| e.to_string());
    let msg = e.expect_err("an unknown role");
    assert!(
        msg.starts_with("split.toml:5:8: error: unknown variant `maybe`"),
        "{msg}"
    );
    let e = Split::parse("salt = 1\n", "split.toml")
        .map(|_| ())
        .map_err(|e| e.to_string());
    let msg = e.expect_err("a number for the salt");
    assert!(msg.starts_with("split.toml:1:8: error:"), "{msg}");
}
