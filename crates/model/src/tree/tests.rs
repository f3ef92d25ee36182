//! Tests of the tree algorithms: CRBA against RNEA, RNEA against the
//! Lagrangian (finite differences of the energies), closed-form planar(2),
//! closures against finite differences.

use super::joint::JointModel;
use super::*;
use crate::models::tests::check_model;
use crate::spatial::{rpy_to_matrix, Motion, SpatialInertia, Transform};
use crate::testing::relative_difference as rel;
use crate::testing::{check_accel_bias, check_jacobian, check_mass_matrix, SplitMix64};
use crate::{Mechanism, ModelError};
use faer::Mat;

fn random_inertia(rng: &mut SplitMix64) -> SpatialInertia {
    // principal moments satisfying the triangle inequality, rotated
    let a = rng.uniform(0.05, 0.5);
    let b = rng.uniform(0.05, 0.5);
    let c = rng.uniform((a - b).abs() + 0.01, a + b);
    let r = rpy_to_matrix(&[
        rng.uniform(-3.0, 3.0),
        rng.uniform(-1.5, 1.5),
        rng.uniform(-3.0, 3.0),
    ]);
    let d = [[a, 0.0, 0.0], [0.0, b, 0.0], [0.0, 0.0, c]];
    let i = crate::spatial::mat3_mul(
        &r,
        &crate::spatial::mat3_mul(&d, &crate::spatial::mat3_transpose(&r)),
    );
    let com = [
        rng.uniform(-0.5, 0.5),
        rng.uniform(-0.5, 0.5),
        rng.uniform(-0.5, 0.5),
    ];
    SpatialInertia::from_mass_com_inertia(rng.uniform(0.5, 3.0), com, i)
}

/// A branched 3-D tree: revolute joints about random axes, a prismatic joint,
/// a fixed joint, gravity along a tilted direction.
pub(crate) fn random_tree(seed: u64) -> KinematicTree {
    let parents = [
        None,
        Some(0),
        Some(1),
        Some(1),
        Some(3),
        Some(2),
        Some(5),
        Some(0),
    ];
    random_tree_with(seed, &parents)
}

/// [`random_tree`]'s bodies on a bushier skeleton: bodies 0 and 1 have several children other
/// than the next body (the CRBA's stored composite sums, `CompositeLink::Add`).
fn random_bush(seed: u64) -> KinematicTree {
    let parents = [
        None,
        Some(0),
        Some(0),
        Some(1),
        Some(0),
        Some(1),
        Some(2),
        Some(1),
    ];
    random_tree_with(seed, &parents)
}

fn random_tree_with(seed: u64, parents: &[Option<usize>]) -> KinematicTree {
    let mut rng = SplitMix64::new(seed);
    let mut t = KinematicTree::new("random-tree").with_gravity([0.3, -1.2, -9.7]);
    for (i, p) in parents.iter().enumerate() {
        let joint = match i {
            4 => Joint::prismatic([rng.uniform(-1.0, 1.0), 1.0, rng.uniform(-1.0, 1.0)]).unwrap(),
            5 => Joint::Fixed,
            _ => Joint::revolute([rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0), 1.0]).unwrap(),
        };
        let x = Transform::from_pose(
            &rpy_to_matrix(&[
                rng.uniform(-3.0, 3.0),
                rng.uniform(-1.5, 1.5),
                rng.uniform(-3.0, 3.0),
            ]),
            [
                rng.uniform(-1.0, 1.0),
                rng.uniform(-1.0, 1.0),
                rng.uniform(0.2, 1.0),
            ],
        );
        let inertia = random_inertia(&mut rng);
        t.add_body(format!("b{i}"), *p, joint, x, inertia).unwrap();
    }
    t
}

fn mass(t: &KinematicTree, q: &[f64]) -> Mat<f64> {
    let n = t.dof();
    let mut m = Mat::zeros(n, n);
    t.mass_matrix(q, m.as_mut());
    m
}

