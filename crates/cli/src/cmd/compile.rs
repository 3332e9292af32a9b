//! `ptxperf compile`: CUDA C++ to PTX with NVRTC, loaded at run time.

use std::path::{Path, PathBuf};

use nvrtc::{CompileOptions, Compiler, NvrtcError, SearchContext, Severity};

use crate::error::{CliError, read_input};

/// Compile a CUDA C++ file to PTX with NVRTC (no CUDA toolkit, no GPU needed).
#[derive(clap::Args)]
#[command(long_about = LONG_ABOUT)]
pub struct Args {
    /// The CUDA C++ source (.cu). Optional with --spec.
    #[arg(value_name = "K.cu", required_unless_present = "spec")]
    input: Option<PathBuf>,
    /// Define a macro: -D N=4096, -D USE_SHARED. Repeatable.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    define: Vec<String>,
    /// Add an include directory. Repeatable.
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
    /// Target architecture: sm_70, sm_80, sm_90 ... (PTX for compute_XX). Default: the spec's `arch`, else sm_80.
    #[arg(long, value_name = "sm_XX")]
    arch: Option<String>,
    /// Output file; `-` writes the PTX to stdout. Default: the input with the extension .ptx.
    #[arg(short = 'o', long = "output", value_name = "K.ptx")]
    output: Option<PathBuf>,
    /// Path to libnvrtc.so.12 (or a directory holding it); overrides the search.
    #[arg(long, value_name = "PATH")]
    nvrtc: Option<PathBuf>,
    /// Do not pass -lineinfo (it is on by default: PTX lines map back to source lines).
    #[arg(long)]
    no_lineinfo: bool,
    /// Take the source and its defines (and arch) from a launch spec (TOML).
    #[arg(long, value_name = "SPEC.toml")]
    spec: Option<PathBuf>,
    /// Also print which NVRTC and headers were used, and the NVRTC options.
    #[arg(short, long)]
    verbose: bool,
}

const LONG_ABOUT: &str = "\
Compile a CUDA C++ file to PTX with NVRTC, loaded at run time: no CUDA toolkit \
and no GPU are needed.

NVRTC (libnvrtc.so.12) is searched in this order: --nvrtc PATH; the environment \
variable PTXPERF_NVRTC (file or directory); $CUDA_HOME/lib64 and $CUDA_HOME/lib; \
the project's .venv (from the current directory upwards, then from this \
executable's directory upwards); Python's site-packages. The CUDA headers \
(cuda_fp16.h ...) are searched likewise (PTXPERF_CUDA_INCLUDE, $CUDA_HOME/include, \
nvidia/cuda_runtime/include). `bash scripts/setup.sh` installs both into .venv.

Options given to NVRTC: --gpu-architecture=compute_XX (from --arch sm_XX), \
--std=c++17, -lineinfo (unless --no-lineinfo), then -D and -I in order. \
NVRTC's warnings go to stderr; on a compile error its log is printed as \
file:line:col diagnostics and the exit status is 1. `.file` paths in the PTX are \
written relative to the current directory, so the output does not depend on \
where the checkout lives.

With --spec SPEC.toml the source is the spec's `source` (relative to the spec) \
and its `defines` become -D options; -D on the command line overrides them.

Examples:
  ptxperf compile examples/saxpy.cu --arch sm_80 -o out/saxpy.ptx
  ptxperf compile kernels/coalescing/coalescing.cu -D STRIDE=4 -o - | less
  ptxperf compile --spec kernels/matmul_tiled/spec.toml --arch sm_90 -o mm.ptx
  ptxperf compile k.cu --nvrtc /opt/cuda/lib64/libnvrtc.so.12 --no-lineinfo";

