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
            let spec = pipeline::spec_source(spec_path, &read_input(spec_path)?)
                .map_err(|e| CliError::of(&e))?;
            for (name, value) in spec.defines {
                options.defines.push((name, Some(value)));
            }
            spec_arch = spec.arch;
            // A templated kernel (`scale<float, 4>`) is instantiated as the
            // launch would instantiate it, so the PTX is the one it runs.
            options.name_expressions.extend(
                spec.kernel
                    .as_deref()
                    .and_then(pipeline::template_id)
                    .map(str::to_string),
            );
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
        one.define(d).map_err(|e| CliError::usage_of(&e))?;
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
    options.to_args().map_err(|e| CliError::usage_of(&e))?;
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
            options: nvrtc_args,
            ..
        }) => {
            let mut msg = nvrtc::render_log(&log);
            if let Some(note) = nvrtc::define_note(&diagnostics, &name, &options) {
                msg.push('\n');
                msg.push_str(&note);
            }
            let errors = diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count();
            msg.push_str(&format!(
                "\n{name}: error: compilation failed ({errors} error(s)); NVRTC options: {}",
                nvrtc_args.join(" ")
            ));
            return Err(CliError::diagnostic(msg));
        }
        Err(e @ NvrtcError::InvalidOption(_)) => return Err(CliError::usage_of(&e)),
        Err(other) => return Err(CliError::diagnostic(format!("error: {other}"))),
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
    CliError::diagnostic(format!("error: {e}"))
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
            CliError::diagnostic(format!(
                "{}: error: cannot create directory: {e}",
                parent.display()
            ))
        })?;
    }
    std::fs::write(&path, ptx).map_err(|e| {
        CliError::diagnostic(format!("{}: error: cannot write PTX: {e}", path.display()))
    })
}
