//! Physical facts on a planar point-mass pendulum in Cartesian coordinates
//! `q = (x, y)`, mass `m`, length `l`, constraint `½(x² + y² − l²) = 0`, so
//! `J = [x, y]` and `J q̈ = c = −(ẋ² + ẏ²)`.
//!
//! * At the bottom with speed `v` the rod tension is `m (g + v²/l)` and the
//!   acceleration is centripetal, `v²/l` toward the pivot (both KKT methods).
//! * A redundant copy of the constraint (Kövecses: the projectors "are also
//!   valid for … over-constrained systems") leaves `P_a` and `P_c` unchanged,
//!   while the KKT solvers correctly refuse the singular system.

use contour_linalg::{
    Cholesky, KktMethod, KktSolver, LinalgError, WeightedProjectors, DEFAULT_RANK_RTOL,
};
use faer::{mat, Mat};

const M: f64 = 2.5;
const L: f64 = 1.3;
const G: f64 = 9.81;

#[test]
fn tension_and_centripetal_acceleration() {
    let mass = mat![[M, 0.0], [0.0, M]];
    for v in [0.0, 0.7, 3.0] {
        let (x, y) = (0.0, -L);
        let j = mat![[x, y]];
        let f = [0.0, -M * G];
        let c = [-(v * v)];
        for method in [KktMethod::RangeSpace, KktMethod::FullLu] {
            let mut s = KktSolver::new(2, 1, method);
            let (mut qdd, mut lam) = ([0.0; 2], [0.0; 1]);
            s.solve(mass.as_ref(), j.as_ref(), &f, &c, &mut qdd, &mut lam)
                .unwrap();
            // constraint force Jᵀλ = (xλ, yλ); tension magnitude = |yλ|
            let tension = (y * lam[0]).abs();
            let expected = M * (G + v * v / L);
            assert!(
                (tension - expected).abs() <= 1e-13 * expected,
                "{method:?} v={v}: {tension} vs {expected}"
            );
            assert!(qdd[0].abs() <= 1e-14);
            assert!((qdd[1] - v * v / L).abs() <= 1e-13 * (1.0 + v * v / L));
        }
    }
}

#[test]
fn redundant_constraint_keeps_projectors() {
    // a generic configuration of a 3-D spherical pendulum with anisotropic "mass"
    let mass = mat![[3.0, 0.2, 0.0], [0.2, 2.0, 0.1], [0.0, 0.1, 1.0]];
    let q = [0.3, -1.1, 0.4];
    let single = Mat::from_fn(1, 3, |_, k| q[k]);
    let double = Mat::from_fn(2, 3, |i, k| (1.0 + i as f64) * q[k]); // second row = 2 × first
    let mut ch = Cholesky::new(3);
    ch.factor(mass.as_ref()).unwrap();
    let mut p1 = WeightedProjectors::new(3, 1);
    let mut p2 = WeightedProjectors::new(3, 2);
    p1.compute(&ch, single.as_ref(), 0.0, DEFAULT_RANK_RTOL)
        .unwrap();
    p2.compute(&ch, double.as_ref(), 0.0, DEFAULT_RANK_RTOL)
        .unwrap();
    assert_eq!((p1.rank(), p2.rank()), (1, 1));
    assert!((p1.p_a() - p2.p_a()).norm_max() <= 1e-14);
    assert!((p1.p_c() - p2.p_c()).norm_max() <= 1e-14);
    // the admissible velocity space is the tangent plane: J P_a = 0
    assert!((&single * p1.p_a()).norm_max() <= 1e-14);
    for method in [KktMethod::RangeSpace, KktMethod::FullLu] {
        let mut s = KktSolver::new(3, 2, method);
        s.set_rank_deficiency(contour_linalg::RankDeficiency::Error);
        let (mut qdd, mut lam) = ([0.0; 3], [0.0; 2]);
        let r = s.solve(
            mass.as_ref(),
            double.as_ref(),
            &[0.0, 0.0, -G],
            &[0.0, 0.0],
            &mut qdd,
            &mut lam,
        );
        assert!(
            matches!(r, Err(LinalgError::RankDeficient { required: 2, .. })),
            "{method:?}: {r:?}"
        );
    }
}