fn trees() -> Vec<KinematicTree> {
    vec![
        KinematicTree::planar(2),
        KinematicTree::planar(7),
        KinematicTree::planar_with_gravity(5, 9.81),
        random_tree(11),
        random_tree(12),
        random_bush(13),
    ]
}

/// `M(q) q̈ + h(q, q̇)` from the CRBA and the RNEA bias (the left side the inverse dynamics
/// must reproduce).
fn m_qdd_plus_h(t: &KinematicTree, q: &[f64], qd: &[f64], qdd: &[f64]) -> Vec<f64> {
    let n = t.dof();
    let m = mass(t, q);
    let mut h = vec![0.0; n];
    t.bias_forces(q, qd, &mut h);
    (0..n)
        .map(|i| (0..n).map(|j| m[(i, j)] * qdd[j]).sum::<f64>() + h[i])
        .collect()
}

#[test]
fn crba_plus_rnea_bias_equals_rnea_with_accelerations() {
    let mut rng = SplitMix64::new(21);
    let mut worst = 0.0f64;
    for t in trees() {
        let n = t.dof();
        for _ in 0..10 {
            let q = rng.vector(n, -3.0, 3.0);
            let qd = rng.vector(n, -2.0, 2.0);
            let qdd = rng.vector(n, -2.0, 2.0);
            let m = mass(&t, &q);
            let lhs = m_qdd_plus_h(&t, &q, &qd, &qdd);
            let mut tau = vec![0.0; n];
            t.inverse_dynamics(&q, &qd, &qdd, &mut tau).unwrap();
            worst = worst.max(rel(&lhs, &tau));
            // M columns from RNEA with unit q̈ and q̇ = 0
            let zero = vec![0.0; n];
            let mut g = vec![0.0; n];
            t.inverse_dynamics(&q, &zero, &zero, &mut g).unwrap();
            for c in 0..n {
                let mut e = vec![0.0; n];
                e[c] = 1.0;
                let mut col = vec![0.0; n];
                t.inverse_dynamics(&q, &zero, &e, &mut col).unwrap();
                let col: Vec<f64> = col.iter().zip(&g).map(|(a, b)| a - b).collect();
                let mc: Vec<f64> = (0..n).map(|r| m[(r, c)]).collect();
                worst = worst.max(rel(&col, &mc));
            }
            let rep = check_mass_matrix(&t, &q).unwrap();
            assert!(rep.asymmetry == 0.0 && rep.min_eigenvalue > 0.0, "{rep:?}");
        }
    }
    assert!(worst <= 1e-12, "CRBA vs RNEA relative error {worst:e}");
}

/// Lagrange: `h = Ṁ q̇ − ∂T/∂q + ∂V/∂q`, with `Ṁ q̇`, `∂T/∂q` and `∂V/∂q` by
/// central differences of `M` and of the energies.
#[test]
fn rnea_bias_matches_lagrangian_finite_differences() {
    let mut rng = SplitMix64::new(22);
    let mut worst = 0.0f64;
    for t in trees() {
        let n = t.dof();
        for _ in 0..5 {
            let q = rng.vector(n, -3.0, 3.0);
            let qd = rng.vector(n, -2.0, 2.0);
            let s = 1e-5;
            let shift = |d: &[f64], sgn: f64| -> Vec<f64> {
                q.iter().zip(d).map(|(a, b)| a + sgn * s * b).collect()
            };
            let mp = mass(&t, &shift(&qd, 1.0));
            let mm = mass(&t, &shift(&qd, -1.0));
            let mut lag = vec![0.0; n];
            for i in 0..n {
                let mdot_qd: f64 = (0..n)
                    .map(|j| (mp[(i, j)] - mm[(i, j)]) / (2.0 * s) * qd[j])
                    .sum();
                let mut e = vec![0.0; n];
                e[i] = 1.0;
                let (qp, qm) = (shift(&e, 1.0), shift(&e, -1.0));
                let dt = (t.kinetic_energy(&qp, &qd).unwrap()
                    - t.kinetic_energy(&qm, &qd).unwrap())
                    / (2.0 * s);
                let dv = (t.potential_energy(&qp).unwrap() - t.potential_energy(&qm).unwrap())
                    / (2.0 * s);
                lag[i] = mdot_qd - dt + dv;
            }
            let mut h = vec![0.0; n];
            t.bias_forces(&q, &qd, &mut h);
            worst = worst.max(rel(&h, &lag));
            // T = ½ q̇ᵀ M q̇
            let m = mass(&t, &q);
            let tq: f64 = 0.5
                * (0..n)
                    .map(|i| (0..n).map(|j| qd[i] * m[(i, j)] * qd[j]).sum::<f64>())
                    .sum::<f64>();
            let te = t.kinetic_energy(&q, &qd).unwrap();
            assert!((tq - te).abs() <= 1e-13 * te.abs().max(1.0), "{tq} {te}");
        }
    }
    assert!(worst <= 1e-7, "RNEA vs Lagrangian relative error {worst:e}");
}

