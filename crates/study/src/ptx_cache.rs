//! PTX cached on disk by what determines it (the instantiated source text,
//! the compile options, the NVRTC version), so a second run of the same
//! configurations compiles nothing. One file per entry, written to a
//! temporary name and renamed, so concurrent workers (and concurrent runs)
//! never see half a file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use nvrtc::{CompileOptions, Compiler, SearchContext};
use pipeline::Stage;

use crate::error::PtxCacheError;
use crate::timings::Timings;

/// Environment variable naming the cache folder.
pub const CACHE_ENV: &str = "PTXPERF_CACHE_DIR";

/// The variable's earlier name, still read after [`CACHE_ENV`].
pub const LEGACY_CACHE_ENV: &str = "PTXPERF_CACHE";

/// Where the cache lives when `--cache` does not say: `$PTXPERF_CACHE_DIR`
/// (or its earlier name `$PTXPERF_CACHE`), else the user's cache folder of
/// the XDG base directory specification, `$XDG_CACHE_HOME/ptxperf` or
/// `~/.cache/ptxperf`. Never the current directory.
pub fn default_dir() -> Result<PathBuf, PtxCacheError> {
    dir_from_env(&|name| std::env::var_os(name)).ok_or(PtxCacheError::NoDir)
}

/// [`default_dir`] with the environment given by `var`: `None` when no
/// variable names a folder. Empty values are unset; an `XDG_CACHE_HOME`
/// that is not absolute is ignored, as the XDG specification asks.
pub fn dir_from_env(var: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    set(CACHE_ENV)
        .or_else(|| set(LEGACY_CACHE_ENV))
        .or_else(|| {
            set("XDG_CACHE_HOME")
                .filter(|d| d.is_absolute())
                .map(|d| d.join("ptxperf"))
        })
        .or_else(|| set("HOME").map(|h| h.join(".cache").join("ptxperf")))
}

/// The entry name of a key: two independent 64-bit FNV-1a hashes (of the
/// key and of the key with a salt), so an accidental collision needs 128 bits.
pub fn entry_name(key: &str) -> String {
    let a = tune::fnv1a64(key.as_bytes());
    let mut salted = Vec::with_capacity(key.len() + 8);
    salted.extend_from_slice(b"ptxperf\0");
    salted.extend_from_slice(key.as_bytes());
    let b = tune::fnv1a64(&salted);
    format!("{a:016x}{b:016x}.ptx")
}

/// A folder of PTX files with hit and miss counters, and the NVRTC that
/// fills it.
pub struct PtxCache {
    dir: Option<PathBuf>,
    hits: AtomicUsize,
    compiled: AtomicUsize,
    /// Opened on first use: a run that compiles nothing (every
    /// configuration measured as failed, or profiles rescored) needs none.
    compiler: Mutex<Option<Arc<Compiler>>>,
    /// One lock per entry being looked up or compiled in this process, so
    /// that two workers that need the same PTX at once (twin configurations,
    /// [`validate::defines_read_by`]) compile it once: the second waits for
    /// the first's file instead of compiling it again.
    entry_locks: Mutex<HashMap<String, Arc<Mutex<()>>>>,
}

impl PtxCache {
    /// A cache in `dir` (created if needed), or no caching with `None`.
    pub fn open(dir: Option<&Path>) -> Result<PtxCache, PtxCacheError> {
        let dir = match dir {
            Some(d) => {
                let d = d.join("ptx");
                std::fs::create_dir_all(&d).map_err(|source| PtxCacheError::Create {
                    path: d.clone(),
                    source,
                })?;
                Some(d)
            }
            None => None,
        };
        Ok(PtxCache {
            dir,
            hits: AtomicUsize::new(0),
            compiled: AtomicUsize::new(0),
            compiler: Mutex::new(None),
            entry_locks: Mutex::new(HashMap::new()),
        })
    }

    /// NVRTC, loaded on the first call.
    pub fn compiler(&self) -> Result<Arc<Compiler>, PtxCacheError> {
        let mut slot = self.compiler.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(c) = slot.as_ref() {
            return Ok(c.clone());
        }
        let c = Arc::new(
            Compiler::open(&SearchContext::from_process(None)).map_err(PtxCacheError::Nvrtc)?,
        );
        *slot = Some(c.clone());
        Ok(c)
    }

    /// The PTX of `source` (NVRTC's program `name`) under `options`, from
    /// the cache when the same NVRTC version compiled the same source with
    /// the same options before ([`nvrtc::cache_key`]); else compiled. The
    /// one compile-and-cache function of `validate` and `tune`, so either
    /// command's PTX serves the other.
    pub fn compile(
        &self,
        source: &str,
        name: &str,
        options: &CompileOptions,
    ) -> Result<String, PtxCacheError> {
        self.compile_timed(source, name, options, &mut Timings::default())
    }

