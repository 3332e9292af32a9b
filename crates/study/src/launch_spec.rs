//! A configuration's launch (`validate::Launch`, the experiment's view) as
//! the emulator's launch spec (`emu::spec::LaunchSpec`): the same
//! vocabulary, so this is a field-by-field copy. Explicit values (an
//! experiment's `formula` init) have no spec form; they are written once to
//! a raw little-endian file, which the spec can name.

use std::path::{Path, PathBuf};

use emu::spec::{ArgSpec, BufferSpec, ConstantSpec, LaunchSpec, Number, SourceKind};
use validate::{Init, Launch, LaunchArg, ScalarType, ScalarValue};

use crate::error::LaunchSpecError;

/// The spec of `launch`, whose PTX is given separately and cited as
/// `ptx_file`. `values_dir` receives the files of explicit initial values.
/// `ptxperf tune` uses it too, citing the CUDA source instead and switching
/// `source_kind` to `Cuda`.
pub fn spec_of_launch(
    launch: &Launch,
    ptx_file: &Path,
    values_dir: &Path,
) -> Result<LaunchSpec, LaunchSpecError> {
    let dim = |v: [u64; 3], what: &'static str| -> Result<[u32; 3], LaunchSpecError> {
        let mut out = [1u32; 3];
        for (o, d) in out.iter_mut().zip(v) {
            *o = u32::try_from(d).map_err(|_| LaunchSpecError::Dimension { what, value: d })?;
        }
        Ok(out)
    };
    let mut args = Vec::with_capacity(launch.args.len());
    for a in &launch.args {
        args.push(match a {
            LaunchArg::Scalar { name, ty, value } => ArgSpec::Scalar {
                name: name.clone(),
                ty: scalar_type(*ty)?,
                value: number(*value),
            },
            LaunchArg::Buffer {
                name,
                elem,
                len,
                init,
                host_mapped,
            } => ArgSpec::Buffer(BufferSpec {
                name: name.clone(),
                elem: scalar_type(*elem)?,
                len: *len,
                init: init_of(init, *elem, values_dir)?,
                order_dependent: false,
                // The emulator's memory is one space; where the buffer lives
                // matters only to the timing (the profile's PCIe bytes).
                host_mapped: *host_mapped,
                texture: None,
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
        path: launch.source.main.clone(),
        source: ptx_file.to_path_buf(),
        source_kind: SourceKind::Ptx,
        kernel: launch.kernel.clone(),
        // The defines are already in the PTX (the instantiated source).
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

fn scalar_type(t: ScalarType) -> Result<emu::spec::ScalarType, LaunchSpecError> {
    emu::spec::ScalarType::parse(t.name()).ok_or(LaunchSpecError::UnknownType(t))
}

fn number(v: ScalarValue) -> Number {
    match v {
        ScalarValue::Int(i) => Number::Int(i),
        ScalarValue::Float(f) => Number::Float(f),
    }
}

fn init_of(
    init: &Init,
    elem: ScalarType,
    values_dir: &Path,
) -> Result<emu::spec::Init, LaunchSpecError> {
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

/// Writes `values` as raw little-endian `elem`s into a file named by their
/// content, once; concurrent writers write the same bytes.
fn values_file(values: &[f64], elem: ScalarType, dir: &Path) -> Result<PathBuf, LaunchSpecError> {
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
    let name = format!("{:016x}-{}.bin", tune::fnv1a64(&bytes), elem.name());
    let path = dir.join(name);
    if std::fs::metadata(&path).map(|m| m.len()).ok() != Some(bytes.len() as u64) {
        std::fs::create_dir_all(dir).map_err(|source| LaunchSpecError::CreateDir {
            path: dir.to_path_buf(),
            source,
        })?;
        let tmp = path.with_extension(format!(
            "tmp{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::write(&tmp, &bytes).map_err(|source| LaunchSpecError::Write {
            path: tmp.clone(),
            source,
        })?;
        std::fs::rename(&tmp, &path).map_err(|source| LaunchSpecError::Write {
            path: path.clone(),
            source,
        })?;
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use validate::LaunchConstant;

    fn launch() -> Launch {
        Launch {
            source: validate::SourceFiles::single("k.cu"),
            kernel: "k".to_string(),
            defines: Vec::new(),
            include_dirs: Vec::new(),
            grid: [4, 2, 1],
            block: [32, 8, 1],
            args: vec![
                LaunchArg::Scalar {
                    name: "n".to_string(),
                    ty: ScalarType::I32,
                    value: ScalarValue::Int(7),
                },
                LaunchArg::Buffer {
                    name: "x".to_string(),
                    elem: ScalarType::F32,
                    len: 3,
                    init: Init::Values(vec![0.5, 1.5, -2.0]),
                    host_mapped: false,
                },
            ],
            constants: vec![LaunchConstant {
                name: "c".to_string(),
                elem: ScalarType::U8,
                len: 2,
                init: Init::Random {
                    seed: 3,
                    lo: 0.0,
                    hi: 4.0,
                },
            }],
        }
    }

    #[test]
    fn fields_are_copied_and_values_go_to_a_file() {
        let dir =
            std::env::temp_dir().join(format!("ptxperf-validate-values-{}", std::process::id()));
        let spec =
            spec_of_launch(&launch(), Path::new("k.ptx"), &dir).expect("a valid launch converts");
        assert_eq!((spec.grid, spec.block), ([4, 2, 1], [32, 8, 1]));
        assert_eq!(spec.source_kind, SourceKind::Ptx);
        assert_eq!(spec.args.len(), 2);
        assert_eq!(
            spec.args[0],
            ArgSpec::Scalar {
                name: "n".to_string(),
                ty: emu::spec::ScalarType::I32,
                value: Number::Int(7)
            }
        );
        let ArgSpec::Buffer(b) = &spec.args[1] else {
            panic!("x must stay a buffer: {:?}", spec.args[1]);
        };
        let emu::spec::Init::File(path) = &b.init else {
            panic!("explicit values become a file: {:?}", b.init);
        };
        let bytes = std::fs::read(path).expect("the values file exists");
        let expected: Vec<u8> = [0.5f32, 1.5, -2.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(bytes, expected);
        assert_eq!(spec.constants[0].elem, emu::spec::ScalarType::U8);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_grid_beyond_32_bits_is_an_error() {
        let mut l = launch();
        l.grid = [1 << 33, 1, 1];
        let err = spec_of_launch(&l, Path::new("k.ptx"), Path::new("/nonexistent"));
        assert!(err.is_err_and(|e| e.to_string().contains("grid")));
    }
}
