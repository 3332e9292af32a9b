//! The JSON form (schema 1) of a validation result, of one GPU and of several.

use serde_json::{Value, json};

use validate::bootstrap::{Interval, Intervals};
use validate::score::{Attempt, ModelScore, Outcome};
use validate::transfer::Transfer;

use super::cells::resumed_note;
use super::{Summary, TIME_NOTE, TransferOf};

pub(super) fn interval_json(i: Option<Interval>) -> Value {
    i.map_or(Value::Null, |Interval { lo, hi }| json!([lo, hi]))
}

pub(super) fn transfer_json(t: &TransferOf) -> Value {
    let ok = t.result.as_ref().ok();
    let tr = ok.map(|(tr, _)| tr);
    json!({
        "from": t.file,
        "from_gpu": t.from_gpu,
        "within_scored": t.restricted,
        "error": t.result.as_ref().err().map(ToString::to_string),
        "configuration": ok.map(|(_, label)| label),
        "index": tr.map(|t| t.row),
        "rank_there": tr.map(|t| t.rank_there),
        "passed_over": tr.map(|t| json!({
            "missing_here": t.passed_over.missing_here,
            "failed_here": t.passed_over.failed_here,
            "outside_set": t.passed_over.outside_set,
        })),
        "measured_ms": tr.map(|t| t.measured_ms),
        "best_ms": tr.map(|t| t.best_ms),
        "best_index": tr.map(|t| t.best_row),
        "ratio": tr.map(|t| t.ratio),
        "percent_of_optimum": tr.map(Transfer::percent_of_optimum),
        "configurations_measured": tr.map(|t| t.set_measured),
    })
}