#[test]
fn planar_two_link_matches_the_closed_form() {
    // unit links, m = 1, l_c = 1/2, I = 1/12:
    // M = [5/3 + c₂, 1/3 + c₂/2; 1/3 + c₂/2, 1/3],  h = ½ s₂ (−2 q̇₁q̇₂ − q̇₂², q̇₁²)
    // plus gravity g: G₁ = g(3/2 c₁ + ½ c₁₂), G₂ = ½ g c₁₂
    let g = 9.81;
    let t = KinematicTree::planar_with_gravity(2, g);
    let mut rng = SplitMix64::new(23);
    for _ in 0..20 {
        let q = rng.vector(2, -3.0, 3.0);
        let qd = rng.vector(2, -2.0, 2.0);
        let (s2, c2) = q[1].sin_cos();
        let m = mass(&t, &q);
        let expect = [
            [5.0 / 3.0 + c2, 1.0 / 3.0 + 0.5 * c2],
            [1.0 / 3.0 + 0.5 * c2, 1.0 / 3.0],
        ];
        for i in 0..2 {
            for j in 0..2 {
                assert!((m[(i, j)] - expect[i][j]).abs() < 1e-14, "{m:?}");
            }
        }
        let c1 = q[0].cos();
        let c12 = (q[0] + q[1]).cos();
        let h_exp = [
            -0.5 * s2 * (2.0 * qd[0] * qd[1] + qd[1] * qd[1]) + g * (1.5 * c1 + 0.5 * c12),
            0.5 * s2 * qd[0] * qd[0] + 0.5 * g * c12,
        ];
        let mut h = [0.0; 2];
        t.bias_forces(&q, &qd, &mut h);
        assert!(
            (h[0] - h_exp[0]).abs() < 1e-13 && (h[1] - h_exp[1]).abs() < 1e-13,
            "{h:?} {h_exp:?}"
        );
    }
    // planar(n) has no gravity by default
    let mut h = [1.0; 3];
    KinematicTree::planar(3).bias_forces(&[0.3, 0.2, 0.1], &[0.0; 3], &mut h);
    assert_eq!(h, [0.0; 3]);
}

