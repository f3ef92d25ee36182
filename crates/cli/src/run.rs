//! One simulation of a scenario: model, method, integrator, tolerance, times → [`Trajectory`].
//! `simulate` writes it; `sweep` summarizes it.

use serde::de::DeserializeOwned;
use serde::Serialize;

use contour::prelude::{
    simulate_contact, BaumgarteGains, ConsistentStateOptions, ContactConfig, DynamicsOptions,
    EcsConfig, ErrorControl, Integrator, KktMethod, KktSolver, Method, NormKind,
    ParametrizationConfig, PerturbationConfig, ProjectionError, ProjectorConfig, RankDeficiency,
    Scheme, Simulation, Trajectory,
};

use crate::error::{CliError, ScenarioError};
use crate::model::{build, Origin};
use crate::scenario::{
    Consistency, IntegratorName, KktName, MethodName, ModelSpec, NormName, RankDeficiencyName,
    Scenario,
};
use contour::model::ModelError;

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
    match spec.resolved(s.method.name) {
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

/// The options of the constrained dynamics from `[dynamics]`, each tolerance checked by the
/// library's KKT solver (the rule it applies at the start of a run) and refused against its
/// key.
pub fn dynamics(s: &Scenario, origin: Origin<'_>) -> Result<DynamicsOptions, ScenarioError> {
    let d = &s.dynamics;
    let method = match d.kkt.unwrap_or_default() {
        KktName::RangeSpace => KktMethod::RangeSpace,
        KktName::FullLu => KktMethod::FullLu,
    };
    let mut probe = KktSolver::new(1, 1, method);
    if let Some(tol) = d.rank_rtol {
        probe.set_rank_rtol(tol).map_err(|_| {
            origin.error(
                "dynamics.rank_rtol",
                format!("must be in [0, 1), not {tol:e}"),
            )
        })?;
    }
    if let Some(tol) = d.pivot_rtol {
        probe.set_pivot_rtol(tol).map_err(|_| {
            origin.error(
                "dynamics.pivot_rtol",
                format!("must be finite and non-negative, not {tol:e}"),
            )
        })?;
    }
    Ok(DynamicsOptions {
        method,
        rank_rtol: d.rank_rtol,
        pivot_rtol: d.pivot_rtol,
        rank_deficiency: match d.rank_deficiency.unwrap_or_default() {
            RankDeficiencyName::MinimumNorm => RankDeficiency::MinimumNorm,
            RankDeficiencyName::Error => RankDeficiency::Error,
        },
        ..DynamicsOptions::default()
    })
}

/// `tolerance.energy` \[J\], refused unless positive and finite.
pub fn energy_tolerance(s: &Scenario, origin: Origin<'_>) -> Result<Option<f64>, ScenarioError> {
    match s.tolerance.energy {
        Some(tol) if !(tol.is_finite() && tol > 0.0) => Err(origin.error(
            "tolerance.energy",
            format!("must be a positive, finite energy [J], not {tol:e}"),
        )),
        tol => Ok(tol),
    }
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

/// The kebab-case name of the scenario's model (`[model.<name>]`).
pub fn model_name(model: &ModelSpec) -> &'static str {
    match model {
        ModelSpec::Pendulum(_) => "pendulum",
        ModelSpec::SliderCrank(_) => "slider-crank",
        ModelSpec::FourBar(_) => "four-bar",
        ModelSpec::Keerthi(_) => "keerthi",
        ModelSpec::Huang(_) => "huang",
        ModelSpec::Arm7(_) => "arm7",
        ModelSpec::Andrews(_) => "andrews",
        ModelSpec::NFourBar(_) => "n-four-bar",
        ModelSpec::Urdf(_) => "urdf",
    }
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
                Some((_, field)) => format!("model.{}.{field}", model_name(&s.model)),
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
            if s.method.name == MethodName::ExactStabilization {
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
pub fn located(e: impl Into<contour::Error>, s: &Scenario, origin: Origin<'_>) -> CliError {
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
pub fn check(s: &Scenario, origin: Origin<'_>) -> Result<usize, CliError> {
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
        let integrator = s.integrator.resolved(s.method.name);
        if s.method.name == MethodName::ExactStabilization && integrator != IntegratorName::Bdf {
            return Err(located(
                ProjectionError::UnsupportedIntegrator {
                    method: "exact-stabilization",
                    integrator: match integrator {
                        IntegratorName::Abm => "abm",
                        IntegratorName::Dopri5 => "dopri5",
                        IntegratorName::Rkg => "rkg",
                        IntegratorName::Bdf => "bdf",
                    },
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
pub fn run(s: &Scenario, origin: Origin<'_>) -> Result<Outcome, CliError> {
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
    let failed = |e: CliError, partial| Ok(Outcome::Failed { error: e, partial });
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
