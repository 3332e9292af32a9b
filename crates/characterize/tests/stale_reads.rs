//! A run for addresses alone (`emu::exec::LaunchOptions::addresses_only`)
//! leaves a store's values uncomputed where no needed load reads the places
//! its address reaches. Pointer arithmetic that leaves its allocation can
//! fool that: here a store through `b + d` (d a scalar the analysis takes
//! for a count) lands in `a`, and a load from `a` feeds an address. The run
//! stops where it reads what it did not compute, and the characterization
//! runs the launch again whole: the same numbers as computing every value.

use std::path::Path;

use characterize::{Options, characterize_ptx, characterize_with};
use emu::exec::{LaunchOptions, launch};
use emu::observer::{NoObserver, Observer};
use emu::spec::parse;

const FOOLED: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 d)
{
  .reg .b64 %rd<10>; .reg .b32 %r<5>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [d];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd2, %rd3;
  add.s64 %rd6, %rd5, %rd4;
  mul.lo.u32 %r2, %r1, 7;
  st.global.u32 [%rd6], %r2;
  bar.sync 0;
  add.s64 %rd7, %rd1, %rd4;
  ld.global.u32 %r3, [%rd7];
  and.b32 %r4, %r3, 63;
  mul.wide.u32 %rd8, %r4, 4;
  add.s64 %rd9, %rd2, %rd8;
  st.global.u32 [%rd9], %r1;
  ret;
}
"#;

/// `a` and `b` of 256 bytes each; `b` lies 4,352 bytes past `a` (256 bytes
/// and the 4 KiB guard between allocations, rounded to 256: emu's
/// `GlobalMemory::alloc`), so `b + d` is `a`.
const SPEC: &str = r#"
source = "fooled.ptx"
kernel = "k"
grid = [1, 1, 1]
block = [32, 1, 1]
[[arg]]
name = "a"
type = "u32*"
len = 64
init = "zeros"
[[arg]]
name = "b"
type = "u32*"
len = 64
init = "zeros"
[[arg]]
name = "d"
type = "i64"
value = -4352
"#;

/// Watches every event: a sequential run whose observer has seen it.
struct Watching;
impl Observer for Watching {}

#[test]
fn a_stale_read_runs_the_launch_again_whole() {
    let spec = parse(SPEC, Path::new("fooled.toml"), &[]).unwrap_or_else(|e| panic!("{e}"));
    let module = ptx::parse("fooled.ptx", FOOLED).unwrap_or_else(|_| panic!("parses"));
    // Computing every value, the load reads 7 * tid back from `a`.
    let full = LaunchOptions::default();
    let r = launch(&module, FOOLED, "fooled.ptx", &spec, full, &mut NoObserver)
        .unwrap_or_else(|f| panic!("{f}"));
    let a = &r.buffers[0].bytes;
    assert_eq!(a.get(4..8), Some(&7u32.to_le_bytes()[..]), "a[1] = 7");
    // For addresses alone, the store wrote what was not computed, and the
    // load that feeds an address stops the run.
    let fast = LaunchOptions {
        addresses_only: true,
        ..LaunchOptions::default()
    };
    let f = launch(&module, FOOLED, "fooled.ptx", &spec, fast, &mut NoObserver)
        .err()
        .unwrap_or_else(|| panic!("the run for addresses alone did not stop"));
    assert!(emu::exec::idle::is_stale_read(&f), "{f}");
    // The characterization runs it again whole: every number as with
    // every value computed, on any thread count.
    let every = Options {
        every_value: true,
        ..Options::default()
    };
    let want = characterize_ptx(FOOLED, "fooled.ptx", &spec, every.clone())
        .unwrap_or_else(|e| panic!("{e}"));
    let json = |c| serde_json::to_string(&c).unwrap_or_else(|e| panic!("{e}"));
    let want = json(want);
    for threads in [1, 2] {
        let opts = Options {
            threads: Some(threads),
            ..Options::default()
        };
        let got =
            characterize_ptx(FOOLED, "fooled.ptx", &spec, opts).unwrap_or_else(|e| panic!("{e}"));
        assert!(json(got) == want, "{threads} threads");
    }
    // A caller whose observer watched the first run is told to run again.
    let watched = characterize_with(
        &module,
        FOOLED,
        "fooled.ptx",
        &spec,
        Options::default(),
        &mut Watching,
    );
    assert!(
        watched.as_ref().is_err_and(|e| e.is_stale_read()),
        "{:?}",
        watched.err()
    );
    let again = characterize_with(&module, FOOLED, "fooled.ptx", &spec, every, &mut Watching)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(json(again) == want, "watched, every value");
}
