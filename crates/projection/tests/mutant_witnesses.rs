//! Behaviours of the constraint methods that a changed constant, operator or comparison in
//! their core would break: each test states a fact of the method (an accepted or refused
//! parameter, a count that bounds the work, the accuracy against a closed form or an invariant)
//! that holds for the correct code and fails for the changed one.

use contour_model::autodiff::{AutoDiff, AutoDiffModel, Scalar};
use contour_model::models::Pendulum;

use contour_projection::{
    EcsConfig, EcsForm, ErrorControl, Integrator, ManifoldProjection, Method,
    ParametrizationConfig, PerturbationConfig, ProjectionError, Simulation, Trajectory,
};

fn pendulum(
    method: Method,
    integrator: Integrator,
    tau: f64,
    t_end: f64,
) -> Result<Trajectory, ProjectionError> {
    let p = Pendulum::default();
    let (q, qd) = p.state(1.0, 0.0);
    Simulation::new(&p, &q, &qd, 0.0, t_end)
        .method(method)
        .integrator(integrator)
        .error_control(ErrorControl::absolute(tau))
        .run()
}

/// `accept_factor = 0` would refuse every correction that moves the state (Keerthi's
/// `‖X*‖ ≤ accept_factor·τ`, Remark 2.5): it is refused as a parameter, while any positive value
/// is accepted.
#[test]
fn perturbation_refuses_a_zero_accept_factor() {
    let cfg = |a: f64| PerturbationConfig {
        accept_factor: a,
        ..PerturbationConfig::default()
    };
    let err = pendulum(Method::Perturbation(cfg(0.0)), Integrator::abm(), 1e-6, 0.1).unwrap_err();
    assert!(err.to_string().contains("accept_factor"), "{err}");
    assert!(pendulum(
        Method::Perturbation(cfg(1e-3)),
        Integrator::abm(),
        1e-6,
        0.1
    )
    .is_ok());
}

/// Every manifold correction makes at least one modified-Newton iteration (2.16)–(2.17) and at
/// most `max_newton_iterations`: the reported count is bounded on both sides by the number of
/// corrections.
#[test]
fn perturbation_counts_its_newton_iterations() {
    let cfg = PerturbationConfig::default();
    let tr = pendulum(Method::Perturbation(cfg), Integrator::abm(), 1e-6, 2.0).unwrap();
    let s = &tr.stats;
    assert!(s.projections > 10, "{s:?}");
    assert!(s.projection_iterations >= s.projections, "{s:?}");
    assert!(
        s.projection_iterations <= cfg.max_newton_iterations * s.projections,
        "{s:?}"
    );
}

/// A trajectory says which method and integrator made it, with the names `Method::name` and
/// `Integrator::name` document (the CSV/JSON writers and the tables key on them).
#[test]
fn every_trajectory_names_its_method_and_integrator() {
    for method in Method::every(contour_projection::BaumgarteGains::critical(10.0).unwrap()) {
        let integ = if matches!(method, Method::ExactStabilization(_)) {
            Integrator::bdf()
        } else {
            Integrator::abm()
        };
        let (m, i) = (method.name(), integ.name());
        let tr = pendulum(method, integ, 1e-5, 0.2).unwrap();
        assert_eq!((tr.method.as_str(), tr.integrator.as_str()), (m, i));
        assert!(!m.is_empty() && !i.is_empty());
    }
}

/// A point mass in space held on the plane `z = 0` and on a cylinder of radius² `2c` about the
/// z axis: `φ₁ = z`, `φ₂ = ½(x² + y²) − c`. With `c = 0` the cylinder is the z axis itself, and at
/// `x = y = 0` its row of `J` vanishes (a lost direction, as at a singular passage).
struct PlaneAndCylinder {
    c: f64,
}