/// JSON, schema 1: the header, the per-model figures and every configuration
/// (`timings`: each outcome's breakdown, in the same order, if it ran).
/// `dataset` names each configuration's parameters (`parameters`);
/// `by_param` is each model's errors by parameter value.
pub fn json(
    sum: &Summary,
    scores: &[ModelScore],
    intervals: &[Intervals],
    outcomes: &[Outcome],
    timings: &[Option<study::Timings>],
    dataset: &validate::Dataset,
    by_param: &validate::by_param::ByParameter,
) -> Value {
    let models: Vec<Value> = scores
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let i = intervals.get(k).cloned().unwrap_or_default();
            json!({
                "name": s.model,
                "scored": s.scored,
                "mape_percent": s.mape,
                "median_ape_percent": s.median_ape,
                "median_predicted_over_measured": s.median_ratio,
                "spearman": s.spearman,
                "kendall_tau_b": s.kendall,
                "top1_percent_overlap": s.top1_overlap,
                "best_config_ratio": s.best_ratio,
                "best_of_top5_ratio": s.best_of_top_k,
                "interval_coverage": s.interval_coverage,
                "interval_width": s.interval_width,
                "familiarity": s.familiarity,
                "measured_failed": s.measured_failed,
                "ptxperf_failed": s.ptxperf_failed,
                "notes": s.notes,
                "mape_percent_ci90": interval_json(i.mape),
                "median_ape_percent_ci90": interval_json(i.median_ape),
                "median_predicted_over_measured_ci90": interval_json(i.median_ratio),
                "spearman_ci90": interval_json(i.spearman),
                "kendall_tau_b_ci90": interval_json(i.kendall),
                "best_config_ratio_ci90": interval_json(i.best_ratio),
                "bootstrap_notes": i.notes,
            })
        })
        .collect();
    let configurations: Vec<Value> = outcomes
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let (status, predicted, ranges, error) = match &o.attempt {
                Attempt::NotRun => ("measured_failed", Value::Null, Value::Null, Value::Null),
                Attempt::Failed(e) => ("ptxperf_failed", Value::Null, Value::Null, json!(e)),
                Attempt::Predicted(p) => {
                    let map: serde_json::Map<String, Value> = p
                        .iter()
                        .map(|(n, r)| {
                            let v = match r {
                                Ok(t) if t.ms.is_finite() => json!(t.ms),
                                Ok(_) => Value::Null,
                                Err(e) => json!({ "error": e.to_string() }),
                            };
                            (n.clone(), v)
                        })
                        .collect();
                    let ranges: serde_json::Map<String, Value> = p
                        .iter()
                        .filter_map(|(n, r)| {
                            Some((n.clone(), json!(r.as_ref().ok()?.interval_ms?)))
                        })
                        .collect();
                    let ranges = if ranges.is_empty() {
                        Value::Null
                    } else {
                        Value::Object(ranges)
                    };
                    ("predicted", Value::Object(map), ranges, Value::Null)
                }
            };
            // Each model's own words for what limits the kernel.
            let limits = match &o.attempt {
                Attempt::Predicted(p) => Value::Object(
                    p.iter()
                        .filter_map(|(n, r)| {
                            Some((n.clone(), json!(r.as_ref().ok()?.bottleneck.as_ref()?)))
                        })
                        .collect(),
                ),
                _ => Value::Null,
            };
            let parameters = dataset.rows.get(o.index).map(|row| {
                dataset
                    .named_values(row)
                    .into_iter()
                    .map(|(n, v)| (n.to_string(), crate::by_param::value_json(v)))
                    .collect::<serde_json::Map<String, Value>>()
            });
            // Under an objective, its value at each time.
            let objective = sum.objective.as_ref().map(|obj| {
                let at = |ms: f64| study::validation::objective_value(obj, dataset, o.index, ms);
                let predicted: serde_json::Map<String, Value> = match &o.attempt {
                    Attempt::Predicted(p) => p
                        .iter()
                        .filter_map(|(n, r)| {
                            let ms = r.as_ref().ok()?.ms;
                            Some((n.clone(), json!(at(ms.is_finite().then_some(ms)?)?)))
                        })
                        .collect(),
                    _ => serde_json::Map::new(),
                };
                json!({
                    "measured": o.measured_ms.and_then(at),
                    "predicted": predicted,
                })
            });
            json!({
                "index": o.index,
                "parameters": parameters,
                "part": sum.split_parts.as_ref().and_then(|p| p.of_row.get(&o.index)),
                "measured_ms": o.measured_ms,
                "status": status,
                "predicted_ms": predicted,
                "interval_ms": ranges,
                "bottleneck": limits,
                "objective": objective,
                "error": error,
                "timings": timings.get(i).copied().flatten().as_ref().map(crate::timings::json),
            })
        })
        .collect();
    json!({
        "schema": 1,
        "command": sum.command,
        "experiment": sum.experiment,
        "data": sum.data,
        "data_gpu": sum.data_gpu,
        "gpu": sum.gpu,
        "kernel": sum.kernel,
        "configurations": sum.configurations,
        "part": sum.part.as_ref().map(|p| json!({
            "part": p.part,
            "split": p.split,
            "role": p.role,
            "configurations": p.configurations,
        })),
        "split_parts": sum.split_parts.as_ref().map(|p| json!({
            "split": p.split,
            "development": p.development,
            "check": p.check,
            "excluded": p.excluded,
        })),
        "sampled": sum.sampled,
        "seed": sum.seed,
        "sample_ctas": sum.sample_ctas,
        "ptx_arch": sum.ptx_arch,
        "profiles": sum.profiles,
        "profile_rules": sum.profile_rules.iter().map(|(r, n)| json!({
            "rules": r,
            "profiles": n,
        })).collect::<Vec<_>>(),
        "clock_mhz": sum.clock_mhz.map(|(held, rated)| json!({
            "held": held,
            "rated": rated,
        })),
        "jobs": sum.jobs,
        "elapsed_seconds": sum.elapsed_s,
        "measured": sum.measured.as_ref().map(|m| json!({
            "configurations": m.n,
            "min_ms": m.min_ms,
            "max_ms": m.max_ms,
            "span": m.span(),
            "repeat_noise": m.noise,
            "launch_drift": m.drift,
        })),
        "compilers": sum.compilers.as_ref().map(|(data, ours)| json!({
            "data": data,
            "ptxperf": ours,
        })),
        "timings": crate::timings::totals_json(&sum.timings),
        "bootstrap": sum.bootstrap.map(|b| json!({
            "resamples": b.resamples,
            "seed": b.seed,
            "confidence": b.confidence,
        })),
        "transfer": sum.transfer.as_ref().map(transfer_json),
        "objective": sum.objective.as_ref().map(|o| json!({
            "name": o.name,
            "expression": o.text,
            "higher_is_better": o.higher_is_better,
        })),
        "note": TIME_NOTE,
        "models": models,
        "by_parameter": crate::by_param::json(by_param),
        "results": configurations,
    })
}

/// The line a run on several GPUs ends its text with: how much compiling
/// and emulating served how many GPU predictions.
pub fn shared_line(shared: &study::validation::Shared, gpus: usize) -> String {
    format!(
        "shared work: {} configurations on {gpus} GPUs: {} PTX compiled and {} from the cache (one per configuration and architecture), {} emulations (one per distinct PTX; PTX that differs only in its .target is emulated once), served {} GPU predictions{}",
        shared.configurations,
        shared.ptx_compiled,
        shared.ptx_cache_hits,
        shared.emulations,
        shared.predictions,
        resumed_note(shared.resumed)
    )
}

/// JSON (schema 1) of a run on several GPUs: `gpus` holds one object per
/// GPU, each exactly what a one-GPU run prints ([`json`]), and `shared` the
/// work they shared (docs/json.md, `validate` on several GPUs).
pub fn json_multi(command: &str, gpus: Vec<Value>, shared: &study::validation::Shared) -> Value {
    json!({
        "schema": 1,
        "command": command,
        "shared": {
            "configurations": shared.configurations,
            "ptx_compiled": shared.ptx_compiled,
            "ptx_cache_hits": shared.ptx_cache_hits,
            "emulations": shared.emulations,
            "predictions": shared.predictions,
            "resumed": shared.resumed,
        },
        "timings": crate::timings::totals_json(&shared.timings),
        "gpus": gpus,
    })
}
