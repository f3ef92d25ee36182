//! URDF import: the shipped files load; bad files give errors naming the element.

use contour_model::models::{panda_arm, ssrms_arm};
use contour_model::tree::KinematicTree;
use contour_model::urdf::{
    import_urdf_file, import_urdf_str, tree_from_urdf_file, tree_from_urdf_str, UrdfImportError,
    UrdfOptions,
};
use contour_model::{Mechanism, ModelError};
use faer::Mat;

fn data(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(name)
}

#[test]
fn shipped_files_load_from_disk_and_match_the_embedded_models() {
    let arm = tree_from_urdf_file(data("arm7.urdf")).unwrap();
    let panda = KinematicTree::from_urdf_file(data("panda.urdf")).unwrap();
    assert_eq!(arm.name(), "arm7");
    assert_eq!(panda.name(), "panda");
    let q = [0.3, -0.2, 0.5, -1.0, 0.4, 0.8, -0.6];
    for (a, b) in [(arm, ssrms_arm()), (panda, panda_arm())] {
        let (mut m1, mut m2) = (Mat::zeros(7, 7), Mat::zeros(7, 7));
        a.mass_matrix(&q, m1.as_mut());
        b.mass_matrix(&q, m2.as_mut());
        assert_eq!(m1, m2);
    }
}

const GOOD_LINKS: &str = r#"
  <link name="base"/>
  <link name="l1">
    <inertial><origin xyz="0 0 0.5" rpy="0 0 0"/><mass value="2"/>
      <inertia ixx="0.2" ixy="0" ixz="0" iyy="0.2" iyz="0" izz="0.01"/></inertial>
  </link>
"#;

fn robot(links: &str, joints: &str) -> String {
    format!("<?xml version=\"1.0\"?><robot name=\"r\">{links}{joints}</robot>")
}

fn joint(name: &str, kind: &str, parent: &str, child: &str) -> String {
    format!(
        r#"<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>
           <origin xyz="0 0 1" rpy="0.1 0.2 0.3"/><axis xyz="0 1 0"/>
           <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>"#
    )
}

#[test]
fn a_small_robot_loads_with_every_supported_joint_type() {
    let links = format!(
        "{GOOD_LINKS}{}",
        r#"<link name="l2"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
           <link name="l3"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
           <link name="l4"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>"#
    );
    let joints = [
        joint("j1", "revolute", "base", "l1"),
        joint("j2", "continuous", "l1", "l2"),
        joint("j3", "prismatic", "l2", "l3"),
        joint("j4", "fixed", "l1", "l4"),
    ]
    .concat();
    let t = tree_from_urdf_str(&robot(&links, &joints)).unwrap();
    assert_eq!((t.n_bodies(), t.dof()), (4, 3));
    assert_eq!(t.body_index("l3"), Some(3));
    assert!((t.total_mass() - 5.0).abs() < 1e-15);
}

fn err(s: &str) -> UrdfImportError {
    tree_from_urdf_str(s).unwrap_err()
}

