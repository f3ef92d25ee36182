//! The bad-input table of contour-planning: every public function that takes a slice or an
//! index (and the parameter queries `point`, `time_at_s`, `state_at`), fed wrong lengths,
//! segment indices past the end, parameters off the path, NaN/∞ and closures that leave
//! outputs unwritten. Each case must return an error whose message names the argument (no
//! panic, no `Ok`); [`every_slice_or_index_fn_has_a_case`] proves that each such function of
//! `src/` has a case here or a written exemption.

use crate::common::{line_of_length, point_mass};
use contour_model::tree::KinematicTree;
use contour_planning::phase_plane::{MinimumTimeSolution, PhasePlane, PhasePlaneConfig};
use contour_planning::*;

type Call = Box<dyn Fn() -> Result<(), PlanningError>>;

/// One case: the function (`file.rs:name`), the bad input, a word the error message must
/// contain, the call.
pub struct Case {
    /// `file.rs:name` (`file.rs:Trait::name` for a trait method).
    pub func: &'static str,
    /// The bad input, in words.
    pub input: &'static str,
    /// A word the error message must contain.
    pub names: &'static str,
    /// The call.
    pub call: Call,
}

fn case(
    func: &'static str,
    input: &'static str,
    names: &'static str,
    call: impl Fn() -> Result<(), PlanningError> + 'static,
) -> Case {
    Case {
        func,
        input,
        names,
        call: Box::new(call),
    }
}

/// Trait methods the crate calls but the user implements: the crate hands them buffers of the
/// checked lengths and checks what they write (NaN, unwritten entries), which the cases of
/// the functions calling them show.
pub const EXEMPT: &[(&str, &str)] = &[
    (
        "joint_path.rs:Kinematics::forward",
        "implemented by the caller",
    ),
    (
        "joint_path.rs:Kinematics::jacobian",
        "implemented by the caller",
    ),
    (
        "joint_path.rs:Kinematics::jacobian_dot_qd",
        "implemented by the caller",
    ),
    (
        "joint_path.rs:Kinematics::inverse_guess",
        "implemented by the caller",
    ),
];

/// The one-segment path `(2, 0) → (3, 0)`, `s ∈ [0, 1]`.
fn path() -> Path {
    line_of_length(1.0).path().clone()
}

fn with_limits<L: TorqueLimits>(
    lim: L,
    f: impl Fn(
        &AccelerationLimits<'_, contour_model::models::HuangCartesianRobot, CartesianJointPath, L>,
    ) -> Result<(), PlanningError>,
) -> Result<(), PlanningError> {
    let robot = point_mass(1.0);
    let jp = line_of_length(1.0);
    let d = PathDynamics::new(&robot, &jp)?;
    let acc = AccelerationLimits::new(&d, &lim);
    f(&acc)
}

fn dynamics(
    f: impl Fn(
        &PathDynamics<'_, contour_model::models::HuangCartesianRobot, CartesianJointPath>,
    ) -> Result<(), PlanningError>,
) -> Result<(), PlanningError> {
    let robot = point_mass(1.0);
    let jp = line_of_length(1.0);
    let d = PathDynamics::new(&robot, &jp)?;
    f(&d)
}

fn solution() -> MinimumTimeSolution {
    let robot = point_mass(1.0);
    let jp = line_of_length(1.0);
    let d = PathDynamics::new(&robot, &jp).unwrap();
    let lim = BoxLimits::symmetric(2, 1.0);
    let acc = AccelerationLimits::new(&d, &lim);
    PhasePlane::new(&acc, PhasePlaneConfig::default())
        .solve()
        .unwrap()
}

/// A history whose state is NaN.
struct NanHistory;

impl PathHistory for NanHistory {
    fn state(&self, _t: f64) -> (f64, f64, f64) {
        (f64::NAN, 0.0, 0.0)
    }
    fn final_time(&self) -> f64 {
        1.0
    }
}

