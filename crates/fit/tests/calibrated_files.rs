//! The committed `gpus/calibrated/*.toml` files load through the one
//! calibration type and write back to the very same text: the writer and
//! every reader share the schema.

use fit::calibration::Calibration;
use std::path::Path;

#[test]
fn committed_calibrations_round_trip_exactly() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../gpus/calibrated");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("gpus/calibrated is readable") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).expect("a readable file");
        let cal = Calibration::from_toml(&name, &text).expect("a valid calibration");
        assert!(
            path.file_stem().is_some_and(|s| s == cal.gpu.as_str()),
            "{name}"
        );
        assert!(cal.stream_peak_gbps.is_some_and(|g| g > 0.0), "{name}");
        assert!(!cal.stream.is_empty(), "{name}");
        assert_eq!(cal.to_toml().as_deref(), Ok(text.as_str()), "{name}");
        seen += 1;
    }
    assert_eq!(seen, 4, "the four calibrated GPUs");
}

#[test]
fn missing_optional_figures_read_as_absent() {
    let cal = Calibration::from_toml("x.toml", "gpu = \"x\"\n");
    assert_eq!(
        cal,
        Ok(Calibration {
            gpu: "x".into(),
            ..Calibration::default()
        })
    );
}
