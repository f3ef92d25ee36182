//! The model terms of the equations of motion at one state, evaluated once:
//!
//! ```text
//! M(q) q̈ + h(q, q̇) = u(t, q, q̇) + J(t, q)ᵀ λ      Keerthi (1.1)
//! J q̈ + ρ(t, q, q̇) = 0                            Keerthi (1.4)
//! φ(t, q) = 0,   J q̇ + b(t, q) = 0                 (1.2)–(1.3)
//! ```
//!
//! [`ModelTerms`] holds `M, h, u, f = u − h` and, on request, `J, ρ` and `b, φ`, allocated once
//! per mechanism. [`ModelTerms::evaluate`] fills them and checks them for finiteness in ONE
//! branch-free pass over everything it evaluated; only when that pass fails are the terms
//! scanned one by one, to name the culprit ([`ModelError::NonFinite`] with `what` and the
//! first bad index, column-major for matrices). Shared by the forward-dynamics workspaces:
//! [`crate::ConstrainedDynamics`], `contour-contact`'s `ContactDynamics` and the projector
//! method's `ProjectionDynamics` (`contour-projection`). No allocation after construction.

use crate::validate::{check_finite, check_finite_mat, check_len};
use crate::{Mechanism, ModelError};
use faer::{Mat, MatRef};

/// Which terms [`ModelTerms::evaluate`] computes besides `M, h, u, f` (always evaluated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Terms {
    /// `M, h, u, f` only (unconstrained dynamics).
    #[default]
    Forces,
    /// Plus `J, ρ` (the index-1 form (1.1) + (1.4)).
    Accelerations,
    /// Plus `J, ρ, b, φ` (Baumgarte's terms (4.3), contact rows, projections).
    All,
}

/// `M, h, u, f = u − h, J, ρ, b, φ` of one mechanism at the last evaluated state.
#[derive(Debug, Clone)]
pub struct ModelTerms {
    n: usize,
    l: usize,
    m: Mat<f64>,
    j: Mat<f64>,
    h: Vec<f64>,
    u: Vec<f64>,
    f: Vec<f64>,
    rho: Vec<f64>,
    b: Vec<f64>,
    phi: Vec<f64>,
}

/// `Σ 0·x_i`: 0 when every entry is finite, NaN otherwise (`0·±∞ = NaN`, NaN propagates).
/// Branch-free, so the compiler vectorizes it.
#[inline]
fn poison(x: &[f64]) -> f64 {
    x.iter().fold(0.0, |a, v| a + 0.0 * v)
}

/// [`poison`] of every column of `a` (contiguous columns; a strided one counts entry by entry).
#[inline]
fn poison_mat(a: MatRef<'_, f64>) -> f64 {
    (0..a.ncols()).fold(0.0, |acc, c| {
        let col = a.col(c);
        acc + match col.try_as_col_major() {
            Some(x) => poison(x.as_slice()),
            None => (0..a.nrows()).fold(0.0, |s, r| s + 0.0 * col[r]),
        }
    })
}

impl ModelTerms {
    /// Workspace for `mech`: N = `mech.dof()`, L = `mech.n_constraints()`.
    pub fn new<M: Mechanism + ?Sized>(mech: &M) -> Self {
        let (n, l) = (mech.dof(), mech.n_constraints());
        Self {
            n,
            l,
            m: Mat::zeros(n, n),
            j: Mat::zeros(l, n),
            h: vec![0.0; n],
            u: vec![0.0; n],
            f: vec![0.0; n],
            rho: vec![0.0; l],
            b: vec![0.0; l],
            phi: vec![0.0; l],
        }
    }

    /// Number of coordinates N.
    pub fn dof(&self) -> usize {
        self.n
    }

    /// Number of constraint rows L.
    pub fn n_constraints(&self) -> usize {
        self.l
    }

