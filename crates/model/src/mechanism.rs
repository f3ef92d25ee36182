//! The [`Mechanism`] trait (ARCHITECTURE.md, "The mechanical system"), the
//! [`Controller`] trait and the [`WithController`] wrapper.
//!
//! ```text
//! M(q) q̈ + h(q, q̇) = u(t, q, q̇) + J(q)ᵀ λ        φ(t, q) = 0   (bilateral rows)
//!                                                  φ(t, q) ≥ 0, λ ≥ 0, λ·φ = 0   (unilateral rows)
//! J = ∂φ/∂q,   φ̇ = J q̇ + b  (b = ∂φ/∂t),   φ̈ = J q̈ + ρ(t, q, q̇)
//! ```
//!
//! This is Keerthi (1.1)–(1.4) with `H = h − u` and the sign of λ chosen so
//! that `Jᵀλ` is the constraint force on the right-hand side, as in
//! Huang (2.2.13) (`M q̈ + F = T + JᵀDᵀλ`).

use faer::MatMut;
use serde::{Deserialize, Serialize};

/// Kind of one constraint row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConstraintKind {
    /// `φ_i(t, q) = 0` with a multiplier of either sign.
    Bilateral,
    /// `φ_i(t, q) ≥ 0`, `λ_i ≥ 0`, `λ_i φ_i = 0` (Huang (6.1.3)).
    Unilateral,
}

/// The nonzero pattern of `M` and `J` of a sparse mechanism ([`Mechanism::sparsity`]), fixed
/// for the whole motion: the sparse solvers analyse it once and then take the values in this
/// order at every evaluation ([`Mechanism::mass_matrix_values`],
/// [`Mechanism::constraint_jacobian_values`]).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SparsityPattern {
    /// Entries `(row, col)` of the upper triangle of `M` (`row ≤ col`), every diagonal entry
    /// among them; an entry listed twice is the sum of its values.
    pub mass: Vec<(usize, usize)>,
    /// Entries `(row, col)` of `J` (L×N) that may be nonzero.
    pub jacobian: Vec<(usize, usize)>,
}

impl SparsityPattern {
    /// Checks the declared pattern against the dense matrices, once before a sparse run: at
    /// `(t, q)` and at two states with every coordinate moved by `±1e-2 (1 + |q_k|)` (so that
    /// an entry that vanishes at `q` by coincidence, e.g. a `cos θ` at `θ = π/2`, is seen),
    /// every entry of `J` and of the upper triangle of `M` larger than `1e-12` of its matrix's
    /// largest entry must be in the pattern, and [`Mechanism::mass_matrix_values`] /
    /// [`Mechanism::constraint_jacobian_values`] must give the dense values at the pattern's
    /// entries (duplicates summed) to `1e-10` of that scale.
    ///
    /// Errors: [`crate::ModelError::UndeclaredSparsity`] with the first missing entry,
    /// [`crate::ModelError::SparseValuesMismatch`] with the first wrong value,
    /// [`crate::ModelError::DimensionMismatch`] for an entry outside the matrix. Allocates
    /// (dense `M` and `J`); its cost is measured in `benches/results/options_2026-11-28.md`.
    pub fn verify<M: Mechanism + ?Sized>(
        &self,
        mech: &M,
        t: f64,
        q: &[f64],
    ) -> Result<(), crate::ModelError> {
        let (n, l) = (mech.dof(), mech.n_constraints());
        crate::validate::check_len("q", q, n)?;
        for (what, entries, rows) in [
            ("sparsity pattern: mass row", &self.mass, n),
            ("sparsity pattern: jacobian row", &self.jacobian, l),
        ] {
            if let Some(&(r, c)) = entries.iter().find(|&&(r, c)| r >= rows || c >= n) {
                let (expected, found) = if r >= rows { (rows, r) } else { (n, c) };
                return Err(crate::ModelError::DimensionMismatch {
                    what,
                    expected,
                    found,
                });
            }
        }
        let mut m = faer::Mat::<f64>::zeros(n, n);
        let mut j = faer::Mat::<f64>::zeros(l, n);
        let mut dm = vec![0.0; n * n];
        let mut dj = vec![0.0; l * n];
        let mut mv = vec![0.0; self.mass.len()];
        let mut jv = vec![0.0; self.jacobian.len()];
        let mut qp = q.to_vec();
        for probe in 0..3 {
            for (k, (x, &q0)) in qp.iter_mut().zip(q).enumerate() {
                // a fixed pattern of signs and sizes in [-1, 1] per coordinate and probe
                let w = ((k * 7 + probe * 13) % 17) as f64 / 8.0 - 1.0;
                *x = if probe == 0 {
                    q0
                } else {
                    q0 + 1e-2 * (1.0 + q0.abs()) * w
                };
            }
            mech.mass_matrix(&qp, m.as_mut());
            mech.constraint_jacobian(t, &qp, j.as_mut());
            mech.mass_matrix_values(&qp, &mut mv);
            mech.constraint_jacobian_values(t, &qp, &mut jv);
            check_declared("mass matrix", &m, &self.mass, &mv, &mut dm, true)?;
            check_declared("jacobian", &j, &self.jacobian, &jv, &mut dj, false)?;
        }
        Ok(())
    }
}

