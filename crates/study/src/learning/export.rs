//! The development part's samples as CSV (`ptxperf learn --export-samples`),
//! so that another learner can be trained and cross-validated on exactly
//! the rows ours learns from (docs/validation/learned.md, "The learner",
//! and tools/learner-comparison).
//!
//! Only development rows are written: the check part is scored to report,
//! never handed to anything that could be tuned on it. The weights are the
//! ones training gives those rows ([`Weighting::weights`] over them).

use std::fmt::Write as _;

use validate::split::Part;

use super::{Sample, Weighting};

/// The columns before the features, in order.
pub const LEADING_COLUMNS: [&str; 8] = [
    "gpu",
    "kernel",
    "data",
    "row",
    "config",
    "weight",
    "measured_s",
    "timing_s",
];

/// The development samples of `samples` as CSV: a header of
/// [`LEADING_COLUMNS`] then `feature_names`, one line per sample in input
/// order. Numbers are written in Rust's shortest round-trip form, so a
/// reader gets the exact `f64` back; text fields are quoted where they hold
/// a comma or a quote (RFC 4180).
pub fn development_csv(
    samples: &[Sample],
    weighting: Weighting,
    feature_names: &[String],
) -> String {
    let dev: Vec<Sample> = samples
        .iter()
        .filter(|s| s.part == Part::Development)
        .cloned()
        .collect();
    let weights = weighting.weights(&dev);
    let mut out = String::new();
    let header: Vec<String> = LEADING_COLUMNS
        .iter()
        .map(|c| field(c))
        .chain(feature_names.iter().map(|n| field(n)))
        .collect();
    out.push_str(&header.join(","));
    out.push('\n');
    for (s, w) in dev.iter().zip(&weights) {
        let _ = write!(
            out,
            "{},{},{},{},{},{:?},{:?},{:?}",
            field(&s.gpu),
            field(&s.kernel),
            field(&s.data),
            s.row,
            field(&s.config),
            w,
            s.measured,
            s.timing
        );
        for v in &s.features {
            let _ = write!(out, ",{v:?}");
        }
        out.push('\n');
    }
    out
}

/// One CSV text field: as is, or quoted with its quotes doubled where it
/// holds a comma, a quote or a line break.
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(gpu: &str, row: usize, part: Part, config: &str) -> Sample {
        Sample {
            gpu: gpu.to_string(),
            kernel: "k".to_string(),
            data: format!("{gpu}.json"),
            row,
            config: config.to_string(),
            part,
            features: vec![0.1, 2.0],
            measured: 1e-3,
            timing: 2e-3,
        }
    }

    fn check(samples: &[Sample], expect: &str) {
        let names = vec!["a".to_string(), "b,c".to_string()];
        assert_eq!(
            development_csv(samples, Weighting::DataFile, &names),
            expect
        );
    }

    #[test]
    fn writes_the_development_rows_only() {
        check(
            &[
                sample("g1", 0, Part::Development, "x=1"),
                sample("g1", 1, Part::Check, "x=2"),
                sample("g2", 0, Part::Development, "x=1,y=2"),
                sample("g2", 1, Part::Development, "x=\"3\""),
            ],
            "gpu,kernel,data,row,config,weight,measured_s,timing_s,a,\"b,c\"\n\
             g1,k,g1.json,0,x=1,1.5,0.001,0.002,0.1,2.0\n\
             g2,k,g2.json,0,\"x=1,y=2\",0.75,0.001,0.002,0.1,2.0\n\
             g2,k,g2.json,1,\"x=\"\"3\"\"\",0.75,0.001,0.002,0.1,2.0\n",
        );
    }

    #[test]
    fn no_development_row_gives_the_header_alone() {
        check(
            &[sample("g1", 1, Part::Check, "x=2")],
            "gpu,kernel,data,row,config,weight,measured_s,timing_s,a,\"b,c\"\n",
        );
    }

    #[test]
    fn numbers_read_back_exactly() {
        let mut s = sample("g", 0, Part::Development, "c");
        s.measured = 0.1 + 0.2;
        s.features = vec![1.0 / 3.0, f64::MIN_POSITIVE];
        let text = development_csv(&[s.clone()], Weighting::Row, &["a".into(), "b".into()]);
        let line = text.lines().nth(1).expect("a row");
        let cols: Vec<f64> = line
            .split(',')
            .skip(5)
            .map(|c| c.parse().expect("a number"))
            .collect();
        assert_eq!(
            cols,
            vec![1.0, s.measured, s.timing, 1.0 / 3.0, f64::MIN_POSITIVE]
        );
    }
}
