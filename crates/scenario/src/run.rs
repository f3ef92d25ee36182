//! One simulation of a scenario: model, method, integrator, tolerance, times → [`Trajectory`].
//! `simulate` writes it; `sweep` summarizes it.

use contour::prelude::{
    simulate_contact, ConsistentStateOptions, ContactConfig, DynamicsOptions, ErrorControl,
    Integrator, Method, ProjectionError, Scheme, Simulation, Trajectory,
};

use crate::error::{Error, ScenarioError};
use crate::model::{build, Origin};
use crate::scenario::{Consistency, IntegratorName, MethodName, ModelSpec, Scenario};
use crate::words::check_energy_tolerance;
use contour::model::ModelError;

/// The outcome of one run: the trajectory, or the failure with the partial trajectory.
pub enum Outcome {
    /// The run reached the end time.
    Finished(Box<Trajectory>),
    /// The library failed after the start: its error, and the trajectory so far (if any).
    Failed {
        /// The error.
        error: Error,
        /// The trajectory up to the failure.
        partial: Option<Box<Trajectory>>,
    },
}

/// The library's method with the scenario's settings ([`MethodName::method`]).
pub fn method(s: &Scenario, origin: Origin<'_>) -> Result<Method, ScenarioError> {
    s.method_name()
        .method(&s.method.settings)
        .map_err(|e| match e.key {
            Some(k) => origin.error(&format!("method.settings.{k}"), e.message),
            None => origin.error("method.settings", e.message),
        })
}

/// The library's integrator with the scenario's step settings.
pub fn integrator(s: &Scenario) -> Integrator {
    let spec = &s.integrator;
    spec.resolved(s.method_name())
        .integrator(spec.h_max, spec.h_init)
}

/// The error control of the scenario.
pub fn error_control(s: &Scenario) -> ErrorControl {
    ErrorControl {
        rtol: s.tolerance.rtol,
        atol: s.tolerance.atol,
        norm: s.tolerance.norm.kind(),
    }
}

/// The options of the constrained dynamics from `[dynamics]` ([`DynamicsSpec::options`]),
/// a tolerance out of range refused against its key.
///
/// [`DynamicsSpec::options`]: crate::scenario::DynamicsSpec::options
pub fn dynamics(s: &Scenario, origin: Origin<'_>) -> Result<DynamicsOptions, ScenarioError> {
    s.dynamics
        .options()
        .map_err(|e| origin.error(&format!("dynamics.{}", e.field()), e.to_string()))
}

/// `tolerance.energy` \[J\], refused unless positive and finite.
pub fn energy_tolerance(s: &Scenario, origin: Origin<'_>) -> Result<Option<f64>, ScenarioError> {
    check_energy_tolerance(s.tolerance.energy).map_err(|m| origin.error("tolerance.energy", m))
}

/// Refuses the options of the bilateral driver (`method.passage_policy`, `tolerance.energy`,
/// `[dynamics]`) for a model with unilateral rows, which the contact simulator runs without
/// them.
fn refuse_bilateral_options(s: &Scenario, origin: Origin<'_>) -> Result<(), ScenarioError> {
    let set = [
        ("method.passage_policy", s.method.passage_policy.is_some()),
        ("tolerance.energy", s.tolerance.energy.is_some()),
        ("dynamics", !s.dynamics.is_default()),
    ];
    match set.iter().find(|(_, on)| *on) {
        Some((key, _)) => Err(origin.error(
            key,
            "applies to bilateral constraints; this model has unilateral rows, which the \
             contact simulator runs without it",
        )),
        None => Ok(()),
    }
}

/// Most output times of one run (`time.outputs` or `time.output_step`): 1e7 samples of a
/// state are already gigabytes of trajectory.
pub const MAX_OUTPUTS: usize = 10_000_000;

/// Output times from `[time]` (`outputs`, or every `output_step` from start to end).
pub fn output_times(
    s: &Scenario,
    t0: f64,
    t_end: f64,
    origin: Origin<'_>,
) -> Result<Vec<f64>, ScenarioError> {
    if let Some(t) = &s.time.outputs {
        if t.len() > MAX_OUTPUTS {
            return Err(origin.error(
                "time.outputs",
                format!("has {} times (more than {MAX_OUTPUTS:e})", t.len()),
            ));
        }
        return Ok(t.clone());
    }
    let Some(dt) = s.time.output_step else {
        return Ok(Vec::new());
    };
    if !(dt.is_finite() && dt > 0.0) {
        return Err(origin.error("time.output_step", format!("must be positive, not {dt:e}")));
    }
    let n = ((t_end - t0) / dt).floor();
    if n > MAX_OUTPUTS as f64 {
        return Err(origin.error(
            "time.output_step",
            format!("gives {n:e} outputs (more than {MAX_OUTPUTS:e})"),
        ));
    }
    let n = n as usize;
    let mut t: Vec<f64> = (0..=n)
        .map(|k| t0 + k as f64 * dt)
        .filter(|&t| t <= t_end)
        .collect();
    if t.last()
        .is_some_and(|&l| t_end - l > 1e-12 * t_end.abs().max(1.0))
    {
        t.push(t_end);
    }
    Ok(t)
}

