//! The reconvergence stack under both policies, and CTA barriers.

use emu::simt::barrier::{Arrival, BarrierError, CtaBarriers, RedOp};
use emu::simt::stack::{BranchOutcome, NO_RECONVERGE, Policy, SimtStack};
use emu::simt::{first_lanes, lanes};

const ALL: u32 = u32::MAX;
const EVEN: u32 = 0x5555_5555;
const ODD: u32 = 0xaaaa_aaaa;

#[test]
fn masks() {
    assert_eq!(lanes(0b1010_0001).collect::<Vec<_>>(), vec![0, 5, 7]);
    assert_eq!(lanes(0).count(), 0);
    assert_eq!(lanes(ALL).count(), 32);
    assert_eq!(first_lanes(5), 0b11111);
    assert_eq!(first_lanes(32), ALL);
    assert_eq!(first_lanes(40), ALL);
}

/// if (even) { pc 2..4 } else { pc 5..6 }; join at 7.
#[test]
fn ipdom_if_else() {
    let mut s = SimtStack::new(Policy::Ipdom, ALL, 0);
    s.goto(1);
    assert_eq!(s.branch(EVEN, 2, 5, 7), BranchOutcome::Divergent);
    assert_eq!((s.pc(), s.active(), s.depth()), (2, EVEN, 3));
    s.goto(3);
    s.goto(4);
    s.goto(7); // taken path reaches the join: pops to the else path
    assert_eq!((s.pc(), s.active()), (5, ODD));
    s.goto(6);
    s.goto(7);
    assert_eq!((s.pc(), s.active(), s.depth()), (7, ALL, 1));
    assert!(s.converged());
    assert_eq!(s.max_depth(), 3);
}

/// A path that waits (an mbarrier wait) lets its sibling run; the join is
/// unchanged. Nested paths change places only among themselves.
#[test]
fn a_waiting_path_yields_to_its_siblings() {
    let mut s = SimtStack::new(Policy::Ipdom, ALL, 0);
    s.branch(EVEN, 2, 5, 7);
    assert_eq!((s.pc(), s.active()), (2, EVEN));
    s.goto(3);
    s.yield_split();
    assert_eq!((s.pc(), s.active()), (5, ODD), "the else path runs");
    s.yield_split();
    assert_eq!((s.pc(), s.active()), (3, EVEN), "and back");
    s.goto(7);
    assert_eq!((s.pc(), s.active()), (5, ODD));
    s.yield_split();
    assert_eq!(
        (s.pc(), s.active()),
        (5, ODD),
        "no sibling left: it keeps running"
    );
    s.goto(7);
    assert_eq!((s.pc(), s.active(), s.depth()), (7, ALL, 1));
    // Nested: the inner paths of the even lanes swap among themselves only.
    let mut s = SimtStack::new(Policy::Ipdom, ALL, 0);
    s.branch(EVEN, 2, 9, 10);
    s.branch(0x1111_1111, 3, 5, 7);
    assert_eq!((s.pc(), s.active(), s.depth()), (3, 0x1111_1111, 5));
    s.yield_split();
    assert_eq!((s.pc(), s.active()), (5, EVEN & !0x1111_1111));
    s.yield_split();
    assert_eq!((s.pc(), s.active()), (3, 0x1111_1111));
    // Barrier policy: the splits rotate.
    let mut s = SimtStack::new(Policy::Barrier, ALL, 0);
    s.branch(EVEN, 2, 5, NO_RECONVERGE);
    assert_eq!(s.active(), EVEN);
    s.yield_split();
    assert_eq!((s.pc(), s.active()), (5, ODD));
}

#[test]
fn uniform_branches_do_not_push() {
    let mut s = SimtStack::new(Policy::Ipdom, ALL, 0);
    assert_eq!(s.branch(ALL, 10, 1, 20), BranchOutcome::Uniform);
    assert_eq!((s.pc(), s.depth()), (10, 1));
    assert_eq!(s.branch(0, 30, 11, 20), BranchOutcome::Uniform);
    assert_eq!((s.pc(), s.depth()), (11, 1));
    // Inactive lanes in `taken` are ignored.
    let mut s = SimtStack::new(Policy::Ipdom, 0xff, 0);
    assert_eq!(s.branch(0xff00, 5, 1, 9), BranchOutcome::Uniform);
    assert_eq!(s.pc(), 1);
}