/// One matrix of [`SparsityPattern::verify`]: `declared` (column-major, the size of `dense`)
/// receives the sum of `values` at the pattern's entries, NaN elsewhere; then every entry (the
/// upper triangle only for `upper`) is compared, column by column.
fn check_declared(
    matrix: &'static str,
    dense: &faer::Mat<f64>,
    entries: &[(usize, usize)],
    values: &[f64],
    declared: &mut [f64],
    upper: bool,
) -> Result<(), crate::ModelError> {
    let nr = dense.nrows();
    declared.fill(f64::NAN);
    for &(r, c) in entries {
        declared[r + c * nr] = 0.0;
    }
    for (&(r, c), v) in entries.iter().zip(values) {
        declared[r + c * nr] += v;
    }
    let scale = (0..dense.ncols())
        .flat_map(|c| dense.col_as_slice(c))
        .fold(0.0f64, |m, x| m.max(x.abs()));
    for c in 0..dense.ncols() {
        let rows = if upper { (c + 1).min(nr) } else { nr };
        let col = &dense.col_as_slice(c)[..rows];
        for (r, (&value, &given)) in col.iter().zip(&declared[c * nr..]).enumerate() {
            if given.is_nan() {
                if value.abs() > 1e-12 * scale || !value.is_finite() {
                    return Err(crate::ModelError::UndeclaredSparsity {
                        matrix,
                        row: r,
                        col: c,
                        value,
                    });
                }
            } else if (given - value).abs() > 1e-10 * scale || !given.is_finite() {
                return Err(crate::ModelError::SparseValuesMismatch {
                    matrix,
                    row: r,
                    col: c,
                    value: given,
                    dense: value,
                });
            }
        }
    }
    Ok(())
}

