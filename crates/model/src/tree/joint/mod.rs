//! Joint kinds: one file per kind, each implementing [`JointKind`] (RBDA §4.4, Table 4.1;
//! Pinocchio's joint models and Lie groups, whose conventions are kept so that users can swap).
//!
//! A joint of kind `K` has `nq` configuration coordinates and `nv` velocity coordinates
//! (`nq ≠ nv` for the kinds that carry a unit quaternion or a `(cos, sin)` pair):
//!
//! ```text
//! X_J(q)             predecessor → successor frame (RBDA (4.5); Pinocchio's placement M = X_J⁻¹)
//! v_J = S v,  c_J = Ṡ v      S: 6 × nv, in successor coordinates (RBDA (4.12)–(4.13))
//! q ⊕ v dt = integrate(q, v, dt),  q1 ⊖ q0 = difference(q0, q1)    (Sola (25)–(26), right-⊕)
//! ```
//!
//! | kind | q | v | group |
//! |---|---|---|---|
//! | [`Revolute`] | `θ` | `θ̇` | ℝ |
//! | [`Prismatic`] | `d` | `ḋ` | ℝ |
//! | [`RevoluteUnbounded`] | `(cos θ, sin θ)` | `θ̇` | SO(2) |
//! | [`Spherical`] | `(qx, qy, qz, qw)` | `ω` (successor frame) | SO(3) |
//! | [`FreeFlyer`] | `(x, y, z, qx, qy, qz, qw)` | `(v, ω)` (successor frame) | SE(3) |
//! | [`Planar`] | `(x, y, cos θ, sin θ)` | `(vx, vy, ω)` (successor frame) | SE(2) |
//!
//! Velocities are twists in the successor (body) frame, so `S` is constant and `c_J = 0` for
//! every kind here. [`Joint`] is the tree's value type that dispatches to these kinds.

mod dispatch;
mod free_flyer;
pub(crate) mod lie;
mod planar;
mod prismatic;
mod revolute;
mod revolute_unbounded;
mod spherical;

pub use dispatch::Joint;
pub(crate) use dispatch::JointModel;
pub use free_flyer::FreeFlyer;
pub use planar::Planar;
pub use prismatic::Prismatic;
pub use revolute::Revolute;
pub use revolute_unbounded::RevoluteUnbounded;
pub use spherical::Spherical;

use crate::rng::SplitMix64;
use crate::spatial::{Motion, Transform};
use crate::ModelError;

/// One kind of joint: its configuration space (a Lie group of dimension `nv` embedded in
/// `ℝ^nq`), its transform and motion subspace. Slices have the lengths `nq` and `nv` of the
/// kind; the checked entry points are [`Joint`]'s methods and the tree's.
///
/// The provided group operations are those of the vector space `ℝ^nv` (`nq = nv`,
/// `q ⊕ v dt = q + v dt`, neutral `0`): a kind on another group overrides them.
pub trait JointKind {
    /// Number of velocity coordinates (degrees of freedom).
    fn nv(&self) -> usize;
    /// Number of configuration coordinates (`nv` for a vector space).
    fn nq(&self) -> usize {
        self.nv()
    }
    /// `X_J(q)`: predecessor → successor transform.
    fn transform(&self, q: &[f64]) -> Transform;
    /// The `nv` columns of `S` (successor coordinates) into `s`.
    fn motion_subspace(&self, s: &mut [Motion]);
    /// `c_J = Ṡ v`: zero for a subspace constant in the successor frame (every kind here).
    fn bias(&self, _q: &[f64], _v: &[f64]) -> Motion {
        Motion::ZERO
    }
    /// `q ⊕ v dt` into `out` (`v` held constant over `dt` in the successor frame).
    fn integrate(&self, q: &[f64], v: &[f64], dt: f64, out: &mut [f64]) {
        for ((o, q), v) in out.iter_mut().zip(q).zip(v) {
            *o = q + v * dt;
        }
    }
    /// `q1 ⊖ q0`: the `v` with `integrate(q0, v, 1) = q1` into `out`.
    fn difference(&self, q0: &[f64], q1: &[f64], out: &mut [f64]) {
        for ((o, a), b) in out.iter_mut().zip(q0).zip(q1) {
            *o = b - a;
        }
    }
    /// The neutral configuration (`X_J = 1`) into `out`.
    fn neutral(&self, out: &mut [f64]) {
        out[..self.nq()].fill(0.0);
    }
    /// How many leading coordinates the joint limits bound (the translation part; all of
    /// them for a vector space).
    fn n_bounded(&self) -> usize {
        self.nq()
    }
    /// A uniform sample of the coordinates after the bounded ones (on the circle or on SO(3))
    /// into `out`; nothing for a vector space.
    fn random_unbounded(&self, _rng: &mut SplitMix64, _out: &mut [f64]) {}
    /// A random configuration into `out`: uniform within `[lower, upper]` (length `nq`) for
    /// the [`JointKind::n_bounded`] leading coordinates, then
    /// [`JointKind::random_unbounded`] for the others.
    ///
    /// Errors: [`ModelError::InvalidParameter`] for a bound used that is not finite or an
    /// interval with `lower > upper`.
    fn random_configuration(
        &self,
        rng: &mut SplitMix64,
        lower: &[f64],
        upper: &[f64],
        out: &mut [f64],
    ) -> Result<(), ModelError> {
        let nb = self.n_bounded();
        for k in 0..nb {
            out[k] = bounded(rng, lower[k], upper[k])?;
        }
        self.random_unbounded(rng, &mut out[nb..self.nq()]);
        Ok(())
    }
}

/// Column `k` of the identity as an angular motion `[e_k; 0]`.
pub(crate) fn e_angular(k: usize) -> Motion {
    let mut e = [0.0; 3];
    e[k] = 1.0;
    Motion::new(e, [0.0; 3])
}

/// Column `k` of the identity as a linear motion `[0; e_k]`.
pub(crate) fn e_linear(k: usize) -> Motion {
    let mut e = [0.0; 3];
    e[k] = 1.0;
    Motion::new([0.0; 3], e)
}

/// A uniform sample in `[lo, hi]`, both finite.
pub(crate) fn bounded(rng: &mut SplitMix64, lo: f64, hi: f64) -> Result<f64, ModelError> {
    for value in [lo, hi] {
        if !value.is_finite() {
            return Err(ModelError::InvalidParameter {
                what: "joint limit (random configuration needs finite bounds)",
                value,
            });
        }
    }
    if lo > hi {
        return Err(ModelError::InvalidParameter {
            what: "joint limit interval (lower > upper)",
            value: lo - hi,
        });
    }
    Ok(rng.uniform(lo, hi))
}

#[cfg(test)]
mod tests;
