//! Instruction fetch: code larger than the SM's instruction caches issues
//! slower (docs/timing-model.md, "Instruction fetch").
//!
//! The curve is the catalog's (`gpus/compute-capabilities.toml`, the
//! `instruction_fetch` of the GPU's compute capability, [`arch::FetchCurve`]):
//! so far one measurement, the H100's, which the catalog names for every
//! compute capability, as an assumption everywhere else. Here only the
//! equations: the slowdowns are ratios to the curve's full-rate point.

use arch::{FetchCurve, FetchPoint};

/// Linear interpolation in log2(code bytes), clamped to the measured range
/// from the full-rate size up: below, the curve's small differences are the
/// loop around a short body, not fetch. None for a curve without a
/// full-rate point or points (the catalog refuses such a curve).
fn interpolate(
    curve: &FetchCurve,
    code_bytes: f64,
    column: impl Fn(&FetchPoint) -> f64,
) -> Option<f64> {
    let low = curve.full_rate_point()?.code_bytes;
    let last = curve.points.last()?;
    let x = code_bytes.max(low).min(last.code_bytes).log2();
    for pair in curve.points.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let (xa, xb) = (a.code_bytes.log2(), b.code_bytes.log2());
        if x <= xb {
            let t = (x - xa) / (xb - xa);
            return Some(column(a) + t * (column(b) - column(a)));
        }
    }
    Some(column(last))
}

/// How many times longer a lone warp takes per instruction than on code
/// that fits the caches (H100: 1 up to 32 KB; 2.4 at 128 KB, 4.75 at 512 KB).
/// 1 when the code size is unknown (0).
pub fn warp_slowdown(curve: &FetchCurve, code_bytes: f64) -> f64 {
    if code_bytes.is_nan() || code_bytes <= 0.0 {
        return 1.0;
    }
    let (Some(full), Some(at)) = (
        curve.full_rate_point(),
        interpolate(curve, code_bytes, |p| p.one_warp_clocks),
    ) else {
        return 1.0;
    };
    (at / full.one_warp_clocks).max(1.0)
}

/// The fraction of the SM's issue rate instruction fetch leaves (H100: 1 up
/// to 32 KB; 0.71 at 128 KB, 0.67 at 512 KB). 1 when the code size is unknown.
pub fn issue_fraction(curve: &FetchCurve, code_bytes: f64) -> f64 {
    if code_bytes.is_nan() || code_bytes <= 0.0 {
        return 1.0;
    }
    let w = curve.warps;
    let (Some(full), Some(at)) = (
        curve.full_rate_point(),
        interpolate(curve, code_bytes, |p| p.sm_rate(w)),
    ) else {
        return 1.0;
    };
    (at / full.sm_rate(w)).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The catalog's curve of CC 9.0 (the H100 measurement).
    fn h100() -> FetchCurve {
        match arch::cc::bundled_table()
            .ok()
            .and_then(|t| t.get(arch::ComputeCapability::new(9, 0)))
        {
            Some(e) => e.instruction_fetch.clone(),
            None => panic!("the bundled catalog has no CC 9.0 entry"),
        }
    }

    fn check(code_bytes: f64, slowdown: f64, fraction: f64) {
        let c = h100();
        let (s, f) = (
            warp_slowdown(&c, code_bytes),
            issue_fraction(&c, code_bytes),
        );
        assert!(
            (s - slowdown).abs() < 1e-9 && (f - fraction).abs() < 1e-9,
            "{code_bytes} B: slowdown {s}, issue fraction {f}"
        );
    }

    #[test]
    fn code_that_fits_or_of_unknown_size_issues_at_full_rate() {
        check(0.0, 1.0, 1.0);
        check(f64::NAN, 1.0, 1.0);
        check(1024.0, 1.0, 1.0);
        // 4 KB measured 1.18 clk/instr against 1.20 at 32 KB: no change.
        check(4096.0, 1.0, 1.0);
        check(32768.0, 1.0, 1.0);
    }

    #[test]
    fn larger_code_follows_the_h100_measurement() {
        // 128 KB: 2.88 / 1.20 per warp; 16 warps issue 16 / 5.73 per clock
        // against 16 / 4.04.
        check(131072.0, 2.4, 4.04 / 5.73);
        check(524288.0, 5.70 / 1.20, 4.04 / 6.04);
        // Beyond the measured range the last point holds.
        check(4.0 * 524288.0, 5.70 / 1.20, 4.04 / 6.04);
        // 64 KB lies halfway between 32 and 128 KB in log2.
        check(
            65536.0,
            (1.20 + 2.88) / 2.0 / 1.20,
            (1.0 + 4.04 / 5.73) / 2.0,
        );
    }

    #[test]
    fn a_curve_without_a_full_rate_point_slows_nothing() {
        let mut c = h100();
        c.full_rate_up_to_bytes = 1.0;
        assert_eq!(warp_slowdown(&c, 524288.0), 1.0);
        assert_eq!(issue_fraction(&c, 524288.0), 1.0);
        c.points.clear();
        assert_eq!(warp_slowdown(&c, 524288.0), 1.0);
    }
}
