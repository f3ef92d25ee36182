//! One simulation of a scenario: model, method, integrator, tolerance, times → [`Trajectory`].
//! `simulate` writes it; `sweep` summarizes it.

use serde::de::DeserializeOwned;
use serde::Serialize;

use contour::prelude::{
    simulate_contact, BaumgarteGains, ConsistentStateOptions, ContactConfig, EcsConfig,
    ErrorControl, Integrator, Method, NormKind, ParametrizationConfig, PerturbationConfig,
    ProjectionError, ProjectorConfig, Scheme, Simulation, Trajectory,
};

use crate::error::{CliError, ScenarioError};
use crate::model::{build, Origin};
use crate::scenario::{Consistency, IntegratorName, MethodName, NormName, Scenario};

/// The outcome of one run: the trajectory, or the failure with the partial trajectory.
pub enum Outcome {
    /// The run reached the end time.
    Finished(Box<Trajectory>),
    /// The library failed after the start: its error, and the trajectory so far (if any).
    Failed {
        /// The error.
        error: CliError,
        /// The trajectory up to the failure.
        partial: Option<Box<Trajectory>>,
    },
}

/// `default` with the keys of `settings` replaced (every key must be one of `default`'s).
fn overlay<T: Serialize + DeserializeOwned>(
    default: &T,
    settings: &toml::Table,
    prefix: &str,
    origin: Origin<'_>,
) -> Result<T, ScenarioError> {
    let toml::Value::Table(mut table) =
        toml::Value::try_from(default).map_err(|e| origin.error(prefix, e.to_string()))?
    else {
        return Err(origin.error(prefix, "settings are not a table"));
    };
    for (k, v) in settings {
        let key = format!("{prefix}.{k}");
        if !table.contains_key(k) && !optional_field(k) {
            let known: Vec<&str> = table.keys().map(String::as_str).collect();
            return Err(origin.error(
                &key,
                format!(
                    "unknown setting `{k}`, expected one of {}",
                    known.join(", ")
                ),
            ));
        }
        table.insert(k.clone(), v.clone());
    }
    T::deserialize(toml::Value::Table(table))
        .map_err(|e| origin.error(prefix, e.message().to_string()))
}

/// Option fields are absent from a serialized default (TOML has no null).
fn optional_field(k: &str) -> bool {
    matches!(k, "h_init" | "fixed_step")
}

/// The library's method with the scenario's settings.
pub fn method(s: &Scenario, origin: Origin<'_>) -> Result<Method, ScenarioError> {
    let st = &s.method.settings;
    let p = "method.settings";
    Ok(match s.method.name {
        MethodName::Direct => {
            if let Some(k) = st.keys().next() {
                return Err(origin.error(&format!("{p}.{k}"), "the direct method has no settings"));
            }
            Method::Direct
        }
        MethodName::Baumgarte => Method::Baumgarte(overlay(
            &BaumgarteGains {
                alpha: 10.0,
                beta: 25.0,
            },
            st,
            p,
            origin,
        )?),
        MethodName::Perturbation => {
            Method::Perturbation(overlay(&PerturbationConfig::default(), st, p, origin)?)
        }
        MethodName::Parametrization => {
            Method::Parametrization(overlay(&ParametrizationConfig::default(), st, p, origin)?)
        }
        MethodName::ExactStabilization => {
            Method::ExactStabilization(overlay(&EcsConfig::default(), st, p, origin)?)
        }
        MethodName::Projector => {
            Method::Projector(overlay(&ProjectorConfig::default(), st, p, origin)?)
        }
    })
}

/// The library's integrator with the scenario's step settings.
pub fn integrator(s: &Scenario) -> Integrator {
    let spec = &s.integrator;
    macro_rules! set {
        ($c:expr) => {{
            let mut c = $c;
            if let Some(h) = spec.h_max {
                c.h_max = h;
            }
            if spec.h_init.is_some() {
                c.h_init = spec.h_init;
            }
            c
        }};
    }
    match spec.name {
        IntegratorName::Abm => Integrator::Abm(set!(contour::prelude::AbmConfig::default())),
        IntegratorName::Dopri5 => {
            Integrator::DormandPrince(set!(contour::prelude::DormandPrinceConfig::default()))
        }
        IntegratorName::Rkg => {
            Integrator::RungeKuttaGill(set!(contour::prelude::RungeKuttaGillConfig::default()))
        }
        IntegratorName::Bdf => Integrator::Bdf(set!(contour::prelude::BdfConfig::default())),
    }
}

/// The error control of the scenario.
pub fn error_control(s: &Scenario) -> ErrorControl {
    ErrorControl {
        rtol: s.tolerance.rtol,
        atol: s.tolerance.atol,
        norm: match s.tolerance.norm {
            NormName::L2 => NormKind::L2,
            NormName::Rms => NormKind::Rms,
            NormName::Max => NormKind::Max,
        },
    }
}

/// Output times from `[time]` (`outputs`, or every `output_step` from start to end).
pub fn output_times(
    s: &Scenario,
    t0: f64,
    t_end: f64,
    origin: Origin<'_>,
) -> Result<Vec<f64>, ScenarioError> {
    if let Some(t) = &s.time.outputs {
        return Ok(t.clone());
    }
    let Some(dt) = s.time.output_step else {
        return Ok(Vec::new());
    };
    if !(dt.is_finite() && dt > 0.0) {
        return Err(origin.error("time.output_step", format!("must be positive, not {dt}")));
    }
    let n = ((t_end - t0) / dt).floor();
    if n > 1e7 {
        return Err(origin.error(
            "time.output_step",
            format!("gives {n} outputs (more than 1e7)"),
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

/// Runs the simulation of `s`. Errors before the start (the scenario, the model, the input
/// checks) are `Err`; a failure during the run is [`Outcome::Failed`].
pub fn run(s: &Scenario, origin: Origin<'_>) -> Result<Outcome, CliError> {
    let built = build(&s.model, &s.initial, origin)?;
    let t0 = s.time.start;
    let t_end = s
        .time
        .end
        .ok_or_else(|| origin.error("time.end", "missing: the end time is required"))?;
    let outputs = output_times(s, t0, t_end, origin)?;
    let failed = |e: CliError, partial| Ok(Outcome::Failed { error: e, partial });
    if built.has_unilateral_rows() {
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
        return Err(match e {
            ProjectionError::InvalidTolerance { which, .. } => origin
                .error(&format!("tolerance.{which}"), e.to_string())
                .into(),
            e => contour::Error::from(e).into(),
        });
    }
    let mut sim = Simulation::new(&*built.mech, &built.q0, &built.qd0, t0, t_end)
        .method(method(s, origin)?)
        .integrator(integrator(s))
        .error_control(ec)
        .output_times(outputs);
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
        Err(e) => Err(contour::Error::from(e).into()),
    }
}
