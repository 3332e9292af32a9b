//! Errors returned by configuration checks, trace building and simulation.

use crate::request::{Kind, Path};

/// Everything that can go wrong in this crate. Nothing panics on input: a bad
/// configuration or trace comes back as one of these values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CacheSimError {
    /// A cache level's geometry is unusable (sizes, powers of two, ways).
    #[error("invalid {level} geometry: {reason}")]
    Geometry {
        /// Which cache ("L1", "L2", "read-only cache", "constant cache").
        level: &'static str,
        /// What is wrong, in words.
        reason: String,
    },
    /// Another configuration field is out of range.
    #[error("invalid cache configuration: {0}")]
    Config(String),
    /// The launch description is unusable (zero SMs, zero resident CTAs...).
    #[error("invalid launch: {0}")]
    Launch(String),
    /// A request names a CTA outside the launch's grid.
    #[error("CTA {cta} is outside the grid of {grid} CTAs")]
    CtaOutOfGrid {
        /// The offending CTA id.
        cta: u32,
        /// The grid size from the launch.
        grid: u32,
    },
    /// Two requests of one warp share a sequence number, so their order is unknown.
    #[error("warp {warp} of CTA {cta} has two requests with seq {seq}")]
    DuplicateSeq {
        /// CTA id.
        cta: u32,
        /// Warp id within the CTA.
        warp: u32,
        /// The repeated sequence number.
        seq: u32,
    },
    /// The access kind cannot happen on that path (a store to constant memory...).
    #[error("a {kind:?} request cannot use the {path:?} path")]
    KindOnPath {
        /// Request kind.
        kind: Kind,
        /// Memory path.
        path: Path,
    },
    /// A per-lane access size of zero, or an address range past the end of the address space.
    #[error("invalid lane access: {0}")]
    LaneAccess(String),
    /// More sectors than the trace's 32-bit indices can hold.
    #[error("trace too large: {0}")]
    TooLarge(String),
}
