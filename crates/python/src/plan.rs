//! `contour.plan`: minimum time along a joint path (a joint line, a spline through waypoints,
//! or a URDF arm's Cartesian tool line) under joint velocity, acceleration and torque limits,
//! by the phase plane or TOPP-RA, sampled in time at a rate.

use pyo3::prelude::*;

use contour::planning::phase_plane::{PhasePlane, PhasePlaneConfig};
use contour::planning::toppra::{Toppra, ToppraConfig};
use contour::planning::{
    cubic_spline, sample_at_rate, sample_toppra_at_rate, AccelerationLimits, BoxLimits,
    CartesianJointPath, CartesianLine, JointAccelerationLimits, JointPath, JointVelocityLimits,
    NoTorqueLimits, Path, PathDynamics, Segment, SplineEnds, TorqueLimits,
};
use contour::prelude::{KinematicTree, Mechanism};

use crate::convert::{limits1, out1, rows2, vec1, vec3};
use crate::error::input;
use crate::failure::facade;
use crate::model::{Model, Urdf};
use crate::trajectory::Trajectory;

/// The joint path behind a ``JointPathSpec``.
enum PathKind {
    /// Joint coordinates directly (a line or a spline).
    Joint(CartesianJointPath),
    /// A URDF arm's tool line, orientation held.
    Line(Box<CartesianLine>),
}

/// A joint-space path ``q = Q(s)``: build it with ``contour.joint_line``,
/// ``contour.spline`` or ``contour.cartesian_line``.
#[pyclass(module = "contour", frozen)]
pub struct JointPathSpec {
    kind: PathKind,
}

impl JointPathSpec {
    fn joint_path(&self) -> &dyn JointPathSync {
        match &self.kind {
            PathKind::Joint(p) => p,
            PathKind::Line(l) => &**l,
        }
    }
}

/// A float64 vector for Python.
type Array<'py> = Bound<'py, numpy::PyArray1<f64>>;

/// A joint path that threads share.
trait JointPathSync: JointPath + Sync {}
impl<P: JointPath + Sync> JointPathSync for P {}

#[pymethods]
impl JointPathSpec {
    /// Number of joints.
    #[getter]
    fn dof(&self) -> usize {
        self.joint_path().dof()
    }
    /// The path's parameter range ``(s_start, s_end)``.
    #[getter]
    fn s_range(&self) -> (f64, f64) {
        let p = self.joint_path().path();
        (p.s_start(), p.s_end())
    }
    /// The point ``Q(s)``, shape (n,).
    fn point<'py>(&self, py: Python<'py>, s: f64) -> PyResult<Bound<'py, numpy::PyArray1<f64>>> {
        Ok(out1(py, &self.derivatives(py, s)?.0))
    }
    /// ``(Q(s), Q′(s), Q″(s))``, each shape (n,) (Huang (4.3.2): ``B = Q′``, ``B̄ = Q″``).
    fn derivatives_at<'py>(
        &self,
        py: Python<'py>,
        s: f64,
    ) -> PyResult<(Array<'py>, Array<'py>, Array<'py>)> {
        let (q, b, bb) = self.derivatives(py, s)?;
        Ok((out1(py, &q), out1(py, &b), out1(py, &bb)))
    }
}

