//! Physical fact: a free kinematic tree without damping conserves its energy
//! (kinetic without gravity, kinetic + potential with gravity), to the
//! accuracy of the integration (fixed-step RK4, error ∝ h⁴).

use contour_linalg::Cholesky;
use contour_model::models::panda_arm;
use contour_model::tree::KinematicTree;
use contour_model::Mechanism;
use faer::Mat;

/// Free motion `M q̈ = −h` by RK4; returns the largest relative energy drift.
fn drift(t: &KinematicTree, q0: &[f64], qd0: &[f64], t_end: f64, steps: usize) -> f64 {
    let n = t.dof();
    let mut m = Mat::<f64>::zeros(n, n);
    let mut chol = Cholesky::new(n);
    let mut f = |y: &[f64]| -> Vec<f64> {
        let (q, qd) = y.split_at(n);
        t.mass_matrix(q, m.as_mut());
        chol.factor(m.as_ref()).unwrap();
        let mut qdd = vec![0.0; n];
        t.bias_forces(q, qd, &mut qdd);
        qdd.iter_mut().for_each(|x| *x = -*x);
        chol.solve_in_place(&mut qdd);
        qd.iter().chain(&qdd).copied().collect()
    };
    let energy = |y: &[f64]| {
        let (q, qd) = y.split_at(n);
        t.kinetic_energy(q, qd).unwrap() + t.potential_energy(q).unwrap()
    };
    let mut y: Vec<f64> = q0.iter().chain(qd0).copied().collect();
    let e0 = energy(&y);
    let scale = t.kinetic_energy(q0, qd0).unwrap().max(e0.abs());
    let h = t_end / steps as f64;
    let mut worst = 0.0f64;
    for _ in 0..steps {
        let k1 = f(&y);
        let y2: Vec<f64> = (0..2 * n).map(|i| y[i] + 0.5 * h * k1[i]).collect();
        let k2 = f(&y2);
        let y3: Vec<f64> = (0..2 * n).map(|i| y[i] + 0.5 * h * k2[i]).collect();
        let k3 = f(&y3);
        let y4: Vec<f64> = (0..2 * n).map(|i| y[i] + h * k3[i]).collect();
        let k4 = f(&y4);
        for i in 0..2 * n {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        worst = worst.max((energy(&y) - e0).abs() / scale);
    }
    worst
}

#[test]
fn free_trees_conserve_energy_to_integration_accuracy() {
    // no gravity: kinetic energy alone
    let p = KinematicTree::planar(4);
    let (q, qd) = ([0.3, -0.5, 0.8, 0.1], [1.0, -0.5, 0.7, 0.2]);
    let fine = drift(&p, &q, &qd, 2.0, 2000);
    let coarse = drift(&p, &q, &qd, 2.0, 500);
    eprintln!("planar(4): drift {fine:e} (h = 1 ms), {coarse:e} (h = 4 ms)");
    assert!(fine < 1e-9, "{fine:e}");
    // fourth order: 4× the step, ≈ 4⁴ = 256× the drift (loosely)
    assert!(coarse > 30.0 * fine, "{coarse:e} vs {fine:e}");
    // gravity: kinetic + potential, planar and the 3-D Panda
    let pg = KinematicTree::planar_with_gravity(3, 9.81);
    let d = drift(&pg, &[0.3, -0.5, 0.8], &[0.0; 3], 2.0, 2000);
    eprintln!("planar(3) with gravity: drift {d:e}");
    assert!(d < 1e-8, "{d:e}");
    let panda = panda_arm();
    let d = drift(
        &panda,
        &[0.0, -0.3, 0.0, -2.0, 0.0, 2.0, 0.8],
        &[0.2; 7],
        1.0,
        4000,
    );
    eprintln!("panda with gravity: drift {d:e}");
    assert!(d < 1e-8, "{d:e}");
}

/// On a tree whose fixed-joint bodies carry mass (Baxter: 18 of them), the dynamics run on
/// the lumped tree (fixed bodies merged into their moving ancestors) while the energies
/// visit every body: `½ q̇ᵀ M q̇ = T` and `h(q, 0) = ∂V/∂q` (central differences) witness the
/// merge.
#[test]
fn lumped_fixed_bodies_keep_the_energies() {
    let tree =
        contour_model::urdf::tree_from_urdf_str(include_str!("fixtures/urdf/baxter.urdf")).unwrap();
    let n = tree.dof();
    assert!(tree.n_bodies() > n + 10, "{} bodies", tree.n_bodies());
    let mut rng = contour_model::testing::SplitMix64::new(5);
    let mut m = faer::Mat::zeros(n, n);
    let mut h = vec![0.0; n];
    for _ in 0..5 {
        let q: Vec<f64> = (0..n).map(|_| rng.uniform(-1.5, 1.5)).collect();
        let qd: Vec<f64> = (0..n).map(|_| rng.uniform(-1.0, 1.0)).collect();
        tree.mass_matrix(&q, m.as_mut());
        let mut quad = 0.0;
        for i in 0..n {
            for j in 0..n {
                quad += qd[i] * m[(i, j)] * qd[j];
            }
        }
        let t = tree.kinetic_energy(&q, &qd).unwrap();
        assert!(
            (0.5 * quad - t).abs() <= 1e-13 * t.max(1.0),
            "{} vs {t}",
            0.5 * quad
        );
        tree.bias_forces(&q, &vec![0.0; n], &mut h);
        for k in 0..n {
            let step = 1e-6;
            let (mut qp, mut qm) = (q.clone(), q.clone());
            qp[k] += step;
            qm[k] -= step;
            let dv = (tree.potential_energy(&qp).unwrap() - tree.potential_energy(&qm).unwrap())
                / (2.0 * step);
            assert!(
                (dv - h[k]).abs() <= 1e-7 * h[k].abs().max(1.0),
                "{k}: {dv} vs {}",
                h[k]
            );
        }
    }
}
