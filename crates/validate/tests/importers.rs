//! Importer tests on small fixtures written for this project (never copies
//! of the ground-truth data): Kernel Tuner caches, plain and gzipped, with
//! failed configurations; Schoonhoven CSVs; and broken files of every kind.

use std::io::Write;
use std::path::{Path, PathBuf};

use validate::{
    Dataset, FailReason, FileError, Location, Measured, ParamValue, import_dataset, parse_kt_cache,
    parse_schoonhoven_csv,
};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn read_fixture(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap_or_default()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let written = enc.write_all(bytes);
    assert!(written.is_ok());
    enc.finish().unwrap_or_default()
}

fn int(v: i64) -> ParamValue {
    ParamValue::Int(v)
}

fn s(v: &str) -> ParamValue {
    ParamValue::Str(v.to_string())
}

/// The expected content of kt_small.json, in file order.
fn check_kt_small(d: &Dataset) {
    assert_eq!(d.gpu, "Test GPU 9000");
    assert_eq!(d.kernel, "toy_kernel");
    assert_eq!(d.problem_size, Some(vec![1024, 1]));
    assert_eq!(d.params, ["block_size_x", "tile", "variant"]);
    let values: Vec<Vec<ParamValue>> = d.rows.iter().map(|r| r.values.clone()).collect();
    assert_eq!(
        values,
        vec![
            vec![int(32), int(1), s("a")],
            vec![int(64), int(1), s("a")],
            vec![int(64), int(2), s("b")],
            vec![int(16), int(2), s("b")],
            vec![int(16), int(1), s("a")],
        ]
    );
    // times [1, 2, 3]: median 2, min 1, population std sqrt(((1-2)^2 + 0 + (3-2)^2)/3) = sqrt(2/3).
    match &d.rows[0].measured {
        Measured::Time(t) => {
            assert_eq!(t.mean_ms, 2.0);
            assert_eq!(t.median_ms, Some(2.0));
            assert_eq!(t.min_ms, Some(1.0));
            assert!((t.std_ms.unwrap_or(0.0) - (2.0f64 / 3.0).sqrt()).abs() < 1e-12);
            assert_eq!(t.n, Some(3));
        }
        other => panic!("expected a time, got {other:?}"),
    }
    let fails: Vec<Option<FailReason>> = d
        .rows
        .iter()
        .map(|r| match &r.measured {
            Measured::Failed(f) => Some(f.clone()),
            Measured::Time(_) => None,
        })
        .collect();
    assert_eq!(
        fails,
        vec![
            None,
            Some(FailReason::Compilation),
            Some(FailReason::Runtime),
            Some(FailReason::Invalid),
            None
        ]
    );
    // No repetitions: only the mean.
    assert_eq!(d.rows[4].measured.mean_ms(), Some(1.5));
    let sum = d.summary();
    assert_eq!((sum.configurations, sum.valid, sum.failed), (5, 2, 3));
    assert_eq!(sum.min_ms, Some(1.5));
    assert_eq!(sum.median_ms, Some(1.75)); // (1.5 + 2.0) / 2
    assert_eq!(sum.max_ms, Some(2.0));
}

#[test]
fn kt_cache_plain_and_gzipped_read_the_same() {
    let plain = read_fixture("kt_small.json");
    let d = parse_kt_cache("kt_small.json", &plain);
    check_kt_small(&d.unwrap_or_else(|e| panic!("{e}")));
    let gz = parse_kt_cache("kt_small.json.gz", &gzip(&plain));
    check_kt_small(&gz.unwrap_or_else(|e| panic!("{e}")));
}

