//! `contour.Model` (built-in models by name, user mechanisms) and `contour.Urdf` (a URDF tree,
//! optionally closed by loop closures, with its joint limits and `crba` / `rnea` / `aba`).
//!
//! The Rust models are `Sync` (a tree keeps its scratch memory per call, outside the model), so
//! a Python model lends its mechanism (`&self`) to every run: several Python threads use one
//! model at the same time, each run with the GIL released.

use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde::Deserialize as _;

use contour::model::models as lib;
use contour::model::urdf::{tree_and_limits_from_urdf_str, UrdfJointLimits};
use contour::prelude::{
    Closure, ConstrainedDynamics, ConstrainedTree, ConstraintKind, KinematicTree, Mechanism,
};

use std::f64::consts::FRAC_PI_2;

use contour_scenario::model::{closure, ModelBuildError, StateError};
use contour_scenario::registry::{default_method, model_spec, ParamError, MODELS};
use contour_scenario::scenario::{ClosureSpec, MethodName, MAX_N_FOUR_BAR_LOOPS};

use crate::convert::{out1, out2, vec1, vec3};
use crate::error::{file_error, input};
use crate::failure::facade;
use crate::sweep::to_table;

pub use contour_scenario::model::{BoxedMechanism, StateFn};

/// A mechanical model: ``M(q) q̈ + h = u + Jᵀλ``, ``φ(t, q) = 0`` (or ``≥ 0`` for unilateral
/// rows).
///
/// Build one with ``contour.model(name, **params)`` (built-in models),
/// ``contour.Urdf(path, ...)`` (a URDF tree) or ``contour.Mechanism(...)`` (Python callables).
/// A model can be shared between threads: runs on the same model run at the same time.
#[pyclass(module = "contour", subclass, frozen)]
pub struct Model {
    mech: BoxedMechanism,
    name: String,
    dof: usize,
    n_constraints: usize,
    unilateral: bool,
    state: Option<StateFn>,
    callback_error: Option<CallbackErrorSlot>,
    method: MethodName,
    /// How to build it again (pickling): a registry model's name and parameters.
    registry: Option<(String, Py<PyDict>)>,
}