#[test]
fn point_kinematics_match_finite_differences() {
    let t = random_tree(31);
    let n = t.dof();
    let mut rng = SplitMix64::new(32);
    for _ in 0..5 {
        let q = rng.vector(n, -3.0, 3.0);
        let qd = rng.vector(n, -2.0, 2.0);
        for body in [2, 4, 6, 7] {
            let p = [0.2, -0.3, 0.4];
            let mut j = Mat::zeros(3, n);
            t.point_jacobian(&q, body, p, j.as_mut()).unwrap();
            let v = t.point_velocity(&q, &qd, body, p).unwrap();
            let jv: Vec<f64> = (0..3)
                .map(|r| (0..n).map(|c| j[(r, c)] * qd[c]).sum())
                .collect();
            assert!(rel(&v, &jv) < 1e-14, "{v:?} {jv:?}");
            let s = 1e-5;
            let qp: Vec<f64> = (0..n).map(|i| q[i] + s * qd[i]).collect();
            let qm: Vec<f64> = (0..n).map(|i| q[i] - s * qd[i]).collect();
            let pp = t.point_position(&qp, body, p).unwrap();
            let pm = t.point_position(&qm, body, p).unwrap();
            let fd: Vec<f64> = (0..3).map(|r| (pp[r] - pm[r]) / (2.0 * s)).collect();
            assert!(rel(&v, &fd) < 1e-8, "{v:?} {fd:?}");
            let vp = t.point_velocity(&qp, &qd, body, p).unwrap();
            let vm = t.point_velocity(&qm, &qd, body, p).unwrap();
            let fd: Vec<f64> = (0..3).map(|r| (vp[r] - vm[r]) / (2.0 * s)).collect();
            let a = t.point_accel_bias(&q, &qd, body, p).unwrap();
            assert!(rel(&a, &fd) < 1e-7, "{a:?} {fd:?}");
        }
    }
    assert!(matches!(
        t.point_position(&vec![0.0; n], 99, [0.0; 3]),
        Err(crate::ModelError::UnknownBody { body: 99, .. })
    ));
}

#[test]
fn closures_pass_finite_difference_checks() {
    let t = random_tree(41);
    let n = t.dof();
    let q0 = vec![0.1; n];
    let closures = vec![
        Closure::point_at_current_position(&t, &q0, 6, [0.3, 0.1, -0.2]).unwrap(),
        Closure::point_to_point_at(&t, &q0, 4, [0.1, 0.2, 0.3], 7).unwrap(),
        Closure::weld_at(&t, &q0, 2, [0.0, 0.1, 0.0], None).unwrap(),
        Closure::weld_at(&t, &q0, 6, [0.2, 0.0, 0.1], Some(7)).unwrap(),
    ];
    let ct = ConstrainedTree::new(t, closures).unwrap();
    assert_eq!(ct.n_constraints(), 18);
    // assembled configuration satisfies φ = 0
    let mut phi = vec![1.0; 18];
    ct.constraints(0.0, &q0, &mut phi);
    assert!(phi.iter().all(|x| x.abs() < 1e-14), "{phi:?}");
    check_model(&ct, 42, 15, |rng| {
        (rng.vector(n, -0.6, 0.8), rng.vector(n, -2.0, 2.0))
    });
    // the weld's orientation rows at the assembly pose: J rows = −(J_ωA − 0) up to order
    let mut j = Mat::zeros(18, n);
    ct.constraint_jacobian(0.0, &q0, j.as_mut());
    let mut jw = Mat::zeros(3, n);
    ct.tree().angular_jacobian(&q0, 2, jw.as_mut()).unwrap();
    for c in 0..n {
        // rows (1,2)→ a₁×a₂ = a₀, (2,0) → a₁, (0,1) → a₂: φ̇ = R_Aᵀ ω_A in world-aligned terms
        let ra = ct.tree().body_transform(&q0, 2).unwrap().rot;
        for k in 0..3 {
            let expect: f64 = (0..3).map(|r| ra[k][r] * jw[(r, c)]).sum();
            assert!(
                (j[(9 + k, c)] - expect).abs() < 1e-13,
                "{} {expect}",
                j[(9 + k, c)]
            );
        }
    }
    let e = check_jacobian(&ct, 0.0, &q0).unwrap();
    assert!(e < 1e-8, "{e}");
    let e = check_accel_bias(&ct, 0.0, &q0, &vec![0.7; n]).unwrap();
    assert!(e < 1e-6, "{e}");
}