/// Every case of the table.
pub fn cases() -> Vec<Case> {
    vec![
        // Path and Segment
        case(
            "path.rs:eval",
            "Segment::eval with p of length 1",
            "p",
            || path().segments()[0].eval(0.5, &mut [0.0], &mut [0.0; 2], &mut [0.0; 2]),
        ),
        case("path.rs:eval", "Segment::eval at s = NaN", "s", || {
            path().segments()[0].eval(f64::NAN, &mut [0.0; 2], &mut [0.0; 2], &mut [0.0; 2])
        }),
        case(
            "path.rs:line",
            "Segment::line with an end of length 1",
            "line end",
            || Path::new(vec![Segment::line(&[0.0, 0.0], &[1.0], 0.0, 1.0)]).map(|_| ()),
        ),
        case(
            "path.rs:check_on",
            "segment index 5 of 1",
            "segment index 5",
            || path().check_on(5, 0.5),
        ),
        case("path.rs:check_on", "s = 1.5 on [0, 1]", "outside", || {
            path().check_on(0, 1.5)
        }),
        case(
            "path.rs:eval_on",
            "segment index 1 of 1",
            "segment index 1",
            || path().eval_on(1, 0.5, &mut [0.0; 2], &mut [0.0; 2], &mut [0.0; 2]),
        ),
        case("path.rs:eval_on", "p of length 1", "p", || {
            path().eval_on(0, 0.5, &mut [0.0], &mut [0.0; 2], &mut [0.0; 2])
        }),
        case("path.rs:eval_on", "ddp of length 1", "ddp", || {
            path().eval_on(0, 0.5, &mut [0.0; 2], &mut [0.0; 2], &mut [0.0])
        }),
        case("path.rs:eval_on", "s = -1", "outside", || {
            path().eval_on(0, -1.0, &mut [0.0; 2], &mut [0.0; 2], &mut [0.0; 2])
        }),
        case("path.rs:eval_on", "s = NaN", "s", || {
            path().eval_on(0, f64::NAN, &mut [0.0; 2], &mut [0.0; 2], &mut [0.0; 2])
        }),
        case("path.rs:point", "s = NaN", "s", || {
            path().point(f64::NAN).map(|_| ())
        }),
        case("path.rs:point", "s = -1", "outside", || {
            path().point(-1.0).map(|_| ())
        }),
        case("path.rs:point", "s = 1.5", "outside", || {
            path().point(1.5).map(|_| ())
        }),
        case(
            "path.rs:normality_residual",
            "n = usize::MAX",
            "work cap",
            || path().normality_residual(usize::MAX).map(|_| ()),
        ),
        // PathDynamics
        case("dynamics.rs:coefficients", "a of length 1", "a/r", || {
            dynamics(|d| d.coefficients(0, 0.5, 0.0, &mut [0.0], &mut [0.0; 2]))
        }),
        case(
            "dynamics.rs:coefficients",
            "s = 1.5 on [0, 1]",
            "outside",
            || dynamics(|d| d.coefficients(0, 1.5, 0.0, &mut [0.0; 2], &mut [0.0; 2])),
        ),
        case("dynamics.rs:coefficients", "s = -1", "outside", || {
            dynamics(|d| d.coefficients(0, -1.0, 0.0, &mut [0.0; 2], &mut [0.0; 2]))
        }),
        case(
            "dynamics.rs:coefficients",
            "segment index 5",
            "segment index 5",
            || dynamics(|d| d.coefficients(5, 0.5, 0.0, &mut [0.0; 2], &mut [0.0; 2])),
        ),
        case("dynamics.rs:coefficients", "sdot = NaN", "sdot", || {
            dynamics(|d| d.coefficients(0, 0.5, f64::NAN, &mut [0.0; 2], &mut [0.0; 2]))
        }),
        case(
            "dynamics.rs:coefficients",
            "m = 1e300 on a path of length 1e10 (a = M B overflows)",
            "not finite",
            || {
                let robot = point_mass(1e300);
                let jp = line_of_length(1e10);
                let d = PathDynamics::new(&robot, &jp)?;
                d.coefficients(0, 0.5, 0.0, &mut [0.0; 2], &mut [0.0; 2])
            },
        ),
        case(
            "dynamics.rs:inertia_coefficients",
            "a of length 3",
            "a",
            || dynamics(|d| d.inertia_coefficients(0, 0.5, &mut [0.0; 3])),
        ),
        case(
            "dynamics.rs:inverse_dynamics",
            "tau of length 1",
            "tau",
            || dynamics(|d| d.inverse_dynamics(0, 0.5, 0.0, 0.0, &mut [0.0])),
        ),
        case(
            "dynamics.rs:inverse_dynamics",
            "sddot = NaN",
            "sddot",
            || dynamics(|d| d.inverse_dynamics(0, 0.5, 0.0, f64::NAN, &mut [0.0; 2])),
        ),
        case(
            "dynamics.rs:inverse_dynamics",
            "m = 1e300, sddot = 1e10 (tau overflows)",
            "tau",
            || {
                let robot = point_mass(1e300);
                let jp = line_of_length(1.0);
                let d = PathDynamics::new(&robot, &jp)?;
                d.inverse_dynamics(0, 0.5, 0.0, 1e10, &mut [0.0; 2])
            },
        ),
        case("dynamics.rs:torque", "s = NaN", "s", || {
            dynamics(|d| d.torque(f64::NAN, 0.0, 0.0, &mut [0.0; 2]))
        }),
        case("dynamics.rs:torque", "tau of length 3", "tau", || {
            dynamics(|d| d.torque(0.5, 0.0, 0.0, &mut [0.0; 3]))
        }),
        case(
            "dynamics.rs:constraint_along",
            "row 4 of 1",
            "row 4",
            || dynamics(|d| d.constraint_along(0, 0.5, 4).map(|_| ())),
        ),
        case("dynamics.rs:constraint_along", "s = 2", "outside", || {
            dynamics(|d| d.constraint_along(0, 2.0, 0).map(|_| ()))
        }),
        case(
            "dynamics.rs:along_history",
            "n = usize::MAX",
            "work cap",
            || dynamics(|d| d.along_history(&NanHistory, usize::MAX).map(|_| ())),
        ),
        case(
            "dynamics.rs:along_history",
            "a history at s = NaN",
            "s",
            || dynamics(|d| d.along_history(&NanHistory, 4).map(|_| ())),
        ),
        case(
            "dynamics.rs:check_feasible",
            "samples = usize::MAX",
            "work cap",
            || dynamics(|d| d.check_feasible(usize::MAX, 1e-9)),
        ),
        case("dynamics.rs:check_feasible", "tol = NaN", "tol", || {
            dynamics(|d| d.check_feasible(10, f64::NAN))
        }),
        // joint paths
        case(
            "joint_path.rs:JointPath::eval",
            "Cartesian, segment index 2",
            "segment index 2",
            || line_of_length(1.0).eval(2, 0.5, &mut [0.0; 2], &mut [0.0; 2], &mut [0.0; 2]),
        ),
        case(
            "joint_path.rs:JointPath::eval",
            "Cartesian, bbar of length 5",
            "ddp",
            || line_of_length(1.0).eval(0, 0.5, &mut [0.0; 2], &mut [0.0; 2], &mut [0.0; 5]),
        ),
        // limits
        case(
            "limits.rs:bounds",
            "segment index 5 on a one-segment path",
            "segment index 5",
            || {
                with_limits(BoxLimits::symmetric(2, 1.0), |a| {
                    a.bounds(5, 0.5, 0.1).map(|_| ())
                })
            },
        ),
        case("limits.rs:bounds", "s = 1.5", "outside", || {
            with_limits(BoxLimits::symmetric(2, 1.0), |a| {
                a.bounds(0, 1.5, 0.1).map(|_| ())
            })
        }),
        case("limits.rs:bounds", "sdot = NaN", "sdot", || {
            with_limits(BoxLimits::symmetric(2, 1.0), |a| {
                a.bounds(0, 0.5, f64::NAN).map(|_| ())
            })
        }),
        case(
            "limits.rs:bounds",
            "NoTorqueLimits, s = -0.5",
            "outside",
            || with_limits(NoTorqueLimits, |a| a.bounds(0, -0.5, 0.0).map(|_| ())),
        ),
        case(
            "limits.rs:TorqueLimits::limits",
            "FnLimits writing only joint 0",
            "torque limit",
            || {
                let f = FnLimits(|_s, _sd, lo: &mut [f64], hi: &mut [f64]| {
                    lo[0] = -1.0;
                    hi[0] = 1.0;
                });
                with_limits(f, |a| a.bounds(0, 0.5, 0.1).map(|_| ()))
            },
        ),
        case(
            "limits.rs:TorqueLimits::check_dof",
            "BoxLimits with 1 lower limit for 2 joints",
            "BoxLimits::lower",
            || {
                let lim = BoxLimits {
                    lower: vec![-1.0],
                    upper: vec![1.0, 1.0],
                };
                with_limits(lim, |a| a.bounds(0, 0.5, 0.1).map(|_| ()))
            },
        ),
        case(
            "limits.rs:from_effort",
            "effort (nan, 1)",
            "torque limit",
            || {
                with_limits(BoxLimits::from_effort(&[f64::NAN, 1.0]), |a| {
                    a.bounds(0, 0.5, 0.1).map(|_| ())
                })
            },
        ),
        case(
            "limits.rs:symmetric",
            "3 joints for a 2-joint mechanism",
            "BoxLimits::lower",
            || {
                with_limits(BoxLimits::symmetric(3, 1.0), |a| {
                    a.bounds(0, 0.5, 0.1).map(|_| ())
                })
            },
        ),
        case(
            "limits.rs:rows_at",
            "segment index 9",
            "segment index 9",
            || {
                with_limits(BoxLimits::symmetric(2, 1.0), |a| {
                    a.rows_at(9, 0.5, |_, _, _| ())
                })
            },
        ),
        case("limits.rs:velocity_cap2", "s = NaN", "s", || {
            with_limits(BoxLimits::symmetric(2, 1.0), |a| {
                a.velocity_cap2(0, f64::NAN).map(|_| ())
            })
        }),
        // added constraints
        case(
            "constraints/mod.rs:PathConstraint::check_dof",
            "joint velocity limits for 1 joint of 2",
            "expected length 2",
            || {
                let robot = point_mass(1.0);
                let jp = line_of_length(1.0);
                let d = PathDynamics::new(&robot, &jp)?;
                let lim = BoxLimits::symmetric(2, 1.0);
                let v = JointVelocityLimits::new(vec![1.0]);
                AccelerationLimits::new(&d, &lim)
                    .with_constraint(&v)
                    .map(|_| ())
            },
        ),
        case(
            "constraints/mod.rs:PathConstraint::eval",
            "a row closure writing NaN",
            "constraint rows",
            || {
                let robot = point_mass(1.0);
                let jp = line_of_length(1.0);
                let d = PathDynamics::new(&robot, &jp)?;
                let lim = BoxLimits::symmetric(2, 1.0);
                let c = FnConstraint {
                    rows: 1,
                    f: |_p: &PathPoint<'_>, a: &mut [f64], b: &mut [f64], c: &mut [f64]| {
                        a[0] = f64::NAN;
                        b[0] = 0.0;
                        c[0] = 0.0;
                    },
                };
                let acc = AccelerationLimits::new(&d, &lim).with_constraint(&c)?;
                acc.bounds(0, 0.5, 0.1).map(|_| ())
            },
        ),
        case(
            "constraints/mod.rs:new",
            "rows = usize::MAX",
            "constraint rows",
            || {
                FnConstraint::new(
                    usize::MAX,
                    |_p: &PathPoint<'_>, _a: &mut [f64], _b: &mut [f64], _c: &mut [f64]| {},
                )
                .map(|_| ())
            },
        ),
        case(
            "limits.rs:with_constraint",
            "an FnConstraint literal with rows = usize::MAX",
            "constraint rows",
            || {
                let robot = point_mass(1.0);
                let jp = line_of_length(1.0);
                let d = PathDynamics::new(&robot, &jp)?;
                let lim = BoxLimits::symmetric(2, 1.0);
                let c = FnConstraint {
                    rows: usize::MAX,
                    f: |_p: &PathPoint<'_>, _a: &mut [f64], _b: &mut [f64], _c: &mut [f64]| {},
                };
                AccelerationLimits::new(&d, &lim)
                    .with_constraint(&c)
                    .map(|_| ())
            },
        ),
        case(
            "toppra.rs:solve",
            "20 000 rows on the default grid (2.4e8 coefficients)",
            "coefficients",
            || {
                let robot = point_mass(1.0);
                let jp = line_of_length(1.0);
                let d = PathDynamics::new(&robot, &jp)?;
                let lim = BoxLimits::symmetric(2, 1.0);
                let c = FnConstraint::new(
                    20_000,
                    |_p: &PathPoint<'_>, a: &mut [f64], b: &mut [f64], c: &mut [f64]| {
                        a.fill(0.0);
                        b.fill(0.0);
                        c.fill(-1.0);
                    },
                )?;
                let acc = AccelerationLimits::new(&d, &lim).with_constraint(&c)?;
                toppra::Toppra::new(&acc, toppra::ToppraConfig::default())
                    .solve()
                    .map(|_| ())
            },
        ),
        // the profile
        case("phase_plane/mod.rs:time_at_s", "s = NaN", "s", || {
            solution().time_at_s(f64::NAN).map(|_| ())
        }),
        case(
            "phase_plane/mod.rs:time_at_s",
            "s = 2 past the end",
            "outside",
            || solution().time_at_s(2.0).map(|_| ()),
        ),
        case("phase_plane/mod.rs:state_at", "t = -1", "outside", || {
            solution().state_at(-1.0).map(|_| ())
        }),
        // sampling, splines, trees
        case(
            "sampling.rs:sample",
            "a NaN sample time",
            "sample time",
            || {
                let robot = point_mass(1.0);
                let jp = line_of_length(1.0);
                let d = PathDynamics::new(&robot, &jp)?;
                let lim = BoxLimits::symmetric(2, 1.0);
                let acc = AccelerationLimits::new(&d, &lim);
                let sol = PhasePlane::new(&acc, PhasePlaneConfig::default()).solve()?;
                sample(&sol, &acc, &[0.0, f64::NAN]).map(|_| ())
            },
        ),
        case(
            "spline.rs:cubic_spline",
            "waypoints of lengths 2 and 1",
            "waypoint",
            || cubic_spline(&[vec![0.0, 0.0], vec![1.0]], SplineEnds::Natural).map(|_| ()),
        ),
        case(
            "tree_kinematics.rs:along",
            "2 task axes for 3 joints",
            "task axes",
            || {
                let arm = KinematicTree::planar_with_gravity(3, 9.81);
                TreePointKinematics::along(&arm, 2, [1.0, 0.0, 0.0], vec![0, 1], &path(), &[0.1; 3])
                    .map(|_| ())
            },
        ),
        case(
            "tree_kinematics.rs:redundant_joint_path",
            "q_start of length 1",
            "q_start",
            || {
                let arm = KinematicTree::planar_with_gravity(3, 9.81);
                redundant_joint_path(&arm, 2, [1.0, 0.0, 0.0], &[0, 1], &path(), &[0.1], 8)
                    .map(|_| ())
            },
        ),
        case("tree_path.rs:new", "q_start of length 2", "q_start", || {
            let arm = contour_model::models::panda_arm();
            CartesianLine::new(arm, 7, [0.0; 3], &[0.0; 2], None, [0.3, 0.0, 0.5]).map(|_| ())
        }),
        case("tree_path.rs:new", "body index 99", "body", || {
            let arm = contour_model::models::panda_arm();
            CartesianLine::new(arm, 99, [0.0; 3], &[0.0; 7], None, [0.3, 0.0, 0.5]).map(|_| ())
        }),
        case("tree_path.rs:task_error", "q of length 3", "q", || {
            let arm = contour_model::models::panda_arm();
            let q = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785];
            let x = arm
                .point_position(&q, 7, [0.0; 3])
                .map_err(|_| PlanningError::NonFinite { what: "x" })?;
            let line = CartesianLine::new(arm, 7, [0.0; 3], &q, None, [x[0] + 0.1, x[1], x[2]])?;
            line.task_error(0.5, &[0.0; 3]).map(|_| ())
        }),
    ]
}

/// Every case is an error naming its argument.
#[test]
fn every_case_is_an_error_naming_the_argument() {
    let cases = cases();
    crate::pub_fn_scan::check_cases(
        "contour-planning",
        cases
            .iter()
            .map(|c| (c.func, c.input, c.names, &*c.call as &dyn Fn() -> _)),
    );
}

/// The lint: each public function of `src/` taking a slice or an index has a case above or
/// an exemption with its reason.
#[test]
fn every_slice_or_index_fn_has_a_case() {
    let mut covered: std::collections::BTreeSet<&str> = cases().iter().map(|c| c.func).collect();
    covered.extend(EXEMPT.iter().map(|(f, _)| *f));
    crate::pub_fn_scan::check_coverage(env!("CARGO_MANIFEST_DIR"), &covered, 20, false);
}
