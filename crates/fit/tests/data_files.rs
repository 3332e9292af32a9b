//! Readers for the measurement CSV and the gpu-benches tables, on fixtures
//! written here (small, made-up numbers with the real files' layout).

use fit::FitError;
use fit::gpubench::{
    parse_cache, parse_l2_cache, parse_latency, parse_small_kernels, parse_stream,
};
use fit::measurements::{Unit, parse_csv};

#[test]
fn csv_groups_rows_into_data_sets() {
    let text = "# made-up\ngpu,benchmark,x,time,unit,repetition\n\
                v100,int_add,1,10,cycles,0\nv100,int_add,2,14,cycles,0\n\
                v100,int_add,1,11,cycles,1\nh100,int_add,1,9,cycles,0\n";
    let sets = parse_csv("m.csv", text).unwrap();
    let keys: Vec<(String, u32, usize)> = sets
        .iter()
        .map(|s| (s.key.gpu.clone(), s.key.repetition, s.xs.len()))
        .collect();
    assert_eq!(
        keys,
        vec![
            ("h100".into(), 0, 1),
            ("v100".into(), 0, 2),
            ("v100".into(), 1, 1)
        ]
    );
    assert_eq!(sets[1].times, vec![10.0, 14.0]);
    assert_eq!(sets[1].unit, Unit::Cycles);
}

#[track_caller]
fn check_csv_error(text: &str, expect: &str) {
    let e = parse_csv("m.csv", text).unwrap_err();
    assert_eq!(e.to_string(), expect);
}

#[test]
fn csv_errors_name_the_line() {
    let h = "gpu,benchmark,x,time,unit,repetition\n";
    check_csv_error("", "m.csv:1: error: empty file: expected a header and rows");
    check_csv_error(
        "gpu,x\n",
        "m.csv:1: error: expected the header `gpu,benchmark,x,time,unit,repetition`",
    );
    check_csv_error(
        &format!("{h}a,b,1,2,ns\n"),
        "m.csv:2: error: expected 6 fields, found 5",
    );
    check_csv_error(
        &format!("{h}a,b,one,2,ns,0\n"),
        "m.csv:2: error: `one` is not a finite number (x)",
    );
    check_csv_error(
        &format!("{h}a,b,1,inf,ns,0\n"),
        "m.csv:2: error: `inf` is not a finite number (time)",
    );
    check_csv_error(
        &format!("{h}a,b,1,2,hours,0\n"),
        "m.csv:2: error: unknown unit `hours` (cycles, ns, us, ms, s)",
    );
    check_csv_error(
        &format!("{h}a,b,1,2,ns,-1\n"),
        "m.csv:2: error: repetition `-1` is not a non-negative integer",
    );
    check_csv_error(
        &format!("{h}a,b,1,2,ns,0\n\na,b,2,3,ms,0\n"),
        "m.csv:4: error: unit `ms` differs from `ns` used earlier in this data set",
    );
}

#[test]
fn stream_table() {
    let text = "blockSize   threads       %occ  |                init       read\n\
                \x20      32        2560      3 %  |  GB/s:         153         72\n\
                \x20      64        5120    6.2 %  |  GB/s:         306        139\n";
    let t = parse_stream("s.txt", text).unwrap();
    assert_eq!(t.kernels, vec!["init", "read"]);
    assert_eq!(t.rows.len(), 2);
    assert_eq!(
        (
            t.rows[1].block_size,
            t.rows[1].threads,
            t.rows[1].occupancy_pct
        ),
        (64, 5120, 6.2)
    );
    assert_eq!(t.rows[1].gbps, vec![306.0, 139.0]);
    let bad = "blockSize threads %occ | init read\n 32 2560 3 % | GB/s: 153\n";
    assert_eq!(
        parse_stream("s.txt", bad).unwrap_err().to_string(),
        "s.txt:2: error: expected 2 bandwidths, found 1"
    );
}

#[test]
fn latency_table() {
    let text = "clock: 1755 1755\n  1000000  1755        2     19.5    34.2\n  1000000  1755      431    151.3   265.5\n\n";
    let p = parse_latency("l.txt", text).unwrap();
    assert_eq!(p.len(), 2);
    assert_eq!(
        (p[1].clock_mhz, p[1].footprint_kb, p[1].cycles),
        (1755.0, 431.0, 265.5)
    );
    let e = parse_latency("l.txt", "1 2 3\n").unwrap_err();
    assert!(matches!(e, FitError::Parse { line: 1, .. }));
}

#[test]
fn small_kernels_table() {
    let text = "4096  64kB     26     26     26     26     27     27  \n";
    let r = parse_small_kernels("k.txt", text).unwrap();
    assert_eq!(r[0].bytes, 65536.0);
    assert_eq!(r[0].gbps, vec![26.0, 26.0, 26.0, 26.0, 27.0, 27.0]);
}

#[test]
fn cache_tables() {
    let l1 = "     data set   exec time     spread        Eff. bw       DRAM read\n\
              \x20        2 kB         4ms       0.3%   24476.7 GB/s         0 GB/s \n";
    let p = parse_cache("c.txt", l1).unwrap();
    assert_eq!((p[0].data_set_kb, p[0].gbps), (2.0, 24476.7));
    let l2 = "     data set   exec time     spread       Eff. bw\n\
              \x20      512 kB      1024 kB         7ms       0.1%    7758.1 GB/s        0 GB/s\n";
    let p = parse_l2_cache("c2.txt", l2).unwrap();
    assert_eq!((p[0].data_set_kb, p[0].gbps), (1024.0, 7758.1));
    assert!(parse_cache("c.txt", "h\n 2 kB 4ms\n").is_err());
}
