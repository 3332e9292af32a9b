//! Objectives (`tune --objective`, a space file's `[objective]`): what they
//! admit, their value and cost on a configuration, and the checks a run
//! makes before it ranks by one.

use tune::{Config, Objective, Space, tie};
use validate::ParamValue;

fn config(pairs: &[(&str, i64)]) -> Config {
    Config {
        index: 0,
        values: pairs
            .iter()
            .map(|(n, v)| (n.to_string(), ParamValue::Int(*v)))
            .collect(),
    }
}

/// Parses `text` (higher is better when `higher`) and checks that the
/// error names `expect`, or, for `expect` empty, that it parses.
fn check_parse(text: &str, higher: bool, expect: &str) {
    match Objective::parse(text, None, higher) {
        Ok(_) => assert!(expect.is_empty(), "`{text}` parsed, expected `{expect}`"),
        Err(e) => {
            let msg = e.to_string();
            assert!(!expect.is_empty(), "`{text}`: {msg}");
            assert!(msg.contains(expect), "`{text}`: `{msg}` lacks `{expect}`");
        }
    }
}

#[test]
fn what_an_objective_admits() {
    check_parse("time", false, "");
    check_parse("steps * 15 * 4096 * 4096 / 1e9 / (time / 1e3)", true, "");
    check_parse("max(time, 0.5) * n", false, "");
    check_parse("n * 2", true, "does not read `time`");
    check_parse("time *", false, "objective `time *`");
    check_parse("time < 3", false, "objective");
    check_parse("sqrt(time)", false, "objective");
    assert!(
        Objective::parse("time", Some("  "), false)
            .is_err_and(|e| e.to_string().contains("`name` is empty"))
    );
}

/// The value of `text` on `pairs` at `time_ms`, and its cost.
fn check_value(
    text: &str,
    higher: bool,
    pairs: &[(&str, i64)],
    time_ms: f64,
    value: f64,
    cost: f64,
) {
    let o = Objective::parse(text, Some("v"), higher).expect("parses");
    let c = config(pairs);
    let got = o.value(&c, time_ms).expect("a value");
    assert!(
        (got - value).abs() <= 1e-12 * value.abs(),
        "{text}: {got} != {value}"
    );
    let got = o.cost(&c, time_ms).expect("a cost");
    assert!(
        (got - cost).abs() <= 1e-12 * cost.abs(),
        "{text}: cost {got} != {cost}"
    );
}

#[test]
fn values_and_costs() {
    // Lower is better: the cost is the value.
    check_value("time", false, &[], 2.5, 2.5, 2.5);
    check_value("time / n", false, &[("n", 4)], 2.0, 0.5, 0.5);
    // Higher is better: the cost is its reciprocal.
    check_value("n / time", true, &[("n", 4)], 2.0, 2.0, 0.5);
    // hotspot_milo.py's GFLOP/s: 10 steps of 15 flops on 4096^2 cells in 1 ms.
    let gflops = 10.0 * 15.0 * 4096.0 * 4096.0 / 1e9 / 1e-3;
    check_value(
        "temporal_tiling_factor * 15 * 4096 * 4096 / 1e9 / (time / 1e3)",
        true,
        &[("temporal_tiling_factor", 10)],
        1.0,
        gflops,
        1.0 / gflops,
    );
    // Real division, not C's truncation, and real literals.
    check_value("time * 3 / 2", false, &[], 1.0, 1.5, 1.5);
}

#[test]
fn no_cost_where_the_value_is_not_a_positive_number() {
    let o = Objective::parse("time - n", None, false).expect("parses");
    assert_eq!(o.cost(&config(&[("n", 1)]), 0.5), None);
    let o = Objective::parse("n / time", None, true).expect("parses");
    assert_eq!(o.cost(&config(&[("n", 1)]), 0.0), None, "infinite");
    assert!(o.value(&config(&[("n", 1)]), 0.0).is_err());
}

/// `check_configs` on configurations of `pairs` fails naming `expect`
/// (empty: passes).
fn check_configs(text: &str, configs: &[Vec<(&str, ParamValue)>], expect: &str) {
    let o = Objective::parse(text, None, true).expect("parses");
    let configs: Vec<Config> = configs
        .iter()
        .map(|c| Config {
            index: 0,
            values: c.iter().map(|(n, v)| (n.to_string(), v.clone())).collect(),
        })
        .collect();
    match o.check_configs(&configs) {
        Ok(()) => assert!(expect.is_empty(), "`{text}` passed, expected `{expect}`"),
        Err(e) => {
            let msg = e.to_string();
            assert!(!expect.is_empty(), "`{text}`: {msg}");
            assert!(msg.contains(expect), "`{text}`: `{msg}` lacks `{expect}`");
        }
    }
}

#[test]
fn a_run_checks_every_configuration_before_ranking() {
    let int = |v: i64| ParamValue::Int(v);
    let ok = vec![vec![("n", int(1))], vec![("n", int(8))]];
    check_configs("n / time", &ok, "");
    check_configs(
        "m / time",
        &ok,
        "unknown name `m`: it reads `time` (ms) and the parameters (n)",
    );
    check_configs(
        "n / time",
        &[vec![("n", ParamValue::Str("wide".into()))]],
        "parameter `n` is `wide` on n=wide, not an integer",
    );
    check_configs(
        "n / time",
        &[vec![("time", int(1)), ("n", int(1))]],
        "called `time`",
    );
    // Zero on one configuration: it could not be ranked, so the run stops.
    check_configs(
        "n / time",
        &[vec![("n", int(1))], vec![("n", int(0))]],
        "on n=0 it is 0 at 1 ms",
    );
    check_configs(
        "1 / (n - 1) / time",
        &[vec![("n", int(1))]],
        "on n=1: column 3: division by zero",
    );
}

