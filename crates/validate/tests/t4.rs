//! T4 results files (the Open Autotuning Results format Kernel Tuner writes
//! with `store_output_file`): the fixture holds the same five
//! configurations as kt_small.json, so both formats must read the same
//! rows; broken files are errors at their JSON path.

use std::io::Write;
use std::path::{Path, PathBuf};

use validate::{
    FileError, Location, Measured, ParamValue, import_dataset, parse_kt_cache, parse_t4,
};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    assert!(enc.write_all(bytes).is_ok());
    enc.finish().unwrap_or_default()
}

#[test]
fn t4_reads_the_rows_a_kernel_tuner_cache_holds() {
    let kt = parse_kt_cache(
        "kt_small.json",
        &std::fs::read(fixture("kt_small.json")).unwrap_or_default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let bytes = std::fs::read(fixture("t4_small_T4.json")).unwrap_or_default();
    for t4 in [
        parse_t4("t4_small_T4.json", &bytes, "Test GPU 9000"),
        parse_t4("t4_small_T4.json.gz", &gzip(&bytes), "Test GPU 9000"),
    ] {
        let t4 = t4.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t4.params, kt.params);
        assert_eq!(t4.rows, kt.rows, "values, times, repetitions and failures");
        assert_eq!(t4.gpu, "Test GPU 9000");
        // The format names neither the kernel nor the problem size.
        assert_eq!(t4.kernel, "");
        assert_eq!(t4.problem_size, None);
    }
}

#[test]
fn import_dataset_tells_t4_from_a_cache_by_content() {
    let d = import_dataset(&fixture("t4_small_T4.json")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        d.gpu, "t4 small",
        "from the file name, _T4 and .json dropped"
    );
    assert_eq!(d.rows.len(), 5);
    assert_eq!(d.rows[0].values[2], ParamValue::Str("a".into()));
    let kt = import_dataset(&fixture("kt_small.json")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(kt.kernel, "toy_kernel");
    for (file, gpu) in [
        ("dir/A100_T4.json.gz", "A100"),
        ("A6000-results.json", "A6000"),
        ("RTX_3090.json", "RTX 3090"),
    ] {
        assert_eq!(validate::t4::gpu_from_t4_file_name(Path::new(file)), gpu);
    }
}

#[test]
fn t4_times_follow_their_unit() {
    let text = |unit: &str| {
        format!(
            r#"{{"schema_version": "1.0.0", "results": [{{"configuration": {{"b": 1}},
"times": {{"runtimes": [0.002, 0.004]}}, "invalidity": "correct", "correctness": 1,
"measurements": [{{"name": "time", "value": 0.003, "unit": "{unit}"}}]}}]}}"#
        )
    };
    let d = parse_t4("x.json", text("s").as_bytes(), "G").unwrap_or_else(|e| panic!("{e}"));
    match &d.rows[0].measured {
        Measured::Time(t) => {
            assert!((t.mean_ms - 3.0).abs() < 1e-12, "{t:?}");
            assert_eq!(t.min_ms, Some(2.0));
            assert_eq!(t.n, Some(2));
        }
        other => panic!("expected a time, got {other:?}"),
    }
    let e = parse_t4("x.json", text("fortnights").as_bytes(), "G");
    assert!(
        matches!(&e, Err(FileError { at: Location::JsonPath(p), message, .. })
            if p == "$.results[0].measurements[0].unit" && message.contains("unknown time unit")),
        "{e:?}"
    );
}

/// Parses `text` as a T4 file and expects an error at `at` whose message
/// contains `needle`.
fn check_error(text: &str, at: Location, needle: &str) {
    match parse_t4("bad.json", text.as_bytes(), "G") {
        Ok(d) => panic!("expected an error for {text:?}, got {d:?}"),
        Err(e) => {
            assert_eq!(e.file, "bad.json");
            assert_eq!(e.at, at, "{e}");
            assert!(e.message.contains(needle), "{e}");
        }
    }
}

fn one(result: &str) -> String {
    format!(r#"{{"schema_version": "1.0.0", "results": [{result}]}}"#)
}

#[test]
fn broken_t4_files_are_errors_with_a_place() {
    check_error("{", Location::LineCol(1, 1), "not a T4 results file");
    check_error(
        r#"{"schema_version": "1.0.0"}"#,
        Location::LineCol(1, 27),
        "missing field `results`",
    );
    check_error(
        r#"{"schema_version": "1.0.0", "results": []}"#,
        Location::JsonPath("$.results".into()),
        "no results",
    );
    check_error(
        r#"{"schema_version": "2.0.0", "results": []}"#,
        Location::JsonPath("$.schema_version".into()),
        "only version 1.x",
    );
    check_error(
        &one(r#"{"configuration": {"b": 1}, "invalidity": "correct", "measurements": []}"#),
        Location::JsonPath("$.results[0].measurements".into()),
        "no measurement named \"time\"",
    );
    check_error(
        &one(
            r#"{"configuration": {"b": 1}, "invalidity": "correct", "measurements": [{"name": "time", "value": -1}]}"#,
        ),
        Location::JsonPath("$.results[0].measurements[0].value".into()),
        "positive time",
    );
    check_error(
        &one(
            r#"{"configuration": {"b": [1]}, "invalidity": "correct", "measurements": [{"name": "time", "value": 1}]}"#,
        ),
        Location::JsonPath("$.results[0].configuration.b".into()),
        "number or a string",
    );
    check_error(
        &one(
            r#"{"configuration": {"b": 1}, "invalidity": "correct", "times": {"runtimes": [1, "x"]}, "measurements": [{"name": "time", "value": 1}]}"#,
        ),
        Location::JsonPath("$.results[0].times.runtimes[1]".into()),
        "expected a time",
    );
    check_error(
        r#"{"results": [{"configuration": {"b": 1}, "invalidity": "constraints"},
{"configuration": {"b": 1, "c": 2}, "invalidity": "constraints"}]}"#,
        Location::JsonPath("$.results[1].configuration".into()),
        "2 parameters where the first result has 1",
    );
    check_error(
        r#"{"results": [{"configuration": {"b": 1}, "invalidity": "constraints"},
{"configuration": {"c": 2}, "invalidity": "constraints"}]}"#,
        Location::JsonPath("$.results[1].configuration.b".into()),
        "parameter missing",
    );
}