/// What `Model.__reduce__` returns: the constructor and its arguments (name, parameters).
type Reduced<'py> = (Bound<'py, PyAny>, (String, Bound<'py, PyDict>));

/// Where a Python-callable mechanism keeps the first exception its callables raised (the
/// `Mechanism` trait's evaluations return no error; the run then fails on the NaN they leave).
pub type CallbackErrorSlot = std::sync::Arc<Mutex<Option<PyErr>>>;

impl Model {
    /// A model around `mech`.
    pub fn new(mech: BoxedMechanism, state: Option<StateFn>) -> Self {
        let dof = mech.dof();
        let n_constraints = mech.n_constraints();
        let unilateral =
            (0..n_constraints).any(|r| mech.constraint_kind(r) == ConstraintKind::Unilateral);
        Self {
            name: mech.name().to_string(),
            mech,
            dof,
            n_constraints,
            unilateral,
            state,
            callback_error: None,
            method: MethodName::Perturbation,
            registry: None,
        }
    }

    /// The model with `method` as the one `simulate` runs when none is named (a registry
    /// model's [`ModelEntry::method`](contour_scenario::registry::ModelEntry::method)).
    pub fn with_default_method(mut self, method: MethodName) -> Self {
        self.method = method;
        self
    }

    /// The method `simulate` runs when none is named.
    pub fn default_method(&self) -> MethodName {
        self.method
    }

    /// The model's name.
    pub fn name_str(&self) -> &str {
        &self.name
    }

    /// A model whose evaluations may leave a Python exception in `slot`.
    pub fn with_callback_errors(mut self, slot: CallbackErrorSlot) -> Self {
        self.callback_error = Some(slot);
        self
    }

    /// The exception a Python callable raised during the last run, if any (and clears it).
    pub fn take_callback_error(&self) -> Option<PyErr> {
        self.callback_error
            .as_ref()
            .and_then(|s| s.lock().ok().and_then(|mut e| e.take()))
    }

    /// The mechanism, lent to a run or an evaluation.
    pub fn mechanism(&self) -> &(dyn Mechanism + Send + Sync) {
        &*self.mech
    }

    /// Number of coordinates N.
    pub fn n(&self) -> usize {
        self.dof
    }

    /// Whether any constraint row is unilateral.
    pub fn has_unilateral_rows(&self) -> bool {
        self.unilateral
    }
}

#[pymethods]
impl Model {
    /// Number of coordinates N.
    #[getter]
    fn dof(&self) -> usize {
        self.dof
    }
    /// Number of constraint rows L.
    #[getter]
    fn n_constraints(&self) -> usize {
        self.n_constraints
    }
    /// The model's name.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }
    /// Whether any constraint row is unilateral (then ``contour.simulate_contact`` runs it).
    #[getter]
    fn unilateral(&self) -> bool {
        self.unilateral
    }

    /// A consistent initial state ``(q0, qd0)`` of a built-in model at a generalized angle
    /// [rad] and rate [rad/s] (pendulum: from the downward vertical; slider-crank, four-bar,
    /// n-four-bar: the crank angle). The rate defaults to 0, and for ``n-four-bar`` the angle
    /// and rate default to the model's ``theta`` and ``theta_dot`` (A02's π/2 and −1). Models
    /// without a one-angle state (keerthi, huang, arm7, andrews) return their reference state
    /// and refuse an ``angle``.
    #[pyo3(signature = (angle=None, rate=None))]
    fn initial_state<'py>(
        &self,
        py: Python<'py>,
        angle: Option<f64>,
        rate: Option<f64>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let f = self.state.as_ref().ok_or_else(|| {
            input(
                py,
                format!(
                    "model `{}` has no built-in initial state; give q0 and qd0",
                    self.name
                ),
            )
        })?;
        let (q, qd) = f(angle, rate).map_err(|e| match e {
            StateError::NoAngle { .. } => input(py, format!("{e}; give q0 and qd0")),
            e => input(py, e.to_string()),
        })?;
        Ok((out1(py, &q).into_any(), out1(py, &qd).into_any()))
    }

    /// Constrained accelerations and multipliers at ``(t, q, q̇)``: the solution of
    /// ``M q̈ − Jᵀλ = u − h``, ``J q̈ = −ρ`` (full-rank ``J``). Returns ``(qdd, lam)``.
    #[pyo3(signature = (q, qd, t=0.0))]
    fn accelerations<'py>(
        &self,
        py: Python<'py>,
        q: &Bound<'py, PyAny>,
        qd: &Bound<'py, PyAny>,
        t: f64,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let q = vec1(py, q, "q", Some(self.dof))?;
        let qd = vec1(py, qd, "qd", Some(self.dof))?;
        let mut qdd = vec![0.0; self.dof];
        let mut lam = vec![0.0; self.n_constraints];
        self.take_callback_error();
        let result = py.detach(|| {
            let m = self.mechanism();
            let mut dynamics = ConstrainedDynamics::new(m);
            dynamics.accelerations(m, t, &q, &qd, &mut qdd, &mut lam)
        });
        result.map_err(|e| with_callback_cause(py, self, facade(py, e)))?;
        Ok((out1(py, &qdd).into_any(), out1(py, &lam).into_any()))
    }

    /// A registry model by name and parameters (what pickling uses).
    #[staticmethod]
    fn from_registry(py: Python<'_>, name: &str, params: &Bound<'_, PyDict>) -> PyResult<Model> {
        builtin(py, name, Some(params))
    }

    /// Pickling (and ``copy.deepcopy``): a registry model as its name and parameters. A
    /// ``contour.mechanism`` of Python callables cannot be pickled (``TypeError``).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py>> {
        let py = slf.py();
        match &slf.get().registry {
            Some((name, params)) => Ok((
                slf.get_type().getattr("from_registry")?,
                (name.clone(), params.bind(py).copy()?),
            )),
            None => Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "model `{}` cannot be pickled: it is a contour.mechanism of Python callables \
                 (pickle the code that builds it, or pass the callables' module to each \
                 process); registry models and URDF models pickle",
                slf.get().name
            ))),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Model(name={:?}, dof={}, n_constraints={})",
            self.name, self.dof, self.n_constraints
        )
    }
}

