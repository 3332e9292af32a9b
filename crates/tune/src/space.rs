//! Tuning spaces: named parameters with lists of values, restrictions, and
//! how a configuration becomes a launch.
//!
//! From the command line, each `--param NAME=V1,V2,...` is one parameter
//! ([`parse_param_arg`]); each `--constraint EXPR` one restriction. From a
//! file, in the spirit of Kernel Tuner's `tune_params` and `restrictions`:
//!
//! ```toml
//! experiment = "convolution.toml"   # optional: an experiment file (validate)
//! restrictions = ["block_size_x*block_size_y <= 1024"]  # before [params]
//!
//! [params]                          # file order = product order
//! block_size_x = [16, 32, 64]
//! block_size_y = [1, 2, 4, 8]
//! variant = ["shared", "global"]    # strings are values too
//!
//! [launch]                          # optional, see launch::LaunchShape
//! problem_size = [4096, 4096]
//! grid_div = ["block_size_x", "block_size_y"]
//!
//! [objective]                       # optional, see objective::Objective
//! name = "GFLOP/s"
//! expression = "steps * 2 * 4096 * 4096 / 1e9 / (time / 1e3)"
//! higher_is_better = true
//! ```
//!
//! The configurations are the cartesian product with the first parameter
//! varying slowest, as Python's `itertools.product` (and so Kernel Tuner)
//! enumerates them; a configuration's `index` is its position in that full
//! product, before restrictions.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use validate::ParamValue;

use crate::constraint::Constraint;
use crate::error::TuneError;
use crate::launch::{LaunchShape, RawLaunch};
use crate::objective::{Objective, RawObjective};
use crate::verdicts::Verdicts;

/// Largest space [`Space::expand`] enumerates; bigger spaces are an error
/// (sample them instead).
pub const MAX_CONFIGS: u64 = 1 << 24;

/// One tunable parameter and its values, in the order given.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    pub values: Vec<ParamValue>,
}

/// One point of the space.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Config {
    /// Position in the full cartesian product (first parameter slowest).
    pub index: u64,
    /// (name, value) in the space's parameter order.
    pub values: Vec<(String, ParamValue)>,
}

impl Config {
    /// The value of `name`, if the space has that parameter.
    pub fn get(&self, name: &str) -> Option<&ParamValue> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// Borrowed pairs, the shape `validate::Experiment::launch` takes.
    pub fn pairs(&self) -> Vec<(&str, &ParamValue)> {
        self.values.iter().map(|(n, v)| (n.as_str(), v)).collect()
    }

    /// `name=value` pairs joined by commas, in parameter order.
    pub fn label(&self) -> String {
        self.values
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The integer value of `name`, for expressions.
    pub fn int(&self, name: &str) -> Option<i64> {
        self.get(name).and_then(ParamValue::as_int)
    }
}

/// Parses one value as written on a command line: an integer when it reads
/// as one, else the text itself.
pub fn parse_value(text: &str) -> ParamValue {
    let t = text.trim();
    t.parse::<i64>()
        .map_or_else(|_| ParamValue::Str(t.to_string()), ParamValue::Int)
}

/// Parses `NAME=V1,V2,...`.
pub fn parse_param_arg(arg: &str) -> Result<Param, TuneError> {
    let bad = |m: &str| TuneError::Param {
        arg: arg.to_string(),
        message: m.to_string(),
    };
    let (name, values) = arg
        .split_once('=')
        .ok_or_else(|| bad("expected NAME=V1,V2,..."))?;
    let name = name.trim();
    check_name(name).map_err(|m| bad(&m.to_string()))?;
    let mut out: Vec<ParamValue> = Vec::new();
    for v in values.split(',') {
        if v.trim().is_empty() {
            return Err(bad("empty value"));
        }
        let v = parse_value(v);
        if out.contains(&v) {
            return Err(bad(&format!("value `{v}` given twice")));
        }
        out.push(v);
    }
    Ok(Param {
        name: name.to_string(),
        values: out,
    })
}

/// Why a parameter name is refused; the callers put it into a [`TuneError`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum BadName {
    #[error("`{0}` is not a parameter name (letters, digits, _)")]
    NotAName(String),
    #[error("`{0}` is reserved in constraints")]
    Reserved(String),
}

fn check_name(name: &str) -> Result<(), BadName> {
    let mut chars = name.chars();
    let ok_start = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if !ok_start || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(BadName::NotAName(name.to_string()));
    }
    if matches!(
        name,
        "and" | "or" | "not" | "True" | "False" | "true" | "false"
    ) {
        return Err(BadName::Reserved(name.to_string()));
    }
    Ok(())
}

