//! Inverse dynamics along a path, Huang (4.3.5)–(4.3.7).
//!
//! With `q = Q(s)`, `q̇ = B ṡ`, `q̈ = B s̈ + B̄ ṡ²` (4.3.2) and the prescribed contact force
//! `λ_row = Λ(s) u(s)` (4.3.3)–(4.3.4), the actuator forces that move the mechanism along the
//! path are
//!
//! ```text
//! T(s, ṡ, s̈) = M(Q) (B s̈ + B̄ ṡ²) + h(Q, B ṡ) − J_row(Q)ᵀ Λ(s) u(s)          (4.3.6)
//! ```
//!
//! (the trait's `M q̈ + h = u + Jᵀλ` with `u = T`; Huang's `Jᵀ Dᵀ` is our `J = ∂φ/∂q`).
//! T is affine in s̈: `T = a(s) s̈ + r(s, ṡ)`, `a = M B`, `r = T(s, ṡ, 0)`, the form the
//! acceleration limits (4.3.24) use. The mechanism's own `applied_forces` are not included:
//! T is the whole input.

use crate::error::PlanningError;
use crate::history::PathHistory;
use crate::joint_path::JointPath;
use crate::path::SegmentKind;
use contour_model::pool::Pool;
use contour_model::{ConstraintKind, Mechanism};
use faer::prelude::*;

/// One sample of a kinematic history with its joint forces.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct HistorySample {
    /// Time \[s\] (from t0 = 0).
    pub t: f64,
    /// s(t).
    pub s: f64,
    /// ṡ(t).
    pub sd: f64,
    /// s̈(t).
    pub sdd: f64,
    /// Joint forces T(s, ṡ, s̈), (4.3.6).
    pub torque: Vec<f64>,
}

/// [`PlanningError::DimensionMismatch`] unless `found == expected`.
fn dim_check(what: &'static str, expected: usize, found: usize) -> Result<(), PlanningError> {
    if found == expected {
        Ok(())
    } else {
        Err(PlanningError::DimensionMismatch {
            what,
            expected,
            found,
        })
    }
}

/// Every value finite, else [`PlanningError::NonFinite`] naming `what` (an overflow in the
/// model or the path, never returned as `Ok`).
fn finite_out<'v>(
    what: &'static str,
    mut values: impl Iterator<Item = &'v f64>,
) -> Result<(), PlanningError> {
    if values.all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(PlanningError::NonFinite { what })
    }
}

/// Largest number of samples [`PathDynamics::along_history`] accepts.
pub const MAX_HISTORY_SAMPLES: usize = 10_000_000;

#[derive(Clone)]
struct Scratch {
    q: Vec<f64>,
    b: Vec<f64>,
    bbar: Vec<f64>,
    qd: Vec<f64>,
    h: Vec<f64>,
    phi: Vec<f64>,
    m: Mat<f64>,
    j: Mat<f64>,
    /// `a = M(Q) B` at the cached `(seg, s)`.
    a: Vec<f64>,
    /// `J_rowᵀ Λ(s) u(s)` at the cached `(seg, s)` (zero on free segments).
    jl: Vec<f64>,
    /// `(seg, s)` whose `q, B, B̄, M, a, jl` are in this workspace (`None` when stale).
    key: Option<(usize, u64)>,
}

/// A mechanism moving along a joint path (workspaces allocated once in [`PathDynamics::new`]).
pub struct PathDynamics<'a, M: Mechanism + ?Sized, P: JointPath + ?Sized> {
    mech: &'a M,
    path: &'a P,
    scratch: Pool<Scratch>,
    tmp: Pool<Vec<f64>>,
}

