//! URDF `floating`, `planar` and `spherical` joints, [`UrdfOptions::root_joint`], pybullet's
//! `lower > upper`, and the refusal of a tree with `nq ≠ nv` wherever the stack still needs
//! one coordinate vector (a typed error naming nq and nv, never a silent result).

use contour_model::tree::{ConstrainedTree, Joint};
use contour_model::urdf::{
    import_urdf_str, RootJoint, UrdfImportError, UrdfOptions, UrdfWarningKind,
};
use contour_model::{ConstrainedDynamics, DynamicsOptions, Mechanism, ModelError};

fn robot(body: &str) -> String {
    format!("<?xml version=\"1.0\"?><robot name=\"r\">{body}</robot>")
}

const MASSIVE: &str = r#"<inertial><origin xyz="0.1 0 0"/><mass value="2"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.2" iyz="0" izz="0.3"/></inertial>"#;

fn joint(name: &str, kind: &str, parent: &str, child: &str, axis: &str, limit: &str) -> String {
    format!(
        r#"<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>
           <origin xyz="0 0.2 0.5" rpy="0.1 0 0"/><axis xyz="{axis}"/>{limit}</joint>"#
    )
}

/// A trunk with two legs (the second one a ball joint and a knee).
fn legs(kind0: &str) -> String {
    robot(&format!(
        r#"<link name="trunk">{MASSIVE}</link><link name="a">{MASSIVE}</link><link name="b">{MASSIVE}</link><link name="c">{MASSIVE}</link>{}{}{}"#,
        joint(
            "hip",
            kind0,
            "trunk",
            "a",
            "0 1 0",
            r#"<limit lower="-1" upper="1" effort="5" velocity="1"/>"#
        ),
        joint("ball", "spherical", "trunk", "b", "1 0 0", ""),
        joint(
            "knee",
            "revolute",
            "b",
            "c",
            "0 1 0",
            r#"<limit lower="1" upper="-1" effort="5" velocity="1"/>"#
        ),
    ))
}

#[test]
fn root_joint_and_multi_dof_urdf_joints_are_read() {
    let text = legs("revolute");
    let fixed = import_urdf_str(&text, &UrdfOptions::default()).unwrap();
    assert_eq!((fixed.tree.nq(), fixed.tree.nv()), (1 + 4 + 1, 1 + 3 + 1));
    assert_eq!(*fixed.tree.joint(1), Joint::Spherical);
    let options = UrdfOptions::default().root_joint(RootJoint::FreeFlyer);
    let floating = import_urdf_str(&text, &options).unwrap();
    let tree = &floating.tree;
    assert_eq!((tree.nq(), tree.nv()), (7 + 6, 6 + 5));
    assert_eq!(*tree.joint(0), Joint::FreeFlyer);
    assert_eq!(tree.body_name(0), "trunk");
    assert_eq!(tree.inertia(0).mass, 2.0);
    assert_eq!(floating.limits.lower.len(), tree.nv());
    assert_eq!((tree.idx_q(1), tree.idx_v(1)), (7, 6));
    let planar =
        import_urdf_str(&text, &UrdfOptions::default().root_joint(RootJoint::Planar)).unwrap();
    assert_eq!(*planar.tree.joint(0), Joint::Planar);
    assert_eq!((planar.tree.nq(), planar.tree.nv()), (4 + 6, 3 + 5));
    // `floating` inside the tree and `planar` about z; `planar` about x is refused
    let t = import_urdf_str(&legs("floating"), &UrdfOptions::default()).unwrap();
    assert_eq!(*t.tree.joint(0), Joint::FreeFlyer);
    let text_planar = legs("planar").replace(
        r#"<axis xyz="0 1 0"/><limit lower="-1""#,
        r#"<axis xyz="0 0 1"/><limit lower="-1""#,
    );
    let t = import_urdf_str(&text_planar, &UrdfOptions::default()).unwrap();
    assert_eq!(*t.tree.joint(0), Joint::Planar);
    let e = import_urdf_str(&legs("planar"), &UrdfOptions::default()).unwrap_err();
    assert!(
        matches!(&e, UrdfImportError::UnsupportedJointType { joint, .. } if joint == "hip"),
        "{e:?}"
    );
}