/// The scenario key that set a value the model refuses, and what is wrong with it.
fn locate_model(e: &ModelError, s: &Scenario) -> Option<(String, String)> {
    let initial = |what: &str| match what {
        "q" | "q0" if s.initial.angle.is_some() => Some("initial.angle".to_string()),
        "q" | "q0" => Some("initial.q".to_string()),
        "qd" | "qd0" | "v" if s.initial.rate.is_some() => Some("initial.rate".to_string()),
        "qd" | "qd0" | "v" => Some("initial.qd".to_string()),
        _ => None,
    };
    match e {
        ModelError::InvalidParameter { what, value } => {
            let key = match what.split_once('.') {
                Some((_, field)) => format!("model.{}.{field}", s.model.name()),
                None if *what == "tol" => "initial.tol".to_string(),
                None => return None,
            };
            Some((
                key,
                format!(
                    "{value:e} is out of range (lengths, masses and inertias are positive and \
                     finite, other parameters finite)"
                ),
            ))
        }
        ModelError::NonFinite { what, index } => {
            Some((initial(what)?, format!("is not finite at index {index}")))
        }
        ModelError::DimensionMismatch {
            what,
            expected,
            found,
        } => Some((
            initial(what)?,
            format!("has {found} entries, the model has {expected}"),
        )),
        ModelError::Urdf(u) => match &s.model {
            ModelSpec::Urdf(p) => Some((
                "model.urdf.file".to_string(),
                format!("{}: {u}", p.file.display()),
            )),
            _ => None,
        },
        _ => None,
    }
}

/// The scenario key that set a value the library refuses before the start, and a message
/// in the scenario's terms (numbers in `{:e}` form); `None` when no key of the scenario
/// set it.
pub fn locate(e: &contour::Error, s: &Scenario) -> Option<(String, String)> {
    let p = match e {
        contour::Error::Projection(p) => p,
        contour::Error::Model(m) => return locate_model(m, s),
        _ => return None,
    };
    Some(match p {
        ProjectionError::Model(m) => return locate_model(m, s),
        ProjectionError::InvalidTimeSpan { t0, t } if !t0.is_finite() => {
            ("time.start".into(), format!("must be finite, not {t0:e}"))
        }
        ProjectionError::InvalidTimeSpan { t0, t } => (
            "time.end".into(),
            format!("must be finite and after time.start = {t0:e}, not {t:e}"),
        ),
        ProjectionError::OutputTimeOutsideSpan {
            index,
            t,
            t0,
            t_end,
        } => (
            "time.outputs".into(),
            format!("outputs[{index}] = {t:e} is outside [{t0:e}, {t_end:e}]"),
        ),
        ProjectionError::UnsortedOutputTimes { index, t, previous } => (
            "time.outputs".into(),
            format!("not sorted: outputs[{index}] = {t:e} < {previous:e}"),
        ),
        ProjectionError::InvalidTolerance {
            which,
            value,
            reason,
        } => (format!("tolerance.{which}"), format!("{value:e}: {reason}")),
        ProjectionError::InvalidParameter { name, value } if name.contains("energy") => (
            "tolerance.energy".into(),
            format!("{value:e} is out of range (a positive, finite energy [J])"),
        ),
        ProjectionError::InvalidParameter { name, value } if name.contains("tol") => {
            ("initial.tol".into(), format!("{value:e} is out of range"))
        }
        ProjectionError::InvalidParameter { name, value } => (
            format!("method.settings.{name}"),
            format!("{value:e} is out of range"),
        ),
        ProjectionError::UnsupportedIntegrator { method, integrator } => (
            "integrator.name".into(),
            if s.method_name() == MethodName::ExactStabilization {
                format!(
                    "method exact-stabilization cannot use integrator {integrator}: exact \
                     stabilization is a DAE method and needs the BDF (`name = \"bdf\"`, the default of this \
                     method when [integrator] names none)"
                )
            } else {
                format!("method {method} cannot use integrator {integrator}")
            },
        ),
        ProjectionError::UnsupportedNorm { method } => (
            "tolerance.norm".into(),
            format!("method {method} needs the l2 norm (`norm = \"l2\"`)"),
        ),
        ProjectionError::InconsistentInitialState { .. } => (
            "initial.consistent".into(),
            format!("{p} (or `consistent = \"make\"`)"),
        ),
        _ => return None,
    })
}

