//! What is being tuned, and how one configuration becomes a loadable kernel.
//!
//! Two kinds of target:
//! - a launch spec (`SPEC.toml`): each configuration's values become
//!   `--set NAME=VALUE` overrides of the spec's `defines`, so its `grid`,
//!   `block`, `dynamic_shared` and buffer `len` expressions follow them;
//! - an experiment file (named by a space file's `experiment`): Kernel
//!   Tuner's launch of the configuration (`validate::Experiment::launch`),
//!   its define prefix written into the source (`instantiate_source`).
//!
//! Either way a configuration yields a [`Prepared`]: the emulator's launch
//! spec, the source text to compile (or PTX), and what keys the result cache.

use std::path::{Path, PathBuf};

use emu::spec::{LaunchSpec, SourceKind};
use validate::{Experiment, defines_read_by, instantiate_source};

use tune::Config;

use crate::error::TargetError;
use crate::launch_spec::spec_of_launch;

/// The architecture to compile for on `gpu`, unless the spec names one
/// (`validate` compiles every configuration for it too): its compute
/// capability, or sm_50 where that is older, NVRTC's oldest
/// ([`pipeline::gpu_arch`]).
pub fn arch_for(gpu: &arch::Gpu) -> String {
    pipeline::gpu_arch(gpu).to_string()
}

pub enum Target {
    Spec {
        path: PathBuf,
        /// The kernel's name as the spec gives it.
        kernel: String,
        /// The kernel source file the spec names.
        source_path: PathBuf,
        /// The spec file's text (part of the cache key).
        text: String,
        /// The kernel source (CUDA C++ or PTX) the spec names.
        source: String,
        arch: String,
    },
    Experiment {
        path: PathBuf,
        experiment: Box<Experiment>,
        text: String,
        source: String,
        arch: String,
        /// Where explicit initial values (formula inits) are written.
        values_dir: PathBuf,
    },
}

/// One configuration, ready to compile and emulate.
pub struct Prepared {
    pub spec: LaunchSpec,
    /// CUDA C++ (defines applied for experiments) or PTX.
    pub source: String,
    /// Everything else the result depends on, hashed into the cache key with `source`.
    pub context: String,
    /// (name, value) as the cache key lists them.
    pub defines: Vec<(String, String)>,
    /// For experiments: the compilation exactly as `ptxperf validate` does
    /// it, so the two share the on-disk PTX cache.
    pub nvrtc: Option<NvrtcJob>,
}

/// One NVRTC compilation of an experiment's configuration.
pub struct NvrtcJob {
    /// The source path as the experiment names it (NVRTC's file name).
    pub file: String,
    /// The source with Kernel Tuner's define prefix (includes not inlined).
    pub instantiated: String,
    pub include_dirs: Vec<PathBuf>,
}

impl Target {
    /// A launch spec target; the source is read once here.
    pub fn spec(path: &Path, gpu: &arch::Gpu) -> Result<Target, TargetError> {
        let text = read(path)?;
        // Parse once without overrides to find the source (defines may be needed
        // by expressions, so an error here is reported only if the source is unknown).
        let base = emu::spec::parse_with(&text, path, &[], emu::spec::Limits::Unchecked)?;
        let source = read(&base.source)?;
        let arch = base.arch.clone().unwrap_or_else(|| arch_for(gpu));
        Ok(Target::Spec {
            path: path.to_path_buf(),
            kernel: base.kernel.clone(),
            source_path: base.source.clone(),
            text,
            source,
            arch,
        })
    }

    /// An experiment file target.
    pub fn experiment(
        path: &Path,
        gpu: &arch::Gpu,
        values_dir: &Path,
    ) -> Result<Target, TargetError> {
        let text = read(path)?;
        let experiment = Experiment::load(path)?;
        let source = experiment.source.read()?;
        Ok(Target::Experiment {
            path: path.to_path_buf(),
            experiment: Box::new(experiment),
            text,
            source,
            arch: arch_for(gpu),
            values_dir: values_dir.to_path_buf(),
        })
    }

    /// The experiment's restrictions (Kernel Tuner's `restrictions`, the
    /// space it measured), in the file's order; none for a launch spec.
    pub fn restrictions(&self) -> Vec<String> {
        match self {
            Target::Spec { .. } => Vec::new(),
            Target::Experiment { experiment, .. } => {
                experiment.restrictions().map(str::to_string).collect()
            }
        }
    }

