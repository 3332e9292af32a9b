//! Helpers shared by the CLI's integration tests.

/// Whether NVRTC can be opened. Absent, a test that needs it returns early
/// with a message, except on CI, where that is a failure.
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
