//! The planning objects are `Sync`: one `PathDynamics` and one `AccelerationLimits` (over a
//! kinematic tree on a joint line, and over a 2-link arm on a workspace line through an
//! `IkJointPath`) shared by reference across 8 threads give the serial plans bit for bit
//! (phase plane and TOPP-RA). Their workspaces come from thread-safe pools, whose caches are
//! keyed on their inputs, so no result depends on which workspace a call gets.

use crate::common::{joint_line, PlanarArm, TwoLinkKinematics};
use contour_model::tree::KinematicTree;
use contour_model::Mechanism;
use contour_planning::phase_plane::{PhasePlane, PhasePlaneConfig};
use contour_planning::toppra::{Toppra, ToppraConfig};
use contour_planning::*;

fn assert_sync<T: Sync + Send>() {}

#[test]
fn planning_objects_are_sync() {
    type Tree = KinematicTree;
    assert_sync::<PathDynamics<'static, Tree, CartesianJointPath>>();
    assert_sync::<AccelerationLimits<'static, Tree, CartesianJointPath, BoxLimits>>();
    assert_sync::<IkJointPath<TwoLinkKinematics>>();
}

/// Phase-plane and TOPP-RA total times and TOPP-RA's profile, as bits.
fn plan<M, P>(acc: &AccelerationLimits<'_, M, P, BoxLimits>) -> Vec<u64>
where
    M: Mechanism + ?Sized,
    P: JointPath + ?Sized,
{
    let pp = PhasePlane::new(acc, PhasePlaneConfig::default())
        .solve()
        .unwrap();
    let config = ToppraConfig {
        intervals: 200,
        ..ToppraConfig::default()
    };
    let tr = Toppra::new(acc, config).solve().unwrap();
    [pp.total_time, tr.total_time]
        .iter()
        .chain(&tr.sd)
        .map(|x| x.to_bits())
        .collect()
}

/// 8 threads × 2 plans on the one `acc` equal the serial plan.
fn shared_equals_serial<M, P>(acc: &AccelerationLimits<'_, M, P, BoxLimits>)
where
    M: Mechanism + Sync + ?Sized,
    P: JointPath + Sync + ?Sized,
{
    let serial = plan(acc);
    let shared: Vec<Vec<Vec<u64>>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| s.spawn(|| (0..2).map(|_| plan(acc)).collect()))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for runs in shared {
        for r in runs {
            assert_eq!(r, serial);
        }
    }
}

#[test]
fn plans_shared_by_8_threads_equal_the_serial_plan() {
    let arm = KinematicTree::planar_with_gravity(3, 9.81);
    let jp = joint_line(&[0.2, 0.3, -0.2], &[1.2, -0.5, 0.6]);
    let lim = BoxLimits {
        lower: vec![-80.0, -40.0, -15.0],
        upper: vec![80.0, 40.0, 15.0],
    };
    let d = PathDynamics::new(&arm, &jp).unwrap();
    let vel = JointVelocityLimits::new(vec![2.0, 2.5, 3.0]);
    let acc = AccelerationLimits::new(&d, &lim)
        .with_constraint(&vel)
        .unwrap();
    shared_equals_serial(&acc);

    let arm = PlanarArm::new(2);
    let kin = TwoLinkKinematics {
        l1: arm.lengths[0],
        l2: arm.lengths[1],
    };
    let seg = Segment::line(&[1.2, 0.3], &[0.4, 1.1], 0.0, 1.0);
    let jp = IkJointPath::new(Path::new(vec![seg]).unwrap(), kin).unwrap();
    let lim = BoxLimits {
        lower: vec![-60.0, -25.0],
        upper: vec![60.0, 25.0],
    };
    let d = PathDynamics::new(&arm, &jp).unwrap();
    let acc = AccelerationLimits::new(&d, &lim);
    shared_equals_serial(&acc);
}
