//! models: the analytical performance models of the seeds, as pure functions.
//!
//! Each model has two layers:
//! - a function on an explicit parameter struct, named and computed exactly as
//!   `../shared/research/models.md` (and the seed papers) state the model, so
//!   the published test vectors can be checked without any GPU file;
//! - an `adapter` that fills those parameters from a [`profile::KernelProfile`],
//!   an [`arch::Gpu`] and an [`arch::Occupancy`], documenting which field feeds
//!   which symbol and every default it assumes, and returns a [`Prediction`].
//!
//! Models: [`kothapalli`] (MAX and SUM), [`mwp_cwp`] (Hong & Kim; exact, paper
//! rounding and KLARAPTOR modes), [`gpuperf`] (with its potential-benefit
//! what-ifs), [`tmm`], [`mcm`] (Graham-Brent bound), [`roofline`] (classic and
//! hierarchical, plus an SVG chart). [`registry`] lists them by name, runs
//! any one, and measures how far a set of predictions agree. [`learned`]
//! is the trained model of issue 30 (gradient-boosted trees over the
//! others' outputs, the profile and the GPU). [`derive`] holds
//! the profile-to-launch derivations the adapters share. Nothing here prints.

pub mod derive;
pub mod gpuperf;
pub mod kothapalli;
pub mod learned;
pub mod mcm;
pub mod mwp_cwp;
mod prediction;
pub mod registry;
pub mod roofline;
pub mod timing;
pub mod tmm;

pub use prediction::{ModelError, Prediction};
pub use registry::{Agreement, MODEL_NAMES, agreement, predict};