#[test]
fn unknown_bodies_and_bad_data_are_errors() {
    let mut t = KinematicTree::planar(2);
    assert!(matches!(
        t.add_body(
            "x",
            Some(5),
            Joint::RZ,
            Transform::IDENTITY,
            SpatialInertia::default()
        ),
        Err(crate::ModelError::UnknownBody {
            body: 5,
            n_bodies: 2
        })
    ));
    assert!(Joint::revolute([0.0; 3]).is_err());
    assert!(Joint::prismatic([f64::NAN, 0.0, 1.0]).is_err());
    let bad = SpatialInertia::from_mass_com_inertia(
        -1.0,
        [0.0; 3],
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
    );
    assert!(t
        .add_body("x", Some(1), Joint::RZ, Transform::IDENTITY, bad)
        .is_err());
    let c = Closure::PointAtWorld {
        body: 3,
        point: [0.0; 3],
        target: [0.0; 3],
    };
    assert!(matches!(
        ConstrainedTree::new(t, vec![c]),
        Err(crate::ModelError::UnknownBody { body: 3, .. })
    ));
}

/// ABA (RBDA Table 7.1) against CRBA + Cholesky (`q̈ = M⁻¹(τ − h)`) to 1e-12 relative, on
/// planar chains, branched 3-D trees with prismatic and fixed joints, and the shipped arms
/// (for the 40-link chain to `64 ε κ(M)` where that is larger: both are backward stable, so
/// their forward difference scales with the condition number); then `RNEA(q, q̇, q̈_ABA) = τ`
/// to `1e-14 · n` of the size of its terms. A massless tip makes `D_i = 0`: a typed error.
#[test]
fn aba_matches_crba_and_cholesky() {
    let mut all = trees();
    all.push(KinematicTree::planar(40));
    all.push(crate::models::ssrms_arm());
    all.push(crate::models::panda_arm());
    let mut rng = SplitMix64::new(77);
    for t in &all {
        let n = t.dof();
        for _ in 0..5 {
            let q: Vec<f64> = (0..n).map(|_| rng.uniform(-2.0, 2.0)).collect();
            let qd: Vec<f64> = (0..n).map(|_| rng.uniform(-1.5, 1.5)).collect();
            let tau: Vec<f64> = (0..n).map(|_| rng.uniform(-3.0, 3.0)).collect();
            let mut qdd = vec![0.0; n];
            t.forward_dynamics(&q, &qd, &tau, &mut qdd).unwrap();
            // reference: CRBA + Cholesky
            let m = mass(t, &q);
            let mut h = vec![0.0; n];
            t.bias_forces(&q, &qd, &mut h);
            let mut chol = contour_linalg::Cholesky::new(n);
            chol.factor(m.as_ref()).unwrap();
            let mut reference: Vec<f64> = (0..n).map(|k| tau[k] - h[k]).collect();
            chol.solve_in_place(&mut reference);
            let sv = m.as_ref().singular_values().unwrap();
            let kappa = sv[0] / sv[n - 1];
            let tol = 1e-12f64.max(64.0 * f64::EPSILON * kappa);
            assert!(
                rel(&qdd, &reference) <= tol,
                "{}: ABA vs CRBA {:e}",
                t.name(),
                rel(&qdd, &reference)
            );
            let mut back = vec![0.0; n];
            t.inverse_dynamics(&q, &qd, &qdd, &mut back).unwrap();
            // backward error relative to the size of the terms of M q̈ + h = τ
            let scale = (0..n)
                .map(|k| {
                    tau[k].abs()
                        + h[k].abs()
                        + (0..n).map(|j| (m[(k, j)] * qdd[j]).abs()).sum::<f64>()
                })
                .fold(0.0f64, f64::max);
            let res = (0..n).fold(0.0f64, |a, k| a.max((back[k] - tau[k]).abs()));
            assert!(
                res <= 1e-14 * n as f64 * scale,
                "{}: RNEA(ABA) {res:e} of {scale:e}",
                t.name()
            );
        }
    }
    // bad input and a singular tree
    let t = KinematicTree::planar(3);
    let mut qdd = [0.0; 3];
    assert!(matches!(
        t.forward_dynamics(&[0.0; 3], &[0.0; 3], &[0.0, f64::NAN, 0.0], &mut qdd),
        Err(ModelError::NonFinite {
            what: "tau",
            index: 1
        })
    ));
    assert!(matches!(
        t.forward_dynamics(&[0.0; 3], &[0.0; 2], &[0.0; 3], &mut qdd),
        Err(ModelError::DimensionMismatch { what: "qd", .. })
    ));
    let mut massless = KinematicTree::planar(2);
    massless
        .add_body(
            "ghost",
            Some(1),
            Joint::RZ,
            Transform::translation([1.0, 0.0, 0.0]),
            SpatialInertia::default(),
        )
        .unwrap();
    assert!(matches!(
        massless.forward_dynamics(&[0.0; 3], &[0.0; 3], &[0.0; 3], &mut qdd),
        Err(ModelError::MassMatrixNotPositiveDefinite { index: 2, .. })
    ));
}

