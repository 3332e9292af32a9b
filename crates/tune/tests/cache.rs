//! The result cache: a second run re-uses every stored result; any change
//! of the key misses.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use tune::{CacheKey, CacheStats, ResultCache, TuneError, fnv1a64};
use validate::Define;

/// A fresh folder under the system temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("tune-cache-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Result1 {
    time_ms: f64,
    bottleneck: String,
}

const SOURCE: &str = "__global__ void k(float *x) { x[threadIdx.x] = 1.0f; }";

fn key(block_x: u64, define_value: &str) -> CacheKey {
    CacheKey::new(
        SOURCE,
        vec![
            ("block_size_x".into(), block_x.to_string()),
            ("tile".into(), define_value.into()),
        ],
        [64, 1, 1],
        [block_x, 1, 1],
        "a100-pcie-40gb",
        "models-1",
    )
}

/// One "tuning run" over `blocks`: computes what the cache lacks. Returns
/// the results and how many were computed.
fn run(cache: &ResultCache, blocks: &[u64]) -> (Vec<Result1>, usize) {
    let mut computed = 0;
    let mut out = Vec::new();
    for &b in blocks {
        let (r, _hit) = cache
            .get_or_compute(&key(b, "2"), || {
                computed += 1;
                Ok::<_, TuneError>(Result1 {
                    time_ms: b as f64 * 0.5,
                    bottleneck: format!("b{b}"),
                })
            })
            .expect("cache works");
        out.push(r);
    }
    (out, computed)
}

#[test]
fn fnv1a_test_vectors() {
    // Published FNV-1a 64 vectors (Fowler/Noll/Vo test suite).
    assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
    assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
    assert_eq!(fnv1a64(b"foobar"), 0x85944171f73967e8);
}

#[test]
fn a_second_run_reuses_every_result() {
    let dir = TempDir::new("reuse");
    let blocks = [32, 64, 128, 256, 512];
    let first = ResultCache::open(&dir.0).expect("opens");
    let (a, computed) = run(&first, &blocks);
    assert_eq!(computed, 5);
    assert_eq!(
        first.stats(),
        CacheStats {
            hits: 0,
            misses: 5,
            stores: 5,
            invalid: 0
        }
    );
    // A new cache object on the same folder, as a second process would open it.
    let second = ResultCache::open(&dir.0).expect("opens");
    let (b, computed) = run(&second, &blocks);
    assert_eq!(computed, 0);
    assert_eq!(a, b);
    assert_eq!(second.stats().hits, 5);
    // A larger space: only the new configurations are computed.
    let (_, computed) = run(&second, &[32, 64, 1024]);
    assert_eq!(computed, 1);
    let entries = std::fs::read_dir(&dir.0).expect("lists").count();
    assert_eq!(entries, 6, "one file per key, no temporaries left");
}

#[test]
fn any_change_of_the_key_misses() {
    let dir = TempDir::new("miss");
    let cache = ResultCache::open(&dir.0).expect("opens");
    let base = key(64, "2");
    cache.put(&base, &1u32).expect("stores");
    let variants = [
        key(64, "4"),
        CacheKey {
            defines: base.defines.iter().rev().cloned().collect(),
            ..base.clone()
        },
        CacheKey {
            grid: [65, 1, 1],
            ..base.clone()
        },
        CacheKey {
            block: [64, 2, 1],
            ..base.clone()
        },
        CacheKey {
            gpu: "geforce-gtx-280".into(),
            ..base.clone()
        },
        CacheKey {
            models: "models-2".into(),
            ..base.clone()
        },
        CacheKey::new(
            &format!("{SOURCE} "),
            base.defines.clone(),
            base.grid,
            base.block,
            &base.gpu,
            &base.models,
        ),
    ];
    for v in &variants {
        assert_ne!(v.file_name(), base.file_name(), "{v:?}");
        assert_eq!(cache.get::<u32>(v), Ok(None), "{v:?}");
    }
    assert_eq!(cache.get::<u32>(&base), Ok(Some(1)));
}

#[test]
fn damaged_or_foreign_entries_are_misses() {
    let dir = TempDir::new("damaged");
    let cache = ResultCache::open(&dir.0).expect("opens");
    let k = key(32, "1");
    std::fs::write(cache.path_of(&k), "{\"schema\":1,\"key\":").expect("writes");
    assert_eq!(cache.get::<u32>(&k), Ok(None));
    // Another key's entry under this key's name (a hash collision).
    let other = key(64, "1");
    cache.put(&other, &7u32).expect("stores");
    std::fs::copy(cache.path_of(&other), cache.path_of(&k)).expect("copies");
    assert_eq!(cache.get::<u32>(&k), Ok(None));
    // A value of another shape.
    cache.put(&k, &"text").expect("stores");
    assert_eq!(cache.get::<u32>(&k), Ok(None));
    assert_eq!(cache.stats().invalid, 3);
    // Storing repairs it.
    cache.put(&k, &3u32).expect("stores");
    assert_eq!(cache.get::<u32>(&k), Ok(Some(3)));
}

#[test]
fn keys_are_stable_and_defines_follow_compile_key() {
    let k = key(64, "2");
    assert_eq!(
        k.source_hash,
        format!("{:016x}", fnv1a64(SOURCE.as_bytes()))
    );
    assert_eq!(k.file_name(), key(64, "2").file_name());
    assert_eq!(
        k.file_name(),
        format!("{:016x}.json", fnv1a64(k.canonical().as_bytes()))
    );
    let defines = CacheKey::defines_of(&[
        Define::Macro {
            name: "N".into(),
            value: "8".into(),
        },
        Define::Constexpr {
            name: "loop_unroll_factor_0".into(),
            value: "4".into(),
        },
        Define::DropUnrollPragma {
            name: "loop_unroll_factor_1".into(),
        },
    ]);
    let expected: Vec<(String, String)> = [
        ("N", "8"),
        ("loop_unroll_factor_0", ":=4"),
        ("loop_unroll_factor_1", "!"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(defines, expected);
}