/// if (even) { if (lane < 8) {A} } join; taken path of the outer branch goes straight to the join.
#[test]
fn ipdom_nested_and_immediate_join() {
    let mut s = SimtStack::new(Policy::Ipdom, ALL, 0);
    s.branch(ODD, 9, 1, 9); // odd lanes skip to 9 = join: popped at once
    assert_eq!((s.pc(), s.active(), s.depth()), (1, EVEN, 2));
    s.branch(EVEN & 0xff, 2, 5, 5); // inner if: lanes 0,2,4,6 go to 2, join at 5
    assert_eq!((s.pc(), s.active(), s.depth()), (2, 0x55, 3));
    s.goto(5);
    assert_eq!((s.pc(), s.active(), s.depth()), (5, EVEN, 2));
    s.goto(9);
    assert_eq!((s.pc(), s.active(), s.depth()), (9, ALL, 1));
}

/// A loop where lanes leave at different iterations: the loop's exit block is the join.
#[test]
fn ipdom_loop_break() {
    let mut s = SimtStack::new(Policy::Ipdom, 0xf, 1);
    // pc 1: loop body; pc 2: `@p bra 4` (exit), fallthrough 3 (back edge to 1); join at 4.
    let mut leaving = [0b0001, 0b0010, 0b1100].into_iter();
    loop {
        assert_eq!(s.pc(), 1);
        s.goto(2);
        let exit = leaving.next().expect("loop ends");
        s.branch(exit, 4, 3, 4);
        if s.pc() == 4 {
            break;
        }
        s.goto(1);
    }
    assert_eq!((s.active(), s.depth()), (0xf, 1));
}

#[test]
fn exit_removes_threads_everywhere() {
    let mut s = SimtStack::new(Policy::Ipdom, ALL, 0);
    s.branch(EVEN, 2, 5, 7);
    s.exit(EVEN); // taken path returns early
    assert_eq!((s.pc(), s.active()), (5, ODD));
    s.goto(7);
    assert_eq!((s.pc(), s.active(), s.depth()), (7, ODD, 1));
    assert_eq!(s.live(), ODD);
    assert_eq!(s.exited(), EVEN);
    s.exit(ODD);
    assert!(s.done());
    assert_eq!(s.active(), 0);
}

#[test]
fn ipdom_without_join_runs_to_exit() {
    let mut s = SimtStack::new(Policy::Ipdom, ALL, 0);
    s.branch(EVEN, 2, 5, NO_RECONVERGE);
    assert_eq!(s.active(), EVEN);
    s.exit(EVEN);
    assert_eq!((s.pc(), s.active()), (5, ODD));
    s.exit(ODD);
    assert!(s.done());
}

#[test]
fn barrier_policy_splits_until_barrier() {
    let mut s = SimtStack::new(Policy::Barrier, ALL, 0);
    s.branch(EVEN, 2, 5, 7);
    assert_eq!((s.pc(), s.active(), s.depth()), (2, EVEN, 2));
    s.goto(7); // no join at the post-dominator
    assert_eq!((s.pc(), s.active()), (7, EVEN));
    assert!(!s.converged());
    // The even split reaches a barrier at 8, parks; the odd split runs.
    assert!(!s.park(9));
    assert_eq!((s.pc(), s.active()), (5, ODD));
    s.goto(7);
    s.goto(8);
    assert!(s.park(9), "whole warp waits");
    assert!(s.waiting());
    s.release();
    assert_eq!((s.pc(), s.active(), s.depth()), (9, ALL, 1));
    assert!(!s.waiting());
}

#[test]
fn barrier_policy_exit_joins() {
    let mut s = SimtStack::new(Policy::Barrier, ALL, 0);
    s.branch(EVEN, 2, 5, 7);
    s.exit(EVEN);
    assert_eq!((s.pc(), s.active(), s.depth()), (5, ODD, 1));
}

fn arrival(warp: u32, threads: u32, expected: Option<u32>, wait: bool) -> Arrival {
    Arrival {
        warp,
        threads,
        expected,
        wait,
        true_threads: 0,
    }
}

