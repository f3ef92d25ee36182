//! Write the model once: energies and constraints for any scalar, derivatives by automatic
//! differentiation ([`num_dual`]), no finite differences anywhere.
//!
//! A user implements [`AutoDiffModel`] — the kinetic energy `T(q, q̇)`, the potential `V(q)` and
//! the constraints `φ(t, q)`, each written once for any [`Scalar`] — and wraps it in
//! [`AutoDiff`], which is a [`Mechanism`]:
//!
//! ```text
//! J = ∂φ/∂q                     ⌈N/2⌉ hyper-duals (two columns of J per evaluation of φ)
//! b = ∂φ/∂t                     one first-order dual in t
//! ρ = d²/dε² φ(t + ε, q + ε q̇)   one second-order dual:  J̇q̇ + 2 ∂J/∂t q̇ + ∂²φ/∂t²
//! M = ∂²T/∂q̇²                   N(N+1)/2 hyper-duals (T is quadratic in q̇)
//! h = (∂²T/∂q̇∂q) q̇ − ∂T/∂q + ∂V/∂q   Lagrange's equations at q̈ = 0: N hyper-duals, N duals
//! ```
//!
//! Every evaluation works in buffers allocated by [`AutoDiff::new`] (behind a `RefCell`, like
//! the kinematic trees: `Send`, not `Sync`; clone per thread), so no call allocates. Bad values
//! from a user's φ or energies (NaN, ±∞) reach the callers exactly as from a hand-written
//! model, and become the same typed errors there.
//!
//! ```
//! use contour_model::autodiff::{AutoDiff, AutoDiffModel, Scalar};
//! use contour_model::Mechanism;
//!
//! /// A point mass on a circle of radius 1 under gravity, q = (x, y).
//! struct Pendulum;
//! impl AutoDiffModel for Pendulum {
//!     fn name(&self) -> &str { "pendulum" }
//!     fn dof(&self) -> usize { 2 }
//!     fn n_constraints(&self) -> usize { 1 }
//!     fn kinetic_energy<S: Scalar>(&self, _q: &[S], qd: &[S]) -> S {
//!         (qd[0] * qd[0] + qd[1] * qd[1]) * 0.5
//!     }
//!     fn potential_energy<S: Scalar>(&self, q: &[S]) -> S { q[1] * 9.81 }
//!     fn constraints<S: Scalar>(&self, _t: S, q: &[S], phi: &mut [S]) {
//!         phi[0] = q[0] * q[0] + q[1] * q[1] - 1.0;
//!     }
//! }
//! let p = AutoDiff::new(Pendulum);
//! let mut rho = [0.0];
//! p.constraint_accel_bias(0.0, &[0.6, -0.8], &[0.8, 0.6], &mut rho);
//! assert!((rho[0] - 2.0).abs() < 1e-15); // 2 |q̇|²
//! ```

use std::cell::RefCell;

use faer::MatMut;
use num_dual::{Dual2_64, Dual64, DualNum, HyperDual64};

use crate::{ConstraintKind, Mechanism};

/// The dual numbers, re-exported so a model needs no dependency of its own.
pub use num_dual;

/// The scalars a model is written for: `f64` and the dual numbers of [`num_dual`] (first- and
/// second-order, hyper-dual). Arithmetic with `f64` works on the right (`q[0] * 2.0`,
/// `q[1] - 1.0`); `sin`, `cos`, `sqrt`, `powi` … are methods of [`DualNum`].
pub trait Scalar: DualNum<Primitive = f64> + Copy {}

impl<S: DualNum<Primitive = f64> + Copy> Scalar for S {}

