//! MBS benchmark A04, Bricard's mechanism (González, Dopico, Lugrís, Cuadrado 2006): five rods
//! closed in a loop by six revolute joints, two of them to the ground. Grübler's count gives no
//! degree of freedom, the mechanism has one: every formulation that keeps all joint equations
//! has permanently redundant rows.
//!
//! Two formulations of the same mechanism, each an [`AutoDiffModel`]:
//!
//! * [`Bricard`]: natural coordinates (points and unit vectors), 24 coordinates, 24 rows of
//!   rank 23;
//! * [`BricardJointAngles`]: the five relative angles of the chain cut at the last ground joint
//!   (product of exponentials), five closure rows of rank 4. It shares no code with
//!   [`Bricard`] and is its reference.
//!
//! A04's data (the public implementations that plot against the benchmark's reference:
//! MBS-benchmarks-in-OpenSim, simEngine3D, Exudyn's `bricardMechanism.py`): rods of 1 kg and
//! 1 m with a square 0.1 m cross-section (brick inertia, as OpenSim's model), gravity 9.81 m/s²
//! along −y, joints at `O = (0, 0, 0)` (ground, axis y), `P1 = (1, 0, 0)` (z),
//! `P2 = (1, −1, 0)` (x), `P3 = (1, −1, 1)` (y), `P4 = (0, −1, 1)` (z) and `Q = (0, 0, 1)`
//! (ground, x). The start at rest is assumed (no source sets a velocity; the published curve
//! starts at rest). The tracked point is `P2`, the end of the second rod.
//!
//! The two formulations' agreement and every constraint method × integrator on this model:
//! `benches/results/mbs_a01_a04_a05_2026-11-28.md`.

use crate::autodiff::{AutoDiffModel, Scalar};

/// Joint positions at the start `O, P1, P2, P3, P4, Q` \[m\] for rods of length 1.
const JOINTS: [[f64; 3]; 6] = [
    [0.0, 0.0, 0.0],
    [1.0, 0.0, 0.0],
    [1.0, -1.0, 0.0],
    [1.0, -1.0, 1.0],
    [0.0, -1.0, 1.0],
    [0.0, 0.0, 1.0],
];

/// Joint axes at the start, as coordinate indices (0 = x, 1 = y, 2 = z), joint by joint.
const AXES: [usize; 6] = [1, 2, 0, 1, 2, 0];

fn unit(axis: usize) -> [f64; 3] {
    let mut e = [0.0; 3];
    e[axis] = 1.0;
    e
}

