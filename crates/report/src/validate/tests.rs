use serde_json::{Value, json};
use validate::bootstrap::{Bootstrap, Interval, Intervals};
use validate::score::{Attempt, ModelScore, Outcome};

use super::cells::*;
use super::*;

fn check_error_percent(v: Option<f64>, expected: &str) {
    assert_eq!(error_percent(v), expected);
}

#[test]
fn error_percent_keeps_three_figures() {
    check_error_percent(None, "n/a");
    check_error_percent(Some(2.26), "2.3");
    check_error_percent(Some(99.94), "99.9");
    check_error_percent(Some(123.4), "123");
    check_error_percent(Some(123456.0), "1.235e5");
}

#[track_caller]
fn check_rules_note(rules: &[(Option<&str>, usize)], expected: &str) {
    let rules: Vec<(Option<String>, usize)> = rules
        .iter()
        .map(|(r, n)| (r.map(str::to_string), *n))
        .collect();
    let expected = expected.replace("CURRENT", pipeline::PROFILE_RULES);
    assert_eq!(rules_note(&rules), expected);
}

#[test]
fn rules_note_says_whose_counts_were_rescored() {
    let now = Some(pipeline::PROFILE_RULES);
    check_rules_note(&[], "");
    check_rules_note(
        &[(now, 30)],
        "; profile rules: 30 under CURRENT, this build's",
    );
    check_rules_note(
        &[(None, 2000)],
        "; profile rules: 2000 saved before profiles named theirs; their counts are those of \
         the builds that saved them, not this build's (profile rules CURRENT)",
    );
    check_rules_note(
        &[(None, 1), (Some("2000-01-01"), 2), (now, 3)],
        "; profile rules: 1 saved before profiles named theirs, 2 under 2000-01-01, 3 under \
         CURRENT, this build's; their counts are those of the builds that saved them, not this \
         build's (profile rules CURRENT)",
    );
}

#[track_caller]
fn check_ratio(v: Option<f64>, expected: &str) {
    assert_eq!(ratio(v), expected);
}

#[test]
fn ratio_keeps_three_figures() {
    check_ratio(None, "n/a");
    check_ratio(Some(0.7412), "0.741");
    check_ratio(Some(1.0), "1.000");
    check_ratio(Some(12.34), "12.3");
    check_ratio(Some(123.4), "123");
    check_ratio(Some(0.000123), "1.23e-4");
    check_ratio(Some(12345.0), "1.23e4");
}

fn summary() -> Summary {
    Summary {
        command: "ptxperf validate x.toml --data d.json --gpu g".to_string(),
        experiment: "x.toml".to_string(),
        data: "d.json".to_string(),
        data_gpu: "Some GPU".to_string(),
        gpu: "g".to_string(),
        kernel: "k".to_string(),
        configurations: 10,
        part: None,
        split_parts: None,
        sampled: 3,
        sample: Some(3),
        seed: 1,
        sample_ctas: 4,
        ptx_arch: None,
        profiles: None,
        clock_mhz: None,
        jobs: 2,
        elapsed_s: 1.0,
        ptx_cache_hits: 1,
        ptx_compiled: 2,
        resumed: 0,
        profile_rules: Vec::new(),
        measured: None,
        compilers: None,
        timings: study::Timings::default(),
        bootstrap: None,
        transfer: None,
        objective: None,
    }
}

#[track_caller]
fn check_compiler_line(data: &str, ours: &str, expect: Option<&str>) {
    let pair = (data.to_string(), ours.to_string());
    assert_eq!(compiler_line(Some(&pair)).as_deref(), expect);
}

#[test]
fn compiler_line_warns_only_when_the_versions_differ() {
    assert_eq!(compiler_line(None), None);
    check_compiler_line("12.9", "12.9", None);
    check_compiler_line("12.9.86", "12.9", None);
    check_compiler_line(
        "13.0",
        "12.9",
        Some(
            "compiler: the measured kernels were built by NVRTC 13.0, ptxperf's PTX by NVRTC 12.9; \
             the timing model takes 13.0's integer-to-FP32 lowering; registers, spills and \
             the rest of the SASS are 12.9's and can differ",
        ),
    );
    // A version the model cannot read: only the warning.
    check_compiler_line(
        "thirteen",
        "12.9",
        Some(
            "compiler: the measured kernels were built by NVRTC thirteen, ptxperf's PTX by NVRTC 12.9; \
             their SASS (instruction selection, registers, spills) can differ",
        ),
    );
    // 12.90 is not 12.9.
    let pair = ("12.90".to_string(), "12.9".to_string());
    assert!(compiler_line(Some(&pair)).is_some());
}