impl<'a, M: Mechanism + ?Sized, P: JointPath + ?Sized> PathDynamics<'a, M, P> {
    /// Couples `mech` with `path`; checks dimensions and constraint rows.
    pub fn new(mech: &'a M, path: &'a P) -> Result<Self, PlanningError> {
        let n = mech.dof();
        if path.dof() != n {
            return Err(PlanningError::DimensionMismatch {
                what: "joint path dof",
                expected: n,
                found: path.dof(),
            });
        }
        let l = mech.n_constraints();
        for seg in path.path().segments() {
            if let SegmentKind::Constrained { row, .. } = &seg.kind {
                if *row >= l {
                    return Err(PlanningError::BadConstraintRow { row: *row, rows: l });
                }
            }
        }
        let scratch = Scratch {
            q: vec![0.0; n],
            b: vec![0.0; n],
            bbar: vec![0.0; n],
            qd: vec![0.0; n],
            h: vec![0.0; n],
            phi: vec![0.0; l],
            m: Mat::zeros(n, n),
            j: Mat::zeros(l.max(1), n),
            a: vec![0.0; n],
            jl: vec![0.0; n],
            key: None,
        };
        Ok(Self {
            mech,
            path,
            scratch: Pool::new(scratch),
            tmp: Pool::new(vec![0.0; n]),
        })
    }

    /// The mechanism.
    pub fn mechanism(&self) -> &M {
        self.mech
    }

    /// The joint path.
    pub fn joint_path(&self) -> &P {
        self.path
    }

    /// Number of joints N.
    pub fn dof(&self) -> usize {
        self.mech.dof()
    }

    /// Writes `a = M(Q) B` and `r = M(Q) B̄ ṡ² + h(Q, B ṡ) − J_rowᵀ Λ u` (so that
    /// `T = a s̈ + r`, Huang (4.3.24)) on segment `seg` at `(s, ṡ)`.
    ///
    /// `Q, B, B̄, M(Q), a` and `J_rowᵀ Λ u` are kept for the last `(seg, s)`: another ṡ at the
    /// same s costs one `bias_forces` call (results bit-identical to a fresh evaluation).
    pub fn coefficients(
        &self,
        seg: usize,
        s: f64,
        sd: f64,
        a: &mut [f64],
        r: &mut [f64],
    ) -> Result<(), PlanningError> {
        let n = self.dof();
        dim_check("a/r", n, if a.len() != n { a.len() } else { r.len() })?;
        self.path.path().check_on(seg, s)?;
        if !sd.is_finite() {
            return Err(PlanningError::NonFinite { what: "s or sdot" });
        }
        let mut guard = self.scratch.get();
        let w = &mut *guard;
        // Everything but h(Q, B ṡ) depends on s alone: the MVC search and the switching-point
        // search evaluate many ṡ at one s, so Q, B, B̄, M(Q), a = M B and J_rowᵀ Λ u are
        // kept for the last (seg, s) (the same operations as a fresh evaluation, bit for bit).
        self.refresh(w, seg, s)?;
        for k in 0..n {
            w.qd[k] = w.b[k] * sd;
        }
        self.mech.bias_forces(&w.q, &w.qd, &mut w.h);
        let constrained = matches!(
            self.path.path().segments()[seg].kind,
            SegmentKind::Constrained { .. }
        );
        for i in 0..n {
            let mut ri = w.h[i];
            for j in 0..n {
                ri += w.m[(i, j)] * w.bbar[j] * sd * sd;
            }
            a[i] = w.a[i];
            // − J_rowᵀ Λ(s) u(s), Huang (4.3.6)
            r[i] = if constrained { ri - w.jl[i] } else { ri };
        }
        finite_out("path dynamics a(s) or r(s, sdot)", a.iter().chain(r.iter()))
    }

    /// Writes `a = M(Q) B`, the s̈ coefficient of T (Huang (4.3.24)), on segment `seg` at `s`,
    /// without the bias forces (the zero-inertia scan needs only a; same cache as
    /// [`Self::coefficients`], same values bit for bit).
    pub fn inertia_coefficients(
        &self,
        seg: usize,
        s: f64,
        a: &mut [f64],
    ) -> Result<(), PlanningError> {
        let n = self.dof();
        dim_check("a", n, a.len())?;
        self.path.path().check_on(seg, s)?;
        let mut guard = self.scratch.get();
        let w = &mut *guard;
        self.refresh(w, seg, s)?;
        a.copy_from_slice(&w.a);
        finite_out("path dynamics a(s)", a.iter())
    }

