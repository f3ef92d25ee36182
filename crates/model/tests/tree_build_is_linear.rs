//! Building a kinematic tree and importing a URDF are linear in the number of bodies, in
//! time and in memory: a body added makes no `N × N` buffer and rebuilds no workspace (the
//! workspaces, the lumped tree and the CRBA's dense `M` buffer are made on first use). A
//! chain of 100,000 links imports, and RNEA and ABA on it run and give finite results.
//!
//! Memory is counted exactly (`allocation-counter`: the peak and the total of the bytes the
//! measuring thread allocates), time as the best of a few runs, each of the 100k build
//! against five times the 20k build with head room (a quadratic build is 25 times).

use contour_model::spatial::{SpatialInertia, Transform};
use contour_model::tree::{Joint, KinematicTree};
use contour_model::Mechanism;
use std::fmt::Write;
use std::time::Instant;

const SMALL: usize = 20_000;
const LARGE: usize = 100_000;

/// A chain of `n` links hanging from the base link `l0`, 0.1 m apart, revolute about x and y
/// in turn (every `fixed_every`-th joint fixed when `fixed_every > 0`).
fn chain_urdf(n: usize, fixed_every: usize) -> String {
    let mut s = String::with_capacity(n * 480);
    s.push_str("<robot name=\"chain\">\n<link name=\"l0\"/>\n");
    for i in 1..=n {
        let kind = if fixed_every > 0 && i % fixed_every == 0 {
            "fixed"
        } else {
            "revolute"
        };
        let axis = if i % 2 == 0 { "0 1 0" } else { "1 0 0" };
        writeln!(
            s,
            "<link name=\"l{i}\"><inertial><origin xyz=\"0 0 -0.05\"/><mass value=\"1\"/>\
             <inertia ixx=\"0.001\" ixy=\"0\" ixz=\"0\" iyy=\"0.001\" iyz=\"0\" izz=\"0.0001\"/>\
             </inertial></link>\n<joint name=\"j{i}\" type=\"{kind}\"><parent link=\"l{p}\"/>\
             <child link=\"l{i}\"/><origin xyz=\"0 0 -0.1\"/><axis xyz=\"{axis}\"/>\
             <limit lower=\"-1\" upper=\"1\" effort=\"10\" velocity=\"1\"/></joint>",
            p = i - 1
        )
        .unwrap();
    }
    s.push_str("</robot>\n");
    s
}

/// A comb of `n` bodies built in code: a chain of `n / 2` bodies (every seventh joint
/// fixed), then `n / 2` teeth, each on a chain body, most chain bodies carrying several (every
/// tooth after the first on a body moves that body's composite-inertia link).
fn branched_tree(n: usize) -> KinematicTree {
    let mut t = KinematicTree::new("branched");
    let inertia = SpatialInertia::from_mass_com_inertia(
        1.0,
        [0.0, 0.0, -0.05],
        [[1e-3, 0.0, 0.0], [0.0, 1e-3, 0.0], [0.0, 0.0, 1e-4]],
    );
    for i in 0..n {
        let half = n / 2;
        let parent = match i {
            0 => None,
            i if i < half => Some(i - 1),
            i => Some((i * 3) % half),
        };
        let joint = match i % 7 {
            6 => Joint::Fixed,
            k if k % 2 == 0 => Joint::RX,
            _ => Joint::RY,
        };
        t.add_body(
            format!("b{i}"),
            parent,
            joint,
            Transform::translation([0.0, 0.0, -0.1]),
            inertia,
        )
        .unwrap();
    }
    t
}

/// Peak and total bytes, and the best wall time over `runs` runs, of `f`; its last value.
struct Cost {
    bytes_max: u64,
    bytes_total: u64,
    seconds: f64,
}