fn dot<S: Scalar>(a: &[S; 3], b: &[S; 3]) -> S {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn sub<S: Scalar>(a: &[S; 3], b: &[S; 3]) -> [S; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross<S: Scalar>(a: &[S; 3], b: &[S; 3]) -> [S; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn constant<S: Scalar>(a: [f64; 3]) -> [S; 3] {
    [S::from(a[0]), S::from(a[1]), S::from(a[2])]
}

/// A04 in natural coordinates: `q = (P1, P2, P3, P4, u1, u2, u3, u4)`, the four moving joint
/// points and the unit vectors of their axes (24 coordinates); `O`, `Q` and the ground axes
/// `u0 = e_y`, `u5 = e_x` are fixed. Rod `k = 1 … 5` runs from `A = P_{k−1}` to `B = P_k` and
/// carries the axes `a = u_{k−1}`, `b = u_k`, mutually orthogonal and orthogonal to `B − A`
/// (García de Jalón's natural coordinates; every constant is zero in A04's geometry):
///
/// ```text
/// rows 4(k−1) … 4k−1:  |B − A|² − l²,  (B − A)·a,  (B − A)·b,  a·b      (rods 1 … 5)
/// rows 20 … 23:        |u_i|² − 1                                        (i = 1 … 4)
/// ```
///
/// 24 rows of rank 23 along the motion (one dof). A point `A + ξ(B − A) + η a + ζ b` of a
/// uniform brick (`ξ ∈ [0, 1]`, `η, ζ ∈ [−w/2, w/2]`) gives
/// `T = m/2 (|Ȧ|² + Ȧ·ė + |ė|²/3 + w²/12 (|ȧ|² + |ḃ|²))` with `ė = Ḃ − Ȧ`: `M` is constant.
/// `V = m g (A_y + B_y)/2` per rod.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bricard {
    /// Mass m of every rod \[kg\] (1).
    pub mass: f64,
    /// Length l of every rod \[m\] (1); the joint positions scale with it.
    pub length: f64,
    /// Side w of the square cross-section \[m\] (0.1).
    pub width: f64,
    /// Gravitational acceleration along −y \[m/s²\] (9.81).
    pub gravity: f64,
}

impl Default for Bricard {
    fn default() -> Self {
        Self {
            mass: 1.0,
            length: 1.0,
            width: 0.1,
            gravity: 9.81,
        }
    }
}

impl Bricard {
    /// Index in `q` of the tracked point `P2` (its x; y and z follow).
    pub const TRACKED: usize = 3;

    /// A04's initial state: the joints and axes of the module documentation, at rest.
    pub fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        let mut q = Vec::with_capacity(24);
        for p in &JOINTS[1..5] {
            q.extend(p.iter().map(|c| c * self.length));
        }
        for &a in &AXES[1..5] {
            q.extend(unit(a));
        }
        (q, vec![0.0; 24])
    }

    /// The tracked point `P2` of `q` \[m\].
    pub fn tracked_point(q: &[f64]) -> [f64; 3] {
        [q[3], q[4], q[5]]
    }

    /// Point `k = 0 … 5` (`O, P1 … P4, Q`) of `x` (positions or velocities: fixed points are
    /// `fixed` there, the ground values or zero).
    fn point<S: Scalar>(&self, x: &[S], k: usize, moving: bool) -> [S; 3] {
        match k {
            1..=4 => [x[3 * k - 3], x[3 * k - 2], x[3 * k - 1]],
            _ if moving => [S::from(0.0); 3],
            _ => constant(JOINTS[k].map(|c| c * self.length)),
        }
    }

    /// Axis `k = 0 … 5` of `x` (ground axes fixed, as in [`Bricard::point`]).
    fn axis<S: Scalar>(x: &[S], k: usize, moving: bool) -> [S; 3] {
        match k {
            1..=4 => [x[9 + 3 * k], x[10 + 3 * k], x[11 + 3 * k]],
            _ if moving => [S::from(0.0); 3],
            _ => constant(unit(AXES[k])),
        }
    }
}

impl AutoDiffModel for Bricard {
    fn name(&self) -> &str {
        "bricard"
    }
    fn dof(&self) -> usize {
        24
    }
    fn n_constraints(&self) -> usize {
        24
    }
    fn kinetic_energy<S: Scalar>(&self, _q: &[S], qd: &[S]) -> S {
        let w2 = self.width * self.width / 12.0;
        let mut t = S::from(0.0);
        for k in 1..=5 {
            let va = self.point(qd, k - 1, true);
            let vb = self.point(qd, k, true);
            let de = sub(&vb, &va);
            let (da, db) = (Self::axis(qd, k - 1, true), Self::axis(qd, k, true));
            t += (dot(&va, &va)
                + dot(&va, &de)
                + dot(&de, &de) / 3.0
                + (dot(&da, &da) + dot(&db, &db)) * w2)
                * (0.5 * self.mass);
        }
        t
    }
    fn potential_energy<S: Scalar>(&self, q: &[S]) -> S {
        let mut v = S::from(0.0);
        for k in 1..=5 {
            let (a, b) = (self.point(q, k - 1, false), self.point(q, k, false));
            v += (a[1] + b[1]) * (0.5 * self.mass * self.gravity);
        }
        v
    }
    fn constraints<S: Scalar>(&self, _t: S, q: &[S], phi: &mut [S]) {
        let l = self.length;
        for k in 1..=5 {
            let e = sub(&self.point(q, k, false), &self.point(q, k - 1, false));
            let (a, b) = (Self::axis(q, k - 1, false), Self::axis(q, k, false));
            let r = 4 * (k - 1);
            phi[r] = dot(&e, &e) - l * l;
            phi[r + 1] = dot(&e, &a);
            phi[r + 2] = dot(&e, &b);
            phi[r + 3] = dot(&a, &b);
        }
        for i in 1..=4 {
            let u = Self::axis(q, i, false);
            phi[19 + i] = dot(&u, &u) - 1.0;
        }
    }
}

/// A04 in relative joint angles: `q = (θ1, …, θ5)`, the rotations of the joints at `O` (about
/// y), `P1` (z), `P2` (x), `P3` (y) and `P4` (z) from the initial configuration, the chain cut
/// at the ground joint `Q`. Rod `k` (from joint `k` to joint `k + 1`) moves by the product of
/// exponentials `g_k = E_1 ∘ … ∘ E_k`, `E_j(x) = R_j(θ_j)(x − c_j) + c_j` (rotation about the
/// initial axis `k_j` through the initial joint point `c_j`; Murray, Li & Sastry (3.26)).
///
/// Closure (5 rows of rank 4): `g_5(Q) − Q = 0` and the x-axis of the last rod along the ground's
/// (`(R e_x)_y = (R e_x)_z = 0`). Energies from the joint twists: a point `x` of rod `k` moves
/// at `ẋ = Σ_{j≤k} θ̇_j k̂_j × (x − ĉ_j)` (`k̂_j`, `ĉ_j` the current axis and point of joint
/// `j`), `ω_k = Σ_{j≤k} θ̇_j k̂_j`, and the brick gives
/// `T_k = ½ m |ẋ_c|² + ½ (I_t (|ω|² − (ω·d)²) + I_a (ω·d)²)` with `d` the rod's direction,
/// `I_t = m (l² + w²)/12`, `I_a = m w²/6`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BricardJointAngles {
    /// The rods (mass, length, cross-section, gravity).
    pub rods: Bricard,
}

