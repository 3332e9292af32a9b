//! How a configuration becomes a launch shape: grid, block and dynamic
//! shared memory, from integer expressions over the parameters (the
//! experiment files' vocabulary, evaluated by `validate::expr`).
//!
//! ```toml
//! [launch]
//! problem_size = [4096, 4096]          # 1 to 3 integers or expressions
//! grid_div = ["block_size_x*tile_size_x", "block_size_y*tile_size_y"]
//! block = ["block_size_x", "block_size_y", 1]     # optional
//! # grid = ["N/block_size_x", 1]       # instead of problem_size/grid_div
//! dynamic_shared = "block_size_x*block_size_y*4"  # bytes, optional
//! ```
//!
//! Defaults follow Kernel Tuner (and `validate::Experiment`): the block is
//! (block_size_x, block_size_y, block_size_z) with 256, 1, 1 for an absent
//! parameter; a `grid_div` entry left out divides by that dimension's
//! block-size parameter (1 when absent); grid = ceil(problem / div). With
//! neither `grid` nor `problem_size` the grid is unknown (`None`).

use serde::{Deserialize, Serialize};
use validate::expr::{Expr, ExprError};

use crate::error::TuneError;
use crate::space::Config;

/// Kernel Tuner's block-size parameter names.
pub const BLOCK_SIZE_NAMES: [&str; 3] = ["block_size_x", "block_size_y", "block_size_z"];
/// Kernel Tuner's block dimensions when a block-size parameter is absent.
pub const BLOCK_DEFAULTS: [i64; 3] = [256, 1, 1];

#[derive(Deserialize, Clone)]
#[serde(untagged)]
pub(crate) enum IntOrExpr {
    Int(i64),
    Expr(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawLaunch {
    #[serde(default)]
    problem_size: Vec<IntOrExpr>,
    #[serde(default)]
    grid_div: Vec<IntOrExpr>,
    #[serde(default)]
    grid: Vec<IntOrExpr>,
    #[serde(default)]
    block: Vec<IntOrExpr>,
    #[serde(default)]
    dynamic_shared: Option<IntOrExpr>,
}

/// A size fixed in the file or an expression over the parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum Size {
    Fixed(i64),
    Expr(Expr),
}

impl Size {
    /// Parses an expression (an integer literal stays an expression; use
    /// `Size::Fixed` for numbers known up front).
    pub fn parse(text: &str) -> Result<Size, SizeError> {
        Expr::parse(text)
            .map(Size::Expr)
            .map_err(|source| SizeError {
                text: text.to_string(),
                source,
            })
    }

    fn eval(&self, config: &Config) -> Result<i64, ExprError> {
        match self {
            Size::Fixed(v) => Ok(*v),
            Size::Expr(e) => e.eval_int(&|name| config.int(name)),
        }
    }
}

/// A launch size that is not an expression: the text and why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("`{text}`: {source}")]
pub struct SizeError {
    pub text: String,
    pub source: ExprError,
}

/// The `[launch]` table, parsed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LaunchShape {
    pub problem_size: Vec<Size>,
    pub grid_div: Vec<Size>,
    /// Explicit grid; when non-empty, `problem_size` and `grid_div` are unused.
    pub grid: Vec<Size>,
    /// Explicit block; empty: Kernel Tuner's block-size parameters.
    pub block: Vec<Size>,
    pub dynamic_shared: Option<Size>,
}

/// A configuration's launch shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct LaunchDims {
    /// None when the space says nothing about the grid.
    pub grid: Option<[u64; 3]>,
    pub block: [u64; 3],
    /// Dynamic shared memory per block, bytes (0 unless `dynamic_shared`).
    pub dynamic_shared_bytes: u64,
}

impl LaunchDims {
    pub fn threads_per_block(&self) -> u64 {
        self.block.iter().product()
    }
}

