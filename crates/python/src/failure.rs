//! A facade error raised in Python: its exception class (`error`) and, for a run that failed
//! after it started, the partial trajectory attached to it.

use pyo3::prelude::*;

use contour::projection::ProjectionError;
use contour::Error;

use crate::error::{family_of, raise};
use crate::trajectory::Trajectory;

/// A facade error as its Python exception; a run that failed after it started carries its
/// partial trajectory (`partial`, `t`, `q`, `qd`).
pub fn to_py(py: Python<'_>, e: Error) -> PyErr {
    let family = family_of(&e);
    let err = raise(py, family, e.to_string());
    if let Error::Projection(ProjectionError::Failed(f)) = e {
        if let Err(attach) = attach_partial(py, &err, *f) {
            return attach;
        }
    }
    err
}

/// Sets `partial`, `t`, `q`, `qd` of the exception `err` from a failed run.
pub fn attach_partial(
    py: Python<'_>,
    err: &PyErr,
    f: contour::projection::SimulationFailure,
) -> PyResult<()> {
    let value = err.value(py);
    value.setattr("t", f.t)?;
    value.setattr("q", numpy::PyArray1::from_vec(py, f.q))?;
    value.setattr("qd", numpy::PyArray1::from_vec(py, f.qd))?;
    value.setattr("partial", Py::new(py, Trajectory::from(*f.partial))?)?;
    Ok(())
}

/// Converts any error that converts into the facade's [`Error`].
pub fn facade<E: Into<Error>>(py: Python<'_>, e: E) -> PyErr {
    to_py(py, e.into())
}
