//! `contour.simulate` (bilateral constraints, the `Simulation` driver) and
//! `contour.simulate_contact` (unilateral rows, the contact simulator).

use pyo3::prelude::*;
use pyo3::types::PyDict;

use contour::model::constraint_residuals;
use contour::prelude::{
    ConsistentStateOptions, ContactConfig, DynamicsOptions, ErrorControl, Method, Scheme,
    Simulation,
};
use contour::projection::{PassagePolicy, ProjectionError};
use contour_scenario::scenario::{Consistency, DynamicsSpec, IntegratorName, MethodName, NormName};
use contour_scenario::words::{check_energy_tolerance, parse_word};

use crate::convert::{count_or, vec1};
use crate::error::{input, raise, unexpected_keyword, Family};
use crate::failure::{facade, to_py};
use crate::model::{with_callback_cause, Model};
use crate::sweep::to_table;
use crate::trajectory::Trajectory;
use contour_scenario::run::MAX_OUTPUTS;

/// A word of the options language ([`parse_word`]), refused under the argument's name.
fn word<T: serde::de::DeserializeOwned>(py: Python<'_>, arg: &str, given: &str) -> PyResult<T> {
    parse_word(given).map_err(|e| input(py, format!("{arg} = {e}")))
}

/// The method `name` with `options` over its defaults ([`MethodName::method`]).
fn method_of(
    py: Python<'_>,
    m: MethodName,
    name: &str,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Method> {
    let settings = match options {
        Some(o) => to_table(py, o, "", 1)?,
        None => toml::Table::new(),
    };
    m.method(&settings).map_err(|e| {
        let what = format!("method {}", name.replace('-', "_"));
        match e.key {
            Some(k) => input(py, format!("{what}: {k}: {}", e.message)),
            None => input(py, format!("{what}: {}", e.message)),
        }
    })
}

/// The options of the constrained solve ([`DynamicsSpec::options`]), a tolerance out of
/// range refused under its argument's name.
fn dynamics_of(
    py: Python<'_>,
    kkt: &str,
    rank_rtol: Option<f64>,
    pivot_rtol: Option<f64>,
    rank_deficiency: &str,
) -> PyResult<DynamicsOptions> {
    DynamicsSpec {
        kkt: Some(word(py, "kkt", kkt)?),
        rank_rtol,
        pivot_rtol,
        rank_deficiency: Some(word(py, "rank_deficiency", rank_deficiency)?),
    }
    .options()
    .map_err(|e| input(py, format!("kkt_{}: {e}", e.field())))
}

/// The end points of `t_span`.
fn span(py: Python<'_>, t_span: &Bound<'_, PyAny>) -> PyResult<(f64, f64)> {
    let t = vec1(py, t_span, "t_span", Some(2))?;
    Ok((t[0], t[1]))
}

/// Simulates a constrained mechanism from ``(q0, qd0)`` over ``t_span = (t0, t_end)``.
///
/// A model with unilateral rows (``model.unilateral``, e.g. ``huang``) is refused with
/// ``InvalidInputError``: ``contour.simulate_contact`` runs it.
///
/// * ``method``: ``None`` (default: the model's, ``contour.models()[i]["method"]``:
///   ``"perturbation"``, and ``"projector"`` for the redundant ``four_bar``),
///   ``"perturbation"`` (Keerthi's projection), ``"direct"``,
///   ``"baumgarte"`` (options ``alpha``, ``beta`` [1/s, 1/s²], default 10 and 25, or
///   ``delta``: ``alpha = 2 delta``, ``beta = delta²``),
///   ``"parametrization"``, ``"exact_stabilization"`` (needs ``integrator="bdf"``),
///   ``"projector"``; ``**method_options`` set fields of the method's Rust configuration
///   (``PerturbationConfig``, ...; enum values by variant name), an unknown one is an error;
/// * ``integrator``: ``"dopri5"`` (default), ``"abm"``, ``"rkg"``, ``"bdf"``;
/// * ``rtol``, ``atol``: the local error scale ``atol + rtol·|x|`` in the ``norm``
///   (``"l2"``, ``"rms"``, ``"max"``); defaults ``rtol = 0``, ``atol = 1e-4`` (the Rust
///   ``Simulation`` default: ‖e‖₂ ≤ 1e-4);
/// * ``t_eval``: output times (sorted, inside ``t_span``); ``None``: every accepted step.
///   Every output time keeps ``q``, ``qd`` and ``λ`` (about ``8·(2N + L)`` bytes, plus the
///   statistics): at most 1e7 times (the command line's limit), more raises
///   ``InvalidInputError``; a long run is several runs of a shorter ``t_span``;
/// * ``consistent``: ``"require"`` (default: the initial state must satisfy φ = 0 and
///   J q̇ + b = 0 to ``consistency_tol``) or ``"make"`` (project it first, unless it already
///   passes that check: then it starts as given);
/// * ``max_steps``: step budget, an integer ≥ 1 (default 1 000 000);
/// * ``passage_policy``: what ``"direct"`` and ``"baumgarte"`` do at a singular passage
///   (``J`` below its initial rank, a step that shrinks with its distance from a crossing of
///   branches, or a state within its drift of one): ``"stop"`` (default: ``SimulationError``
///   with the singular-passage, stalled-passage or ambiguous-branch message) or ``"continue"`` (the rank-revealing solve; the drift may pick another branch,
///   pair it with ``energy_tolerance``). The other methods ignore it;
/// * ``energy_tolerance`` [J]: the run fails (``SimulationError``, energy drift) at the first
///   step where ``|E − E(t0)|`` exceeds it, for models that report their energy (ignored
///   otherwise); ``None`` (default): no limit, the drift is in ``stats["energy_drift"]``;
/// * the constrained solve ``M q̈ − Jᵀλ = u − h``, ``J q̈ = −ρ`` of every method: ``kkt``
///   (``"range_space"``, default, or ``"full_lu"``), ``kkt_rank_rtol`` (rank cut-off in
///   (0, 1) on the singular values of ``L⁻¹Jᵀ``; ``None``: 1e-6; it also sets where direct and
///   Baumgarte see a singular passage), ``kkt_pivot_rtol`` (``None``: 1e-12),
///   ``rank_deficiency`` (``"minimum_norm"``, default: unique ``q̈`` and minimum-norm ``λ``
///   where ``J`` loses rank, or ``"error"``: the run fails with ``ModelError``).
///
/// Returns a ``Trajectory``. Bad input raises ``InvalidInputError`` (a ``ValueError``); a run
/// that fails after it started raises its error class with ``partial`` attached. The GIL is
/// released during the run.
///
/// Example: ``m = contour.model("pendulum"); q0, qd0 = m.initial_state(0.5);
/// tr = contour.simulate(m, q0, qd0, (0, 10), atol=1e-8)``.
#[pyfunction]
#[pyo3(signature = (model, q0, qd0, t_span, method=None, integrator="dopri5", rtol=0.0, atol=1e-4, norm="l2", t_eval=None, consistent="require", consistency_tol=1e-10, max_steps=None, lambda_at_steps=false, passage_policy="stop", energy_tolerance=None, kkt="range_space", kkt_rank_rtol=None, kkt_pivot_rtol=None, rank_deficiency="minimum_norm", **method_options),
    text_signature = "(model, q0, qd0, t_span, method=None, integrator='dopri5', rtol=0.0, atol=0.0001, norm='l2', t_eval=None, consistent='require', consistency_tol=1e-10, max_steps=1000000, lambda_at_steps=False, passage_policy='stop', energy_tolerance=None, kkt='range_space', kkt_rank_rtol=None, kkt_pivot_rtol=None, rank_deficiency='minimum_norm', **method_options)")]