/// (configurations, fastest ms, slowest ms, repeat noise, launch drift).
type SpreadCase = (usize, f64, f64, Option<f64>, Option<f64>);

#[track_caller]
fn check_measured_line(spread: Option<SpreadCase>, expect: &str) {
    let spread = spread.map(|(n, min_ms, max_ms, noise, drift)| validate::Spread {
        n,
        min_ms,
        max_ms,
        noise,
        drift,
    });
    assert_eq!(measured_line(spread.as_ref()), expect);
}

#[test]
fn measured_line_gives_range_span_and_noise() {
    const DRIFTED: &str = "from the first quarter of a configuration's run to the last (median): the GPU did not run at one speed throughout (most often a clock its power or thermal limit held down; --clock-mhz sets the models' clock)";
    check_measured_line(None, "measured: no sampled configuration ran");
    check_measured_line(
        Some((20, 154.529, 193.617, Some(0.0123), Some(1.004))),
        "measured: 20 configurations from 154.5 to 193.6 ms (span 1.25x); repeat noise 1.2 % (median std/mean of each configuration's launches)",
    );
    check_measured_line(
        Some((15, 0.26292, 0.40780, None, None)),
        "measured: 15 configurations from 0.2629 to 0.4078 ms (span 1.55x)",
    );
    // A drift of 2 % or more either way is shown; below it is noise.
    check_measured_line(
        Some((2000, 84.22, 163.0, Some(0.039), Some(1.0926))),
        &format!(
            "measured: 2000 configurations from 84.22 to 163.0 ms (span 1.94x); repeat noise 3.9 % (median std/mean of each configuration's launches); launches slowed 9.3 % {DRIFTED}"
        ),
    );
    check_measured_line(
        Some((3, 1.0, 2.0, None, Some(0.97))),
        &format!(
            "measured: 3 configurations from 1.000 to 2.000 ms (span 2.00x); launches sped up 3.0 % {DRIFTED}"
        ),
    );
    check_measured_line(
        Some((3, 1.0, 2.0, None, Some(1.0199))),
        "measured: 3 configurations from 1.000 to 2.000 ms (span 2.00x)",
    );
}

fn score() -> ModelScore {
    ModelScore {
        model: "m".to_string(),
        scored: 2,
        measured_failed: 1,
        ptxperf_failed: 0,
        mape: Some(12.5),
        median_ape: Some(10.0),
        median_ratio: Some(0.875),
        spearman: Some(1.0),
        kendall: Some(1.0),
        top1_overlap: Some(1.0),
        best_ratio: Some(1.0),
        best_of_top_k: Some(1.0),
        interval_coverage: None,
        interval_width: None,
        familiarity: None,
        notes: vec!["a | b".to_string()],
        points: vec![],
        rank_points: None,
    }
}

#[test]
fn a_model_with_an_interval_says_how_often_it_held() {
    let ranged = ModelScore {
        model: "learned".to_string(),
        interval_coverage: Some(0.915),
        interval_width: Some(1.76),
        ..score()
    };
    let text = text(&summary(), &[score(), ranged.clone()], &[], 200);
    assert!(
        text.contains("learned: its interval held the measured time on 92 % of the scored configurations (median width: upper end 1.76x the lower)"),
        "{text}"
    );
    assert!(!text.contains("m: its interval"), "{text}");
    let far = ModelScore {
        familiarity: Some(0.25),
        ..ranged.clone()
    };
    let text = self::text(&summary(), &[far], &[], 200);
    assert!(
        text.contains("(median width: upper end 1.76x the lower); 25 % of its correction kept"),
        "{text}"
    );
}

#[test]
fn markdown_table_has_one_row_per_model_and_escapes_pipes() {
    let md = markdown(
        &summary(),
        &[score()],
        &[],
        &[("m".to_string(), "p/m.svg".to_string())],
    );
    assert!(
        md.contains("| m | 2 | 12.5 | 10.0 | 0.875 | 1.000 | 1.000 | 100 | 1.000 | 1 | 0 |"),
        "{md}"
    );
    assert!(md.contains("- m: a \\| b"), "{md}");
    assert!(md.contains("![m](p/m.svg)"), "{md}");
    assert!(md.contains("ptxperf validate x.toml"), "{md}");
    assert!(!md.contains("clock:"), "{md}");
    let held = Summary {
        clock_mhz: Some((1545.0, 1770.0)),
        ..summary()
    };
    let md = markdown(&held, &[score()], &[], &[]);
    assert!(
        md.contains(
            "- clock: the models ran at 1545 MHz (--clock-mhz), not the catalog's rated 1770 MHz\n"
        ),
        "{md}"
    );
}

