//! numpy in and out: every input array is read as `float64`, its shape checked (never
//! reshaped) and its entries checked finite; every output is a fresh `float64` array.

use numpy::{PyArray1, PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::error::input;

/// `numpy.asarray(obj, dtype=float64)` as an n-dimensional array, or `InvalidInputError`.
fn as_f64_array<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    name: &str,
) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
    // A float64 array is taken as it is (no call into numpy: the per-call cost of crba/rnea).
    if let Ok(arr) = obj.cast::<PyArrayDyn<f64>>() {
        return Ok(arr.clone());
    }
    let np = py.import("numpy")?;
    // Real numbers only: a complex array would lose its imaginary part, a bool or object
    // array is no array of numbers (numpy's `asarray(x, float64)` converts all three).
    let raw = np.call_method1("asarray", (obj,)).map_err(|e| {
        input(
            py,
            format!("{name}: not convertible to a float64 array ({e})"),
        )
    })?;
    let dtype = raw.getattr("dtype")?;
    let kind: String = dtype.getattr("kind")?.extract()?;
    if !matches!(kind.as_str(), "f" | "i" | "u") {
        return Err(input(
            py,
            format!(
                "{name}: an array of real numbers is expected, found dtype {} ({})",
                dtype.str()?,
                match kind.as_str() {
                    "c" => "complex: the imaginary part would be dropped",
                    "b" => "bool",
                    "O" => "Python objects",
                    "U" | "S" => "strings",
                    _ => "not a real number",
                }
            ),
        ));
    }
    let kwargs = PyDict::new(py);
    kwargs.set_item("dtype", np.getattr("float64")?)?;
    let arr = np
        .call_method("asarray", (raw,), Some(&kwargs))
        .map_err(|e| {
            input(
                py,
                format!("{name}: not convertible to a float64 array ({e})"),
            )
        })?;
    arr.cast_into::<PyArrayDyn<f64>>()
        .map_err(|_| input(py, format!("{name}: not a float64 array")))
}

fn check_finite(py: Python<'_>, name: &str, v: &[f64]) -> PyResult<()> {
    match v.iter().position(|x| !x.is_finite()) {
        Some(i) => Err(input(py, format!("{name}[{i}] = {} is not finite", v[i]))),
        None => Ok(()),
    }
}

/// A 1-D array of finite floats; `len`: the length it must have.
pub fn vec1(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    name: &str,
    len: Option<usize>,
) -> PyResult<Vec<f64>> {
    let arr = as_f64_array(py, obj, name)?;
    if arr.ndim() != 1 {
        return Err(input(
            py,
            format!(
                "{name}: expected a 1-D array, found shape {:?}",
                arr.shape()
            ),
        ));
    }
    let v: Vec<f64> = arr.readonly().as_array().iter().copied().collect();
    if let Some(n) = len {
        if v.len() != n {
            return Err(input(
                py,
                format!("{name}: expected length {n}, found {}", v.len()),
            ));
        }
    }
    check_finite(py, name, &v)?;
    Ok(v)
}

/// A 1-D array of positive limits, `len` entries if given: `inf` is "no limit" on that
/// entry; NaN, −inf, zero and negative entries are refused.
pub fn limits1(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    name: &str,
    len: Option<usize>,
) -> PyResult<Vec<f64>> {
    let arr = as_f64_array(py, obj, name)?;
    if arr.ndim() != 1 {
        return Err(input(
            py,
            format!(
                "{name}: expected a 1-D array, found shape {:?}",
                arr.shape()
            ),
        ));
    }
    let v: Vec<f64> = arr.readonly().as_array().iter().copied().collect();
    if let Some(n) = len {
        if v.len() != n {
            return Err(input(
                py,
                format!("{name}: expected length {n}, found {}", v.len()),
            ));
        }
    }
    match v.iter().position(|x| x.is_nan() || *x <= 0.0) {
        Some(i) => Err(input(
            py,
            format!(
                "{name}[{i}] = {} is not a positive limit (inf for no limit)",
                v[i]
            ),
        )),
        None => Ok(v),
    }
}

