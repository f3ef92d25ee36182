//! One tree shared by reference across 8 threads gives the serial results bit for bit: the
//! trees are `Sync` (immutable models; scratch in caller-owned `TreeData` or the tree's
//! thread-safe pool), through both the `Mechanism` methods and the `…_with` methods.

use contour_model::tree::{Closure, ConstrainedTree, KinematicTree, TreeData};
use contour_model::urdf::tree_from_urdf_str;
use contour_model::{testing::SplitMix64, Mechanism, ModelError};
use faer::Mat;

const BAXTER: &str = include_str!("fixtures/urdf/baxter.urdf");

fn assert_sync<T: Sync + Send>() {}

#[test]
fn trees_are_sync() {
    assert_sync::<KinematicTree>();
    assert_sync::<ConstrainedTree>();
    assert_sync::<TreeData>();
}

/// `M`, `h`, RNEA, ABA and the closure rows at `states`, as bits.
fn evaluate(tree: &ConstrainedTree, states: &[(Vec<f64>, Vec<f64>)], own: bool) -> Vec<u64> {
    let t = tree.tree();
    let n = t.dof();
    let mut data = t.data();
    let mut m = Mat::zeros(n, n);
    let (mut h, mut tau, mut qdd) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let mut phi = vec![0.0; tree.n_constraints()];
    let mut out = Vec::new();
    for (q, qd) in states {
        if own {
            t.mass_matrix_with(&mut data, q, m.as_mut()).unwrap();
            t.bias_forces_with(&mut data, q, qd, &mut h).unwrap();
            t.inverse_dynamics_with(&mut data, q, qd, qd, &mut tau)
                .unwrap();
            t.forward_dynamics_with(&mut data, q, qd, qd, &mut qdd)
                .unwrap();
        } else {
            tree.mass_matrix(q, m.as_mut());
            tree.bias_forces(q, qd, &mut h);
            t.inverse_dynamics(q, qd, qd, &mut tau).unwrap();
            t.forward_dynamics(q, qd, qd, &mut qdd).unwrap();
        }
        tree.constraints(0.0, q, &mut phi);
        for i in 0..n {
            for j in 0..n {
                out.push(m[(i, j)].to_bits());
            }
        }
        out.extend(
            h.iter()
                .chain(&tau)
                .chain(&qdd)
                .chain(&phi)
                .map(|x| x.to_bits()),
        );
    }
    out
}

#[test]
fn one_tree_shared_by_eight_threads_gives_the_serial_result_bit_for_bit() {
    let tree = tree_from_urdf_str(BAXTER).unwrap();
    let n = tree.dof();
    let mut rng = SplitMix64::new(8);
    let q0: Vec<f64> = (0..n).map(|_| rng.uniform(-1.0, 1.0)).collect();
    let tip =
        Closure::point_at_current_position(&tree, &q0, tree.n_bodies() - 1, [0.0; 3]).unwrap();
    let shared = ConstrainedTree::new(tree, vec![tip]).unwrap();
    // 8 threads, each its own states (the same across runs), 40 states each
    let states: Vec<Vec<(Vec<f64>, Vec<f64>)>> = (0..8)
        .map(|_| {
            (0..40)
                .map(|_| {
                    let q = (0..n).map(|_| rng.uniform(-2.0, 2.0)).collect();
                    let qd = (0..n).map(|_| rng.uniform(-2.0, 2.0)).collect();
                    (q, qd)
                })
                .collect()
        })
        .collect();
    for own in [false, true] {
        let serial: Vec<Vec<u64>> = states.iter().map(|s| evaluate(&shared, s, own)).collect();
        let parallel: Vec<Vec<u64>> = std::thread::scope(|scope| {
            let handles: Vec<_> = states
                .iter()
                .map(|s| {
                    let shared = &shared;
                    scope.spawn(move || {
                        // several rounds, so that the calls of the threads overlap
                        let first = evaluate(shared, s, own);
                        for _ in 0..4 {
                            assert_eq!(evaluate(shared, s, own), first);
                        }
                        first
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(serial, parallel, "own workspaces: {own}");
    }
}

#[test]
fn data_of_another_tree_is_refused_or_reset() {
    let a = KinematicTree::planar_with_gravity(3, 9.81);
    let b = KinematicTree::planar_with_gravity(4, 9.81);
    let mut m = Mat::zeros(3, 3);
    let mut data_b = b.data();
    assert!(matches!(
        a.mass_matrix_with(&mut data_b, &[0.1, 0.2, 0.3], m.as_mut()),
        Err(ModelError::DimensionMismatch { .. })
    ));
    // a workspace of a tree with the same sizes but other transforms: caches reset
    let q = [0.1, 0.2, 0.3];
    let mut data_a = a.data();
    a.mass_matrix_with(&mut data_a, &q, m.as_mut()).unwrap();
    let ma = m.clone();
    let mut planar_long = KinematicTree::new("long");
    let i = *a.inertia(0);
    let mut parent = None;
    for k in 0..3 {
        let x = contour_model::spatial::Transform::translation([2.0, 0.0, 0.0]);
        parent = Some(
            planar_long
                .add_body(
                    format!("b{k}"),
                    parent,
                    contour_model::tree::Joint::RZ,
                    x,
                    i,
                )
                .unwrap(),
        );
    }
    planar_long
        .mass_matrix_with(&mut data_a, &q, m.as_mut())
        .unwrap();
    let mut fresh = Mat::zeros(3, 3);
    planar_long.mass_matrix(&q, fresh.as_mut());
    assert_eq!(m, fresh);
    assert_ne!(m, ma);
}

#[test]
fn overflowing_outputs_are_typed_errors() {
    let tree = tree_from_urdf_str(BAXTER).unwrap();
    let n = tree.dof();
    let q = vec![0.1; n];
    let mut out = vec![0.0; n];
    assert!(matches!(
        tree.forward_dynamics(&q, &vec![0.0; n], &vec![f64::MAX; n], &mut out),
        Err(ModelError::NonFinite { what: "qdd", .. })
    ));
    assert!(matches!(
        tree.inverse_dynamics(&q, &vec![1e200; n], &vec![0.0; n], &mut out),
        Err(ModelError::NonFinite { what: "tau", .. })
    ));
}