fn intervals() -> Intervals {
    let i = |lo, hi| Some(Interval { lo, hi });
    Intervals {
        mape: i(9.84, 15.26),
        median_ape: None,
        median_ratio: i(0.8, 0.95),
        spearman: i(0.9, 1.0),
        kendall: None,
        best_ratio: i(1.0, 1.5),
        notes: vec!["median APE: no interval, undefined on 70 of 1000 resamples".to_string()],
    }
}

#[test]
fn cells_carry_their_interval_in_the_figures_own_form() {
    assert_eq!(
        row(&score(), Some(&intervals())),
        [
            "m",
            "2",
            "12.5 [9.8, 15.3]",
            "10.0",
            "0.875 [0.800, 0.950]",
            "1.000 [0.900, 1.000]",
            "1.000",
            "100",
            "1.000 [1.000, 1.500]",
            "1",
            "0"
        ]
    );
    // No interval where the figure itself is missing.
    let none = ModelScore {
        mape: None,
        ..score()
    };
    assert_eq!(row(&none, Some(&intervals()))[2], "n/a");
    assert_eq!(row(&score(), None)[2], "12.5");
}

#[test]
fn text_and_json_carry_the_intervals_and_how_they_were_drawn() {
    let sum = Summary {
        bootstrap: Some(Bootstrap::default()),
        ..summary()
    };
    let t = text(&sum, &[score()], &[intervals()], crate::table::PIPE_WIDTH);
    assert!(
        t.contains("[lo, hi]: 90 % bootstrap interval (percentile method, 1000 resamples of the scored configurations, seed 1)"),
        "{t}"
    );
    assert!(
        t.contains("m: bootstrap: median APE: no interval, undefined on 70 of 1000 resamples"),
        "{t}"
    );
    let v = json(
        &sum,
        &[score()],
        &[intervals()],
        &[],
        &[],
        &rows(0),
        &no_errors(),
    );
    let m = &v["models"][0];
    assert_eq!(m["mape_percent_ci90"], json!([9.84, 15.26]));
    assert_eq!(m["median_ape_percent_ci90"], Value::Null);
    assert_eq!(m["best_config_ratio_ci90"], json!([1.0, 1.5]));
    assert_eq!(v["bootstrap"]["resamples"], 1000);
    // Without --bootstrap: null intervals, no line.
    let v = json_of(&summary());
    assert_eq!(v["models"][0]["spearman_ci90"], Value::Null);
    assert_eq!(v["bootstrap"], Value::Null);
    assert!(!text(&summary(), &[score()], &[], crate::table::PIPE_WIDTH).contains("[lo, hi]"));
}

fn transfer(rank_there: usize, restricted: bool) -> TransferOf {
    TransferOf {
        objective: None,
        file: "other.json.gz".to_string(),
        from_gpu: "Other GPU".to_string(),
        restricted,
        result: Ok((
            Transfer {
                from_gpu: "Other GPU".to_string(),
                row: 3,
                rank_there,
                passed_over: validate::transfer::PassedOver {
                    missing_here: rank_there - 1,
                    failed_here: 0,
                    outside_set: 0,
                },
                measured_ms: 1.25,
                best_ms: 1.0,
                best_row: 0,
                ratio: 1.25,
                set_measured: 40,
            },
            "a=1,b=2".to_string(),
        )),
    }
}

#[track_caller]
fn check_transfer(t: Option<TransferOf>, scores: &[ModelScore], expect: &[&str]) {
    assert_eq!(transfer_lines(t.as_ref(), scores), expect);
}

