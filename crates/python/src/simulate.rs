//! `contour.simulate` (bilateral constraints, the `Simulation` driver) and
//! `contour.simulate_contact` (unilateral rows, the contact simulator).

use pyo3::prelude::*;
use pyo3::types::PyDict;

use contour::prelude::{
    BaumgarteGains, ConsistentStateOptions, ContactConfig, EcsConfig, ErrorControl, Integrator,
    Method, NormKind, ParametrizationConfig, PerturbationConfig, ProjectorConfig, Scheme,
    Simulation,
};

use crate::convert::{overlay, vec1};
use crate::error::{facade, input, to_py};
use crate::model::Model;
use crate::trajectory::Trajectory;

/// The keys of `options`, refused unless listed in `known`.
fn refuse_unknown(
    py: Python<'_>,
    options: Option<&Bound<'_, PyDict>>,
    what: &str,
    known: &[&str],
) -> PyResult<()> {
    if let Some(o) = options {
        for (k, _) in o.iter() {
            let k: String = k.extract()?;
            if !known.contains(&k.as_str()) {
                let list = if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                };
                return Err(input(
                    py,
                    format!("{what} has no option `{k}` (options: {list})"),
                ));
            }
        }
    }
    Ok(())
}

fn option_f64(
    py: Python<'_>,
    options: Option<&Bound<'_, PyDict>>,
    key: &str,
) -> PyResult<Option<f64>> {
    match options.map(|o| o.get_item(key)).transpose()?.flatten() {
        Some(v) => Ok(Some(
            v.extract()
                .map_err(|e: PyErr| input(py, format!("{key}: {e}")))?,
        )),
        None => Ok(None),
    }
}

fn method_of(py: Python<'_>, name: &str, options: Option<&Bound<'_, PyDict>>) -> PyResult<Method> {
    let key = name.replace('-', "_");
    Ok(match key.as_str() {
        "direct" => {
            refuse_unknown(py, options, "method direct", &[])?;
            Method::Direct
        }
        "baumgarte" => {
            refuse_unknown(py, options, "method baumgarte", &["alpha", "beta", "delta"])?;
            let gains = match (
                option_f64(py, options, "alpha")?,
                option_f64(py, options, "beta")?,
                option_f64(py, options, "delta")?,
            ) {
                (Some(a), Some(b), None) => BaumgarteGains::new(a, b),
                (None, None, Some(d)) => BaumgarteGains::critical(d),
                _ => return Err(input(py, "method baumgarte needs alpha and beta [1/s, 1/s²], or delta (critical damping alpha = 2 delta, beta = delta²)")),
            };
            Method::Baumgarte(gains.map_err(|e| facade(py, e))?)
        }
        "perturbation" => {
            Method::Perturbation(overlay(py, PerturbationConfig::default(), options, "method perturbation")?)
        }
        "parametrization" => {
            Method::Parametrization(overlay(py, ParametrizationConfig::default(), options, "method parametrization")?)
        }
        "exact_stabilization" | "ecs" => {
            Method::ExactStabilization(overlay(py, EcsConfig::default(), options, "method exact_stabilization")?)
        }
        "projector" => {
            Method::Projector(overlay(py, ProjectorConfig::default(), options, "method projector")?)
        }
        _ => return Err(input(py, format!("unknown method `{name}` (direct, baumgarte, perturbation, parametrization, exact_stabilization, projector)"))),
    })
}

fn integrator_of(py: Python<'_>, name: &str) -> PyResult<Integrator> {
    Ok(match name {
        "abm" => Integrator::abm(),
        "dopri5" => Integrator::dopri5(),
        "rkg" => Integrator::rkg(),
        "bdf" => Integrator::bdf(),
        _ => {
            return Err(input(
                py,
                format!("unknown integrator `{name}` (abm, dopri5, rkg, bdf)"),
            ))
        }
    })
}

fn norm_of(py: Python<'_>, name: &str) -> PyResult<NormKind> {
    Ok(match name {
        "l2" => NormKind::L2,
        "rms" => NormKind::Rms,
        "max" => NormKind::Max,
        _ => return Err(input(py, format!("unknown norm `{name}` (l2, rms, max)"))),
    })
}

/// The end points of `t_span`.
fn span(py: Python<'_>, t_span: &Bound<'_, PyAny>) -> PyResult<(f64, f64)> {
    let t = vec1(py, t_span, "t_span", Some(2))?;
    Ok((t[0], t[1]))
}