impl AutoDiffModel for PlaneAndCylinder {
    fn dof(&self) -> usize {
        3
    }
    fn n_constraints(&self) -> usize {
        2
    }
    fn kinetic_energy<S: Scalar>(&self, _q: &[S], v: &[S]) -> S {
        (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) * 0.5
    }
    fn potential_energy<S: Scalar>(&self, q: &[S]) -> S {
        q[2] * 0.0
    }
    fn constraints<S: Scalar>(&self, _t: S, q: &[S], phi: &mut [S]) {
        phi[0] = q[2];
        phi[1] = (q[0] * q[0] + q[1] * q[1]) * 0.5 - self.c;
    }
}

/// Near a lost direction the correction is the minimum-norm one over the kept directions, and
/// the residual left in the dropped direction is accepted only when a move of the accepted size
/// could leave it (`|φ_i| ≤ accept_factor · Σ_k |J_ik| T_k`, module docs of `perturbation`): at
/// `x = 1e-9` the cylinder's row is dropped; its residual `½x² ≈ 5e-19` (c = 0, a genuine
/// passage) is accepted, a residual of `1e-6` (c = 1e-6, no move of size τ along `J₂ ≈ 1e-9`
/// can make it) is refused.
#[test]
fn a_residual_in_a_dropped_direction_is_accepted_only_when_a_move_could_leave_it() {
    // (c, velocity along x, accepted): the velocity residual `J₂ v = x·v_x` of the dropped row
    // is 1e-9 with v_x = 1, which no velocity move of size τ along `J₂ ≈ 1e-9` can leave
    for (c, vx, accepted) in [(0.0, 0.0, true), (1e-6, 0.0, false), (0.0, 1.0, false)] {
        let x = [1e-9, 0.0, 2e-5, vx, 0.0, 0.0];
        let m = AutoDiff::new(PlaneAndCylinder { c });
        let mut p = ManifoldProjection::new(
            &m,
            ErrorControl::absolute(1e-3),
            &PerturbationConfig::default(),
        )
        .unwrap();
        let mut out = [0.0; 6];
        let o = p.project(&m, 0.0, &x, &mut out).unwrap();
        assert_eq!(o.converged, accepted, "c = {c}, v_x = {vx}: {o:?}");
        assert!(p.rank_revealing > 0, "c = {c}: the SVD path must decide");
        // the kept direction is corrected: z → 0
        assert!(out[2].abs() < 1e-15, "c = {c}: z = {:e}", out[2]);
    }
}

/// Keerthi, end of section 3: when the velocity weights are a constant multiple of the position
/// weights (`W₂ = α² W₁`, `T₂ = T₁/α`) the velocity problem reuses the position problem's QR.
/// With a pure relative tolerance and `q̇ = q/1000` the ratio `T₁/T₂ = |q_k|/|q̇_k|` is 1000 in
/// every component up to round-off: one QR per correction, not two.
#[test]
fn proportional_weights_share_the_position_qr() {
    let p = Pendulum::default();
    let ec = ErrorControl {
        rtol: 1e-6,
        atol: 0.0,
        norm: contour_projection::NormKind::L2,
    };
    // Keerthi's setting: the velocity problem uses J(q̄), the Jacobian of the position problem
    let mut pr = ManifoldProjection::new(&p, ec, &PerturbationConfig::keerthi()).unwrap();
    let q: [f64; 2] = [0.380_618_546_467_440_75, -0.924_732_135_315_418];
    let x = [q[0], q[1], q[0] / 1000.0, q[1] / 1000.0];
    // T_k = 1/s_k, s_k = 1/(rtol |x_k|): here the two ratios differ by 3.4e-13 (round-off), so
    // the test of `T₁/T₂ = α` must allow a relative round-off
    let t = |k: usize| 1.0 / (1.0 / (1e-6 * x[k].abs()));
    assert_ne!(t(0) / t(2), t(1) / t(3));
    let mut out = [0.0; 4];
    let o = pr.project(&p, 0.0, &x, &mut out).unwrap();
    assert!(o.converged);
    assert_eq!(pr.qr_factorizations, 1);
}

