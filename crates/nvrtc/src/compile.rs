//! Compiling one CUDA C++ source to PTX: the library, the headers and the options together.

use std::path::{Path, PathBuf};

use crate::error::{INSTALL_HINT, NvrtcError};
use crate::library::Nvrtc;
use crate::locate::{SearchContext, SearchStep, locate_headers, locate_library};
use crate::log::{Diagnostic, parse_log};
use crate::options::CompileOptions;

/// NVRTC's result code for "the source did not compile".
const NVRTC_ERROR_COMPILATION: i32 = 6;

/// A loaded NVRTC plus the CUDA include directory, when one was found.
#[derive(Debug)]
pub struct Compiler {
    nvrtc: Nvrtc,
    include_dir: Option<PathBuf>,
    library_search: Vec<SearchStep>,
    header_search: Vec<SearchStep>,
}

/// A successful compilation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compiled {
    /// The PTX text, `.file` paths normalised (see [`CompileOptions::path_base`]).
    pub ptx: String,
    /// NVRTC's log: empty, or warnings.
    pub log: String,
    /// The log parsed.
    pub diagnostics: Vec<Diagnostic>,
    /// (name expression, mangled name) for each of `CompileOptions::name_expressions`.
    pub lowered_names: Vec<(String, String)>,
    /// The options NVRTC was given, for the record.
    pub options: Vec<String>,
}

impl Compiler {
    /// Find and load NVRTC (required) and the CUDA headers (optional: sources
    /// that include none compile without them).
    pub fn open(ctx: &SearchContext) -> Result<Compiler, NvrtcError> {
        let lib = locate_library(ctx)?;
        let nvrtc = Nvrtc::load(&lib.path)?;
        let (include_dir, header_search) = match locate_headers(ctx, Some(&lib.path)) {
            Ok(found) => (Some(found.path), found.searched),
            Err(NvrtcError::NotFound { searched, .. }) => (None, searched),
            Err(other) => return Err(other),
        };
        Ok(Compiler {
            nvrtc,
            include_dir,
            library_search: lib.searched,
            header_search,
        })
    }

    pub fn nvrtc(&self) -> &Nvrtc {
        &self.nvrtc
    }

    /// The CUDA include directory passed to every compilation, if found.
    pub fn include_dir(&self) -> Option<&Path> {
        self.include_dir.as_deref()
    }

    /// The steps that located the library and the headers.
    pub fn search_record(&self) -> (&[SearchStep], &[SearchStep]) {
        (&self.library_search, &self.header_search)
    }

    /// Compile `source` as the program `name` (the name NVRTC uses in its log
    /// and in the PTX's `.file`; pass the path as the user wrote it).
    pub fn compile(
        &self,
        source: &str,
        name: &str,
        options: &CompileOptions,
    ) -> Result<Compiled, NvrtcError> {
        let mut opts = options.clone();
        if let Some(dir) = &self.include_dir
            && !opts.include_dirs.contains(dir)
        {
            opts.include_dirs.push(dir.clone());
            for sibling in sibling_wheel_includes(dir) {
                if !opts.include_dirs.contains(&sibling) {
                    opts.include_dirs.push(sibling);
                }
            }
        }
        let args = opts.to_args()?;
        // The standard headers stand in where libcu++ can back them.
        let headers = if opts
            .include_dirs
            .iter()
            .any(|d| d.join("cuda/std/cstdint").is_file())
        {
            crate::std_headers::standard_headers()
        } else {
            Vec::new()
        };
        let raw = self
            .nvrtc
            .run_program(source, name, &args, &opts.name_expressions, &headers)?;
        let mut log = raw.log;
        let Some(ptx) = raw.ptx else {
            if raw.code != NVRTC_ERROR_COMPILATION && log.trim().is_empty() {
                log = format!("nvrtc: error: {}", self.nvrtc.error_text(raw.code));
            }
            if self.include_dir.is_none() && log.contains("cannot open source file") {
                log.push_str(&format!(
                    "\nnvrtc: note: the CUDA headers were not found (searched: {}); install them with: {INSTALL_HINT}\n",
                    self.header_search.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
                ));
            }
            let diagnostics = parse_log(&log);
            return Err(NvrtcError::Compile {
                name: name.to_string(),
                log,
                diagnostics,
                options: args,
            });
        };
        let cwd = std::env::current_dir().ok();
        let base = opts.path_base.clone().or_else(|| cwd.clone());
        let ptx = normalise_file_paths(&ptx, name, cwd.as_deref(), base.as_deref());
        let diagnostics = parse_log(&log);
        Ok(Compiled {
            ptx,
            log,
            diagnostics,
            lowered_names: raw.lowered,
            options: args,
        })
    }
}

