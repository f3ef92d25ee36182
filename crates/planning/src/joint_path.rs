//! Joint-space paths q = Q(s) with B = Q′ and B̄ = Q″, Huang (4.2.2), (4.3.2).
//!
//! A workspace path P(s) becomes a joint path through a kinematic map p = H(q):
//! `Q(s) = H⁻¹(P(s))`, and differentiating `P = H(Q)` twice,
//!
//! ```text
//! J_H B = P′,     J_H B̄ = P″ − J̇_H(q, B) B          (J_H = ∂H/∂q, square)
//! ```
//!
//! [`CartesianJointPath`] is the identity map (Huang's Cartesian robot, q = p);
//! [`IkJointPath`] works for any square [`Kinematics`].

use crate::error::PlanningError;
use crate::path::Path;
use contour_model::pool::Pool;
use faer::prelude::*;

/// A joint path `q = Q(s)` with its derivatives.
pub trait JointPath {
    /// Number of joints N.
    fn dof(&self) -> usize;
    /// The underlying workspace path (segments, kinds, breakpoints).
    fn path(&self) -> &Path;
    /// Writes `Q(s)`, `B = Q′(s)`, `B̄ = Q″(s)` using segment `seg`, Huang (4.3.2).
    fn eval(
        &self,
        seg: usize,
        s: f64,
        q: &mut [f64],
        b: &mut [f64],
        bbar: &mut [f64],
    ) -> Result<(), PlanningError>;
}

/// Identity kinematics `q = p` (a Cartesian robot, Huang 6.1): Q = P, B = P′, B̄ = P″.
#[derive(Clone, Debug)]
pub struct CartesianJointPath {
    path: Path,
}

impl CartesianJointPath {
    /// Wraps a workspace path whose points are joint coordinates.
    pub fn new(path: Path) -> Self {
        Self { path }
    }
}

impl JointPath for CartesianJointPath {
    fn dof(&self) -> usize {
        self.path.dim()
    }
    fn path(&self) -> &Path {
        &self.path
    }
    fn eval(
        &self,
        seg: usize,
        s: f64,
        q: &mut [f64],
        b: &mut [f64],
        bbar: &mut [f64],
    ) -> Result<(), PlanningError> {
        self.path.eval_on(seg, s, q, b, bbar)
    }
}

/// A square kinematic map p = H(q) (n = N) with its inverse.
pub trait Kinematics {
    /// N = n.
    fn dim(&self) -> usize;
    /// `p = H(q)`.
    fn forward(&self, q: &[f64], p: &mut [f64]);
    /// `J_H(q) = ∂H/∂q` (N×N).
    fn jacobian(&self, q: &[f64], j: MatMut<'_, f64>);
    /// `J̇_H(q, q̇) q̇` (the velocity-product term of P″).
    fn jacobian_dot_qd(&self, q: &[f64], qd: &[f64], out: &mut [f64]);
    /// An initial guess for `H⁻¹(p)` (e.g. the elbow-up closed form); refined by Newton.
    fn inverse_guess(&self, p: &[f64], q: &mut [f64]);
}

#[derive(Clone)]
struct IkScratch {
    p: Vec<f64>,
    dp: Vec<f64>,
    ddp: Vec<f64>,
    h: Vec<f64>,
    r: Vec<f64>,
    j: Mat<f64>,
}

/// Joint path through a general square [`Kinematics`] (Newton-refined inverse kinematics).
///
/// Each evaluation runs Newton from [`Kinematics::inverse_guess`] and factors J_H once
/// (a small allocation per call).
pub struct IkJointPath<K: Kinematics> {
    path: Path,
    kin: K,
    scratch: Pool<IkScratch>,
}

impl<K: Kinematics> IkJointPath<K> {
    /// Builds the joint path; the path dimension must equal the kinematics' dimension.
    pub fn new(path: Path, kin: K) -> Result<Self, PlanningError> {
        let n = kin.dim();
        if path.dim() != n {
            return Err(PlanningError::DimensionMismatch {
                what: "path dimension vs kinematics",
                expected: n,
                found: path.dim(),
            });
        }
        let scratch = IkScratch {
            p: vec![0.0; n],
            dp: vec![0.0; n],
            ddp: vec![0.0; n],
            h: vec![0.0; n],
            r: vec![0.0; n],
            j: Mat::zeros(n, n),
        };
        Ok(Self {
            path,
            kin,
            scratch: Pool::new(scratch),
        })
    }

    /// The kinematic map.
    pub fn kinematics(&self) -> &K {
        &self.kin
    }
}

impl<K: Kinematics> JointPath for IkJointPath<K> {
    fn dof(&self) -> usize {
        self.kin.dim()
    }
    fn path(&self) -> &Path {
        &self.path
    }
    fn eval(
        &self,
        seg: usize,
        s: f64,
        q: &mut [f64],
        b: &mut [f64],
        bbar: &mut [f64],
    ) -> Result<(), PlanningError> {
        let n = self.kin.dim();
        for (what, v) in [("q", &*q), ("b", &*b), ("bbar", &*bbar)] {
            if v.len() != n {
                return Err(PlanningError::DimensionMismatch {
                    what,
                    expected: n,
                    found: v.len(),
                });
            }
        }
        let mut guard = self.scratch.get();
        let w = &mut *guard;
        self.path.eval_on(seg, s, &mut w.p, &mut w.dp, &mut w.ddp)?;
        self.kin.inverse_guess(&w.p, q);
        // Newton on H(q) = P(s)
        let scale = 1.0 + w.p.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let mut res = f64::INFINITY;
        for _ in 0..50 {
            self.kin.forward(q, &mut w.h);
            res = 0.0;
            for k in 0..n {
                w.r[k] = w.p[k] - w.h[k];
                res = res.max(w.r[k].abs());
            }
            if res <= 1e-14 * scale {
                break;
            }
            self.kin.jacobian(q, w.j.as_mut());
            let rhs = Mat::from_fn(n, 1, |i, _| w.r[i]);
            let dq = w.j.partial_piv_lu().solve(&rhs);
            for k in 0..n {
                q[k] += dq[(k, 0)];
            }
        }
        if res.is_nan() || res > 1e-10 * scale {
            return Err(PlanningError::InverseKinematics { s, residual: res });
        }
        self.kin.jacobian(q, w.j.as_mut());
        let lu = w.j.partial_piv_lu();
        let rhs = Mat::from_fn(n, 1, |i, _| w.dp[i]);
        let bb = lu.solve(&rhs);
        for k in 0..n {
            b[k] = bb[(k, 0)];
            if !b[k].is_finite() {
                return Err(PlanningError::Singular {
                    what: "kinematic Jacobian J_H",
                });
            }
        }
        self.kin.jacobian_dot_qd(q, b, &mut w.h);
        let rhs2 = Mat::from_fn(n, 1, |i, _| w.ddp[i] - w.h[i]);
        let b2 = lu.solve(&rhs2);
        for k in 0..n {
            bbar[k] = b2[(k, 0)];
        }
        Ok(())
    }
}