    /// [`PtxCache::compile`], adding NVRTC's wall time to `timings` (or a
    /// hit, at 0 s, when the PTX came from the cache).
    pub fn compile_timed(
        &self,
        source: &str,
        name: &str,
        options: &CompileOptions,
        timings: &mut Timings,
    ) -> Result<String, PtxCacheError> {
        let compiler = self.compiler()?;
        let key = compiler
            .cache_key(source, name, options)
            .map_err(PtxCacheError::Nvrtc)?;
        self.get_or_compile_timed(&key, timings, || {
            compiler
                .compile(source, name, options)
                .map(|c| c.ptx)
                .map_err(PtxCacheError::Compile)
        })
    }

    /// The PTX of a Kernel Tuner configuration: its instantiated `source`
    /// (NVRTC's program `name`, the source path as the experiment names it)
    /// for `arch` with the experiment's include folders and nothing else.
    /// `validate` and `tune` both compile through here, so the options, and
    /// with them the key, cannot drift apart: either command's PTX serves
    /// the other. NVRTC's wall time (or a hit) is added to `timings`.
    pub fn compile_configuration(
        &self,
        source: &str,
        name: &str,
        arch: &str,
        include_dirs: &[PathBuf],
        timings: &mut Timings,
    ) -> Result<String, PtxCacheError> {
        let options = CompileOptions {
            arch: Some(arch.to_string()),
            include_dirs: include_dirs.to_vec(),
            ..CompileOptions::default()
        };
        self.compile_timed(source, name, &options, timings)
    }

    /// The PTX of `key`, from the cache or from `compile` (then stored).
    /// A cache that cannot be read or written only costs a compilation.
    pub fn get_or_compile<E>(
        &self,
        key: &str,
        compile: impl FnOnce() -> Result<String, E>,
    ) -> Result<String, E> {
        self.get_or_compile_timed(key, &mut Timings::default(), compile)
    }

    /// [`PtxCache::get_or_compile`], adding `compile`'s wall time to
    /// `timings` as NVRTC's, or a PTX cache hit (0 s) when it is not run.
    pub fn get_or_compile_timed<E>(
        &self,
        key: &str,
        timings: &mut Timings,
        compile: impl FnOnce() -> Result<String, E>,
    ) -> Result<String, E> {
        let name = entry_name(key);
        let path = self.dir.as_ref().map(|d| d.join(&name));
        // Held until the file is written (a cache without a folder shares
        // nothing, so it takes no lock).
        let entry_lock = path.as_ref().map(|_| {
            let mut locks = self
                .entry_locks
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            Arc::clone(locks.entry(name).or_default())
        });
        let _held = entry_lock
            .as_ref()
            .map(|l| l.lock().unwrap_or_else(PoisonError::into_inner));
        if let Some(p) = &path
            && let Ok(ptx) = std::fs::read_to_string(p)
        {
            self.hits.fetch_add(1, Ordering::Relaxed);
            timings.ptx_cache_hits += 1;
            return Ok(ptx);
        }
        let ptx = timings.stages.time(Stage::Nvrtc, compile)?;
        self.compiled.fetch_add(1, Ordering::Relaxed);
        if let Some(p) = &path {
            // Unique per process and thread: no two writers share a temp file.
            let tmp = p.with_extension(format!(
                "tmp{}-{:?}",
                std::process::id(),
                std::thread::current().id()
            ));
            if std::fs::write(&tmp, &ptx).is_ok() && std::fs::rename(&tmp, p).is_err() {
                let _ = std::fs::remove_file(&tmp);
            }
        }
        Ok(ptx)
    }

    /// The folder of explicit initial values (the cache's `values/`, or the
    /// system's temporary folder when nothing is cached).
    pub fn values_dir(&self) -> PathBuf {
        match self.dir.as_ref().and_then(|d| d.parent()) {
            Some(root) => root.join("values"),
            None => std::env::temp_dir().join("ptxperf-values"),
        }
    }

    /// Count one compile made outside the cache (a launch spec's `.cu`
    /// source, which the pipeline compiles itself), so that the counters
    /// say what was compiled however it was.
    pub fn count_compiled(&self) {
        self.compiled.fetch_add(1, Ordering::Relaxed);
    }