pub fn run(args: Args) -> Result<(), CliError> {
    let mut options = CompileOptions {
        lineinfo: !args.no_lineinfo,
        ..CompileOptions::default()
    };
    let mut spec_arch = None;
    let input = match &args.spec {
        Some(spec_path) => {
            let spec = read_spec(spec_path)?;
            for (name, value) in spec.defines {
                options.defines.push((name, Some(value)));
            }
            spec_arch = spec.arch;
            match &args.input {
                Some(p) => p.clone(),
                None => spec.source,
            }
        }
        None => match &args.input {
            Some(p) => p.clone(),
            None => {
                return Err(CliError::usage(
                    "give a source file K.cu or --spec SPEC.toml",
                ));
            }
        },
    };
    for d in &args.define {
        let mut one = CompileOptions::default();
        one.define(d).map_err(|e| CliError::usage(e.to_string()))?;
        for (name, value) in one.defines {
            options.defines.retain(|(n, _)| *n != name);
            options.defines.push((name, value));
        }
    }
    options.include_dirs = args.include.clone();
    options.arch = Some(
        args.arch
            .clone()
            .or(spec_arch)
            .unwrap_or_else(|| "sm_80".to_string()),
    );

    // Reject a malformed --arch or -D before searching for NVRTC.
    options
        .to_args()
        .map_err(|e| CliError::usage(e.to_string()))?;
    let source = read_input(&input)?;
    let compiler = Compiler::open(&SearchContext::from_process(args.nvrtc.clone()))
        .map_err(not_found_error)?;
    if args.verbose {
        report_search(&compiler);
    }
    let name = input.display().to_string();
    let compiled = match compiler.compile(&source, &name, &options) {
        Ok(c) => c,
        Err(NvrtcError::Compile {
            log,
            diagnostics,
            options,
            ..
        }) => {
            let mut msg = nvrtc::render_log(&log);
            let errors = diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count();
            msg.push_str(&format!(
                "\n{name}: error: compilation failed ({errors} error(s)); NVRTC options: {}",
                options.join(" ")
            ));
            return Err(CliError::user(msg));
        }
        Err(e @ NvrtcError::InvalidOption(_)) => return Err(CliError::usage(e.to_string())),
        Err(other) => return Err(CliError::user(format!("error: {other}"))),
    };
    if args.verbose {
        eprintln!("nvrtc options: {}", compiled.options.join(" "));
    }
    for d in &compiled.diagnostics {
        eprintln!("{}", d.render());
    }
    write_output(&input, args.output.as_deref(), &compiled.ptx)
}

/// A missing library is a user error whose message lists the search.
fn not_found_error(e: NvrtcError) -> CliError {
    CliError::user(format!("error: {e}"))
}

fn report_search(compiler: &Compiler) {
    let (lib, headers) = compiler.search_record();
    eprintln!("nvrtc: {}", compiler.nvrtc().path().display());
    if let Ok((major, minor)) = compiler.nvrtc().version() {
        eprintln!("nvrtc version: {major}.{minor}");
    }
    for s in lib {
        eprintln!("  library search: {s}");
    }
    match compiler.include_dir() {
        Some(dir) => eprintln!("cuda headers: {}", dir.display()),
        None => eprintln!("cuda headers: not found"),
    }
    for s in headers {
        eprintln!("  header search: {s}");
    }
}

fn write_output(input: &Path, output: Option<&Path>, ptx: &str) -> Result<(), CliError> {
    let path = match output {
        Some(p) if p == Path::new("-") => {
            print!("{ptx}");
            return Ok(());
        }
        Some(p) => p.to_path_buf(),
        None => input.with_extension("ptx"),
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| {
            CliError::user(format!(
                "{}: error: cannot create directory: {e}",
                parent.display()
            ))
        })?;
    }
    std::fs::write(&path, ptx)
        .map_err(|e| CliError::user(format!("{}: error: cannot write PTX: {e}", path.display())))
}

/// The parts of a launch spec that compilation needs.
struct SpecSource {
    source: PathBuf,
    defines: Vec<(String, String)>,
    arch: Option<String>,
}

