//! Helpers shared by the CLI's integration tests.

/// Whether NVRTC can be opened. Absent, a test that needs it returns early
/// with a message, except on CI, where that is a failure.
#[allow(dead_code)] // each test binary compiles this module; not all use it
pub fn nvrtc_available() -> bool {
    let found = nvrtc::Compiler::open(&nvrtc::SearchContext::from_process(None)).is_ok();
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "NVRTC is required in CI (run scripts/setup.sh)"
        );
        eprintln!("skipping: NVRTC not found (run scripts/setup.sh)");
    }
    found
}

/// Whether ptxas can be found (registers "from ptxas" in outputs). Absent, a
/// test that needs it returns early with a message, except on CI.
#[allow(dead_code)] // each test binary compiles this module; not all use it
pub fn ptxas_available() -> bool {
    let found = arch::ptxas::find_ptxas(None).is_ok();
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "ptxas is required in CI (run scripts/setup.sh)"
        );
        eprintln!("skipping: ptxas not found (run scripts/setup.sh)");
    }
    found
}
