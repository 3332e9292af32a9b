//! The calibrated GPU file (`gpus/calibrated/<gpu>.toml`): the type lives in
//! `arch::calibration`, below both the models that read it and this crate,
//! which writes it.

pub use arch::calibration::{Calibration, CalibrationError};