/// A holonomically constrained mechanical system
/// `M(q) q̈ + h(q, q̇) = u(t, q, q̇) + J(q)ᵀλ`, `φ(t, q) = 0` (or `≥ 0`).
///
/// Dimensions: `q, q̇, h, u` have length [`dof`](Mechanism::dof) = N;
/// `φ, b, ρ, λ` have length [`n_constraints`](Mechanism::n_constraints) = L;
/// `M` is N×N and `J` is L×N. Implementations may assume that every slice and
/// matrix they receive has these dimensions (callers check them, see
/// [`crate::validate`]) and must overwrite every entry of every output.
///
/// **Outputs do not arrive zeroed.** `M`, `J` and every output slice hold whatever the caller's
/// workspace held last (the drivers reuse their buffers so that a step does not allocate):
/// write every entry, e.g. start with `m.fill(0.0)` when only a few are non-zero.
///
/// **What you must implement.** [`name`](Mechanism::name), [`dof`](Mechanism::dof),
/// [`mass_matrix`](Mechanism::mass_matrix) and [`bias_forces`](Mechanism::bias_forces). An
/// unconstrained model stops there: `n_constraints` defaults to 0 and the three constraint
/// methods default to writing nothing into their (empty) outputs. A constrained model
/// overrides [`n_constraints`](Mechanism::n_constraints), [`constraints`](Mechanism::constraints),
/// [`constraint_jacobian`](Mechanism::constraint_jacobian) and
/// [`constraint_accel_bias`](Mechanism::constraint_accel_bias) (plus
/// [`constraint_rate_bias`](Mechanism::constraint_rate_bias) when `φ` depends on `t`); should
/// one of the three be forgotten, its default fills the output with NaN, so the first
/// evaluation ends in a typed non-finite error instead of a silently wrong zero. Check the
/// derivatives you wrote with [`crate::testing`] (`check_jacobian`, `check_accel_bias`).
///
/// The trait is object safe: `&dyn Mechanism` and `Box<dyn Mechanism>` work.
pub trait Mechanism {
    /// Short name used in reports, e.g. `"keerthi-robot"`.
    fn name(&self) -> &str;

    /// Number N of generalized coordinates.
    fn dof(&self) -> usize;

    /// Number L of constraint rows (default 0: an open chain, no constraint methods needed).
    fn n_constraints(&self) -> usize {
        0
    }

    /// Kind of constraint row `row` (default: every row is bilateral).
    fn constraint_kind(&self, row: usize) -> ConstraintKind {
        let _ = row;
        ConstraintKind::Bilateral
    }

