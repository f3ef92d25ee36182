//! The planning benchmark problem shared by the criterion bench and the toppra peer script:
//! the 7-joint SSRMS-like arm (zero gravity) along a joint-space line from its initial pose
//! (±0.3 rad, alternating), under the `<limit effort velocity>` of its URDF.

use contour::model::models::{arm7_line_endpoints, ssrms_arm, ARM7_URDF};
use contour::model::tree::KinematicTree;
use contour::model::urdf::{tree_and_limits_from_urdf_str, UrdfJointLimits};
use contour::planning::{BoxLimits, CartesianJointPath, Path, Segment, SegmentKind, Shape};

/// Why the problem could not be built (the shipped data is valid: never in practice).
pub type ProblemError = Box<dyn std::error::Error>;

/// Start and end of the line ([`contour::model::models::arm7_line_endpoints`]).
pub fn endpoints() -> (Vec<f64>, Vec<f64>) {
    let (q0, q1) = arm7_line_endpoints();
    (q0.to_vec(), q1.to_vec())
}

/// The joint path: the line between [`endpoints`] as one unconstrained segment, s ∈ [0, 1].
///
/// Errors: the path's (not for the shipped data).
pub fn path() -> Result<CartesianJointPath, ProblemError> {
    let (q0, q1) = endpoints();
    let seg = Segment {
        s_start: 0.0,
        s_end: 1.0,
        shape: Shape::Line { start: q0, end: q1 },
        kind: SegmentKind::Unconstrained,
    };
    Ok(CartesianJointPath::new(Path::new(vec![seg])?))
}

/// The arm, the joint path and the URDF limits.
///
/// Errors: the path's or the URDF importer's (not for the shipped data).
pub fn problem() -> Result<(KinematicTree, CartesianJointPath, UrdfJointLimits), ProblemError> {
    let (_, limits) = tree_and_limits_from_urdf_str(ARM7_URDF)?;
    Ok((ssrms_arm(), path()?, limits))
}

/// The arm and the joint path under ±500 N·m on every joint and no other limit (the planning
/// bench's torque-only group).
///
/// Errors: the path's (not for the shipped data).
pub fn torque_only_problem() -> Result<(KinematicTree, CartesianJointPath, BoxLimits), ProblemError>
{
    let limits = BoxLimits {
        lower: vec![-500.0; 7],
        upper: vec![500.0; 7],
    };
    Ok((ssrms_arm(), path()?, limits))
}