/// Simulates a constrained mechanism from ``(q0, qd0)`` over ``t_span = (t0, t_end)``.
///
/// * ``method``: ``"perturbation"`` (Keerthi's projection, default), ``"direct"``,
///   ``"baumgarte"`` (options ``alpha``, ``beta`` [1/s, 1/s²] or ``delta``),
///   ``"parametrization"``, ``"exact_stabilization"`` (needs ``integrator="bdf"``),
///   ``"projector"``; ``**method_options`` set fields of the method's Rust configuration
///   (``PerturbationConfig``, ...; enum values by variant name), an unknown one is an error;
/// * ``integrator``: ``"dopri5"`` (default), ``"abm"``, ``"rkg"``, ``"bdf"``;
/// * ``rtol``, ``atol``: the local error scale ``atol + rtol·|x|`` in the ``norm``
///   (``"l2"``, ``"rms"``, ``"max"``); defaults ``rtol = 0``, ``atol = 1e-4`` (the Rust
///   ``Simulation`` default: ‖e‖₂ ≤ 1e-4);
/// * ``t_eval``: output times (sorted, inside ``t_span``); ``None``: every accepted step;
/// * ``consistent``: ``"require"`` (default: the initial state must satisfy φ = 0 and
///   J q̇ + b = 0 to ``consistency_tol``) or ``"make"`` (project it first);
/// * ``max_steps``: step budget.
///
/// Returns a ``Trajectory``. Bad input raises ``InvalidInputError`` (a ``ValueError``); a run
/// that fails after it started raises its error class with ``partial`` attached. The GIL is
/// released during the run.
///
/// Example: ``m = contour.model("pendulum"); q0, qd0 = m.initial_state(0.5);
/// tr = contour.simulate(m, q0, qd0, (0, 10), atol=1e-8)``.
#[pyfunction]
#[pyo3(signature = (model, q0, qd0, t_span, method="perturbation", integrator="dopri5", rtol=0.0, atol=1e-4, norm="l2", t_eval=None, consistent="require", consistency_tol=1e-10, max_steps=1_000_000, lambda_at_steps=false, **method_options))]
pub fn simulate(
    py: Python<'_>,
    model: &Model,
    q0: &Bound<'_, PyAny>,
    qd0: &Bound<'_, PyAny>,
    t_span: &Bound<'_, PyAny>,
    method: &str,
    integrator: &str,
    rtol: f64,
    atol: f64,
    norm: &str,
    t_eval: Option<&Bound<'_, PyAny>>,
    consistent: &str,
    consistency_tol: f64,
    max_steps: usize,
    lambda_at_steps: bool,
    method_options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Trajectory> {
    let n = model.n();
    let q0 = vec1(py, q0, "q0", Some(n))?;
    let qd0 = vec1(py, qd0, "qd0", Some(n))?;
    let (t0, t1) = span(py, t_span)?;
    let method = method_of(py, method, method_options)?;
    let integrator = integrator_of(py, integrator)?;
    let ec = ErrorControl {
        rtol,
        atol,
        norm: norm_of(py, norm)?,
    };
    let t_eval = t_eval.map(|t| vec1(py, t, "t_eval", None)).transpose()?;
    let make = match consistent {
        "require" => false,
        "make" => true,
        _ => {
            return Err(input(
                py,
                format!("consistent = `{consistent}`: `require` or `make`"),
            ))
        }
    };
    let result = py.detach(|| {
        let mut sim = Simulation::new(model.mechanism(), &q0, &qd0, t0, t1)
            .method(method)
            .integrator(integrator)
            .error_control(ec)
            .max_steps(max_steps)
            .lambda_at_steps(lambda_at_steps);
        if let Some(t) = t_eval {
            sim = sim.output_times(t);
        }
        sim = if make {
            sim.make_consistent(ConsistentStateOptions::default())
        } else {
            sim.require_consistent(consistency_tol)
        };
        sim.run()
    });
    match result {
        Ok(tr) => Ok(tr.into()),
        Err(e) => Err(with_callback_cause(py, model, to_py(py, e.into()))),
    }
}

/// When a Python callable of a user mechanism failed during the run, that error becomes the
/// `__cause__` of the exception.
fn with_callback_cause(py: Python<'_>, model: &Model, err: PyErr) -> PyErr {
    if let Some(cause) = model.take_callback_error() {
        err.set_cause(py, Some(cause));
    }
    err
}

/// Simulates a mechanism with unilateral rows (``φ ≥ 0``, ``λ ≥ 0``, ``λ·φ = 0``): entry and
/// exit events, impacts with restitution, Coulomb friction.
///
/// * ``t_end`` [s] (the run starts at ``t0``);
/// * ``scheme``: ``"modern"`` (variable step, event-located, projected; default) or
///   ``"huang"`` (Huang's section-6.3 scheme);
/// * ``restitution`` (Newton's e, default 0: plastic), ``friction`` (Coulomb μ, default 0);
/// * ``output_dt`` [s]: output spacing (``None``: every step);
/// * ``max_events`` (default 10 000).
///
/// Returns a ``Trajectory`` whose ``events`` is a list of dicts (``t``, ``kind``, ``row``,
/// ``impulse``, ...). The GIL is released during the run.
#[pyfunction]
#[pyo3(signature = (model, q0, qd0, t_end, t0=0.0, scheme="modern", restitution=0.0, friction=0.0, output_dt=None, max_events=10_000))]
pub fn simulate_contact(
    py: Python<'_>,
    model: &Model,
    q0: &Bound<'_, PyAny>,
    qd0: &Bound<'_, PyAny>,
    t_end: f64,
    t0: f64,
    scheme: &str,
    restitution: f64,
    friction: f64,
    output_dt: Option<f64>,
    max_events: usize,
) -> PyResult<Trajectory> {
    let n = model.n();
    let q0 = vec1(py, q0, "q0", Some(n))?;
    let qd0 = vec1(py, qd0, "qd0", Some(n))?;
    let scheme = match scheme {
        "modern" => Scheme::default(),
        "huang" => Scheme::Huang(Default::default()),
        _ => {
            return Err(input(
                py,
                format!("unknown scheme `{scheme}` (modern, huang)"),
            ))
        }
    };
    let mut cfg = ContactConfig::new(t_end, scheme);
    cfg.restitution = restitution;
    cfg.friction = friction;
    cfg.output_dt = output_dt;
    cfg.max_events = max_events;
    let result = py.detach(|| contour::contact::simulate(model.mechanism(), t0, &q0, &qd0, cfg));
    match result {
        Ok(tr) => Ok(contour::projection::Trajectory::from(tr).into()),
        Err(e) => Err(with_callback_cause(py, model, facade(py, e))),
    }
}
