//! Calibrated microbenchmark figures (`gpus/calibrated/<id>.toml`, written by
//! `ptxperf fit gpu-benches`), read as plain data.
//!
//! The file format is `arch::calibration::Calibration`, the type the fit
//! writes, read here by the same code. The files of the repository are
//! embedded ([`bundled`]) so that the model stays a pure function of its
//! inputs; a caller may also parse another file with [`Calibration::from_toml`].

pub use arch::calibration::Calibration;

/// The calibration files of the repository, by catalog id.
const BUNDLED: [(&str, &str); 4] = [
    (
        "a100-sxm4-80gb",
        include_str!("../../../../gpus/calibrated/a100-sxm4-80gb.toml"),
    ),
    (
        "h100-pcie-80gb",
        include_str!("../../../../gpus/calibrated/h100-pcie-80gb.toml"),
    ),
    (
        "h200-sxm-141gb",
        include_str!("../../../../gpus/calibrated/h200-sxm-141gb.toml"),
    ),
    (
        "tesla-v100-sxm2-16gb",
        include_str!("../../../../gpus/calibrated/tesla-v100-sxm2-16gb.toml"),
    ),
];

/// The bundled calibration of GPU `id`, if the repository has one that parses.
pub fn bundled(id: &str) -> Option<Calibration> {
    BUNDLED
        .iter()
        .find(|(k, _)| *k == id)
        .and_then(|(k, text)| Calibration::from_toml(k, text).ok())
}

/// Ids of the GPUs with a bundled calibration.
pub fn bundled_ids() -> impl Iterator<Item = &'static str> {
    BUNDLED.iter().map(|(k, _)| *k)
}
