//! Runs shared by the integration tests.
#![allow(dead_code)]

use contour_model::models::{KeerthiControlLaw, KeerthiRobot, KEERTHI_IC2};
use contour_model::{ConsistentStateOptions, WithController};
use contour_projection::{ErrorControl, Integrator, Method, Simulation, Trajectory};

/// Keerthi's robot with the control law (4.5) from initial condition 2 (made consistent),
/// absolute tolerance `tau` in the l2 norm.
pub fn keerthi_ic2(method: Method, integrator: Integrator, tau: f64, t_end: f64) -> Trajectory {
    let robot = WithController::new(KeerthiRobot::default(), KeerthiControlLaw::default());
    Simulation::new(&robot, &KEERTHI_IC2.q, &KEERTHI_IC2.qd, 0.0, t_end)
        .make_consistent(ConsistentStateOptions::default())
        .method(method)
        .integrator(integrator)
        .error_control(ErrorControl::absolute(tau))
        .run()
        .unwrap()
}
