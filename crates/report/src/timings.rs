//! The time breakdown of `validate` and `tune` ([`study::Timings`]) as JSON
//! and as the `--timings` table. The library measures.

use pipeline::Stage;
use serde_json::{Map, Value, json};
use study::Timings;

/// What every time is: wall seconds on the worker thread (docs/json.md).
pub const CLOCK: &str = "wall";

/// One configuration's breakdown: `total_s`, one `<stage>_s` per stage,
/// `other_s`, and the cache hits.
pub fn json(t: &Timings) -> Value {
    Value::Object(fields(t))
}

/// The sum over a run: [`json`]'s keys, the `configurations` added up, and
/// the `clock` the times are read on.
pub fn totals_json(t: &Timings) -> Value {
    let mut map = fields(t);
    map.insert("configurations".into(), json!(t.configurations));
    map.insert("clock".into(), json!(CLOCK));
    Value::Object(map)
}

fn fields(t: &Timings) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("total_s".into(), json!(t.total.as_secs_f64()));
    for stage in Stage::ALL {
        map.insert(
            format!("{}_s", stage.name()),
            json!(t.stage(stage).as_secs_f64()),
        );
    }
    map.insert("other_s".into(), json!(t.other().as_secs_f64()));
    map.insert("ptx_cache_hits".into(), json!(t.ptx_cache_hits));
    map.insert("result_cache_hits".into(), json!(t.result_cache_hits));
    map
}

/// The `--timings` table: per stage (and `other`, then the total) its
/// seconds over every configuration, its share of the total and its mean
/// per configuration; then the cache hits.
pub fn table(t: &Timings, width: u16) -> String {
    let n = t.configurations.max(1) as f64;
    let total = t.total.as_secs_f64();
    let mut table = crate::table::new(width);
    table.set_header(["stage", "seconds", "share", "per configuration (s)"]);
    let mut rows: Vec<(&str, f64)> = Stage::ALL
        .iter()
        .map(|s| (s.name(), t.stage(*s).as_secs_f64()))
        .collect();
    rows.push(("other", t.other().as_secs_f64()));
    rows.push(("total", total));
    for (name, s) in rows {
        let share = if total > 0.0 {
            format!("{:.1} %", 100.0 * s / total)
        } else {
            "-".to_string()
        };
        table.add_row([
            name.to_string(),
            format!("{s:.3}"),
            share,
            format!("{:.4}", s / n),
        ]);
    }
    format!(
        "time breakdown: {} configurations, {CLOCK} seconds on the worker threads \
         (with several jobs they add up to more than the elapsed time)\n{table}\n\
         cache hits: PTX {}, results {} (a hit counts 0 s in its stage)\n",
        t.configurations, t.ptx_cache_hits, t.result_cache_hits
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn sample() -> Timings {
        let mut t = Timings::one();
        t.configurations = 2;
        t.stages.add(Stage::Nvrtc, Duration::from_millis(500));
        t.stages.add(Stage::Emulation, Duration::from_millis(250));
        t.total = Duration::from_secs(1);
        t.ptx_cache_hits = 1;
        t
    }

    #[test]
    fn json_has_every_stage_other_and_the_hits() {
        let v = json(&sample());
        assert_eq!(v["nvrtc_s"], 0.5);
        assert_eq!(v["emulation_s"], 0.25);
        assert_eq!(v["ptxas_s"], 0.0);
        assert_eq!(v["other_s"], 0.25);
        assert_eq!(v["total_s"], 1.0);
        assert_eq!(v["ptx_cache_hits"], 1);
        assert!(v.get("configurations").is_none());
        let keys = v.as_object().map_or(0, Map::len);
        assert_eq!(keys, Stage::ALL.len() + 4);
        let t = totals_json(&sample());
        assert_eq!(
            (t["configurations"].clone(), t["clock"].clone()),
            (json!(2), json!("wall"))
        );
    }

    #[test]
    fn table_gives_seconds_share_and_mean_per_configuration() {
        let text = table(&sample(), crate::table::PIPE_WIDTH);
        assert!(text.contains("2 configurations"), "{text}");
        let row = |name: &str| -> Vec<String> {
            text.lines()
                .map(|l| l.split(['│', '┆']).map(|c| c.trim().to_string()))
                .map(Iterator::collect::<Vec<String>>)
                .find(|c| c.get(1).map(String::as_str) == Some(name))
                .unwrap_or_else(|| panic!("no row {name} in\n{text}"))
        };
        assert_eq!(row("nvrtc")[2..5], ["0.500", "50.0 %", "0.2500"]);
        assert_eq!(row("other")[2..5], ["0.250", "25.0 %", "0.1250"]);
        assert_eq!(row("total")[2..5], ["1.000", "100.0 %", "0.5000"]);
        assert!(text.contains("cache hits: PTX 1, results 0"), "{text}");
    }
}
