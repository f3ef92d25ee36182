//! The planning benchmark problem of spatial_v2's planar 3-link arm with gravity: a joint-space
//! line from (0.2, 0.3, −0.2) to (1.2, −0.5, 0.6) rad under torque limits ±(80, 40, 15) N·m.
//! Shared by the criterion bench and the phase-plane profiling driver.

use contour::model::tree::KinematicTree;
use contour::planning::{BoxLimits, CartesianJointPath, Path, Segment, SegmentKind, Shape};

/// The arm, the joint path and the torque limits.
///
/// Errors: the path's (not for these constant data).
pub fn problem(
) -> Result<(KinematicTree, CartesianJointPath, BoxLimits), contour::planning::PlanningError> {
    let arm = KinematicTree::planar_with_gravity(3, 9.81);
    let seg = Segment {
        s_start: 0.0,
        s_end: 1.0,
        shape: Shape::Line {
            start: vec![0.2, 0.3, -0.2],
            end: vec![1.2, -0.5, 0.6],
        },
        kind: SegmentKind::Unconstrained,
    };
    let jp = CartesianJointPath::new(Path::new(vec![seg])?);
    let limits = BoxLimits {
        lower: vec![-80.0, -40.0, -15.0],
        upper: vec![80.0, 40.0, 15.0],
    };
    Ok((arm, jp, limits))
}