impl LaunchShape {
    pub(crate) fn from_raw(raw: RawLaunch) -> Result<LaunchShape, (String, String)> {
        let list = |key: &str, v: &[IntOrExpr]| -> Result<Vec<Size>, (String, String)> {
            if v.len() > 3 {
                return Err((format!("launch.{key}"), "expected at most 3 entries".into()));
            }
            v.iter()
                .enumerate()
                .map(|(i, e)| one(&format!("launch.{key}[{i}]"), e))
                .collect()
        };
        fn one(key: &str, v: &IntOrExpr) -> Result<Size, (String, String)> {
            match v {
                IntOrExpr::Int(i) => Ok(Size::Fixed(*i)),
                IntOrExpr::Expr(s) => Size::parse(s).map_err(|m| (key.to_string(), m.to_string())),
            }
        }
        let shape = LaunchShape {
            problem_size: list("problem_size", &raw.problem_size)?,
            grid_div: list("grid_div", &raw.grid_div)?,
            grid: list("grid", &raw.grid)?,
            block: list("block", &raw.block)?,
            dynamic_shared: raw
                .dynamic_shared
                .as_ref()
                .map(|d| one("launch.dynamic_shared", d))
                .transpose()?,
        };
        let derived_grid = !shape.problem_size.is_empty() || !shape.grid_div.is_empty();
        if !shape.grid.is_empty() && derived_grid {
            return Err((
                "launch.grid".into(),
                "give either `grid` or `problem_size` (with `grid_div`), not both".into(),
            ));
        }
        Ok(shape)
    }

    /// Grid, block and dynamic shared memory of one configuration.
    pub fn dims(&self, config: &Config) -> Result<LaunchDims, TuneError> {
        let err = |key: String, message: String| TuneError::Launch {
            key,
            config: config.label(),
            message,
        };
        let positive = |key: String, v: i64| -> Result<u64, TuneError> {
            u64::try_from(v)
                .ok()
                .filter(|v| *v > 0)
                .ok_or_else(|| err(key, format!("evaluates to {v}, expected a positive size")))
        };
        let eval = |key: String, s: &Size| s.eval(config).map_err(|m| err(key, m.to_string()));

        let mut block = [1u64; 3];
        for (d, b) in block.iter_mut().enumerate() {
            let v = if self.block.is_empty() {
                let name = BLOCK_SIZE_NAMES[d];
                match config.get(name) {
                    None => BLOCK_DEFAULTS[d],
                    Some(v) => v
                        .as_int()
                        .ok_or_else(|| err(name.to_string(), format!("`{v}` is not an integer")))?,
                }
            } else {
                match self.block.get(d) {
                    Some(s) => eval(format!("block[{d}]"), s)?,
                    None => 1,
                }
            };
            *b = positive(format!("block[{d}]"), v)?;
        }

        let grid = if !self.grid.is_empty() {
            let mut g = [1u64; 3];
            for (d, s) in self.grid.iter().enumerate() {
                g[d] = positive(format!("grid[{d}]"), eval(format!("grid[{d}]"), s)?)?;
            }
            Some(g)
        } else if !self.problem_size.is_empty() {
            let mut g = [1u64; 3];
            for (d, slot) in g.iter_mut().enumerate() {
                let problem = match self.problem_size.get(d) {
                    Some(s) => {
                        let key = format!("problem_size[{d}]");
                        let v = eval(key.clone(), s)?;
                        u64::try_from(v)
                            .map_err(|_| err(key, format!("evaluates to {v}, expected >= 0")))?
                    }
                    None => 1,
                };
                let div = match self.grid_div.get(d) {
                    Some(s) => eval(format!("grid_div[{d}]"), s)?,
                    None => config.int(BLOCK_SIZE_NAMES[d]).unwrap_or(1),
                };
                *slot = problem.div_ceil(positive(format!("grid_div[{d}]"), div)?);
            }
            Some(g)
        } else {
            None
        };

        let dynamic_shared_bytes = match &self.dynamic_shared {
            None => 0,
            Some(s) => {
                let v = eval("dynamic_shared".into(), s)?;
                u64::try_from(v).map_err(|_| {
                    err(
                        "dynamic_shared".into(),
                        format!("evaluates to {v}, expected >= 0"),
                    )
                })?
            }
        };
        Ok(LaunchDims {
            grid,
            block,
            dynamic_shared_bytes,
        })
    }
}