/// A mechanism described by its energies and constraints, each written once for any
/// [`Scalar`]; [`AutoDiff`] derives `M`, `h`, `J`, `b` and `ρ` (module documentation).
pub trait AutoDiffModel {
    /// Short name used in reports (default `"autodiff-model"`).
    fn name(&self) -> &str {
        "autodiff-model"
    }
    /// Number N of generalized coordinates.
    fn dof(&self) -> usize;
    /// Number L of constraint rows (default 0).
    fn n_constraints(&self) -> usize {
        0
    }
    /// Kind of constraint row `row` (default bilateral).
    fn constraint_kind(&self, row: usize) -> ConstraintKind {
        let _ = row;
        ConstraintKind::Bilateral
    }
    /// Kinetic energy `T(q, q̇)`, quadratic in `q̇` (`M = ∂²T/∂q̇²` must be positive definite).
    fn kinetic_energy<S: Scalar>(&self, q: &[S], qd: &[S]) -> S;
    /// Potential energy `V(q)` of the conservative forces (default 0).
    fn potential_energy<S: Scalar>(&self, q: &[S]) -> S {
        let _ = q;
        S::from(0.0)
    }
    /// Non-conservative applied forces `u(t, q, q̇)` (default zero).
    fn applied_forces(&self, t: f64, q: &[f64], qd: &[f64], u: &mut [f64]) {
        let _ = (t, q, qd);
        u.fill(0.0);
    }
    /// Constraints `φ(t, q)` (length L). The default (for L = 0) writes NaN into any row.
    fn constraints<S: Scalar>(&self, t: S, q: &[S], phi: &mut [S]) {
        let _ = (t, q);
        phi.fill(S::from(f64::NAN));
    }
}

/// Scratch of [`AutoDiff`]: dual copies of `q`, `q̇` and `φ`.
#[derive(Debug, Clone)]
struct Workspace {
    q1: Vec<Dual64>,
    qd1: Vec<Dual64>,
    phi1: Vec<Dual64>,
    q2: Vec<Dual2_64>,
    phi2: Vec<Dual2_64>,
    qh: Vec<HyperDual64>,
    qdh: Vec<HyperDual64>,
    phih: Vec<HyperDual64>,
}

/// The [`Mechanism`] of an [`AutoDiffModel`]: every derivative by dual numbers.
#[derive(Debug, Clone)]
pub struct AutoDiff<G> {
    model: G,
    ws: RefCell<Workspace>,
}

impl<G: AutoDiffModel> AutoDiff<G> {
    /// Wraps `model`, allocating the dual workspaces once.
    pub fn new(model: G) -> Self {
        let (n, l) = (model.dof(), model.n_constraints());
        let ws = Workspace {
            q1: vec![Dual64::from(0.0); n],
            qd1: vec![Dual64::from(0.0); n],
            phi1: vec![Dual64::from(0.0); l],
            q2: vec![Dual2_64::from(0.0); n],
            phi2: vec![Dual2_64::from(0.0); l],
            qh: vec![HyperDual64::from(0.0); n],
            qdh: vec![HyperDual64::from(0.0); n],
            phih: vec![HyperDual64::from(0.0); l],
        };
        Self {
            model,
            ws: RefCell::new(ws),
        }
    }

    /// The wrapped model.
    pub fn model(&self) -> &G {
        &self.model
    }
}

fn dual(re: f64, eps: f64) -> Dual64 {
    Dual64::new(re, eps)
}

fn hyper(re: f64, eps1: f64, eps2: f64) -> HyperDual64 {
    HyperDual64::new(re, eps1, eps2, 0.0)
}

impl<G: AutoDiffModel> Mechanism for AutoDiff<G> {
    fn name(&self) -> &str {
        self.model.name()
    }
    fn dof(&self) -> usize {
        self.model.dof()
    }
    fn n_constraints(&self) -> usize {
        self.model.n_constraints()
    }
    fn constraint_kind(&self, row: usize) -> ConstraintKind {
        self.model.constraint_kind(row)
    }

