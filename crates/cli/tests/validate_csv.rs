//! `validate --csv FILE`: a row per sampled configuration and data file,
//! with what the JSON says of it. No compiler is needed: the H200's
//! profiles are read from the committed archive.

use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn the_csv_holds_every_sampled_configuration_as_the_json_does() {
    let profiles = common::unpacked_archive("docs/validation/profiles-h200.tar.xz", "csv");
    let csv_path = profiles.join("out.csv");
    let data = "data/measured/h200-sxm-141gb/vector_add.json";
    let csv_arg = csv_path.to_str().expect("utf-8 path");
    let mut args = common::rescore_args(
        "experiments/vector-add.toml",
        data,
        "h200-sxm-141gb",
        profiles.to_str().expect("utf-8 path"),
    );
    args.extend([
        "--model", "timing", "--model", "learned", "--json", "--csv", csv_arg,
    ]);
    let out = common::ptxperf_in(&root(), &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let text = std::fs::read_to_string(&csv_path).expect("the CSV was written");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.first().copied(),
        Some(
            "data,gpu,index,block_size_x,part,measured_ms,status,error,timing_ms,\
             timing_bottleneck,learned_ms,learned_low_ms,learned_high_ms,learned_bottleneck"
        )
    );
    let results = v["results"].as_array().expect("results");
    assert_eq!(lines.len(), 1 + results.len(), "{text}");
    assert_eq!(results.len(), 15, "the 15 block sizes");
    for (line, r) in lines[1..].iter().zip(results) {
        let cells = csv_cells(line);
        let cells: Vec<&str> = cells.iter().map(String::as_str).collect();
        assert_eq!(cells[0], data);
        assert_eq!(cells[1], "h200-sxm-141gb");
        assert_eq!(cells[2], r["index"].to_string());
        assert_eq!(cells[3], r["parameters"]["block_size_x"].to_string());
        assert_eq!(Some(cells[4]), r["part"].as_str());
        // The same number: serde_json reads its own digits back to within
        // an ulp or so (no `float_roundtrip`), so compare to 1e-12.
        let same = |cell: &str, json: &Value| {
            let (Ok(a), Some(b)) = (cell.parse::<f64>(), json.as_f64()) else {
                panic!("{cell:?} against {json} in {line}");
            };
            assert!(
                (a - b).abs() <= 1e-12 * b.abs(),
                "{a} against {b} in {line}"
            );
        };
        same(cells[5], &r["measured_ms"]);
        assert_eq!(cells[6], "predicted");
        same(cells[8], &r["predicted_ms"]["timing"]);
        same(cells[10], &r["predicted_ms"]["learned"]);
        same(cells[11], &r["interval_ms"]["learned"][0]);
        same(cells[12], &r["interval_ms"]["learned"][1]);
        // Each model's bottleneck, in its words: the timing model's names
        // its limit first, the learned model's its factor on timing.
        assert_eq!(Some(cells[9]), r["bottleneck"]["timing"].as_str(), "{line}");
        assert_eq!(
            Some(cells[13]),
            r["bottleneck"]["learned"].as_str(),
            "{line}"
        );
        assert!(
            ["compute issue", "DRAM bandwidth", "latency", "L2 bandwidth"]
                .iter()
                .any(|l| cells[9].starts_with(l)),
            "{line}"
        );
        assert!(cells[13].starts_with("timing x "), "{line}");
    }
    let _ = std::fs::remove_dir_all(&profiles);
}

/// The cells of one CSV line: a quoted cell may hold commas, and `""` in it
/// is one quote (the learned model's bottleneck text has commas).
fn csv_cells(line: &str) -> Vec<String> {
    let mut cells = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                cells.last_mut().expect("a cell").push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => cells.push(String::new()),
            (c, _) => cells.last_mut().expect("a cell").push(c),
        }
    }
    cells
}

/// `validate`'s arguments that rescore the H100 convolution's 135
/// configurations from the committed archive unpacked at `profiles`.
fn h100_convolution(profiles: &Path) -> Vec<&str> {
    common::rescore_args(
        "experiments/convolution.toml",
        "data/measured/h100-sxm5-80gb/convolution.json.gz",
        "h100-sxm5-80gb",
        profiles.to_str().expect("utf-8 path"),
    )
}

