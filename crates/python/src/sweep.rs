//! `contour.sweep`: the sweep engine of both doors (`contour_scenario::sweep`) from Python — the
//! same sweep description (a base scenario, a grid over dotted keys, seeded random keys), the
//! same runs ([`run_one`]) and the same cells ([`Sweep::cells`]) as `contour sweep`, returned
//! as typed columns instead of files (the Python layer makes the DataFrame).
//!
//! The runs go to `jobs` worker threads with the GIL released; the calling thread wakes every
//! 50 ms to let Python see a signal (Ctrl-C): then no new run starts, the running runs finish,
//! and the `KeyboardInterrupt` is raised.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyString, PyTuple};

use contour_scenario::sweep::{run_rows, ColumnKind, Delivery, RunRow, Sweep, MAX_JOBS};

use crate::error::input;

/// How often the calling thread lets Python run its signal handlers during a sweep.
const TICK: Duration = Duration::from_millis(50);

/// Deepest nesting of tables and arrays a sweep description may have.
const MAX_DEPTH: usize = 32;

/// A Python value (dict, list, tuple, str, bool, int, float, numpy array or scalar,
/// `os.PathLike`) as TOML;
/// `at` names the value in errors.
pub(crate) fn to_toml(
    py: Python<'_>,
    v: &Bound<'_, PyAny>,
    at: &str,
    depth: usize,
) -> PyResult<toml::Value> {
    if depth > MAX_DEPTH {
        return Err(input(
            py,
            format!("{at}: nested deeper than {MAX_DEPTH} levels"),
        ));
    }
    if v.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(v.extract()?));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(v.extract()?));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(toml::Value::String(v.extract()?));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        return Ok(toml::Value::Table(to_table(py, d, at, depth + 1)?));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items = v
            .try_iter()?
            .enumerate()
            .map(|(i, x)| to_toml(py, &x?, &format!("{at}[{i}]"), depth + 1))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(toml::Value::Array(items));
    }
    if let Ok(i) = v.extract::<i64>() {
        return Ok(toml::Value::Integer(i));
    }
    // os.PathLike (a pathlib.Path): its path text
    if v.hasattr("__fspath__")? {
        let text = py.import("os")?.call_method1("fspath", (v,))?;
        return to_toml(py, &text, at, depth + 1);
    }
    // numpy arrays and scalars: their Python form (`tolist()` of a float64 scalar is a float)
    if v.hasattr("tolist")? {
        let plain = v.call_method0("tolist")?;
        if !plain.is(v) {
            return to_toml(py, &plain, at, depth + 1);
        }
    }
    Err(input(
        py,
        format!(
            "{at}: a {} cannot be a scenario value (dict, list, str, bool, int, float)",
            v.get_type().name()?
        ),
    ))
}

pub(crate) fn to_table(
    py: Python<'_>,
    d: &Bound<'_, PyDict>,
    at: &str,
    depth: usize,
) -> PyResult<toml::Table> {
    let mut t = toml::Table::new();
    for (k, v) in d.iter() {
        let k: String = k
            .extract()
            .map_err(|_| input(py, format!("{at}: keys are strings")))?;
        let here = if at.is_empty() {
            k.clone()
        } else {
            format!("{at}.{k}")
        };
        t.insert(k, to_toml(py, &v, &here, depth)?);
    }
    Ok(t)
}

/// The sweep's TOML text from the first argument (a sweep or a scenario, as a dict or TOML
/// text) and the keyword arguments.
fn sweep_source(
    py: Python<'_>,
    spec: &Bound<'_, PyAny>,
    grid: Option<&Bound<'_, PyDict>>,
    random: Option<&Bound<'_, PyDict>>,
    samples: Option<usize>,
    seed: Option<u64>,
) -> PyResult<String> {
    let no_kwargs = grid.is_none() && random.is_none() && samples.is_none() && seed.is_none();
    let mut table = if let Ok(text) = spec.extract::<String>() {
        let parsed: toml::Table = toml::from_str(&text)
            .map_err(|e| input(py, format!("scenario: not valid TOML: {e}")))?;
        if parsed.contains_key("base") && no_kwargs {
            // a whole sweep file: its own text, so that errors name its lines
            return Ok(text);
        }
        parsed
    } else if let Ok(d) = spec.cast::<PyDict>() {
        to_table(py, d, "", 0)?
    } else {
        return Err(input(
            py,
            "scenario: a dict or TOML text (a scenario, or a whole sweep with `base`)",
        ));
    };
    if !table.contains_key("base") {
        table = toml::Table::from_iter([("base".to_string(), toml::Value::Table(table))]);
    }
    let mut set = |key: &str, v: Option<toml::Value>| -> PyResult<()> {
        if let Some(v) = v {
            if table.contains_key(key) {
                return Err(input(
                    py,
                    format!("{key}: given both in the sweep and as an argument"),
                ));
            }
            table.insert(key.to_string(), v);
        }
        Ok(())
    };
    let int = |n: u64| -> PyResult<toml::Value> {
        i64::try_from(n)
            .map(toml::Value::Integer)
            .map_err(|_| input(py, format!("{n} is larger than TOML's integers")))
    };
    set(
        "grid",
        grid.map(|g| to_table(py, g, "grid", 1).map(toml::Value::Table))
            .transpose()?,
    )?;
    set(
        "random",
        random
            .map(|r| to_table(py, r, "random", 1).map(toml::Value::Table))
            .transpose()?,
    )?;
    set("samples", samples.map(|n| int(n as u64)).transpose()?)?;
    set("seed", seed.map(int).transpose()?)?;
    toml::to_string(&table).map_err(|e| input(py, format!("sweep: {e}")))
}