/// The parametrization's options are checked like every method's: a slope bound, a Newton
/// tolerance or an iteration count that could never be met is refused before the run.
#[test]
fn parametrization_refuses_options_it_could_never_meet() {
    let base = ParametrizationConfig::default();
    for (name, cfg) in [
        (
            "max_slope",
            ParametrizationConfig {
                max_slope: 0.0,
                ..base
            },
        ),
        (
            "newton_tol",
            ParametrizationConfig {
                newton_tol: -1.0,
                ..base
            },
        ),
        (
            "max_newton_iterations",
            ParametrizationConfig {
                max_newton_iterations: 0,
                ..base
            },
        ),
    ] {
        let err = pendulum(Method::Parametrization(cfg), Integrator::abm(), 1e-6, 0.1).unwrap_err();
        assert!(err.to_string().contains(name), "{name}: {err}");
    }
}

/// Two point masses (1 kg, 0.5 kg) on massless rods (1 m, 0.7 m) in Cartesian coordinates
/// `q = (x1, y1, x2, y2)`: four coordinates, two constraints, two degrees of freedom.
struct DoublePendulum;

impl AutoDiffModel for DoublePendulum {
    fn dof(&self) -> usize {
        4
    }
    fn n_constraints(&self) -> usize {
        2
    }
    fn kinetic_energy<S: Scalar>(&self, _q: &[S], v: &[S]) -> S {
        (v[0] * v[0] + v[1] * v[1]) * 0.5 + (v[2] * v[2] + v[3] * v[3]) * 0.25
    }
    fn potential_energy<S: Scalar>(&self, q: &[S]) -> S {
        (q[1] + q[3] * 0.5) * 9.81
    }
    fn constraints<S: Scalar>(&self, _t: S, q: &[S], phi: &mut [S]) {
        phi[0] = q[0] * q[0] + q[1] * q[1] - 1.0;
        phi[1] = (q[2] - q[0]) * (q[2] - q[0]) + (q[3] - q[1]) * (q[3] - q[1]) - 0.49;
    }
}

/// The double pendulum released with both rods horizontal, at rest, run to `t_end`.
fn double_pendulum(method: Method, integ: Integrator, tau: f64, t_end: f64) -> Trajectory {
    let dp = AutoDiff::new(DoublePendulum);
    Simulation::new(&dp, &[1.0, 0.0, 1.7, 0.0], &[0.0; 4], 0.0, t_end)
        .method(method)
        .integrator(integ)
        .error_control(ErrorControl::absolute(tau))
        .run()
        .unwrap()
}

/// With two degrees of freedom the reduced field (4.2) uses every tangent column of the chart
/// and a state of length 2d: parametrization with an explicit and an implicit integrator agrees
/// with the perturbation approach at a tight tolerance (two different algorithms for the same
/// solution of the double pendulum, both rods released horizontal).
#[test]
fn parametrization_with_two_degrees_of_freedom_agrees_with_perturbation() {
    let run =
        |method: Method, integ: Integrator, tau: f64| double_pendulum(method, integ, tau, 1.0);
    let pert = run(
        Method::Perturbation(PerturbationConfig::default()),
        Integrator::dopri5(),
        1e-11,
    );
    let xp = pert.q.last().unwrap();
    for integ in [Integrator::abm(), Integrator::bdf()] {
        let name = integ.name();
        let tr = run(
            Method::Parametrization(ParametrizationConfig::default()),
            integ,
            1e-9,
        );
        let d = final_q_distance(&tr, xp);
        assert!(d < 1e-5, "{name}: |q − q_PERT|∞ = {d:e}");
        eprintln!("{name}: {d:e}");
    }
}