/// Rotation of a rod: `x ↦ R x + p`.
type Pose<S> = ([[S; 3]; 3], [S; 3]);

/// The chain at one configuration: the poses `g_1 … g_5` of the rods and the current axes
/// `k̂_j` and points `ĉ_j` of the joints 1 … 5.
struct Chain<S> {
    poses: [Pose<S>; 5],
    axes: [[S; 3]; 5],
    points: [[S; 3]; 5],
}

fn mat_vec<S: Scalar>(r: &[[S; 3]; 3], v: &[S; 3]) -> [S; 3] {
    [dot(&r[0], v), dot(&r[1], v), dot(&r[2], v)]
}

impl BricardJointAngles {
    /// The [`Chain`] at the angles `q`.
    fn chain<S: Scalar>(&self, q: &[S]) -> Chain<S> {
        let l = self.rods.length;
        let zero = S::from(0.0);
        let one = S::from(1.0);
        let mut r = [[one, zero, zero], [zero, one, zero], [zero, zero, one]];
        let mut p = [zero; 3];
        let mut poses = [(r, p); 5];
        let mut axes = [[zero; 3]; 5];
        let mut points = [[zero; 3]; 5];
        for j in 0..5 {
            let c: [S; 3] = constant(JOINTS[j].map(|x| x * l));
            let kj = constant(unit(AXES[j]));
            axes[j] = mat_vec(&r, &kj);
            points[j] = {
                let rc = mat_vec(&r, &c);
                [rc[0] + p[0], rc[1] + p[1], rc[2] + p[2]]
            };
            // R_j: rotation by θ_j about the coordinate axis AXES[j]
            let (s, co) = (q[j].sin(), q[j].cos());
            let (a, b) = ((AXES[j] + 1) % 3, (AXES[j] + 2) % 3);
            let mut rj = [[zero; 3]; 3];
            rj[AXES[j]][AXES[j]] = one;
            rj[a][a] = co;
            rj[a][b] = -s;
            rj[b][a] = s;
            rj[b][b] = co;
            // g_j = g_{j−1} ∘ E_j: R ← R R_j, p ← R (c − R_j c) + p
            let rjc = mat_vec(&rj, &c);
            let shift = mat_vec(&r, &sub(&c, &rjc));
            p = [p[0] + shift[0], p[1] + shift[1], p[2] + shift[2]];
            let mut rn = [[zero; 3]; 3];
            for (row, rrow) in rn.iter_mut().zip(&r) {
                for (col, x) in row.iter_mut().enumerate() {
                    *x = rrow[0] * rj[0][col] + rrow[1] * rj[1][col] + rrow[2] * rj[2][col];
                }
            }
            r = rn;
            poses[j] = (r, p);
        }
        Chain {
            poses,
            axes,
            points,
        }
    }

