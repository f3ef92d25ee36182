//! URDF import of real robot descriptions (`tests/fixtures/urdf`, from example-robot-data 6.0.0,
//! stripped of meshes; sources and licenses in the folder's README): visual content never
//! blocks an import, inertial defects that leave the dynamics well defined are repaired or
//! accepted with a warning of the import report, strict mode refuses them, and every error
//! and warning names the element and its line.

use contour_model::tree::{Closure, ConstrainedTree, MimicReduction};
use contour_model::urdf::{
    import_urdf_str, tree_from_urdf_str, UrdfImportError, UrdfOptions, UrdfWarningKind, MAX_DEPTH,
};
use contour_model::{explicit::ExplicitDynamics, testing::SplitMix64};
use contour_model::{ConstrainedDynamics, Controller, Mechanism, WithController};
use faer::{Mat, Side};

const ROMEO_LAAS_SMALL: &str = include_str!("fixtures/urdf/romeo_laas_small.urdf");
const ROMEO_SMALL: &str = include_str!("fixtures/urdf/romeo_small.urdf");
const ROMEO: &str = include_str!("fixtures/urdf/romeo.urdf");
const TIAGO_NO_HAND: &str = include_str!("fixtures/urdf/tiago_no_hand.urdf");
const BOLT: &str = include_str!("fixtures/urdf/bolt.urdf");
const PANDA: &str = include_str!("fixtures/urdf/panda.urdf");
const BAXTER: &str = include_str!("fixtures/urdf/baxter.urdf");

/// The 1-based line of the first line of `text` that contains `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    1 + text
        .lines()
        .position(|l| l.contains(needle))
        .expect("needle in the fixture")
}

fn strict() -> UrdfOptions {
    UrdfOptions::strict()
}

/// `M(q)` is positive definite at a few random states (Cholesky succeeds).
fn assert_mass_matrix_pd(tree: &contour_model::tree::KinematicTree) {
    let n = tree.dof();
    let mut rng = SplitMix64::new(32);
    let mut m = Mat::zeros(n, n);
    for _ in 0..5 {
        let q: Vec<f64> = (0..n).map(|_| rng.uniform(-1.0, 1.0)).collect();
        tree.mass_matrix(&q, m.as_mut());
        assert!(
            m.llt(Side::Lower).is_ok(),
            "{}: M not positive definite",
            tree.name()
        );
    }
}

#[test]
fn a_texture_without_filename_does_not_block_import() {
    assert!(ROMEO_LAAS_SMALL.contains("<texture />"));
    // the texture passes; what stops the file is its dynamics: `l_gripper_joint` moves only
    // the massless `l_gripper` (M singular; Pinocchio's ABA gives non-finite values there)
    assert_eq!(
        tree_from_urdf_str(ROMEO_LAAS_SMALL).unwrap_err(),
        UrdfImportError::MasslessSubtree {
            joint: "l_gripper_joint".into(),
            link: "l_gripper".into(),
            line: line_of(ROMEO_LAAS_SMALL, "<joint name=\"l_gripper_joint\""),
        }
    );
    // with a mass on the grippers it loads, textures and all
    let mut massive = ROMEO_LAAS_SMALL.to_string();
    for side in ["l", "r"] {
        massive = massive.replace(
            &format!("<link name=\"{side}_gripper\" />"),
            &format!(
                "<link name=\"{side}_gripper\"><inertial><mass value=\"0.1\"/>\
                 <inertia ixx=\"1e-4\" iyy=\"1e-4\" izz=\"1e-4\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>"
            ),
        );
    }
    let import = import_urdf_str(&massive, &UrdfOptions::default()).unwrap();
    assert!(import.tree.dof() > 20, "{}", import.tree.dof());
    assert_mass_matrix_pd(&import.tree);
    // the file's indefinite tensors (LHipPitch_link: ixx izz < ixz²) are kept with a warning
    // (M positive definite) and refused in strict mode
    let w = import
        .warnings
        .iter()
        .find(|w| w.element == "LHipPitch_link")
        .expect("a warning for LHipPitch_link");
    assert!(
        matches!(w.kind, UrdfWarningKind::IndefiniteInertia { min_moment } if min_moment < -1e-3)
    );
    assert!(matches!(
        import_urdf_str(&massive, &strict()).unwrap_err(),
        UrdfImportError::InvalidInertia { .. }
    ));
}

