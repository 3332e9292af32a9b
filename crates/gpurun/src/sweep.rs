//! What a GPU run sweeps: the OPS and ELEMS values (one compile each) and the
//! launch shapes, plus the parser for the count lists a command line gives.

use crate::GpuRunError;

/// The largest OPS a sweep accepts: the kernels unroll OPS steps, and past a
/// few thousand the compile time and the instruction cache dominate.
pub const MAX_OPS: u32 = 4096;
/// The largest ELEMS a sweep accepts (words per thread; the dynamic shared
/// memory is `transfer_block * ELEMS * 4` bytes and must stay under 48 KiB).
pub const MAX_ELEMS: u32 = 48;
/// The most threads a sweep launches per kernel (the op kernels take the
/// count as `int`; the buffers stay under a few GiB).
pub const MAX_OP_THREADS: u32 = 1 << 24;
/// The default dynamic shared memory limit of a launch, bytes.
pub const SHARED_LIMIT: u32 = 48 * 1024;

/// The sweep of one `measure` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sweep {
    /// OPS values for microbench/ops.cu, ascending (x of the op rows).
    pub ops: Vec<u32>,
    /// ELEMS values for microbench/transfer.cu, ascending.
    pub elems: Vec<u32>,
    /// Threads launched per op kernel (the median is taken over them).
    pub op_threads: u32,
    /// Threads per block of the op kernels. One warp per block by default, so
    /// that blocks land on different SMs and a thread's chain is not slowed
    /// by other warps issuing on its scheduler: the rows then time latency.
    pub op_block: u32,
    /// Blocks of the transfer kernels.
    pub transfer_blocks: u32,
    /// Threads per block of the transfer kernels.
    pub transfer_block: u32,
}

impl Default for Sweep {
    /// OPS 1, 2, 4 ... 256; ELEMS 1, 2, 4 ... 32; 1024 op threads in blocks
    /// of 32; 64 transfer blocks of 256 threads (32 KiB of shared memory at
    /// ELEMS = 32).
    fn default() -> Self {
        Sweep {
            ops: doubling(1, 256),
            elems: doubling(1, 32),
            op_threads: 1024,
            op_block: 32,
            transfer_blocks: 64,
            transfer_block: 256,
        }
    }
}

impl Sweep {
    /// Check the sweep before anything is compiled or launched.
    pub fn validate(&self) -> Result<(), GpuRunError> {
        let bad = |m: String| Err(GpuRunError::Options(m));
        if self.ops.is_empty() || self.elems.is_empty() {
            return bad("the OPS and ELEMS lists must not be empty".into());
        }
        if let Some(&o) = self.ops.iter().find(|&&o| o == 0 || o > MAX_OPS) {
            return bad(format!("OPS {o} is outside 1..={MAX_OPS}"));
        }
        if let Some(&e) = self.elems.iter().find(|&&e| e == 0 || e > MAX_ELEMS) {
            return bad(format!("ELEMS {e} is outside 1..={MAX_ELEMS}"));
        }
        for (name, block) in [
            ("op block", self.op_block),
            ("transfer block", self.transfer_block),
        ] {
            if block == 0 || block > 1024 || block % 32 != 0 {
                return bad(format!(
                    "{name} of {block} threads: must be a multiple of 32 in 32..=1024"
                ));
            }
        }
        if self.op_threads == 0 || self.transfer_blocks == 0 {
            return bad("op threads and transfer blocks must be at least 1".into());
        }
        let transfer_threads = u64::from(self.transfer_blocks) * u64::from(self.transfer_block);
        if self.op_threads > MAX_OP_THREADS || transfer_threads > u64::from(MAX_OP_THREADS) {
            return bad(format!(
                "{} op threads or {transfer_threads} transfer threads: too many (at most {MAX_OP_THREADS} each)",
                self.op_threads
            ));
        }
        let max_elems = self.elems.iter().copied().max().unwrap_or(1);
        let shared = u64::from(self.transfer_block) * u64::from(max_elems) * 4;
        if shared > u64::from(SHARED_LIMIT) {
            return bad(format!(
                "transfer block {} x ELEMS {max_elems} x 4 B = {shared} B of shared memory exceeds {SHARED_LIMIT} B",
                self.transfer_block
            ));
        }
        Ok(())
    }
}

/// `start, 2 start, 4 start ...` up to `end` inclusive.
pub fn doubling(start: u32, end: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut v = u64::from(start.max(1));
    while v <= u64::from(end) {
        // v <= end <= u32::MAX, so the conversion cannot fail.
        out.push(u32::try_from(v).unwrap_or(u32::MAX));
        v *= 2;
    }
    out
}

