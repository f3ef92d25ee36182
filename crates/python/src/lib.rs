//! # contour-python — the `contour` Python module
//!
//! A thin layer over the facade crate `contour` (PyO3 + maturin, abi3 for CPython ≥ 3.9):
//! numpy `float64` arrays in and out (shapes checked, never reshaped), options as keyword
//! arguments with the Rust defaults, one exception hierarchy (`contour.ContourError`) carrying
//! the Rust message. No numerics here: every function converts its arguments, calls the facade
//! with the GIL released, and converts the result.
//!
//! | Python | facade |
//! |---|---|
//! | `contour.model(name, **params)`, `contour.models()` | `contour_scenario::registry` (`model_spec`, `ModelSpec::build`, `MODELS`) |
//! | `contour.n_four_bar_reference` | `NFourBar::reduced_solution` |
//! | `contour.Urdf(path, gravity, closures)` | `tree_and_limits_from_urdf_str`, `ConstrainedTree` |
//! | `Urdf.crba / rnea / aba` | `Mechanism::mass_matrix`, `inverse_dynamics`, `forward_dynamics` |
//! | `Model.accelerations` | `ConstrainedDynamics::accelerations` |
//! | `contour.simulate` | `Simulation` |
//! | `contour.simulate_contact` | `contour::contact::simulate` |
//! | `contour.plan` | `PathDynamics`, `AccelerationLimits`, `PhasePlane`, `Toppra`, `sample_at_rate`, `sample_toppra_at_rate` |
//! | `contour.cartesian_line` | `CartesianLine` |
//! | `contour.mechanism(...)` | a `Mechanism` whose terms are Python callables |
//! | `contour.sweep` | `contour_scenario::sweep` (`Sweep::from_source`, `run_rows`, `Sweep::cells`) |

use pyo3::prelude::*;

mod convert;
mod error;
mod failure;
mod model;
mod plan;
mod pymech;
mod simulate;
mod sweep;
mod trajectory;

/// The native module `contour._contour` (re-exported by the `contour` package).
#[pymodule]
fn _contour(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<model::Model>()?;
    m.add_class::<model::Urdf>()?;
    m.add_class::<trajectory::Trajectory>()?;
    m.add_class::<plan::Plan>()?;
    m.add_class::<plan::JointPathSpec>()?;
    m.add_class::<pymech::EvaluationCounter>()?;
    m.add_function(wrap_pyfunction!(model::model, m)?)?;
    m.add_function(wrap_pyfunction!(model::models, m)?)?;
    m.add_function(wrap_pyfunction!(model::n_four_bar_reference, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::simulate, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::simulate_contact, m)?)?;
    m.add_function(wrap_pyfunction!(plan::plan, m)?)?;
    m.add_function(wrap_pyfunction!(plan::joint_line, m)?)?;
    m.add_function(wrap_pyfunction!(plan::spline, m)?)?;
    m.add_function(wrap_pyfunction!(plan::cartesian_line, m)?)?;
    m.add_function(wrap_pyfunction!(pymech::mechanism, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep_columns, m)?)?;
    Ok(())
}
