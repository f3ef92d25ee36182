//! # Contour
//!
//! The facade of the Contour workspace: one dependency that re-exports every crate.
//!
//! * [`linalg`] — dense kernels on faer (Cholesky, skinny QR, pseudo-inverse, weighted
//!   projectors, null space, KKT solves);
//! * [`model`] — the `Mechanism` trait, consistent states, constrained dynamics, the papers'
//!   models;
//! * [`ode`] — integrators (Adams–Bashforth–Moulton, Runge–Kutta–Gill, Dormand–Prince,
//!   variable-order BDF for DAEs, Huang's BDF2, singly-implicit RK), events, statistics;
//! * [`projection`] — the constraint-handling methods behind one `Simulation` driver;
//! * [`planning`] — paths, histories, phase-plane minimum time, TOPP-RA;
//! * [`contact`] — unilateral contact: entry/exit events, impact (LCP, restitution), Coulomb
//!   friction, Huang's scheme and a modern event-located scheme;
//! * [`viz`] — a self-contained HTML animation of any trajectory ([`animation`],
//!   [`plan_animation`]).
//!
//! Start with the examples in `crates/contour/examples/` (`cargo run -p contour --example
//! own_mechanism`): your own mechanism in a few lines, a closed loop from a kinematic tree,
//! an impacting contact, and a minimum-time plan for a 7-joint arm loaded from its URDF.
//! Each needs no dependency but `contour`.

/// The faer version every `Mechanism` method speaks (`faer::MatMut` for `M` and `J`): use
/// `contour::faer` rather than a faer dependency of your own, so the versions always match.
pub use faer;

pub use contour_contact as contact;
pub use contour_linalg as linalg;
pub use contour_model as model;
pub use contour_ode as ode;
pub use contour_planning as planning;
pub use contour_projection as projection;
pub use contour_trajectory as trajectory;
pub use contour_viz as viz;

/// Commonly used items: `use contour::prelude::*;` — what the examples need to write a model,
/// simulate it with any constraint method, simulate contact, and plan a minimum-time motion.
pub mod prelude {
    pub use faer::{Mat, MatMut, MatRef};

    pub use contour_linalg::{
        Cholesky, KktMethod, KktSolver, PseudoInverse, SkinnyQr, WeightedProjectors,
    };
    pub use contour_model::tree::{Closure, ConstrainedTree, KinematicTree};
    pub use contour_model::{
        consistent_state, ConsistentStateOptions, ConstrainedDynamics, ConstraintKind, Controller,
        DynamicsOptions, Mechanism, RankDeficiency, WithController,
    };
    pub use contour_ode::{
        integrate, AbmConfig, AdamsBashforthMoulton, Advance, BdfConfig, DormandPrince54,
        DormandPrinceConfig, ErrorNorm, OdeRhs, RungeKuttaGill, RungeKuttaGillConfig, Stepper,
        Tolerances,
    };
    pub use contour_projection::{
        BaumgarteGains, EcsConfig, ErrorControl, Event, EventKind, Integrator, Method, NormKind,
        ParametrizationConfig, PerturbationConfig, ProjectionError, ProjectorConfig, Simulation,
        SimulationFailure, SimulationStats, Trajectory,
    };

    pub use contour_contact::{simulate as simulate_contact, ContactConfig, Scheme};

    pub use contour_planning::phase_plane::{MinimumTimeSolution, PhasePlane, PhasePlaneConfig};
    pub use contour_planning::toppra::{Toppra, ToppraConfig};
    pub use contour_planning::{
        AccelerationLimits, BoxLimits, CartesianJointPath, JointPath, Path, PathDynamics, Segment,
        SegmentKind, Shape,
    };

    pub use contour_viz::{Animation, Drawable, TreeDrawable, VizError};

    pub use crate::{animation, plan_animation, trajectory_from_plan, Error};
}

/// A planned motion sampled in time (`contour_planning::sample_at_rate` / `sample`) as the
/// workspace's one result type, [`projection::Trajectory`]: `times`, `q`, `q̇`, and the
/// optional `q̈` and `τ` columns (Huang (4.3.6)), written by `Trajectory::write_csv` /
/// `write_json` like every simulation. `method` is `"minimum_time"`, `integrator`
/// `"phase_plane"`; λ rows are empty (a free tree has no multipliers), `x_initial` / `x_final`
/// are the first and last samples. The path parameter (`s`, `ṡ`, `s̈`) stays in the
/// `SampledTrajectory`.
pub fn trajectory_from_plan(
    sampled: &contour_planning::SampledTrajectory,
) -> contour_projection::Trajectory {
    let state = |k: Option<usize>| -> Vec<f64> {
        k.map_or_else(Vec::new, |k| {
            sampled.q[k].iter().chain(&sampled.qd[k]).copied().collect()
        })
    };
    let last = sampled.t.len().checked_sub(1);
    contour_projection::Trajectory {
        times: sampled.t.clone(),
        q: sampled.q.iter().collect(),
        qd: sampled.qd.iter().collect(),
        lambda: vec![Vec::new(); sampled.t.len()].into(),
        qdd: sampled.qdd.iter().collect(),
        tau: sampled.tau.iter().collect(),
        x_initial: state(last.map(|_| 0)),
        x_final: state(last),
        ..contour_projection::Trajectory::new("minimum_time", "phase_plane")
    }
}

