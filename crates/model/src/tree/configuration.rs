//! The configuration space of a [`KinematicTree`] as the product of its joints' groups
//! (Pinocchio's `neutral`, `integrate`, `difference`, `randomConfiguration`): each joint
//! acts on its block `q[idx_q..idx_q + nq_i]`, `v[idx_v..idx_v + nv_i]`
//! ([`super::joint::JointKind`]). [`Product`] checks the arguments once and runs the joints'
//! blocks; a single [`Joint`] is the product of one factor.

use super::{Joint, KinematicTree};
use crate::rng::SplitMix64;
use crate::validate::{check_finite, check_len};
use crate::ModelError;

/// The names of the checked arguments in errors.
pub(crate) struct Names {
    q: &'static str,
    q0: &'static str,
    q1: &'static str,
    v: &'static str,
    q_out: &'static str,
    v_out: &'static str,
    lower: &'static str,
    upper: &'static str,
}

/// A product of joint groups: `joints[i]` acts on `q[idx_q[i]..]` and `v[idx_v[i]..]`.
pub(crate) struct Product<'a> {
    pub(crate) joints: &'a [Joint],
    pub(crate) idx_q: &'a [usize],
    pub(crate) idx_v: &'a [usize],
    pub(crate) nq: usize,
    pub(crate) nv: usize,
    pub(crate) names: &'static Names,
}

const TREE: Names = Names {
    q: "q",
    q0: "q0",
    q1: "q1",
    v: "v",
    q_out: "q out",
    v_out: "v out",
    lower: "lower limit",
    upper: "upper limit",
};

const JOINT: Names = Names {
    q: "joint q",
    q0: "joint q0",
    q1: "joint q1",
    v: "joint v",
    q_out: "joint q out",
    v_out: "joint v out",
    lower: "joint lower limit",
    upper: "joint upper limit",
};

impl<'a> Product<'a> {
    /// One joint as a product of one factor.
    pub(crate) fn single(joint: &'a Joint) -> Self {
        Self {
            joints: std::slice::from_ref(joint),
            idx_q: &[0],
            idx_v: &[0],
            nq: joint.nq(),
            nv: joint.nv(),
            names: &JOINT,
        }
    }

    /// Each joint's kind with its `q` and `v` ranges (fixed joints have none).
    fn blocks(
        &self,
    ) -> impl Iterator<Item = (&'a Joint, std::ops::Range<usize>, std::ops::Range<usize>)> + '_
    {
        self.joints.iter().enumerate().map(|(i, j)| {
            let (iq, iv) = (self.idx_q[i], self.idx_v[i]);
            (j, iq..iq + j.nq(), iv..iv + j.nv())
        })
    }

    fn check_q(&self, what: &'static str, q: &[f64]) -> Result<(), ModelError> {
        check_len(what, q, self.nq)?;
        check_finite(what, q)
    }

    pub(crate) fn neutral(&self, q: &mut [f64]) -> Result<(), ModelError> {
        check_len(self.names.q_out, q, self.nq)?;
        for (j, rq, _) in self.blocks() {
            j.with_kind(|k| k.neutral(&mut q[rq]));
        }
        Ok(())
    }

    pub(crate) fn integrate(
        &self,
        q: &[f64],
        v: &[f64],
        dt: f64,
        out: &mut [f64],
    ) -> Result<(), ModelError> {
        self.check_q(self.names.q, q)?;
        check_len(self.names.v, v, self.nv)?;
        check_finite(self.names.v, v)?;
        check_len(self.names.q_out, out, self.nq)?;
        for (j, rq, rv) in self.blocks() {
            j.with_kind(|k| k.integrate(&q[rq.clone()], &v[rv], dt, &mut out[rq]));
        }
        check_finite(self.names.q_out, out)
    }

    pub(crate) fn difference(
        &self,
        q0: &[f64],
        q1: &[f64],
        out: &mut [f64],
    ) -> Result<(), ModelError> {
        self.check_q(self.names.q0, q0)?;
        self.check_q(self.names.q1, q1)?;
        check_len(self.names.v_out, out, self.nv)?;
        for (j, rq, rv) in self.blocks() {
            j.with_kind(|k| k.difference(&q0[rq.clone()], &q1[rq], &mut out[rv]));
        }
        check_finite(self.names.v_out, out)
    }

    pub(crate) fn random_configuration(
        &self,
        rng: &mut SplitMix64,
        lower: &[f64],
        upper: &[f64],
        out: &mut [f64],
    ) -> Result<(), ModelError> {
        check_len(self.names.lower, lower, self.nq)?;
        check_len(self.names.upper, upper, self.nq)?;
        check_len(self.names.q_out, out, self.nq)?;
        for (j, rq, _) in self.blocks() {
            let (lo, hi) = (&lower[rq.clone()], &upper[rq.clone()]);
            j.with_kind(|k| k.random_configuration(rng, lo, hi, &mut out[rq]))
                .unwrap_or(Ok(()))?;
        }
        Ok(())
    }
}

impl KinematicTree {
    fn product(&self) -> Product<'_> {
        Product {
            joints: &self.joint,
            idx_q: &self.idx_q,
            idx_v: &self.idx_v,
            nq: self.nq,
            nv: self.dof,
            names: &TREE,
        }
    }

    /// The neutral configuration (every `X_J = 1`) into `q` (length `nq`).
    ///
    /// Errors: [`ModelError::DimensionMismatch`] for `q`.
    pub fn neutral(&self, q: &mut [f64]) -> Result<(), ModelError> {
        self.product().neutral(q)
    }

    /// `q ⊕ v dt` into `out`, joint by joint (Pinocchio's `integrate(model, q, v dt)`).
    ///
    /// Errors: [`ModelError::DimensionMismatch`] and [`ModelError::NonFinite`] for `q`, `v`
    /// and `out`.
    pub fn integrate(
        &self,
        q: &[f64],
        v: &[f64],
        dt: f64,
        out: &mut [f64],
    ) -> Result<(), ModelError> {
        self.product().integrate(q, v, dt, out)
    }

    /// `q1 ⊖ q0` into `out` (length `nv`), joint by joint (Pinocchio's `difference`).
    ///
    /// Errors: [`ModelError::DimensionMismatch`] and [`ModelError::NonFinite`] for the
    /// arguments.
    pub fn difference(&self, q0: &[f64], q1: &[f64], out: &mut [f64]) -> Result<(), ModelError> {
        self.product().difference(q0, q1, out)
    }

    /// A random configuration into `out`: uniform within `[lower, upper]` (length `nq`) for
    /// the bounded coordinates, uniform on the circle or on SO(3) for the others.
    ///
    /// Errors: [`ModelError::DimensionMismatch`] for the lengths;
    /// [`ModelError::InvalidParameter`] for a bound used that is not finite.
    pub fn random_configuration(
        &self,
        rng: &mut SplitMix64,
        lower: &[f64],
        upper: &[f64],
        out: &mut [f64],
    ) -> Result<(), ModelError> {
        self.product().random_configuration(rng, lower, upper, out)
    }
}
