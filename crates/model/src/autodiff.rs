//! Write the model once: energies and constraints for any scalar, derivatives by automatic
//! differentiation ([`num_dual`]), no finite differences anywhere.
//!
//! A user implements [`AutoDiffModel`] — the kinetic energy `T(q, q̇)`, the potential `V(q)` and
//! the constraints `φ(t, q)`, each written once for any [`Scalar`] — and wraps it in
//! [`AutoDiff`], which is a [`Mechanism`]:
//!
//! ```text
//! J = ∂φ/∂q                     one vector dual for N ≤ 8 (all columns of J in one
//!                               evaluation of φ); ⌈N/8⌉ above
//! b = ∂φ/∂t                     one first-order dual in t
//! ρ = d²/dε² φ(t + ε, q + ε q̇)   one second-order dual:  J̇q̇ + 2 ∂J/∂t q̇ + ∂²φ/∂t²
//! M = ∂²T/∂q̇²                   N vector duals in q̇ (column j = ∂T/∂q̇ at q̇ = e_j)
//! h = (∂²T/∂q̇∂q) q̇ − ∂T/∂q + ∂V/∂q   Lagrange's equations at q̈ = 0: one dual in ε over
//!                               vector duals in q̇ (q = q₀ + ε q̇), one vector dual in q
//! ```
//!
//! Above N = 8 the energies fall back to scalar hyper-duals (N(N+1)/2 + N passes of T). The
//! vector duals are [`num_dual`]'s `DualSVec64<W>` (stack storage, `Copy`; W = 4 for N ≤ 4,
//! 8 above): on Andrews' squeezer (N = 7, L = 6) the automatic `J + ρ` is two evaluations of φ
//! instead of five, about 1.9× the hand-written code (`benches/benches/autodiff.rs` measures
//! the ratio).
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
use nalgebra::{Const, SVector, U1};
use num_dual::{Derivative, Dual, Dual2_64, Dual64, DualNum, DualSVec64, HyperDual64};

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
    /// Vector duals of 4 lanes, for N ≤ 4.
    l4: Lanes<4>,
    /// Vector duals of 8 lanes, for N ≤ 8 (and `J` in chunks of 8 columns above).
    l8: Lanes<8>,
}

/// The widest vector dual: up to this N, `M` and `h` take vector duals; above, `J` takes
/// ⌈N/8⌉ evaluations of `φ` and `M`, `h` scalar hyper-duals.
const LANES: usize = 8;

/// Scratch of the vector duals of `W` lanes ([`num_dual`]'s `DualSVec64<W>`: stack storage,
/// `Copy`).
#[derive(Debug, Clone)]
struct Lanes<const W: usize> {
    q: Vec<DualSVec64<W>>,
    qd: Vec<DualSVec64<W>>,
    phi: Vec<DualSVec64<W>>,
    qe: Vec<Dual<DualSVec64<W>>>,
    qde: Vec<Dual<DualSVec64<W>>>,
}

impl<const W: usize> Lanes<W> {
    fn new(n: usize, l: usize) -> Self {
        let z = DualSVec64::<W>::from(0.0);
        Self {
            q: vec![z; n],
            qd: vec![z; n],
            phi: vec![z; l],
            qe: vec![Dual::from(0.0); n],
            qde: vec![Dual::from(0.0); n],
        }
    }

    /// A vector dual with value `re` and derivative lane `lane` set to 1 (`None`: a constant).
    fn var(re: f64, lane: Option<usize>) -> DualSVec64<W> {
        match lane {
            Some(i) => DualSVec64::new(re, Derivative::derivative_generic(Const::<W>, U1, i)),
            None => DualSVec64::from(re),
        }
    }

    /// The derivative lanes of a vector dual (zeros for a constant).
    fn lanes(x: &DualSVec64<W>) -> SVector<f64, W> {
        x.eps.unwrap_generic(Const::<W>, U1)
    }