pub fn simulate(
    py: Python<'_>,
    model: &Model,
    q0: &Bound<'_, PyAny>,
    qd0: &Bound<'_, PyAny>,
    t_span: &Bound<'_, PyAny>,
    method: Option<&str>,
    integrator: &str,
    rtol: f64,
    atol: f64,
    norm: &str,
    t_eval: Option<&Bound<'_, PyAny>>,
    consistent: &str,
    consistency_tol: f64,
    max_steps: Option<&Bound<'_, PyAny>>,
    lambda_at_steps: bool,
    passage_policy: &str,
    energy_tolerance: Option<f64>,
    kkt: &str,
    kkt_rank_rtol: Option<f64>,
    kkt_pivot_rtol: Option<f64>,
    rank_deficiency: &str,
    method_options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Trajectory> {
    check_keywords(py, method, model, method_options)?;
    if model.has_unilateral_rows() {
        // Treating φ ≥ 0 as φ = 0 would run another problem without a word.
        return Err(input(
            py,
            format!(
                "model `{}` has unilateral rows (φ ≥ 0), which contour.simulate would treat as \
                 equalities; run it with contour.simulate_contact(model, q0, qd0, t_end)",
                model.name_str()
            ),
        ));
    }
    let n = model.n();
    let q0 = vec1(py, q0, "q0", Some(n))?;
    let qd0 = vec1(py, qd0, "qd0", Some(n))?;
    let (t0, t1) = span(py, t_span)?;
    let max_steps = count_or(py, max_steps, "max_steps", 1, 1_000_000)?;
    let method = match method {
        Some(m) => method_of(py, word(py, "method", m)?, m, method_options)?,
        None => {
            let m = model.default_method();
            let name = crate::model::serde_name(&m);
            method_of(py, m, &name, method_options)?
        }
    };
    let integrator = word::<IntegratorName>(py, "integrator", integrator)?.integrator(None, None);
    let ec = ErrorControl {
        rtol,
        atol,
        norm: word::<NormName>(py, "norm", norm)?.kind(),
    };
    let t_eval = t_eval.map(|t| vec1(py, t, "t_eval", None)).transpose()?;
    if let Some(t) = &t_eval {
        if t.len() > MAX_OUTPUTS {
            return Err(input(
                py,
                format!(
                    "t_eval has {} times, more than {MAX_OUTPUTS:e} (each output time keeps \
                     q, qd and lambda: gigabytes); split t_span into several runs",
                    t.len()
                ),
            ));
        }
    }
    let passage_policy: PassagePolicy = word(py, "passage_policy", passage_policy)?;
    let energy_tolerance = check_energy_tolerance(energy_tolerance)
        .map_err(|m| input(py, format!("energy_tolerance: {m}, or None")))?;
    let dynamics = dynamics_of(py, kkt, kkt_rank_rtol, kkt_pivot_rtol, rank_deficiency)?;
    let make = word::<Consistency>(py, "consistent", consistent)? == Consistency::Make;
    // `consistent="make"` leaves a state that passes the check of `"require"` as it is.
    model.take_callback_error();
    let make = make && !is_consistent(model, t0, &q0, &qd0, consistency_tol);
    let result = py.detach(|| {
        let mut sim = Simulation::new(model.mechanism(), &q0, &qd0, t0, t1)
            .method(method)
            .integrator(integrator)
            .error_control(ec)
            .max_steps(max_steps)
            .lambda_at_steps(lambda_at_steps)
            .passage_policy(passage_policy)
            .dynamics(dynamics);
        if let Some(tol) = energy_tolerance {
            sim = sim.energy_tolerance(tol);
        }
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
        Err(ProjectionError::InconsistentInitialState {
            position_residual,
            velocity_residual,
            tol,
        }) => Err(raise(
            py,
            Family::Simulation,
            format!(
                "inconsistent initial state: |phi| = {position_residual:.3e}, |J qd + b| = \
                 {velocity_residual:.3e} (consistency_tol = {tol:.3e}); pass \
                 consistent=\"make\" to project it onto the constraints first"
            ),
        )),
        Err(e) => Err(with_callback_cause(py, model, to_py(py, e.into()))),
    }
}

/// The keywords of `simulate` (those of its signature before `**method_options`).
const SIMULATE_KEYWORDS: [&str; 20] = [
    "model",
    "q0",
    "qd0",
    "t_span",
    "method",
    "integrator",
    "rtol",
    "atol",
    "norm",
    "t_eval",
    "consistent",
    "consistency_tol",
    "max_steps",
    "lambda_at_steps",
    "passage_policy",
    "energy_tolerance",
    "kkt",
    "kkt_rank_rtol",
    "kkt_pivot_rtol",
    "rank_deficiency",
];

/// A keyword of `method_options` that is no setting of any method is a `TypeError` naming
/// the closest keyword of `simulate` or setting of the method (`atoll` → `atol`); a setting
/// of another method is left to [`method_of`] (`InvalidInputError`, the method's options).
fn check_keywords(
    py: Python<'_>,
    method: Option<&str>,
    model: &Model,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<()> {
    let Some(options) = options else {
        return Ok(());
    };
    let chosen = match method {
        Some(m) => parse_word::<MethodName>(m).ok(),
        None => Some(model.default_method()),
    };
    for key in options.keys() {
        let key: String = key.extract()?;
        if MethodName::ALL
            .iter()
            .any(|m| m.setting_names().contains(&key))
        {
            continue;
        }
        let mut known: Vec<String> = SIMULATE_KEYWORDS.iter().map(|k| k.to_string()).collect();
        known.extend(chosen.map(MethodName::setting_names).unwrap_or_default());
        return Err(unexpected_keyword(py, "simulate", &key, &known));
    }
    Ok(())
}

/// Whether `(q0, qd0)` satisfies the constraints to `tol` (the 2-norms of φ and J q̇ + b that
/// `consistent="require"` checks); a state the model cannot evaluate counts as inconsistent
/// (the run then reports it).
fn is_consistent(model: &Model, t0: f64, q0: &[f64], qd0: &[f64], tol: f64) -> bool {
    tol.is_finite()
        && tol >= 0.0
        && constraint_residuals(model.mechanism(), t0, q0, qd0)
            .is_ok_and(|(p, v)| p <= tol && v <= tol)
}

/// Simulates a mechanism with unilateral rows (``φ ≥ 0``, ``λ ≥ 0``, ``λ·φ = 0``): entry and
/// exit events, impacts with restitution, Coulomb friction.
///
/// * ``t_end`` [s] (the run starts at ``t0``);
/// * ``scheme``: ``"modern"`` (variable step, event-located, projected; default) or
///   ``"huang"`` (Huang's section-6.3 scheme);
/// * ``restitution`` (Newton's e, default 0: plastic), ``friction`` (Coulomb μ, default 0);
/// * ``output_dt`` [s]: output spacing (``None``: every step); the outputs are ``t0``, ``t0 + output_dt``, ... once each;
/// * ``max_events`` (default 10 000).
///
/// Returns a ``Trajectory`` whose ``events`` is a list of dicts (``t``, ``kind``, ``row``,
/// ``impulse``, ...). The GIL is released during the run.
#[pyfunction]
#[pyo3(signature = (model, q0, qd0, t_end, t0=0.0, scheme="modern", restitution=0.0, friction=0.0, output_dt=None, max_events=None),
    text_signature = "(model, q0, qd0, t_end, t0=0.0, scheme='modern', restitution=0.0, friction=0.0, output_dt=None, max_events=10000)")]
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
    max_events: Option<&Bound<'_, PyAny>>,
) -> PyResult<Trajectory> {
    let max_events = count_or(py, max_events, "max_events", 0, 10_000)?;
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
        Ok(tr) => Ok(without_repeated_start(contour::projection::Trajectory::from(tr)).into()),
        Err(e) => Err(with_callback_cause(py, model, facade(py, e))),
    }
}

/// The contact simulator records its start and then its first output, both at `t0`: the
/// first of two equal rows at `t0` is dropped, so the outputs are the times asked for (a
/// start whose state changes at `t0`, an impact, keeps both rows).
fn without_repeated_start(
    mut tr: contour::projection::Trajectory,
) -> contour::projection::Trajectory {
    let k = tr.times.len();
    let repeated = k >= 2
        && tr.times[0] == tr.times[1]
        && tr.q.get(0) == tr.q.get(1)
        && tr.qd.get(0) == tr.qd.get(1);
    if repeated {
        tr.times.remove(0);
        for rows in [
            &mut tr.q,
            &mut tr.qd,
            &mut tr.lambda,
            &mut tr.qdd,
            &mut tr.tau,
        ] {
            if rows.len() == k {
                *rows = rows.iter().skip(1).collect();
            }
        }
    }
    tr
}
