//! A resumable cache of per-configuration results, so that an interrupted
//! or repeated `tune` run re-uses everything already computed.
//!
//! A result is keyed by everything that can change it ([`CacheKey`]): the
//! source text (by hash), the defines in order, grid, block, the GPU and the
//! version of the model set. One JSON file per key, named by a 64-bit FNV-1a
//! hash of the key's canonical JSON text, holds the full key and the value:
//!
//! ```json
//! {"schema":1,"key":{"source_hash":"…","defines":[["N","64"]],…},"value":…}
//! ```
//!
//! Writes go to a temporary file renamed into place, so a run killed midway
//! leaves either the whole entry or none. A file that does not parse, holds
//! another key (a hash collision) or a value of another shape is a miss and
//! is overwritten by the next store.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use validate::Define;

use crate::error::TuneError;

/// Format version of the entry files.
pub const CACHE_SCHEMA: u32 = 1;

/// 64-bit FNV-1a (Fowler, Noll, Vo; offset basis 0xcbf29ce484222325, prime
/// 0x100000001b3). Stable across runs, platforms and Rust versions, unlike
/// `std`'s hasher.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes
        .iter()
        .fold(OFFSET, |h, b| (h ^ u64::from(*b)).wrapping_mul(PRIME))
}

/// Everything a cached result depends on.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CacheKey {
    /// [`fnv1a64`] of the source text, 16 hex digits.
    pub source_hash: String,
    /// (name, value) in the order they are applied; order matters.
    pub defines: Vec<(String, String)>,
    pub grid: [u64; 3],
    pub block: [u64; 3],
    /// GPU id (`a100-pcie-40gb`).
    pub gpu: String,
    /// Version of the model set; bump it when a model changes.
    pub models: String,
}

impl CacheKey {
    pub fn new(
        source_text: &str,
        defines: Vec<(String, String)>,
        grid: [u64; 3],
        block: [u64; 3],
        gpu: &str,
        models: &str,
    ) -> CacheKey {
        CacheKey {
            source_hash: format!("{:016x}", fnv1a64(source_text.as_bytes())),
            defines,
            grid,
            block,
            gpu: gpu.to_string(),
            models: models.to_string(),
        }
    }

    /// The defines of a `validate::Launch`, spelled as its `compile_key`
    /// does: `constexpr` values prefixed `:=`, a dropped pragma `!`.
    pub fn defines_of(defines: &[Define]) -> Vec<(String, String)> {
        defines
            .iter()
            .map(|d| match d {
                Define::Macro { name, value } => (name.clone(), value.clone()),
                Define::Constexpr { name, value } => (name.clone(), format!(":={value}")),
                Define::DropUnrollPragma { name } => (name.clone(), "!".to_string()),
            })
            .collect()
    }

    /// The key as compact JSON, fields in declaration order.
    pub fn canonical(&self) -> String {
        // Serialising strings, integers and arrays cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// [`fnv1a64`] of [`CacheKey::canonical`].
    pub fn digest(&self) -> u64 {
        fnv1a64(self.canonical().as_bytes())
    }

    /// The entry's file name: `<16 hex digits>.json`.
    pub fn file_name(&self) -> String {
        format!("{:016x}.json", self.digest())
    }
}

#[derive(Serialize)]
struct EntryOut<'a, T> {
    schema: u32,
    key: &'a CacheKey,
    value: &'a T,
}

#[derive(Deserialize)]
struct EntryIn<T> {
    schema: u32,
    key: CacheKey,
    value: T,
}

/// Counters of one cache's use since it was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    pub stores: u64,
    /// Misses on a file that exists but is unreadable as an entry for the key.
    pub invalid: u64,
}

/// A folder of cache entries. Shareable between threads (`&self` methods,
/// atomic counters); entries for distinct keys never touch the same file.
#[derive(Debug)]
pub struct ResultCache {
    dir: PathBuf,
    hits: AtomicU64,
    misses: AtomicU64,
    stores: AtomicU64,
    invalid: AtomicU64,
    /// Makes temporary file names unique within the process.
    tmp_counter: AtomicU64,
}

impl ResultCache {
    /// Opens (creating it if needed) the cache folder `dir`.
    pub fn open(dir: &Path) -> Result<ResultCache, TuneError> {
        std::fs::create_dir_all(dir).map_err(|e| TuneError::Cache {
            path: dir.display().to_string(),
            message: format!("cannot create: {e}"),
        })?;
        Ok(ResultCache {
            dir: dir.to_path_buf(),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            stores: AtomicU64::new(0),
            invalid: AtomicU64::new(0),
            tmp_counter: AtomicU64::new(0),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of `key`'s entry.
    pub fn path_of(&self, key: &CacheKey) -> PathBuf {
        self.dir.join(key.file_name())
    }

    /// The stored value for `key`, or `None` (a miss).
    pub fn get<T: DeserializeOwned>(&self, key: &CacheKey) -> Result<Option<T>, TuneError> {
        let path = self.path_of(key);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                return Ok(None);
            }
            Err(e) => {
                return Err(TuneError::Cache {
                    path: path.display().to_string(),
                    message: format!("cannot read: {e}"),
                });
            }
        };
        match serde_json::from_str::<EntryIn<T>>(&text) {
            Ok(entry) if entry.schema == CACHE_SCHEMA && entry.key == *key => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                Ok(Some(entry.value))
            }
            _ => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                self.invalid.fetch_add(1, Ordering::Relaxed);
                Ok(None)
            }
        }
    }

    /// Stores `value` for `key`, replacing any previous entry.
    pub fn put<T: Serialize>(&self, key: &CacheKey, value: &T) -> Result<(), TuneError> {
        let path = self.path_of(key);
        let err = |p: &Path, m: String| TuneError::Cache {
            path: p.display().to_string(),
            message: m,
        };
        let text = serde_json::to_string(&EntryOut {
            schema: CACHE_SCHEMA,
            key,
            value,
        })
        .map_err(|e| err(&path, format!("cannot serialise: {e}")))?;
        let n = self.tmp_counter.fetch_add(1, Ordering::Relaxed);
        let tmp = self.dir.join(format!(
            ".{}.{}.{n}.tmp",
            key.file_name(),
            std::process::id()
        ));
        std::fs::write(&tmp, text + "\n").map_err(|e| err(&tmp, format!("cannot write: {e}")))?;
        std::fs::rename(&tmp, &path).map_err(|e| {
            // Best effort: do not leave the temporary behind.
            let _ = std::fs::remove_file(&tmp);
            err(&path, format!("cannot rename into place: {e}"))
        })?;
        self.stores.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// The stored value, or `compute()`'s, stored before it is returned.
    /// The flag says whether it came from the cache.
    pub fn get_or_compute<T, E>(
        &self,
        key: &CacheKey,
        compute: impl FnOnce() -> Result<T, E>,
    ) -> Result<(T, bool), E>
    where
        T: Serialize + DeserializeOwned,
        E: From<TuneError>,
    {
        if let Some(v) = self.get(key)? {
            return Ok((v, true));
        }
        let v = compute()?;
        self.put(key, &v)?;
        Ok((v, false))
    }

    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            stores: self.stores.load(Ordering::Relaxed),
            invalid: self.invalid.load(Ordering::Relaxed),
        }
    }
}