/// The sparse joint forms of the recursive algorithms against the dense ones they replace:
/// `up_transform(q, X_T) = X_J(q) X_T` (to round-off: Rodrigues' own diagonal `c + (1 − c)` is
/// not exactly 1) and `subspace_in(X) = X⁻¹ S` (exactly), for the coordinate axes (both
/// signs of q), a general axis, prismatic and fixed joints.
#[test]
fn sparse_joint_forms_match_the_dense_products() {
    let mut rng = SplitMix64::new(13);
    let diag = [1.0, -1.0, 1.0];
    let general = [0.3, -0.5, 0.81];
    let joints = [
        Joint::RX,
        Joint::RY,
        Joint::RZ,
        Joint::PX,
        Joint::PY,
        Joint::PZ,
        Joint::revolute(general).unwrap(),
        Joint::prismatic(general).unwrap(),
        Joint::revolute(diag).unwrap(),
        Joint::Fixed,
    ];
    for _ in 0..50 {
        let rpy = [
            rng.uniform(-3.0, 3.0),
            rng.uniform(-1.5, 1.5),
            rng.uniform(-3.0, 3.0),
        ];
        let x_tree = Transform::from_pose(
            &rpy_to_matrix(&rpy),
            rng.vector(3, -1.0, 1.0).try_into().unwrap(),
        );
        let q = rng.uniform(-4.0, 4.0);
        for joint in &joints {
            let sparse = JointModel::from(joint).up_transform(q, &x_tree);
            let dense = joint.transform(q).compose(&x_tree);
            for r in 0..3 {
                assert!(
                    (sparse.trans[r] - dense.trans[r]).abs() <= 4.0 * f64::EPSILON,
                    "{joint:?}"
                );
                for c in 0..3 {
                    assert!(
                        (sparse.rot[r][c] - dense.rot[r][c]).abs() <= 4.0 * f64::EPSILON,
                        "{joint:?}: {sparse:?} vs {dense:?}"
                    );
                }
            }
            let s_sparse = JointModel::from(joint).subspace_in(&x_tree);
            let s_dense = x_tree.inv_apply_motion(&joint.motion_subspace());
            let bits = |m: &Motion| {
                m.ang
                    .iter()
                    .chain(&m.lin)
                    .map(|v| (v + 0.0).to_bits())
                    .collect::<Vec<_>>()
            };
            assert_eq!(bits(&s_sparse), bits(&s_dense), "{joint:?}");
        }
    }
}