#[test]
fn barrier_releases_when_cta_arrives() {
    let mut b = CtaBarriers::new(64);
    assert_eq!(b.arrive(0, arrival(0, 32, None, true)), Ok(None));
    assert_eq!(b.pending(), vec![(0, 32, 64)]);
    let r = b
        .arrive(0, arrival(1, 32, None, true))
        .expect("valid")
        .expect("released");
    assert_eq!(r.warps, vec![0, 1]);
    assert!(b.pending().is_empty());
    // Reusable afterwards.
    assert_eq!(b.arrive(0, arrival(1, 32, None, true)), Ok(None));
}

#[test]
fn barrier_counts_exited_threads_for_whole_cta() {
    let mut b = CtaBarriers::new(64);
    assert_eq!(b.arrive(0, arrival(0, 32, None, true)), Ok(None));
    let released = b.exit(32);
    assert_eq!(released.len(), 1);
    assert_eq!(released[0].warps, vec![0]);
}

#[test]
fn barrier_arrive_and_counts() {
    let mut b = CtaBarriers::new(128);
    // Producer/consumer: warps 0,1 arrive (no wait), warps 2,3 sync on 64+64 threads.
    assert_eq!(b.arrive(1, arrival(0, 32, Some(128), false)), Ok(None));
    assert_eq!(b.arrive(1, arrival(2, 32, Some(128), true)), Ok(None));
    assert_eq!(b.arrive(1, arrival(1, 32, Some(128), false)), Ok(None));
    let r = b
        .arrive(1, arrival(3, 32, Some(128), true))
        .expect("valid")
        .expect("released");
    assert_eq!(r.warps, vec![2, 3]);
    assert_eq!(b.arrive(2, arrival(0, 32, Some(64), true)), Ok(None));
    assert_eq!(
        b.arrive(2, arrival(1, 32, Some(96), true)),
        Err(BarrierError::CountMismatch {
            id: 2,
            first: 64,
            now: 96
        })
    );
    assert_eq!(
        b.arrive(16, arrival(0, 32, None, true)),
        Err(BarrierError::BadId { id: 16 })
    );
    assert_eq!(
        b.arrive(3, arrival(0, 32, Some(33), true)),
        Err(BarrierError::BadCount {
            count: 33,
            cta_threads: 128
        })
    );
    assert_eq!(
        b.arrive(3, arrival(0, 32, Some(0), true)),
        Err(BarrierError::BadCount {
            count: 0,
            cta_threads: 128
        })
    );
}

#[test]
fn barrier_reductions() {
    let mut b = CtaBarriers::new(64);
    b.arrive(
        0,
        Arrival {
            warp: 0,
            threads: 32,
            expected: None,
            wait: true,
            true_threads: 5,
        },
    )
    .expect("valid");
    let r = b
        .arrive(
            0,
            Arrival {
                warp: 1,
                threads: 32,
                expected: None,
                wait: true,
                true_threads: 32,
            },
        )
        .expect("valid")
        .expect("released");
    assert_eq!(r.red(RedOp::Popc), 37);
    assert_eq!(r.red(RedOp::And), 0);
    assert_eq!(r.red(RedOp::Or), 1);
}

#[test]
fn multiway_branches() {
    let mut s = SimtStack::new(Policy::Ipdom, 0xf, 0);
    assert_eq!(
        s.branch_multi(&[(0x3, 10), (0x4, 20), (0x8, 30), (0, 40)], 50),
        BranchOutcome::Divergent
    );
    assert_eq!((s.pc(), s.active(), s.depth()), (10, 0x3, 4));
    s.goto(50);
    assert_eq!((s.pc(), s.active()), (20, 0x4));
    s.goto(50);
    assert_eq!((s.pc(), s.active()), (30, 0x8));
    s.goto(50);
    assert_eq!((s.pc(), s.active(), s.depth()), (50, 0xf, 1));
    assert_eq!(s.branch_multi(&[(0xf, 7)], 50), BranchOutcome::Uniform);
    assert_eq!((s.pc(), s.depth()), (7, 1));
    let mut b = SimtStack::new(Policy::Barrier, 0xf, 0);
    b.branch_multi(&[(0x3, 10), (0xc, 20)], 50);
    assert_eq!((b.pc(), b.active(), b.depth()), (10, 0x3, 2));
    b.goto(50);
    assert_eq!(
        (b.pc(), b.active()),
        (50, 0x3),
        "no join under the barrier policy"
    );
}
