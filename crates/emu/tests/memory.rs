//! Memory spaces: bounds, alignment, read-only spaces, fault messages that
//! name the nearest allocation, generic addressing.

use emu::mem::generic::{from_generic, is_space, resolve, to_generic};
use emu::mem::{GlobalMemory, MemFaultKind, Region, Space};

fn two_buffers() -> (GlobalMemory, u64, u64) {
    let mut g = GlobalMemory::new();
    let a = g.alloc("a", vec![0; 64]);
    let b = g.alloc("b", (0..=255).collect());
    (g, a, b)
}

/// Read `size` bytes at `addr` and compare with `expected` (Ok bytes, or the
/// fault's kind and nearest allocation name).
fn check_read(
    g: &GlobalMemory,
    addr: u64,
    size: usize,
    expected: Result<Vec<u8>, (MemFaultKind, &str)>,
) {
    let mut buf = vec![0; size];
    let got = g.read(addr, &mut buf, size as u32).map(|_| buf);
    match (got, expected) {
        (Ok(bytes), Ok(want)) => assert_eq!(bytes, want),
        (Err(f), Err((kind, near))) => {
            assert_eq!(f.kind, kind, "{f}");
            assert_eq!(f.space, Space::Global);
            assert_eq!(f.addr, addr);
            if !near.is_empty() {
                assert_eq!(
                    f.nearest.as_ref().map(|n| n.name.as_str()),
                    Some(near),
                    "{f}"
                );
            }
        }
        (got, want) => panic!("read {addr:#x}+{size}: got {got:?}, want {want:?}"),
    }
}

#[test]
fn global_bounds() {
    let (g, a, b) = two_buffers();
    assert!(
        a != 0 && b > a + 64,
        "allocations are disjoint and non-null"
    );
    assert_eq!(a % 256, 0);
    assert_eq!(b % 256, 0);
    check_read(&g, b, 4, Ok(vec![0, 1, 2, 3]));
    check_read(&g, b + 252, 4, Ok(vec![252, 253, 254, 255]));
    check_read(&g, a + 60, 4, Ok(vec![0; 4]));
    check_read(&g, a + 64, 4, Err((MemFaultKind::OutOfBounds, "a")));
    check_read(&g, b + 256, 4, Err((MemFaultKind::OutOfBounds, "b")));
    check_read(&g, b - 4, 4, Err((MemFaultKind::OutOfBounds, "b")));
    check_read(&g, 0, 4, Err((MemFaultKind::OutOfBounds, "a")));
    check_read(
        &g,
        b + 2,
        4,
        Err((MemFaultKind::Misaligned { align: 4 }, "")),
    );
    check_read(&g, u64::MAX - 1, 2, Err((MemFaultKind::OutOfBounds, "b")));
}

#[test]
fn global_writes_and_message() {
    let (mut g, a, _) = two_buffers();
    g.write(a + 8, &7u32.to_le_bytes(), 4).expect("in bounds");
    assert_eq!(&g.allocation("a").expect("a").data[8..12], &[7, 0, 0, 0]);
    let f = g.write(a + 64, &[1, 2, 3, 4], 4).expect_err("past the end");
    assert!(f.write);
    let msg = f.to_string();
    assert!(
        msg.contains("out-of-bounds global store of 4 bytes"),
        "{msg}"
    );
    assert!(msg.contains("0 bytes past the end of `a`"), "{msg}");
    let f = g.read(a - 8, &mut [0; 8], 8).expect_err("before");
    assert!(f.to_string().contains("8 bytes before `a`"), "{f}");
    let bytes = g.bytes_mut(a, 8, 8).expect("rmw");
    bytes[0] = 9;
    assert_eq!(g.allocation("a").expect("a").data[0], 9);
}

#[test]
fn regions() {
    let mut s = Region::new(Space::Shared, 128, true);
    s.add_symbol("tile", 0, 64);
    s.add_symbol("sums", 64, 64);
    s.write(100, &[1, 2, 3, 4], 4).expect("in bounds");
    let mut out = [0u8; 4];
    s.read(100, &mut out, 4).expect("in bounds");
    assert_eq!(out, [1, 2, 3, 4]);
    let f = s.read(128, &mut out, 4).expect_err("oob");
    assert_eq!(
        (f.space, f.kind),
        (Space::Shared, MemFaultKind::OutOfBounds)
    );
    assert_eq!(f.nearest.as_ref().map(|n| n.name.as_str()), Some("sums"));
    let f = s.read(2, &mut out, 4).expect_err("misaligned");
    assert_eq!(f.kind, MemFaultKind::Misaligned { align: 4 });
    assert_eq!(s.symbol("sums").map(|y| y.offset), Some(64));
    s.clear();
    assert!(s.bytes().iter().all(|&b| b == 0));

    let mut c = Region::new(Space::Const, 16, false);
    c.init(0, &[5; 16]).expect("init ignores read-only");
    let f = c.write(0, &[1], 1).expect_err("read-only");
    assert_eq!(f.kind, MemFaultKind::ReadOnly);
    assert!(f.to_string().contains("read-only const"), "{f}");
    // A region without symbols names itself.
    let l = Region::new(Space::Local, 8, true);
    let f = l.read(8, &mut out, 4).expect_err("oob");
    assert_eq!(
        f.nearest.as_ref().map(|n| n.name.as_str()),
        Some("local memory")
    );
}

#[test]
fn generic_addressing() {
    for space in [Space::Shared, Space::Local, Space::Param, Space::Const] {
        for addr in [0u64, 4, 100, 0xffff_fff0] {
            let g = to_generic(space, addr);
            assert_eq!(resolve(g), (space, addr), "{space} {addr}");
            assert!(is_space(space, g));
            assert!(!is_space(Space::Global, g));
            assert_eq!(from_generic(space, g), addr);
        }
        assert_eq!(
            resolve(to_generic(space, 0)),
            (space, 0),
            "offset 0 is a valid {space} address"
        );
    }
    let (g, a, _) = two_buffers();
    assert_eq!(resolve(a), (Space::Global, a));
    assert!(is_space(Space::Global, a));
    assert_eq!(to_generic(Space::Global, a), a);
    // A global pointer converted to shared lands outside any shared region.
    assert!(from_generic(Space::Shared, a) >= 1 << 32);
    drop(g);
}

/// `.address_size 32` modules: every window and global allocation lies
/// below 4 GiB, windows hold the 16 MiB a space may have, and the map
/// round-trips like the 64-bit one.
#[test]
fn generic_addressing_32_bit() {
    use emu::mem::generic::{WINDOWS_32, Width};
    let w = Width::A32;
    for space in [Space::Shared, Space::Local, Space::Param, Space::Const] {
        for addr in [0u64, 4, (1 << 24) - 4] {
            let g = w.to_generic(space, addr);
            assert!((WINDOWS_32..1 << 32).contains(&g), "{space} {g:#x}");
            assert_eq!(w.resolve(g), (space, addr), "{space} {addr}");
            assert!(w.is_space(space, g));
            assert_eq!(w.from_generic(space, g), addr);
        }
    }
    let mut g = GlobalMemory::with_base(emu::mem::GLOBAL_BASE_32);
    let a = g.alloc("a", vec![0; 64]);
    assert!(a + 64 <= WINDOWS_32);
    assert_eq!(w.resolve(a), (Space::Global, a));
    assert!(
        w.from_generic(Space::Shared, a) >= 1 << 24,
        "faults in shared"
    );
}