/// Parse a list of counts: comma-separated items, each a number `N` or a
/// doubling range `A..B` (A, 2A, 4A ... up to B inclusive). The result is
/// sorted and without duplicates. `what` names the option in errors.
///
/// `1..256` gives 1 2 4 ... 256; `1,3,5` gives 1 3 5; `1..8,12` gives 1 2 4 8 12.
pub fn parse_counts(what: &str, spec: &str) -> Result<Vec<u32>, GpuRunError> {
    let err = |m: String| GpuRunError::Options(format!("{what} `{spec}`: {m}"));
    let number = |s: &str| -> Result<u32, GpuRunError> {
        let s = s.trim();
        match s.parse::<u32>() {
            Ok(0) => Err(err("counts start at 1".into())),
            Ok(n) => Ok(n),
            Err(_) => Err(err(format!("`{s}` is not a positive integer"))),
        }
    };
    let mut out = Vec::new();
    for item in spec.split(',') {
        let item = item.trim();
        if item.is_empty() {
            return Err(err("empty item".into()));
        }
        match item.split_once("..") {
            Some((a, b)) => {
                let (a, b) = (number(a)?, number(b)?);
                if a > b {
                    return Err(err(format!("range {a}..{b} is empty")));
                }
                out.extend(doubling(a, b));
            }
            None => out.push(number(item)?),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(spec: &str, expected: &[u32]) {
        assert_eq!(
            parse_counts("--ops", spec).expect(spec),
            expected,
            "spec `{spec}`"
        );
    }

    fn check_err(spec: &str, fragment: &str) {
        let e = parse_counts("--ops", spec).expect_err(spec);
        let text = e.to_string();
        assert!(matches!(e, GpuRunError::Options(_)), "{text}");
        assert!(text.contains(fragment) && text.contains("--ops"), "{text}");
    }

    #[test]
    fn count_lists_parse() {
        check("1..256", &[1, 2, 4, 8, 16, 32, 64, 128, 256]);
        check("1..255", &[1, 2, 4, 8, 16, 32, 64, 128]);
        check("3..24", &[3, 6, 12, 24]);
        check("5..5", &[5]);
        check("7", &[7]);
        check("1,3,5", &[1, 3, 5]);
        check(" 5 , 1 ,3", &[1, 3, 5]);
        check("1..8,12,4", &[1, 2, 4, 8, 12]);
        check("4294967295", &[u32::MAX]);
        check("2147483648..4294967295", &[1 << 31]);
    }

    #[test]
    fn bad_count_lists_are_errors() {
        check_err("", "empty item");
        check_err("1,,2", "empty item");
        check_err("0", "start at 1");
        check_err("0..8", "start at 1");
        check_err("8..2", "is empty");
        check_err("x", "not a positive integer");
        check_err("1..", "not a positive integer");
        check_err("-4", "not a positive integer");
        check_err("4294967296", "not a positive integer");
    }

    fn check_invalid(edit: impl Fn(&mut Sweep), fragment: &str) {
        let mut s = Sweep::default();
        edit(&mut s);
        let e = s.validate().expect_err(fragment);
        assert!(e.to_string().contains(fragment), "{e}");
    }

    #[test]
    fn the_default_sweep_is_valid_and_doubles() {
        let s = Sweep::default();
        assert_eq!(s.validate(), Ok(()));
        assert_eq!(s.ops, parse_counts("ops", "1..256").expect("valid"));
        assert_eq!(s.elems, parse_counts("elems", "1..32").expect("valid"));
    }

    #[test]
    fn invalid_sweeps_are_refused() {
        check_invalid(|s| s.ops.clear(), "must not be empty");
        check_invalid(|s| s.ops.push(MAX_OPS + 1), "OPS 4097");
        check_invalid(|s| s.elems = vec![0], "ELEMS 0");
        check_invalid(|s| s.op_block = 48, "multiple of 32");
        check_invalid(|s| s.transfer_block = 2048, "multiple of 32");
        check_invalid(|s| s.op_threads = 0, "at least 1");
        check_invalid(|s| s.op_threads = MAX_OP_THREADS + 1, "too many");
        check_invalid(|s| s.transfer_blocks = MAX_OP_THREADS, "too many");
        // 512 threads x 32 words x 4 B = 64 KiB > 48 KiB.
        check_invalid(|s| s.transfer_block = 512, "exceeds");
    }
}