/// `--by-bottleneck` groups each model's errors by the limit its own
/// prediction names, the limits of the CSV's `timing_bottleneck` column:
/// the H100 convolution's 135 configurations are bound by three.
#[test]
fn by_bottleneck_groups_the_configurations_by_the_limit_each_names() {
    let profiles =
        common::unpacked_archive("docs/validation/profiles-h100.tar.xz", "by-bottleneck");
    let csv_path = profiles.join("out.csv");
    let csv_arg = csv_path.to_str().expect("utf-8 path");
    let args = h100_convolution(&profiles);
    let run = |extra: &[&str]| {
        let mut a = args.clone();
        a.extend(["--model", "timing", "--json"]);
        a.extend(extra);
        let out = common::ptxperf_in(&root(), &a);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).expect("JSON")
    };
    let groups_of = |v: &Value| -> Option<Vec<(String, u64)>> {
        let params = v["by_parameter"][0]["parameters"].as_array()?;
        let b = params.iter().find(|p| p["name"] == "bottleneck")?;
        b["values"].as_array().map(|values| {
            values
                .iter()
                .map(|x| {
                    let name = x["value"].as_str().expect("a limit").to_string();
                    (name, x["scored"].as_u64().expect("scored"))
                })
                .collect()
        })
    };
    assert_eq!(groups_of(&run(&[])), None, "only with the flag");
    let got = groups_of(&run(&["--by-bottleneck", "--csv", csv_arg])).expect("bottleneck groups");
    // The CSV's own column, counted by its words before the parenthesis.
    let text = std::fs::read_to_string(&csv_path).expect("the CSV was written");
    let mut lines = text.lines();
    let header = csv_cells(lines.next().expect("header"));
    let column = header
        .iter()
        .position(|h| h == "timing_bottleneck")
        .expect("timing_bottleneck column");
    let status = header
        .iter()
        .position(|h| h == "status")
        .expect("status column");
    let mut expect: Vec<(String, u64)> = Vec::new();
    // Configurations measured as failed name nothing.
    for cells in lines.map(csv_cells).filter(|c| c[status] == "predicted") {
        let cell = cells[column].clone();
        let limit = cell.split('(').next().unwrap_or("").trim().to_string();
        match expect.iter_mut().find(|(l, _)| *l == limit) {
            Some((_, n)) => *n += 1,
            None => expect.push((limit, 1)),
        }
    }
    expect.sort();
    assert_eq!(got, expect);
    assert!(got.len() >= 2, "{got:?}");
    assert_eq!(got.iter().map(|(_, n)| n).sum::<u64>(), 135);
    let _ = std::fs::remove_dir_all(&profiles);
}

