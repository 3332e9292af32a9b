//! `ptxperf tune --kt-cache FILE`: one model's predictions on one GPU as a
//! Kernel Tuner cache file, so that Kernel Tuner's search strategies run on
//! them in its simulation mode (`tune_kernel(..., cache=FILE,
//! simulation_mode=True)`) as they run on measured cache files: to compare
//! strategies on a GPU one does not have, or to try a strategy before
//! spending GPU time.
//!
//! The layout is the one Kernel Tuner 1.5 writes and reads
//! (`kernel_tuner.util.process_cache` and `read_cache`): `device_name`,
//! `kernel_name`, `problem_size` (where the experiment fixes it),
//! `tune_params_keys`, `tune_params`, `objective` and `cache`, which maps
//! the values of a configuration joined by commas, in `tune_params_keys`
//! order, to its parameters and `time` in ms (with `times`, and zero
//! compile, verification, benchmark, strategy and framework times, which
//! its simulation adds up as time spent). A configuration the GPU cannot
//! launch, or ptxperf could not compile, emulate or predict, has for its
//! time the name of Kernel Tuner's error: `InvalidConfig` (a block larger
//! than the GPU allows), `CompilationFailedConfig` (static shared memory
//! above the limit, which ptxas refuses) or `RuntimeFailedConfig` (the
//! rest); strategies skip those as they skip measured failures. With an
//! objective ([`tune::Objective`]) its value is kept under its name too,
//! and `objective` names it.

use serde_json::{Map, Value, json};
use study::{Outcome, Status};
use validate::ParamValue;

use crate::tune::Report;

/// What the file says of the kernel beyond the report.
pub struct KtCacheKernel<'a> {
    /// Kernel Tuner's `kernel_name`.
    pub kernel_name: &'a str,
    /// Kernel Tuner's `problem_size`, where fixed.
    pub problem_size: Option<Vec<i64>>,
    /// The tunable parameters and their values, in the space's order
    /// (Kernel Tuner's `tune_params`).
    pub params: Vec<(String, Vec<ParamValue>)>,
}

fn value(v: &ParamValue) -> Value {
    match v.as_int() {
        Some(i) => json!(i),
        None => json!(v.to_string()),
    }
}

/// Kernel Tuner's error for a configuration that has no time.
fn error_name(status: &Status) -> &'static str {
    let kind = match status {
        Status::RejectedEarly { kind, .. }
        | Status::Done {
            outcome: Outcome::Rejected { kind, .. },
            ..
        } => kind.as_str(),
        _ => "",
    };
    match kind {
        "threads_per_block" | "block_dimension" => "InvalidConfig",
        "static_shared_memory" => "CompilationFailedConfig",
        _ => "RuntimeFailedConfig",
    }
}

/// The cache file (JSON text) of model `model_index` of `r`.
pub fn kt_cache(r: &Report<'_>, model_index: usize, kernel: &KtCacheKernel<'_>) -> String {
    let keys: Vec<&str> = kernel.params.iter().map(|(n, _)| n.as_str()).collect();
    let objective_name = r.objective.map_or("time", |o| o.name.as_str());
    // In the run's order (the space's).
    let mut cache: Vec<(String, Value)> = Vec::with_capacity(r.evaluations.len());
    for e in r.evaluations {
        let mut entry = Map::new();
        let mut key = Vec::with_capacity(keys.len());
        for name in &keys {
            let v = e.config.get(name);
            key.push(v.map(ToString::to_string).unwrap_or_default());
            entry.insert((*name).to_string(), v.map_or(Value::Null, value));
        }
        match e.ms(model_index) {
            Some(ms) => {
                entry.insert("time".into(), json!(ms));
                entry.insert("times".into(), json!([ms]));
                if let Some(o) = r.objective
                    && o.name != "time"
                {
                    // No finite value at the predicted time (a division by
                    // zero there): an error Kernel Tuner's strategies skip,
                    // not a null they would compare.
                    let v = o.value(&e.config, ms).ok();
                    entry.insert(
                        o.name.clone(),
                        v.map_or(json!("InvalidConfig"), |v| json!(v)),
                    );
                }
            }
            None => {
                let error = error_name(&e.status);
                entry.insert("time".into(), json!(error));
                if let Some(o) = r.objective
                    && o.name != "time"
                {
                    entry.insert(o.name.clone(), json!(error));
                }
            }
        }
        for t in [
            "compile_time",
            "verification_time",
            "benchmark_time",
            "strategy_time",
            "framework_time",
        ] {
            entry.insert(t.into(), json!(0.0));
        }
        cache.push((key.join(","), Value::Object(entry)));
    }
    // Written by hand, not as one JSON object: `serde_json` orders an
    // object's keys by name, and Kernel Tuner needs `cache` last (a file
    // that does not end in `}\n}` is taken for one left open, and closed
    // again) and `tune_params` in `tune_params_keys` order (a script that
    // passes the file's `tune_params` back must list them in that order).
    let json = |v: &Value| serde_json::to_string(v).unwrap_or_default();
    let mut text = String::from("{\n");
    text.push_str(&format!("\"device_name\": {},\n", json(&json!(r.gpu_name))));
    text.push_str(&format!(
        "\"kernel_name\": {},\n",
        json(&json!(kernel.kernel_name))
    ));
    if let Some(p) = &kernel.problem_size {
        text.push_str(&format!("\"problem_size\": {},\n", json(&json!(p))));
    }
    text.push_str(&format!("\"tune_params_keys\": {},\n", json(&json!(keys))));
    let params: Vec<String> = kernel
        .params
        .iter()
        .map(|(n, vs)| {
            let values = Value::Array(vs.iter().map(value).collect());
            format!("{}: {}", json(&json!(n)), json(&values))
        })
        .collect();
    text.push_str(&format!("\"tune_params\": {{{}}},\n", params.join(", ")));
    text.push_str(&format!(
        "\"objective\": {},\n",
        json(&json!(objective_name))
    ));
    text.push_str("\"cache\": {");
    let entries: Vec<String> = cache
        .iter()
        .map(|(k, v)| format!("\n{}: {}", json(&json!(k)), json(v)))
        .collect();
    text.push_str(&entries.join(","));
    text.push_str("\n}\n}\n");
    text
}
