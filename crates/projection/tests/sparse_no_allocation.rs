//! The sparse path ([`contour_projection::sparse`]) does not touch the heap once its
//! workspaces exist: ABM steps of Procedure P1 on A02 (N = 10) whose every evaluation is the
//! sparse KKT solve (numeric `LDLᵀ` and refinement) and whose correction is the sparse one,
//! with the sparse violation monitor. Counted on the measuring thread only
//! (`allocation-counter`), after a live check of the counter.

use contour_model::models::NFourBar;
use contour_model::Mechanism;
use contour_ode::{AbmConfig, AdamsBashforthMoulton, Advance, OdeRhs, RhsError, Stepper};
use contour_projection::sparse::{SparseDynamics, SparseProjection};
use contour_projection::ErrorControl;

/// `ẋ = (q̇, q̈)` by the sparse path only (a decline is a test failure).
struct SparseRhs<'m> {
    mech: &'m NFourBar,
    dynamics: SparseDynamics,
}

impl OdeRhs for SparseRhs<'_> {
    fn dim(&self) -> usize {
        2 * self.mech.dof()
    }
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        let n = self.mech.dof();
        let (q, qd) = y.split_at(n);
        let (dq, qdd) = dy.split_at_mut(n);
        dq.copy_from_slice(qd);
        match self.dynamics.accelerations(self.mech, t, q, qd, qdd) {
            Ok(true) => Ok(()),
            _ => Err(RhsError::Failed),
        }
    }
}

#[test]
fn sparse_perturbation_steps_do_not_allocate() {
    let p = NFourBar::new(10);
    let n = p.dof();
    let pattern = p.sparsity().unwrap();
    let (q0, qd0) = p.state(1.2, 1.0);
    let x0: Vec<f64> = q0.iter().chain(&qd0).copied().collect();
    let ec = ErrorControl::absolute(1e-6);
    let mut rhs = SparseRhs {
        mech: &p,
        dynamics: SparseDynamics::new(&p, &pattern).unwrap(),
    };
    let mut proj = SparseProjection::new(&p, &pattern, ec, &Default::default()).unwrap();
    let tol = ec.scaled(0.5).to_ode(2 * n);
    let mut s = AdamsBashforthMoulton::new(0.0, &x0, tol, AbmConfig::default()).unwrap();
    let mut xnew = vec![0.0; 2 * n];
    let mut step = |s: &mut AdamsBashforthMoulton, rhs: &mut SparseRhs<'_>| {
        let info = s.step(rhs).unwrap();
        let o = proj.project(&p, info.t, s.y(), &mut xnew).unwrap();
        assert!(o.converged && o.norm <= 0.5, "{o:?}");
        s.replace_y(rhs, &xnew).unwrap();
        let (ph, _) = proj.violations(&p, info.t, s.y());
        assert!(ph < 1e-13, "{ph:e}");
    };
    for _ in 0..5 {
        step(&mut s, &mut rhs);
    }
    let live = allocation_counter::measure(|| {
        std::hint::black_box(Box::new(1.0f64));
    });
    assert_eq!(live.count_total, 1, "allocation counter not installed");
    let st = allocation_counter::measure(|| {
        for _ in 0..50 {
            step(&mut s, &mut rhs);
        }
    });
    assert_eq!(
        st.count_total, 0,
        "allocations inside sparse P1 steps: {st:?}"
    );
    assert!(rhs.dynamics.evals > 100 && rhs.dynamics.fallbacks == 0);
    // a correction refused far above its round-off: the refusal certificate (inverse
    // iteration with the sparse factor) keeps it without the dense path, and allocates nothing
    let mut far = s.y().to_vec();
    far[0] += 1e-4;
    let t = s.t();
    let refused = allocation_counter::measure(|| {
        let o = proj.project(&p, t, &far, &mut xnew).unwrap();
        assert!(o.norm > 0.5, "{o:?}");
    });
    assert_eq!(
        refused.count_total, 0,
        "allocations in a certified refusal: {refused:?}"
    );
    assert_eq!(proj.certified_refusals, 1);
}
