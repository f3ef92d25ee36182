//! `contour.Trajectory`: the workspace's one result type, as numpy arrays.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use contour::projection::Rows;

use crate::convert::{out1, out2, to_dict};

/// The result of a simulation (or a sampled plan): times, coordinates, velocities,
/// multipliers, the constraint-violation history, events and statistics.
///
/// Arrays are fresh ``float64`` copies: ``t`` (k,), ``q`` and ``qd`` (k, n), ``lam`` (k, L) at
/// the output times; ``step_t``, ``phi`` and ``phidot`` (‖φ‖₂ and ‖J q̇ + b‖₂ after every
/// accepted step); ``qdd`` and ``tau`` (k, n) for sampled plans (empty otherwise).
#[pyclass(module = "contour", frozen)]
pub struct Trajectory {
    /// The Rust trajectory.
    pub inner: contour::projection::Trajectory,
}

impl From<contour::projection::Trajectory> for Trajectory {
    fn from(inner: contour::projection::Trajectory) -> Self {
        Self { inner }
    }
}

fn width(rows: &Rows) -> usize {
    rows.first().map_or(0, <[f64]>::len)
}

#[pymethods]
impl Trajectory {
    /// Output times [s], shape (k,).
    #[getter]
    fn t<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<f64>> {
        out1(py, &self.inner.times)
    }
    /// Coordinates at the output times, shape (k, n).
    #[getter]
    fn q<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        out2(py, &self.inner.q, self.n_q())
    }
    /// Velocities at the output times, shape (k, n).
    #[getter]
    fn qd<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        out2(py, &self.inner.qd, self.n_q())
    }
    /// Multipliers λ at the output times, shape (k, L) (L = 0 for a free tree or a plan).
    #[getter]
    fn lam<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        out2(py, &self.inner.lambda, width(&self.inner.lambda))
    }
    /// Accelerations of a sampled plan, shape (k, n); (0, 0) for a simulation.
    #[getter]
    fn qdd<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        out2(py, &self.inner.qdd, width(&self.inner.qdd))
    }
    /// Joint torques of a sampled plan [N·m or N], shape (k, n); (0, 0) for a simulation.
    #[getter]
    fn tau<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        out2(py, &self.inner.tau, width(&self.inner.tau))
    }
    /// Times of the accepted steps [s] (the abscissa of ``phi`` and ``phidot``).
    #[getter]
    fn step_t<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<f64>> {
        out1(py, &self.inner.step_times)
    }
    /// ‖φ(t, q)‖₂ after every accepted step.
    #[getter]
    fn phi<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<f64>> {
        out1(py, &self.inner.step_phi)
    }
    /// ‖J q̇ + b‖₂ after every accepted step.
    #[getter]
    fn phidot<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<f64>> {
        out1(py, &self.inner.step_phidot)
    }
    /// The final state (q, q̇) concatenated, shape (2n,).
    #[getter]
    fn x_final<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<f64>> {
        out1(py, &self.inner.x_final)
    }
    /// Statistics (steps, rejected steps, f-evaluations, projections, max ‖φ‖, ...) as a dict.
    #[getter]
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_dict(py, &self.inner.stats)
    }
    /// Events (impacts, contact exits, stick/slip, ...) as a list of dicts with ``t``,
    /// ``kind``, ``row``, ``impulse``, ``normal_velocity_before``/``after``, ``energy_loss``,
    /// ``q``, ``qd``.
    #[getter]
    fn events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_dict(py, &self.inner.events)
    }
    /// The constraint method's name (``"perturbation"``, ...).
    #[getter]
    fn method(&self) -> &str {
        &self.inner.method
    }
    /// The integrator's name (``"dopri5"``, ...).
    #[getter]
    fn integrator(&self) -> &str {
        &self.inner.integrator
    }
    /// The trajectory as JSON (the Rust ``Trajectory::write_json`` form; floats round-trip).
    fn to_json(&self) -> PyResult<String> {
        let mut buf = Vec::new();
        self.inner
            .write_json(&mut buf)
            .map_err(|e| pyo3::exceptions::PyIOError::new_err(e.to_string()))?;
        String::from_utf8(buf).map_err(|e| pyo3::exceptions::PyIOError::new_err(e.to_string()))
    }
    /// A ``pandas.DataFrame`` with columns ``t``, ``q0..``, ``qd0..``, ``lam0..`` (and
    /// ``qdd0..``, ``tau0..`` for plans). Needs pandas.
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let pd = py.import("pandas")?;
        let cols = PyDict::new(py);
        cols.set_item("t", self.t(py))?;
        let groups: [(&str, &Rows); 5] = [
            ("q", &self.inner.q),
            ("qd", &self.inner.qd),
            ("lam", &self.inner.lambda),
            ("qdd", &self.inner.qdd),
            ("tau", &self.inner.tau),
        ];
        for (name, rows) in groups {
            if rows.len() != self.inner.times.len() {
                continue;
            }
            for j in 0..width(rows) {
                let col: Vec<f64> = rows
                    .iter()
                    .map(|r| r.get(j).copied().unwrap_or(f64::NAN))
                    .collect();
                cols.set_item(format!("{name}{j}"), out1(py, &col))?;
            }
        }
        pd.call_method1("DataFrame", (cols,))
    }
    fn __len__(&self) -> usize {
        self.inner.times.len()
    }
    /// A trajectory read back from ``to_json`` (what pickling and ``copy.deepcopy`` use).
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        contour::projection::Trajectory::read_json(text.as_bytes())
            .map(Self::from)
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
    }
    /// Pickling (and ``copy.deepcopy``): the JSON of ``to_json``, floats bit for bit.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let from_json = slf.get_type().getattr("from_json")?;
        Ok((from_json, (slf.get().to_json()?,)))
    }
    fn __repr__(&self) -> String {
        format!(
            "Trajectory(method={:?}, integrator={:?}, outputs={}, steps={})",
            self.inner.method,
            self.inner.integrator,
            self.inner.times.len(),
            self.inner.stats.steps
        )
    }
}

impl Trajectory {
    fn n_q(&self) -> usize {
        width(&self.inner.q)
    }
}