impl JointPathSpec {
    fn derivatives(&self, py: Python<'_>, s: f64) -> PyResult<(Vec<f64>, Vec<f64>, Vec<f64>)> {
        let jp = self.joint_path();
        let n = jp.dof();
        let err = |e: contour::planning::PlanningError| crate::failure::to_py(py, e.into());
        jp.path().point(s).map_err(err)?; // refuses s outside the path
        let seg = jp.path().locate(s);
        let (mut q, mut b, mut bb) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        py.detach(|| jp.eval(seg, s, &mut q, &mut b, &mut bb))
            .map_err(err)?;
        Ok((q, b, bb))
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
    Ok(JointPathSpec {
        kind: PathKind::Joint(CartesianJointPath::new(path)),
    })
}

/// A C² cubic spline through joint waypoints, shape (k, n), ``k ≥ 2`` (natural ends: zero
/// second derivative; the parameter runs over ``[0, 1]``).
#[pyfunction]
pub fn spline(py: Python<'_>, waypoints: &Bound<'_, PyAny>) -> PyResult<JointPathSpec> {
    let w = rows2(py, waypoints, "waypoints", None)?;
    let path = cubic_spline(&w, SplineEnds::Natural).map_err(|e| facade(py, e))?;
    Ok(JointPathSpec {
        kind: PathKind::Joint(CartesianJointPath::new(path)),
    })
}

/// A straight line of a URDF arm's tool, orientation held, as a joint path (``s ∈ [0, 1]``).
///
/// The point ``point`` (coordinates in link ``frame`` [m]) moves on the straight line from
/// ``p_start`` (default: where ``q_start`` puts it) to ``p_end`` [m, world] while ``frame``
/// keeps its orientation at ``q_start``. Six joints (a UR5): inverse kinematics on the branch
/// of ``q_start``. More joints (a Panda): the redundancy is resolved by minimum-norm joint
/// rates ``q′ = J⁺ v`` (``J⁺ = Jᵀ(J Jᵀ)⁻¹``, ``J`` the 6×n tool Jacobian) from ``q_start``.
/// Every ``Q(s)`` puts the tool on the line to ≈ 1e-13 m. Raises ``PlanningError`` where the
/// arm cannot follow the line (out of reach, a singular configuration). Example::
///
///     ur5 = contour.Urdf("ur5_robot.urdf")
///     line = contour.cartesian_line(ur5, "tool0", p_end, q_start)
///     p = contour.plan(ur5, line, vlim=ur5.velocity_limit, alim=alim)
#[pyfunction]
#[pyo3(signature = (urdf, frame, p_end, q_start, p_start=None, point=None))]
pub fn cartesian_line(
    py: Python<'_>,
    urdf: &Bound<'_, Urdf>,
    frame: &str,
    p_end: &Bound<'_, PyAny>,
    q_start: &Bound<'_, PyAny>,
    p_start: Option<&Bound<'_, PyAny>>,
    point: Option<&Bound<'_, PyAny>>,
) -> PyResult<JointPathSpec> {
    let tree = urdf.get().tree().clone();
    let body = tree
        .body_index(frame)
        .ok_or_else(|| input(py, format!("frame: no link `{frame}` in the URDF")))?;
    let q = vec1(py, q_start, "q_start", Some(tree.dof()))?;
    let p_end = vec3(py, p_end, "p_end")?;
    let p_start = p_start.map(|p| vec3(py, p, "p_start")).transpose()?;
    let point = point
        .map(|p| vec3(py, p, "point"))
        .transpose()?
        .unwrap_or([0.0; 3]);
    let line = py
        .detach(|| CartesianLine::new(tree, body, point, &q, p_start, p_end))
        .map_err(|e| facade(py, e))?;
    Ok(JointPathSpec {
        kind: PathKind::Line(Box::new(line)),
    })
}

/// The result of ``contour.plan``.
///
/// ``total_time`` [s], ``switching_points`` (phase plane), ``trajectory`` (a ``Trajectory``
/// with ``t``, ``q``, ``qd``, ``qdd``, ``tau`` sampled at ``rate``), ``s``, ``sd`` and
/// ``sdd`` (the path parameter and its rates at the same times), ``grid_s`` and ``grid_sd``
/// (TOPP-RA's grid and ṡ there; ``None`` for the phase plane), ``max_violation`` (TOPP-RA's
/// check after the solve, relative; 0 for the phase plane).
#[pyclass(module = "contour", frozen, get_all)]
pub struct Plan {
    /// Minimum time [s].
    total_time: f64,
    /// The algorithm: ``"phase_plane"`` or ``"toppra"``.
    algorithm: String,
    /// Number of switching points (phase plane; 0 for TOPP-RA).
    switching_points: usize,
    /// The motion sampled at ``rate``.
    trajectory: Py<Trajectory>,
    /// Path parameter at the sample times.
    s: Py<PyAny>,
    /// ṡ at the sample times.
    sd: Py<PyAny>,
    /// s̈ at the sample times.
    sdd: Py<PyAny>,
    /// TOPP-RA's grid (``None`` for the phase plane).
    grid_s: Option<Py<PyAny>>,
    /// ṡ at TOPP-RA's grid points (``None`` for the phase plane).
    grid_sd: Option<Py<PyAny>>,
    /// TOPP-RA's largest relative limit violation after the solve (0 for the phase plane).
    max_violation: f64,
}

#[pymethods]
impl Plan {
    /// A plan from its fields (what pickling and ``copy.deepcopy`` use).
    #[staticmethod]
    #[allow(clippy::too_many_arguments)] // the plan's fields
    fn from_fields(
        total_time: f64,
        algorithm: String,
        switching_points: usize,
        trajectory: Py<Trajectory>,
        s: Py<PyAny>,
        sd: Py<PyAny>,
        sdd: Py<PyAny>,
        grid_s: Option<Py<PyAny>>,
        grid_sd: Option<Py<PyAny>>,
        max_violation: f64,
    ) -> Self {
        Self {
            total_time,
            algorithm,
            switching_points,
            trajectory,
            s,
            sd,
            sdd,
            grid_s,
            grid_sd,
            max_violation,
        }
    }
    /// Pickling (and ``copy.deepcopy``): the plan's fields, its trajectory by its JSON.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let py = slf.py();
        let p = slf.get();
        let from_fields = slf.get_type().getattr("from_fields")?;
        let args = (
            p.total_time,
            p.algorithm.clone(),
            p.switching_points,
            p.trajectory.clone_ref(py),
            p.s.clone_ref(py),
            p.sd.clone_ref(py),
            p.sdd.clone_ref(py),
            p.grid_s.as_ref().map(|g| g.clone_ref(py)),
            p.grid_sd.as_ref().map(|g| g.clone_ref(py)),
            p.max_violation,
        )
            .into_pyobject(py)?
            .into_any();
        Ok((from_fields, args))
    }
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
    samples: contour::planning::SampledTrajectory,
    grid: Option<(Vec<f64>, Vec<f64>)>,
    max_violation: f64,
}

