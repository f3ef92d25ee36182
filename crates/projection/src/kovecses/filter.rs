//! The per-step part of the projector method: configuration correction, Kövecses (35)
//! (quasi-iterative, directions frozen at `q_i`) or (36) (iterative), then the velocity
//! filtering (33), on the accepted state.

use contour_linalg::{Cholesky, WeightedProjectors};
use contour_model::{Mechanism, ModelError};
use faer::Mat;

use super::config::{ConfigurationCorrection, CorrectionCount, ProjectorConfig, VelocityFiltering};
use super::dynamics::{check_finite, projectors_at};
use crate::error::ProjectionError;

/// What one [`ConstraintFilter::apply`] did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CorrectionOutcome {
    /// Configuration corrections applied.
    pub corrections: usize,
    /// `‖φ‖₂` before the first correction.
    pub phi_before: f64,
    /// `‖φ‖₂` after the last correction when it was evaluated (tolerance mode), else NaN.
    pub phi_after: f64,
    /// Whether the velocities were filtered.
    pub filtered: bool,
}

/// The per-step part of the projector method: configuration correction (35)/(36), then
/// velocity filtering (33), in preallocated storage ([`ConstraintFilter::apply`] does not
/// allocate).
#[derive(Debug)]
pub struct ConstraintFilter {
    cfg: ProjectorConfig,
    n: usize,
    l: usize,
    eval: ProjectorEvaluation,
    cur: WeightedProjectors,
    prev: WeightedProjectors,
    prev_valid: bool,
    t_prev: f64,
    q_prev: Vec<f64>,
    phi: Vec<f64>,
    b: Vec<f64>,
    v: Vec<f64>,
    /// Configuration corrections applied so far.
    pub corrections: usize,
    /// Velocity filterings applied so far.
    pub filterings: usize,
    /// Projector evaluations (Cholesky of `M` + SVD of `A L⁻ᵀ`) so far.
    pub projector_evaluations: usize,
}

/// `M`, `A` and the Cholesky factor behind one evaluation of the projectors.
#[derive(Debug)]
struct ProjectorEvaluation {
    m: Mat<f64>,
    a: Mat<f64>,
    chol: Cholesky,
    rank_rtol: f64,
}

impl ProjectorEvaluation {
    /// The projectors of Kövecses (18) at `(t, q)` into `proj`.
    fn at<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        q: &[f64],
        proj: &mut WeightedProjectors,
    ) -> Result<(), ModelError> {
        let Self {
            m,
            a,
            chol,
            rank_rtol,
        } = self;
        projectors_at(mech, t, q, m, a, chol, proj, *rank_rtol)
    }
}

impl ConstraintFilter {
    /// Workspace for `mech`; the previous state is unset until [`ConstraintFilter::set_previous`].
    pub fn new<M: Mechanism + ?Sized>(
        mech: &M,
        cfg: &ProjectorConfig,
    ) -> Result<Self, ProjectionError> {
        cfg.validate()?;
        let (n, l) = (mech.dof(), mech.n_constraints());
        Ok(Self {
            cfg: *cfg,
            n,
            l,
            eval: ProjectorEvaluation {
                m: Mat::zeros(n, n),
                a: Mat::zeros(l, n),
                chol: Cholesky::new(n),
                rank_rtol: cfg.rank_rtol,
            },
            cur: WeightedProjectors::new(n, l),
            prev: WeightedProjectors::new(n, l),
            prev_valid: false,
            t_prev: f64::NAN,
            q_prev: vec![0.0; n],
            phi: vec![0.0; l],
            b: vec![0.0; l],
            v: vec![0.0; n],
            corrections: 0,
            filterings: 0,
            projector_evaluations: 0,
        })
    }

    /// Sets the previous accepted point `(t_i, x_i)` (`x = (q, q̇)`), whose directions (35)
    /// and [`VelocityFiltering::AtPreviousConfiguration`] use.
    pub fn set_previous(&mut self, t: f64, x: &[f64]) -> Result<(), ProjectionError> {
        self.check_x(x)?;
        self.t_prev = t;
        self.q_prev.copy_from_slice(&x[..self.n]);
        self.prev_valid = false;
        Ok(())
    }

    fn check_x(&self, x: &[f64]) -> Result<(), ProjectionError> {
        if x.len() != 2 * self.n {
            return Err(ProjectionError::DimensionMismatch {
                what: "x",
                expected: 2 * self.n,
                found: x.len(),
            });
        }
        check_finite("x", x)?;
        Ok(())
    }

    fn ensure_prev<M: Mechanism + ?Sized>(&mut self, mech: &M) -> Result<(), ProjectionError> {
        if !self.prev_valid {
            if !self.t_prev.is_finite() {
                return Err(ProjectionError::InvalidTimeSpan {
                    t0: self.t_prev,
                    t: self.t_prev,
                });
            }
            self.eval
                .at(mech, self.t_prev, &self.q_prev, &mut self.prev)?;
            self.projector_evaluations += 1;
            self.prev_valid = true;
        }
        Ok(())
    }

