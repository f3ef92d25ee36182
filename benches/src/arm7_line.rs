//! The planning benchmark problem shared by the criterion bench and the toppra peer script:
//! the 7-joint SSRMS-like arm (zero gravity) along a joint-space line from its initial pose
//! (±0.3 rad, alternating), under the `<limit effort velocity>` of its URDF.

use contour::model::models::{arm7_line_endpoints, ssrms_arm, ARM7_URDF};
use contour::model::tree::KinematicTree;
use contour::model::urdf::{tree_and_limits_from_urdf_str, UrdfJointLimits};
use contour::planning::{CartesianJointPath, Path, Segment, SegmentKind, Shape};

/// Why the problem could not be built (the shipped data is valid: never in practice).
pub type ProblemError = Box<dyn std::error::Error>;

/// Start and end of the line ([`contour::model::models::arm7_line_endpoints`]).
pub fn endpoints() -> (Vec<f64>, Vec<f64>) {
    let (q0, q1) = arm7_line_endpoints();
    (q0.to_vec(), q1.to_vec())
}

/// The arm, the joint path and the URDF limits.
///
/// Errors: the path's or the URDF importer's (not for the shipped data).
pub fn problem() -> Result<(KinematicTree, CartesianJointPath, UrdfJointLimits), ProblemError> {
    let (q0, q1) = endpoints();
    let seg = Segment {
        s_start: 0.0,
        s_end: 1.0,
        shape: Shape::Line { start: q0, end: q1 },
        kind: SegmentKind::Unconstrained,
    };
    let jp = CartesianJointPath::new(Path::new(vec![seg])?);
    let (_, limits) = tree_and_limits_from_urdf_str(ARM7_URDF)?;
    Ok((ssrms_arm(), jp, limits))
}
