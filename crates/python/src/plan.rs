//! `contour.plan`: minimum time along a joint path (a line or a spline through waypoints)
//! under joint velocity, acceleration and torque limits, by the phase plane (sampled at a
//! rate) or TOPP-RA.

use pyo3::prelude::*;

use contour::planning::phase_plane::{PhasePlane, PhasePlaneConfig};
use contour::planning::toppra::{Toppra, ToppraConfig};
use contour::planning::{
    cubic_spline, sample_at_rate, AccelerationLimits, BoxLimits, CartesianJointPath,
    JointAccelerationLimits, JointVelocityLimits, NoTorqueLimits, Path, PathDynamics, Segment,
    SplineEnds, TorqueLimits,
};
use contour::prelude::{KinematicTree, Mechanism};

use crate::convert::{out1, rows2, vec1};
use crate::error::{facade, input};
use crate::model::Model;
use crate::trajectory::Trajectory;

/// A joint-space path ``q = Q(s)``: build it with ``contour.joint_line`` or
/// ``contour.spline``.
#[pyclass(module = "contour", frozen)]
pub struct JointPathSpec {
    path: Path,
}

#[pymethods]
impl JointPathSpec {
    /// Number of joints.
    #[getter]
    fn dof(&self) -> usize {
        self.path.dim()
    }
    /// The path's parameter range ``(s_start, s_end)``.
    #[getter]
    fn s_range(&self) -> (f64, f64) {
        (self.path.s_start(), self.path.s_end())
    }
    /// The point ``Q(s)``, shape (n,).
    fn point<'py>(&self, py: Python<'py>, s: f64) -> PyResult<Bound<'py, numpy::PyArray1<f64>>> {
        let p = self
            .path
            .point(s)
            .map_err(|e| crate::error::to_py(py, contour::Error::from(e)))?;
        Ok(out1(py, &p))
    }
}

/// The straight joint line from ``q_start`` to ``q_end`` (``s ∈ [0, 1]``).
#[pyfunction]
pub fn joint_line(
    py: Python<'_>,
    q_start: &Bound<'_, PyAny>,
    q_end: &Bound<'_, PyAny>,
) -> PyResult<JointPathSpec> {
    let a = vec1(py, q_start, "q_start", None)?;
    let b = vec1(py, q_end, "q_end", Some(a.len()))?;
    let path = Path::new(vec![Segment::line(&a, &b, 0.0, 1.0)]).map_err(|e| facade(py, e))?;
    Ok(JointPathSpec { path })
}

/// A C² cubic spline through joint waypoints, shape (k, n), ``k ≥ 2`` (natural ends: zero
/// second derivative; the parameter runs over ``[0, 1]``).
#[pyfunction]
pub fn spline(py: Python<'_>, waypoints: &Bound<'_, PyAny>) -> PyResult<JointPathSpec> {
    let w = rows2(py, waypoints, "waypoints", None)?;
    let path = cubic_spline(&w, SplineEnds::Natural).map_err(|e| facade(py, e))?;
    Ok(JointPathSpec { path })
}

/// The result of ``contour.plan``.
///
/// ``total_time`` [s], ``switching_points`` (phase plane), ``trajectory`` (a ``Trajectory``
/// with ``t``, ``q``, ``qd``, ``qdd``, ``tau`` sampled at ``rate``; phase plane only), ``s``
/// and ``sd`` (the phase-plane samples or the TOPP-RA grid: path parameter and its rate),
/// ``max_violation`` (TOPP-RA's check after the solve, relative; 0 for the phase plane).
#[pyclass(module = "contour", frozen, get_all)]
pub struct Plan {
    /// Minimum time [s].
    total_time: f64,
    /// The algorithm: ``"phase_plane"`` or ``"toppra"``.
    algorithm: String,
    /// Number of switching points (phase plane; 0 for TOPP-RA).
    switching_points: usize,
    /// The sampled motion (phase plane), or ``None`` (TOPP-RA).
    trajectory: Option<Py<Trajectory>>,
    /// Path parameter of the samples / grid.
    s: Py<PyAny>,
    /// ṡ at ``s``.
    sd: Py<PyAny>,
    /// TOPP-RA's largest relative limit violation after the solve (0 for the phase plane).
    max_violation: f64,
}

#[pymethods]
impl Plan {
    fn __repr__(&self) -> String {
        format!(
            "Plan(algorithm={:?}, total_time={}, switching_points={})",
            self.algorithm, self.total_time, self.switching_points
        )
    }
}

struct Solved {
    total_time: f64,
    switching: usize,
    sampled: Option<contour::projection::Trajectory>,
    s: Vec<f64>,
    sd: Vec<f64>,
    max_violation: f64,
}