/// When the chart is never renewed ahead of time (`max_slope` and the iteration trigger out of
/// reach), the pendulum's first chart fails once the bob has swung far from it; the failed step
/// is redone in a new chart. Every such renewal is a restart. (Near the fold of a chart the
/// error controlled in `y` is amplified in `x` by the slope, which is why `max_slope` exists:
/// this run's energy drift, 2.4e-3 J at τ = 1e-8, is that amplification, not the renewal.)
#[test]
fn a_failed_chart_is_renewed_and_counted_as_a_restart() {
    let cfg = ParametrizationConfig {
        max_slope: 1e12,
        reparametrize_after_iterations: 1000,
        ..ParametrizationConfig::default()
    };
    let tr = pendulum(Method::Parametrization(cfg), Integrator::abm(), 1e-8, 2.0).unwrap();
    let s = &tr.stats;
    assert!(s.reparametrizations > 0, "{s:?}");
    assert_eq!(s.restarts, s.reparametrizations, "{s:?}");
    // the chart's points lie on the circle whatever the chart: φ at round-off
    assert!(s.max_phi < 1e-14, "{s:?}");
}

/// ECS (Keerthi (4.4), GGL) on a mechanism with two constraint rows: every row of `g(x)` (1.6)
/// enters the residual, and both forms of the correction term — Keerthi's literal `[[J, 0],
/// [D, J]]` and the block-diagonal one — follow the perturbation approach's solution.
#[test]
fn ecs_with_two_constraint_rows_agrees_with_perturbation_in_both_forms() {
    assert_eq!(EcsConfig::keerthi().form, EcsForm::Full);
    assert_eq!(EcsConfig::default().form, EcsForm::BlockDiagonal);
    let run =
        |method: Method, integ: Integrator, tau: f64| double_pendulum(method, integ, tau, 0.5);
    let pert = run(
        Method::Perturbation(PerturbationConfig::default()),
        Integrator::dopri5(),
        1e-11,
    );
    let xp = pert.q.last().unwrap();
    for cfg in [EcsConfig::keerthi(), EcsConfig::default()] {
        let tr = run(Method::ExactStabilization(cfg), Integrator::bdf(), 1e-8);
        let d = final_q_distance(&tr, xp);
        assert!(d < 1e-5, "{:?}: |q − q_PERT|∞ = {d:e}", cfg.form);
        assert!(
            tr.stats.max_phi < 1e-6,
            "{:?}: {:e}",
            cfg.form,
            tr.stats.max_phi
        );
    }
}

/// A bead held on the line `y = 0` whose inertia across the line, `1 − x`, vanishes at `x = 1`;
/// a force pushes it along the line past `x = 1`. Its motion along the line is smooth, but its
/// mass matrix stops being positive definite at `x = 1`.
struct VanishingInertia;

impl AutoDiffModel for VanishingInertia {
    fn dof(&self) -> usize {
        2
    }
    fn n_constraints(&self) -> usize {
        1
    }
    fn kinetic_energy<S: Scalar>(&self, q: &[S], v: &[S]) -> S {
        (v[0] * v[0] + v[1] * v[1] * (-q[0] + 1.0)) * 0.5
    }
    fn potential_energy<S: Scalar>(&self, q: &[S]) -> S {
        -q[0] * 10.0
    }
    fn constraints<S: Scalar>(&self, _t: S, q: &[S], phi: &mut [S]) {
        phi[0] = q[1];
    }
}

/// When the model itself fails during a run (here its mass matrix is no longer positive
/// definite), every method reports the model's own error, not only that the integrator stopped.
#[test]
fn a_model_failure_during_a_run_is_reported_as_the_model_error() {
    let m = AutoDiff::new(VanishingInertia);
    for method in Method::every(contour_projection::BaumgarteGains::critical(10.0).unwrap()) {
        let integ = if matches!(method, Method::ExactStabilization(_)) {
            Integrator::bdf()
        } else {
            Integrator::abm()
        };
        let name = method.name();
        let err = Simulation::new(&m, &[0.5, 0.0], &[1.0, 0.0], 0.0, 1.0)
            .method(method)
            .integrator(integ)
            .error_control(ErrorControl::absolute(1e-6))
            .run()
            .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("mass matrix is not positive definite"),
            "{name}: {msg}"
        );
    }
}

/// `‖q(t_end) − q_ref‖∞` of a trajectory's last output.
fn final_q_distance(tr: &contour_projection::Trajectory, q_ref: &[f64]) -> f64 {
    tr.q.last()
        .unwrap()
        .iter()
        .zip(q_ref)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
}