    /// Mass matrix `M(q)` (N×N, symmetric positive definite); every entry is written.
    fn mass_matrix(&self, q: &[f64], m: MatMut<'_, f64>);

    /// Bias forces `h(q, q̇)`: Coriolis, centripetal and gravity terms,
    /// so that `M q̈ + h = u + Jᵀλ` (Keerthi's `H` without the input).
    fn bias_forces(&self, q: &[f64], qd: &[f64], h: &mut [f64]);

    /// Applied generalized forces `u(t, q, q̇)` (actuators; default zero).
    fn applied_forces(&self, t: f64, q: &[f64], qd: &[f64], u: &mut [f64]) {
        let _ = (t, q, qd);
        u.fill(0.0);
    }

    /// Constraint values `φ(t, q)` (length L). The default (for L = 0) writes NaN into any
    /// row, so a constrained model that forgets it fails with a typed error.
    fn constraints(&self, t: f64, q: &[f64], phi: &mut [f64]) {
        let _ = (t, q);
        phi.fill(f64::NAN);
    }

    /// Constraint Jacobian `J(t, q) = ∂φ/∂q` (L×N); every entry is written. The default (for
    /// L = 0) writes NaN into any entry.
    fn constraint_jacobian(&self, t: f64, q: &[f64], mut j: MatMut<'_, f64>) {
        let _ = (t, q);
        j.fill(f64::NAN);
    }

    /// Rate bias `b = ∂φ/∂t`, so that `φ̇ = J q̇ + b` (default zero: scleronomic constraints).
    fn constraint_rate_bias(&self, t: f64, q: &[f64], b: &mut [f64]) {
        let _ = (t, q);
        b.fill(0.0);
    }

    /// Acceleration bias `ρ(t, q, q̇)` with `φ̈ = J q̈ + ρ`, i.e.
    /// `ρ = J̇ q̇ + ∂b/∂q q̇ + ∂b/∂t` (Keerthi (1.4): `J q̈ + ρ = 0`).
    ///
    /// The default (for L = 0) writes NaN into any row.
    fn constraint_accel_bias(&self, t: f64, q: &[f64], qd: &[f64], rho: &mut [f64]) {
        let _ = (t, q, qd);
        rho.fill(f64::NAN);
    }

    /// `J(t, q)` and `ρ(t, q, q̇)` in one call, as [`Mechanism::constraint_jacobian`] followed
    /// by [`Mechanism::constraint_accel_bias`] (the default). [`crate::ConstrainedDynamics`]
    /// needs both at the same state; a model whose two share work (the sines and cosines of
    /// its angles, the forward kinematics of a tree) overrides this to do that work once. The
    /// values must be those of the two separate calls.
    fn constraint_jacobian_and_accel_bias(
        &self,
        t: f64,
        q: &[f64],
        qd: &[f64],
        j: MatMut<'_, f64>,
        rho: &mut [f64],
    ) {
        self.constraint_jacobian(t, q, j);
        self.constraint_accel_bias(t, q, qd, rho);
    }

    /// `φ(t, q)`, `J(t, q)` and `b(t, q)` in one call, as [`Mechanism::constraints`],
    /// [`Mechanism::constraint_jacobian`] and [`Mechanism::constraint_rate_bias`] (the
    /// default). The constraint monitor (`φ` and `φ̇ = J q̇ + b`, Keerthi (1.6)) needs the
    /// three at every accepted step; a model whose rows share work (sines and cosines) overrides
    /// this to do it once. The values must be those of the separate calls.
    fn constraints_jacobian_and_rate_bias(
        &self,
        t: f64,
        q: &[f64],
        phi: &mut [f64],
        j: MatMut<'_, f64>,
        b: &mut [f64],
    ) {
        self.constraints(t, q, phi);
        self.constraint_jacobian(t, q, j);
        self.constraint_rate_bias(t, q, b);
    }

    /// Kinetic energy `½ q̇ᵀ M(q) q̇`, if the model provides it.
    ///
    /// The default returns `None` rather than evaluating `M` because that would
    /// allocate an N×N matrix; every model of this crate overrides it.
    fn kinetic_energy(&self, q: &[f64], qd: &[f64]) -> Option<f64> {
        let _ = (q, qd);
        None
    }

    /// Potential energy `V(q)` of the conservative part of `h`
    /// (`∂V/∂q` = the gravity part of `h`), if the model provides it.
    fn potential_energy(&self, q: &[f64]) -> Option<f64> {
        let _ = q;
        None
    }

    /// Unconstrained forward dynamics `q̈ = M(q)⁻¹ (τ − h(q, q̇))` by an algorithm that does not
    /// form `M`, when the model has one: [`crate::tree::KinematicTree`] answers with the O(N)
    /// articulated-body algorithm (RBDA Table 7.1). `None` (the default) means "factor `M`":
    /// [`crate::ConstrainedDynamics`] then uses `M` and `h` as before. Used only where no
    /// constraint row is present (`L = 0`, or the unconstrained accelerations).
    fn fast_forward_dynamics(
        &self,
        q: &[f64],
        qd: &[f64],
        tau: &[f64],
        qdd: &mut [f64],
    ) -> Option<Result<(), crate::ModelError>> {
        let _ = (q, qd, tau, qdd);
        None
    }

    /// Inverse dynamics `τ = M(q) q̈ + h(q, q̇)` (gravity included, the applied forces not) by
    /// an algorithm that does not form `M`, when the model has one:
    /// [`crate::tree::KinematicTree`] answers with one RNEA pass with `q̈` (RBDA Table 5.1).
    /// `None` (the default) means "use `M` and `h`" (the caller forms `M q̈ + h` itself, no
    /// allocation here). Lengths are the caller's to check.
    fn fast_inverse_dynamics(
        &self,
        q: &[f64],
        qd: &[f64],
        qdd: &[f64],
        tau: &mut [f64],
    ) -> Option<()> {
        let _ = (q, qd, qdd, tau);
        None
    }

    /// The coefficients of the inverse dynamics along a curve `q = Q(s)` (Huang (4.3.6),
    /// (4.3.24)): with `q̇ = q' ṡ` and `q̈ = q' s̈ + q'' ṡ²`,
    /// `M(q) q̈ + h(q, q̇) = a s̈ + b ṡ² + c` with `a = M(q) q'`,
    /// `b = M(q) q'' + h(q, q') − h(q, 0)` and `c = h(q, 0)` (h quadratic in q̇), by an
    /// algorithm that does not form `M`, when the model has one: [`crate::tree::KinematicTree`]
    /// answers with three RNEAs (RBDA Table 5.1) sharing one forward kinematics. `None` (the
    /// default) means "use `M` and `h`" (the caller forms them, as it did before this method
    /// existed). Lengths are the caller's to check.
    fn fast_path_coefficients(
        &self,
        q: &[f64],
        dq_ds: &[f64],
        d2q_ds2: &[f64],
        a: &mut [f64],
        b: &mut [f64],
        c: &mut [f64],
    ) -> Option<()> {
        let _ = (q, dq_ds, d2q_ds2, a, b, c);
        None
    }

    /// The nonzero pattern of `M` and `J`, when the model is sparse (natural coordinates, many
    /// bodies): the sparse path of the solvers then factors them with sparse factorizations
    /// whose symbolic analysis is done once. `None` (the default): the model is treated as
    /// dense and [`Mechanism::mass_matrix_values`] / [`Mechanism::constraint_jacobian_values`]
    /// are never called. The pattern must not depend on the state.
    fn sparsity(&self) -> Option<SparsityPattern> {
        None
    }

    /// The values of `M(q)` at the entries of [`SparsityPattern::mass`], in that order. The
    /// default (for a model without a pattern) writes NaN.
    fn mass_matrix_values(&self, q: &[f64], values: &mut [f64]) {
        let _ = q;
        values.fill(f64::NAN);
    }

    /// The values of `J(t, q)` at the entries of [`SparsityPattern::jacobian`], in that order.
    /// The default (for a model without a pattern) writes NaN.
    fn constraint_jacobian_values(&self, t: f64, q: &[f64], values: &mut [f64]) {
        let _ = (t, q);
        values.fill(f64::NAN);
    }

    /// Checks the model's own parameters (lengths and masses positive and finite, other
    /// parameters finite): [`crate::ModelError::InvalidParameter`] naming the field. Models
    /// have public fields, so this runs where they are used: by
    /// [`crate::ConstrainedDynamics`] at every evaluation (a few comparisons, no allocation),
    /// by [`crate::ConstrainedDynamics::with_options`] and by [`crate::consistent_state`].
    /// The default accepts everything.
    fn validate(&self) -> Result<(), crate::ModelError> {
        Ok(())
    }
}

macro_rules! forward_mechanism {
    () => {
        fn name(&self) -> &str {
            (**self).name()
        }
        fn dof(&self) -> usize {
            (**self).dof()
        }
        fn n_constraints(&self) -> usize {
            (**self).n_constraints()
        }
        fn constraint_kind(&self, row: usize) -> ConstraintKind {
            (**self).constraint_kind(row)
        }
        fn mass_matrix(&self, q: &[f64], m: MatMut<'_, f64>) {
            (**self).mass_matrix(q, m)
        }
        fn bias_forces(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
            (**self).bias_forces(q, qd, h)
        }
        fn applied_forces(&self, t: f64, q: &[f64], qd: &[f64], u: &mut [f64]) {
            (**self).applied_forces(t, q, qd, u)
        }
        fn constraints(&self, t: f64, q: &[f64], phi: &mut [f64]) {
            (**self).constraints(t, q, phi)
        }
        fn constraint_jacobian(&self, t: f64, q: &[f64], j: MatMut<'_, f64>) {
            (**self).constraint_jacobian(t, q, j)
        }
        fn constraint_rate_bias(&self, t: f64, q: &[f64], b: &mut [f64]) {
            (**self).constraint_rate_bias(t, q, b)
        }
        fn constraint_accel_bias(&self, t: f64, q: &[f64], qd: &[f64], rho: &mut [f64]) {
            (**self).constraint_accel_bias(t, q, qd, rho)
        }
        fn constraint_jacobian_and_accel_bias(
            &self,
            t: f64,
            q: &[f64],
            qd: &[f64],
            j: MatMut<'_, f64>,
            rho: &mut [f64],
        ) {
            (**self).constraint_jacobian_and_accel_bias(t, q, qd, j, rho)
        }
        fn constraints_jacobian_and_rate_bias(
            &self,
            t: f64,
            q: &[f64],
            phi: &mut [f64],
            j: MatMut<'_, f64>,
            b: &mut [f64],
        ) {
            (**self).constraints_jacobian_and_rate_bias(t, q, phi, j, b)
        }
        fn kinetic_energy(&self, q: &[f64], qd: &[f64]) -> Option<f64> {
            (**self).kinetic_energy(q, qd)
        }
        fn potential_energy(&self, q: &[f64]) -> Option<f64> {
            (**self).potential_energy(q)
        }
        fn validate(&self) -> Result<(), crate::ModelError> {
            (**self).validate()
        }
        fn sparsity(&self) -> Option<SparsityPattern> {
            (**self).sparsity()
        }
        fn mass_matrix_values(&self, q: &[f64], values: &mut [f64]) {
            (**self).mass_matrix_values(q, values)
        }
        fn constraint_jacobian_values(&self, t: f64, q: &[f64], values: &mut [f64]) {
            (**self).constraint_jacobian_values(t, q, values)
        }
        fn fast_inverse_dynamics(
            &self,
            q: &[f64],
            qd: &[f64],
            qdd: &[f64],
            tau: &mut [f64],
        ) -> Option<()> {
            (**self).fast_inverse_dynamics(q, qd, qdd, tau)
        }
        fn fast_forward_dynamics(
            &self,
            q: &[f64],
            qd: &[f64],
            tau: &[f64],
            qdd: &mut [f64],
        ) -> Option<Result<(), crate::ModelError>> {
            (**self).fast_forward_dynamics(q, qd, tau, qdd)
        }
        fn fast_path_coefficients(
            &self,
            q: &[f64],
            dq_ds: &[f64],
            d2q_ds2: &[f64],
            a: &mut [f64],
            b: &mut [f64],
            c: &mut [f64],
        ) -> Option<()> {
            (**self).fast_path_coefficients(q, dq_ds, d2q_ds2, a, b, c)
        }
    };
}

impl<M: Mechanism + ?Sized> Mechanism for &M {
    forward_mechanism!();
}

impl<M: Mechanism + ?Sized> Mechanism for Box<M> {
    forward_mechanism!();
}

/// A feedback law `u_c(t, q, q̇)` that plugs into [`Mechanism::applied_forces`]
/// through [`WithController`] (Keerthi (4.5), Huang (6.3.3)).
pub trait Controller {
    /// **Adds** the controller's generalized forces `u_c(t, q, q̇)` to `u`
    /// (length N). Accumulating, rather than overwriting, lets
    /// [`WithController`] compose model inputs and feedback without a scratch
    /// buffer; use [`Controller::forces_into`] to overwrite.
    fn forces(&self, t: f64, q: &[f64], qd: &[f64], u: &mut [f64]);