/// Builds a built-in model of the registry (`contour_scenario::registry`) by name with its
/// parameters: the names, parameters, ranges and constructor of the command line's
/// `[model.<name>]`.
fn builtin(py: Python<'_>, name: &str, params: Option<&Bound<'_, PyDict>>) -> PyResult<Model> {
    let table = match params {
        Some(p) => to_table(py, p, name, 1)?,
        None => toml::Table::new(),
    };
    let spec = model_spec(name, &table).map_err(|e| match e {
        ParamError::UnknownModel { .. } => input(py, format!("{e}; URDF files: contour.Urdf")),
        e => input(py, e.to_string()),
    })?;
    let dir = std::env::current_dir()?;
    if let contour_scenario::scenario::ModelSpec::Urdf(p) = &spec {
        let path = dir.join(&p.file);
        if let Err(e) = std::fs::metadata(&path) {
            return Err(file_error(py, &p.file, &e));
        }
    }
    let model = spec.name();
    let built = py.detach(|| spec.build(&dir, None)).map_err(|e| match e {
        ModelBuildError::Param { key, message } => input(py, format!("{model}.{key}: {message}")),
        ModelBuildError::Contour(e) => facade(py, e),
    })?;
    built.mech.validate().map_err(|e| facade(py, e))?;
    let recipe = match params {
        Some(p) => p.copy()?,
        None => PyDict::new(py),
    };
    let mut m =
        Model::new(built.mech, Some(built.state)).with_default_method(default_method(model));
    m.registry = Some((name.to_string(), recipe.unbind()));
    Ok(m)
}

/// A built-in model by name, with its parameters as keyword arguments.
///
/// The models, their parameters (units, ranges, defaults: the Rust ones) and their default
/// initial states are the registry of the command line's ``[model.<name>]``:
/// ``contour.models()`` lists them (``_`` and ``-`` are interchangeable in names). An unknown
/// name or parameter, or a value out of its range, raises ``InvalidInputError``.
///
/// ``n_four_bar`` is MBS benchmark A02 (González et al. 2006): ``n`` four-bar loops in
/// natural coordinates; ``J`` loses rank where the bars are horizontal (θ = 0, π): simulate
/// it with ``method="projector"``, ``"perturbation"`` or ``"parametrization"``;
/// ``contour.n_four_bar_reference`` is its exact motion.
///
/// Example: ``m = contour.model("pendulum", length=2.0); q0, qd0 = m.initial_state(0.3)``;
/// ``m = contour.model("n_four_bar", n=4); q0, qd0 = m.initial_state()`` (A02's start).
#[pyfunction]
#[pyo3(signature = (name, **params))]
pub fn model(py: Python<'_>, name: &str, params: Option<&Bound<'_, PyDict>>) -> PyResult<Model> {
    builtin(py, name, params)
}

/// Every built-in model of the registry: a list of dicts ``{"name", "summary", "params",
/// "initial", "method"}`` (``method``: the one ``simulate`` runs when none is named),
/// ``params`` a list of dicts ``{"name", "unit", "range", "required"}``.
///
/// Example: ``[m["name"] for m in contour.models()]``.
#[pyfunction]
pub fn models(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    MODELS
        .iter()
        .map(|e| {
            let d = PyDict::new(py);
            d.set_item("name", e.name)?;
            d.set_item("summary", e.summary)?;
            let params = e
                .params
                .iter()
                .map(|p| {
                    let q = PyDict::new(py);
                    q.set_item("name", p.name)?;
                    q.set_item("unit", p.unit)?;
                    q.set_item("range", p.range.describe())?;
                    q.set_item("required", p.required)?;
                    Ok(q)
                })
                .collect::<PyResult<Vec<_>>>()?;
            d.set_item("params", params)?;
            d.set_item("initial", e.initial)?;
            d.set_item("method", serde_name(&e.method.0))?;
            Ok(d)
        })
        .collect()
}

