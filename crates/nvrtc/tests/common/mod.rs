//! Helpers shared by the integration tests: NVRTC-or-skip, temporary trees.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use nvrtc::{Compiler, SearchContext};

/// The repository root (two levels above this crate).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap_or_else(|_| PathBuf::from("../.."))
}

/// True when the `CI` variable asks for strictness (set, non-empty, not "0"/"false").
fn on_ci() -> bool {
    match std::env::var("CI") {
        Ok(v) => !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"),
        Err(_) => false,
    }
}

/// NVRTC found the way the CLI finds it, or `None` after printing the skip
/// line. On CI (CI=true) a missing NVRTC fails the test instead.
pub fn compiler_or_skip() -> Option<Compiler> {
    match Compiler::open(&SearchContext::from_process(None)) {
        Ok(c) => Some(c),
        Err(e) => {
            assert!(
                !on_ci(),
                "NVRTC is required on CI (CI is set) but was not found:\n{e}"
            );
            eprintln!("skipped: NVRTC not found (run bash scripts/setup.sh)");
            None
        }
    }
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A fresh directory under the system temp dir, removed when dropped.
pub struct TempTree {
    pub root: PathBuf,
}

impl TempTree {
    pub fn new(tag: &str) -> TempTree {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let root =
            std::env::temp_dir().join(format!("nvrtc-test-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).expect("create temp dir");
        TempTree { root }
    }

    /// Create an (empty) file at `rel`, with its parent directories; returns its path.
    pub fn file(&self, rel: &str) -> PathBuf {
        let p = self.root.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("create parent dirs");
        }
        std::fs::write(&p, b"").expect("write file");
        p
    }

    pub fn dir(&self, rel: &str) -> PathBuf {
        let p = self.root.join(rel);
        std::fs::create_dir_all(&p).expect("create dir");
        p
    }
}

impl Drop for TempTree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