/// A 2-D array of finite floats as rows; `cols`: the number of columns it must have.
pub fn rows2(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    name: &str,
    cols: Option<usize>,
) -> PyResult<Vec<Vec<f64>>> {
    let arr = as_f64_array(py, obj, name)?;
    if arr.ndim() != 2 {
        return Err(input(
            py,
            format!(
                "{name}: expected a 2-D array, found shape {:?}",
                arr.shape()
            ),
        ));
    }
    let (r, c) = (arr.shape()[0], arr.shape()[1]);
    if let Some(n) = cols {
        if c != n {
            return Err(input(
                py,
                format!("{name}: expected shape (k, {n}), found ({r}, {c})"),
            ));
        }
    }
    let ro = arr.readonly();
    let a = ro.as_array();
    let out: Vec<Vec<f64>> = (0..r)
        .map(|i| (0..c).map(|j| a[[i, j]]).collect())
        .collect();
    for (i, row) in out.iter().enumerate() {
        check_finite(py, &format!("{name}[{i}]"), row)?;
    }
    Ok(out)
}

/// A 3-vector (gravity, points).
pub fn vec3(py: Python<'_>, obj: &Bound<'_, PyAny>, name: &str) -> PyResult<[f64; 3]> {
    let v = vec1(py, obj, name, Some(3))?;
    Ok([v[0], v[1], v[2]])
}

/// A 1-D output array.
pub fn out1<'py>(py: Python<'py>, v: &[f64]) -> Bound<'py, PyArray1<f64>> {
    PyArray1::from_slice(py, v)
}

/// Rows of equal length `cols` as a `(number of rows, cols)` array (`cols` given so that zero rows
/// or zero columns still have the right shape).
pub fn out2<'py, R: AsRef<[f64]>>(
    py: Python<'py>,
    rows: impl IntoIterator<Item = R>,
    cols: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let rows = rows.into_iter();
    let mut flat = Vec::with_capacity(rows.size_hint().0 * cols);
    let mut count = 0;
    for (i, r) in rows.enumerate() {
        let r = r.as_ref();
        if r.len() != cols {
            return Err(input(
                py,
                format!("row {i} has {} entries, expected {cols}", r.len()),
            ));
        }
        flat.extend_from_slice(r);
        count = i + 1;
    }
    Ok(PyArray1::from_vec(py, flat)
        .reshape([count, cols])?
        .into_any())
}

/// A serde value (statistics, events) as Python objects: maps → dict, sequences → list.
pub fn json_to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use pyo3::IntoPyObjectExt;
    Ok(match v {
        serde_json::Value::Null => py.None().into_bound(py),
        serde_json::Value::Bool(b) => b.into_bound_py_any(py)?,
        serde_json::Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => u.into_bound_py_any(py)?,
            (None, Some(i), _) => i.into_bound_py_any(py)?,
            (None, None, f) => f.unwrap_or(f64::NAN).into_bound_py_any(py)?,
        },
        serde_json::Value::String(s) => s.into_bound_py_any(py)?,
        serde_json::Value::Array(a) => {
            let list = PyList::empty(py);
            for x in a {
                list.append(json_to_py(py, x)?)?;
            }
            list.into_any()
        }
        serde_json::Value::Object(m) => {
            let d = PyDict::new(py);
            for (k, x) in m {
                d.set_item(k, json_to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// A serializable value as a dict (statistics, events).
pub fn to_dict<'py, T: serde::Serialize>(py: Python<'py>, x: &T) -> PyResult<Bound<'py, PyAny>> {
    let v = serde_json::to_value(x)
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    json_to_py(py, &v)
}

/// A count argument (`max_steps`, `max_events`, `intervals`, ...): a Python `int` in
/// `min ..= max`, else `InvalidInputError` naming the keyword and the value (a bool, a float
/// or an int beyond 64 bits included).
pub fn count(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    name: &str,
    min: u64,
    max: u64,
) -> PyResult<u64> {
    use pyo3::types::{PyBool, PyInt};
    let shown = || obj.repr().map(|r| r.to_string()).unwrap_or_default();
    if obj.is_instance_of::<PyBool>() || !obj.is_instance_of::<PyInt>() {
        return Err(input(
            py,
            format!("{name} = {}: an integer is expected", shown()),
        ));
    }
    match obj.extract::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(input(
            py,
            format!(
                "{name} = {}: an integer from {min} to {max} is expected",
                shown()
            ),
        )),
    }
}

/// [`count`] as a `usize`, `default` when not given.
pub fn count_or(
    py: Python<'_>,
    obj: Option<&Bound<'_, PyAny>>,
    name: &str,
    min: u64,
    default: usize,
) -> PyResult<usize> {
    match obj {
        None => Ok(default),
        Some(o) => Ok(count(py, o, name, min, usize::MAX as u64)? as usize),
    }
}