#[allow(clippy::too_many_arguments)]
fn solve<M: Mechanism + ?Sized, P: JointPath + ?Sized, L: TorqueLimits>(
    mech: &M,
    path: &P,
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
        let samples = sample_toppra_at_rate(&sol, &limits, rate)?;
        return Ok(Solved {
            total_time: sol.total_time,
            switching: 0,
            samples,
            grid: Some((sol.s, sol.sd)),
            max_violation: sol.max_violation,
        });
    }
    let plan = PhasePlane::new(&limits, PhasePlaneConfig::default()).solve()?;
    let samples = sample_at_rate(&plan, &limits, rate)?;
    Ok(Solved {
        total_time: plan.total_time,
        switching: plan.switch_count(),
        samples,
        grid: None,
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
/// * an entry ``inf`` is no limit on that joint; something must bound the acceleration
///   (``alim`` or ``torque_limits``): velocity limits alone raise ``PlanningError`` ("the
///   path acceleration is unbounded");
/// * ``algorithm``: ``"phase_plane"`` (Bobrow / Shin–McKay) or ``"toppra"`` (reachability
///   analysis on ``intervals`` grid intervals; its profile has a constant s̈ on each grid
///   interval, sampled exactly);
/// * ``rate`` [Hz]: the samples of ``trajectory``, ``s``, ``sd``, ``sdd`` (t = k/rate and
///   the final time).
///
/// The GIL is released during the solve. Example::
///
///     arm = contour.Urdf("<panda>")
///     p = contour.plan(arm, contour.joint_line(q0, q1), vlim=arm.velocity_limit,
///                      torque_limits=arm.effort_limit)
///     p.total_time, p.trajectory.q
#[pyfunction]
#[pyo3(signature = (model, path, vlim=None, alim=None, torque_limits=None, algorithm="phase_plane", rate=1000.0, intervals=None),
    text_signature = "(model, path, vlim=None, alim=None, torque_limits=None, algorithm='phase_plane', rate=1000.0, intervals=2000)")]
pub fn plan(
    py: Python<'_>,
    model: Option<&Model>,
    path: &JointPathSpec,
    vlim: Option<&Bound<'_, PyAny>>,
    alim: Option<&Bound<'_, PyAny>>,
    torque_limits: Option<&Bound<'_, PyAny>>,
    algorithm: &str,
    rate: f64,
    intervals: Option<&Bound<'_, PyAny>>,
) -> PyResult<Plan> {
    let intervals = crate::convert::count_or(py, intervals, "intervals", 1, 2000)?;
    let n = path.joint_path().dof();
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
        .map(|v| limits1(py, v, "vlim", Some(n)))
        .transpose()?
        .map(JointVelocityLimits::new);
    let alim = alim
        .map(|a| limits1(py, a, "alim", Some(n)))
        .transpose()?
        .map(JointAccelerationLimits::new);
    let torque = torque_limits
        .map(|t| limits1(py, t, "torque_limits", Some(n)))
        .transpose()?
        .map(|t| BoxLimits::from_effort(&t));
    if torque.is_some() && model.is_none() {
        return Err(input(py, "torque_limits need a model"));
    }
    let joint_path = path.joint_path();
    let solved = py.detach(|| -> PyResult<Result<Solved, contour::Error>> {
        Ok(match model {
            Some(m) => {
                let mech = m.mechanism();
                match &torque {
                    Some(t) => solve(
                        mech,
                        joint_path,
                        t,
                        vlim.as_ref(),
                        alim.as_ref(),
                        toppra,
                        rate,
                        intervals,
                    ),
                    None => solve(
                        mech,
                        joint_path,
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
                    joint_path,
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
    let s = solved.map_err(|e| crate::failure::to_py(py, e))?;
    let mut trajectory = contour::trajectory_from_plan(&s.samples);
    trajectory.integrator = algorithm.to_string();
    let arr = |v: &[f64]| out1(py, v).into_any().unbind();
    Ok(Plan {
        total_time: s.total_time,
        algorithm: algorithm.to_string(),
        switching_points: s.switching,
        trajectory: Py::new(py, Trajectory::from(trajectory))?,
        s: arr(&s.samples.s),
        sd: arr(&s.samples.sd),
        sdd: arr(&s.samples.sdd),
        grid_s: s.grid.as_ref().map(|g| arr(&g.0)),
        grid_sd: s.grid.as_ref().map(|g| arr(&g.1)),
        max_violation: s.max_violation,
    })
}