/// A word's spelling in the options language (`projector`).
pub fn serde_name<T: serde::Serialize>(x: &T) -> String {
    match toml::Value::try_from(x) {
        Ok(toml::Value::String(s)) => s,
        _ => String::new(),
    }
}

/// `n` in `1 ..= MAX_N_FOUR_BAR_LOOPS` (the command line's bound, for the same reason).
fn check_loops(py: Python<'_>, n: i64) -> PyResult<usize> {
    match usize::try_from(n) {
        Ok(loops) if (1..=MAX_N_FOUR_BAR_LOOPS).contains(&loops) => Ok(loops),
        _ => Err(input(
            py,
            format!(
                "n-four-bar.n = {n}: the number of four-bar loops is 1 to {MAX_N_FOUR_BAR_LOOPS}"
            ),
        )),
    }
}

/// Largest number of fixed steps `n_four_bar_reference` takes (about ten seconds of work).
const MAX_REFERENCE_STEPS: f64 = 1e9;

/// The exact motion of A02 (``contour.model("n_four_bar", ...)``) on its physical branch:
/// the crank angle θ [rad] and rate θ̇ [rad/s] at the times ``times`` [s].
///
/// On the physical branch every crank has the same angle θ, ``B_i = A_i + length·(cos θ,
/// sin θ)`` (so ``q[0], q[1]`` of a run are ``length·(cos θ, sin θ)``), and
/// ``m l² ((n+1)/3 + n) θ̈ = −m g l ((n+1)/2 + n) cos θ``. This integrates that reduced
/// equation from ``(θ, θ̇)(0) = (theta, theta_dot)`` by the classical fourth-order Runge–Kutta
/// method with ``steps_per_second`` fixed steps per second (the default 2·10⁴ gives about
/// 1e-12 rad over A02's 20 s), independently of the constrained solvers.
///
/// ``times``: a 1-D array of finite, nondecreasing times ``≥ 0`` (t = 0 gives ``theta``).
/// Returns ``(theta, theta_dot)``, two arrays of the shape of ``times``.
///
/// Example::
///
///     m = contour.model("n_four_bar", n=4)
///     q0, qd0 = m.initial_state()
///     t = np.linspace(0.0, 20.0, 401)
///     tr = contour.simulate(m, q0, qd0, (0.0, 20.0), method="projector", t_eval=t, atol=1e-6)
///     th, _ = contour.n_four_bar_reference(4, t)
///     b0_error = np.hypot(tr.q[:, 0] - np.cos(th), tr.q[:, 1] - np.sin(th)).max()
#[pyfunction]
#[pyo3(
    signature = (n, times, theta=FRAC_PI_2, theta_dot=-1.0, length=1.0, mass=1.0, gravity=9.81, steps_per_second=20_000),
    text_signature = "(n, times, theta=1.5707963267948966, theta_dot=-1.0, length=1.0, mass=1.0, gravity=9.81, steps_per_second=20000)"
)]
#[allow(clippy::too_many_arguments)] // the model's parameters as Python keyword arguments
pub fn n_four_bar_reference<'py>(
    py: Python<'py>,
    n: i64,
    times: &Bound<'py, PyAny>,
    theta: f64,
    theta_dot: f64,
    length: f64,
    mass: f64,
    gravity: f64,
    steps_per_second: i64,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let n = check_loops(py, n)?;
    let m = lib::NFourBar {
        loops: n,
        length,
        mass,
        gravity,
    };
    m.validate().map_err(|e| facade(py, e))?;
    for (key, v) in [("theta", theta), ("theta_dot", theta_dot)] {
        if !v.is_finite() {
            return Err(input(py, format!("{key} = {v} is not finite")));
        }
    }
    let steps_per_second = usize::try_from(steps_per_second)
        .ok()
        .filter(|&s| s > 0)
        .ok_or_else(|| {
            input(
                py,
                format!("steps_per_second = {steps_per_second}: at least one step per second"),
            )
        })?;
    let times = vec1(py, times, "times", None)?;
    if let Some(i) = times.iter().position(|&t| t < 0.0) {
        return Err(input(
            py,
            format!(
                "times[{i}] = {} is negative: the motion starts at t = 0",
                times[i]
            ),
        ));
    }
    if let Some(i) = times.windows(2).position(|w| w[1] < w[0]) {
        return Err(input(
            py,
            format!(
                "times[{}] = {} < times[{i}] = {}: the times are nondecreasing",
                i + 1,
                times[i + 1],
                times[i]
            ),
        ));
    }
    let last = times.last().copied().unwrap_or(0.0);
    if last * steps_per_second as f64 > MAX_REFERENCE_STEPS {
        return Err(input(
            py,
            format!(
                "times up to {last} s at {steps_per_second} steps per second: more than \
                 {MAX_REFERENCE_STEPS:e} steps"
            ),
        ));
    }
    let states = py.detach(|| m.reduced_solution(theta, theta_dot, &times, steps_per_second));
    let (th, w): (Vec<f64>, Vec<f64>) = states.into_iter().unzip();
    Ok((out1(py, &th).into_any(), out1(py, &w).into_any()))
}