fn cost<R>(runs: usize, mut f: impl FnMut() -> R) -> (R, Cost) {
    let mut seconds = f64::INFINITY;
    let mut out = None;
    let mut info = allocation_counter::AllocationInfo::default();
    for _ in 0..runs {
        out = None; // the previous result is freed outside the measurement
        let start = Instant::now();
        info = allocation_counter::measure(|| out = Some(f()));
        seconds = seconds.min(start.elapsed().as_secs_f64());
    }
    let cost = Cost {
        bytes_max: info.bytes_max,
        bytes_total: info.bytes_total,
        seconds,
    };
    (out.unwrap(), cost)
}

/// The 100k cost is at most `6×` the 20k cost (5× is linear) in memory, and at most `10×` in
/// time when `timed`.
fn assert_linear(what: &str, small: &Cost, large: &Cost, timed: bool) {
    assert!(
        large.bytes_max <= 6 * small.bytes_max,
        "{what}: peak memory {} B at {LARGE} against {} B at {SMALL}",
        large.bytes_max,
        small.bytes_max
    );
    assert!(
        large.bytes_total <= 6 * small.bytes_total,
        "{what}: bytes allocated {} at {LARGE} against {} at {SMALL}",
        large.bytes_total,
        small.bytes_total
    );
    // time: the best of the runs, with head room for a loaded machine
    assert!(
        !timed || large.seconds <= 10.0 * small.seconds,
        "{what}: {:.3} s at {LARGE} against {:.3} s at {SMALL}",
        large.seconds,
        small.seconds
    );
}

/// RNEA (the `Mechanism` path and the caller-owned workspace) and ABA on `tree` at a bent,
/// moving state give finite results; the memory of the first call (the workspace made on
/// first use) is returned (its time is that of touching fresh pages, not compared).
fn dynamics_run(tree: &KinematicTree) -> Cost {
    let n = tree.dof();
    let q: Vec<f64> = (0..n).map(|k| 0.3 * ((k % 5) as f64 - 2.0)).collect();
    let qd = vec![0.1; n];
    let (mut h, mut qdd, mut tau) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let (_, first) = cost(1, || tree.bias_forces(&q, &qd, &mut h));
    tree.forward_dynamics(&q, &qd, &vec![0.0; n], &mut qdd)
        .unwrap();
    let mut data = tree.data();
    tree.inverse_dynamics_with(&mut data, &q, &qd, &qdd, &mut tau)
        .unwrap();
    assert!(h.iter().chain(&qdd).chain(&tau).all(|x| x.is_finite()));
    // a hanging chain under gravity: the bias forces are not all zero
    assert!(h.iter().any(|x| *x != 0.0));
    first
}

#[test]
fn a_chain_urdf_imports_in_linear_time_and_memory() {
    for fixed_every in [0, 10] {
        let (small_text, large_text) = (
            chain_urdf(SMALL, fixed_every),
            chain_urdf(LARGE, fixed_every),
        );
        let (small, small_cost) = cost(3, || KinematicTree::from_urdf_str(&small_text).unwrap());
        let (large, large_cost) = cost(2, || KinematicTree::from_urdf_str(&large_text).unwrap());
        let moving = |n: usize| n - n.checked_div(fixed_every).unwrap_or(0);
        assert_eq!((small.n_bodies(), small.dof()), (SMALL, moving(SMALL)));
        assert_eq!((large.n_bodies(), large.dof()), (LARGE, moving(LARGE)));
        assert_linear(
            &format!("import (fixed every {fixed_every})"),
            &small_cost,
            &large_cost,
            true,
        );
        let (small_first, large_first) = (dynamics_run(&small), dynamics_run(&large));
        assert_linear("first RNEA", &small_first, &large_first, false);
    }
}

#[test]
fn a_branched_tree_builds_in_linear_time_and_memory() {
    let (small, small_cost) = cost(3, || branched_tree(SMALL));
    let (large, large_cost) = cost(2, || branched_tree(LARGE));
    assert_linear("add_body", &small_cost, &large_cost, true);
    let (small_first, large_first) = (dynamics_run(&small), dynamics_run(&large));
    assert_linear("first RNEA", &small_first, &large_first, false);
}