    /// Fills the per-s part of the workspace (Q, B, B̄, M(Q), a = M B, J_rowᵀ Λ u) for
    /// `(seg, s)` unless it holds it already.
    fn refresh(&self, w: &mut Scratch, seg: usize, s: f64) -> Result<(), PlanningError> {
        let n = self.dof();
        let key = (seg, s.to_bits());
        if w.key != Some(key) {
            w.key = None;
            self.path.eval(seg, s, &mut w.q, &mut w.b, &mut w.bbar)?;
            self.mech.mass_matrix(&w.q, w.m.as_mut());
            for i in 0..n {
                let mut ai = 0.0;
                for j in 0..n {
                    ai += w.m[(i, j)] * w.b[j];
                }
                w.a[i] = ai;
            }
            if let SegmentKind::Constrained { row, force } = &self.path.path().segments()[seg].kind
            {
                // J_rowᵀ Λ(s) u(s), Huang (4.3.6)
                let lam = force.value(s);
                self.mech.constraint_jacobian(0.0, &w.q, w.j.as_mut());
                for i in 0..n {
                    w.jl[i] = w.j[(*row, i)] * lam;
                }
            } else {
                w.jl.fill(0.0);
            }
            w.key = Some(key);
        }
        Ok(())
    }

    /// Joint forces `T(s, ṡ, s̈)`, Huang (4.3.6)–(4.3.7), on segment `seg`.
    pub fn inverse_dynamics(
        &self,
        seg: usize,
        s: f64,
        sd: f64,
        sdd: f64,
        tau: &mut [f64],
    ) -> Result<(), PlanningError> {
        let n = self.dof();
        dim_check("tau", n, tau.len())?;
        if !sdd.is_finite() {
            return Err(PlanningError::NonFinite { what: "sddot" });
        }
        let mut a = self.tmp.get();
        self.coefficients(seg, s, sd, &mut a, tau)?;
        for i in 0..n {
            tau[i] += a[i] * sdd;
        }
        finite_out("tau", tau.iter())
    }

    /// The ṡ² coefficient `b = r(s, 1) − c` of `T = a s̈ + b ṡ² + c` on segment `seg` at `s`,
    /// given `c = r(s, 0)` (Huang (4.3.24); `r(s, ṡ) = b ṡ² + c` when h is quadratic in q̇):
    /// `r(s, 1) = M B̄ + h(Q, B) − J_rowᵀ Λ u` by one inverse-dynamics pass at `(Q, B, B̄)` when
    /// the mechanism has one ([`Mechanism::fast_inverse_dynamics`]), else from the cached
    /// `M` and one `bias_forces` call. No allocation.
    pub(crate) fn speed_coefficient(
        &self,
        seg: usize,
        s: f64,
        c: &[f64],
        b: &mut [f64],
    ) -> Result<(), PlanningError> {
        let n = self.dof();
        dim_check("b/c", n, if c.len() != n { c.len() } else { b.len() })?;
        let mut guard = self.scratch.get();
        let w = &mut *guard;
        self.refresh(w, seg, s)?;
        if self
            .mech
            .fast_inverse_dynamics(&w.q, &w.b, &w.bbar, &mut w.h)
            .is_none()
        {
            drop(guard);
            let mut a = self.tmp.get();
            self.coefficients(seg, s, 1.0, &mut a, b)?;
            for i in 0..n {
                b[i] -= c[i];
            }
            return Ok(());
        }
        for i in 0..n {
            // r(s, 1) − c, the contact term as in [`Self::coefficients`]
            b[i] = (w.h[i] - w.jl[i]) - c[i];
        }
        Ok(())
    }