    /// Overwrites `u` with `u_c(t, q, q̇)` (`u ← 0`, then [`Controller::forces`]).
    fn forces_into(&self, t: f64, q: &[f64], qd: &[f64], u: &mut [f64]) {
        u.fill(0.0);
        self.forces(t, q, qd, u);
    }
}

impl<C: Controller + ?Sized> Controller for &C {
    fn forces(&self, t: f64, q: &[f64], qd: &[f64], u: &mut [f64]) {
        (**self).forces(t, q, qd, u)
    }
}

impl<C: Controller + ?Sized> Controller for Box<C> {
    fn forces(&self, t: f64, q: &[f64], qd: &[f64], u: &mut [f64]) {
        (**self).forces(t, q, qd, u)
    }
}

/// A mechanism driven by a controller: every method forwards to `mechanism`,
/// except `applied_forces = mechanism.applied_forces + controller.forces`.
///
/// Holds the mechanism and the controller by value; pass references
/// (`WithController::new(&robot, &law)`) to borrow instead.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WithController<M, C> {
    /// The controlled mechanism.
    pub mechanism: M,
    /// The feedback law.
    pub controller: C,
}

impl<M: Mechanism, C: Controller> WithController<M, C> {
    /// Couples `mechanism` with `controller`.
    pub fn new(mechanism: M, controller: C) -> Self {
        Self {
            mechanism,
            controller,
        }
    }
}