    /// The experiment's `[objective]` table, as written; none for a launch
    /// spec.
    pub fn objective(&self) -> Option<&validate::experiment::ObjectiveTable> {
        match self {
            Target::Spec { .. } => None,
            Target::Experiment { experiment, .. } => experiment.objective.as_ref(),
        }
    }

    /// The kernel's name as the spec or the experiment gives it (Kernel
    /// Tuner's `kernel_name`).
    pub fn kernel_name(&self) -> &str {
        match self {
            Target::Spec { kernel, .. } => kernel,
            Target::Experiment { experiment, .. } => &experiment.kernel,
        }
    }

    /// Kernel Tuner's `problem_size`, where the experiment fixes it.
    pub fn problem_size(&self) -> Option<Vec<i64>> {
        match self {
            Target::Spec { .. } => None,
            Target::Experiment { experiment, .. } => experiment.fixed_problem_size(),
        }
    }

    pub fn path(&self) -> &Path {
        match self {
            Target::Spec { path, .. } | Target::Experiment { path, .. } => path,
        }
    }

    /// An error naming the parameters of `names` that nothing of the target
    /// mentions: not an identifier of the kernel source (a macro, or a name
    /// a PTX kernel uses) outside its comments, nor of the spec or
    /// experiment file outside its comments (a define, a variable of an
    /// expression). Such a parameter cannot change the launch or the code.
    pub fn check_params_used(&self, names: &[String]) -> Result<(), TargetError> {
        let (target, source_path, file_text, source) = match self {
            Target::Spec {
                path,
                source_path,
                text,
                source,
                ..
            } => (path, source_path.clone(), text, source),
            Target::Experiment {
                path,
                experiment,
                text,
                source,
                ..
            } => (path, experiment.source.main.clone(), text, source),
        };
        let mut used = identifiers(&strip_c_comments(source));
        used.extend(identifiers(&strip_hash_comments(file_text)));
        let unused: Vec<String> = names
            .iter()
            .filter(|n| !used.contains(n.as_str()))
            .cloned()
            .collect();
        if unused.is_empty() {
            return Ok(());
        }
        Err(TargetError::UnusedParams {
            names: unused,
            target: target.clone(),
            kernel_source: source_path,
        })
    }

    /// The launch of `config`, not yet compiled.
    pub fn prepare(&self, config: &Config) -> Result<Prepared, TargetError> {
        match self {
            Target::Spec {
                path,
                text,
                source,
                arch,
                ..
            } => {
                let overrides: Vec<(String, String)> = config
                    .values
                    .iter()
                    .map(|(n, v)| (n.clone(), v.to_string()))
                    .collect();
                // A block or grid too large for a GPU is that GPU's
                // launchability check to report (not launchable), not a
                // broken spec (failed).
                let mut spec =
                    emu::spec::parse_with(text, path, &overrides, emu::spec::Limits::Unchecked)?;
                if spec.arch.is_none() {
                    spec.arch = Some(arch.clone());
                }
                let mut defines: Vec<(String, String)> = spec
                    .defines
                    .iter()
                    .map(|(n, v)| (n.clone(), v.to_string()))
                    .collect();
                defines.push(("(arch)".to_string(), arch.clone()));
                Ok(Prepared {
                    spec,
                    source: source.clone(),
                    context: format!("spec\n{text}"),
                    defines,
                    nvrtc: None,
                })
            }
            Target::Experiment {
                experiment,
                text,
                source,
                arch,
                values_dir,
                ..
            } => {
                let launch = experiment.launch(&config.pairs())?;
                // Parameters the source never reads leave the text NVRTC
                // compiles, so their values share one PTX (as `validate`).
                let plain = instantiate_source(source, &defines_read_by(source, &launch.defines));
                let instantiated = inline_includes(&plain, &launch.include_dirs);
                // The spec names the source with a .cu extension so pipeline compiles it.
                let mut spec = spec_of_launch(&launch, &launch.source.main, values_dir)?;
                spec.source_kind = SourceKind::Cuda;
                spec.arch = Some(arch.clone());
                let mut defines = tune::CacheKey::defines_of(&launch.defines);
                defines.push(("(arch)".to_string(), arch.clone()));
                Ok(Prepared {
                    spec,
                    source: instantiated,
                    context: format!("experiment\n{text}"),
                    defines,
                    nvrtc: Some(NvrtcJob {
                        file: launch.source.main.display().to_string(),
                        instantiated: plain,
                        include_dirs: launch.include_dirs.clone(),
                    }),
                })
            }
        }
    }
}

