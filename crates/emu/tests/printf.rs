//! Device printf formatting: C conversions over a packed argument buffer.

use emu::exec::printf::format;
use emu::mem::{MemFault, MemFaultKind, Space};

const FMT: u64 = 0x1000;
const ARGS: u64 = 0x2000;
const STR: u64 = 0x3000;

/// Packs arguments the way the kernel's local buffer holds them: each aligned to its size.
#[derive(Default)]
struct Pack(Vec<u8>);

impl Pack {
    fn align(&mut self, n: usize) {
        while !self.0.len().is_multiple_of(n) {
            self.0.push(0);
        }
    }
    fn i32(mut self, v: i32) -> Self {
        self.align(4);
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn i64(mut self, v: i64) -> Self {
        self.align(8);
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn f64(mut self, v: f64) -> Self {
        self.align(8);
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
}

fn check(fmt: &str, args: Pack, expected: &str) {
    let mut f = fmt.as_bytes().to_vec();
    f.push(0);
    let s = b"hello\0";
    let mut read = |addr: u64, buf: &mut [u8]| -> Result<(), MemFault> {
        let (base, mem): (u64, &[u8]) = match addr {
            a if (FMT..FMT + 0x1000).contains(&a) => (FMT, &f),
            a if (ARGS..ARGS + 0x1000).contains(&a) => (ARGS, &args.0),
            a if (STR..STR + 0x1000).contains(&a) => (STR, s),
            _ => (0, &[]),
        };
        let off = (addr - base) as usize;
        match mem.get(off..off + buf.len()) {
            Some(src) => {
                buf.copy_from_slice(src);
                Ok(())
            }
            None => Err(MemFault {
                space: Space::Global,
                kind: MemFaultKind::OutOfBounds,
                write: false,
                addr,
                size: buf.len() as u32,
                nearest: None,
            }),
        }
    };
    assert_eq!(
        format(FMT, ARGS, &mut read).expect("formats"),
        expected,
        "{fmt}"
    );
}

#[test]
fn conversions() {
    check("plain text\n", Pack::default(), "plain text\n");
    check("%d", Pack::default().i32(-42), "-42");
    check("%i|%u", Pack::default().i32(7).i32(-1), "7|4294967295");
    check(
        "%5d|%-5d|%05d",
        Pack::default().i32(42).i32(42).i32(-42),
        "   42|42   |-0042",
    );
    check("%+d % d", Pack::default().i32(3).i32(3), "+3  3");
    check(
        "%x %X %#x %o",
        Pack::default().i32(255).i32(255).i32(255).i32(8),
        "ff FF 0xff 10",
    );
    check(
        "%ld %lld %lu",
        Pack::default().i64(-1 << 40).i64(5).i64(-1),
        "-1099511627776 5 18446744073709551615",
    );
    check(
        "%c%c",
        Pack::default().i32(b'o' as i32).i32(b'k' as i32),
        "ok",
    );
    check("%s!", Pack::default().i64(STR as i64), "hello!");
    check(
        "%.3s|%8s",
        Pack::default().i64(STR as i64).i64(STR as i64),
        "hel|   hello",
    );
    check("%%", Pack::default(), "%");
    check("%p", Pack::default().i64(0x1234), "0x1234");
    check("%.5d", Pack::default().i32(42), "00042");
}

#[test]
fn floats() {
    check("%f", Pack::default().f64(1.5), "1.500000");
    check(
        "%.2f|%8.3f|%-8.1f|",
        Pack::default().f64(1.23456).f64(-2.5).f64(1.25),
        "1.23|  -2.500|1.2     |",
    );
    check("%e", Pack::default().f64(12345.678), "1.234568e+04");
    check("%E", Pack::default().f64(0.00012), "1.200000E-04");
    check(
        "%g %g %g",
        Pack::default().f64(100000.0).f64(1e6).f64(0.0001),
        "100000 1e+06 0.0001",
    );
    check("%g %G", Pack::default().f64(1.5e-5).f64(2.5), "1.5e-05 2.5");
    check(
        "%f %f",
        Pack::default().f64(f64::INFINITY).f64(f64::NAN),
        "inf nan",
    );
    check(
        "%d %f %d",
        Pack::default().i32(1).f64(2.0).i32(3),
        "1 2.000000 3",
    );
    check("%*d", Pack::default().i32(6).i32(7), "     7");
}