#[test]
fn bad_files_give_errors_that_name_the_element() {
    // missing parent link
    let e = err(&robot(
        GOOD_LINKS,
        &joint("j1", "revolute", "nowhere", "l1"),
    ));
    assert!(
        matches!(&e, UrdfImportError::MissingLink { joint, role: "parent", link, .. } if joint == "j1" && link == "nowhere"),
        "{e:?}"
    );
    // missing child link
    let e = err(&robot(
        GOOD_LINKS,
        &joint("j1", "revolute", "base", "ghost"),
    ));
    assert!(
        matches!(e, UrdfImportError::MissingLink { role: "child", .. }),
        "{e:?}"
    );
    // a joint type URDF does not define
    let e = err(&robot(GOOD_LINKS, &joint("jx", "screw", "base", "l1")));
    assert!(
        matches!(&e, UrdfImportError::UnsupportedJointType { joint, kind, .. } if joint == "jx" && kind == "screw"),
        "{e}"
    );
    // a planar joint whose plane is not the joint frame's x–y plane (axis y here)
    let e = err(&robot(GOOD_LINKS, &joint("jf", "planar", "base", "l1")));
    assert!(
        matches!(&e, UrdfImportError::UnsupportedJointType { joint, kind, .. } if joint == "jf" && kind == "planar"),
        "{e}"
    );
    // non-positive mass
    let neg = GOOD_LINKS.replace("<mass value=\"2\"/>", "<mass value=\"-2\"/>");
    let e = err(&robot(&neg, &joint("j1", "revolute", "base", "l1")));
    assert!(
        matches!(&e, UrdfImportError::InvalidMass { link, mass, .. } if link == "l1" && *mass == -2.0),
        "{e}"
    );
    let zero = GOOD_LINKS.replace("<mass value=\"2\"/>", "<mass value=\"0\"/>");
    // a zero mass with a non-zero tensor: rotational inertia only (strict: refused)
    let zero_robot = robot(&zero, &joint("j1", "revolute", "base", "l1"));
    assert!(tree_from_urdf_str(&zero_robot).is_ok());
    let e = import_urdf_str(&zero_robot, &UrdfOptions::strict()).unwrap_err();
    assert!(
        matches!(&e, UrdfImportError::InvalidMass { link, mass, .. } if link == "l1" && *mass == 0.0),
        "{e}"
    );
    // inertia violating the triangle inequality
    let tri = GOOD_LINKS.replace("izz=\"0.01\"", "izz=\"0.5\"");
    // (positive definite: a warning; strict: refused)
    let tri_robot = robot(&tri, &joint("j1", "revolute", "base", "l1"));
    assert_eq!(
        import_urdf_str(&tri_robot, &UrdfOptions::default())
            .unwrap()
            .warnings
            .len(),
        1
    );
    let e = import_urdf_str(&tri_robot, &UrdfOptions::strict()).unwrap_err();
    assert!(
        matches!(&e, UrdfImportError::InvalidInertia { link, .. } if link == "l1"),
        "{e}"
    );
    // zero axis
    let j = joint("j1", "revolute", "base", "l1")
        .replace("<axis xyz=\"0 1 0\"/>", "<axis xyz=\"0 0 0\"/>");
    assert!(matches!(
        err(&robot(GOOD_LINKS, &j)),
        UrdfImportError::InvalidAxis { joint, .. } if joint == "j1"
    ));
    // two roots
    let e = err(&robot(GOOD_LINKS, ""));
    assert!(
        matches!(e, UrdfImportError::RootCount { ref roots } if roots.len() == 2),
        "{e:?}"
    );
    // a link with two parents
    let j = [
        joint("j1", "revolute", "base", "l1"),
        joint("j2", "revolute", "base", "l1"),
    ]
    .concat();
    assert!(matches!(
        err(&robot(GOOD_LINKS, &j)),
        UrdfImportError::MultipleParents { link, .. } if link == "l1"
    ));
    // duplicate link
    let dup = format!("{GOOD_LINKS}<link name=\"l1\"/>");
    assert!(matches!(
        err(&robot(&dup, "")),
        UrdfImportError::DuplicateLink { link, .. } if link == "l1"
    ));
    // a cycle detached from the root
    let cyc = format!("{GOOD_LINKS}<link name=\"a\"/><link name=\"b\"/>");
    let j = [
        joint("j1", "revolute", "base", "l1"),
        joint("ja", "revolute", "a", "b"),
        joint("jb", "revolute", "b", "a"),
    ]
    .concat();
    assert!(matches!(
        err(&robot(&cyc, &j)),
        UrdfImportError::Disconnected { .. }
    ));
    // malformed XML
    assert!(matches!(
        err("<robot name=\"r\"><link name=\"a\">"),
        UrdfImportError::Parse { .. }
    ));
    // missing file
    assert!(matches!(
        tree_from_urdf_file(data("no-such.urdf")),
        Err(UrdfImportError::Io { .. })
    ));
    // converts into the crate error
    let m: ModelError = err("<robot").into();
    assert!(matches!(m, ModelError::Urdf(UrdfImportError::Parse { .. })));
}

#[test]
fn options_out_of_range_are_refused_by_validate_and_by_every_import() {
    let good = robot(GOOD_LINKS, &joint("j1", "revolute", "base", "l1"));
    let path = data("arm7.urdf");
    // inertia_tolerance: finite and >= 0
    for bad in [f64::NAN, -1.0, -1e-300, f64::INFINITY, f64::NEG_INFINITY] {
        let options = UrdfOptions {
            inertia_tolerance: bad,
            ..UrdfOptions::default()
        };
        let named = |e: &UrdfImportError| {
            matches!(e, UrdfImportError::InvalidOption { option: "inertia_tolerance", value }
                if value.to_bits() == bad.to_bits())
        };
        match options.validate().unwrap_err() {
            ModelError::Urdf(e) => assert!(named(&e), "{e:?}"),
            e => panic!("{e:?}"),
        }
        let e = import_urdf_str(&good, &options).unwrap_err();
        assert!(named(&e), "{e:?}");
        let e = import_urdf_file(&path, &options).unwrap_err();
        assert!(named(&e), "{e:?}");
        // refused before the file is read
        let e = import_urdf_file(data("no such file.urdf"), &options).unwrap_err();
        assert!(named(&e), "{e:?}");
        assert!(e.to_string().contains("inertia_tolerance"), "{e}");
    }
    for ok in [0.0, 1e-6, 1.0, 1e3] {
        for strict in [false, true] {
            // strict takes either value
            let options = UrdfOptions {
                strict,
                inertia_tolerance: ok,
                ..UrdfOptions::default()
            };
            options.validate().unwrap();
            import_urdf_str(&good, &options).unwrap();
        }
    }
}