impl<M: Mechanism, C: Controller> Mechanism for WithController<M, C> {
    fn name(&self) -> &str {
        self.mechanism.name()
    }
    fn dof(&self) -> usize {
        self.mechanism.dof()
    }
    fn n_constraints(&self) -> usize {
        self.mechanism.n_constraints()
    }
    fn constraint_kind(&self, row: usize) -> ConstraintKind {
        self.mechanism.constraint_kind(row)
    }
    fn mass_matrix(&self, q: &[f64], m: MatMut<'_, f64>) {
        self.mechanism.mass_matrix(q, m)
    }
    fn bias_forces(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
        self.mechanism.bias_forces(q, qd, h)
    }
    fn applied_forces(&self, t: f64, q: &[f64], qd: &[f64], u: &mut [f64]) {
        self.mechanism.applied_forces(t, q, qd, u);
        self.controller.forces(t, q, qd, u);
    }
    fn constraints(&self, t: f64, q: &[f64], phi: &mut [f64]) {
        self.mechanism.constraints(t, q, phi)
    }
    fn constraint_jacobian(&self, t: f64, q: &[f64], j: MatMut<'_, f64>) {
        self.mechanism.constraint_jacobian(t, q, j)
    }
    fn constraint_rate_bias(&self, t: f64, q: &[f64], b: &mut [f64]) {
        self.mechanism.constraint_rate_bias(t, q, b)
    }
    fn constraint_accel_bias(&self, t: f64, q: &[f64], qd: &[f64], rho: &mut [f64]) {
        self.mechanism.constraint_accel_bias(t, q, qd, rho)
    }
    fn constraint_jacobian_and_accel_bias(
        &self,
        t: f64,
        q: &[f64],
        qd: &[f64],
        j: MatMut<'_, f64>,
        rho: &mut [f64],
    ) {
        self.mechanism
            .constraint_jacobian_and_accel_bias(t, q, qd, j, rho)
    }
    fn constraints_jacobian_and_rate_bias(
        &self,
        t: f64,
        q: &[f64],
        phi: &mut [f64],
        j: MatMut<'_, f64>,
        b: &mut [f64],
    ) {
        self.mechanism
            .constraints_jacobian_and_rate_bias(t, q, phi, j, b)
    }
    fn kinetic_energy(&self, q: &[f64], qd: &[f64]) -> Option<f64> {
        self.mechanism.kinetic_energy(q, qd)
    }
    fn potential_energy(&self, q: &[f64]) -> Option<f64> {
        self.mechanism.potential_energy(q)
    }
    fn validate(&self) -> Result<(), crate::ModelError> {
        self.mechanism.validate()
    }
    fn sparsity(&self) -> Option<SparsityPattern> {
        self.mechanism.sparsity()
    }
    fn mass_matrix_values(&self, q: &[f64], values: &mut [f64]) {
        self.mechanism.mass_matrix_values(q, values)
    }
    fn constraint_jacobian_values(&self, t: f64, q: &[f64], values: &mut [f64]) {
        self.mechanism.constraint_jacobian_values(t, q, values)
    }
    fn fast_forward_dynamics(
        &self,
        q: &[f64],
        qd: &[f64],
        tau: &[f64],
        qdd: &mut [f64],
    ) -> Option<Result<(), crate::ModelError>> {
        self.mechanism.fast_forward_dynamics(q, qd, tau, qdd)
    }
    fn fast_path_coefficients(
        &self,
        q: &[f64],
        dq_ds: &[f64],
        d2q_ds2: &[f64],
        a: &mut [f64],
        b: &mut [f64],
        c: &mut [f64],
    ) -> Option<()> {
        // M and h are the mechanism's (the controller enters u only)
        self.mechanism
            .fast_path_coefficients(q, dq_ds, d2q_ds2, a, b, c)
    }
}