    /// Evaluates `M(q)`, `h(q, q̇)`, `u(t, q, q̇)` (or takes `input` as `u`; an `input` of the
    /// wrong length is [`ModelError::DimensionMismatch`]), `f = u − h`, and per `which`
    /// `J, ρ` ([`Mechanism::constraint_jacobian_and_accel_bias`]) and `b, φ`. The caller has
    /// checked the state. Non-finite output: [`ModelError::NonFinite`] naming `"mass matrix"`,
    /// `"bias forces"`, `"u"` / `"applied forces"`, `"constraint jacobian"`, `"accel bias"`,
    /// `"rate bias"` or `"phi"` (checked in this order). No allocation.
    #[allow(clippy::too_many_arguments)]
    pub fn evaluate<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        q: &[f64],
        qd: &[f64],
        input: Option<&[f64]>,
        which: Terms,
    ) -> Result<(), ModelError> {
        if let Some(given) = input {
            check_len("u", given, self.n)?;
        }
        self.m.fill(0.0);
        mech.mass_matrix(q, self.m.as_mut());
        mech.bias_forces(q, qd, &mut self.h);
        match input {
            Some(given) => self.u.copy_from_slice(given),
            None => mech.applied_forces(t, q, qd, &mut self.u),
        }
        let constrained = which != Terms::Forces && self.l > 0;
        let position = which == Terms::All && self.l > 0;
        if constrained {
            self.j.fill(0.0);
            mech.constraint_jacobian_and_accel_bias(t, q, qd, self.j.as_mut(), &mut self.rho);
        }
        if position {
            mech.constraint_rate_bias(t, q, &mut self.b);
            mech.constraints(t, q, &mut self.phi);
        }
        // Keerthi (1.1): the generalized force without constraint forces
        for ((fi, ui), hi) in self.f.iter_mut().zip(&self.u).zip(&self.h) {
            *fi = ui - hi;
        }
        // one pass: f = u − h is non-finite iff u or h is (or ∞ − ∞, also caught below)
        let mut acc = poison_mat(self.m.as_ref()) + poison(&self.f);
        if constrained {
            acc += poison_mat(self.j.as_ref()) + poison(&self.rho);
        }
        if position {
            acc += poison(&self.b) + poison(&self.phi);
        }
        if acc == 0.0 {
            return Ok(());
        }
        self.name_culprit(input.is_some(), constrained, position)
    }

    /// The slow path of [`ModelTerms::evaluate`]: the first non-finite term, by name.
    fn name_culprit(
        &self,
        given: bool,
        constrained: bool,
        position: bool,
    ) -> Result<(), ModelError> {
        check_finite_mat("mass matrix", self.m.as_ref())?;
        check_finite("bias forces", &self.h)?;
        check_finite(if given { "u" } else { "applied forces" }, &self.u)?;
        if constrained {
            check_finite_mat("constraint jacobian", self.j.as_ref())?;
            check_finite("accel bias", &self.rho)?;
        }
        if position {
            check_finite("rate bias", &self.b)?;
            check_finite("phi", &self.phi)?;
        }
        // finite u and h whose difference overflows
        check_finite("u - h", &self.f)
    }

    /// `M(q)` of the last evaluation.
    pub fn mass_matrix(&self) -> MatRef<'_, f64> {
        self.m.as_ref()
    }

    /// `J(t, q)` of the last evaluation that asked for it.
    pub fn jacobian(&self) -> MatRef<'_, f64> {
        self.j.as_ref()
    }

    /// `h(q, q̇)` of the last evaluation.
    pub fn bias_forces(&self) -> &[f64] {
        &self.h
    }

    /// `u(t, q, q̇)` of the last evaluation (or the input it was given).
    pub fn applied_forces(&self) -> &[f64] {
        &self.u
    }

    /// Mutable `u`, for a caller that evaluates the applied forces alone (the O(N) path).
    pub fn applied_forces_mut(&mut self) -> &mut [f64] {
        &mut self.u
    }

    /// `f = u − h` of the last evaluation.
    pub fn net_force(&self) -> &[f64] {
        &self.f
    }

    /// `ρ(t, q, q̇)` of the last evaluation that asked for it.
    pub fn accel_bias(&self) -> &[f64] {
        &self.rho
    }

    /// `b(t, q)` of the last evaluation with [`Terms::All`].
    pub fn rate_bias(&self) -> &[f64] {
        &self.b
    }

    /// `φ(t, q)` of the last evaluation with [`Terms::All`].
    pub fn phi(&self) -> &[f64] {
        &self.phi
    }

    /// `(J q̇)_i + b_i`, i.e. `φ̇_i` (1.3), with `J`, `b` of the last [`Terms::All`] evaluation.
    pub fn constraint_rate(&self, i: usize, qd: &[f64]) -> f64 {
        (0..self.n).map(|k| self.j[(i, k)] * qd[k]).sum::<f64>() + self.b[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::{KeerthiRobot, KEERTHI_IC2};
    use faer::MatMut;

    /// A 2-DOF point on the unit circle whose output number `slot` (0 M, 1 h, 2 u, 3 J, 4 ρ,
    /// 5 b, 6 φ) carries a non-finite value at entry `index` (`slot = 7`: none).
    struct Poisoned {
        slot: usize,
        index: usize,
        value: f64,
    }

    impl Poisoned {
        fn put(&self, slot: usize, x: &mut [f64]) {
            if slot == self.slot {
                x[self.index] = self.value;
            }
        }
    }

    impl Mechanism for Poisoned {
        fn name(&self) -> &str {
            "poisoned"
        }
        fn dof(&self) -> usize {
            2
        }
        fn n_constraints(&self) -> usize {
            1
        }
        fn mass_matrix(&self, _q: &[f64], mut m: MatMut<'_, f64>) {
            for i in 0..2 {
                m[(i, i)] = 1.0;
            }
            if self.slot == 0 {
                m[(self.index % 2, self.index / 2)] = self.value;
            }
        }
        fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
            h.copy_from_slice(&[0.0, 9.81]);
            self.put(1, h);
        }
        fn applied_forces(&self, _t: f64, _q: &[f64], _qd: &[f64], u: &mut [f64]) {
            u.fill(0.5);
            self.put(2, u);
        }
        fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
            phi[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] - 1.0);
            self.put(6, phi);
        }
        fn constraint_jacobian(&self, _t: f64, q: &[f64], mut j: MatMut<'_, f64>) {
            j[(0, 0)] = q[0];
            j[(0, 1)] = q[1];
            if self.slot == 3 {
                j[(0, self.index)] = self.value;
            }
        }
        fn constraint_rate_bias(&self, _t: f64, _q: &[f64], b: &mut [f64]) {
            b.fill(0.0);
            self.put(5, b);
        }
        fn constraint_accel_bias(&self, _t: f64, _q: &[f64], qd: &[f64], rho: &mut [f64]) {
            rho[0] = qd[0] * qd[0] + qd[1] * qd[1];
            self.put(4, rho);
        }
    }

    /// The terms equal the mechanism's own outputs, and every kind of non-finite output
    /// (NaN, ±∞) is named with its index: the single fast pass hides none of them.
    #[test]
    fn terms_match_the_mechanism_and_name_non_finite_outputs() {
        let robot = KeerthiRobot::default();
        let mut terms = ModelTerms::new(&robot);
        let (q, qd) = (KEERTHI_IC2.q, [0.3, -0.2, 0.1]);
        terms
            .evaluate(&robot, 0.0, &q, &qd, None, Terms::All)
            .unwrap();
        let mut m = Mat::<f64>::zeros(3, 3);
        robot.mass_matrix(&q, m.as_mut());
        assert_eq!(terms.mass_matrix(), m.as_ref());
        let (mut phi, mut rho, mut h) = ([0.0; 2], [0.0; 2], [0.0; 3]);
        robot.constraints(0.0, &q, &mut phi);
        robot.constraint_accel_bias(0.0, &q, &qd, &mut rho);
        robot.bias_forces(&q, &qd, &mut h);
        assert_eq!(terms.phi(), &phi);
        assert_eq!(terms.accel_bias(), &rho);
        assert_eq!(terms.bias_forces(), &h);

        let (q, qd) = ([0.6, -0.8], [0.8, 0.6]);
        let names = [
            "mass matrix",
            "bias forces",
            "applied forces",
            "constraint jacobian",
            "accel bias",
            "rate bias",
            "phi",
        ];
        let lens = [4, 2, 2, 2, 1, 1, 1];
        for value in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            for (slot, (what, len)) in names.iter().zip(lens).enumerate() {
                for index in 0..len {
                    let mech = Poisoned { slot, index, value };
                    let mut terms = ModelTerms::new(&mech);
                    let e = terms.evaluate(&mech, 0.0, &q, &qd, None, Terms::All);
                    assert_eq!(e, Err(ModelError::NonFinite { what, index }));
                    // the terms not asked for are not checked
                    let skip = match slot {
                        3 | 4 => Terms::Forces,
                        5 | 6 => Terms::Accelerations,
                        _ => continue,
                    };
                    terms.evaluate(&mech, 0.0, &q, &qd, None, skip).unwrap();
                }
            }
        }
        let clean = Poisoned {
            slot: 7,
            index: 0,
            value: 0.0,
        };
        let mut terms = ModelTerms::new(&clean);
        terms
            .evaluate(&clean, 0.0, &q, &qd, None, Terms::All)
            .unwrap();
        assert_eq!(terms.net_force(), &[0.5, 0.5 - 9.81]);
        assert_eq!(terms.constraint_rate(0, &qd), 0.0);
        // an input of the wrong length, then a non-finite one, then u − h overflowing
        assert_eq!(
            terms.evaluate(&clean, 0.0, &q, &qd, Some(&[0.0; 3]), Terms::Forces),
            Err(ModelError::DimensionMismatch {
                what: "u",
                expected: 2,
                found: 3
            })
        );
        assert_eq!(
            terms.evaluate(&clean, 0.0, &q, &qd, Some(&[0.0, f64::NAN]), Terms::Forces),
            Err(ModelError::NonFinite {
                what: "u",
                index: 1
            })
        );
        let big = Poisoned {
            slot: 1,
            index: 1,
            value: f64::MAX,
        };
        assert_eq!(
            terms.evaluate(&big, 0.0, &q, &qd, Some(&[0.0, -f64::MAX]), Terms::Forces),
            Err(ModelError::NonFinite {
                what: "u - h",
                index: 1
            })
        );
    }
}