/// A robot from a URDF file: a kinematic tree (gravity default ``(0, 0, -9.81)``, ROS's
/// convention), optionally closed by loop closures, with its joint limits.
///
/// ``closures`` is a list of dicts ``{"kind": "point-at-world" | "point-to-point" | "weld",
/// "body": link, "point": (x, y, z) in the link frame [m], "to": other link,
/// "target": world point}``, assembled at the configuration ``q`` (default zeros).
///
/// ``crba``, ``rnea`` and ``aba`` act on the tree (closures ignored), like Pinocchio's
/// functions of the same names. Example::
///
///     arm = contour.Urdf("panda.urdf")
///     M = arm.crba(q); tau = arm.rnea(q, v, a); qdd = arm.aba(q, v, tau)
#[pyclass(module = "contour", extends = Model, frozen)]
pub struct Urdf {
    tree: KinematicTree,
    limits: UrdfJointLimits,
    /// Its arguments `(path, gravity, closures, q)` (the path absolute), for pickling.
    args: Py<PyAny>,
}

/// The URDF text of a path, or of a bundled robot (`"<arm7>"`, `"<panda>"`).
fn urdf_text(py: Python<'_>, path: &std::path::Path) -> PyResult<String> {
    Ok(match path.to_str() {
        Some("<arm7>") => lib::ARM7_URDF.to_string(),
        Some("<panda>") => lib::PANDA_URDF.to_string(),
        _ => std::fs::read_to_string(path).map_err(|e| file_error(py, path, &e))?,
    })
}

/// A closure of `tree` from its dict (the fields of `[[model.urdf.closures]]`), assembled
/// at `q`.
fn closure_of(
    py: Python<'_>,
    tree: &KinematicTree,
    q: &[f64],
    spec: &Bound<'_, PyAny>,
) -> PyResult<Closure> {
    let d = spec
        .cast::<PyDict>()
        .map_err(|_| input(py, "closures: each closure is a dict"))?;
    let mut t = to_table(py, d, "closures", 1)?;
    if let Some(toml::Value::String(k)) = t.get_mut("kind") {
        *k = k.replace('_', "-");
    }
    let spec = ClosureSpec::deserialize(toml::Value::Table(t))
        .map_err(|e| input(py, format!("closures: {}", e.message())))?;
    closure(tree, q, &spec).map_err(|e| match e {
        ModelBuildError::Param { message, .. } => input(py, format!("closures: {message}")),
        ModelBuildError::Contour(e) => facade(py, e),
    })
}

impl Urdf {
    /// The kinematic tree (closures aside).
    pub fn tree(&self) -> &KinematicTree {
        &self.tree
    }

