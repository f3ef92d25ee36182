//! Witnesses of the automatic derivatives (`contour_model::autodiff`): the pendulum, the
//! slider-crank and the redundant four-bar written as energies + constraints only give the
//! hand-written models' `M`, `h`, `J`, `b`, `ρ` to ≤ 1e-13 (normwise relative) on seeded random
//! states; a time-dependent constraint (a pendulum whose pivot oscillates) gives `b` and `ρ`
//! equal to their closed forms; the adapter allocates nothing per call; NaN from a user's φ
//! reaches the dynamics as the same typed error as from a hand-written model.

use contour_model::autodiff::{AutoDiff, AutoDiffModel, Scalar};
use contour_model::models::witnesses::{AdAndrews, AdFourBar, AdPendulum, AdSliderCrank};
use contour_model::models::{AndrewsSqueezer, Pendulum, RedundantFourBar, SliderCrank};
use contour_model::testing::relative_difference as rel;
use contour_model::testing::SplitMix64;
use contour_model::{ConstrainedDynamics, Mechanism, ModelError};
use faer::Mat;

/// A unit pendulum whose pivot moves as x₀(t) = A sin ωt: φ = (x − A sin ωt)² + y² − 1.
struct MovingPivot {
    amp: f64,
    omega: f64,
}
impl AutoDiffModel for MovingPivot {
    fn name(&self) -> &str {
        "moving-pivot"
    }
    fn dof(&self) -> usize {
        2
    }
    fn n_constraints(&self) -> usize {
        1
    }
    fn kinetic_energy<S: Scalar>(&self, _q: &[S], qd: &[S]) -> S {
        (qd[0] * qd[0] + qd[1] * qd[1]) * 0.5
    }
    fn constraints<S: Scalar>(&self, t: S, q: &[S], phi: &mut [S]) {
        let dx = q[0] - (t * self.omega).sin() * self.amp;
        phi[0] = dx * dx + q[1] * q[1] - 1.0;
    }
}

fn mat(m: &Mat<f64>) -> Vec<f64> {
    (0..m.ncols())
        .flat_map(|c| (0..m.nrows()).map(move |r| (r, c)))
        .map(|(r, c)| m[(r, c)])
        .collect()
}

/// All five quantities of `ad` against `hand` on 50 seeded random states; the worst error.
fn worst<A: Mechanism, H: Mechanism>(ad: &A, hand: &H, seed: u64) -> f64 {
    let (n, l) = (hand.dof(), hand.n_constraints());
    let mut rng = SplitMix64::new(seed);
    let mut worst = 0.0f64;
    for _ in 0..50 {
        let (t, q, qd) = (
            rng.uniform(0.0, 2.0),
            rng.vector(n, -3.0, 3.0),
            rng.vector(n, -2.0, 2.0),
        );
        let (mut ma, mut mh) = (Mat::<f64>::zeros(n, n), Mat::<f64>::zeros(n, n));
        ad.mass_matrix(&q, ma.as_mut());
        hand.mass_matrix(&q, mh.as_mut());
        let (mut ja, mut jh) = (Mat::<f64>::zeros(l, n), Mat::<f64>::zeros(l, n));
        ad.constraint_jacobian(t, &q, ja.as_mut());
        hand.constraint_jacobian(t, &q, jh.as_mut());
        let mut v = [
            vec![0.0; n],
            vec![0.0; n],
            vec![0.0; l],
            vec![0.0; l],
            vec![0.0; l],
            vec![0.0; l],
        ];
        let [ha, hh, ba, bh, ra, rh] = &mut v;
        ad.bias_forces(&q, &qd, ha);
        hand.bias_forces(&q, &qd, hh);
        ad.constraint_rate_bias(t, &q, ba);
        hand.constraint_rate_bias(t, &q, bh);
        ad.constraint_accel_bias(t, &q, &qd, ra);
        hand.constraint_accel_bias(t, &q, &qd, rh);
        let (mut pa, mut ph) = (vec![0.0; l], vec![0.0; l]);
        ad.constraints(t, &q, &mut pa);
        hand.constraints(t, &q, &mut ph);
        for e in [
            rel(&mat(&ma), &mat(&mh)),
            rel(&mat(&ja), &mat(&jh)),
            rel(ha, hh),
            rel(ba, bh),
            rel(ra, rh),
            rel(&pa, &ph),
        ] {
            worst = worst.max(e);
        }
        let ke =
            (ad.kinetic_energy(&q, &qd).unwrap() - hand.kinetic_energy(&q, &qd).unwrap()).abs();
        assert!(ke <= 1e-13 * hand.kinetic_energy(&q, &qd).unwrap().abs().max(1.0));
    }
    worst
}