/// The joint transforms kept for the last `q` (`KinematicTree::up_transforms`) never serve a
/// stale state: M, h, ABA's q̈ and a point position at alternating states (and the two states
/// one bit apart) equal, bit for bit, those of a tree that has seen no other state; a tree that
/// grows after an evaluation recomputes.
#[test]
fn kept_joint_transforms_follow_the_state() {
    let fresh = || KinematicTree::planar_with_gravity(4, 9.81);
    let q1: [f64; 4] = [0.3, -0.7, 1.1, 0.2];
    let mut q2 = q1;
    q2[2] = f64::from_bits(q2[2].to_bits() ^ 1);
    let q3 = [-1.0, 0.4, 0.0, 2.0];
    let qd = [0.5, -0.2, 0.1, 0.3];
    let tau = [0.1, 0.2, -0.3, 0.05];
    let eval = |t: &KinematicTree, q: &[f64]| {
        let mut m = Mat::<f64>::zeros(4, 4);
        let (mut h, mut qdd) = (vec![0.0; 4], vec![0.0; 4]);
        t.mass_matrix(q, m.as_mut());
        t.bias_forces(q, &qd, &mut h);
        t.forward_dynamics(q, &qd, &tau, &mut qdd).unwrap();
        let p = t.point_position(q, 3, [1.0, 0.0, 0.0]).unwrap();
        let mut bits: Vec<u64> = (0..16).map(|k| m[(k % 4, k / 4)].to_bits()).collect();
        bits.extend(h.iter().chain(&qdd).chain(&p).map(|v| v.to_bits()));
        bits
    };
    let reused = fresh();
    for q in [&q1, &q2, &q3, &q1, &q1, &q2] {
        assert_eq!(eval(&reused, q), eval(&fresh(), q), "{q:?}");
    }
    // growing the tree invalidates what was kept
    let grow = |t: &mut KinematicTree| {
        let i = [[0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.1]];
        t.add_body(
            "tip",
            Some(3),
            Joint::RZ,
            Transform::translation([1.0, 0.0, 0.0]),
            SpatialInertia::from_mass_com_inertia(1.0, [0.5, 0.0, 0.0], i),
        )
        .unwrap();
    };
    let mut grown = fresh();
    let _ = eval(&grown, &q1);
    grow(&mut grown);
    let mut reference = fresh();
    grow(&mut reference);
    let q5 = [0.3, -0.7, 1.1, 0.2, 0.9];
    let p = |t: &KinematicTree| t.point_position(&q5, 4, [1.0, 0.0, 0.0]).unwrap();
    assert_eq!(p(&grown), p(&reference));
}

/// Every form a body inertia takes in `world_inertias` (about the centre of mass, zero,
/// massless with a rotational inertia, massless with a first moment): `M` by the CRBA and `h`
/// by the world-frame RNEA against the body-frame RNEA (RBDA Table 5.1 as printed, body
/// inertias untransformed), with the centre-of-mass form off the body origin.
#[test]
fn world_inertias_of_every_kind_match_the_body_frame_rnea() {
    let mut rng = SplitMix64::new(31);
    let kinds = [
        random_inertia(&mut rng),
        SpatialInertia::default(),
        SpatialInertia {
            mass: 0.0,
            h: [0.0; 3],
            ibar: [[0.3, 0.01, 0.0], [0.01, 0.2, -0.02], [0.0, -0.02, 0.1]],
        },
        SpatialInertia {
            mass: 0.0,
            h: [0.05, -0.02, 0.1],
            ibar: [[0.2, 0.0, 0.01], [0.0, 0.3, 0.0], [0.01, 0.0, 0.25]],
        },
        random_inertia(&mut rng),
    ];
    let mut t = KinematicTree::new("kinds").with_gravity([0.3, -1.2, -9.7]);
    for (i, inertia) in kinds.into_iter().enumerate() {
        let joint = Joint::revolute([rng.uniform(-1.0, 1.0), 0.4, 1.0]).unwrap();
        let x = Transform::from_pose(
            &rpy_to_matrix(&[rng.uniform(-3.0, 3.0), 0.7, rng.uniform(-3.0, 3.0)]),
            [0.3, rng.uniform(-1.0, 1.0), 0.5],
        );
        let parent = i.checked_sub(1);
        t.add_body(format!("b{i}"), parent, joint, x, inertia)
            .unwrap();
    }
    let n = t.dof();
    for _ in 0..5 {
        let q = rng.vector(n, -3.0, 3.0);
        let qd = rng.vector(n, -2.0, 2.0);
        let qdd = rng.vector(n, -2.0, 2.0);
        let lhs = m_qdd_plus_h(&t, &q, &qd, &qdd);
        let mut tau = vec![0.0; n];
        t.fast_inverse_dynamics(&q, &qd, &qdd, &mut tau).unwrap();
        assert!(rel(&lhs, &tau) < 1e-13, "{lhs:?} vs {tau:?}");
    }
}