    fn n(&self) -> usize {
        self.limits.lower.len()
    }

    fn body(&self, py: Python<'_>, frame: &str) -> PyResult<usize> {
        self.tree
            .body_index(frame)
            .ok_or_else(|| input(py, format!("frame: no link `{frame}` in the URDF")))
    }
}

#[pymethods]
impl Urdf {
    #[new]
    #[pyo3(signature = (path, gravity=None, closures=None, q=None))]
    fn py_new(
        py: Python<'_>,
        path: std::path::PathBuf,
        gravity: Option<&Bound<'_, PyAny>>,
        closures: Option<Vec<Bound<'_, PyAny>>>,
        q: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let text = urdf_text(py, &path)?;
        let absolute = match path.to_str() {
            Some("<arm7>" | "<panda>") => path.clone(),
            _ => std::path::absolute(&path).unwrap_or_else(|_| path.clone()),
        };
        let args = (
            absolute.to_string_lossy().into_owned(),
            gravity.map(|g| g.clone().unbind()),
            closures.clone(),
            q.map(|q| q.clone().unbind()),
        )
            .into_pyobject(py)?
            .into_any()
            .unbind();
        let (mut tree, limits) = tree_and_limits_from_urdf_str(&text)
            .map_err(|e| facade(py, contour::model::ModelError::from(e)))?;
        let g = match gravity {
            Some(g) => vec3(py, g, "gravity")?,
            None => [0.0, 0.0, -9.81],
        };
        tree.set_gravity(g);
        let n = tree.dof();
        let q = match q {
            Some(q) => vec1(py, q, "q", Some(n))?,
            None => vec![0.0; n],
        };
        let closures = closures.unwrap_or_default();
        let state_q = q.clone();
        let state: StateFn = Box::new(move |a, _r| match a {
            Some(_) => Err(StateError::NoAngle { model: "urdf" }),
            None => Ok((state_q.clone(), vec![0.0; n])),
        });
        let mech: BoxedMechanism = if closures.is_empty() {
            Box::new(tree.clone())
        } else {
            let cs = closures
                .iter()
                .map(|c| closure_of(py, &tree, &q, c))
                .collect::<PyResult<Vec<_>>>()?;
            Box::new(ConstrainedTree::new(tree.clone(), cs).map_err(|e| facade(py, e))?)
        };
        Ok(
            PyClassInitializer::from(Model::new(mech, Some(state))).add_subclass(Urdf {
                tree,
                limits,
                args,
            }),
        )
    }

