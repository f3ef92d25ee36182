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
//! **Structure, detected once** (in [`AutoDiff::new`], at a probe configuration
//! `q_k = 0.1 + 0.01 k`, `q̇_k = 0.3 − 0.02 k`):
//!
//! * the pattern of `J`: row `i` depends on `q_k` when a NaN in `q_k` reaches `φ_i` (and
//!   wherever the `J` of the probe is nonzero), or [`AutoDiffModel::jacobian_pattern`] when the
//!   model declares it. The columns are then coloured so that no row has two columns of one
//!   colour (greedy, Curtis–Powell–Reid compression): `J` takes ⌈colours/8⌉ evaluations of `φ`
//!   instead of ⌈N/8⌉ (A02, natural coordinates: one, at every N);
//! * whether `T` depends on `q` (a NaN in `q` reaching `T`): when it does not (natural
//!   coordinates), `M` is constant — computed once, its pattern is its nonzeros — and
//!   `h = ∂V/∂q` (the other terms of Lagrange's equations vanish): ⌈N/8⌉ vector-dual
//!   evaluations of `V` per call.
//!
//! With both, [`Mechanism::sparsity`] declares the patterns and the sparse path of the solvers
//! applies. A model whose `φ` branches on `q` (a comparison, `max`, `min`) can hide a
//! dependence from the NaN probe: it declares its pattern.
//!
//! Every evaluation works in buffers allocated by [`AutoDiff::new`], taken from a small
//! lock-protected pool (like the kinematic trees), so `AutoDiff` is `Sync` and, once as many
//! calls have run at once as ever will, no call allocates. Bad values
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

use crate::pool::Pool;

use faer::MatMut;
use nalgebra::{Const, SVector, U1};
use num_dual::{Derivative, Dual, Dual2_64, Dual64, DualNum, DualSVec64, HyperDual64};

use crate::{ConstraintKind, Mechanism, SparsityPattern};

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
    /// The entries `(row, col)` of `J` that may be nonzero, when the model declares them
    /// (default `None`: [`AutoDiff`] finds them by a NaN probe, module documentation).
    fn jacobian_pattern(&self) -> Option<Vec<(usize, usize)>> {
        None
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
    /// `J` in the order of the detected pattern.
    jvals: Vec<f64>,
}

impl Workspace {
    fn new(n: usize, l: usize, nj: usize) -> Self {
        Self {
            q1: vec![Dual64::from(0.0); n],
            qd1: vec![Dual64::from(0.0); n],
            phi1: vec![Dual64::from(0.0); l],
            q2: vec![Dual2_64::from(0.0); n],
            phi2: vec![Dual2_64::from(0.0); l],
            qh: vec![HyperDual64::from(0.0); n],
            qdh: vec![HyperDual64::from(0.0); n],
            l4: Lanes::new(n.min(4), l),
            l8: Lanes::new(n, l),
            jvals: vec![0.0; nj],
        }
    }
}

/// What [`AutoDiff::new`] finds out about the model once (module documentation).
#[derive(Debug, Clone, Default)]
struct Structure {
    /// `M` (column-major N×N) when `T` does not depend on `q`.
    constant_mass: Option<Vec<f64>>,
    /// Upper-triangle nonzeros of the constant `M` and their values.
    mass_pattern: Vec<(usize, usize)>,
    mass_values: Vec<f64>,
    /// Entries of `J` that may be nonzero (sorted by row, then column).
    jacobian_pattern: Vec<(usize, usize)>,
    /// Colour of every column of `J` (no row has two columns of one colour).
    colors: Vec<usize>,
    n_colors: usize,
}

/// The probe configuration `q_k = 0.1 + 0.01 k`, `q̇_k = 0.3 − 0.02 k`.
fn probe(n: usize) -> (Vec<f64>, Vec<f64>) {
    let q = (0..n).map(|k| 0.1 + 0.01 * k as f64).collect();
    let qd = (0..n).map(|k| 0.3 - 0.02 * k as f64).collect();
    (q, qd)
}