/// The animation of a simulated (or contact) trajectory of `drawable`: its times and `q`, with
/// the contact events of `trajectory.events` (impacts, entries, exits, persistent contact,
/// stick, slip, reversals) marked on the time slider. Write it with
/// [`viz::Animation::write_html_file`]; a planned motion has [`plan_animation`].
pub fn animation<'a>(
    drawable: &'a dyn contour_viz::Drawable,
    trajectory: &'a contour_projection::Trajectory,
) -> contour_viz::Animation<'a> {
    use contour_projection::EventKind;
    let mut anim =
        contour_viz::Animation::new(drawable, &trajectory.times, &trajectory.q).title(format!(
            "simulation ({}, {})",
            trajectory.method, trajectory.integrator
        ));
    for e in &trajectory.events {
        // Solver events (re-parametrizations, redone steps) are no motion events.
        if matches!(e.kind, EventKind::Reparametrization | EventKind::StepRedone) {
            continue;
        }
        let mut label = e.kind.name().to_string();
        if let Some(row) = e.row {
            label.push_str(&format!(" on row {row}"));
        }
        if let Some(xi) = e.impulse {
            label.push_str(&format!(", impulse {xi:.4}"));
        }
        anim = anim.event(e.t, e.kind.name(), label);
    }
    anim
}

/// The animation of a planned motion of `drawable` (`contour_planning::sample_at_rate` /
/// `sample`): the samples' times and `q`, the phase-plane curve `(s, ṡ)` beside it with a
/// cursor at the current `s`, and the switching points of `plan` marked on the time slider.
/// Draw the planned path with [`viz::Animation::trace`] (e.g. of the end effector's point).
pub fn plan_animation<'a>(
    drawable: &'a dyn contour_viz::Drawable,
    sampled: &'a contour_planning::SampledTrajectory,
    plan: &contour_planning::phase_plane::MinimumTimeSolution,
) -> contour_viz::Animation<'a> {
    let mut anim = contour_viz::Animation::new(drawable, &sampled.t, &sampled.q)
        .title(format!("minimum-time plan ({:.4} s)", plan.total_time))
        .phase_plane(&sampled.s, &sampled.sd);
    for p in &plan.switching_points {
        anim = anim.event(
            p.t,
            "Switch",
            format!("{:?} switching point at s = {:.4}", p.kind, p.s),
        );
    }
    anim
}

/// Any error of the workspace, wrapping each crate's own error type.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Dense linear algebra (dimensions, definiteness, rank).
    #[error(transparent)]
    Linalg(#[from] contour_linalg::LinalgError),
    /// Model evaluation, constrained dynamics, consistent states.
    #[error(transparent)]
    Model(#[from] contour_model::ModelError),
    /// Integrators.
    #[error(transparent)]
    Ode(#[from] contour_ode::OdeError),
    /// Bilateral constraint handling (simulation driver and methods).
    #[error(transparent)]
    Projection(#[from] contour_projection::ProjectionError),
    /// Unilateral contact, impact and the contact simulator.
    #[error(transparent)]
    Contact(#[from] contour_contact::ContactError),
    /// Path planning and minimum-time parameterization.
    #[error(transparent)]
    Planning(#[from] contour_planning::PlanningError),
    /// Animations (inputs, the model's kinematics, writing the page).
    #[error(transparent)]
    Viz(#[from] contour_viz::VizError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_convert_into_the_facade_error() {
        let e: Error = contour_linalg::LinalgError::NotPositiveDefinite {
            index: 1,
            pivot: -3.0,
        }
        .into();
        assert!(matches!(e, Error::Linalg(_)));
        assert!(e.to_string().contains("pivot 1"));
        let e: Error = contour_ode::OdeError::StepSizeTooSmall { t: 1.0, h: 1e-16 }.into();
        assert!(matches!(e, Error::Ode(_)));
    }

    #[test]
    fn animations_mark_the_motion_events_only() {
        use contour_projection::{Event, EventKind, Trajectory};
        let pendulum = contour_model::models::Pendulum::default();
        let mut tr = Trajectory::new("direct", "dopri5");
        tr.times = vec![0.0, 0.5, 0.5, 1.0];
        tr.q = vec![
            vec![0.0, -1.0],
            vec![1.0, 0.0],
            vec![1.0, 0.0],
            vec![0.0, -1.0],
        ]
        .into();
        let mut impact = Event::new(0.5, EventKind::Impact);
        impact.row = Some(0);
        impact.impulse = Some(0.25);
        tr.events = vec![
            impact,
            Event::new(0.5, EventKind::Exit),
            Event::new(0.7, EventKind::StepRedone),
        ];
        let mut page = Vec::new();
        let summary = animation(&pendulum, &tr).write_html(&mut page).unwrap();
        let page = String::from_utf8(page).unwrap();
        assert!(page.contains(r#""kind":"Impact","label":"Impact on row 0, impulse 0.2500""#));
        assert!(page.contains(r#""kind":"Exit""#));
        assert!(!page.contains("StepRedone"));
        // Both states at the impact stay (before and after).
        assert_eq!(summary.frames, 4);
        let e: Error = animation(&pendulum, &Trajectory::new("direct", "dopri5"))
            .write_html(Vec::new())
            .unwrap_err()
            .into();
        assert!(matches!(
            e,
            Error::Viz(contour_viz::VizError::EmptyTrajectory)
        ));
    }
}