#[test]
fn automatic_derivatives_equal_the_hand_written_ones() {
    let p = Pendulum::default();
    let e = worst(&AutoDiff::new(AdPendulum(p)), &p, 1);
    assert!(e <= 1e-13, "pendulum {e:e}");
    let sc = SliderCrank::default();
    let e = worst(&AutoDiff::new(AdSliderCrank(sc)), &sc, 2);
    assert!(e <= 1e-13, "slider-crank {e:e}");
    let fb = RedundantFourBar::default();
    let e = worst(&AutoDiff::new(AdFourBar(fb)), &fb, 3);
    assert!(e <= 1e-13, "four-bar {e:e}");
    // Andrews' squeezer: h from Lagrange's equations checks the test set's velocity terms
    let an = AndrewsSqueezer::default();
    let e = worst(&AutoDiff::new(AdAndrews(an)), &an, 5);
    assert!(e <= 1e-13, "andrews {e:e}");
}

#[test]
fn time_dependent_constraints_give_the_closed_form_b_and_rho() {
    let (amp, omega) = (0.3, 2.0);
    let m = AutoDiff::new(MovingPivot { amp, omega });
    let mut rng = SplitMix64::new(4);
    for _ in 0..50 {
        let (t, q, qd) = (
            rng.uniform(0.0, 5.0),
            rng.vector(2, -2.0, 2.0),
            rng.vector(2, -2.0, 2.0),
        );
        let (s, c) = (omega * t).sin_cos();
        let dx = q[0] - amp * s;
        let dxd = qd[0] - amp * omega * c; // d/dt (x − A sin ωt)
                                           // φ = dx² + y² − 1:  b = −2 dx A ω cos ωt,  φ̈ at q̈ = 0 = 2 dẋ² + 2 dx A ω² sin ωt + 2 ẏ²
        let b = -2.0 * dx * amp * omega * c;
        let rho = 2.0 * dxd * dxd + 2.0 * dx * amp * omega * omega * s + 2.0 * qd[1] * qd[1];
        let (mut bb, mut rr) = ([0.0], [0.0]);
        m.constraint_rate_bias(t, &q, &mut bb);
        m.constraint_accel_bias(t, &q, &qd, &mut rr);
        assert!(
            (bb[0] - b).abs() <= 1e-14 * b.abs().max(1.0),
            "{} vs {b}",
            bb[0]
        );
        assert!(
            (rr[0] - rho).abs() <= 1e-13 * rho.abs().max(1.0),
            "{} vs {rho}",
            rr[0]
        );
    }
}

#[test]
fn the_adapter_does_not_allocate_per_call() {
    let m = AutoDiff::new(AdSliderCrank(SliderCrank::default()));
    let (q, qd) = SliderCrank::default().state(0.4, 2.0);
    let (mut mm, mut j) = (Mat::<f64>::zeros(3, 3), Mat::<f64>::zeros(2, 3));
    let (mut h, mut b, mut r, mut p) = ([0.0; 3], [0.0; 2], [0.0; 2], [0.0; 2]);
    let live = allocation_counter::measure(|| {
        std::hint::black_box(Box::new(1.0f64));
    });
    assert_eq!(live.count_total, 1, "counter not installed");
    let info = allocation_counter::measure(|| {
        for _ in 0..10 {
            m.mass_matrix(&q, mm.as_mut());
            m.bias_forces(&q, &qd, &mut h);
            m.constraints(0.0, &q, &mut p);
            m.constraint_jacobian(0.0, &q, j.as_mut());
            m.constraint_rate_bias(0.0, &q, &mut b);
            m.constraint_accel_bias(0.0, &q, &qd, &mut r);
        }
    });
    assert_eq!(info.count_total, 0, "{info:?}");
}

/// φ that returns NaN away from the origin: the same typed error as a hand-written model.
struct NanPhi;
impl AutoDiffModel for NanPhi {
    fn name(&self) -> &str {
        "nan-phi"
    }
    fn dof(&self) -> usize {
        2
    }
    fn n_constraints(&self) -> usize {
        1
    }
    fn kinetic_energy<S: Scalar>(&self, _q: &[S], qd: &[S]) -> S {
        (qd[0] * qd[0] + qd[1] * qd[1]) * 0.5
    }
    fn constraints<S: Scalar>(&self, _t: S, q: &[S], phi: &mut [S]) {
        phi[0] = (q[0] - 2.0).sqrt(); // NaN (and NaN derivatives) for x < 2
    }
}

#[test]
fn nan_from_a_users_phi_is_a_typed_error() {
    let m = AutoDiff::new(NanPhi);
    let mut cd = ConstrainedDynamics::new(&m);
    let (mut qdd, mut lambda) = ([0.0; 2], [0.0]);
    let err = cd
        .accelerations(&m, 0.0, &[0.5, 0.5], &[0.1, 0.0], &mut qdd, &mut lambda)
        .unwrap_err();
    assert!(matches!(err, ModelError::NonFinite { .. }), "{err:?}");
}