#[test]
fn the_transferred_best_is_printed_beside_each_models_best_ratio() {
    check_transfer(None, &[score()], &[]);
    let worse = ModelScore {
        model: "w".to_string(),
        best_ratio: Some(1.5),
        ..score()
    };
    check_transfer(
        Some(transfer(1, false)),
        &[score(), worse],
        &[
            "transferred best from Other GPU (other.json.gz): the configuration measured fastest there, a=1,b=2, runs 1.250x the measured best here (80.0 % of the optimum), over all 40 configurations measured here",
            "best ratio of each model against the transferred 1.250: m 1.000 (beats it), w 1.500 (does not)",
        ],
    );
    check_transfer(
        Some(transfer(2, true)),
        &[],
        &[
            "transferred best from Other GPU (other.json.gz): its 2nd fastest configuration (the 1 faster ones are not here: 1 missing from this data, 0 failed here, 0 outside the scored set), a=1,b=2, runs 1.250x the measured best here (80.0 % of the optimum), within the 40 scored configurations measured here (--sample/--part: both the transferred configuration and the best are this set's)",
        ],
    );
    let failed = TransferOf {
        result: Err(TransferError::NothingMeasuredHere),
        ..transfer(1, false)
    };
    check_transfer(
        Some(failed.clone()),
        &[score()],
        &[
            "transferred best (from Other GPU, other.json.gz): none: no configuration of the set has a measured time here",
        ],
    );
    let sum = Summary {
        transfer: Some(failed),
        ..summary()
    };
    let v = json_of(&sum);
    assert_eq!(v["transfer"]["ratio"], Value::Null);
    assert!(v["transfer"]["error"].is_string());
    let sum = Summary {
        transfer: Some(transfer(2, true)),
        ..summary()
    };
    let v = json_of(&sum);
    assert_eq!(v["transfer"]["ratio"], 1.25);
    assert_eq!(v["transfer"]["percent_of_optimum"], 80.0);
    assert_eq!(v["transfer"]["passed_over"]["missing_here"], 1);
    assert_eq!(v["transfer"]["within_scored"], true);
    assert_eq!(v["transfer"]["configuration"], "a=1,b=2");
}

#[test]
fn json_lists_every_configuration_with_its_status() {
    let outcomes = vec![
        Outcome {
            index: 0,
            measured_ms: None,
            attempt: Attempt::NotRun,
        },
        Outcome {
            index: 4,
            measured_ms: Some(1.0),
            attempt: Attempt::Failed("x".to_string()),
        },
        Outcome {
            index: 7,
            measured_ms: Some(2.0),
            attempt: Attempt::Predicted(vec![("m".to_string(), Ok(2.5.into()))]),
        },
    ];
    let mut ran = study::Timings::one();
    ran.total = std::time::Duration::from_millis(3);
    let v = json(
        &summary(),
        &[score()],
        &[],
        &outcomes,
        &[None, None, Some(ran)],
        &rows(8),
        &no_errors(),
    );
    assert_eq!(v["schema"], 1);
    assert_eq!(v["models"][0]["mape_percent"], 12.5);
    assert_eq!(v["models"][0]["median_predicted_over_measured"], 0.875);
    let statuses: Vec<&str> = v["results"]
        .as_array()
        .map(|a| a.iter().filter_map(|r| r["status"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(statuses, ["measured_failed", "ptxperf_failed", "predicted"]);
    assert_eq!(v["results"][2]["predicted_ms"]["m"], 2.5);
    // A breakdown where the configuration ran, null where it did not.
    assert_eq!(v["results"][0]["timings"], Value::Null);
    assert_eq!(v["results"][2]["timings"]["total_s"], 0.003);
    assert_eq!(v["timings"]["clock"], "wall");
    // Each configuration's parameters, from the data file's row.
    assert_eq!(v["results"][2]["parameters"]["p"], 7);
    assert_eq!(v["results"][0]["parameters"]["p"], 0);
    assert_eq!(v["by_parameter"], json!([]));
}

/// The JSON of `sum` with one score, no intervals, no configuration.
fn json_of(sum: &Summary) -> Value {
    json(sum, &[score()], &[], &[], &[], &rows(0), &no_errors())
}

/// No errors by parameter.
fn no_errors() -> validate::by_param::ByParameter {
    validate::by_param::ByParameter {
        part: validate::by_param::Part::All,
        models: Vec::new(),
    }
}

/// A data file of `n` rows, parameter `p` = the row's index.
fn rows(n: i64) -> validate::Dataset {
    validate::Dataset {
        gpu: "GPU".into(),
        kernel: "k".into(),
        problem_size: None,
        params: vec!["p".into()],
        rows: (0..n)
            .map(|i| validate::Row {
                values: vec![validate::ParamValue::Int(i)],
                measured: validate::Measured::Failed(validate::FailReason::from_marker(
                    "RuntimeFailedConfig",
                )),
            })
            .collect(),
        compiler: None,
    }
}
