//! Kernel Tuner's launch of a configuration (`validate::Launch`) as the
//! emulator's launch spec: the same vocabulary field by field. Explicit
//! values (an experiment's `formula` init) are written once to a raw
//! little-endian file named by their content, which the spec then names.

use std::path::{Path, PathBuf};

use emu::spec::{ArgSpec, BufferSpec, ConstantSpec, LaunchSpec, Number, SourceKind};
use validate::{Init, Launch, LaunchArg, ScalarType, ScalarValue};

/// The spec of `launch`, its source cited as `source`.
pub fn spec_of_launch(
    launch: &Launch,
    source: &Path,
    values_dir: &Path,
) -> Result<LaunchSpec, String> {
    let dim = |v: [u64; 3], what: &str| -> Result<[u32; 3], String> {
        let mut out = [1u32; 3];
        for (o, d) in out.iter_mut().zip(v) {
            *o = u32::try_from(d)
                .map_err(|_| format!("{what} dimension {d} does not fit 32 bits"))?;
        }
        Ok(out)
    };
    let mut args = Vec::with_capacity(launch.args.len());
    for a in &launch.args {
        args.push(match a {
            LaunchArg::Scalar { name, ty, value } => ArgSpec::Scalar {
                name: name.clone(),
                ty: scalar_type(*ty)?,
                value: match value {
                    ScalarValue::Int(i) => Number::Int(*i),
                    ScalarValue::Float(f) => Number::Float(*f),
                },
            },
            LaunchArg::Buffer {
                name,
                elem,
                len,
                init,
            } => ArgSpec::Buffer(BufferSpec {
                name: name.clone(),
                elem: scalar_type(*elem)?,
                len: *len,
                init: init_of(init, *elem, values_dir)?,
            }),
        });
    }
    let mut constants = Vec::with_capacity(launch.constants.len());
    for c in &launch.constants {
        constants.push(ConstantSpec {
            name: c.name.clone(),
            elem: scalar_type(c.elem)?,
            len: c.len,
            init: init_of(&c.init, c.elem, values_dir)?,
        });
    }
    Ok(LaunchSpec {
        path: launch.source.clone(),
        source: source.to_path_buf(),
        source_kind: SourceKind::Cuda,
        kernel: launch.kernel.clone(),
        // The defines are written into the source text (Kernel Tuner's prefix).
        defines: Vec::new(),
        arch: None,
        grid: dim(launch.grid, "grid")?,
        block: dim(launch.block, "block")?,
        dynamic_shared: 0,
        args,
        constants,
        fuel: None,
    })
}

fn scalar_type(t: ScalarType) -> Result<emu::spec::ScalarType, String> {
    emu::spec::ScalarType::parse(t.name())
        .ok_or_else(|| format!("type {t} is unknown to the emulator"))
}

fn init_of(init: &Init, elem: ScalarType, values_dir: &Path) -> Result<emu::spec::Init, String> {
    Ok(match init {
        Init::Zeros => emu::spec::Init::Zeros,
        Init::Iota => emu::spec::Init::Iota,
        Init::Fill(v) => emu::spec::Init::Fill(Number::Float(*v)),
        Init::Random { seed, lo, hi } => emu::spec::Init::Random {
            seed: *seed,
            lo: Number::Float(*lo),
            hi: Number::Float(*hi),
        },
        Init::File(p) => emu::spec::Init::File(p.clone()),
        Init::Values(values) => emu::spec::Init::File(values_file(values, elem, values_dir)?),
    })
}

fn values_file(values: &[f64], elem: ScalarType, dir: &Path) -> Result<PathBuf, String> {
    let ty = scalar_type(elem)?;
    let mut bytes = Vec::with_capacity(values.len() * ty.size());
    for v in values {
        let n = if elem.is_float() {
            Number::Float(*v)
        } else {
            Number::Int(v.round() as i64)
        };
        ty.encode(n, &mut bytes)?;
    }
    let path = dir.join(format!(
        "{:016x}-{}.bin",
        tune::fnv1a64(&bytes),
        elem.name()
    ));
    if std::fs::metadata(&path).map(|m| m.len()).ok() != Some(bytes.len() as u64) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
        let tmp = path.with_extension(format!(
            "tmp{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::write(&tmp, &bytes)
            .map_err(|e| format!("{}: cannot write: {e}", tmp.display()))?;
        std::fs::rename(&tmp, &path)
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    }
    Ok(path)
}
