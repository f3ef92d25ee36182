//! Rust errors → the Python exception hierarchy of `contour._errors`. A leaf: it imports no
//! other module of the binding (a failed run's partial trajectory is attached by `failure`).
//!
//! The classes live in Python (`python/contour/_errors.py`) so that `InvalidInputError` can
//! derive from both `ContourError` and `ValueError`; Rust looks them up by name when it raises.

use pyo3::prelude::*;

use contour::projection::ProjectionError;
use contour::Error;

/// The Python class of an error family (a name in `contour._errors`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `InvalidInputError` (also a `ValueError`).
    Input,
    /// `LinalgError`.
    Linalg,
    /// `ModelError`.
    Model,
    /// `OdeError`.
    Ode,
    /// `SimulationError`.
    Simulation,
    /// `ContactError`.
    Contact,
    /// `PlanningError`.
    Planning,
    /// `CallbackError`.
    Callback,
}

impl Family {
    fn class_name(self) -> &'static str {
        match self {
            Family::Input => "InvalidInputError",
            Family::Linalg => "LinalgError",
            Family::Model => "ModelError",
            Family::Ode => "OdeError",
            Family::Simulation => "SimulationError",
            Family::Contact => "ContactError",
            Family::Planning => "PlanningError",
            Family::Callback => "CallbackError",
        }
    }
}

/// An exception of `family` with `message`, as a `PyErr` ready to raise.
pub fn raise(py: Python<'_>, family: Family, message: impl Into<String>) -> PyErr {
    build(py, family, message.into()).unwrap_or_else(|e| e)
}

fn build(py: Python<'_>, family: Family, message: String) -> PyResult<PyErr> {
    let class = py.import("contour._errors")?.getattr(family.class_name())?;
    let instance = class.call1((message,))?;
    Ok(PyErr::from_value(instance))
}

/// `InvalidInputError(message)`.
pub fn input(py: Python<'_>, message: impl Into<String>) -> PyErr {
    raise(py, Family::Input, message)
}

/// The family of a facade error: input errors (parameters, tolerances, time spans, output
/// times) are `InvalidInputError`; the rest by the crate they come from.
pub fn family_of(e: &Error) -> Family {
    match e {
        Error::Linalg(_) => Family::Linalg,
        Error::Model(m) => model_family(m),
        Error::Ode(_) => Family::Ode,
        Error::Projection(p) => projection_family(p.cause()),
        Error::Contact(c) => match c {
            contour::contact::ContactError::InvalidParameter { .. } => Family::Input,
            contour::contact::ContactError::Model(m) => model_family(m),
            contour::contact::ContactError::Ode(_) => Family::Ode,
            _ => Family::Contact,
        },
        Error::Planning(p) => match p {
            contour::planning::PlanningError::InvalidParameter { .. } => Family::Input,
            _ => Family::Planning,
        },
        _ => Family::Simulation,
    }
}

fn model_family(m: &contour::model::ModelError) -> Family {
    match m {
        contour::model::ModelError::InvalidParameter { .. }
        | contour::model::ModelError::InvalidOption { .. } => Family::Input,
        contour::model::ModelError::Linalg(_) => Family::Linalg,
        _ => Family::Model,
    }
}

fn projection_family(p: &ProjectionError) -> Family {
    match p {
        ProjectionError::Model(m) => model_family(m),
        ProjectionError::Ode(_) => Family::Ode,
        ProjectionError::Linalg(_) => Family::Linalg,
        ProjectionError::InvalidParameter { .. }
        | ProjectionError::InvalidTolerance { .. }
        | ProjectionError::InvalidTimeSpan { .. }
        | ProjectionError::UnsortedOutputTimes { .. }
        | ProjectionError::OutputTimeOutsideSpan { .. }
        | ProjectionError::UnsupportedIntegrator { .. }
        | ProjectionError::UnsupportedNorm { .. }
        | ProjectionError::UnusedOption { .. } => Family::Input,
        _ => Family::Simulation,
    }
}

/// Python's `TypeError` for a keyword that `function` does not take, naming the closest of
/// `known` (`difflib.get_close_matches`, the matcher of Python's own suggestions).
pub fn unexpected_keyword(py: Python<'_>, function: &str, key: &str, known: &[String]) -> PyErr {
    let close = py
        .import("difflib")
        .and_then(|d| d.call_method1("get_close_matches", (key, known.to_vec(), 1)))
        .and_then(|m| m.extract::<Vec<String>>())
        .unwrap_or_default();
    let hint = match close.first() {
        Some(c) => format!(" (did you mean '{c}'?)"),
        None => String::new(),
    };
    pyo3::exceptions::PyTypeError::new_err(format!(
        "{function}() got an unexpected keyword argument '{key}'{hint}"
    ))
}

/// An I/O error on `path` as `ContourFileNotFoundError` (no such file) or `ContourFileError`:
/// `ContourError`s that are also `FileNotFoundError` / `OSError`, with `errno`, `strerror`
/// and `filename` set.
pub fn file_error(py: Python<'_>, path: &std::path::Path, e: &std::io::Error) -> PyErr {
    let class = if e.kind() == std::io::ErrorKind::NotFound {
        "ContourFileNotFoundError"
    } else {
        "ContourFileError"
    };
    let errno = e.raw_os_error().unwrap_or(0);
    let strerror = e.to_string();
    let build = || -> PyResult<PyErr> {
        let class = py.import("contour._errors")?.getattr(class)?;
        let instance = class.call1((errno, strerror, path.to_string_lossy().into_owned()))?;
        Ok(PyErr::from_value(instance))
    };
    build().unwrap_or_else(|e| e)
}