#[test]
fn a_triangle_inequality_violation_is_a_warning_and_a_strict_error() {
    let line = line_of(ROMEO_SMALL, "<link name=\"RShoulderYawLink\"");
    let import = import_urdf_str(ROMEO_SMALL, &UrdfOptions::default()).unwrap();
    let w = import
        .warnings
        .iter()
        .find(|w| w.element == "RShoulderYawLink")
        .expect("a warning for RShoulderYawLink");
    assert_eq!(w.line, line);
    // principal moments of the fixture's tensor: 0.00066, 0.00068, 0.00656: excess 0.0052
    match w.kind {
        UrdfWarningKind::TriangleInequality { excess } => {
            assert!((excess - 5.2e-3).abs() < 1e-4, "{excess}")
        }
        ref k => panic!("{k:?}"),
    }
    assert!(w.to_string().contains(&format!("line {line}")), "{w}");
    assert_mass_matrix_pd(&import.tree);
    match import_urdf_str(ROMEO_SMALL, &strict()).unwrap_err() {
        UrdfImportError::InvalidInertia { link, line: l, .. } => {
            assert_eq!((link.as_str(), l), ("RShoulderYawLink", line));
        }
        e => panic!("{e:?}"),
    }
}

#[test]
fn a_round_off_negative_moment_is_repaired_with_a_warning() {
    let import = import_urdf_str(TIAGO_NO_HAND, &UrdfOptions::default()).unwrap();
    let w = import
        .warnings
        .iter()
        .find(|w| w.element == "base_antenna_left_link")
        .expect("a warning for the antenna");
    assert_eq!(
        w.line,
        line_of(TIAGO_NO_HAND, "<link name=\"base_antenna_left_link\"")
    );
    // −3.5e-8 kg·m², within 1e-6 of the robot's largest principal moment: set to zero
    match w.kind {
        UrdfWarningKind::RepairedInertia { min_moment } => {
            assert!(min_moment < -1e-8 && min_moment > -1e-7, "{min_moment}")
        }
        ref k => panic!("{k:?}"),
    }
    assert_mass_matrix_pd(&import.tree);
    assert!(matches!(
        import_urdf_str(TIAGO_NO_HAND, &strict()).unwrap_err(),
        UrdfImportError::InvalidInertia { ref link, .. } if link.starts_with("base_antenna")
    ));
}

#[test]
fn a_massless_foot_with_a_tensor_is_accepted_and_a_strict_error() {
    let import = import_urdf_str(BOLT, &UrdfOptions::default()).unwrap();
    let feet: Vec<&str> = import
        .warnings
        .iter()
        .filter(|w| w.kind == UrdfWarningKind::MasslessWithInertia)
        .map(|w| w.element.as_str())
        .collect();
    assert!(feet.contains(&"FL_FOOT"), "{feet:?}");
    assert_mass_matrix_pd(&import.tree);
    assert_eq!(
        import_urdf_str(BOLT, &strict()).unwrap_err(),
        UrdfImportError::InvalidMass {
            link: "FL_FOOT".into(),
            mass: 0.0,
            line: line_of(BOLT, "<link name=\"FL_FOOT\""),
        }
    );
}

#[test]
fn a_joint_that_moves_only_massless_links_is_refused() {
    match tree_from_urdf_str(ROMEO).unwrap_err() {
        UrdfImportError::MasslessSubtree { joint, line, .. } => {
            assert_eq!(joint, "LHand");
            assert_eq!(line, line_of(ROMEO, "<joint name=\"LHand\""));
        }
        e => panic!("{e:?}"),
    }
}

fn robot(body: &str) -> String {
    format!(
        "<robot name=\"r\">\n<link name=\"base\"/>\n<link name=\"l1\">\n <inertial>\n  <mass value=\"1\"/>\n  \
         <inertia ixx=\"0.1\" iyy=\"0.1\" izz=\"0.1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/>\n </inertial>\n</link>\n{body}</robot>\n"
    )
}

const J1: &str = "<joint name=\"j1\" type=\"revolute\">\n <parent link=\"base\"/>\n <child link=\"l1\"/>\n</joint>\n";

#[test]
fn duplicate_joint_names_are_errors_with_the_line() {
    let s = robot(&format!(
        "{J1}{}",
        J1.replace("l1\"/>\n</joint>", "l2\"/>\n</joint>")
    ));
    let s = s.replace(
        "<link name=\"base\"/>",
        "<link name=\"base\"/><link name=\"l2\"/>",
    );
    assert_eq!(
        tree_from_urdf_str(&s).unwrap_err(),
        UrdfImportError::DuplicateJoint {
            joint: "j1".into(),
            line: 13
        }
    );
}