    /// The coefficients of `T = a s̈ + b ṡ² + c` (Huang (4.3.6), (4.3.24)) on segment `seg`
    /// at `s`: `a = M B`, `b = M B̄ + h(Q, B) − h(Q, 0)`, `c = h(Q, 0) − J_rowᵀ Λ u`, by the
    /// mechanism's [`Mechanism::fast_path_coefficients`] when it has one (for a tree: three
    /// RNEAs sharing one forward kinematics, no mass matrix; equal to the M/h route up to
    /// round-off), else exactly as [`Self::coefficients`] at ṡ = 0 followed by
    /// [`Self::speed_coefficient`]. No allocation.
    pub(crate) fn path_coefficients(
        &self,
        seg: usize,
        s: f64,
        a: &mut [f64],
        b: &mut [f64],
        c: &mut [f64],
    ) -> Result<(), PlanningError> {
        let n = self.dof();
        dim_check("a", n, a.len())?;
        dim_check("b/c", n, if c.len() != n { c.len() } else { b.len() })?;
        self.path.path().check_on(seg, s)?;
        let mut guard = self.scratch.get();
        let w = &mut *guard;
        if w.key != Some((seg, s.to_bits())) {
            // Q, B, B̄ only (no mass matrix): the per-s cache is stale afterwards
            w.key = None;
            self.path.eval(seg, s, &mut w.q, &mut w.b, &mut w.bbar)?;
        }
        if self
            .mech
            .fast_path_coefficients(&w.q, &w.b, &w.bbar, a, b, c)
            .is_none()
        {
            drop(guard);
            self.coefficients(seg, s, 0.0, a, c)?;
            return self.speed_coefficient(seg, s, c, b);
        }
        if let SegmentKind::Constrained { row, force } = &self.path.path().segments()[seg].kind {
            // − J_rowᵀ Λ(s) u(s), Huang (4.3.6)
            if w.key.is_some() {
                for i in 0..n {
                    c[i] -= w.jl[i];
                }
            } else {
                let lam = force.value(s);
                self.mech.constraint_jacobian(0.0, &w.q, w.j.as_mut());
                for i in 0..n {
                    c[i] -= w.j[(*row, i)] * lam;
                }
            }
        }
        finite_out(
            "path dynamics a, b or c",
            a.iter().chain(b.iter()).chain(c.iter()),
        )
    }

    /// Joint forces `T(s, ṡ, s̈)` on segment `seg` as [`Self::inverse_dynamics`], by one
    /// inverse-dynamics pass at `(Q, B ṡ, B s̈ + B̄ ṡ²)` without the mass matrix when the
    /// mechanism has one ([`Mechanism::fast_inverse_dynamics`]); equal to it up to round-off.
    /// No allocation.
    pub(crate) fn torque_one_pass(
        &self,
        seg: usize,
        s: f64,
        sd: f64,
        sdd: f64,
        tau: &mut [f64],
    ) -> Result<(), PlanningError> {
        let n = self.dof();
        dim_check("tau", n, tau.len())?;
        self.path.path().check_on(seg, s)?;
        if !sd.is_finite() || !sdd.is_finite() {
            return Err(PlanningError::NonFinite {
                what: "s, sdot or sddot",
            });
        }
        let mut guard = self.scratch.get();
        let w = &mut *guard;
        if w.key != Some((seg, s.to_bits())) {
            // Q, B, B̄ only (no mass matrix): the per-s cache is stale afterwards
            w.key = None;
            self.path.eval(seg, s, &mut w.q, &mut w.b, &mut w.bbar)?;
        }
        let mut qdd = self.tmp.get();
        for k in 0..n {
            w.qd[k] = w.b[k] * sd;
            qdd[k] = w.b[k] * sdd + w.bbar[k] * sd * sd;
        }
        if self
            .mech
            .fast_inverse_dynamics(&w.q, &w.qd, &qdd, tau)
            .is_none()
        {
            drop(qdd);
            drop(guard);
            return self.inverse_dynamics(seg, s, sd, sdd, tau);
        }
        if let SegmentKind::Constrained { row, force } = &self.path.path().segments()[seg].kind {
            // − J_rowᵀ Λ(s) u(s), Huang (4.3.6)
            if w.key.is_some() {
                for i in 0..n {
                    tau[i] -= w.jl[i];
                }
            } else {
                let lam = force.value(s);
                self.mech.constraint_jacobian(0.0, &w.q, w.j.as_mut());
                for i in 0..n {
                    tau[i] -= w.j[(*row, i)] * lam;
                }
            }
        }
        finite_out("tau", tau.iter())
    }