    /// (served from the cache, compiled).
    pub fn counts(&self) -> (usize, usize) {
        (
            self.hits.load(Ordering::Relaxed),
            self.compiled.load(Ordering::Relaxed),
        )
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn entry_names_differ_by_key_and_are_stable() {
        assert_eq!(entry_name("a"), entry_name("a"));
        assert_ne!(entry_name("a"), entry_name("b"));
        assert_eq!(entry_name("a").len(), 32 + 4);
    }

    #[test]
    fn a_second_lookup_is_served_from_disk() {
        let dir =
            std::env::temp_dir().join(format!("ptxperf-validate-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = PtxCache::open(Some(&dir)).expect("temp dir is writable");
        let first = cache.get_or_compile("k", || Ok::<_, String>("PTX 1".to_string()));
        assert_eq!(first, Ok("PTX 1".to_string()));
        // A second cache over the same folder: the compiler must not run.
        let again = PtxCache::open(Some(&dir)).expect("reopen");
        let second = again.get_or_compile("k", || Err("compiled again".to_string()));
        assert_eq!(second, Ok("PTX 1".to_string()));
        assert_eq!((cache.counts(), again.counts()), ((0, 1), (1, 0)));
        let failed = again.get_or_compile("other", || Err("bad".to_string()));
        assert_eq!(failed, Err("bad".to_string()));
        // A hit counts as one, NVRTC at 0 s; a compile counts NVRTC's time.
        let mut t = crate::timings::Timings::one();
        let hit = again.get_or_compile_timed("k", &mut t, || Err("compiled again".to_string()));
        assert_eq!(hit, Ok("PTX 1".to_string()));
        assert_eq!(
            (t.ptx_cache_hits, t.stage(Stage::Nvrtc)),
            (1, Duration::ZERO)
        );
        let mut t = crate::timings::Timings::one();
        let miss = again.get_or_compile_timed("new", &mut t, || {
            std::thread::sleep(Duration::from_millis(2));
            Ok::<_, String>("PTX 2".to_string())
        });
        assert_eq!(miss, Ok("PTX 2".to_string()));
        assert_eq!(t.ptx_cache_hits, 0);
        assert!(t.stage(Stage::Nvrtc) >= Duration::from_millis(2));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn two_workers_that_need_the_same_ptx_compile_it_once() {
        let dir = std::env::temp_dir().join(format!(
            "ptxperf-cache-single-flight-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = PtxCache::open(Some(&dir)).expect("temp dir is writable");
        let compiles = AtomicUsize::new(0);
        let results: Vec<Result<String, String>> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..4)
                .map(|_| {
                    scope.spawn(|| {
                        cache.get_or_compile("twin", || {
                            compiles.fetch_add(1, Ordering::SeqCst);
                            // Long enough that the others ask while it runs.
                            std::thread::sleep(Duration::from_millis(50));
                            Ok::<_, String>("PTX".to_string())
                        })
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().expect("no panic"))
                .collect()
        });
        assert!(results.iter().all(|r| r.as_deref() == Ok("PTX")));
        assert_eq!(compiles.load(Ordering::SeqCst), 1);
        assert_eq!(cache.counts(), (3, 1));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn without_a_folder_everything_is_compiled() {
        let cache = PtxCache::open(None).expect("no folder to create");
        for _ in 0..2 {
            assert_eq!(
                cache.get_or_compile("k", || Ok::<_, String>("x".to_string())),
                Ok("x".to_string())
            );
        }
        assert_eq!(cache.counts(), (0, 2));
    }
}

#[cfg(test)]
mod dir_tests {
    use std::path::PathBuf;

    use super::dir_from_env;

    /// The folder `dir_from_env` picks given these variables.
    fn check(env: &[(&str, &str)], expect: Option<&str>) {
        let var = |name: &str| {
            env.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| std::ffi::OsString::from(v))
        };
        assert_eq!(dir_from_env(&var), expect.map(PathBuf::from), "{env:?}");
    }

    #[test]
    fn the_cache_is_in_the_users_cache_folder_never_the_current_one() {
        let home = ("HOME", "/home/u");
        let xdg = ("XDG_CACHE_HOME", "/var/xdg");
        check(&[home], Some("/home/u/.cache/ptxperf"));
        check(&[home, xdg], Some("/var/xdg/ptxperf"));
        check(&[home, xdg, ("PTXPERF_CACHE_DIR", "/c")], Some("/c"));
        check(&[home, ("PTXPERF_CACHE", "/old")], Some("/old"));
        check(
            &[("PTXPERF_CACHE", "/old"), ("PTXPERF_CACHE_DIR", "/new")],
            Some("/new"),
        );
        // Empty is unset; a relative XDG_CACHE_HOME is ignored.
        check(
            &[home, ("PTXPERF_CACHE_DIR", "")],
            Some("/home/u/.cache/ptxperf"),
        );
        check(
            &[home, ("XDG_CACHE_HOME", "rel")],
            Some("/home/u/.cache/ptxperf"),
        );
        check(&[], None);
        check(&[("HOME", "")], None);
    }
}
