//! Instruction fetch: code larger than the SM's instruction caches issues
//! slower (docs/timing-model.md, "Instruction fetch").
//!
//! The figures are this project's H100 measurement (data/measured/
//! h100-sxm5-80gb, "Latency hiding and instruction fetch", `straight_N`: N
//! FMAs fully unrolled, 16 B of SASS each). No other GPU's instruction
//! caches were measured; the model applies the H100's curve to every GPU
//! by code size, an assumption the docs state.

/// (code bytes, clocks per instruction of a lone warp, SM instructions per
/// clock with 16 warps per SM), H100 `straight_N` for N = 256, 2,048, 8,192
/// and 32,768 (W = 1 and W = 16 columns).
const CURVE: [(f64, f64, f64); 4] = [
    (4096.0, 1.18, 16.0 / 4.17),
    (32768.0, 1.20, 16.0 / 4.04),
    (131072.0, 2.88, 16.0 / 5.73),
    (524288.0, 5.70, 16.0 / 6.04),
];

/// Linear interpolation in log2(code bytes), clamped to the measured range
/// from 32 KB up: below, the small differences of the 4 KB point are the
/// loop around a short body, not fetch.
fn interpolate(code_bytes: f64, column: fn(&(f64, f64, f64)) -> f64) -> f64 {
    let x = code_bytes
        .max(CURVE[1].0)
        .min(CURVE[CURVE.len() - 1].0)
        .log2();
    for pair in CURVE.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let (xa, xb) = (a.0.log2(), b.0.log2());
        if x <= xb {
            let t = (x - xa) / (xb - xa);
            return column(a) + t * (column(b) - column(a));
        }
    }
    column(&CURVE[CURVE.len() - 1])
}

/// How many times longer a lone warp takes per instruction than on code
/// that fits the caches (1 up to 32 KB; 2.4 at 128 KB, 4.75 at 512 KB).
/// 1 when the code size is unknown (0).
pub fn warp_slowdown(code_bytes: f64) -> f64 {
    if code_bytes.is_nan() || code_bytes <= 0.0 {
        return 1.0;
    }
    (interpolate(code_bytes, |p| p.1) / CURVE[1].1).max(1.0)
}

/// The fraction of the SM's issue rate instruction fetch leaves (1 up to
/// 32 KB; 0.71 at 128 KB, 0.67 at 512 KB). 1 when the code size is unknown.
pub fn issue_fraction(code_bytes: f64) -> f64 {
    if code_bytes.is_nan() || code_bytes <= 0.0 {
        return 1.0;
    }
    (interpolate(code_bytes, |p| p.2) / CURVE[1].2).min(1.0)
}

/// Bytes of SASS per instruction by compute capability: 16 from Volta (7.0)
/// on (one 128-bit word each); a 64-bit control word per three 64-bit
/// instructions on Maxwell and Pascal (5.x, 6.x), per seven on Kepler (3.x)
/// (Jia et al., Dissecting Volta, 2018, section 2.1); 8 before.
pub fn bytes_per_instruction(cc_major: u32) -> f64 {
    match cc_major {
        m if m >= 7 => 16.0,
        5 | 6 => 8.0 * 4.0 / 3.0,
        3 => 8.0 * 8.0 / 7.0,
        _ => 8.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(code_bytes: f64, slowdown: f64, fraction: f64) {
        let (s, f) = (warp_slowdown(code_bytes), issue_fraction(code_bytes));
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
    fn instruction_sizes_by_architecture() {
        assert_eq!(bytes_per_instruction(9), 16.0);
        assert_eq!(bytes_per_instruction(7), 16.0);
        assert!((bytes_per_instruction(6) - 32.0 / 3.0).abs() < 1e-12);
        assert!((bytes_per_instruction(3) - 64.0 / 7.0).abs() < 1e-12);
        assert_eq!(bytes_per_instruction(2), 8.0);
    }
}