#[test]
fn pybullet_inverted_limits_are_no_limit_with_a_warning() {
    let text = legs("revolute");
    let import = import_urdf_str(&text, &UrdfOptions::default()).unwrap();
    let knee = import
        .limits
        .names
        .iter()
        .position(|n| n == "knee")
        .unwrap();
    assert_eq!(import.limits.lower[knee], f64::NEG_INFINITY);
    assert_eq!(import.limits.upper[knee], f64::INFINITY);
    let w: Vec<_> = import
        .warnings
        .iter()
        .filter(|w| matches!(w.kind, UrdfWarningKind::NoLimit { lower, upper } if lower == 1.0 && upper == -1.0))
        .collect();
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].element, "knee");
    assert!(w[0].to_string().contains("no limit"), "{}", w[0]);
    let e = import_urdf_str(&text, &UrdfOptions::strict()).unwrap_err();
    assert!(
        matches!(&e, UrdfImportError::InvalidLimit { joint, what: "lower", .. } if joint == "knee"),
        "{e:?}"
    );
}

#[test]
fn a_floating_robot_falls_with_gravity_at_any_pitch() {
    // v = 0, τ = 0: every body falls with g, so the base's body-frame acceleration is Rᵀ g
    // and no joint accelerates; at pitch ±π/2 (no gimbal lock) as well
    let options = UrdfOptions::default().root_joint(RootJoint::FreeFlyer);
    let tree = import_urdf_str(&legs("revolute"), &options).unwrap().tree;
    let (nq, nv) = (tree.nq(), tree.nv());
    for pitch in [
        0.0,
        std::f64::consts::FRAC_PI_2,
        -std::f64::consts::FRAC_PI_2,
        0.7,
    ] {
        let mut q = vec![0.0; nq];
        tree.neutral(&mut q).unwrap();
        let h: f64 = 0.5 * pitch;
        q[4] = h.sin(); // rotation about y
        q[6] = h.cos();
        q[7 + 1] = 0.3; // a tilted ball
        q[7 + 4] = 0.9;
        let n = (q[7..11].iter().map(|x| x * x).sum::<f64>()).sqrt();
        q[7..11].iter_mut().for_each(|x| *x /= n);
        let mut qdd = vec![0.0; nv];
        tree.forward_dynamics(&q, &vec![0.0; nv], &vec![0.0; nv], &mut qdd)
            .unwrap();
        // Rᵀ g for R = R_y(pitch), g = (0, 0, −9.81)
        let (s, c) = pitch.sin_cos();
        let want = [9.81 * s, 0.0, -9.81 * c];
        for k in 0..3 {
            assert!((qdd[k] - want[k]).abs() < 1e-12, "pitch {pitch}: {qdd:?}");
        }
        assert!(
            qdd[3..].iter().all(|x| x.abs() < 1e-12),
            "pitch {pitch}: {qdd:?}"
        );
    }
}

#[test]
fn a_tree_with_nq_ne_nv_is_refused_where_q_and_v_must_agree() {
    let options = UrdfOptions::default().root_joint(RootJoint::FreeFlyer);
    let tree = import_urdf_str(&legs("revolute"), &options).unwrap().tree;
    let named = |e: &ModelError| {
        matches!(
            e,
            ModelError::ConfigurationNotVelocity { nq: 13, nv: 11, .. }
        ) && e.to_string().contains("nq = 13")
            && e.to_string().contains("nv = 11")
    };
    let e = tree.validate().unwrap_err();
    assert!(named(&e), "{e}");
    let e = ConstrainedDynamics::with_options(&tree, DynamicsOptions::default()).unwrap_err();
    assert!(named(&e), "{e}");
    let e = ConstrainedTree::new(tree.clone(), Vec::new()).unwrap_err();
    assert!(named(&e), "{e}");
    let mut q = vec![0.0; tree.nq()];
    tree.neutral(&mut q).unwrap();
    // the Jacobians take one column per velocity coordinate
    let mut j = faer::Mat::<f64>::zeros(3, tree.nv());
    tree.point_jacobian(&q, 1, [0.0; 3], j.as_mut()).unwrap();
    let mut j = faer::Mat::<f64>::zeros(3, tree.nq());
    assert!(tree.point_jacobian(&q, 1, [0.0; 3], j.as_mut()).is_err());
    // the Mechanism methods, which return no error, give NaN rather than a wrong M
    let mut m = faer::Mat::<f64>::zeros(tree.nv(), tree.nv());
    tree.mass_matrix(&q, m.as_mut());
    assert!(m[(0, 0)].is_nan());
    // the fixed-base import of the same file has nq ≠ nv too (the ball joint)
    let fixed = import_urdf_str(&legs("revolute"), &UrdfOptions::default())
        .unwrap()
        .tree;
    assert!(matches!(
        fixed.validate(),
        Err(ModelError::ConfigurationNotVelocity { nq: 6, nv: 5, .. })
    ));
}