#[test]
fn costs_keep_their_ratios_and_are_not_tied_by_printing() {
    // GFLOP/s of 5,000 and 5,100: costs of 2.0e-4 and 1.96e-4, which
    // print alike as times (0.20 us); scaled by a power of ten they do not.
    let o = Objective::parse("n / time", None, true).expect("parses");
    let (a, b) = (config(&[("n", 5000)]), config(&[("n", 5100)]));
    let raw = [
        o.cost(&a, 1.0).expect("cost"),
        o.cost(&b, 1.0).expect("cost"),
    ];
    assert!(tie(raw[0], raw[1]), "the raw costs print alike");
    let costs = o.costs(&[&a, &b], &[Some(1.0), Some(1.0)]);
    let [Some(ca), Some(cb)] = costs[..] else {
        panic!("two costs: {costs:?}")
    };
    assert!(!tie(ca, cb), "{ca} and {cb} are 2 % apart");
    assert!((1.0..10.0).contains(&cb), "the least in [1, 10): {cb}");
    assert!(((ca / cb) - raw[0] / raw[1]).abs() < 1e-12);
    // A configuration without a time keeps none.
    let costs = o.costs(&[&a, &b], &[None, Some(f64::NAN)]);
    assert_eq!(costs, vec![None, None]);
}

/// A space file's `[objective]`; errors name the file and the table.
fn check_space(text: &str, expect: &str) {
    match Space::parse("space.toml", text, std::path::Path::new("")) {
        Ok(s) => {
            assert!(expect.is_empty(), "parsed, expected `{expect}`");
            let o = s.objective.expect("an objective");
            assert_eq!(o.to_string(), "GFLOP/s = n / time (higher is better)");
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(!expect.is_empty(), "{msg}");
            assert!(msg.contains(expect), "`{msg}` lacks `{expect}`");
        }
    }
}

#[test]
fn space_files_name_their_objective() {
    let params = "[params]\nn = [1, 2]\n";
    check_space(
        &format!(
            "{params}[objective]\nname = \"GFLOP/s\"\nexpression = \"n / time\"\nhigher_is_better = true\n"
        ),
        "",
    );
    check_space(
        &format!("{params}[objective]\nname = \"GFLOP/s\"\n"),
        "space.toml: error: at 3:1: missing field `expression`",
    );
    check_space(
        &format!("{params}[objective]\nexpression = \"n / time\"\nmaximize = true\n"),
        "unknown field `maximize`",
    );
    check_space(
        &format!("{params}[objective]\nexpression = \"n * 2\"\n"),
        "space.toml: error: at objective: objective `n * 2`: it does not read `time`",
    );
}

/// The body of the fenced block after `<!-- check: NAME -->` in `doc`.
fn doc_block(doc: &str, name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(doc);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let marker = format!("<!-- check: {name} -->");
    let at = text
        .find(&marker)
        .unwrap_or_else(|| panic!("{doc} has no {marker}"));
    let mut lines = text[at + marker.len()..]
        .lines()
        .skip_while(|l| l.trim().is_empty());
    assert!(
        lines.next().unwrap_or_default().starts_with("```"),
        "{marker}: no code block"
    );
    lines
        .take_while(|l| l.trim() != "```")
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn the_docs_example_space_ranks_by_gflops() {
    let text = doc_block("docs/experiments.md", "objective-space");
    let space = Space::parse("doc.toml", &text, std::path::Path::new("/x")).expect("parses");
    let o = space.objective.clone().expect("[objective]");
    assert_eq!(o.name, "GFLOP/s");
    assert!(o.higher_is_better);
    let configs = space.expand().expect("expands").kept;
    assert_eq!(configs.len(), 6);
    o.check_configs(&configs)
        .expect("every configuration has a value");
    // Four steps in 2 ms do twice the work per second of one step in 0.5 ms.
    let four = configs
        .iter()
        .find(|c| c.int("temporal_tiling_factor") == Some(4))
        .expect("4");
    let one = configs
        .iter()
        .find(|c| c.int("temporal_tiling_factor") == Some(1))
        .expect("1");
    let ratio = o.value(four, 2.0).expect("value") / o.value(one, 0.5).expect("value");
    assert!((ratio - 1.0).abs() < 1e-12, "{ratio}");
    assert!((o.value(one, 1.0).expect("value") - 251.65824).abs() < 1e-9);
}

/// The repository's hotspot space ranks by hotspot_milo.py's GFLOP/s.
#[test]
fn the_hotspot_space_has_hotspot_milos_objective() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../experiments/hotspot-milo-space.toml");
    let space = Space::load(&path).expect("loads");
    let o = space.objective.clone().expect("[objective]");
    assert_eq!(o.name, "GFLOP/s");
    assert!(o.higher_is_better);
    let c = space.config_at(0).expect("a configuration");
    let steps = c.int("temporal_tiling_factor").expect("steps") as f64;
    let expect = steps * 15.0 * 4096.0 * 4096.0 / 1e9 / 1e-3;
    assert!((o.value(&c, 1.0).expect("value") - expect).abs() < 1e-9 * expect);
}