    /// Corrects the accepted state `x = (q_{i+1}, q̇_{i+1})` at `t = t_{i+1}` in place:
    /// configuration corrections (35)/(36), then the velocity filtering (33). Afterwards
    /// `(t, x)` is the previous point of the next call. Does not allocate.
    ///
    /// Errors: wrong length or non-finite `x`, a non-positive-definite `M`, non-finite model
    /// outputs; [`ProjectionError::NoConvergence`] when a tolerance is not met within `max`.
    pub fn apply<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        x: &mut [f64],
    ) -> Result<CorrectionOutcome, ProjectionError> {
        self.check_x(x)?;
        let (n, l) = (self.n, self.l);
        let mut out = CorrectionOutcome {
            corrections: 0,
            phi_before: f64::NAN,
            phi_after: f64::NAN,
            filtered: false,
        };
        if l == 0 {
            return Ok(out);
        }
        let mut cur_at_q = false;
        let (fixed, tol, max) = match self.cfg.corrections {
            CorrectionCount::Fixed(k) => (true, 0.0, k),
            CorrectionCount::ToTolerance { tol, max } => (false, tol, max),
        };
        if self.cfg.correction != ConfigurationCorrection::Off && (max > 0 || !fixed) {
            if self.cfg.correction == ConfigurationCorrection::QuasiIterative {
                self.ensure_prev(mech)?;
            }
            let mut k = 0usize;
            loop {
                if fixed && k == max {
                    break;
                }
                mech.constraints(t, &x[..n], &mut self.phi);
                check_finite("phi", &self.phi)?;
                let res = self.phi.iter().map(|v| v * v).sum::<f64>().sqrt();
                if k == 0 {
                    out.phi_before = res;
                }
                if !fixed {
                    out.phi_after = res;
                    if res <= tol {
                        break;
                    }
                    if k == max {
                        return Err(ProjectionError::NoConvergence {
                            t,
                            iterations: k,
                            residual: res,
                        });
                    }
                }
                let w = match self.cfg.correction {
                    // Kövecses (35): W(q_i), frozen.
                    ConfigurationCorrection::QuasiIterative => self.prev.w(),
                    // Kövecses (36): W(q^k).
                    _ => {
                        self.eval.at(mech, t, &x[..n], &mut self.cur)?;
                        self.projector_evaluations += 1;
                        self.cur.w()
                    }
                };
                // q^{k+1} = q^k − W h^k
                for i in 0..n {
                    let mut s = 0.0;
                    for j in 0..l {
                        s += w[(i, j)] * self.phi[j];
                    }
                    x[i] -= s;
                }
                k += 1;
            }
            out.corrections = k;
            self.corrections += k;
        }
        match self.cfg.velocity_filtering {
            VelocityFiltering::Off => {}
            vf => {
                let proj = if vf == VelocityFiltering::AtNewConfiguration {
                    self.eval.at(mech, t, &x[..n], &mut self.cur)?;
                    self.projector_evaluations += 1;
                    cur_at_q = true;
                    &self.cur
                } else {
                    self.ensure_prev(mech)?;
                    &self.prev
                };
                mech.constraint_rate_bias(t, &x[..n], &mut self.b);
                check_finite("rate bias", &self.b)?;
                // Kövecses (33): q̇ = −W b + P_a q̇.
                let (w, pa) = (proj.w(), proj.p_a());
                for i in 0..n {
                    let mut s = 0.0;
                    for k in 0..n {
                        s += pa[(i, k)] * x[n + k];
                    }
                    for j in 0..l {
                        s -= w[(i, j)] * self.b[j];
                    }
                    self.v[i] = s;
                }
                x[n..].copy_from_slice(&self.v);
                out.filtered = true;
                self.filterings += 1;
            }
        }
        check_finite("x", x)?;
        // The corrected point is the next call's q_i; the projectors at it are reusable.
        self.t_prev = t;
        self.q_prev.copy_from_slice(&x[..n]);
        if cur_at_q {
            std::mem::swap(&mut self.cur, &mut self.prev);
            self.prev_valid = true;
        } else {
            self.prev_valid = false;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contour_model::models::Pendulum;

    /// On the pendulum (circle of radius ℓ) the corrections (36) move the point radially
    /// (M = mI: the M-weighted minimum-norm step is the Euclidean one), and the filtering
    /// removes the radial velocity exactly (33).
    #[test]
    fn pendulum_filter_is_radial() {
        let p = Pendulum::default();
        let (q, qd) = p.state(0.7, 1.3);
        let x_prev = [q[0], q[1], qd[0], qd[1]];
        let mut x = [
            q[0] * 1.001,
            q[1] * 1.001,
            qd[0] + 1e-3 * q[0],
            qd[1] + 1e-3 * q[1],
        ];
        let cfg = ProjectorConfig {
            corrections: CorrectionCount::ToTolerance {
                tol: 1e-15,
                max: 10,
            },
            ..ProjectorConfig::default()
        };
        let mut f = ConstraintFilter::new(&p, &cfg).unwrap();
        f.set_previous(0.0, &x_prev).unwrap();
        let o = f.apply(&p, 0.0, &mut x).unwrap();
        assert!(
            o.filtered && o.corrections >= 2 && o.corrections <= 4,
            "{o:?}"
        );
        for i in 0..4 {
            assert!((x[i] - x_prev[i]).abs() <= 1e-14, "{x:?} vs {x_prev:?}");
        }
        assert_eq!((f.corrections, f.filterings), (o.corrections, 1));
        assert_eq!(f.projector_evaluations, o.corrections + 1);
    }
}