/// One column of the result: its name, its kind and its values.
type Column = (String, &'static str, Py<PyAny>);

/// The cells of `rows` as typed Python columns (the CLI's cells, parsed back: floats are in
/// shortest round-trip form, so they parse to the same bits).
fn columns(py: Python<'_>, sweep: &Sweep, rows: &[RunRow]) -> PyResult<Vec<Column>> {
    let header = sweep.header();
    let kinds = sweep.kinds();
    let cells: Vec<Vec<String>> = rows.iter().map(|r| sweep.cells(r)).collect();
    let mut out = Vec::with_capacity(header.len());
    for (c, (name, kind)) in header.into_iter().zip(kinds).enumerate() {
        let column = cells
            .iter()
            .map(|row| row.get(c).map_or("", String::as_str));
        let (kind, values): (&'static str, Py<PyAny>) = match kind {
            ColumnKind::UInt64 => (
                "uint64",
                PyList::new(py, column.map(|x| x.parse::<u64>().ok()))?
                    .into_any()
                    .unbind(),
            ),
            ColumnKind::Float64 => (
                "float64",
                PyList::new(py, column.map(|x| x.parse::<f64>().unwrap_or(f64::NAN)))?
                    .into_any()
                    .unbind(),
            ),
            ColumnKind::Utf8 => ("str", PyList::new(py, column)?.into_any().unbind()),
        };
        out.push((name, kind, values));
    }
    Ok(out)
}

/// The native part of `contour.sweep`: runs every run of the sweep and returns
/// `(columns, fingerprint)`, `columns` a list of `(name, kind, values)` with kind
/// `"uint64"` (values `int` or `None` for an empty cell), `"float64"` (`float`, NaN for an
/// empty cell) or `"str"`, in the CLI's column order.
#[pyfunction]
#[pyo3(signature = (spec, grid=None, random=None, samples=None, seed=None, jobs=None, base_dir=None))]
#[allow(clippy::too_many_arguments)]
pub fn sweep_columns(
    py: Python<'_>,
    spec: &Bound<'_, PyAny>,
    grid: Option<&Bound<'_, PyDict>>,
    random: Option<&Bound<'_, PyDict>>,
    samples: Option<usize>,
    seed: Option<u64>,
    jobs: Option<usize>,
    base_dir: Option<PathBuf>,
) -> PyResult<(Vec<Column>, String)> {
    let jobs = jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map_or(1, std::num::NonZeroUsize::get)
            .min(MAX_JOBS)
    });
    if !(1..=MAX_JOBS).contains(&jobs) {
        return Err(input(
            py,
            format!("jobs: between 1 and {MAX_JOBS}, not {jobs}"),
        ));
    }
    let src = sweep_source(py, spec, grid, random, samples, seed)?;
    let dir = match base_dir {
        Some(d) => d,
        None => std::env::current_dir()?,
    };
    let sweep = py
        .detach(|| Sweep::from_source(&src, "<sweep>", &dir))
        .map_err(|e| input(py, e.to_string()))?;
    let todo: Vec<usize> = (0..sweep.len()).collect();
    let stop = AtomicBool::new(false);
    let mut rows: Vec<RunRow> = Vec::with_capacity(todo.len());
    let mut interrupt: Option<PyErr> = None;
    let mut checked = Instant::now();
    let stopped = || stop.load(Ordering::Relaxed);
    py.detach(|| {
        run_rows(&sweep, &todo, jobs, Some(TICK), &stopped, |d| {
            if let Delivery::Row(_, row) = d {
                rows.push(row);
            }
            if interrupt.is_none() && checked.elapsed() >= TICK {
                checked = Instant::now();
                // Python runs its signal handlers here (Ctrl-C: KeyboardInterrupt)
                if let Err(e) = Python::attach(|py| py.check_signals()) {
                    stop.store(true, Ordering::Relaxed);
                    interrupt = Some(e);
                }
            }
            Ok::<(), std::convert::Infallible>(())
        })
    })
    .unwrap_or_else(|never| match never {});
    if let Some(e) = interrupt {
        return Err(e);
    }
    rows.sort_by_key(|r| r.run);
    Ok((columns(py, &sweep, &rows)?, sweep.fingerprint().to_string()))
}
