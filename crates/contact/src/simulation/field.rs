//! The field integrated on one segment: `y = (q, q̇)` with a fixed active set and friction
//! mode (MSU / MSC), and Huang's index-1 residual in `(q, q̇, λ_A)` for the BDF2 of his scheme.

use super::*;

/// Right-hand side `y = (q, q̇)` with a fixed active set and friction mode.
pub(super) struct SegmentRhs<'a, M: ?Sized> {
    pub(super) mech: &'a M,
    pub(super) dyn_: ContactDynamics,
    pub(super) active: Vec<usize>,
    pub(super) friction: FrictionMode,
    pub(super) lam: Vec<f64>,
    pub(super) n: usize,
    pub(super) evals: u64,
    /// Largest time passed to the model: just before a breakpoint ending the segment, so
    /// that the last stage of a step still sees the forces of the current segment.
    pub(super) t_cap: f64,
}

impl<M: Mechanism + ?Sized> SegmentRhs<'_, M> {
    pub(super) fn accel(&mut self, t: f64, y: &[f64], qdd: &mut [f64]) -> Result<(), ContactError> {
        let n = self.n;
        self.evals += 1;
        let t = t.min(self.t_cap);
        self.dyn_.evaluate_in(self.mech, t, &y[..n], &y[n..])?;
        self.dyn_
            .accelerations_in(&self.active, self.friction, &y[n..], qdd, &mut self.lam)
    }
}

impl<M: Mechanism + ?Sized> OdeRhs for SegmentRhs<'_, M> {
    fn dim(&self) -> usize {
        2 * self.n
    }
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        let n = self.n;
        dy[..n].copy_from_slice(&y[n..]);
        let (_, acc) = dy.split_at_mut(n);
        self.accel(t, y, acc).map_err(|_| RhsError::Failed)
    }
}

/// Residual of Huang's index-1 constrained model, `y = (q, q̇, λ_A)`.
pub(super) struct HuangDae<'a, 'b, M: ?Sized> {
    pub(super) rhs: &'b mut SegmentRhs<'a, M>,
    pub(super) mu: f64,
}

impl<M: Mechanism + ?Sized> DaeResidual for HuangDae<'_, '_, M> {
    fn dim(&self) -> usize {
        2 * self.rhs.n + self.rhs.active.len()
    }
    fn residual(&mut self, t: f64, y: &[f64], yp: &[f64], r: &mut [f64]) -> Result<(), RhsError> {
        let n = self.rhs.n;
        let s = &mut *self.rhs;
        s.evals += 1;
        let t = t.min(s.t_cap);
        s.dyn_
            .evaluate_in(s.mech, t, &y[..n], &y[n..2 * n])
            .map_err(|_| RhsError::Failed)?;
        for i in 0..n {
            r[i] = yp[i] - y[n + i];
        }
        let (_, rest) = r.split_at_mut(n);
        let (r_v, r_l) = rest.split_at_mut(n);
        s.dyn_.index1_residual_in(
            &s.active,
            self.mu,
            &y[n..2 * n],
            &yp[n..2 * n],
            &y[2 * n..],
            r_v,
            r_l,
        );
        Ok(())
    }
}
