//! What every model returns, and how it fails.

use std::collections::BTreeMap;

use serde::Serialize;

/// One model's prediction for one kernel on one GPU.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prediction {
    /// Model name as the command line takes it (`mwp-cwp`, `kothapalli-max`, ...).
    pub model: String,
    /// Predicted kernel time, seconds.
    pub seconds: f64,
    /// Predicted kernel time in core clock cycles (seconds x the model clock).
    pub cycles: f64,
    /// What limits the kernel according to this model, in a few words.
    pub bottleneck: String,
    /// The model's intermediate values and terms, by name (units in the name
    /// or in the model's module documentation).
    pub breakdown: BTreeMap<String, f64>,
}

/// Why a model could not predict.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// The inputs do not allow the model's equations to be evaluated.
    #[error("{model}: {message}")]
    InvalidInput {
        /// The model that refused.
        model: &'static str,
        /// Which input is wrong, and why.
        message: String,
    },
    /// The requested model name is not known.
    #[error("unknown model `{name}`; known models: {known}")]
    UnknownModel {
        /// The name asked for.
        name: String,
        /// Comma-separated list of the known names.
        known: String,
    },
    /// The roofline chart could not be drawn.
    #[error("roofline chart: {0}")]
    Chart(String),
}

/// An [`ModelError::InvalidInput`] for `model`.
pub(crate) fn invalid(model: &'static str, message: impl Into<String>) -> ModelError {
    ModelError::InvalidInput {
        model,
        message: message.into(),
    }
}

/// Require `value` to be finite and strictly positive.
pub(crate) fn positive(model: &'static str, name: &str, value: f64) -> Result<f64, ModelError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(invalid(
            model,
            format!("{name} must be a positive finite number, got {value}"),
        ))
    }
}

/// Require `value` to be finite and not negative.
pub(crate) fn non_negative(model: &'static str, name: &str, value: f64) -> Result<f64, ModelError> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(invalid(
            model,
            format!("{name} must be a finite non-negative number, got {value}"),
        ))
    }
}

impl Prediction {
    /// Build a prediction from a cycle count and the clock (Hz) that turns it into seconds.
    /// Fails unless both give a finite positive time.
    pub(crate) fn from_cycles(
        model: &'static str,
        cycles: f64,
        clock_hz: f64,
        bottleneck: impl Into<String>,
        breakdown: BTreeMap<String, f64>,
    ) -> Result<Self, ModelError> {
        positive(model, "predicted cycles", cycles)?;
        positive(model, "clock", clock_hz)?;
        let seconds = cycles / clock_hz;
        positive(model, "predicted time", seconds)?;
        Ok(Self {
            model: model.to_string(),
            seconds,
            cycles,
            bottleneck: bottleneck.into(),
            breakdown,
        })
    }
}
