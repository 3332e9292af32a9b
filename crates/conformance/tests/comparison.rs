//! The comparison itself must be able to fail: a deliberately wrong
//! reference gives a mismatch report naming the form, thread, inputs,
//! expected and got; NaN classes and bit rules compare as documented; the
//! forms left out still fail or error, so each entry of the tables is
//! still needed (when one passes, the emulator was fixed: move it back).

use std::sync::Arc;

use conformance::catalogue;
use conformance::compare::{Outcome, check_form, matches, matches_recorded};
use conformance::divergence::{KNOWN_DIVERGENCES, UNSUPPORTED};
use conformance::form::{Cmp, Eval, Out};
use conformance::ty::Ty;

const SEED: u64 = 28;

fn form(name: &str) -> conformance::form::Form {
    catalogue::all_forms()
        .into_iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no form {name}"))
}

#[test]
fn a_wrong_reference_is_reported() {
    let mut f = form("add.s32");
    assert_eq!(check_form(&f, SEED), Outcome::Pass);
    // Mutation: off by one in the low bit.
    f.eval = Eval::Lane(Arc::new(|x: &[u64]| {
        vec![(x[0].wrapping_add(x[1]) ^ 1) & 0xffff_ffff]
    }));
    let Outcome::Mismatch(m) = check_form(&f, SEED) else {
        panic!("the mutated reference passed");
    };
    assert_eq!(
        m.len(),
        conformance::kernel::THREADS,
        "every thread differs"
    );
    let first = &m[0];
    assert_eq!(first.form, "add.s32");
    assert_eq!(first.thread, 0);
    assert_eq!(first.expected[0] ^ first.got[0], 1);
    assert_eq!(first.inputs.len(), 2);
    let line = first.to_string();
    assert!(line.starts_with("add.s32: thread 0: inputs [0x"), "{line}");
    assert!(
        line.contains("expected [") && line.contains("got ["),
        "{line}"
    );
}

#[test]
fn a_wrong_rounding_mode_is_reported() {
    // The rz reference for the rn form: random operands round differently somewhere.
    let rz = form("add.rz.f32");
    let mut f = form("add.rn.f32");
    f.eval = rz.eval.clone();
    assert!(matches!(check_form(&f, SEED), Outcome::Mismatch(_)));
}

#[test]
fn a_wrong_warp_reference_is_reported() {
    let mut f = form("shfl.sync.bfly.b32.c0x1f");
    f.eval = Eval::Warp(Arc::new(|lanes: &[Vec<u64>]| {
        lanes.iter().map(|l| vec![l[0], 1]).collect()
    }));
    assert!(matches!(check_form(&f, SEED), Outcome::Mismatch(_)));
}

#[test]
fn nan_class_and_bit_rules() {
    let nan = Out {
        ty: Ty::F32,
        cmp: Cmp::NanClass,
    };
    let exact = Out {
        ty: Ty::F32,
        cmp: Cmp::Bits,
    };
    assert!(matches(nan, 0x7fc0_0000, 0x7fff_ffff));
    assert!(!matches(exact, 0x7fc0_0000, 0x7fff_ffff));
    assert!(!matches(nan, 0x7f80_0000, 0x7fff_ffff), "inf is not a NaN");
    assert!(
        !matches(nan, 0x0000_0000, 0x8000_0000),
        "zeros keep their sign"
    );
    let pair = Out {
        ty: Ty::F16x2,
        cmp: Cmp::NanClass,
    };
    assert!(matches(pair, 0x7e00_3c00, 0x7fff_3c00));
    assert!(
        !matches(pair, 0x7e00_3c00, 0x7fff_3c01),
        "the other half still compares"
    );
    // Against a GPU, sums of products get a few ulps; nothing else does.
    let acc = Out {
        ty: Ty::F32,
        cmp: Cmp::Accumulated,
    };
    assert!(matches_recorded(
        acc,
        1.0f32.to_bits().into(),
        1.000_001f32.to_bits().into()
    ));
    assert!(!matches_recorded(
        acc,
        1.0f32.to_bits().into(),
        1.001f32.to_bits().into()
    ));
    assert!(!matches_recorded(
        nan,
        1.0f32.to_bits().into(),
        1.000_001f32.to_bits().into()
    ));
}

#[test]
fn left_out_forms_still_diverge() {
    // Every stale entry is listed at once: a fix in the emulator usually
    // moves a whole family, and one run should say all that it moved.
    let all = catalogue::all_forms();
    let mut stale = Vec::new();
    for (name, reason) in KNOWN_DIVERGENCES {
        let Some(f) = all.iter().find(|f| f.name == *name) else {
            stale.push(format!("{name} is not a form"));
            continue;
        };
        match check_form(f, SEED) {
            Outcome::Mismatch(_) => {}
            o => stale.push(format!(
                "{name} no longer mismatches ({}): remove it from KNOWN_DIVERGENCES ({reason})",
                outcome_kind(&o)
            )),
        }
    }
    for name in UNSUPPORTED {
        let Some(f) = all.iter().find(|f| f.name == *name) else {
            stale.push(format!("{name} is not a form"));
            continue;
        };
        match check_form(f, SEED) {
            Outcome::Error(_) => {}
            o => stale.push(format!(
                "{name} runs now ({}): remove it from UNSUPPORTED",
                outcome_kind(&o)
            )),
        }
    }
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}

fn outcome_kind(o: &Outcome) -> &'static str {
    match o {
        Outcome::Mismatch(_) => "mismatch",
        Outcome::Error(_) => "error",
        _ => "passes",
    }
}
