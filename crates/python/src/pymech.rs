//! `contour.Mechanism`: a mechanism whose `M`, `h`, `u`, `φ`, `J`, `b`, `ρ` are Python
//! callables. Slow (every evaluation re-enters Python and copies small arrays) but exact: the
//! driver sees the same trait as a Rust model.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;

use contour::faer::MatMut;
use contour::prelude::{ConstraintKind, Mechanism};

use crate::convert::{out1, rows2, vec1};
use crate::error::{raise, Family};
use crate::model::{CallbackErrorSlot, Model};

/// The callables of a user mechanism.
struct PyMechanism {
    name: String,
    dof: usize,
    rows: usize,
    unilateral: bool,
    mass_matrix: Py<PyAny>,
    bias_forces: Py<PyAny>,
    applied_forces: Option<Py<PyAny>>,
    constraints: Option<Py<PyAny>>,
    jacobian: Option<Py<PyAny>>,
    rate_bias: Option<Py<PyAny>>,
    accel_bias: Option<Py<PyAny>>,
    error: CallbackErrorSlot,
    evaluations: Arc<AtomicUsize>,
}

/// The argument tuple of a callable.
enum Args<'a> {
    Q(&'a [f64]),
    QQd(&'a [f64], &'a [f64]),
    TQ(f64, &'a [f64]),
    TQQd(f64, &'a [f64], &'a [f64]),
}

impl PyMechanism {
    /// Calls `f` and returns its result as `rows × cols` floats (`cols = None`: a vector of
    /// length `rows`); on any failure keeps the first exception and returns `None`.
    fn call(
        &self,
        f: &Py<PyAny>,
        what: &str,
        args: Args<'_>,
        rows: usize,
        cols: Option<usize>,
    ) -> Option<Vec<f64>> {
        self.evaluations.fetch_add(1, Ordering::Relaxed);
        Python::attach(|py| {
            let result = (|| -> PyResult<Vec<f64>> {
                let out = match args {
                    Args::Q(q) => f.call1(py, (out1(py, q),))?,
                    Args::QQd(q, qd) => f.call1(py, (out1(py, q), out1(py, qd)))?,
                    Args::TQ(t, q) => f.call1(py, (t, out1(py, q)))?,
                    Args::TQQd(t, q, qd) => f.call1(py, (t, out1(py, q), out1(py, qd)))?,
                };
                let out = out.bind(py);
                match cols {
                    None => vec1(py, out, what, Some(rows)),
                    Some(c) => {
                        let r = rows2(py, out, what, Some(c))?;
                        if r.len() != rows {
                            return Err(crate::error::input(
                                py,
                                format!(
                                    "{what}: expected shape ({rows}, {c}), found ({}, {c})",
                                    r.len()
                                ),
                            ));
                        }
                        Ok(r.concat())
                    }
                }
            })();
            match result {
                Ok(v) => Some(v),
                Err(e) => {
                    if let Ok(mut slot) = self.error.lock() {
                        if slot.is_none() {
                            *slot = Some(callback_error(py, what, e));
                        }
                    }
                    None
                }
            }
        })
    }

    fn fill(&self, f: Option<&Py<PyAny>>, what: &str, args: Args<'_>, out: &mut [f64]) {
        match f {
            None => out.fill(0.0),
            Some(f) => match self.call(f, what, args, out.len(), None) {
                Some(v) => out.copy_from_slice(&v),
                None => out.fill(f64::NAN),
            },
        }
    }

    fn fill_mat(&self, f: Option<&Py<PyAny>>, what: &str, args: Args<'_>, mut m: MatMut<'_, f64>) {
        let (r, c) = (m.nrows(), m.ncols());
        let v = f.and_then(|f| self.call(f, what, args, r, Some(c)));
        for i in 0..r {
            for j in 0..c {
                m[(i, j)] = match &v {
                    Some(v) => v[i * c + j],
                    None => f64::NAN,
                };
            }
        }
    }
}

impl Mechanism for PyMechanism {
    fn name(&self) -> &str {
        &self.name
    }
    fn dof(&self) -> usize {
        self.dof
    }
    fn n_constraints(&self) -> usize {
        self.rows
    }
    fn constraint_kind(&self, _row: usize) -> ConstraintKind {
        if self.unilateral {
            ConstraintKind::Unilateral
        } else {
            ConstraintKind::Bilateral
        }
    }
    fn mass_matrix(&self, q: &[f64], m: MatMut<'_, f64>) {
        self.fill_mat(Some(&self.mass_matrix), "mass_matrix(q)", Args::Q(q), m);
    }
    fn bias_forces(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
        self.fill(
            Some(&self.bias_forces),
            "bias_forces(q, qd)",
            Args::QQd(q, qd),
            h,
        );
    }
    fn applied_forces(&self, t: f64, q: &[f64], qd: &[f64], u: &mut [f64]) {
        self.fill(
            self.applied_forces.as_ref(),
            "applied_forces(t, q, qd)",
            Args::TQQd(t, q, qd),
            u,
        );
    }
    fn constraints(&self, t: f64, q: &[f64], phi: &mut [f64]) {
        self.fill(
            self.constraints.as_ref(),
            "constraints(t, q)",
            Args::TQ(t, q),
            phi,
        );
    }
    fn constraint_jacobian(&self, t: f64, q: &[f64], j: MatMut<'_, f64>) {
        self.fill_mat(self.jacobian.as_ref(), "jacobian(t, q)", Args::TQ(t, q), j);
    }
    fn constraint_rate_bias(&self, t: f64, q: &[f64], b: &mut [f64]) {
        self.fill(
            self.rate_bias.as_ref(),
            "rate_bias(t, q)",
            Args::TQ(t, q),
            b,
        );
    }
    fn constraint_accel_bias(&self, t: f64, q: &[f64], qd: &[f64], rho: &mut [f64]) {
        self.fill(
            self.accel_bias.as_ref(),
            "accel_bias(t, q, qd)",
            Args::TQQd(t, q, qd),
            rho,
        );
    }
}

/// The `CallbackError` of the callable `what` that raised `e`: `e` itself when it is one
/// (a wrong shape), else a new one with `e` (and its traceback) as `__cause__`.
fn callback_error(py: Python<'_>, what: &str, e: PyErr) -> PyErr {
    let is_callback = py
        .import("contour._errors")
        .and_then(|m| m.getattr("CallbackError"))
        .is_ok_and(|c| e.is_instance(py, &c));
    if is_callback {
        return e;
    }
    let kind = e
        .get_type(py)
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default();
    let err = raise(
        py,
        Family::Callback,
        format!("{what} raised {kind}: {}", e.value(py)),
    );
    err.set_cause(py, Some(e));
    err
}

/// Refuses a callable that cannot take the `arity` positional arguments of its term
/// (`inspect.signature(f).bind`), naming the term and its arguments; a callable without an
/// inspectable signature (a builtin, a ufunc) is taken as it is.
fn check_arity(py: Python<'_>, f: &Py<PyAny>, what: &str, arity: usize) -> PyResult<()> {
    let inspect = py.import("inspect")?;
    let Ok(sig) = inspect.call_method1("signature", (f.bind(py),)) else {
        return Ok(());
    };
    let args = pyo3::types::PyTuple::new(py, (0..arity).map(|_| py.None()))?;
    if let Err(e) = sig.call_method1("bind", args) {
        return Err(raise(
            py,
            Family::Callback,
            format!(
                "{what}: the callable{} cannot take these {arity} arguments ({})",
                sig.str()
                    .map(|s| format!(" of signature {s}"))
                    .unwrap_or_default(),
                e.value(py)
            ),
        ));
    }
    Ok(())
}

/// The evaluation counter of a `contour.Mechanism` (shared with the model it built).
#[pyclass(module = "contour", frozen)]
pub struct EvaluationCounter {
    count: Arc<AtomicUsize>,
}

#[pymethods]
impl EvaluationCounter {
    /// Number of callable evaluations so far.
    #[getter]
    fn count(&self) -> usize {
        self.count.load(Ordering::Relaxed)
    }
    /// Sets the count to zero.
    fn reset(&self) {
        self.count.store(0, Ordering::Relaxed);
    }
}

/// A mechanism written in Python: ``M(q) q̈ + h(q, q̇) = u(t, q, q̇) + Jᵀλ``,
/// ``φ(t, q) = 0`` (``≥ 0`` with ``unilateral=True``).
///
/// Callables take and return ``float64`` arrays. One rule for their arguments: each takes
/// the variables its term depends on, always in the order ``t, q, qd``: the inertia terms
/// ``M`` and ``h`` of ``M(q) q̈ + h(q, q̇)`` are time-invariant and take no ``t``; the applied
/// forces and the constraint terms may depend on time (rheonomic rows) and take ``t`` first.
/// A callable that cannot take its arguments is refused here with ``CallbackError``:
/// ``mass_matrix(q) → (n, n)``, ``bias_forces(q, qd) → (n,)``,
/// ``applied_forces(t, q, qd) → (n,)`` (default 0), ``constraints(t, q) → (L,)``,
/// ``jacobian(t, q) → (L, n)`` (J = ∂φ/∂q), ``rate_bias(t, q) → (L,)`` (b = ∂φ/∂t, default 0),
/// ``accel_bias(t, q, qd) → (L,)`` (ρ with J q̈ + ρ = 0, i.e. ρ = J̇ q̇ + ḃ).
/// ``constraints``, ``jacobian`` and ``accel_bias`` are required when ``n_constraints > 0``.
///
/// Returns ``(model, counter)``: ``counter.count`` is the number of callable evaluations
/// (every call re-enters Python: microseconds each, see the README's table). An exception
/// raised by a callable (or a result of the wrong shape) ends the run with ``CallbackError``
/// naming the callable; the callable's exception, with its traceback, is its ``__cause__``.
#[pyfunction]
#[pyo3(signature = (dof, mass_matrix, bias_forces, n_constraints=None, constraints=None, jacobian=None, accel_bias=None, rate_bias=None, applied_forces=None, unilateral=false, name="python"),
    text_signature = "(dof, mass_matrix, bias_forces, n_constraints=0, constraints=None, jacobian=None, accel_bias=None, rate_bias=None, applied_forces=None, unilateral=False, name='python')")]
