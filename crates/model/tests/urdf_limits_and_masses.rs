//! URDF `<limit>` import, and the importer's mass checks (a negative mass on any
//! link, the root included; a movable joint that moves only massless links, which used to
//! import and fail at the first simulation with `MassMatrixNotPositiveDefinite`).

use contour_model::models::PANDA_URDF;
use contour_model::urdf::{tree_and_limits_from_urdf_str, tree_from_urdf_str, UrdfImportError};
use contour_model::Mechanism;

fn robot(body: &str) -> String {
    format!("<?xml version=\"1.0\"?><robot name=\"r\">{body}</robot>")
}

const MASSIVE: &str = r#"<inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>"#;

fn joint(name: &str, kind: &str, parent: &str, child: &str, limit: &str) -> String {
    format!(
        r#"<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>
           <origin xyz="0 0 1" rpy="0 0 0"/><axis xyz="0 1 0"/>{limit}</joint>"#
    )
}

#[test]
fn panda_limits_are_imported_in_q_order() {
    let (tree, lim) = tree_and_limits_from_urdf_str(PANDA_URDF).unwrap();
    assert_eq!(lim.velocity.len(), tree.dof());
    assert_eq!(lim.names[0], "panda_joint1");
    // Franka's datasheet values, as in the file
    assert_eq!(lim.effort[0], 87.0);
    assert_eq!(lim.velocity[0], 2.175);
    assert_eq!((lim.lower[0], lim.upper[0]), (-2.8973, 2.8973));
    assert!(lim.effort.iter().all(|e| *e > 0.0 && e.is_finite()));
}

#[test]
fn missing_limits_are_infinite_and_bad_ones_are_errors() {
    let body = format!(
        r#"<link name="base"/><link name="a">{MASSIVE}</link><link name="b">{MASSIVE}</link>{}{}"#,
        joint("j1", "continuous", "base", "a", ""),
        joint(
            "j2",
            "revolute",
            "a",
            "b",
            r#"<limit lower="-1" upper="2" effort="5" velocity="0"/>"#
        )
    );
    let (_, lim) = tree_and_limits_from_urdf_str(&robot(&body)).unwrap();
    assert_eq!(lim.lower, vec![f64::NEG_INFINITY, -1.0]);
    assert_eq!(lim.upper, vec![f64::INFINITY, 2.0]);
    assert_eq!(lim.velocity, vec![f64::INFINITY, f64::INFINITY]);
    assert_eq!(lim.effort, vec![f64::INFINITY, 5.0]);
    for (bad, what) in [
        (
            r#"<limit lower="-1" upper="1" effort="-5" velocity="1"/>"#,
            "effort",
        ),
        (
            r#"<limit lower="-1" upper="1" effort="5" velocity="-1"/>"#,
            "velocity",
        ),
    ] {
        // lower > upper is pybullet's "no limit": tests/urdf_floating.rs
        let body = format!(
            r#"<link name="base"/><link name="a">{MASSIVE}</link>{}"#,
            joint("j1", "revolute", "base", "a", bad)
        );
        let e = tree_and_limits_from_urdf_str(&robot(&body)).unwrap_err();
        assert!(
            matches!(&e, UrdfImportError::InvalidLimit { joint, what: w, .. } if joint == "j1" && *w == what),
            "{e:?}"
        );
    }
}

#[test]
fn a_joint_that_moves_only_massless_links_is_refused() {
    // j2 moves link c, which has no inertial and no children: M has a zero column
    let body = format!(
        r#"<link name="base"/><link name="a">{MASSIVE}</link><link name="c"/>{}{}"#,
        joint("j1", "revolute", "base", "a", ""),
        joint("j2", "revolute", "a", "c", "")
    );
    let e = tree_from_urdf_str(&robot(&body)).unwrap_err();
    assert!(
        matches!(&e, UrdfImportError::MasslessSubtree { joint, link, .. } if joint == "j2" && link == "c"),
        "{e:?}"
    );
    // a massless intermediate frame with a massive child is fine, and M is positive definite
    let body = format!(
        r#"<link name="base"/><link name="f"/><link name="a">{MASSIVE}</link>{}{}"#,
        joint("j1", "revolute", "base", "f", ""),
        joint("j2", "revolute", "f", "a", "")
    );
    let t = tree_from_urdf_str(&robot(&body)).unwrap();
    let mut m = faer::Mat::zeros(2, 2);
    t.mass_matrix(&[0.3, -0.2], m.as_mut());
    assert!(m.llt(faer::Side::Lower).is_ok());
    // a fixed joint to a massless link is fine too (no degree of freedom)
    let body = format!(
        r#"<link name="base"/><link name="a">{MASSIVE}</link><link name="tool"/>{}{}"#,
        joint("j1", "revolute", "base", "a", ""),
        joint("j2", "fixed", "a", "tool", "")
    );
    assert!(tree_from_urdf_str(&robot(&body)).is_ok());
}

#[test]
fn a_negative_mass_is_refused_on_every_link_the_root_included() {
    let neg = r#"<inertial><mass value="-1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>"#;
    for (root, child) in [(neg, MASSIVE), (MASSIVE, neg)] {
        let body = format!(
            r#"<link name="base">{root}</link><link name="a">{child}</link>{}"#,
            joint("j1", "revolute", "base", "a", "")
        );
        let e = tree_from_urdf_str(&robot(&body)).unwrap_err();
        assert!(
            matches!(e, UrdfImportError::InvalidMass { mass, .. } if mass == -1.0),
            "{e:?}"
        );
    }
}
