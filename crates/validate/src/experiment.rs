//! Experiment files (TOML): how a measured configuration becomes the launch
//! Kernel Tuner made of it.
//!
//! ```toml
//! source = "../third_party/kernel_tuner/convolution.cu"  # relative to this file, or a list
//! header = "cl_to_cuda.h"                   # optional: text before the source
//! kernel = "convolution_kernel"
//! problem_size = [4096, 4096]               # integers or expressions, 1 to 3
//! grid_div = ["block_size_x*tile_size_x", "block_size_y*tile_size_y"]
//! include_dirs = []                         # -I folders, relative to this file
//! block_size_names = ["block_size_x", "block_size_y", "block_size_z"]
//! restrictions = ["block_size_x*block_size_y <= 1024"]
//!
//! [[arg]]
//! name = "output"
//! type = "f32*"                             # pointer: a fresh buffer
//! len = "4096*4096"                         # integer or expression
//! init = "zeros"                            # as in the launch spec, or { formula = "..." }
//!
//! [[constant]]
//! name = "d_filter"
//! type = "f32"
//! len = "filter_width*filter_height"
//! init = { random = { seed = 7, lo = 0.0, hi = 1.0 } }
//!
//! [objective]                               # optional: what ranks configurations
//! name = "GFLOP/s"
//! expression = "2 * 4096 * 4096 / 1e9 / (time / 1e3)"
//! higher_is_better = true
//! ```
//!
//! Expressions (`expr`) read the configuration's integer parameters. A
//! `grid_div` entry left out (or the list shorter than 3) divides by that
//! dimension's block-size parameter, 1 when the configuration lacks it; the
//! block is the three `block_size_names` parameters (default block_size_x,
//! block_size_y, block_size_z) with Kernel Tuner's defaults 256, 1, 1
//! (`util.get_thread_block_dimensions`); grid =
//! ceil(problem / div) per dimension (`util.get_grid_dimensions`). A
//! `formula` init is a real expression of the element index `i` and the
//! parameters, evaluated here into explicit values. `restrictions` are
//! Kernel Tuner's: a configuration is in the space when every one holds
//! ([`Experiment::admits`]). A buffer marked `host_mapped = true` lives in
//! mapped (zero-copy) host memory: the kernel reaches it over PCIe.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::dataset::ParamValue;
use crate::error::{FileError, Location};
use crate::expr::{Expr, ExprError, Restriction};
use crate::launch::{Init, Launch, LaunchArg, LaunchConstant, ScalarType, ScalarValue};
use crate::source::{Replace, SourceFiles, kernel_tuner_defines};

/// Kernel Tuner's default block-size parameter names.
const BLOCK_SIZE_NAMES: [&str; 3] = ["block_size_x", "block_size_y", "block_size_z"];
/// Kernel Tuner's block dimensions when a block-size parameter is absent.
const BLOCK_DEFAULTS: [i64; 3] = [256, 1, 1];
/// Formula-initialised buffers are materialised; keep them small.
const MAX_FORMULA_LEN: u64 = 1 << 22;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExperiment {
    #[serde(default)]
    name: Option<String>,
    source: OneOrMany,
    #[serde(default)]
    header: Option<String>,
    kernel: String,
    problem_size: Vec<IntOrExpr>,
    #[serde(default)]
    grid_div: Vec<IntOrExpr>,
    #[serde(default)]
    include_dirs: Vec<String>,
    #[serde(default)]
    block_size_names: Option<Vec<String>>,
    #[serde(default)]
    restrictions: Vec<String>,
    #[serde(default)]
    replace: Vec<RawReplace>,
    #[serde(default)]
    arg: Vec<RawArg>,
    #[serde(default)]
    constant: Vec<RawConstant>,
    #[serde(default)]
    objective: Option<ObjectiveTable>,
}

