//! What a tuning run optimises when it is not the kernel's time alone:
//! Kernel Tuner's `objective` over its `metrics`, such as benchmark_hub's
//! hotspot, whose launch does `temporal_tiling_factor` steps and whose
//! objective is the useful work per second,
//! `temporal_tiling_factor * 15 * 4096 * 4096 / 1e9 / (time / 1e3)`
//! (GFLOP/s, higher is better). Ranked by time alone, the configurations
//! that do one step a launch always win.
//!
//! An objective is an expression of the experiment grammar with reals
//! (`validate::expr`: numbers, `+ - * / %`, parentheses, `min`, `max`) over
//! `time`, the kernel's time in milliseconds (a model's prediction, or a
//! measured time), and the space's integer parameters. A run ranks each
//! model by its [`Objective::cost`]: the objective itself when lower is
//! better, its reciprocal when higher is better, so that the ranking, the
//! ties and the ratio of a pick to the best ([`crate::pick_metrics`]) keep
//! one rule: a pick's ratio is then the best objective over the pick's (a
//! GFLOP/s of 90 where the best does 100 is 1.111).

use std::fmt;

use validate::expr::Expr;

use crate::error::TuneError;
use crate::space::Config;

/// The name an objective reads the kernel's time by (milliseconds).
pub const TIME: &str = "time";

/// A parsed objective.
#[derive(Debug, Clone, PartialEq)]
pub struct Objective {
    /// What reports call it (`GFLOP/s`); the expression when not named.
    pub name: String,
    /// The expression as written.
    pub text: String,
    expr: Expr,
    /// Higher values are better (throughputs); else lower (times, costs).
    pub higher_is_better: bool,
}

impl fmt::Display for Objective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let way = if self.higher_is_better {
            "higher"
        } else {
            "lower"
        };
        if self.name == self.text {
            write!(f, "{} ({way} is better)", self.text)
        } else {
            write!(f, "{} = {} ({way} is better)", self.name, self.text)
        }
    }
}

/// A space file's or an experiment file's `[objective]` table.
pub use validate::experiment::ObjectiveTable as RawObjective;

impl Objective {
    /// Parses `text`; it must read [`TIME`] (else every configuration would
    /// rank by its parameters alone, whatever the models predict).
    pub fn parse(
        text: &str,
        name: Option<&str>,
        higher_is_better: bool,
    ) -> Result<Objective, TuneError> {
        let bad = |message: String| TuneError::Objective {
            objective: text.to_string(),
            message,
        };
        let expr = Expr::parse(text).map_err(|e| bad(e.to_string()))?;
        if !expr.variables().iter().any(|v| v == TIME) {
            return Err(bad(format!(
                "it does not read `{TIME}` (the kernel's time in ms), so it cannot rank \
                 what the models predict"
            )));
        }
        let name = match name.map(str::trim) {
            Some("") => return Err(bad("its `name` is empty".into())),
            Some(n) => n.to_string(),
            None => text.trim().to_string(),
        };
        Ok(Objective {
            name,
            text: text.to_string(),
            expr,
            higher_is_better,
        })
    }

    /// From a space file's table.
    pub fn from_raw(raw: &RawObjective) -> Result<Objective, TuneError> {
        Objective::parse(&raw.expression, raw.name.as_deref(), raw.higher_is_better)
    }

    /// The objective of `config` running in `time_ms`.
    pub fn value(&self, config: &Config, time_ms: f64) -> Result<f64, TuneError> {
        let v = self
            .expr
            .eval_f64(&|name| {
                if name == TIME {
                    Some(time_ms)
                } else {
                    config.int(name).map(|i| i as f64)
                }
            })
            .map_err(|e| TuneError::Objective {
                objective: self.text.clone(),
                message: format!("on {}: {e}", config.label()),
            })?;
        if v.is_finite() {
            Ok(v)
        } else {
            Err(TuneError::Objective {
                objective: self.text.clone(),
                message: format!("on {} it is {v}", config.label()),
            })
        }
    }

    /// What ranks `config` running in `time_ms`, lower first: the value, or
    /// its reciprocal when higher is better. `None` where the value is not a
    /// finite positive number: nothing to rank.
    pub fn cost(&self, config: &Config, time_ms: f64) -> Option<f64> {
        let v = self.value(config, time_ms).ok().filter(|v| *v > 0.0)?;
        let c = if self.higher_is_better { 1.0 / v } else { v };
        c.is_finite().then_some(c)
    }

    /// Checks every configuration of a run before it is ranked: each name
    /// the objective reads is [`TIME`] or an integer parameter of the
    /// configuration (none is called `time`), and its value at a time of 1
    /// ms is a finite positive number (a time, a cost or a throughput), so
    /// that no configuration drops out of a ranking unsaid.
    pub fn check_configs(&self, configs: &[Config]) -> Result<(), TuneError> {
        let bad = |message: String| TuneError::Objective {
            objective: self.text.clone(),
            message,
        };
        let names = self.expr.variables();
        for c in configs {
            if c.get(TIME).is_some() {
                return Err(bad(format!(
                    "the space has a parameter called `{TIME}`, which the objective reads as \
                     the kernel's time: rename the parameter"
                )));
            }
            for name in names.iter().filter(|n| *n != TIME) {
                match c.get(name) {
                    None => {
                        let known: Vec<&str> = c.values.iter().map(|(n, _)| n.as_str()).collect();
                        return Err(bad(format!(
                            "unknown name `{name}`: it reads `{TIME}` (ms) and the parameters ({})",
                            known.join(", ")
                        )));
                    }
                    Some(v) if v.as_int().is_none() => {
                        return Err(bad(format!(
                            "parameter `{name}` is `{v}` on {}, not an integer",
                            c.label()
                        )));
                    }
                    Some(_) => {}
                }
            }
            let v = self.value(c, 1.0)?;
            if v <= 0.0 {
                return Err(bad(format!(
                    "on {} it is {v} at 1 ms: an objective must be positive (a time, a cost \
                     or a throughput)",
                    c.label()
                )));
            }
        }
        Ok(())
    }

    /// `times` (ms, indexed like `configs`) turned into costs, all scaled by
    /// one power of ten that puts the smallest in [1, 10): a ranking's tie
    /// rule ([`crate::tie`]) also joins figures that print alike as times,
    /// which at costs of 1e-5 (the reciprocal of a GFLOP/s) would join
    /// figures 10 % apart; scaled, it prints four digits, and ratios of
    /// costs are unchanged.
    pub fn costs(&self, configs: &[&Config], times: &[Option<f64>]) -> Vec<Option<f64>> {
        let raw: Vec<Option<f64>> = times
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let t = (*t).filter(|t| t.is_finite())?;
                self.cost(configs.get(i)?, t)
            })
            .collect();
        let Some(least) = raw.iter().flatten().copied().reduce(f64::min) else {
            return raw;
        };
        let scale = 10f64.powi(-(least.log10().floor() as i32));
        let scaled: Vec<Option<f64>> = raw.iter().map(|c| c.map(|c| c * scale)).collect();
        // Costs over 300 decades apart: left as they are.
        if scaled.iter().flatten().all(|c| c.is_finite() && *c > 0.0) {
            scaled
        } else {
            raw
        }
    }
}