    /// Joint forces at `s` using the right-continuous segment choice.
    pub fn torque(&self, s: f64, sd: f64, sdd: f64, tau: &mut [f64]) -> Result<(), PlanningError> {
        let seg = self.path.path().locate(s);
        self.inverse_dynamics(seg, s, sd, sdd, tau)
    }

    /// `φ(Q(s))` and `J(Q(s)) B(s)` for constraint row `row` on segment `seg` — the quantities of
    /// the impact-avoidance condition (4.3.8) / (4.3.41) and the tangency condition (4.3.9).
    pub fn constraint_along(
        &self,
        seg: usize,
        s: f64,
        row: usize,
    ) -> Result<(f64, f64), PlanningError> {
        let l = self.mech.n_constraints();
        if row >= l {
            return Err(PlanningError::BadConstraintRow { row, rows: l });
        }
        self.path.path().check_on(seg, s)?;
        let mut guard = self.scratch.get();
        let w = &mut *guard;
        w.key = None; // q, B, B̄ and J are overwritten
        self.path.eval(seg, s, &mut w.q, &mut w.b, &mut w.bbar)?;
        self.mech.constraints(0.0, &w.q, &mut w.phi);
        self.mech.constraint_jacobian(0.0, &w.q, w.j.as_mut());
        let jb: f64 = (0..self.dof()).map(|i| w.j[(row, i)] * w.b[i]).sum();
        finite_out("phi(Q(s)) or J B", [w.phi[row], jb].iter())?;
        Ok((w.phi[row], jb))
    }

    /// Samples a kinematic path history (Huang 4.3.2) at `n + 1` equally spaced times and
    /// evaluates the joint forces (4.3.6) along it (e.g. Huang Figs. 6.2.5, 6.2.11).
    ///
    /// Errors: [`PlanningError::WorkCap`] for `n` above [`MAX_HISTORY_SAMPLES`], and those of
    /// [`Self::torque`] at each sample.
    pub fn along_history(
        &self,
        history: &dyn PathHistory,
        n: usize,
    ) -> Result<Vec<HistorySample>, PlanningError> {
        if n > MAX_HISTORY_SAMPLES {
            return Err(PlanningError::WorkCap {
                name: "n",
                value: n as f64,
                cap: "history samples <= 1e7",
            });
        }
        let n = n.max(1);
        let tf = history.final_time();
        let mut out = Vec::with_capacity(n + 1);
        for k in 0..=n {
            let t = tf * k as f64 / n as f64;
            let (s, sd, sdd) = history.state(t);
            let mut torque = vec![0.0; self.dof()];
            self.torque(s, sd, sdd, &mut torque)?;
            out.push(HistorySample {
                t,
                s,
                sd,
                sdd,
                torque,
            });
        }
        Ok(out)
    }