    fn apply<S: Scalar>(pose: &Pose<S>, x: [f64; 3]) -> [S; 3] {
        let rx = mat_vec(&pose.0, &constant(x));
        [rx[0] + pose.1[0], rx[1] + pose.1[1], rx[2] + pose.1[2]]
    }

    /// The tracked point `P2` at the angles `q` \[m\].
    pub fn tracked_point(&self, q: &[f64]) -> [f64; 3] {
        let poses = self.chain(q).poses;
        Self::apply(&poses[1], JOINTS[2].map(|x| x * self.rods.length))
    }

    /// The centre of rod `k = 0 … 4` in its initial position.
    fn centre(&self, k: usize) -> [f64; 3] {
        let l = self.rods.length;
        [0, 1, 2].map(|c| 0.5 * (JOINTS[k][c] + JOINTS[k + 1][c]) * l)
    }
}

impl AutoDiffModel for BricardJointAngles {
    fn name(&self) -> &str {
        "bricard-joint-angles"
    }
    fn dof(&self) -> usize {
        5
    }
    fn n_constraints(&self) -> usize {
        5
    }
    fn kinetic_energy<S: Scalar>(&self, q: &[S], qd: &[S]) -> S {
        let Bricard {
            mass: m,
            length: l,
            width: w,
            ..
        } = self.rods;
        let (i_t, i_a) = (m * (l * l + w * w) / 12.0, m * w * w / 6.0);
        let Chain {
            poses,
            axes,
            points,
        } = self.chain(q);
        let mut t = S::from(0.0);
        let mut omega = [S::from(0.0); 3];
        for k in 0..5 {
            for (o, a) in omega.iter_mut().zip(&axes[k]) {
                *o += *a * qd[k];
            }
            let xc = Self::apply(&poses[k], self.centre(k));
            let mut v = [S::from(0.0); 3];
            for j in 0..=k {
                let vj = cross(&axes[j], &sub(&xc, &points[j]));
                for (vi, x) in v.iter_mut().zip(vj) {
                    *vi += x * qd[j];
                }
            }
            let d0 = [0, 1, 2].map(|c| JOINTS[k + 1][c] - JOINTS[k][c]);
            let d = mat_vec(&poses[k].0, &constant(d0));
            let (ww, wd) = (dot(&omega, &omega), dot(&omega, &d));
            t += dot(&v, &v) * (0.5 * m) + (ww - wd * wd) * (0.5 * i_t) + wd * wd * (0.5 * i_a);
        }
        t
    }
    fn potential_energy<S: Scalar>(&self, q: &[S]) -> S {
        let poses = self.chain(q).poses;
        let mut v = S::from(0.0);
        for (k, pose) in poses.iter().enumerate() {
            v += Self::apply(pose, self.centre(k))[1] * (self.rods.mass * self.rods.gravity);
        }
        v
    }
    fn constraints<S: Scalar>(&self, _t: S, q: &[S], phi: &mut [S]) {
        let poses = self.chain(q).poses;
        let q_end = JOINTS[5].map(|x| x * self.rods.length);
        let x = Self::apply(&poses[4], q_end);
        for c in 0..3 {
            phi[c] = x[c] - q_end[c];
        }
        // R e_x: the first column of R
        phi[3] = poses[4].0[1][0];
        phi[4] = poses[4].0[2][0];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::autodiff::AutoDiff;
    use crate::testing::{check_accel_bias, check_jacobian, check_rate_bias, SplitMix64};
    use crate::Mechanism;
    use contour_linalg::numerical_rank;

    fn rank(m: &impl Mechanism, q: &[f64]) -> usize {
        let mut j = faer::Mat::zeros(m.n_constraints(), m.dof());
        m.constraint_jacobian(0.0, q, j.as_mut());
        numerical_rank(j.as_ref(), 0.0, 1e-10).unwrap()
    }

    /// Both formulations: J, b and ρ against finite differences of φ at random states; the
    /// start satisfies the constraints with rank 23 of 24 (natural) and 4 of 5 (angles); the two
    /// agree on the tracked point and the energy at the start.
    #[test]
    fn bricard_formulations_pass_finite_difference_checks() {
        let nat = AutoDiff::new(Bricard::default());
        let ang = AutoDiff::new(BricardJointAngles::default());
        assert!(nat.has_constant_mass_matrix());
        let mut rng = SplitMix64::new(41);
        for _ in 0..4 {
            for m in [&nat as &dyn Mechanism, &ang] {
                let n = m.dof();
                let q = rng.vector(n, -1.0, 1.0);
                let qd = rng.vector(n, -1.0, 1.0);
                let (ej, eb, er) = (
                    check_jacobian(m, 0.3, &q).unwrap(),
                    check_rate_bias(m, 0.3, &q).unwrap(),
                    check_accel_bias(m, 0.3, &q, &qd).unwrap(),
                );
                assert!(ej < 1e-7 && eb < 1e-7 && er < 1e-6, "{ej:e} {eb:e} {er:e}");
            }
        }
        let (q0, qd0) = Bricard::default().initial_state();
        let (pr, vr) = crate::constraint_residuals(&nat, 0.0, &q0, &qd0).unwrap();
        assert!(pr == 0.0 && vr == 0.0, "{pr:e} {vr:e}");
        let (pa, va) = crate::constraint_residuals(&ang, 0.0, &[0.0; 5], &[0.0; 5]).unwrap();
        assert!(pa < 1e-15 && va == 0.0, "{pa:e} {va:e}");
        assert_eq!(rank(&nat, &q0), 23);
        assert_eq!(rank(&ang, &[0.0; 5]), 4);
        assert_eq!(
            BricardJointAngles::default().tracked_point(&[0.0; 5]),
            [1.0, -1.0, 0.0]
        );
        let v_nat = nat.potential_energy(&q0).unwrap();
        let v_ang = ang.potential_energy(&[0.0; 5]).unwrap();
        // rod centres at y = 0, −1/2, −1, −1, −1/2: V = −3 m g
        assert!((v_nat + 3.0 * 9.81).abs() < 1e-14 && (v_ang + 3.0 * 9.81).abs() < 1e-14);
    }

    /// The two formulations give the same kinetic and potential energy for the same motion: at
    /// the start, the tangent velocity of the angles (the null space of their `J`) mapped to
    /// the natural coordinates (a central difference of the points and axes).
    #[test]
    fn bricard_energies_agree_on_the_tangent_velocity() {
        let b = Bricard::default();
        let ang = BricardJointAngles { rods: b };
        let natural = |th: &[f64]| -> Vec<f64> {
            let Chain { axes, points, .. } = ang.chain(th);
            let mut q = Vec::with_capacity(24);
            for p in &points[1..5] {
                q.extend(p);
            }
            for a in &axes[1..5] {
                q.extend(a);
            }
            q
        };
        let ad = AutoDiff::new(ang);
        let mut j = faer::Mat::zeros(5, 5);
        ad.constraint_jacobian(0.0, &[0.0; 5], j.as_mut());
        let null = contour_linalg::null_space(j.as_ref(), 0.0, 1e-10).unwrap();
        assert_eq!(null.ncols(), 1);
        let thd: Vec<f64> = (0..5).map(|i| 2.0 * null[(i, 0)]).collect();
        let th = [0.0; 5];
        let eps = 1e-6;
        let step = |s: f64| -> Vec<f64> { th.iter().zip(&thd).map(|(a, b)| a + s * b).collect() };
        let (qp, qm) = (natural(&step(eps)), natural(&step(-eps)));
        let qd: Vec<f64> = qp
            .iter()
            .zip(&qm)
            .map(|(a, b)| (a - b) / (2.0 * eps))
            .collect();
        let q = natural(&th);
        assert_eq!(q, b.initial_state().0);
        let t_nat = b.kinetic_energy(&q, &qd);
        let t_ang = ang.kinetic_energy(&th, &thd);
        assert!(t_ang > 0.1, "{t_ang}");
        assert!((t_nat - t_ang).abs() < 1e-8 * t_ang, "{t_nat} {t_ang}");
        // the natural rows hold to first order along this velocity
        let nat = AutoDiff::new(b);
        let (_, vr) = crate::constraint_residuals(&nat, 0.0, &q, &qd).unwrap();
        assert!(vr < 1e-8, "{vr:e}");
    }
}