fn solve<M: Mechanism + ?Sized, L: TorqueLimits>(
    mech: &M,
    path: &CartesianJointPath,
    torque: &L,
    vlim: Option<&JointVelocityLimits>,
    alim: Option<&JointAccelerationLimits>,
    toppra: bool,
    rate: f64,
    intervals: usize,
) -> Result<Solved, contour::Error> {
    let dynamics = PathDynamics::new(mech, path)?;
    let mut limits = AccelerationLimits::new(&dynamics, torque);
    if let Some(v) = vlim {
        limits = limits.with_constraint(v)?;
    }
    if let Some(a) = alim {
        limits = limits.with_constraint(a)?;
    }
    if toppra {
        let cfg = ToppraConfig {
            intervals,
            ..ToppraConfig::default()
        };
        let sol = Toppra::new(&limits, cfg).solve()?;
        return Ok(Solved {
            total_time: sol.total_time,
            switching: 0,
            sampled: None,
            s: sol.s,
            sd: sol.sd,
            max_violation: sol.max_violation,
        });
    }
    let plan = PhasePlane::new(&limits, PhasePlaneConfig::default()).solve()?;
    let samples = sample_at_rate(&plan, &limits, rate)?;
    Ok(Solved {
        total_time: plan.total_time,
        switching: plan.switch_count(),
        s: samples.s.clone(),
        sd: samples.sd.clone(),
        sampled: Some(contour::trajectory_from_plan(&samples)),
        max_violation: 0.0,
    })
}

/// Minimum-time motion along ``path`` under joint limits.
///
/// * ``model``: the robot (a ``Model`` or ``Urdf`` with as many coordinates as the path has
///   joints and no constraint rows), needed for torque limits; ``None`` plans kinematically
///   (velocity and acceleration limits only);
/// * ``vlim`` [rad/s], ``alim`` [rad/s²]: symmetric joint limits ``|q̇ᵢ| ≤ vlimᵢ``,
///   ``|q̈ᵢ| ≤ alimᵢ``, shape (n,);
/// * ``torque_limits`` [N·m]: ``|τᵢ| ≤ torque_limitsᵢ`` (e.g. ``arm.effort_limit``);
/// * ``algorithm``: ``"phase_plane"`` (Bobrow / Shin–McKay; sampled at ``rate`` [Hz]) or
///   ``"toppra"`` (reachability analysis on ``intervals`` grid intervals).
///
/// The GIL is released during the solve. Example::
///
///     arm = contour.Urdf("<panda>")
///     p = contour.plan(arm, contour.joint_line(q0, q1), vlim=arm.velocity_limit,
///                      torque_limits=arm.effort_limit)
///     p.total_time, p.trajectory.q
#[pyfunction]
#[pyo3(signature = (model, path, vlim=None, alim=None, torque_limits=None, algorithm="phase_plane", rate=1000.0, intervals=2000))]
pub fn plan(
    py: Python<'_>,
    model: Option<&Model>,
    path: &JointPathSpec,
    vlim: Option<&Bound<'_, PyAny>>,
    alim: Option<&Bound<'_, PyAny>>,
    torque_limits: Option<&Bound<'_, PyAny>>,
    algorithm: &str,
    rate: f64,
    intervals: usize,
) -> PyResult<Plan> {
    let n = path.path.dim();
    let toppra = match algorithm {
        "phase_plane" => false,
        "toppra" => true,
        _ => {
            return Err(input(
                py,
                format!("unknown algorithm `{algorithm}` (phase_plane, toppra)"),
            ))
        }
    };
    if let Some(m) = model {
        if m.n() != n {
            return Err(input(
                py,
                format!("model has {} coordinates, the path {n} joints", m.n()),
            ));
        }
    }
    let vlim = vlim
        .map(|v| vec1(py, v, "vlim", Some(n)))
        .transpose()?
        .map(JointVelocityLimits::new);
    let alim = alim
        .map(|a| vec1(py, a, "alim", Some(n)))
        .transpose()?
        .map(JointAccelerationLimits::new);
    let torque = torque_limits
        .map(|t| vec1(py, t, "torque_limits", Some(n)))
        .transpose()?
        .map(|t| BoxLimits::from_effort(&t));
    if torque.is_some() && model.is_none() {
        return Err(input(py, "torque_limits need a model"));
    }
    let joint_path = CartesianJointPath::new(path.path.clone());
    let solved = py.detach(|| -> PyResult<Result<Solved, contour::Error>> {
        Ok(match model {
            Some(m) => {
                let mech = m.mechanism();
                match &torque {
                    Some(t) => solve(
                        mech,
                        &joint_path,
                        t,
                        vlim.as_ref(),
                        alim.as_ref(),
                        toppra,
                        rate,
                        intervals,
                    ),
                    None => solve(
                        mech,
                        &joint_path,
                        &NoTorqueLimits,
                        vlim.as_ref(),
                        alim.as_ref(),
                        toppra,
                        rate,
                        intervals,
                    ),
                }
            }
            None => {
                // Kinematic limits only: the planner's dynamics need a mechanism of the path's
                // dimension, which no torque limit reads.
                let free = KinematicTree::planar(n);
                solve(
                    &free,
                    &joint_path,
                    &NoTorqueLimits,
                    vlim.as_ref(),
                    alim.as_ref(),
                    toppra,
                    rate,
                    intervals,
                )
            }
        })
    })?;
    let s = solved.map_err(|e| crate::error::to_py(py, e))?;
    Ok(Plan {
        total_time: s.total_time,
        algorithm: algorithm.to_string(),
        switching_points: s.switching,
        trajectory: s
            .sampled
            .map(|t| Py::new(py, Trajectory::from(t)))
            .transpose()?,
        s: out1(py, &s.s).into_any().unbind(),
        sd: out1(py, &s.sd).into_any().unbind(),
        max_violation: s.max_violation,
    })
}