/// An `[objective]` table (an experiment's or a tuning space's): what
/// ranks configurations when it is not the kernel's time alone, Kernel
/// Tuner's `objective` (`tune::Objective` parses and checks it).
#[derive(Debug, Deserialize, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ObjectiveTable {
    /// An expression of `time` (ms) and the integer parameters.
    pub expression: String,
    /// What reports call it (`GFLOP/s`); the expression when left out.
    #[serde(default)]
    pub name: Option<String>,
    /// A throughput: higher values are better.
    #[serde(default)]
    pub higher_is_better: bool,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct RawReplace {
    from: String,
    to: String,
}

#[derive(Deserialize, Clone)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize, Clone)]
#[serde(untagged)]
enum IntOrExpr {
    Int(i64),
    Expr(String),
}

#[derive(Deserialize, Clone)]
#[serde(untagged)]
enum NumOrExpr {
    Int(i64),
    Float(f64),
    Expr(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawArg {
    name: String,
    #[serde(rename = "type")]
    ty: String,
    #[serde(default)]
    len: Option<IntOrExpr>,
    #[serde(default)]
    value: Option<NumOrExpr>,
    #[serde(default)]
    init: Option<RawInit>,
    #[serde(default)]
    host_mapped: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConstant {
    name: String,
    #[serde(rename = "type")]
    ty: String,
    len: IntOrExpr,
    #[serde(default)]
    init: Option<RawInit>,
}

#[derive(Deserialize, Clone)]
#[serde(untagged)]
enum RawInit {
    Named(String),
    Table(InitTable),
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct InitTable {
    fill: Option<f64>,
    random: Option<RandomInit>,
    file: Option<String>,
    formula: Option<String>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(deny_unknown_fields)]
struct RandomInit {
    seed: u64,
    lo: f64,
    hi: f64,
}

/// A number fixed in the file or an expression over the parameters.
#[derive(Debug, Clone, PartialEq)]
enum Size {
    Fixed(i64),
    Expr(Expr),
}

#[derive(Debug, Clone, PartialEq)]
enum InitSpec {
    Ready(Init),
    Formula(Expr),
}

#[derive(Debug, Clone, PartialEq)]
enum ArgSpec {
    Scalar {
        name: String,
        ty: ScalarType,
        value: ScalarSpec,
    },
    Buffer {
        name: String,
        elem: ScalarType,
        len: Size,
        init: InitSpec,
        host_mapped: bool,
    },
}

#[derive(Debug, Clone, PartialEq)]
enum ScalarSpec {
    Float(f64),
    Int(Size),
}

#[derive(Debug, Clone, PartialEq)]
struct ConstantSpec {
    name: String,
    elem: ScalarType,
    len: Size,
    init: InitSpec,
}

/// A loaded experiment file.
#[derive(Debug, Clone, PartialEq)]
pub struct Experiment {
    /// Label (the `name` key, else the file stem).
    pub name: String,
    /// The file it came from, for errors.
    pub file: String,
    /// The source files and header, resolved against the file's folder.
    pub source: SourceFiles,
    pub kernel: String,
    pub include_dirs: Vec<PathBuf>,
    /// The parameters that give the block's x, y and z sizes.
    pub block_size_names: [String; 3],
    restrictions: Vec<Restriction>,
    problem_size: Vec<Size>,
    grid_div: Vec<Size>,
    args: Vec<ArgSpec>,
    constants: Vec<ConstantSpec>,
    /// The `[objective]` table, as written (checked where it is used).
    pub objective: Option<ObjectiveTable>,
}

/// What to add to a TOML error when `file` names a kernel source (a common
/// slip: `validate k.cu` where the experiment file was meant); the parser's
/// own message says nothing of the mix-up.
fn kernel_source_hint(file: &str) -> &'static str {
    let ext = Path::new(file)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    if matches!(ext, "ptx" | "cu" | "cuh" | "cl" | "opencl") {
        "; this is a kernel source, not an experiment file: an experiment is a TOML \
         file that names the source and Kernel Tuner's launch (docs/experiments.md)"
    } else {
        ""
    }
}

impl Experiment {
    /// Kernel Tuner's `problem_size` when every dimension is a number in
    /// the file (None when one is an expression of the parameters, a
    /// `callable` problem size to Kernel Tuner).
    pub fn fixed_problem_size(&self) -> Option<Vec<i64>> {
        self.problem_size
            .iter()
            .map(|s| match s {
                Size::Fixed(v) => Some(*v),
                Size::Expr(_) => None,
            })
            .collect()
    }

    /// Reads and checks an experiment file.
    pub fn load(path: &Path) -> Result<Experiment, FileError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| FileError::new(&file, Location::File, format!("cannot read: {e}")))?;
        let base = path.parent().unwrap_or(Path::new(""));
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Experiment::parse(&file, &text, base, &stem)
    }

    /// Parses experiment text; relative paths resolve against `base`.
    pub fn parse(
        file: &str,
        text: &str,
        base: &Path,
        default_name: &str,
    ) -> Result<Experiment, FileError> {
        let raw: RawExperiment = toml::from_str(text).map_err(|e| {
            let at = e.span().map_or(Location::File, |s| line_col(text, s.start));
            let message = e.message().trim();
            FileError::new(file, at, format!("{message}{}", kernel_source_hint(file)))
        })?;
        let key_err = |key: String, msg: String| FileError::new(file, Location::Key(key), msg);
        let size = |key: String, v: &IntOrExpr| -> Result<Size, FileError> {
            match v {
                IntOrExpr::Int(i) => Ok(Size::Fixed(*i)),
                IntOrExpr::Expr(s) => Expr::parse(s)
                    .map(Size::Expr)
                    .map_err(|e| key_err(key, format!("`{s}`: {e}"))),
            }
        };
        if raw.problem_size.is_empty() || raw.problem_size.len() > 3 {
            return Err(key_err(
                "problem_size".into(),
                "expected 1 to 3 entries".into(),
            ));
        }
        let sources = match &raw.source {
            OneOrMany::One(s) => vec![s.clone()],
            OneOrMany::Many(v) => v.clone(),
        };
        let mut sources = sources.iter().map(|s| base.join(s));
        let Some(main) = sources.next() else {
            return Err(key_err(
                "source".into(),
                "expected a file or a non-empty list of files".into(),
            ));
        };
        let source = SourceFiles {
            main,
            more: sources.collect(),
            header: raw.header.as_ref().map(|h| base.join(h)),
            replace: raw
                .replace
                .iter()
                .map(|r| Replace {
                    from: r.from.clone(),
                    to: r.to.clone(),
                })
                .collect(),
        };
        if let Some(i) = source.replace.iter().position(|r| r.from.is_empty()) {
            return Err(key_err(
                format!("replace[{i}].from"),
                "an empty string replaces nothing".into(),
            ));
        }
        let block_size_names = match &raw.block_size_names {
            None => BLOCK_SIZE_NAMES.map(String::from),
            Some(names) if names.is_empty() || names.len() > 3 => {
                return Err(key_err(
                    "block_size_names".into(),
                    "expected 1 to 3 names".into(),
                ));
            }
            Some(names) => {
                let mut all = BLOCK_SIZE_NAMES.map(String::from);
                for (d, n) in names.iter().enumerate() {
                    if !is_identifier(n) {
                        return Err(key_err(
                            format!("block_size_names[{d}]"),
                            format!("`{n}` is not a parameter name"),
                        ));
                    }
                    all[d] = n.clone();
                }
                all
            }
        };
        let restrictions = raw
            .restrictions
            .iter()
            .enumerate()
            .map(|(i, r)| {
                Restriction::parse(r)
                    .map_err(|e| key_err(format!("restrictions[{i}]"), format!("`{r}`: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        if raw.grid_div.len() > 3 {
            return Err(key_err(
                "grid_div".into(),
                "expected at most 3 entries".into(),
            ));
        }
        let problem_size = raw
            .problem_size
            .iter()
            .enumerate()
            .map(|(i, v)| size(format!("problem_size[{i}]"), v))
            .collect::<Result<_, _>>()?;
        let grid_div = raw
            .grid_div
            .iter()
            .enumerate()
            .map(|(i, v)| size(format!("grid_div[{i}]"), v))
            .collect::<Result<_, _>>()?;

        let mut args = Vec::new();
        for (i, a) in raw.arg.iter().enumerate() {
            let key = |field: &str| format!("arg[{i}].{field}");
            if let Some(elem) = a.ty.strip_suffix('*') {
                let elem =
                    parse_type(elem.trim()).ok_or_else(|| key_err(key("type"), bad_type(&a.ty)))?;
                if a.value.is_some() {
                    return Err(key_err(
                        key("value"),
                        "a buffer takes `len` and `init`, not `value`".into(),
                    ));
                }
                let len = a
                    .len
                    .as_ref()
                    .ok_or_else(|| key_err(key("len"), "a buffer needs `len`".into()))?;
                args.push(ArgSpec::Buffer {
                    name: a.name.clone(),
                    elem,
                    len: size(key("len"), len)?,
                    init: init_spec(a.init.as_ref(), base, &key("init"), &key_err)?,
                    host_mapped: a.host_mapped.unwrap_or(false),
                });
            } else {
                let ty = parse_type(&a.ty).ok_or_else(|| key_err(key("type"), bad_type(&a.ty)))?;
                if a.len.is_some() || a.init.is_some() {
                    return Err(key_err(
                        key("len"),
                        "a scalar takes `value`, not `len` or `init`".into(),
                    ));
                }
                if a.host_mapped.is_some() {
                    return Err(key_err(
                        key("host_mapped"),
                        "only a buffer (`type` ending in `*`) can live in host memory".into(),
                    ));
                }
                let value = match &a.value {
                    None => return Err(key_err(key("value"), "a scalar needs `value`".into())),
                    Some(NumOrExpr::Float(f)) if ty.is_float() => ScalarSpec::Float(*f),
                    Some(NumOrExpr::Float(f)) => {
                        return Err(key_err(
                            key("value"),
                            format!("{f} is not an integer for type {ty}"),
                        ));
                    }
                    Some(NumOrExpr::Int(v)) if ty.is_float() => ScalarSpec::Float(*v as f64),
                    Some(NumOrExpr::Int(v)) => ScalarSpec::Int(Size::Fixed(*v)),
                    Some(NumOrExpr::Expr(s)) => {
                        ScalarSpec::Int(size(key("value"), &IntOrExpr::Expr(s.clone()))?)
                    }
                };
                args.push(ArgSpec::Scalar {
                    name: a.name.clone(),
                    ty,
                    value,
                });
            }
        }
        let mut constants = Vec::new();
        for (i, c) in raw.constant.iter().enumerate() {
            let key = |field: &str| format!("constant[{i}].{field}");
            constants.push(ConstantSpec {
                name: c.name.clone(),
                elem: parse_type(&c.ty).ok_or_else(|| key_err(key("type"), bad_type(&c.ty)))?,
                len: size(key("len"), &c.len)?,
                init: init_spec(c.init.as_ref(), base, &key("init"), &key_err)?,
            });
        }

        Ok(Experiment {
            name: raw.name.unwrap_or_else(|| default_name.to_string()),
            file: file.to_string(),
            source,
            kernel: raw.kernel,
            include_dirs: raw.include_dirs.iter().map(|d| base.join(d)).collect(),
            block_size_names,
            restrictions,
            problem_size,
            grid_div,
            args,
            constants,
            objective: raw.objective,
        })
    }

    /// The restrictions' texts, in the file's order.
    pub fn restrictions(&self) -> impl Iterator<Item = &str> {
        self.restrictions.iter().map(Restriction::text)
    }

    /// Whether a configuration is in Kernel Tuner's space: every restriction
    /// holds. A restriction that reads a name the configuration lacks, or
    /// that cannot be evaluated (a division by zero), is an error naming it.
    pub fn admits(&self, params: &[(&str, &ParamValue)]) -> Result<bool, FileError> {
        let var = |name: &str| {
            params
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| match v {
                    ParamValue::Int(i) => syntax::expr::Value::Int(*i),
                    ParamValue::Str(s) => syntax::expr::Value::Str(s.clone()),
                })
        };
        for (i, r) in self.restrictions.iter().enumerate() {
            let holds = r.holds(&var).map_err(|e| {
                FileError::new(
                    &self.file,
                    Location::Key(format!("restrictions[{i}]")),
                    format!("`{}`: {e}", r.text()),
                )
            })?;
            if !holds {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The launch of one configuration, given as (name, value) pairs in the
    /// dataset's parameter order (that order is the order of the defines).
    pub fn launch(&self, params: &[(&str, &ParamValue)]) -> Result<Launch, FileError> {
        let key_err =
            |key: String, msg: String| FileError::new(&self.file, Location::Key(key), msg);
        let var = |name: &str| -> Option<i64> {
            params
                .iter()
                .find(|(n, _)| *n == name)
                .and_then(|(_, v)| v.as_int())
        };
        let eval = |key: String, s: &Size| -> Result<i64, FileError> {
            match s {
                Size::Fixed(v) => Ok(*v),
                Size::Expr(e) => e
                    .eval_int(&var)
                    .map_err(|err| key_err(key, err.to_string())),
            }
        };
        let non_negative = |key: String, v: i64| -> Result<u64, FileError> {
            u64::try_from(v).map_err(|_| key_err(key, format!("evaluates to {v}, expected >= 0")))
        };

        let mut block = [0u64; 3];
        for (d, name) in self.block_size_names.iter().enumerate() {
            let v = match params.iter().find(|(n, _)| n == name) {
                None => BLOCK_DEFAULTS[d],
                Some((_, ParamValue::Int(v))) => *v,
                Some((_, other)) => {
                    return Err(key_err(
                        format!("block ({name})"),
                        format!("`{other}` is not an integer"),
                    ));
                }
            };
            block[d] = u64::try_from(v).ok().filter(|b| *b > 0).ok_or_else(|| {
                key_err(
                    format!("block ({name})"),
                    format!("{v} is not a positive size"),
                )
            })?;
        }

        let mut grid = [1u64; 3];
        for (d, g) in grid.iter_mut().enumerate() {
            let problem = match self.problem_size.get(d) {
                Some(s) => non_negative(
                    format!("problem_size[{d}]"),
                    eval(format!("problem_size[{d}]"), s)?,
                )?,
                None => 1,
            };
            let div = match self.grid_div.get(d) {
                Some(s) => eval(format!("grid_div[{d}]"), s)?,
                // Kernel Tuner divides by the block-size parameter, or 1.
                None => var(&self.block_size_names[d]).unwrap_or(1),
            };
            let div = u64::try_from(div).ok().filter(|v| *v > 0).ok_or_else(|| {
                key_err(
                    format!("grid_div[{d}]"),
                    format!("divisor {div} is not positive"),
                )
            })?;
            *g = problem.div_ceil(div);
        }

        let names = [0, 1, 2].map(|d| self.block_size_names[d].as_str());
        let defines = kernel_tuner_defines(grid, block, names, params);

        let materialise = |key: String, init: &InitSpec, len: u64| -> Result<Init, FileError> {
            match init {
                InitSpec::Ready(i) => Ok(i.clone()),
                InitSpec::Formula(e) => formula_values(e, len, &var)
                    .map(Init::Values)
                    .map_err(|err| key_err(key, err.to_string())),
            }
        };
        let mut args = Vec::with_capacity(self.args.len());
        for (i, a) in self.args.iter().enumerate() {
            args.push(match a {
                ArgSpec::Scalar { name, ty, value } => LaunchArg::Scalar {
                    name: name.clone(),
                    ty: *ty,
                    value: match value {
                        ScalarSpec::Float(f) => ScalarValue::Float(*f),
                        ScalarSpec::Int(s) => ScalarValue::Int(eval(format!("arg[{i}].value"), s)?),
                    },
                },
                ArgSpec::Buffer {
                    name,
                    elem,
                    len,
                    init,
                    host_mapped,
                } => {
                    let key = format!("arg[{i}].len");
                    let len = non_negative(key.clone(), eval(key, len)?)?;
                    LaunchArg::Buffer {
                        name: name.clone(),
                        elem: *elem,
                        len,
                        init: materialise(format!("arg[{i}].init"), init, len)?,
                        host_mapped: *host_mapped,
                    }
                }
            });
        }
        let mut constants = Vec::with_capacity(self.constants.len());
        for (i, c) in self.constants.iter().enumerate() {
            let key = format!("constant[{i}].len");
            let len = non_negative(key.clone(), eval(key, &c.len)?)?;
            constants.push(LaunchConstant {
                name: c.name.clone(),
                elem: c.elem,
                len,
                init: materialise(format!("constant[{i}].init"), &c.init, len)?,
            });
        }

        Ok(Launch {
            source: self.source.clone(),
            kernel: self.kernel.clone(),
            defines,
            include_dirs: self.include_dirs.clone(),
            grid,
            block,
            args,
            constants,
        })
    }
}

/// A C identifier (what a block-size name must be to become a define).
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn parse_type(name: &str) -> Option<ScalarType> {
    ScalarType::parse(name)
}

fn bad_type(name: &str) -> String {
    format!(
        "unknown type `{name}` (i8 u8 i16 u16 i32 u32 i64 u64 f16 bf16 f32 f64, `*` for a buffer)"
    )
}

fn init_spec(
    raw: Option<&RawInit>,
    base: &Path,
    key: &str,
    key_err: &dyn Fn(String, String) -> FileError,
) -> Result<InitSpec, FileError> {
    let err = |msg: &str| key_err(key.to_string(), msg.to_string());
    Ok(match raw {
        None => InitSpec::Ready(Init::Zeros),
        Some(RawInit::Named(s)) => match s.as_str() {
            "zeros" => InitSpec::Ready(Init::Zeros),
            "iota" => InitSpec::Ready(Init::Iota),
            other => {
                return Err(err(&format!(
                    "unknown init `{other}` (zeros, iota, or a table)"
                )));
            }
        },
        Some(RawInit::Table(t)) => {
            let set = [
                t.fill.is_some(),
                t.random.is_some(),
                t.file.is_some(),
                t.formula.is_some(),
            ];
            if set.iter().filter(|s| **s).count() != 1 {
                return Err(err("give exactly one of fill, random, file, formula"));
            }
            if let Some(v) = t.fill {
                InitSpec::Ready(Init::Fill(v))
            } else if let Some(r) = t.random {
                if r.lo.partial_cmp(&r.hi) != Some(std::cmp::Ordering::Less) {
                    return Err(err("random needs lo < hi"));
                }
                InitSpec::Ready(Init::Random {
                    seed: r.seed,
                    lo: r.lo,
                    hi: r.hi,
                })
            } else if let Some(f) = &t.file {
                InitSpec::Ready(Init::File(base.join(f)))
            } else {
                let text = t.formula.as_deref().unwrap_or_default();
                InitSpec::Formula(Expr::parse(text).map_err(|e| err(&format!("`{text}`: {e}")))?)
            }
        }
    })
}

/// Why a formula gave no initial values; the caller names the key.
#[derive(Debug, thiserror::Error)]
enum FormulaError {
    #[error("{len} elements is too many for a formula (at most {MAX_FORMULA_LEN})")]
    TooLong { len: u64 },
    #[error(transparent)]
    Eval(#[from] ExprError),
}

/// Evaluates a formula for i = 0..len, parameters readable as reals.
fn formula_values(
    e: &Expr,
    len: u64,
    var: &dyn Fn(&str) -> Option<i64>,
) -> Result<Vec<f64>, FormulaError> {
    if len > MAX_FORMULA_LEN {
        return Err(FormulaError::TooLong { len });
    }
    (0..len)
        .map(|i| {
            e.eval_f64(&|name| {
                if name == "i" {
                    Some(i as f64)
                } else {
                    var(name).map(|v| v as f64)
                }
            })
            .map_err(FormulaError::from)
        })
        .collect()
}

/// 1-based line and column of a byte offset.
fn line_col(text: &str, offset: usize) -> Location {
    let (line, col) = syntax::line_col(text, offset);
    Location::LineCol(line, col)
}