/// A tuning space.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Space {
    pub params: Vec<Param>,
    pub restrictions: Vec<Constraint>,
    /// How a configuration becomes grid, block and dynamic shared memory.
    pub launch: LaunchShape,
    /// An experiment file named by the space file, resolved against it.
    pub experiment: Option<PathBuf>,
    /// What the run ranks by when it is not the time alone (`[objective]`).
    pub objective: Option<Objective>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpace {
    #[serde(default)]
    experiment: Option<String>,
    #[serde(default)]
    restrictions: Vec<String>,
    #[serde(default)]
    params: toml::Table,
    #[serde(default)]
    launch: Option<RawLaunch>,
    #[serde(default)]
    objective: Option<RawObjective>,
}

/// What [`Space::expand`] returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Expansion {
    /// Size of the full product.
    pub total: u64,
    /// Configurations satisfying every restriction, in product order.
    #[serde(skip)]
    pub kept: Vec<Config>,
    /// For each restriction (in order), how many configurations it was the
    /// first to reject.
    pub rejected_by: Vec<(String, u64)>,
}

impl Space {
    /// Reads a space file.
    pub fn load(path: &Path) -> Result<Space, TuneError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| TuneError::File {
            file: file.clone(),
            at: String::new(),
            message: format!("cannot read: {e}"),
        })?;
        Space::parse(&file, &text, path.parent().unwrap_or(Path::new("")))
    }

    /// Parses space-file text; `experiment` resolves against `base`.
    pub fn parse(file: &str, text: &str, base: &Path) -> Result<Space, TuneError> {
        let raw: RawSpace = toml::from_str(text).map_err(|e| TuneError::File {
            file: file.to_string(),
            at: e.span().map_or(String::new(), |s| {
                let (l, c) = syntax::line_col(text, s.start);
                format!("{l}:{c}")
            }),
            message: e.message().trim().to_string(),
        })?;
        let err = |at: String, message: String| TuneError::File {
            file: file.to_string(),
            at,
            message,
        };
        let mut space = Space {
            experiment: raw.experiment.map(|e| base.join(e)),
            ..Space::default()
        };
        // `toml`'s tables iterate by name; the product's order is the
        // file's, so the parameters are taken in the order their keys stand.
        let mut params: Vec<(&String, &toml::Value)> = raw.params.iter().collect();
        // Each key's offset is looked up once (it parses the text).
        params.sort_by_cached_key(|(name, _)| {
            syntax::toml_key_offset(text, &["params", name.as_str()]).unwrap_or(usize::MAX)
        });
        for (name, v) in params {
            let at = format!("params.{name}");
            if name == "restrictions" {
                return Err(err(
                    at,
                    "`restrictions` must come before `[params]` (at the top of the file)".into(),
                ));
            }
            check_name(name).map_err(|m| err(at.clone(), m.to_string()))?;
            let list = v
                .as_array()
                .ok_or_else(|| err(at.clone(), "expected a list of values".into()))?;
            let mut values = Vec::with_capacity(list.len());
            for (i, item) in list.iter().enumerate() {
                let value = match item {
                    toml::Value::Integer(i) => ParamValue::Int(*i),
                    toml::Value::String(s) => ParamValue::Str(s.clone()),
                    // Kept as text: Kernel Tuner writes it with str().
                    toml::Value::Float(f) => ParamValue::Str(f.to_string()),
                    toml::Value::Boolean(b) => {
                        ParamValue::Str(if *b { "True" } else { "False" }.to_string())
                    }
                    _ => {
                        return Err(err(
                            format!("{at}[{i}]"),
                            "expected an integer, a string, a float or a boolean".into(),
                        ));
                    }
                };
                if values.contains(&value) {
                    return Err(err(format!("{at}[{i}]"), format!("`{value}` given twice")));
                }
                values.push(value);
            }
            space
                .add_param(Param {
                    name: name.clone(),
                    values,
                })
                .map_err(|e| err(at, e.to_string()))?;
        }
        for (i, r) in raw.restrictions.iter().enumerate() {
            space
                .add_restriction(r)
                .map_err(|e| err(format!("restrictions[{i}]"), e.to_string()))?;
        }
        if let Some(l) = raw.launch {
            space.launch = LaunchShape::from_raw(l).map_err(|(at, m)| err(at, m))?;
        }
        if let Some(o) = &raw.objective {
            let objective =
                Objective::from_raw(o).map_err(|e| err("objective".into(), e.to_string()))?;
            space.objective = Some(objective);
        }
        Ok(space)
    }

    /// Adds a parameter; one of the same name has its values replaced in
    /// place (a `--param` overriding the file).
    pub fn add_param(&mut self, p: Param) -> Result<(), TuneError> {
        let bad = |m: &str| TuneError::Param {
            arg: p.name.clone(),
            message: m.to_string(),
        };
        check_name(&p.name).map_err(|m| bad(&m.to_string()))?;
        if p.values.is_empty() {
            return Err(bad("no values"));
        }
        match self.params.iter_mut().find(|q| q.name == p.name) {
            Some(q) => q.values = p.values,
            None => self.params.push(p),
        }
        Ok(())
    }

    /// Adds a restriction. Its names are checked when the space is expanded
    /// (a `--param` given later may supply them).
    pub fn add_restriction(&mut self, text: &str) -> Result<(), TuneError> {
        let c = Constraint::parse(text).map_err(|error| TuneError::Constraint {
            constraint: text.to_string(),
            error,
        })?;
        self.restrictions.push(c);
        Ok(())
    }

    /// Number of configurations in the full product (None past u64).
    pub fn size(&self) -> Option<u64> {
        self.params.iter().try_fold(1u64, |acc, p| {
            acc.checked_mul(u64::try_from(p.values.len()).ok()?)
        })
    }

    /// The configuration at `index` of the full product, if in range.
    pub fn config_at(&self, index: u64) -> Option<Config> {
        if index >= self.size()? {
            return None;
        }
        let mut rest = index;
        let mut values = vec![(String::new(), ParamValue::Int(0)); self.params.len()];
        // Last parameter fastest: peel digits from the right.
        for (slot, p) in values.iter_mut().zip(&self.params).rev() {
            let n = p.values.len() as u64;
            let digit = usize::try_from(rest % n).ok()?;
            rest /= n;
            *slot = (p.name.clone(), p.values.get(digit)?.clone());
        }
        Some(Config { index, values })
    }

    /// Every name a restriction reads must be a parameter.
    pub fn check_names(&self) -> Result<(), TuneError> {
        for r in &self.restrictions {
            for (name, column) in r.variables() {
                if !self.params.iter().any(|p| p.name == name) {
                    return Err(TuneError::Constraint {
                        constraint: r.text().to_string(),
                        error: crate::constraint::ConstraintError {
                            column,
                            message: format!("`{name}` is not a parameter"),
                        },
                    });
                }
            }
        }
        Ok(())
    }

    /// Whether `config` satisfies every restriction: `Ok(None)` when it
    /// does, else the index of the first restriction it breaks.
    pub fn first_broken(&self, config: &Config) -> Result<Option<usize>, TuneError> {
        let pairs = config.pairs();
        for (i, r) in self.restrictions.iter().enumerate() {
            let ok = r
                .eval_params(&pairs)
                .map_err(|error| TuneError::Restriction {
                    constraint: r.text().to_string(),
                    config: config.label(),
                    error,
                })?;
            if !ok {
                return Ok(Some(i));
            }
        }
        Ok(None)
    }

    /// Enumerates the product in order and applies the restrictions. An
    /// evaluation error (division by zero, overflow) is an error naming the
    /// configuration: guard with `and` to skip such points deliberately.
    pub fn expand(&self) -> Result<Expansion, TuneError> {
        self.check_names()?;
        let total = match self.size() {
            Some(t) if t <= MAX_CONFIGS => t,
            other => {
                return Err(TuneError::TooLarge {
                    size: other.map_or_else(|| "more than 2^64".to_string(), |s| s.to_string()),
                    max: MAX_CONFIGS,
                });
            }
        };
        let mut rejected = vec![0u64; self.restrictions.len()];
        let mut kept = Vec::new();
        let verdicts: Vec<Option<Verdicts>> = self
            .restrictions
            .iter()
            .map(|r| Verdicts::of(r, &self.params))
            .collect();
        let radix: Vec<usize> = self.params.iter().map(|p| p.values.len()).collect();
        // The value index of each parameter at `index`, last parameter fastest.
        let mut digits = vec![0usize; radix.len()];
        for index in 0..total {
            if index > 0 {
                for (d, &n) in digits.iter_mut().zip(&radix).rev() {
                    *d += 1;
                    if *d < n {
                        break;
                    }
                    *d = 0;
                }
            }
            let broken_at =
                |i: usize, error: crate::constraint::ConstraintError| TuneError::Restriction {
                    constraint: self.restrictions[i].text().to_string(),
                    config: self.config_at(index).map(|c| c.label()).unwrap_or_default(),
                    error,
                };
            let mut broken = None;
            for (i, v) in verdicts.iter().enumerate() {
                let ok = match v {
                    Some(v) => match v.at(&digits) {
                        Ok(ok) => *ok,
                        Err(e) => return Err(broken_at(i, e.clone())),
                    },
                    None => {
                        let Some(config) = self.config_at(index) else {
                            break;
                        };
                        self.restrictions[i]
                            .eval_params(&config.pairs())
                            .map_err(|e| broken_at(i, e))?
                    }
                };
                if !ok {
                    broken = Some(i);
                    break;
                }
            }
            match broken {
                None => match self.config_at(index) {
                    Some(config) => kept.push(config),
                    None => break,
                },
                Some(i) => rejected[i] += 1,
            }
        }
        Ok(Expansion {
            total,
            kept,
            rejected_by: self
                .restrictions
                .iter()
                .map(|r| r.text().to_string())
                .zip(rejected)
                .collect(),
        })
    }
}