/// The identifiers of `text`: runs of letters, digits and `_` that do not
/// start with a digit.
fn identifiers(text: &str) -> std::collections::HashSet<String> {
    let mut out = std::collections::HashSet::new();
    let mut word = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else if !word.is_empty() {
            if !word.starts_with(|d: char| d.is_ascii_digit()) {
                out.insert(std::mem::take(&mut word));
            }
            word.clear();
        }
    }
    out
}

/// C, C++ and PTX source without its `//` and `/* */` comments (string
/// literals are not told apart: a `//` inside one cuts the line short,
/// which can only hide names, never invent them).
fn strip_c_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let line = rest.find("//");
        let block = rest.find("/*");
        match (line, block) {
            (Some(l), b) if b.is_none_or(|b| l < b) => {
                out.push_str(&rest[..l]);
                rest = rest[l..].find('\n').map_or("", |e| &rest[l + e..]);
            }
            (_, Some(b)) => {
                out.push_str(&rest[..b]);
                out.push(' ');
                rest = rest[b + 2..]
                    .find("*/")
                    .map_or("", |e| &rest[b + 2 + e + 2..]);
            }
            _ => {
                out.push_str(rest);
                rest = "";
            }
        }
    }
    out
}

/// TOML without its comments: from a `#` outside a string to the line's end.
fn strip_hash_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut quote: Option<char> = None;
        for c in line.chars() {
            match (quote, c) {
                (None, '#') => break,
                (None, '"' | '\'') => quote = Some(c),
                (Some(q), c) if c == q => quote = None,
                _ => {}
            }
            out.push(c);
        }
        out.push('\n');
    }
    out
}

fn read(path: &Path) -> Result<String, TargetError> {
    std::fs::read_to_string(path).map_err(|source| TargetError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// NVRTC is given no include folders by the pipeline, so a quoted
/// `#include "X"` found in one of the experiment's `include_dirs` is written
/// in place (one level; the dedispersion kernel's `dedispersion.h`).
fn inline_includes(source: &str, dirs: &[PathBuf]) -> String {
    if dirs.is_empty() {
        return source.to_string();
    }
    let mut out = String::with_capacity(source.len());
    for line in source.lines() {
        let included = line
            .trim()
            .strip_prefix("#include")
            .map(str::trim)
            .and_then(|rest| rest.strip_prefix('"'))
            .and_then(|rest| rest.split('"').next())
            .and_then(|name| {
                dirs.iter()
                    .find_map(|d| std::fs::read_to_string(d.join(name)).ok())
            });
        match included {
            Some(text) => out.push_str(&text),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{identifiers, strip_c_comments, strip_hash_comments};

    /// Whether `name` is an identifier of C source `text` outside comments.
    fn check_c(text: &str, name: &str, expect: bool) {
        let got = identifiers(&strip_c_comments(text)).contains(name);
        assert_eq!(got, expect, "{name} in {text:?}");
    }

    fn check_toml(text: &str, name: &str, expect: bool) {
        let got = identifiers(&strip_hash_comments(text)).contains(name);
        assert_eq!(got, expect, "{name} in {text:?}");
    }

    #[test]
    fn a_name_counts_where_the_code_uses_it_not_in_comments() {
        check_c("#ifndef BX\n#define BX 16\n#endif", "BX", true);
        check_c("float t[TILE+1];", "TILE", true);
        check_c("float t[TILE_W];", "TILE", false);
        check_c("x = BX2;", "BX", false);
        check_c("x = 2BX;", "BX", false);
        check_c("// BZ is not used\nint x;", "BZ", false);
        check_c("/* BZ\n BZ */ int x;", "BZ", false);
        check_c("/* a */ int BZ; // b", "BZ", true);
        check_c("int x; /* unterminated BZ", "BZ", false);
        check_c("", "BZ", false);
        check_toml("defines = { N = 1, BX = 32 }", "BX", true);
        check_toml("grid = [\"N / BX\"]", "BX", true);
        check_toml("# BZ: unused\nkernel = \"k\"", "BZ", false);
        check_toml("kernel = \"k#BZ\" # BQ", "BZ", true);
        check_toml("kernel = \"k\" # BQ", "BQ", false);
    }
}
