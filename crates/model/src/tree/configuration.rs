//! The configuration space of a [`KinematicTree`] as the product of its joints' groups
//! (Pinocchio's `neutral`, `integrate`, `difference`, `randomConfiguration`): each joint
//! acts on its block `q[idx_q..idx_q + nq_i]`, `v[idx_v..idx_v + nv_i]`
//! ([`super::joint::JointKind`]).

use super::KinematicTree;
use crate::rng::SplitMix64;
use crate::validate::{check_finite, check_len};
use crate::ModelError;

impl KinematicTree {
    /// Body `i`'s blocks `(idx_q, nq_i, idx_v, nv_i)`.
    fn blocks(&self, i: usize) -> (usize, usize, usize, usize) {
        let j = &self.joint[i];
        (self.idx_q[i], j.nq(), self.idx_v[i], j.nv())
    }

    /// The neutral configuration (every `X_J = 1`) into `q` (length `nq`).
    ///
    /// Errors: [`ModelError::DimensionMismatch`] for `q`.
    pub fn neutral(&self, q: &mut [f64]) -> Result<(), ModelError> {
        check_len("q", q, self.nq)?;
        for i in 0..self.n_bodies() {
            let (iq, nq, _, _) = self.blocks(i);
            self.joint[i].neutral(&mut q[iq..iq + nq])?;
        }
        Ok(())
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
        self.check_q(q)?;
        self.check_qd(v)?;
        check_len("q out", out, self.nq)?;
        for i in 0..self.n_bodies() {
            let (iq, nq, iv, nv) = self.blocks(i);
            self.joint[i].integrate(&q[iq..iq + nq], &v[iv..iv + nv], dt, &mut out[iq..iq + nq])?;
        }
        check_finite("q out", out)
    }

    /// `q1 ⊖ q0` into `out` (length `nv`), joint by joint (Pinocchio's `difference`).
    ///
    /// Errors: [`ModelError::DimensionMismatch`] and [`ModelError::NonFinite`] for the
    /// arguments.
    pub fn difference(&self, q0: &[f64], q1: &[f64], out: &mut [f64]) -> Result<(), ModelError> {
        self.check_q(q0)?;
        self.check_q(q1)?;
        check_len("v out", out, self.dof)?;
        for i in 0..self.n_bodies() {
            let (iq, nq, iv, nv) = self.blocks(i);
            self.joint[i].difference(&q0[iq..iq + nq], &q1[iq..iq + nq], &mut out[iv..iv + nv])?;
        }
        check_finite("v out", out)
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
        check_len("lower limit", lower, self.nq)?;
        check_len("upper limit", upper, self.nq)?;
        check_len("q out", out, self.nq)?;
        for i in 0..self.n_bodies() {
            let (iq, nq, _, _) = self.blocks(i);
            let r = iq..iq + nq;
            self.joint[i].random_configuration(
                rng,
                &lower[r.clone()],
                &upper[r.clone()],
                &mut out[r],
            )?;
        }
        Ok(())
    }
}