#[test]
fn import_dataset_reads_files_by_name() {
    let d = import_dataset(&fixture("kt_small.json"));
    check_kt_small(&d.unwrap_or_else(|e| panic!("{e}")));
    // A gzipped copy on disk, named like the ground truth.
    let dir = std::env::temp_dir().join(format!("validate-test-{}", std::process::id()));
    assert!(std::fs::create_dir_all(&dir).is_ok());
    let path = dir.join("kt_small.json.gz");
    assert!(std::fs::write(&path, gzip(&read_fixture("kt_small.json"))).is_ok());
    let d = import_dataset(&path);
    check_kt_small(&d.unwrap_or_else(|e| panic!("{e}")));
    let csv = dir.join("convolution_Test_GPU.csv.gz");
    assert!(std::fs::write(&csv, gzip(&read_fixture("schoonhoven_small.csv"))).is_ok());
    let d = import_dataset(&csv);
    assert_eq!(d.as_ref().map(|d| d.gpu.as_str()), Ok("Test GPU"));
    assert_eq!(d.as_ref().map(|d| d.rows.len()), Ok(4));
    let _ = std::fs::remove_dir_all(&dir);
    // A missing file is an error naming it.
    let missing = import_dataset(Path::new("/nonexistent/x.json"));
    assert!(matches!(
        missing,
        Err(FileError {
            at: Location::File,
            ..
        })
    ));
}

/// Parses `text` as a cache file and expects an error at `at` whose message
/// contains `needle`.
fn check_kt_error(text: &str, at: Location, needle: &str) {
    match parse_kt_cache("bad.json", text.as_bytes()) {
        Ok(d) => panic!("expected an error for {text:?}, got {d:?}"),
        Err(e) => {
            assert_eq!(e.file, "bad.json");
            assert_eq!(e.at, at, "{e}");
            assert!(e.message.contains(needle), "{e}");
        }
    }
}

fn cache_with(entry: &str) -> String {
    format!(
        r#"{{"device_name": "G", "kernel_name": "k", "problem_size": 8, "tune_params_keys": ["b"],
"cache": {{"1": {entry}}}}}"#
    )
}