    /// Checks the path against the constraints on `samples` points per segment:
    /// unilateral rows must have φ ≥ −`tol` on unconstrained segments ((4.2.8), (4.2.10)) and
    /// the active row must have |φ| ≤ `tol` on constrained segments ((4.2.9)); a NaN φ fails.
    ///
    /// Errors: the violations above, [`PlanningError::WorkCap`] for `samples` above
    /// [`crate::MAX_SAMPLES_PER_SEGMENT`], [`PlanningError::InvalidParameter`] for a negative
    /// or non-finite `tol`.
    pub fn check_feasible(&self, samples: usize, tol: f64) -> Result<(), PlanningError> {
        if samples > crate::path::MAX_SAMPLES_PER_SEGMENT {
            return Err(PlanningError::WorkCap {
                name: "samples",
                value: samples as f64,
                cap: "samples per segment <= 1e6",
            });
        }
        if !(tol >= 0.0 && tol.is_finite()) {
            return Err(PlanningError::InvalidParameter {
                name: "tol",
                value: tol,
                expected: "finite and >= 0",
            });
        }
        let l = self.mech.n_constraints();
        let samples = samples.max(2);
        for (si, seg) in self.path.path().segments().iter().enumerate() {
            for k in 0..samples {
                let s = seg.s_start + (seg.s_end - seg.s_start) * k as f64 / (samples - 1) as f64;
                let mut guard = self.scratch.get();
                let w = &mut *guard;
                w.key = None; // q, B, B̄ are overwritten
                self.path.eval(si, s, &mut w.q, &mut w.b, &mut w.bbar)?;
                self.mech.constraints(0.0, &w.q, &mut w.phi);
                match &seg.kind {
                    SegmentKind::Constrained { row, .. } => {
                        // NaN-safe: a NaN φ fails the test
                        if w.phi[*row].is_nan() || w.phi[*row].abs() > tol {
                            return Err(PlanningError::PathLeavesConstraint {
                                row: *row,
                                s,
                                phi: w.phi[*row],
                            });
                        }
                    }
                    SegmentKind::Unconstrained => {
                        for row in 0..l {
                            if self.mech.constraint_kind(row) == ConstraintKind::Unilateral
                                && (w.phi[row].is_nan() || w.phi[row] < -tol)
                            {
                                return Err(PlanningError::PathViolatesConstraint {
                                    row,
                                    s,
                                    phi: w.phi[row],
                                });
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::joint_path::CartesianJointPath;
    use contour_model::models::HuangCartesianRobot;

    /// The per-s cache returns bit for bit what a fresh `PathDynamics` computes, whatever the
    /// order of the calls (same s with other ṡ, other segment at a breakpoint, interleaved
    /// `constraint_along` / `check_feasible`, which overwrite the workspace).
    #[test]
    fn cached_coefficients_equal_fresh_ones() {
        let cp = crate::ContourTask::huang().continuous_slope_path().unwrap();
        let robot = HuangCartesianRobot::default();
        let jp = CartesianJointPath::new(cp.path.clone());
        let cached = PathDynamics::new(&robot, &jp).unwrap();
        let fresh = |seg: usize, s: f64, sd: f64| {
            let d = PathDynamics::new(&robot, &jp).unwrap();
            let (mut a, mut r) = (vec![0.0; 2], vec![0.0; 2]);
            d.coefficients(seg, s, sd, &mut a, &mut r).unwrap();
            (a, r)
        };
        let (s1, s2) = (cp.s1, cp.s2);
        let calls: [(usize, f64, f64); 10] = [
            (0, 0.1, 0.0),
            (0, 0.1, 0.7),
            (0, 0.1, 0.3),
            (0, s1, 0.3),
            (1, s1, 0.3), // constrained arc, same s
            (1, 0.5, 0.2),
            (1, 0.5, 0.9),
            (2, s2, 0.9),
            (1, s2, 0.9),
            (2, 0.95, 1.1),
        ];
        let (mut a, mut r) = (vec![0.0; 2], vec![0.0; 2]);
        for (k, &(seg, s, sd)) in calls.iter().enumerate() {
            if k % 3 == 2 {
                cached.constraint_along(1, 0.5, 0).unwrap();
            }
            if k == 6 {
                cached.check_feasible(5, 1e-6).unwrap();
            }
            cached.coefficients(seg, s, sd, &mut a, &mut r).unwrap();
            let (fa, fr) = fresh(seg, s, sd);
            for i in 0..2 {
                assert_eq!(a[i].to_bits(), fa[i].to_bits(), "call {k}: a[{i}]");
                assert_eq!(r[i].to_bits(), fr[i].to_bits(), "call {k}: r[{i}]");
            }
        }
        // the contact force enters r on the arc only: r differs between the two sides of s1
        let (_, r0) = fresh(0, s1, 0.3);
        let (_, r1) = fresh(1, s1, 0.3);
        assert!((r0[0] - r1[0]).abs() + (r0[1] - r1[1]).abs() > 1e-3);
    }
}

#[cfg(test)]
mod one_pass_tests {
    use super::*;
    use crate::joint_path::CartesianJointPath;
    use crate::path::{Path, Segment, Shape};

    /// The tree's one-pass inverse dynamics equals `M q̈ + h`, and the crate's uses of it
    /// (`torque_one_pass`, `speed_coefficient`) equal the mass-matrix forms, to round-off.
    #[test]
    fn one_pass_inverse_dynamics_equals_mass_matrix_form() {
        let mut arm = contour_model::models::ssrms_arm();
        arm.set_gravity([0.0, 0.0, -9.81]);
        let q0 = contour_model::models::arm7_initial_q().to_vec();
        let q1: Vec<f64> = q0
            .iter()
            .enumerate()
            .map(|(i, q)| q + 0.1 * i as f64)
            .collect();
        let seg = Segment {
            s_start: 0.0,
            s_end: 1.0,
            shape: Shape::Line { start: q0, end: q1 },
            kind: SegmentKind::Unconstrained,
        };
        let jp = CartesianJointPath::new(Path::new(vec![seg]).unwrap());
        let d = PathDynamics::new(&arm, &jp).unwrap();
        let n = 7;
        let (mut t1, mut t2, mut a, mut c, mut r1, mut b) = (
            vec![0.0; n],
            vec![0.0; n],
            vec![0.0; n],
            vec![0.0; n],
            vec![0.0; n],
            vec![0.0; n],
        );
        let close = |x: &[f64], y: &[f64]| {
            let scale = y.iter().fold(1.0f64, |m, v| m.max(v.abs()));
            x.iter().zip(y).all(|(u, v)| (u - v).abs() <= 1e-12 * scale)
        };
        for &(s, sd, sdd) in &[(0.0, 0.0, 0.0), (0.3, 0.7, -2.0), (0.9, 1.3, 4.0)] {
            d.inverse_dynamics(0, s, sd, sdd, &mut t1).unwrap();
            d.torque_one_pass(0, s, sd, sdd, &mut t2).unwrap();
            assert!(close(&t2, &t1), "{t2:?} vs {t1:?}");
            assert!(t1.iter().any(|v| v.abs() > 1e-3));
            d.coefficients(0, s, 0.0, &mut a, &mut c).unwrap();
            d.coefficients(0, s, 1.0, &mut a, &mut r1).unwrap();
            d.speed_coefficient(0, s, &c, &mut b).unwrap();
            let want: Vec<f64> = r1.iter().zip(&c).map(|(r, c)| r - c).collect();
            assert!(close(&b, &want), "{b:?} vs {want:?}");
        }
        // the mechanism-level override against M q̈ + h
        let q = [0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7];
        let (qd, qdd) = ([0.5; 7], [-1.5; 7]);
        let mut m = Mat::<f64>::zeros(n, n);
        arm.mass_matrix(&q, m.as_mut());
        let mut h = vec![0.0; n];
        arm.bias_forces(&q, &qd, &mut h);
        for i in 0..n {
            h[i] += (0..n).map(|j| m[(i, j)] * qdd[j]).sum::<f64>();
        }
        let mut tau = vec![0.0; n];
        assert!(arm.fast_inverse_dynamics(&q, &qd, &qdd, &mut tau).is_some());
        assert!(close(&tau, &h), "{tau:?} vs {h:?}");
    }
}
