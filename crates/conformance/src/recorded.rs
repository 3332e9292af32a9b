//! The kit on disk and the outputs a GPU recorded into it.
//!
//! `write_kit` writes, for each form, `<stem>.ptx` (the self-contained
//! kernel), `<stem>.in.bin` (its operands, 8 bytes a slot, for readers
//! other than the kernel) and a `manifest.json` naming the forms, their
//! operand types and comparison rules. `scripts/gpu/conformance.py` runs
//! each kernel on a GPU and adds `<stem>.out.bin` plus `gpu.json`;
//! committed under `data/conformance/<gpu>/`, [`compare_dir`] replays every
//! kernel on the emulator and compares with what the GPU wrote.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::compare::{Mismatch, diff_with, run_emulator, slots_of};
use crate::form::{Cmp, Form, Out};
use crate::kernel::{self, ENTRY, Kernel, THREADS};
use crate::ty::Ty;

/// The manifest's format version.
pub const KIT_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub kit: u32,
    pub seed: u64,
    pub threads: usize,
    pub entry: String,
    pub forms: Vec<ManifestForm>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestForm {
    pub name: String,
    pub family: String,
    /// Files: `<stem>.ptx`, `<stem>.in.bin`, and the GPU's `<stem>.out.bin`.
    pub stem: String,
    /// The lowest `sm_` the kernel targets: a GPU below it skips the form.
    pub sm: u32,
    pub inputs: Vec<String>,
    pub outputs: Vec<ManifestOut>,
    /// Size of the output buffer the kernel writes.
    pub out_bytes: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestOut {
    pub ty: String,
    pub cmp: String,
}

/// Why the kit could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum KitError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Bad { path: PathBuf, message: String },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> KitError + '_ {
    move |source| KitError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), KitError> {
    std::fs::write(path, bytes).map_err(io(path))
}

/// The manifest entry of `form`.
pub fn entry(form: &Form) -> ManifestForm {
    ManifestForm {
        name: form.name.clone(),
        family: form.family.name().to_string(),
        stem: form.stem(),
        sm: form.sm,
        inputs: form
            .inputs
            .iter()
            .map(|(t, _)| t.name().to_string())
            .collect(),
        outputs: form
            .outputs
            .iter()
            .map(|o| ManifestOut {
                ty: o.ty.name().to_string(),
                cmp: o.cmp.name().to_string(),
            })
            .collect(),
        out_bytes: Kernel::out_bytes(form.outputs.len()),
    }
}

/// Write the kernels of `forms` drawn from `seed` and the manifest into `dir`.
pub fn write_kit(dir: &Path, forms: &[Form], seed: u64) -> Result<Manifest, KitError> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let mut manifest = Manifest {
        kit: KIT_VERSION,
        seed,
        threads: THREADS,
        entry: ENTRY.to_string(),
        forms: Vec::new(),
    };
    for form in forms {
        let k = kernel::generate(form, seed);
        let e = entry(form);
        write(&dir.join(format!("{}.ptx", e.stem)), k.ptx.as_bytes())?;
        write(&dir.join(format!("{}.in.bin", e.stem)), &k.input_bytes())?;
        manifest.forms.push(e);
    }
    let path = dir.join("manifest.json");
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| KitError::Bad {
        path: path.clone(),
        message: e.to_string(),
    })?;
    write(&path, text.as_bytes())?;
    Ok(manifest)
}

/// Read `dir/manifest.json`.
pub fn read_manifest(dir: &Path) -> Result<Manifest, KitError> {
    let path = dir.join("manifest.json");
    let text = std::fs::read_to_string(&path).map_err(io(&path))?;
    let m: Manifest = serde_json::from_str(&text).map_err(|e| KitError::Bad {
        path: path.clone(),
        message: e.to_string(),
    })?;
    if m.kit != KIT_VERSION || m.threads != THREADS || m.entry != ENTRY {
        return Err(KitError::Bad {
            path,
            message: format!(
                "kit {} with {} threads and entry `{}`; this build reads kit {KIT_VERSION}, {THREADS} threads, `{ENTRY}`",
                m.kit, m.threads, m.entry
            ),
        });
    }
    Ok(m)
}