    /// `M_ij = ∂²T/∂q̇_i∂q̇_j`: a hyper-dual with `ε₁` on `q̇_i` and `ε₂` on `q̇_j`.
    fn mass_matrix(&self, q: &[f64], mut m: MatMut<'_, f64>) {
        let ws = &mut *self.ws.borrow_mut();
        let n = q.len();
        for (k, x) in q.iter().enumerate() {
            ws.qh[k] = hyper(*x, 0.0, 0.0);
        }
        for i in 0..n {
            for j in 0..=i {
                for k in 0..n {
                    let e1 = if k == i { 1.0 } else { 0.0 };
                    let e2 = if k == j { 1.0 } else { 0.0 };
                    ws.qdh[k] = hyper(0.0, e1, e2);
                }
                let mij = self.model.kinetic_energy(&ws.qh, &ws.qdh).eps1eps2;
                m[(i, j)] = mij;
                m[(j, i)] = mij;
            }
        }
    }

    /// `h = (∂²T/∂q̇∂q) q̇ − ∂T/∂q + ∂V/∂q`, Lagrange's equations with `q̈ = 0`.
    fn bias_forces(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
        let ws = &mut *self.ws.borrow_mut();
        let n = q.len();
        for i in 0..n {
            // d/dε ∂T/∂q̇_i (q + ε q̇, q̇): ε₁ on q̇_i, ε₂ along q̇ in q
            for k in 0..n {
                ws.qh[k] = hyper(q[k], 0.0, qd[k]);
                ws.qdh[k] = hyper(qd[k], if k == i { 1.0 } else { 0.0 }, 0.0);
            }
            let mixed = self.model.kinetic_energy(&ws.qh, &ws.qdh).eps1eps2;
            // ∂(V − T)/∂q_i
            for k in 0..n {
                ws.q1[k] = dual(q[k], if k == i { 1.0 } else { 0.0 });
                ws.qd1[k] = dual(qd[k], 0.0);
            }
            let t = self.model.kinetic_energy(&ws.q1, &ws.qd1).eps;
            let v = self.model.potential_energy(&ws.q1).eps;
            h[i] = mixed - t + v;
        }
    }

    fn applied_forces(&self, t: f64, q: &[f64], qd: &[f64], u: &mut [f64]) {
        self.model.applied_forces(t, q, qd, u)
    }

    fn constraints(&self, t: f64, q: &[f64], phi: &mut [f64]) {
        self.model.constraints(t, q, phi)
    }

    /// Columns `c` and `c + 1` of `J` per evaluation: a hyper-dual with `ε₁` on `q_c` and `ε₂`
    /// on `q_{c+1}` (the mixed part is not used): ⌈N/2⌉ evaluations of `φ` instead of N.
    fn constraint_jacobian(&self, t: f64, q: &[f64], mut j: MatMut<'_, f64>) {
        let ws = &mut *self.ws.borrow_mut();
        let Workspace { qh, phih, .. } = ws;
        for (k, x) in q.iter().enumerate() {
            qh[k] = hyper(*x, 0.0, 0.0);
        }
        let n = q.len();
        for c in (0..n).step_by(2) {
            qh[c].eps1 = 1.0;
            if c + 1 < n {
                qh[c + 1].eps2 = 1.0;
            }
            self.model.constraints(hyper(t, 0.0, 0.0), qh, phih);
            qh[c].eps1 = 0.0;
            for (r, p) in phih.iter().enumerate() {
                j[(r, c)] = p.eps1;
            }
            if c + 1 < n {
                qh[c + 1].eps2 = 0.0;
                for (r, p) in phih.iter().enumerate() {
                    j[(r, c + 1)] = p.eps2;
                }
            }
        }
    }

    /// `b = ∂φ/∂t`: one first-order dual in `t`.
    fn constraint_rate_bias(&self, t: f64, q: &[f64], b: &mut [f64]) {
        let ws = &mut *self.ws.borrow_mut();
        let Workspace { q1, phi1, .. } = ws;
        for (k, x) in q.iter().enumerate() {
            q1[k] = dual(*x, 0.0);
        }
        self.model.constraints(dual(t, 1.0), q1, phi1);
        for (r, p) in phi1.iter().enumerate() {
            b[r] = p.eps;
        }
    }