#[test]
fn kt_cache_value_errors_name_their_json_path() {
    check_kt_error(
        &cache_with(r#"{"b": 1}"#),
        Location::JsonPath(r#"$.cache["1"].time"#.into()),
        "missing",
    );
    check_kt_error(
        &cache_with(r#"{"b": 1, "time": true}"#),
        Location::JsonPath(r#"$.cache["1"].time"#.into()),
        "failure marker",
    );
    check_kt_error(
        &cache_with(r#"{"b": 1, "time": -2.0}"#),
        Location::JsonPath(r#"$.cache["1"].time"#.into()),
        "positive",
    );
    check_kt_error(
        &cache_with(r#"{"b": 1, "time": 0}"#),
        Location::JsonPath(r#"$.cache["1"].time"#.into()),
        "positive",
    );
    check_kt_error(
        &cache_with(r#"{"time": 1.0}"#),
        Location::JsonPath(r#"$.cache["1"].b"#.into()),
        "parameter missing",
    );
    check_kt_error(
        &cache_with(r#"{"b": [1], "time": 1.0}"#),
        Location::JsonPath(r#"$.cache["1"].b"#.into()),
        "number or a string",
    );
    check_kt_error(
        &cache_with(r#"{"b": 1, "time": 1.0, "times": [1.0, "x"]}"#),
        Location::JsonPath(r#"$.cache["1"].times[1]"#.into()),
        "expected a time",
    );
    check_kt_error(
        &cache_with(r#"{"b": 1, "time": 1.0, "times": 3}"#),
        Location::JsonPath(r#"$.cache["1"].times"#.into()),
        "array",
    );
    check_kt_error(
        &cache_with("7"),
        Location::JsonPath(r#"$.cache["1"]"#.into()),
        "object",
    );
    check_kt_error(
        r#"{"device_name": "G", "kernel_name": "k", "problem_size": "big", "tune_params_keys": [], "cache": {}}"#,
        Location::JsonPath("$.problem_size".into()),
        "integer",
    );
}

#[test]
fn kt_cache_syntax_and_shape_errors_carry_line_and_column() {
    // Truncated document: the error is at the end, on line 3.
    check_kt_error(
        "{\"device_name\": \"G\",\n\"kernel_name\": \"k\",\n\"cache\": {\"1\":",
        Location::LineCol(3, 14),
        "EOF",
    );
    // A required key is missing: reported where the object ends.
    check_kt_error(
        "{\"device_name\": \"G\", \"kernel_name\": \"k\",\n \"cache\": {}}",
        Location::LineCol(2, 13),
        "tune_params_keys",
    );
    // cache is not an object.
    check_kt_error(
        "{\"device_name\": \"G\", \"kernel_name\": \"k\", \"tune_params_keys\": [],\n\"cache\": [1]}",
        Location::LineCol(2, 9),
        "object mapping",
    );
    check_kt_error("", Location::LineCol(1, 0), "EOF");
}

#[test]
fn kt_cache_non_integer_values_are_kept_as_their_text() {
    let d = parse_kt_cache(
        "f.json",
        cache_with(r#"{"b": 0.5, "time": 1.0}"#).as_bytes(),
    );
    assert_eq!(d.map(|d| d.rows[0].values.clone()), Ok(vec![s("0.5")]));
    let d = parse_kt_cache(
        "f.json",
        cache_with(r#"{"b": 1, "time": "SomethingElse"}"#).as_bytes(),
    );
    assert_eq!(
        d.map(|d| d.rows[0].measured.clone()),
        Ok(Measured::Failed(FailReason::Other("SomethingElse".into())))
    );
}

/// Damaged bytes must be an error value at the file level, never a panic.
fn check_file_error(bytes: &[u8], needle: &str) {
    for result in [
        parse_kt_cache("x.json.gz", bytes).map(|_| ()),
        parse_schoonhoven_csv("x.csv.gz", bytes, "G", "k").map(|_| ()),
    ] {
        match result {
            Ok(()) => panic!("expected an error mentioning {needle:?}"),
            Err(e) => {
                assert_eq!(e.at, Location::File, "{e}");
                assert!(e.message.contains(needle), "{e}");
            }
        }
    }
}

#[test]
fn truncated_or_corrupt_gzip_is_an_error() {
    let gz = gzip(&read_fixture("kt_small.json"));
    assert!(gz.len() > 40);
    check_file_error(&gz[..gz.len() / 2], "truncated gzip");
    check_file_error(&gz[..gz.len() - 4], "truncated gzip");
    let mut corrupt = gz.clone();
    corrupt[gz.len() / 2] ^= 0xff;
    corrupt[gz.len() / 2 + 1] ^= 0xff;
    check_file_error(&corrupt, "gzip");
    check_file_error(&[0x1f, 0x8b], "gzip");
    check_file_error(&[0xff, 0xfe, 0x00], "not UTF-8");
}

#[test]
fn schoonhoven_csv_plain_and_gzipped() {
    let plain = read_fixture("schoonhoven_small.csv");
    for bytes in [plain.clone(), gzip(&plain)] {
        let d = parse_schoonhoven_csv("s.csv", &bytes, "Test GPU", "convolution_kernel");
        let d = d.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            d.params,
            [
                "filter_width",
                "filter_height",
                "block_size_x",
                "block_size_y",
                "tile_size_x",
                "tile_size_y",
                "use_padding",
                "read_only"
            ]
        );
        assert_eq!(d.rows.len(), 4);
        assert_eq!(
            d.rows[1].values,
            [15, 15, 32, 4, 1, 1, 1, 0].map(int).to_vec()
        );
        match &d.rows[0].measured {
            Measured::Time(t) => {
                assert_eq!(
                    (t.mean_ms, t.median_ms, t.min_ms, t.std_ms, t.n),
                    (3.5, Some(3.4), Some(3.3), Some(0.05), Some(32))
                );
            }
            other => panic!("expected a time, got {other:?}"),
        }
        assert!(matches!(
            d.rows[2].measured,
            Measured::Failed(FailReason::Other(_))
        ));
        let sum = d.summary();
        assert_eq!((sum.configurations, sum.valid, sum.failed), (4, 3, 1));
        assert_eq!(
            (sum.min_ms, sum.median_ms, sum.max_ms),
            (Some(2.25), Some(3.5), Some(7.75))
        );
    }
}

/// Parses a CSV text and expects an error on `line` mentioning `needle`.
fn check_csv_error(text: &str, line: usize, needle: &str) {
    match parse_schoonhoven_csv("bad.csv", text.as_bytes(), "G", "k") {
        Ok(d) => panic!("expected an error for {text:?}, got {d:?}"),
        Err(e) => {
            assert_eq!(e.at, Location::Line(line), "{e}");
            assert!(e.message.contains(needle), "{e}");
            assert!(
                e.to_string()
                    .starts_with(&format!("bad.csv:{line}: error:")),
                "{e}"
            );
        }
    }
}

const HEADER: &str = "filter_width,filter_height,block_size_x,block_size_y,tile_size_x,tile_size_y,use_padding,read_only,mean_ms,median_ms,min_ms,std_ms,n\n";

#[test]
fn schoonhoven_csv_errors_name_their_line() {
    let good = "15,15,16,8,2,1,0,1,3.5,3.4,3.3,0.05,32\n";
    check_csv_error(
        &format!("{HEADER}{good}15,15,16,8,2,1,0,1,3.5,3.4,3.3,0.05\n"),
        3,
        "expected 13 fields, found 12",
    );
    check_csv_error(
        &format!("{HEADER}{good}{good}15,15,16,8,2,1,0,1,fast,3.4,3.3,0.05,32\n"),
        4,
        "`mean_ms`: `fast`",
    );
    check_csv_error(
        &format!("{HEADER}15,15,16,8,2,1,0,1,3.5,3.4,3.3,0.05,-1\n"),
        2,
        "column `n`",
    );
    check_csv_error(
        &format!("{HEADER}15,15,16,8,2,1,0,1,3.5,x,3.3,0.05,32\n"),
        2,
        "`median_ms`: `x`",
    );
    check_csv_error(
        "a,b,mean_ms,median_ms,min_ms,std_ms\n1,2,3,4,5,6\n",
        1,
        "`n`",
    );
    check_csv_error(
        "\n\nmean_ms,median_ms,min_ms,std_ms,n\n",
        3,
        "no parameter columns",
    );
    // A file cut in the middle of a line: the short line is reported.
    check_csv_error(
        &format!("{HEADER}{good}15,15,16,8,2"),
        3,
        "expected 13 fields, found 5",
    );
    // Empty: no header at all.
    let e = parse_schoonhoven_csv("empty.csv", b"", "G", "k");
    assert!(matches!(
        e,
        Err(FileError {
            at: Location::File,
            ..
        })
    ));
}

#[test]
fn gpu_names_come_from_schoonhoven_file_names() {
    let check = |file: &str, gpu: &str| {
        assert_eq!(
            validate::schoonhoven::gpu_from_file_name(Path::new(file)),
            gpu
        );
    };
    check("a/convolution_GTX_1080Ti.csv.gz", "GTX 1080Ti");
    check("convolution_RTX_2070_SUPER.csv", "RTX 2070 SUPER");
    check("K20.csv.gz", "K20");
}

#[test]
fn kt_cache_records_the_compiler_of_this_projects_measurements() {
    let with = |measured_by: &str| {
        format!(
            "{{\"device_name\": \"G\", \"kernel_name\": \"k\", \"tune_params_keys\": [],{measured_by}\n\"cache\": {{}}}}"
        )
    };
    let compiler = |text: String| parse_kt_cache("f.json", text.as_bytes()).map(|d| d.compiler);
    assert_eq!(compiler(with("")), Ok(None));
    assert_eq!(
        compiler(with(
            "\"measured_by\": {\"nvrtc\": \"13.0\", \"arch\": \"sm_90\"},"
        )),
        Ok(Some("13.0".to_string()))
    );
    assert_eq!(
        compiler(with("\"measured_by\": {\"nvrtc\": 12.9},")),
        Ok(Some("12.9".to_string()))
    );
    assert_eq!(compiler(with("\"measured_by\": {},")), Ok(None));
}