/// Read `source`, `defines` and `arch` from a launch spec; `source` is made
/// relative to the spec's directory. Define values: integers and strings as
/// written, floats with a decimal point, booleans as 1/0.
fn read_spec(path: &Path) -> Result<SpecSource, CliError> {
    let text = read_input(path)?;
    let table: toml::Table = toml::from_str(&text).map_err(|e| {
        CliError::user(format!(
            "{}: error: invalid launch spec: {e}",
            path.display()
        ))
    })?;
    let bad = |msg: &str| CliError::user(format!("{}: error: {msg}", path.display()));
    let source = table
        .get("source")
        .and_then(toml::Value::as_str)
        .ok_or_else(|| bad("`source` (a string) is missing"))?;
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut defines = Vec::new();
    if let Some(value) = table.get("defines") {
        let t = value
            .as_table()
            .ok_or_else(|| bad("`defines` must be a table"))?;
        for (name, v) in t {
            let text = match v {
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Float(f) => format!("{f:?}"),
                toml::Value::String(s) => s.clone(),
                toml::Value::Boolean(b) => u8::from(*b).to_string(),
                _ => {
                    return Err(bad(&format!(
                        "define `{name}` must be a number, a string or a boolean"
                    )));
                }
            };
            defines.push((name.clone(), text));
        }
    }
    let arch = table
        .get("arch")
        .and_then(toml::Value::as_str)
        .map(str::to_string);
    Ok(SpecSource {
        source: dir.join(source),
        defines,
        arch,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Write `text` to a fresh spec file under the temp dir and read it back.
    fn spec(tag: &str, text: &str) -> Result<SpecSource, CliError> {
        let dir =
            std::env::temp_dir().join(format!("ptxperf-compile-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| CliError::user(e.to_string()))?;
        let path = dir.join("spec.toml");
        std::fs::write(&path, text).map_err(|e| CliError::user(e.to_string()))?;
        let out = read_spec(&path);
        let _ = std::fs::remove_dir_all(&dir);
        out
    }

    fn check_defines(tag: &str, defines_line: &str, expected: &[(&str, &str)]) {
        let s = spec(tag, &format!("source = \"k.cu\"\n{defines_line}\n")).expect("valid spec");
        let got: Vec<(&str, &str)> = s
            .defines
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        assert_eq!(got, expected, "{defines_line}");
    }

    #[test]
    fn spec_defines_become_macro_values() {
        check_defines("int", "defines = { N = 4096 }", &[("N", "4096")]);
        check_defines(
            "mixed",
            "defines = { A = 1.5, B = \"2.0f\", C = true, D = false, E = -3 }",
            &[
                ("A", "1.5"),
                ("B", "2.0f"),
                ("C", "1"),
                ("D", "0"),
                ("E", "-3"),
            ],
        );
        check_defines("whole_float", "defines = { X = 2.0 }", &[("X", "2.0")]);
        check_defines("none", "", &[]);
    }

    #[test]
    fn spec_source_is_relative_to_the_spec_and_arch_is_read() {
        let s = spec("src", "source = \"k.cu\"\narch = \"sm_90\"\n").expect("valid spec");
        assert_eq!(s.source.file_name().and_then(|n| n.to_str()), Some("k.cu"));
        assert!(s.source.parent().is_some_and(|p| p.ends_with(format!("ptxperf-compile-src-{}", std::process::id()))));
        assert_eq!(s.arch.as_deref(), Some("sm_90"));
    }

    #[test]
    fn bad_specs_are_user_errors_naming_the_file() {
        for (tag, text, fragment) in [
            (
                "nosource",
                "kernel = \"k\"\n",
                "`source` (a string) is missing",
            ),
            ("badtoml", "source = \n", "invalid launch spec"),
            (
                "baddefines",
                "source = \"k.cu\"\ndefines = 3\n",
                "`defines` must be a table",
            ),
            (
                "badvalue",
                "source = \"k.cu\"\ndefines = { N = [1] }\n",
                "define `N` must be",
            ),
        ] {
            let err = spec(tag, text)
                .err()
                .unwrap_or_else(|| panic!("{tag}: expected an error"));
            assert_eq!(err.code(), 1, "{tag}");
            assert!(err.to_string().contains(fragment), "{tag}: {err}");
            assert!(
                err.to_string().contains("spec.toml: error:"),
                "{tag}: {err}"
            );
        }
    }
}