/// `--by-term` groups each model's errors by the quintiles of a term of its
/// own breakdown (or a ratio of two): on the H100 convolution's 135
/// configurations, every configuration in one group, the groups in
/// ascending order of the term; a key no model holds is said, and one that
/// cannot be a key is refused before anything runs.
#[test]
fn by_term_groups_the_configurations_by_quintiles_of_a_breakdown_term() {
    let profiles = common::unpacked_archive("docs/validation/profiles-h100.tar.xz", "by-term");
    let args = h100_convolution(&profiles);
    let run = |extra: &[&str]| {
        let mut a = args.clone();
        a.extend(["--model", "timing"]);
        a.extend(extra);
        common::ptxperf_in(&root(), &a)
    };
    let csv_path = profiles.join("terms.csv");
    let csv_arg = csv_path.to_str().expect("utf-8 path");
    let out = run(&[
        "--json",
        "--by-term",
        "l2_seconds/sm_seconds",
        "--csv",
        csv_arg,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let params = v["by_parameter"][0]["parameters"]
        .as_array()
        .expect("by_parameter");
    let term = params
        .iter()
        .find(|p| p["name"] == "term:l2_seconds/sm_seconds")
        .expect("the term's groups");
    let groups: Vec<(String, u64)> = term["values"]
        .as_array()
        .expect("values")
        .iter()
        .map(|x| {
            (
                x["value"].as_str().expect("a label").to_string(),
                x["scored"].as_u64().expect("scored"),
            )
        })
        .collect();
    assert_eq!(
        groups.iter().map(|(_, n)| n).sum::<u64>(),
        135,
        "{groups:?}"
    );
    assert!((2..=5).contains(&groups.len()), "{groups:?}");
    // "k: low to high", k counting up, each group's range from the last's end.
    let mut last_high = f64::NEG_INFINITY;
    for (k, (label, n)) in groups.iter().enumerate() {
        let (index, range) = label.split_once(": ").expect("k: range");
        assert_eq!(index, (k + 1).to_string(), "{label}");
        let (low, high) = range.split_once(" to ").expect("low to high");
        let (low, high): (f64, f64) = (low.parse().expect("low"), high.parse().expect("high"));
        // Three digits each: the next group may start at the last one's shown end.
        assert!(low >= last_high && low <= high, "{groups:?}");
        assert!(
            *n >= 135 / 5 / 2,
            "quintiles hold about a fifth each: {groups:?}"
        );
        last_high = high;
    }
    // The CSV holds both keys per configuration: the least and the greatest
    // share are the ends of the first and the last group.
    let text = std::fs::read_to_string(&csv_path).expect("the CSV was written");
    let mut lines = text.lines();
    let header = csv_cells(lines.next().expect("header"));
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("{name} column in {header:?}"))
    };
    let (l2, sm) = (column("timing_l2_seconds"), column("timing_sm_seconds"));
    let status = column("status");
    // Configurations measured as failed are not predicted: no terms.
    let mut shares: Vec<f64> = lines
        .map(csv_cells)
        .filter(|c| c[status] == "predicted")
        .map(|c| c[l2].parse::<f64>().expect("l2") / c[sm].parse::<f64>().expect("sm"))
        .collect();
    shares.sort_by(f64::total_cmp);
    assert_eq!(shares.len(), 135);
    let three = |v: f64| format!("{v:.*}", (2 - v.log10().floor() as i32).max(0) as usize);
    let end = |label: &str, first: bool| -> String {
        let range = label.split_once(": ").expect("k: range").1;
        let (low, high) = range.split_once(" to ").expect("low to high");
        (if first { low } else { high }).to_string()
    };
    assert_eq!(end(&groups[0].0, true), three(shares[0]), "{groups:?}");
    assert_eq!(
        end(&groups[groups.len() - 1].0, false),
        three(shares[134]),
        "{groups:?}"
    );
    // A key that no model computes is said, not silently empty.
    let out = run(&["--by-term", "no_such_term"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    common::assert_contains_all(
        &String::from_utf8_lossy(&out.stdout),
        &["note: --by-term no_such_term: no model's predictions hold it"],
    );
    // Not a key at all: a usage error before anything runs.
    let out = run(&["--by-term", "l2_seconds-sm_seconds"]);
    assert_eq!(out.status.code(), Some(2));
    common::assert_contains_all(
        &String::from_utf8_lossy(&out.stderr),
        &["`l2_seconds-sm_seconds` is not a breakdown key"],
    );
    // `timing:` gives the timing model's term to every model: the roofline
    // model's errors fall into the same groups as the timing model's.
    let shared = |models: &[&str]| {
        let mut a = args.clone();
        for m in models {
            a.extend(["--model", m]);
        }
        a.extend(["--json", "--by-term", "timing:l2_seconds/sm_seconds"]);
        common::ptxperf_in(&root(), &a)
    };
    let out = shared(&["timing", "roofline"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let groups_of = |model: &str| -> Vec<(String, u64)> {
        let models = v["by_parameter"].as_array().expect("by_parameter");
        let m = models
            .iter()
            .find(|m| m["model"] == model)
            .unwrap_or_else(|| panic!("{model} in {models:?}"));
        let p = m["parameters"]
            .as_array()
            .expect("parameters")
            .iter()
            .find(|p| p["name"] == "term:timing:l2_seconds/sm_seconds")
            .unwrap_or_else(|| panic!("{model}'s groups by timing's term"));
        p["values"]
            .as_array()
            .expect("values")
            .iter()
            .map(|x| (x["value"].to_string(), x["scored"].as_u64().expect("n")))
            .collect()
    };
    assert_eq!(groups_of("roofline"), groups_of("timing"));
    assert_eq!(groups_of("timing").iter().map(|(_, n)| n).sum::<u64>(), 135);
    // The model that gives the term must run.
    let out = shared(&["roofline"]);
    assert_eq!(out.status.code(), Some(2));
    common::assert_contains_all(
        &String::from_utf8_lossy(&out.stderr),
        &["the model `timing` is not among those run (roofline): add --model timing"],
    );
    let _ = std::fs::remove_dir_all(&profiles);
}