/// A planar chain of `n` unit rods (1 kg, centre of mass at 0.5 m, 1/12 kg·m² about it) in
/// relative angles, its tip held at `(tip_x, 0)`: the same chain as
/// `KinematicTree::planar_with_gravity(n, g)`, written as energies and two constraint rows.
struct Chain {
    n: usize,
    g: f64,
    tip_x: f64,
}
impl Chain {
    /// Absolute angle, angular rate, and centre-of-mass position and velocity of each link.
    fn walk<S: Scalar>(&self, q: &[S], qd: &[S], mut f: impl FnMut(S, S, [S; 2], [S; 2])) {
        let (mut th, mut w) = (S::from(0.0), S::from(0.0));
        let (mut p, mut v) = ([S::from(0.0); 2], [S::from(0.0); 2]);
        for k in 0..self.n {
            th += q[k];
            w += qd[k];
            let (s, c) = (th.sin(), th.cos());
            let pc = [p[0] + c * 0.5, p[1] + s * 0.5];
            let vc = [v[0] - s * w * 0.5, v[1] + c * w * 0.5];
            f(th, w, pc, vc);
            p = [p[0] + c, p[1] + s];
            v = [v[0] - s * w, v[1] + c * w];
        }
    }
}
impl AutoDiffModel for Chain {
    fn dof(&self) -> usize {
        self.n
    }
    fn n_constraints(&self) -> usize {
        2
    }
    fn kinetic_energy<S: Scalar>(&self, q: &[S], qd: &[S]) -> S {
        let mut t = S::from(0.0);
        self.walk(q, qd, |_, w, _, v| {
            t += (v[0] * v[0] + v[1] * v[1]) * 0.5 + w * w * (0.5 / 12.0);
        });
        t
    }
    fn potential_energy<S: Scalar>(&self, q: &[S]) -> S {
        let mut v = S::from(0.0);
        self.walk(q, q, |_, _, p, _| v += p[1] * self.g);
        v
    }
    fn constraints<S: Scalar>(&self, _t: S, q: &[S], phi: &mut [S]) {
        let (mut th, mut x, mut y) = (S::from(0.0), S::from(0.0), S::from(0.0));
        for qk in q {
            th += *qk;
            x += th.cos();
            y += th.sin();
        }
        phi[0] = x - self.tip_x;
        phi[1] = y;
    }
}

/// Both sides of the lane width of the vector duals (N = 7 and 8: J in one pass, M and h by
/// vector duals; N = 10: J in two passes, M and h by scalar hyper-duals): M and h equal
/// the kinematic tree's (CRBA, RNEA) to 1e-13, J and ρ pass the finite-difference checks.
#[test]
fn chains_across_the_lane_width_match_the_tree_and_finite_differences() {
    use contour_model::testing::{check_accel_bias, check_jacobian};
    use contour_model::tree::KinematicTree;
    for n in [7, 8, 9, 10] {
        let g = 9.81;
        let ad = AutoDiff::new(Chain { n, g, tip_x: 2.0 });
        let tree = KinematicTree::planar_with_gravity(n, g);
        let mut rng = SplitMix64::new(n as u64);
        for _ in 0..10 {
            let (q, qd) = (rng.vector(n, -1.5, 1.5), rng.vector(n, -2.0, 2.0));
            let (mut ma, mut mt) = (Mat::<f64>::zeros(n, n), Mat::<f64>::zeros(n, n));
            ad.mass_matrix(&q, ma.as_mut());
            tree.mass_matrix(&q, mt.as_mut());
            let (mut ha, mut ht) = (vec![0.0; n], vec![0.0; n]);
            ad.bias_forces(&q, &qd, &mut ha);
            tree.bias_forces(&q, &qd, &mut ht);
            let (em, eh) = (rel(&mat(&ma), &mat(&mt)), rel(&ha, &ht));
            assert!(em <= 1e-13 && eh <= 1e-13, "n = {n}: M {em:e}, h {eh:e}");
            let ej = check_jacobian(&ad, 0.0, &q).unwrap();
            let er = check_accel_bias(&ad, 0.0, &q, &qd).unwrap();
            assert!(ej <= 1e-8 && er <= 1e-6, "n = {n}: J {ej:e}, rho {er:e}");
        }
    }
}

/// Wrong lengths reach the automatic model exactly as a hand-written one: the dynamics refuse
/// them with the same typed error before any dual evaluation (Andrews, q of length 6 and q̇ of
/// length 8 against N = 7).
#[test]
fn wrong_lengths_give_the_hand_written_models_errors() {
    let hand = AndrewsSqueezer::default();
    let ad = AutoDiff::new(AdAndrews(hand));
    let q = contour_model::models::ANDREWS_Q0;
    let (mut qdd, mut lambda) = ([0.0; 7], [0.0; 6]);
    for (qq, qd) in [(&q[..6], &[0.0; 7][..]), (&q[..], &[0.0; 8][..])] {
        let mut c1 = ConstrainedDynamics::new(&hand);
        let e_hand = c1
            .accelerations(&hand, 0.0, qq, qd, &mut qdd, &mut lambda)
            .unwrap_err();
        let mut c2 = ConstrainedDynamics::new(&ad);
        let e_ad = c2
            .accelerations(&ad, 0.0, qq, qd, &mut qdd, &mut lambda)
            .unwrap_err();
        assert!(
            matches!(e_ad, ModelError::DimensionMismatch { .. }),
            "{e_ad:?}"
        );
        assert_eq!(format!("{e_ad:?}"), format!("{e_hand:?}"));
    }
}
