//! Helpers shared by the CLI's integration tests.

pub mod kernels;

/// Whether NVRTC can be opened. Absent, a test that needs it returns early
/// with a message, except on CI, where that is a failure.
#[allow(dead_code)] // each test binary compiles this module; not all use it
pub fn nvrtc_available() -> bool {
    required_tool(
        "NVRTC",
        nvrtc::Compiler::open(&nvrtc::SearchContext::from_process(None)).is_ok(),
    )
}

/// Whether ptxas can be found (registers "from ptxas" in outputs), as
/// [`nvrtc_available`].
#[allow(dead_code)]
pub fn ptxas_available() -> bool {
    required_tool("ptxas", arch::ptxas::find_ptxas(None).is_ok())
}

/// `found`; when not, a failure on CI, else a message that the test is skipped.
fn required_tool(what: &str, found: bool) -> bool {
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "{what} is required in CI (run scripts/setup.sh)"
        );
        eprintln!("skipping: {what} not found (run scripts/setup.sh)");
    }
    found
}

/// A launch spec of a map kernel `kernel(const float *IN, float *out, N n)`
/// over `N` elements: the spec several tests write for a kernel of their own.
#[allow(dead_code)] // each test binary compiles this module; not all use it
pub struct MapSpec<'a> {
    /// The `source` key (a `.ptx` or `.cu` path).
    pub source: &'a str,
    pub kernel: &'a str,
    /// The inside of `defines = { ... }`; it must define `N`.
    pub defines: &'a str,
    /// The grid and block expressions (one dimension).
    pub grid: &'a str,
    pub block: &'a str,
    /// The input buffer's name (filled with 0, 1, 2, ...).
    pub input: &'a str,
    /// The type of the element count `n` (`i32`, `u32`; `f32` to test a refusal).
    pub n_type: &'a str,
}

#[allow(dead_code)]
impl MapSpec<'_> {
    pub fn text(&self) -> String {
        format!(
            r#"source = "{}"
kernel = "{}"
defines = {{ {} }}
grid = ["{}"]
block = ["{}"]

[[arg]]
name = "{}"
type = "f32*"
len = "N"
init = "iota"

[[arg]]
name = "out"
type = "f32*"
len = "N"

[[arg]]
name = "n"
type = "{}"
value = "N"
"#,
            self.source, self.kernel, self.defines, self.grid, self.block, self.input, self.n_type
        )
    }
}

/// Fails, showing `text`, unless it contains every one of `needles`.
#[allow(dead_code)] // each test binary compiles this module; not all use it
pub fn assert_contains_all(text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(text.contains(needle), "no {needle:?} in\n{text}");
    }
}

/// Where this test process finds NVRTC and ptxas, as environment variables
/// for a binary started in a folder outside the repository: the binary
/// searches above itself and above its current folder, and with
/// `CARGO_TARGET_DIR` outside the repository neither has the `.venv`.
#[allow(dead_code)]
pub fn tool_env() -> Vec<(&'static str, std::path::PathBuf)> {
    let mut env = Vec::new();
    if let Ok(c) = nvrtc::Compiler::open(&nvrtc::SearchContext::from_process(None)) {
        env.push(("PTXPERF_NVRTC", c.nvrtc().path().to_path_buf()));
    }
    if let Ok(ptxas) = arch::ptxas::find_ptxas(None) {
        env.push(("PTXPERF_PTXAS", ptxas));
    }
    env
}

/// `ptxperf ARGS` run in `dir`, told where this process found NVRTC and
/// ptxas ([`tool_env`]); its output, whatever the exit status.
#[allow(dead_code)]
pub fn ptxperf_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_ptxperf"))
        .envs(tool_env())
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run ptxperf: {e}"))
}

/// docs/validation/profiles.tar.xz unpacked (by scripts/profiles-archive.py,
/// as the report script does) into a fresh temporary folder named after `tag`.
#[allow(dead_code)]
pub fn unpacked_profiles(tag: &str) -> std::path::PathBuf {
    unpacked_archive("docs/validation/profiles.tar.xz", tag)
}

/// The profiles archive at `archive` (relative to the repository root)
/// unpacked into a fresh temporary folder named after `tag`.
#[allow(dead_code)]
pub fn unpacked_archive(archive: &str, tag: &str) -> std::path::PathBuf {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = std::env::temp_dir().join(format!("ptxperf-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let unpack = std::process::Command::new("python3")
        .arg(root.join("scripts/profiles-archive.py"))
        .arg("unpack")
        .arg(root.join(archive))
        .arg(&dir)
        .output()
        .expect("python3 runs");
    assert!(
        unpack.status.success(),
        "unpack {archive}: {}",
        String::from_utf8_lossy(&unpack.stderr)
    );
    dir
}

/// `validate EXPERIMENT --data DATA --gpu GPU --profiles PROFILES
/// --bootstrap 0 --quiet`: a run rescored from saved profiles, no
/// compiler needed; a test appends its models and outputs.
#[allow(dead_code)]
pub fn rescore_args<'a>(
    experiment: &'a str,
    data: &'a str,
    gpu: &'a str,
    profiles: &'a str,
) -> Vec<&'a str> {
    vec![
        "validate",
        experiment,
        "--data",
        data,
        "--gpu",
        gpu,
        "--profiles",
        profiles,
        "--bootstrap",
        "0",
        "--quiet",
    ]
}

/// The shared ground-truth folder beside the repository, or `None` (with a
/// note) on a user's machine without it; on CI (`CI` set) its absence is a
/// failure, never a skip.
#[allow(dead_code)] // each test binary compiles this module; not all use it
pub fn shared_groundtruth() -> Option<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = root.join("../shared/data/groundtruth");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI: the shared ground-truth folder is missing at {}",
        dir.display()
    );
    eprintln!(
        "skipped: shared ground-truth data not found at {} (it sits beside the repository)",
        dir.display()
    );
    None
}