    /// `ρ = d²/dε² φ(t + ε, q + ε q̇)` at `ε = 0`: one second-order dual.
    fn constraint_accel_bias(&self, t: f64, q: &[f64], qd: &[f64], rho: &mut [f64]) {
        let ws = &mut *self.ws.borrow_mut();
        let Workspace { q2, phi2, .. } = ws;
        for k in 0..q.len() {
            q2[k] = Dual2_64::new(q[k], qd[k], 0.0);
        }
        self.model.constraints(Dual2_64::new(t, 1.0, 0.0), q2, phi2);
        for (r, p) in phi2.iter().enumerate() {
            rho[r] = p.v2;
        }
    }

    fn kinetic_energy(&self, q: &[f64], qd: &[f64]) -> Option<f64> {
        Some(self.model.kinetic_energy(q, qd))
    }

    fn potential_energy(&self, q: &[f64]) -> Option<f64> {
        Some(self.model.potential_energy(q))
    }
}

/// Built-in models written again in the generic form: the witnesses of the adapter (their
/// `M`, `h`, `J`, `b`, `ρ` equal the hand-written ones to ≤ 1e-13, `tests/autodiff_witness.rs`)
/// and the subjects of the cost bench (`benches/benches/autodiff.rs`).
pub mod witnesses {
    use super::{AutoDiffModel, Scalar};
    use crate::models::{AndrewsSqueezer, Pendulum, RedundantFourBar, SliderCrank};
    use crate::Mechanism;

    /// [`Pendulum`] as energies and constraints.
    #[derive(Debug, Clone, Copy, Default)]
    pub struct AdPendulum(pub Pendulum);
    impl AutoDiffModel for AdPendulum {
        fn name(&self) -> &str {
            "ad-pendulum"
        }
        fn dof(&self) -> usize {
            2
        }
        fn n_constraints(&self) -> usize {
            1
        }
        fn kinetic_energy<S: Scalar>(&self, _q: &[S], qd: &[S]) -> S {
            (qd[0] * qd[0] + qd[1] * qd[1]) * (0.5 * self.0.mass)
        }
        fn potential_energy<S: Scalar>(&self, q: &[S]) -> S {
            q[1] * (self.0.mass * self.0.gravity)
        }
        fn constraints<S: Scalar>(&self, _t: S, q: &[S], phi: &mut [S]) {
            phi[0] = q[0] * q[0] + q[1] * q[1] - self.0.length * self.0.length;
        }
    }

    /// [`SliderCrank`] as energies and constraints (its torque and slider force as applied forces).
    #[derive(Debug, Clone, Copy, Default)]
    pub struct AdSliderCrank(pub SliderCrank);
    impl AutoDiffModel for AdSliderCrank {
        fn name(&self) -> &str {
            "ad-slider-crank"
        }
        fn dof(&self) -> usize {
            3
        }
        fn n_constraints(&self) -> usize {
            2
        }
        fn kinetic_energy<S: Scalar>(&self, q: &[S], qd: &[S]) -> S {
            let p = &self.0;
            let (r, l, m1, m2) = (p.crank_length, p.rod_length, p.crank_mass, p.rod_mass);
            let c = (q[0] - q[1]).cos() * (0.5 * m2 * r * l);
            qd[0] * qd[0] * (0.5 * (m1 * r * r / 3.0 + m2 * r * r))
                + c * qd[0] * qd[1]
                + qd[1] * qd[1] * (0.5 * m2 * l * l / 3.0)
                + qd[2] * qd[2] * (0.5 * p.slider_mass)
        }
        fn potential_energy<S: Scalar>(&self, q: &[S]) -> S {
            let p = &self.0;
            let (r, l, m1, m2) = (p.crank_length, p.rod_length, p.crank_mass, p.rod_mass);
            (q[0].sin() * (m1 * 0.5 * r + m2 * r) + q[1].sin() * (m2 * 0.5 * l)) * p.gravity
        }
        fn applied_forces(&self, t: f64, q: &[f64], qd: &[f64], u: &mut [f64]) {
            self.0.applied_forces(t, q, qd, u)
        }
        fn constraints<S: Scalar>(&self, _t: S, q: &[S], phi: &mut [S]) {
            let (r, l) = (self.0.crank_length, self.0.rod_length);
            phi[0] = q[0].cos() * r + q[1].cos() * l - q[2];
            phi[1] = q[0].sin() * r + q[1].sin() * l;
        }
    }