#[test]
fn deep_nesting_is_a_typed_error_on_a_small_stack() {
    let depth = 4000;
    let deep = format!(
        "{}{}",
        "<unknown>".repeat(depth),
        "</unknown>".repeat(depth)
    );
    let s = robot(&format!("{J1}<gazebo>{deep}</gazebo>\n"));
    // a 2 MiB thread, as the default test thread
    let r = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || tree_from_urdf_str(&s))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(
        r.unwrap_err(),
        UrdfImportError::TooDeep {
            line: 13,
            depth: MAX_DEPTH
        }
    );
    // unknown elements within the bound are skipped
    let ok = robot(&format!(
        "{J1}<gazebo>{}{}</gazebo>\n",
        "<u>".repeat(100),
        "</u>".repeat(100)
    ));
    assert_eq!(tree_from_urdf_str(&ok).unwrap().dof(), 1);
}

#[test]
fn a_tiny_negative_moment_is_repaired_and_a_large_one_refused() {
    // moments (0.1, 0.1, −1e-9) about rotated axes: within 1e-6 of I_max = 0.1
    let tensor = |neg: f64| {
        let (s, c) = (0.6f64.sin(), 0.6f64.cos());
        // R diag(0.1, neg, 0.1) Rᵀ, R about z
        let (a, b) = (0.1, neg);
        let ixx = a * c * c + b * s * s;
        let iyy = a * s * s + b * c * c;
        let ixy = (a - b) * c * s;
        format!("ixx=\"{ixx:e}\" iyy=\"{iyy:e}\" izz=\"0.1\" ixy=\"{ixy:e}\" ixz=\"0\" iyz=\"0\"")
    };
    let s = robot(J1).replace(
        "ixx=\"0.1\" iyy=\"0.1\" izz=\"0.1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"",
        &tensor(-1e-9),
    );
    let import = import_urdf_str(&s, &UrdfOptions::default()).unwrap();
    match import.warnings[..] {
        [ref w] => {
            assert_eq!((w.element.as_str(), w.line), ("l1", 3));
            assert!(
                matches!(w.kind, UrdfWarningKind::RepairedInertia { min_moment } if (min_moment + 1e-9).abs() < 1e-15)
            );
        }
        ref ws => panic!("{ws:?}"),
    }
    // the repaired tensor: moment about z of the rotation axis… every M entry finite and ≥ 0
    let mut m = Mat::zeros(1, 1);
    import.tree.mass_matrix(&[0.3], m.as_mut());
    assert!(m[(0, 0)] > 0.0);
    // strict: refused
    assert!(matches!(
        import_urdf_str(&s, &strict()).unwrap_err(),
        UrdfImportError::InvalidInertia { line: 3, .. }
    ));
    // beyond the tolerance: kept with a warning while M(0) is positive definite …
    let kept = robot(J1).replace(
        "ixx=\"0.1\" iyy=\"0.1\" izz=\"0.1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"",
        &tensor(-1e-3),
    );
    let import = import_urdf_str(&kept, &UrdfOptions::default()).unwrap();
    assert!(matches!(
        import.warnings[..],
        [ref w] if matches!(w.kind, UrdfWarningKind::IndefiniteInertia { min_moment } if (min_moment + 1e-3).abs() < 1e-12)
    ));
    // … and refused when the joint's axis sees the negative moment (M(0) = −0.05)
    let bad = robot(J1).replace("ixx=\"0.1\"", "ixx=\"-0.05\"");
    match import_urdf_str(&bad, &UrdfOptions::default()).unwrap_err() {
        UrdfImportError::InvalidInertia {
            link, min_moment, ..
        } => {
            assert_eq!(link, "l1");
            assert_eq!(min_moment, -0.05);
        }
        e => panic!("{e:?}"),
    }
}

#[test]
fn errors_name_the_line() {
    let s = robot(&J1.replace("<parent link=\"base\"/>", "<parent link=\"nowhere\"/>"));
    assert_eq!(
        tree_from_urdf_str(&s).unwrap_err(),
        UrdfImportError::MissingLink {
            joint: "j1".into(),
            role: "parent",
            link: "nowhere".into(),
            line: 9
        }
    );
    let e = tree_from_urdf_str("<robot name=\"r\">\n<link name=\"a\">\n<inertial><mass value=\"x\"/></inertial></link></robot>")
        .unwrap_err();
    assert!(
        matches!(e, UrdfImportError::Parse { line: 3, ref message } if message.contains("link 'a'") && message.contains("mass")),
        "{e:?}"
    );
}