fn outputs_of(f: &ManifestForm, path: &Path) -> Result<Vec<Out>, KitError> {
    f.outputs
        .iter()
        .map(|o| match (Ty::parse(&o.ty), Cmp::parse(&o.cmp)) {
            (Some(ty), Some(cmp)) => Ok(Out { ty, cmp }),
            _ => Err(KitError::Bad {
                path: path.to_path_buf(),
                message: format!("form {}: output `{}` / `{}` unknown", f.name, o.ty, o.cmp),
            }),
        })
        .collect()
}

/// The comparison of the emulator with one recorded directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordedReport {
    /// `gpu.json`'s `name`, if present.
    pub gpu: Option<String>,
    /// Forms whose outputs matched.
    pub passed: Vec<String>,
    /// Forms without a `<stem>.out.bin` (the GPU skipped them).
    pub missing: Vec<String>,
    /// Known divergences or unsupported forms, with their mismatching thread count
    /// or error: reported, not failures.
    pub known: Vec<(String, String)>,
    /// Forms the emulator got wrong or could not run: the failures.
    pub failures: Vec<(String, String)>,
}

impl RecordedReport {
    pub fn ok(&self) -> bool {
        self.failures.is_empty()
    }

    /// `<gpu>: N forms match, K known divergences, M not recorded, F differ`.
    pub fn summary(&self) -> String {
        format!(
            "{}: {} forms match, {} known divergences, {} not recorded, {} differ",
            self.gpu.as_deref().unwrap_or("unknown GPU"),
            self.passed.len(),
            self.known.len(),
            self.missing.len(),
            self.failures.len()
        )
    }
}

fn describe(m: &[Mismatch]) -> String {
    let first = m.first().map(|x| x.to_string()).unwrap_or_default();
    format!("{} threads differ; first: {first}", m.len())
}

/// Compare the emulator with the outputs recorded in `dir`.
pub fn compare_dir(dir: &Path) -> Result<RecordedReport, KitError> {
    let manifest = read_manifest(dir)?;
    let mpath = dir.join("manifest.json");
    let mut report = RecordedReport {
        gpu: std::fs::read_to_string(dir.join("gpu.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v.get("name").and_then(|n| n.as_str()).map(str::to_string)),
        ..Default::default()
    };
    for f in &manifest.forms {
        let outputs = outputs_of(f, &mpath)?;
        let out_path = dir.join(format!("{}.out.bin", f.stem));
        let Ok(recorded) = std::fs::read(&out_path) else {
            report.missing.push(f.name.clone());
            continue;
        };
        let ptx_path = dir.join(format!("{}.ptx", f.stem));
        let ptx = std::fs::read_to_string(&ptx_path).map_err(io(&ptx_path))?;
        let in_path = dir.join(format!("{}.in.bin", f.stem));
        let inputs = std::fs::read(&in_path).map_err(io(&in_path))?;
        let inputs = slots_of(&inputs, f.inputs.len());
        let result = match run_emulator(&ptx, &format!("{}.ptx", f.stem), outputs.len()) {
            Err(e) => Err(e.to_string()),
            Ok(got) => {
                let want = slots_of(&recorded, outputs.len());
                let m = diff_with(&f.name, &outputs, &inputs, &want, &got, true);
                if m.is_empty() {
                    Ok(())
                } else {
                    Err(describe(&m))
                }
            }
        };
        match result {
            Ok(()) => report.passed.push(f.name.clone()),
            Err(e) if crate::divergence::left_out(&f.name) => {
                report.known.push((f.name.clone(), e))
            }
            Err(e) => report.failures.push((f.name.clone(), e)),
        }
    }
    Ok(report)
}

/// The recorded directories under `root` (each `root/<gpu>/manifest.json`), sorted.
pub fn recorded_dirs(root: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("manifest.json").is_file())
        .collect();
    v.sort();
    v
}