    /// [`RedundantFourBar`] as energies and constraints (three rows, one redundant).
    #[derive(Debug, Clone, Copy, Default)]
    pub struct AdFourBar(pub RedundantFourBar);
    impl AutoDiffModel for AdFourBar {
        fn name(&self) -> &str {
            "ad-four-bar"
        }
        fn dof(&self) -> usize {
            3
        }
        fn n_constraints(&self) -> usize {
            3
        }
        fn kinetic_energy<S: Scalar>(&self, q: &[S], qd: &[S]) -> S {
            let p = &self.0;
            let (a, b, c) = (p.crank_length, p.coupler_length, p.rocker_length);
            let (m1, m2, m3) = (p.crank_mass, p.coupler_mass, p.rocker_mass);
            let m12 = (q[0] - q[1]).cos() * (0.5 * m2 * a * b);
            qd[0] * qd[0] * (0.5 * (m1 * a * a / 3.0 + m2 * a * a))
                + m12 * qd[0] * qd[1]
                + qd[1] * qd[1] * (0.5 * m2 * b * b / 3.0)
                + qd[2] * qd[2] * (0.5 * m3 * c * c / 3.0)
        }
        fn potential_energy<S: Scalar>(&self, q: &[S]) -> S {
            let p = &self.0;
            let (a, b, c) = (p.crank_length, p.coupler_length, p.rocker_length);
            let (m1, m2, m3) = (p.crank_mass, p.coupler_mass, p.rocker_mass);
            (q[0].sin() * (m1 * 0.5 * a + m2 * a)
                + q[1].sin() * (m2 * 0.5 * b)
                + q[2].sin() * (m3 * 0.5 * c))
                * p.gravity
        }
        fn applied_forces(&self, t: f64, q: &[f64], qd: &[f64], u: &mut [f64]) {
            self.0.applied_forces(t, q, qd, u)
        }
        fn constraints<S: Scalar>(&self, _t: S, q: &[S], phi: &mut [S]) {
            let p = &self.0;
            let (a, b, c, d) = (
                p.crank_length,
                p.coupler_length,
                p.rocker_length,
                p.ground_length,
            );
            phi[0] = q[0].cos() * a + q[1].cos() * b - q[2].cos() * c - d;
            phi[1] = q[0].sin() * a + q[1].sin() * b - q[2].sin() * c;
            let (sg, cg) = p.redundant_direction.sin_cos();
            phi[2] = phi[0] * cg + phi[1] * sg;
        }
    }

    /// [`AndrewsSqueezer`] as its kinetic energy (from the test set's mass matrix (7.8)) and
    /// constraints (7.9); the driving torque and the spring stay applied forces. Its `h` from
    /// Lagrange's equations is an independent check of the test set's velocity terms.
    #[derive(Debug, Clone, Copy, Default)]
    pub struct AdAndrews(pub AndrewsSqueezer);

    impl AutoDiffModel for AdAndrews {
        fn name(&self) -> &str {
            "ad-andrews"
        }
        fn dof(&self) -> usize {
            7
        }
        fn n_constraints(&self) -> usize {
            6
        }
        fn kinetic_energy<S: Scalar>(&self, q: &[S], qd: &[S]) -> S {
            self.0.kinetic_energy_generic(q, qd)
        }
        fn applied_forces(&self, t: f64, q: &[f64], qd: &[f64], u: &mut [f64]) {
            self.0.applied_forces(t, q, qd, u)
        }
        fn constraints<S: Scalar>(&self, _t: S, q: &[S], phi: &mut [S]) {
            self.0.constraints_generic(q, phi)
        }
    }
}