/// Branched trees (the CRBA's support runs with gaps between them), chains, and a workspace
/// moved between two trees of the same sizes: every entry of `M` is written (a matrix filled
/// with NaN comes back symmetric, with exact zeros off the ancestor pairs), the upper-triangle
/// call writes the same upper triangle bit for bit and leaves the strictly lower one alone,
/// and a transposed (row-major) view receives the same matrix.
#[test]
fn crba_writes_the_triangles_asked_for() {
    let mut rng = SplitMix64::new(5);
    // all joints moving, so body i is coordinate i and the gaps of the support runs show
    let bush = [
        None,
        Some(0),
        Some(0),
        Some(1),
        Some(2),
        Some(1),
        Some(3),
        Some(0),
    ];
    let mut moving = KinematicTree::new("moving bush").with_gravity([0.0, 0.0, -9.81]);
    for (i, p) in bush.iter().enumerate() {
        let axis = [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0), 1.0];
        let x = Transform::from_pose(
            &rpy_to_matrix(&[0.3 * i as f64, 0.1, -0.2]),
            [0.2, 0.1, 0.5],
        );
        let inertia = random_inertia(&mut rng);
        moving
            .add_body(
                format!("b{i}"),
                *p,
                Joint::revolute(axis).unwrap(),
                x,
                inertia,
            )
            .unwrap();
    }
    let mut all = trees();
    all.push(moving.clone());
    // one workspace for a chain and the bush (same sizes, other ancestor pairs)
    let chain = KinematicTree::planar(8);
    let mut shared = chain.data();
    for t in &all {
        let n = t.dof();
        let mut data = t.data();
        for _ in 0..4 {
            let q = rng.vector(n, -3.0, 3.0);
            let mut full = Mat::from_fn(n, n, |_, _| f64::NAN);
            t.mass_matrix_with(&mut data, &q, full.as_mut()).unwrap();
            let mut upper = Mat::from_fn(n, n, |_, _| f64::NAN);
            t.mass_matrix_upper_with(&mut data, &q, upper.as_mut())
                .unwrap();
            let mut storage = Mat::from_fn(n, n, |_, _| f64::NAN);
            t.mass_matrix_with(&mut data, &q, storage.as_mut().transpose_mut())
                .unwrap();
            let pooled = mass(t, &q);
            for i in 0..n {
                for j in 0..n {
                    let v = full[(i, j)];
                    assert!(v.is_finite(), "{} M[{i},{j}] = {v}", t.name());
                    assert_eq!(v.to_bits(), full[(j, i)].to_bits());
                    assert_eq!(v.to_bits(), pooled[(i, j)].to_bits());
                    assert_eq!(v.to_bits(), storage[(j, i)].to_bits());
                    if i <= j {
                        assert_eq!(v.to_bits(), upper[(i, j)].to_bits());
                    } else {
                        assert!(upper[(i, j)].is_nan(), "lower triangle written");
                    }
                }
            }
        }
    }
    // the bush's zeros (bodies 1 and 2 are not ancestors of each other) after the chain's
    // full matrix in the same workspace
    let q = rng.vector(8, -3.0, 3.0);
    let mut m = Mat::zeros(8, 8);
    chain.mass_matrix_with(&mut shared, &q, m.as_mut()).unwrap();
    assert!(m[(1, 2)] != 0.0);
    moving
        .mass_matrix_with(&mut shared, &q, m.as_mut())
        .unwrap();
    let fresh = mass(&moving, &q);
    assert_eq!(m[(1, 2)], 0.0);
    for i in 0..8 {
        for j in 0..8 {
            assert_eq!(m[(i, j)].to_bits(), fresh[(i, j)].to_bits());
        }
    }
}