    /// Pickling (and ``copy.deepcopy``): the URDF model as its absolute path and options
    /// (the file is read again).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> (Bound<'py, PyAny>, Bound<'py, PyAny>) {
        let py = slf.py();
        (slf.get_type().into_any(), slf.get().args.bind(py).clone())
    }

    /// Joint names in q order.
    #[getter]
    fn joint_names(&self) -> Vec<String> {
        self.limits.names.clone()
    }
    /// Lower position limits [rad or m] (−inf where the URDF gives none).
    #[getter]
    fn lower<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<f64>> {
        out1(py, &self.limits.lower)
    }
    /// Upper position limits [rad or m] (+inf where the URDF gives none).
    #[getter]
    fn upper<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<f64>> {
        out1(py, &self.limits.upper)
    }
    /// Velocity limits |q̇| ≤ velocity_limit [rad/s or m/s].
    #[getter]
    fn velocity_limit<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<f64>> {
        out1(py, &self.limits.velocity)
    }
    /// Effort limits |τ| ≤ effort_limit [N·m or N].
    #[getter]
    fn effort_limit<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<f64>> {
        out1(py, &self.limits.effort)
    }

    /// World position [m] of the point ``point`` (coordinates in link ``frame``, default
    /// its origin) at configuration ``q``, shape (3,).
    #[pyo3(signature = (q, frame, point=None))]
    fn frame_position<'py>(
        &self,
        py: Python<'py>,
        q: &Bound<'py, PyAny>,
        frame: &str,
        point: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, numpy::PyArray1<f64>>> {
        let q = vec1(py, q, "q", Some(self.n()))?;
        let body = self.body(py, frame)?;
        let point = point
            .map(|p| vec3(py, p, "point"))
            .transpose()?
            .unwrap_or([0.0; 3]);
        let x = self
            .tree
            .point_position(&q, body, point)
            .map_err(|e| facade(py, e))?;
        Ok(out1(py, &x))
    }

    /// Orientation of link ``frame`` at configuration ``q``: the rotation matrix ``R`` that
    /// maps link coordinates to world coordinates, shape (3, 3).
    fn frame_rotation<'py>(
        &self,
        py: Python<'py>,
        q: &Bound<'py, PyAny>,
        frame: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let q = vec1(py, q, "q", Some(self.n()))?;
        let body = self.body(py, frame)?;
        let e = self
            .tree
            .body_transform(&q, body)
            .map_err(|e| facade(py, e))?
            .rot;
        // the transform holds the coordinate rotation E (world → link); R = Eᵀ
        let r: Vec<Vec<f64>> = (0..3).map(|i| (0..3).map(|j| e[j][i]).collect()).collect();
        out2(py, &r, 3)
    }

    /// Joint-space inertia matrix ``M(q)`` by the composite-rigid-body algorithm (RBDA
    /// Table 6.2), shape (n, n).
    fn crba<'py>(&self, py: Python<'py>, q: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let n = self.n();
        let q = vec1(py, q, "q", Some(n))?;
        let m = py.detach(|| {
            let mut m = contour::faer::Mat::<f64>::zeros(n, n);
            self.tree.mass_matrix(&q, m.as_mut());
            m
        });
        let rows: Vec<Vec<f64>> = (0..n)
            .map(|i| (0..n).map(|j| m[(i, j)]).collect())
            .collect();
        out2(py, &rows, n)
    }

    /// Inverse dynamics ``τ = M(q) q̈ + h(q, q̇)`` (gravity included) by the recursive
    /// Newton–Euler algorithm (RBDA Table 5.1), shape (n,).
    fn rnea<'py>(
        &self,
        py: Python<'py>,
        q: &Bound<'py, PyAny>,
        v: &Bound<'py, PyAny>,
        a: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let n = self.n();
        let (q, v, a) = (
            vec1(py, q, "q", Some(n))?,
            vec1(py, v, "v", Some(n))?,
            vec1(py, a, "a", Some(n))?,
        );
        let mut tau = vec![0.0; n];
        let r = py.detach(|| self.tree.inverse_dynamics(&q, &v, &a, &mut tau));
        r.map_err(|e| facade(py, e))?;
        Ok(out1(py, &tau).into_any())
    }

    /// Forward dynamics ``q̈ = M⁻¹(τ − h)`` by the articulated-body algorithm (RBDA
    /// Table 7.1), shape (n,).
    fn aba<'py>(
        &self,
        py: Python<'py>,
        q: &Bound<'py, PyAny>,
        v: &Bound<'py, PyAny>,
        tau: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let n = self.n();
        let (q, v, tau) = (
            vec1(py, q, "q", Some(n))?,
            vec1(py, v, "v", Some(n))?,
            vec1(py, tau, "tau", Some(n))?,
        );
        let mut qdd = vec![0.0; n];
        let r = py.detach(|| self.tree.forward_dynamics(&q, &v, &tau, &mut qdd));
        r.map_err(|e| facade(py, e))?;
        Ok(out1(py, &qdd).into_any())
    }
}

/// When a Python callable of a user mechanism failed during the run, its `CallbackError`
/// (the callable's own exception as `__cause__`) is raised, with the run's error as
/// `__context__`.
pub fn with_callback_cause(py: Python<'_>, model: &Model, err: PyErr) -> PyErr {
    match model.take_callback_error() {
        Some(cb) => {
            let _ = cb.value(py).setattr("__context__", err.value(py));
            cb
        }
        None => err,
    }
}