/// Greedy colouring of the columns of the pattern: two columns sharing a row differ.
fn color_columns(n: usize, l: usize, pattern: &[(usize, usize)]) -> (Vec<usize>, usize) {
    let mut cols_of_row = vec![Vec::new(); l];
    let mut rows_of_col = vec![Vec::new(); n];
    for &(i, k) in pattern {
        cols_of_row[i].push(k);
        rows_of_col[k].push(i);
    }
    let mut colors = vec![usize::MAX; n];
    let mut used = Vec::new();
    let mut n_colors = 0;
    for k in 0..n {
        used.clear();
        for &i in &rows_of_col[k] {
            for &c in &cols_of_row[i] {
                if colors[c] != usize::MAX {
                    used.push(colors[c]);
                }
            }
        }
        let color = (0..).find(|c| !used.contains(c)).unwrap_or(0);
        colors[k] = color;
        n_colors = n_colors.max(color + 1);
    }
    (colors, n_colors)
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

    /// The values of `J` at `pattern` by column compression: every column of colour `c` is
    /// seeded in lane `c − c₀`, ⌈colours/W⌉ evaluations of `φ`; a row has at most one column
    /// of each colour, so lane `colour(k) − c₀` of `∂φ_i` is `J_ik`.
    #[allow(clippy::too_many_arguments)]
    fn jacobian_compressed<G: AutoDiffModel>(
        &mut self,
        g: &G,
        t: f64,
        q: &[f64],
        pattern: &[(usize, usize)],
        colors: &[usize],
        n_colors: usize,
        values: &mut [f64],
    ) {
        for c0 in (0..n_colors).step_by(W) {
            for (k, x) in q.iter().enumerate() {
                let lane = colors[k].checked_sub(c0).filter(|&d| d < W);
                self.q[k] = Self::var(*x, lane);
            }
            g.constraints(DualSVec64::from(t), &self.q, &mut self.phi);
            for (v, &(i, k)) in values.iter_mut().zip(pattern) {
                if let Some(d) = colors[k].checked_sub(c0).filter(|&d| d < W) {
                    *v = Self::lanes(&self.phi[i])[d];
                }
            }
        }
    }

    /// `∂V/∂q` in chunks of W coordinates: ⌈N/W⌉ evaluations of `V`.
    fn potential_gradient<G: AutoDiffModel>(&mut self, g: &G, q: &[f64], h: &mut [f64]) {
        let n = q.len();
        for c in (0..n).step_by(W) {
            let width = W.min(n - c);
            for (k, x) in q.iter().enumerate() {
                self.q[k] = Self::var(*x, (c..c + width).contains(&k).then(|| k - c));
            }
            let d = Self::lanes(&g.potential_energy(&self.q));
            h[c..c + width].copy_from_slice(&d.as_slice()[..width]);
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
    /// The workspaces ([`crate::pool`]: the model stays `Sync`).
    pool: Pool<Workspace>,
    structure: Structure,
}

impl<G: AutoDiffModel> AutoDiff<G> {
    /// Wraps `model`, allocating the dual workspaces once and detecting the structure of `J`
    /// and `M` at the probe configuration (module documentation).
    pub fn new(model: G) -> Self {
        let (n, l) = (model.dof(), model.n_constraints());
        let mut ad = Self {
            model,
            pool: Pool::new(Workspace::new(n, l, 0)),
            structure: Structure::default(),
        };
        let structure = ad.detect();
        ad.pool = Pool::new(Workspace::new(n, l, structure.jacobian_pattern.len()));
        ad.structure = structure;
        ad
    }

    /// The wrapped model.
    pub fn model(&self) -> &G {
        &self.model
    }

    /// Colours of the compressed `J` (evaluations of `φ` per `J`: ⌈colours/8⌉).
    pub fn jacobian_colors(&self) -> usize {
        self.structure.n_colors
    }

    /// Whether `T` was found independent of `q` (then `M` is computed once).
    pub fn has_constant_mass_matrix(&self) -> bool {
        self.structure.constant_mass.is_some()
    }

    /// The probes of the module documentation.
    fn detect(&self) -> Structure {
        let (n, l) = (self.model.dof(), self.model.n_constraints());
        let (q, qd) = probe(n);
        let mut qn = q.clone();
        // T depends on q_k when a NaN there reaches T
        let mut t_on_q = !self.model.kinetic_energy(&q, &qd).is_finite();
        for k in 0..n {
            if t_on_q {
                break;
            }
            qn[k] = f64::NAN;
            t_on_q = self.model.kinetic_energy(&qn, &qd).is_nan();
            qn[k] = q[k];
        }
        let mut jacobian_pattern = match self.model.jacobian_pattern() {
            Some(p) => p,
            None => {
                let mut p = Vec::new();
                let mut phi = vec![0.0; l];
                for k in 0..n {
                    qn[k] = f64::NAN;
                    self.model.constraints(0.0, &qn, &mut phi);
                    p.extend((0..l).filter(|&i| phi[i].is_nan()).map(|i| (i, k)));
                    qn[k] = q[k];
                }
                // and wherever the probe's J is nonzero (a dependence hidden from the NaN)
                let mut j = faer::Mat::<f64>::zeros(l, n);
                self.dense_jacobian(0.0, &q, j.as_mut());
                for k in 0..n {
                    p.extend((0..l).filter(|&i| j[(i, k)] != 0.0).map(|i| (i, k)));
                }
                p
            }
        };
        jacobian_pattern.sort_unstable();
        jacobian_pattern.dedup();
        let in_range = jacobian_pattern.iter().all(|&(i, k)| i < l && k < n);
        let (colors, n_colors) = if in_range {
            color_columns(n, l, &jacobian_pattern)
        } else {
            (vec![0; n], 0)
        };
        let mut st = Structure {
            jacobian_pattern,
            colors,
            n_colors,
            ..Structure::default()
        };
        if !t_on_q && in_range {
            let mut m = faer::Mat::<f64>::zeros(n, n);
            self.dense_mass(&q, m.as_mut());
            for c in 0..n {
                for r in 0..=c {
                    if r == c || m[(r, c)] != 0.0 {
                        st.mass_pattern.push((r, c));
                        st.mass_values.push(m[(r, c)]);
                    }
                }
            }
            st.constant_mass = Some((0..n * n).map(|p| m[(p % n, p / n)]).collect());
        }
        st
    }

    /// `M = ∂²T/∂q̇²`: N vector duals for N ≤ 8 (`Lanes::mass`); above, a hyper-dual per entry
    /// (`ε₁` on `q̇_i`, `ε₂` on `q̇_j`).
    fn dense_mass(&self, q: &[f64], mut m: MatMut<'_, f64>) {
        self.pool.with(|ws| {
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
        })
    }

    /// `J` by vector duals: one evaluation of `φ` for N ≤ 8, ⌈N/8⌉ above.
    fn dense_jacobian(&self, t: f64, q: &[f64], j: MatMut<'_, f64>) {
        self.pool.with(|ws| {
            if q.len() <= 4 {
                ws.l4.jacobian(&self.model, t, q, j)
            } else {
                ws.l8.jacobian(&self.model, t, q, j)
            }
        })
    }

    /// Whether the compressed `J` applies (a colouring of the pattern exists).
    fn compressed(&self) -> bool {
        self.structure.n_colors > 0 || self.structure.jacobian_pattern.is_empty()
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

    /// `M = ∂²T/∂q̇²`: the constant `M` when `T` does not depend on `q`; else N vector duals
    /// for N ≤ 8, a hyper-dual per entry above.
    fn mass_matrix(&self, q: &[f64], mut m: MatMut<'_, f64>) {
        match &self.structure.constant_mass {
            Some(mc) if q.len() > LANES => {
                let n = q.len();
                for c in 0..n {
                    for r in 0..n {
                        m[(r, c)] = mc[r + c * n];
                    }
                }
            }
            _ => self.dense_mass(q, m),
        }
    }

    /// `h = (∂²T/∂q̇∂q) q̇ − ∂T/∂q + ∂V/∂q`, Lagrange's equations with `q̈ = 0`: three vector
    /// dual evaluations for N ≤ 8 (`Lanes::bias`); above, `∂V/∂q` in chunks of 8 when `T` does
    /// not depend on `q` (the other terms vanish), else scalar hyper-duals and duals.
    fn bias_forces(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
        let constant = self.structure.constant_mass.is_some();
        self.pool.with(|ws| {
            let n = q.len();
            if n <= 4 {
                return ws.l4.bias(&self.model, q, qd, h);
            }
            if n <= LANES {
                return ws.l8.bias(&self.model, q, qd, h);
            }
            if constant {
                return ws.l8.potential_gradient(&self.model, q, h);
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
        })
    }

    fn applied_forces(&self, t: f64, q: &[f64], qd: &[f64], u: &mut [f64]) {
        self.model.applied_forces(t, q, qd, u)
    }

    fn constraints(&self, t: f64, q: &[f64], phi: &mut [f64]) {
        self.model.constraints(t, q, phi)
    }

    /// `J` by vector duals: one evaluation of `φ` for N ≤ 8; above, the compressed columns
    /// (⌈colours/8⌉ evaluations).
    fn constraint_jacobian(&self, t: f64, q: &[f64], mut j: MatMut<'_, f64>) {
        if q.len() <= LANES || !self.compressed() {
            return self.dense_jacobian(t, q, j);
        }
        let st = &self.structure;
        self.pool.with(|ws| {
            let Workspace { l8, jvals, .. } = ws;
            l8.jacobian_compressed(
                &self.model,
                t,
                q,
                &st.jacobian_pattern,
                &st.colors,
                st.n_colors,
                jvals,
            );
            j.fill(0.0);
            for (&(i, k), &v) in st.jacobian_pattern.iter().zip(jvals.iter()) {
                j[(i, k)] = v;
            }
        })
    }

    /// `b = ∂φ/∂t`: one first-order dual in `t`.
    fn constraint_rate_bias(&self, t: f64, q: &[f64], b: &mut [f64]) {
        self.pool.with(|ws| {
            let Workspace { q1, phi1, .. } = ws;
            for (k, x) in q.iter().enumerate() {
                q1[k] = dual(*x, 0.0);
            }
            self.model.constraints(dual(t, 1.0), q1, phi1);
            for (r, p) in phi1.iter().enumerate() {
                b[r] = p.eps;
            }
        })
    }

    /// `ρ = d²/dε² φ(t + ε, q + ε q̇)` at `ε = 0`: one second-order dual.
    fn constraint_accel_bias(&self, t: f64, q: &[f64], qd: &[f64], rho: &mut [f64]) {
        self.pool.with(|ws| {
            let Workspace { q2, phi2, .. } = ws;
            for k in 0..q.len() {
                q2[k] = Dual2_64::new(q[k], qd[k], 0.0);
            }
            self.model.constraints(Dual2_64::new(t, 1.0, 0.0), q2, phi2);
            for (r, p) in phi2.iter().enumerate() {
                rho[r] = p.v2;
            }
        })
    }

    fn kinetic_energy(&self, q: &[f64], qd: &[f64]) -> Option<f64> {
        Some(self.model.kinetic_energy(q, qd))
    }

    fn potential_energy(&self, q: &[f64]) -> Option<f64> {
        Some(self.model.potential_energy(q))
    }

    /// The detected patterns, when `M` is constant (module documentation); else `None` (the
    /// dense path).
    fn sparsity(&self) -> Option<SparsityPattern> {
        let st = &self.structure;
        st.constant_mass.as_ref()?;
        Some(SparsityPattern {
            mass: st.mass_pattern.clone(),
            jacobian: st.jacobian_pattern.clone(),
        })
    }

    fn mass_matrix_values(&self, _q: &[f64], values: &mut [f64]) {
        if self.structure.constant_mass.is_some()
            && values.len() == self.structure.mass_values.len()
        {
            values.copy_from_slice(&self.structure.mass_values);
        } else {
            values.fill(f64::NAN);
        }
    }

    fn constraint_jacobian_values(&self, t: f64, q: &[f64], values: &mut [f64]) {
        let st = &self.structure;
        if !self.compressed() || values.len() != st.jacobian_pattern.len() {
            return values.fill(f64::NAN);
        }
        self.pool.with(|ws| {
            ws.l8.jacobian_compressed(
                &self.model,
                t,
                q,
                &st.jacobian_pattern,
                &st.colors,
                st.n_colors,
                values,
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::NFourBar;
    use faer::Mat;

    /// A02 (`NFourBar`) written as energies and constraints.
    struct FourBars {
        n: usize,
    }

    impl AutoDiffModel for FourBars {
        fn dof(&self) -> usize {
            2 * self.n + 2
        }
        fn n_constraints(&self) -> usize {
            2 * self.n + 1
        }
        fn kinetic_energy<S: Scalar>(&self, _q: &[S], v: &[S]) -> S {
            let mut t = S::from(0.0);
            for i in 0..=self.n {
                t += (v[2 * i] * v[2 * i] + v[2 * i + 1] * v[2 * i + 1]) / 6.0;
            }
            for i in 1..=self.n {
                let (a, b) = (&v[2 * i - 2..2 * i], &v[2 * i..2 * i + 2]);
                t += (a[0] * a[0]
                    + a[1] * a[1]
                    + a[0] * b[0]
                    + a[1] * b[1]
                    + b[0] * b[0]
                    + b[1] * b[1])
                    / 6.0;
            }
            t
        }
        fn potential_energy<S: Scalar>(&self, q: &[S]) -> S {
            let mut v = S::from(0.0);
            for i in 0..=self.n {
                let ends = 1 + usize::from(i > 0) + usize::from(i < self.n);
                v += q[2 * i + 1] * (4.905 * ends as f64);
            }
            v
        }
        fn constraints<S: Scalar>(&self, _t: S, q: &[S], phi: &mut [S]) {
            for i in 0..=self.n {
                let dx = q[2 * i] - i as f64;
                phi[i] = dx * dx + q[2 * i + 1] * q[2 * i + 1] - 1.0;
            }
            for i in 1..=self.n {
                let (dx, dy) = (q[2 * i] - q[2 * i - 2], q[2 * i + 1] - q[2 * i - 1]);
                phi[self.n + i] = dx * dx + dy * dy - 1.0;
            }
        }
    }

    fn dense<M: Mechanism>(
        m: &M,
        q: &[f64],
        qd: &[f64],
    ) -> (Mat<f64>, Mat<f64>, Vec<f64>, Vec<f64>) {
        let (n, l) = (m.dof(), m.n_constraints());
        let (mut mm, mut j) = (Mat::zeros(n, n), Mat::zeros(l, n));
        let (mut h, mut rho) = (vec![0.0; n], vec![0.0; l]);
        m.mass_matrix(q, mm.as_mut());
        m.constraint_jacobian(0.3, q, j.as_mut());
        m.bias_forces(q, qd, &mut h);
        m.constraint_accel_bias(0.3, q, qd, &mut rho);
        (mm, j, h, rho)
    }

    /// The probes find A02's structure: `M` constant, `J` with two or four entries per row in
    /// few colours (one evaluation of `φ` per `J` at every N); the values (dense and in pattern
    /// order) equal the hand-written model's (an independent witness) to round-off.
    #[test]
    fn detected_structure_of_a02_matches_the_hand_written_model() {
        for n in [1usize, 3, 10, 40] {
            let ad = AutoDiff::new(FourBars { n });
            let hand = NFourBar::new(n);
            assert!(ad.has_constant_mass_matrix());
            assert!(ad.jacobian_colors() <= LANES, "{}", ad.jacobian_colors());
            let sp = ad.sparsity().unwrap();
            assert_eq!(sp.jacobian.len(), 6 * n + 2);
            let (q, qd) = hand.state(0.7, -3.0);
            let q: Vec<f64> = q
                .iter()
                .enumerate()
                .map(|(k, v)| v + 1e-3 * (k as f64).sin())
                .collect();
            let (m1, j1, h1, r1) = dense(&ad, &q, &qd);
            let (m2, j2, h2, r2) = dense(&hand, &q, &qd);
            assert!((&m1 - &m2).norm_max() < 1e-14);
            assert!((&j1 - &j2).norm_max() < 1e-14);
            let dh = h1
                .iter()
                .zip(&h2)
                .fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
            let dr = r1
                .iter()
                .zip(&r2)
                .fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
            assert!(dh < 1e-12 && dr < 1e-12, "{dh:e} {dr:e}");
            // pattern order: scattered back, the dense matrices
            let mut mv = vec![0.0; sp.mass.len()];
            let mut jv = vec![0.0; sp.jacobian.len()];
            ad.mass_matrix_values(&q, &mut mv);
            ad.constraint_jacobian_values(0.3, &q, &mut jv);
            let (mut ms, mut js) = (
                Mat::<f64>::zeros(m2.nrows(), m2.ncols()),
                Mat::<f64>::zeros(j2.nrows(), j2.ncols()),
            );
            for (&(r, c), &v) in sp.mass.iter().zip(&mv) {
                ms[(r, c)] += v;
                if r != c {
                    ms[(c, r)] += v;
                }
            }
            for (&(r, c), &v) in sp.jacobian.iter().zip(&jv) {
                js[(r, c)] += v;
            }
            assert!((&ms - &m2).norm_max() < 1e-14 && (&js - &j2).norm_max() < 1e-14);
        }
    }

    /// A model whose `T` depends on `q` keeps the dense path (no pattern declared).
    #[test]
    fn configuration_dependent_mass_matrix_has_no_pattern() {
        let ad = AutoDiff::new(crate::models::witnesses::AdSliderCrank::default());
        assert!(!ad.has_constant_mass_matrix() && ad.sparsity().is_none());
    }

    /// One `AutoDiff` shared by four threads (it is `Sync`): every thread's `M`, `h`, `J`, `ρ`
    /// are bit-identical to the serial ones.
    #[test]
    fn shared_across_threads_bit_identical_to_serial() {
        fn is_sync<T: Sync>(_: &T) {}
        let ad = AutoDiff::new(FourBars { n: 12 });
        is_sync(&ad);
        let hand = NFourBar::new(12);
        let states: Vec<_> = (0..8)
            .map(|k| hand.state(0.2 * k as f64, 1.0 - 0.3 * k as f64))
            .collect();
        let serial: Vec<_> = states.iter().map(|(q, qd)| dense(&ad, q, qd)).collect();
        std::thread::scope(|s| {
            for t in 0..4 {
                let (ad, states, serial) = (&ad, &states, &serial);
                s.spawn(move || {
                    for rep in 0..50 {
                        let k = (t + rep) % states.len();
                        let (m, j, h, r) = dense(ad, &states[k].0, &states[k].1);
                        let (m0, j0, h0, r0) = &serial[k];
                        assert!(
                            m == *m0 && j == *j0 && h == *h0 && r == *r0,
                            "thread {t} state {k}"
                        );
                    }
                });
            }
        });
    }
}