/// The notes that end a failed compilation's message, one a line: one of
/// the `options`' defines likely broke a header
/// ([`crate::define_collisions`]), or the source uses a `<math.h>` macro
/// without including it ([`crate::math_macro_note`]); for the log NVRTC
/// gave on compiling `source` (the program's name). `None` without either.
pub fn define_note(
    diagnostics: &[crate::Diagnostic],
    source: &str,
    options: &CompileOptions,
) -> Option<String> {
    let names: Vec<&str> = options.defines.iter().map(|(n, _)| n.as_str()).collect();
    let notes: Vec<String> = [
        crate::define_collision_note(&crate::define_collisions(diagnostics, source, &names)),
        crate::math_macro_note(diagnostics),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!notes.is_empty()).then(|| notes.join("\n"))
}

/// The wheels split the headers a CUDA toolkit keeps in one `include`: beside
/// the runtime wheel's (`nvidia/cuda_runtime/include`), `<mma.h>` (wmma)
/// lives in the nvcc wheel (`cuda_nvcc/include/crt/mma.h`), and CCCL
/// (`<nv/target>`, which `<cooperative_groups.h>` includes, CUB, Thrust and
/// libcu++) in the cccl wheel (`cuda_cccl/include`), and cuRAND's device
/// API (`<curand_kernel.h>`) in `curand/include`, the headers scripts/setup.sh
/// unpacks from the cuRAND wheel. The ones present, each recognised by a
/// header it must hold.
fn sibling_wheel_includes(runtime_include: &Path) -> Vec<PathBuf> {
    const SIBLINGS: [(&str, &str); 3] = [
        ("cuda_nvcc/include", "crt/mma.h"),
        ("cuda_cccl/include", "nv/target"),
        ("curand/include", "curand_kernel.h"),
    ];
    let Some(nvidia) = runtime_include.parent().and_then(Path::parent) else {
        return Vec::new();
    };
    SIBLINGS
        .iter()
        .map(|(dir, marker)| (nvidia.join(dir), marker))
        .filter(|(dir, marker)| dir.join(marker).is_file())
        .map(|(dir, _)| dir)
        .collect()
}

/// NVRTC writes `.file N "<cwd>/<name>"` for the program and absolute paths for
/// headers. Rewrite the program's entry to `name` as given, and paths under
/// `base` relative to it, so the PTX is the same wherever the checkout lives.
pub fn normalise_file_paths(
    ptx: &str,
    name: &str,
    cwd: Option<&Path>,
    base: Option<&Path>,
) -> String {
    let program_path = cwd.map(|c| format!("{}/{}", c.display(), name));
    let base_prefix = base.map(|b| format!("{}/", b.display()));
    let mut out = String::with_capacity(ptx.len());
    for line in ptx.split_inclusive('\n') {
        out.push_str(&rewrite_file_line(
            line,
            name,
            program_path.as_deref(),
            base_prefix.as_deref(),
        ));
    }
    out
}

fn rewrite_file_line(
    line: &str,
    name: &str,
    program_path: Option<&str>,
    base_prefix: Option<&str>,
) -> String {
    if !line.trim_start().starts_with(".file") {
        return line.to_string();
    }
    let Some(open) = line.find('"') else {
        return line.to_string();
    };
    let Some(close_rel) = line[open + 1..].find('"') else {
        return line.to_string();
    };
    let close = open + 1 + close_rel;
    let path = &line[open + 1..close];
    let new_path = if Some(path) == program_path {
        name
    } else if let Some(rel) = base_prefix.and_then(|b| path.strip_prefix(b)) {
        rel
    } else {
        path
    };
    format!("{}{}{}", &line[..open + 1], new_path, &line[close..])
}