/// A library error before the start, reported against the scenario key that caused it when
/// there is one ([`locate`]).
pub fn located(e: impl Into<contour::Error>, s: &Scenario, origin: Origin<'_>) -> Error {
    let e = e.into();
    match locate(&e, s) {
        Some((key, message)) => origin.error(&key, message).into(),
        None => e.into(),
    }
}

/// Every check of `s` short of running it — the model and its parameters, the initial
/// state, the time span and output times, the tolerances, the method's settings and the
/// integrator it needs — with errors located like [`run`]'s. Returns the model's number of
/// coordinates. A sweep runs it on every grid value when it loads.
pub fn check(s: &Scenario, origin: Origin<'_>) -> Result<usize, Error> {
    let built = build(&s.model, &s.initial, origin)?;
    if let Err(e) = built.mech.validate() {
        return Err(located(e, s, origin));
    }
    for (what, v) in [("q", &built.q0), ("qd", &built.qd0)] {
        if let Some(index) = v.iter().position(|x| !x.is_finite()) {
            return Err(located(ModelError::NonFinite { what, index }, s, origin));
        }
    }
    let t0 = s.time.start;
    let t_end = s
        .time
        .end
        .ok_or_else(|| origin.error("time.end", "missing: the end time is required"))?;
    if !(t0.is_finite() && t_end.is_finite() && t_end > t0) {
        return Err(located(
            ProjectionError::InvalidTimeSpan { t0, t: t_end },
            s,
            origin,
        ));
    }
    output_times(s, t0, t_end, origin)?;
    if built.has_unilateral_rows() {
        refuse_bilateral_options(s, origin)?;
    } else {
        if let Err(e) = error_control(s).validate() {
            return Err(located(e, s, origin));
        }
        energy_tolerance(s, origin)?;
        dynamics(s, origin)?;
        method(s, origin)?;
        let integrator = s.integrator.resolved(s.method_name());
        if s.method_name() == MethodName::ExactStabilization && integrator != IntegratorName::Bdf {
            return Err(located(
                ProjectionError::UnsupportedIntegrator {
                    method: "exact-stabilization",
                    integrator: integrator.as_str(),
                },
                s,
                origin,
            ));
        }
    }
    Ok(built.mech.dof())
}

/// Runs the simulation of `s`. Errors before the start (the scenario, the model, the input
/// checks) are `Err`; a failure during the run is [`Outcome::Failed`].
pub fn run(s: &Scenario, origin: Origin<'_>) -> Result<Outcome, Error> {
    let built = build(&s.model, &s.initial, origin)?;
    if let Err(e) = built.mech.validate() {
        return Err(located(e, s, origin));
    }
    let t0 = s.time.start;
    let t_end = s
        .time
        .end
        .ok_or_else(|| origin.error("time.end", "missing: the end time is required"))?;
    let outputs = output_times(s, t0, t_end, origin)?;
    let failed = |e: Error, partial| Ok(Outcome::Failed { error: e, partial });
    if built.has_unilateral_rows() {
        refuse_bilateral_options(s, origin)?;
        let friction = match &s.model {
            crate::scenario::ModelSpec::Huang(p) => p.friction,
            _ => 0.0,
        };
        let mut cfg = ContactConfig::new(t_end, Scheme::default());
        cfg.restitution = s.contact.restitution;
        cfg.friction = friction;
        cfg.output_dt = s.time.output_step;
        return match simulate_contact(&*built.mech, t0, &built.q0, &built.qd0, cfg) {
            Ok(c) => Ok(Outcome::Finished(Box::new(c.trajectory))),
            Err(e) => failed(contour::Error::from(e).into(), None),
        };
    }
    let ec = error_control(s);
    if let Err(e) = ec.validate() {
        return Err(located(e, s, origin));
    }
    let mut sim = Simulation::new(&*built.mech, &built.q0, &built.qd0, t0, t_end)
        .method(method(s, origin)?)
        .integrator(integrator(s))
        .error_control(ec)
        .output_times(outputs)
        .dynamics(dynamics(s, origin)?)
        .passage_policy(s.method.passage_policy.unwrap_or_default());
    if let Some(tol) = energy_tolerance(s, origin)? {
        sim = sim.energy_tolerance(tol);
    }
    if let Some(n) = s.time.max_steps {
        sim = sim.max_steps(n);
    }
    sim = match s.initial.consistent {
        Consistency::Make => sim.make_consistent(ConsistentStateOptions::default()),
        Consistency::Require => sim.require_consistent(s.initial.tol.unwrap_or(1e-10)),
    };
    match sim.run() {
        Ok(t) => Ok(Outcome::Finished(Box::new(t))),
        Err(ProjectionError::Failed(f)) => {
            let partial = Some(f.partial.clone());
            failed(
                contour::Error::from(ProjectionError::Failed(f)).into(),
                partial,
            )
        }
        Err(e) => Err(located(e, s, origin)),
    }
}