pub fn mechanism(
    py: Python<'_>,
    dof: &Bound<'_, PyAny>,
    mass_matrix: Py<PyAny>,
    bias_forces: Py<PyAny>,
    n_constraints: Option<&Bound<'_, PyAny>>,
    constraints: Option<Py<PyAny>>,
    jacobian: Option<Py<PyAny>>,
    accel_bias: Option<Py<PyAny>>,
    rate_bias: Option<Py<PyAny>>,
    applied_forces: Option<Py<PyAny>>,
    unilateral: bool,
    name: &str,
) -> PyResult<(Model, EvaluationCounter)> {
    // At least one coordinate; the bounds keep n × n and L × n matrices allocatable.
    let dof = crate::convert::count(py, dof, "dof", 1, 1 << 16)? as usize;
    let n_constraints = crate::convert::count_or(py, n_constraints, "n_constraints", 0, 0)?;
    if n_constraints > 1 << 16 {
        return Err(crate::error::input(
            py,
            format!("n_constraints = {n_constraints}: an integer from 0 to 65536 is expected"),
        ));
    }
    if n_constraints > 0 && (constraints.is_none() || jacobian.is_none() || accel_bias.is_none()) {
        return Err(crate::error::input(
            py,
            "n_constraints > 0 needs constraints, jacobian and accel_bias",
        ));
    }
    for (f, what, arity) in [
        (Some(&mass_matrix), "mass_matrix(q)", 1),
        (Some(&bias_forces), "bias_forces(q, qd)", 2),
        (applied_forces.as_ref(), "applied_forces(t, q, qd)", 3),
        (constraints.as_ref(), "constraints(t, q)", 2),
        (jacobian.as_ref(), "jacobian(t, q)", 2),
        (rate_bias.as_ref(), "rate_bias(t, q)", 2),
        (accel_bias.as_ref(), "accel_bias(t, q, qd)", 3),
    ] {
        if let Some(f) = f {
            check_arity(py, f, what, arity)?;
        }
    }
    let slot: CallbackErrorSlot = Arc::new(Mutex::new(None));
    let evaluations = Arc::new(AtomicUsize::new(0));
    let mech = PyMechanism {
        name: name.to_string(),
        dof,
        rows: n_constraints,
        unilateral,
        mass_matrix,
        bias_forces,
        applied_forces,
        constraints,
        jacobian,
        rate_bias,
        accel_bias,
        error: slot.clone(),
        evaluations: evaluations.clone(),
    };
    Ok((
        Model::new(Box::new(mech), None).with_callback_errors(slot),
        EvaluationCounter { count: evaluations },
    ))
}
