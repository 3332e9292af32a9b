//! The acceptance check: every catalogued form runs on the emulator and
//! matches its reference evaluator over 128 threads of random and special
//! operands; the catalogue holds at least 500 distinct forms.

use std::collections::BTreeMap;

use conformance::catalogue;
use conformance::compare::failures;

const SEED: u64 = 28;

#[test]
fn every_form_matches_its_reference() {
    let forms = catalogue::forms();
    let failures = failures(&forms, SEED);
    assert!(
        failures.is_empty(),
        "{} of {} forms fail:\n{}",
        failures.len(),
        forms.len(),
        failures.join("\n")
    );
}

#[test]
fn every_kernel_parses_and_checks() {
    for f in catalogue::all_forms() {
        let k = conformance::kernel::generate(&f, SEED);
        let file = format!("{}.ptx", f.stem());
        if let Err(d) = ptx::parse(&file, &k.ptx) {
            panic!("{}", d.render(&file, &k.ptx));
        }
        assert_eq!(
            k.input_bytes().len(),
            conformance::kernel::THREADS * f.inputs.len() * 8
        );
    }
}

#[test]
fn catalogue_has_500_distinct_forms() {
    let forms = catalogue::all_forms();
    let mut by_family: BTreeMap<&str, usize> = BTreeMap::new();
    let mut names = std::collections::HashSet::new();
    for f in &forms {
        assert!(names.insert(f.name.clone()), "duplicate form {}", f.name);
        *by_family.entry(f.family.name()).or_default() += 1;
    }
    let stems: std::collections::HashSet<String> = forms.iter().map(|f| f.stem()).collect();
    assert_eq!(stems.len(), forms.len(), "two forms share a file stem");
    println!("{by_family:?}");
    assert!(
        catalogue::forms().len() >= 500,
        "{} passing forms: {by_family:?}",
        catalogue::forms().len()
    );
}