/// Constant generalized forces.
struct Constant(Vec<f64>);

impl Controller for Constant {
    fn forces(&self, _t: f64, _q: &[f64], _qd: &[f64], u: &mut [f64]) {
        for (u, c) in u.iter_mut().zip(&self.0) {
            *u += c;
        }
    }
}

/// The mimic couplings as an explicit constraint (FDgq) and as bilateral rows (KKT) give the
/// same accelerations, which satisfy the couplings.
#[test]
fn mimic_explicit_and_bilateral_forms_agree() {
    for (text, couplings) in [(PANDA, 1), (BAXTER, 2)] {
        let import = import_urdf_str(text, &UrdfOptions::default()).unwrap();
        assert_eq!(import.mimic.len(), couplings);
        let tree = import.tree;
        let n = tree.dof();
        let red = MimicReduction::new(n, &import.mimic, 0.1).unwrap();
        let rows: Vec<Closure> = import.mimic.iter().map(Closure::from).collect();
        let closed = ConstrainedTree::new(tree.clone(), rows).unwrap();
        assert_eq!(closed.n_constraints(), couplings);
        let mut rng = SplitMix64::new(7);
        let ny = red.independent().len();
        assert_eq!(ny + couplings, n);
        for _ in 0..5 {
            let y: Vec<f64> = (0..ny).map(|_| rng.uniform(-1.0, 1.0)).collect();
            let yd: Vec<f64> = (0..ny).map(|_| rng.uniform(-1.0, 1.0)).collect();
            let (mut q, mut qd) = (vec![0.0; n], vec![0.0; n]);
            red.expand(&y, &mut q);
            red.expand_rate(&yd, &mut qd);
            let mut tau = vec![0.0; n];
            for &k in red.independent() {
                tau[k] = rng.uniform(-5.0, 5.0);
            }
            let mech = WithController::new(tree.clone(), Constant(tau.clone()));
            let mut fd = ExplicitDynamics::new(&mech, &red).unwrap();
            let mut a_explicit = vec![0.0; n];
            fd.accelerations(&mech, &red, 0.0, &q, &qd, &mut a_explicit)
                .unwrap();
            let mech = WithController::new(closed.clone(), Constant(tau));
            let mut cd = ConstrainedDynamics::new(&mech);
            let mut a_rows = vec![0.0; n];
            let mut lambda = vec![0.0; couplings];
            cd.accelerations(&mech, 0.0, &q, &qd, &mut a_rows, &mut lambda)
                .unwrap();
            let scale = a_explicit.iter().fold(1.0f64, |m, x| m.max(x.abs()));
            for k in 0..n {
                assert!(
                    (a_explicit[k] - a_rows[k]).abs() <= 1e-10 * scale,
                    "{}: coordinate {k}: {} vs {}",
                    tree.name(),
                    a_explicit[k],
                    a_rows[k]
                );
            }
            for m in &import.mimic {
                let r = a_rows[m.coord] - m.multiplier * a_rows[m.master_coord];
                assert!(r.abs() <= 1e-10 * scale, "{r}");
            }
        }
    }
}

/// A `<mimic>` that cannot be imposed (here on a fixed joint, as on Talos's grippers) is left
/// out with a warning; strict mode refuses it.
#[test]
fn a_mimic_that_cannot_be_imposed_is_a_warning_and_a_strict_error() {
    let fixed =
        "<link name=\"l2\"/>\n<joint name=\"j2\" type=\"fixed\">\n <parent link=\"l1\"/>\n \
                 <child link=\"l2\"/>\n <mimic joint=\"j1\"/>\n</joint>\n";
    let s = robot(&format!("{J1}{fixed}"));
    let import = import_urdf_str(&s, &UrdfOptions::default()).unwrap();
    assert!(import.mimic.is_empty());
    assert!(matches!(
        import.warnings[..],
        [ref w] if w.element == "j2" && w.line == 14 && matches!(w.kind, UrdfWarningKind::IgnoredMimic { .. })
    ));
    assert!(matches!(
        import_urdf_str(&s, &strict()).unwrap_err(),
        UrdfImportError::InvalidMimic { ref joint, line: 14, .. } if joint == "j2"
    ));
}