    /// Columns `c … c + W − 1` of `J` per evaluation of `φ`: lane `k − c` on `q_k`.
    fn jacobian<G: AutoDiffModel>(&mut self, g: &G, t: f64, q: &[f64], mut j: MatMut<'_, f64>) {
        let n = q.len();
        for c in (0..n).step_by(W) {
            let width = W.min(n - c);
            for (k, x) in q.iter().enumerate() {
                self.q[k] = Self::var(*x, (c..c + width).contains(&k).then(|| k - c));
            }
            g.constraints(DualSVec64::from(t), &self.q, &mut self.phi);
            for (r, p) in self.phi.iter().enumerate() {
                let d = Self::lanes(p);
                for i in 0..width {
                    j[(r, c + i)] = d[i];
                }
            }
        }
    }

    /// `M` for N ≤ W: column `j` is the gradient `∂T/∂q̇ = M q̇` at `q̇ = e_j` (T is quadratic
    /// in `q̇`), one vector dual in `q̇` per column.
    fn mass<G: AutoDiffModel>(&mut self, g: &G, q: &[f64], mut m: MatMut<'_, f64>) {
        let n = q.len();
        for k in 0..n {
            self.q[k] = DualSVec64::from(q[k]);
        }
        for j in 0..n {
            for k in 0..n {
                self.qd[k] = Self::var(if k == j { 1.0 } else { 0.0 }, Some(k));
            }
            let col = Self::lanes(&g.kinetic_energy(&self.q, &self.qd));
            for i in 0..n {
                m[(i, j)] = col[i];
            }
        }
    }

    /// `h` for N ≤ W: the mixed term `d/dε ∂T/∂q̇ (q + ε q̇, q̇)` from one dual in `ε` over
    /// vector duals in `q̇`, and `∂(V − T)/∂q` from one vector dual in `q`.
    fn bias<G: AutoDiffModel>(&mut self, g: &G, q: &[f64], qd: &[f64], h: &mut [f64]) {
        let n = q.len();
        for k in 0..n {
            self.qe[k] = Dual::new(DualSVec64::from(q[k]), DualSVec64::from(qd[k]));
            self.qde[k] = Dual::new(Self::var(qd[k], Some(k)), DualSVec64::from(0.0));
            self.q[k] = Self::var(q[k], Some(k));
            self.qd[k] = DualSVec64::from(qd[k]);
        }
        let mixed = Self::lanes(&g.kinetic_energy(&self.qe, &self.qde).eps);
        let dt = Self::lanes(&g.kinetic_energy(&self.q, &self.qd));
        let dv = Self::lanes(&g.potential_energy(&self.q));
        for i in 0..n {
            h[i] = mixed[i] - dt[i] + dv[i];
        }
    }
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
            l4: Lanes::new(n.min(4), l),
            l8: Lanes::new(n, l),
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

    /// `M = ∂²T/∂q̇²`: N vector duals for N ≤ 8 (`Lanes::mass`); above, a hyper-dual per entry
    /// (`ε₁` on `q̇_i`, `ε₂` on `q̇_j`).
    fn mass_matrix(&self, q: &[f64], mut m: MatMut<'_, f64>) {
        let ws = &mut *self.ws.borrow_mut();
        let n = q.len();
        if n <= 4 {
            return ws.l4.mass(&self.model, q, m);
        }
        if n <= LANES {
            return ws.l8.mass(&self.model, q, m);
        }
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

    /// `h = (∂²T/∂q̇∂q) q̇ − ∂T/∂q + ∂V/∂q`, Lagrange's equations with `q̈ = 0`: three vector
    /// dual evaluations for N ≤ 8 (`Lanes::bias`); above, scalar hyper-duals and duals.
    fn bias_forces(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
        let ws = &mut *self.ws.borrow_mut();
        let n = q.len();
        if n <= 4 {
            return ws.l4.bias(&self.model, q, qd, h);
        }
        if n <= LANES {
            return ws.l8.bias(&self.model, q, qd, h);
        }
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

    /// `J` by vector duals: one evaluation of `φ` for N ≤ 8, ⌈N/8⌉ above.
    fn constraint_jacobian(&self, t: f64, q: &[f64], j: MatMut<'_, f64>) {
        let ws = &mut *self.ws.borrow_mut();
        if q.len() <= 4 {
            ws.l4.jacobian(&self.model, t, q, j)
        } else {
            ws.l8.jacobian(&self.model, t, q, j)
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
