//! Unit tests: decimation, the page, the shipped models' geometry against their constraints,
//! trees against their URDF, errors.

use contour_model::models::{
    arm7_initial_q, AndrewsSqueezer, CarAxis, HuangCartesianRobot, KeerthiRobot, NFourBar,
    Pendulum, RedundantFourBar, RedundantParallelogram, SliderCrank, ANDREWS_Q0, ARM7_URDF,
    CAR_AXIS_Q0, KEERTHI_IC1,
};
use contour_model::tree::KinematicTree;
use contour_model::Mechanism;

use super::models::NFourBarDrawable;
use super::*;

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

fn points_of(d: &dyn Drawable, t: f64, q: &[f64]) -> Vec<[f64; 3]> {
    let mut p = vec![[0.0; 3]; d.n_points()];
    d.points(t, q, &mut p).unwrap();
    p
}

/// The scene JSON of a page, parsed.
fn scene(page: &str) -> serde_json::Value {
    let start = page.find("id=\"scene\">").unwrap() + "id=\"scene\">".len();
    let end = start + page[start..].find("</script>").unwrap();
    serde_json::from_str(&page[start..end]).unwrap()
}

fn arm7() -> KinematicTree {
    KinematicTree::from_urdf_str(ARM7_URDF).unwrap()
}

#[test]
fn ten_seconds_at_one_kilohertz_keep_sixty_frames_per_second() {
    let p = Pendulum::default();
    let times: Vec<f64> = (0..=10_000).map(|k| k as f64 * 1e-3).collect();
    let q: Vec<Vec<f64>> = times.iter().map(|t| vec![t.sin(), -t.cos()]).collect();
    let keep = Animation::new(&p, &times, &q).kept_samples().unwrap();
    assert_eq!(keep.len(), 601);
    // Every kept sample is the one nearest its display instant j/60 (within half a sample).
    for (j, &k) in keep.iter().enumerate() {
        assert!(
            (times[k] - j as f64 / 60.0).abs() <= 0.5e-3 + 1e-12,
            "{j} {k}"
        );
    }
    let keep30 = Animation::new(&p, &times, &q)
        .rate(30.0)
        .kept_samples()
        .unwrap();
    assert_eq!(keep30.len(), 301);
}

#[test]
fn events_keep_their_samples_on_both_sides_of_an_impact() {
    let p = Pendulum::default();
    // An impact at t = 0.5004 recorded twice (before and after), off the display grid.
    let mut times: Vec<f64> = (0..=1000).map(|k| k as f64 * 1e-3).collect();
    times.insert(501, 0.5004);
    times.insert(501, 0.5004);
    let q = vec![vec![0.0, -1.0]; times.len()];
    let keep = Animation::new(&p, &times, &q)
        .event(0.5004, "Impact", "impact")
        .kept_samples()
        .unwrap();
    assert!(keep.contains(&501) && keep.contains(&502));
    assert_eq!(keep.len(), 61 + 2);
}

#[test]
fn a_ten_second_one_kilohertz_seven_joint_page_stays_under_five_megabytes() {
    let tree = arm7();
    let arm = TreeDrawable::new(&tree);
    let q0 = arm7_initial_q();
    let times: Vec<f64> = (0..=10_000).map(|k| k as f64 * 1e-3).collect();
    let q: Vec<Vec<f64>> = times
        .iter()
        .map(|t| {
            q0.iter()
                .enumerate()
                .map(|(i, a)| a + 0.8 * (0.7 * t + i as f64).sin())
                .collect()
        })
        .collect();
    let mut page = Vec::new();
    let s = Animation::new(&arm, &times, &q)
        .trace(tree.n_bodies())
        .write_html(&mut page)
        .unwrap();
    assert_eq!((s.samples, s.frames, s.bytes), (10_001, 601, page.len()));
    assert!(s.bytes < 5_000_000, "{} bytes", s.bytes);
    println!(
        "10 s at 1 kHz, 7 joints: {} frames, {} bytes",
        s.frames, s.bytes
    );
    let page = String::from_utf8(page).unwrap();
    let sc = scene(&page);
    assert_eq!(sc["times"].as_array().unwrap().len(), 601);
    assert_eq!(
        sc["points"].as_array().unwrap().len(),
        601 * 3 * (tree.n_bodies() + 1)
    );
    assert_eq!(
        sc["poses"].as_array().unwrap().len(),
        601 * 12 * tree.n_bodies()
    );
}

#[test]
fn the_page_is_self_contained_and_its_scene_is_json() {
    let p = Pendulum::default();
    let times = [0.0, 0.5, 1.0];
    let q = vec![vec![0.0, -1.0], vec![1.0, 0.0], vec![0.0, -1.0]];
    let mut page = Vec::new();
    Animation::new(&p, &times, &q)
        .title("a </script> <b>title</b>")
        .event(0.5, "Impact", "row 0 </script>")
        .write_html(&mut page)
        .unwrap();
    let page = String::from_utf8(page).unwrap();
    for needle in [
        "http://",
        "https://",
        "src=",
        "<link",
        "/*SCENE*/",
        "<!--TITLE-->",
    ] {
        assert!(!page.contains(needle), "{needle}");
    }
    assert_eq!(page.matches("</script>").count(), 2);
    let sc = scene(&page);
    assert_eq!(sc["title"], "a </script> <b>title</b>");
    assert_eq!(sc["planar"], true);
    assert_eq!(sc["events"][0]["label"], "row 0 </script>");
    assert_eq!(sc["points"][9].as_f64(), Some(1.0));
}

#[test]
fn bad_input_gives_typed_errors() {
    let p = Pendulum::default();
    let t = [0.0, 1.0];
    let q = vec![vec![0.0, -1.0]; 2];
    let e = |a: Animation| a.write_html(Vec::new()).unwrap_err();
    assert!(matches!(
        e(Animation::new(&p, &[], &[] as &[Vec<f64>])),
        VizError::EmptyTrajectory
    ));
    assert!(matches!(
        e(Animation::new(&p, &t, &q[..1])),
        VizError::LengthMismatch { argument: "q", .. }
    ));
    let short = vec![vec![0.0]; 2];
    assert!(matches!(
        e(Animation::new(&p, &t, &short)),
        VizError::LengthMismatch {
            argument: "q",
            expected: 2,
            found: 1
        }
    ));
    assert!(matches!(
        e(Animation::new(&p, &[1.0, 0.0], &q)),
        VizError::DecreasingTimes { index: 1 }
    ));
    assert!(matches!(
        e(Animation::new(&p, &[0.0, f64::NAN], &q)),
        VizError::NonFinite {
            argument: "times",
            index: 1
        }
    ));
    let nan = vec![vec![0.0, -1.0], vec![f64::INFINITY, 0.0]];
    assert!(matches!(
        e(Animation::new(&p, &t, &nan)),
        VizError::NonFinite {
            argument: "q",
            index: 0
        }
    ));
    assert!(matches!(
        e(Animation::new(&p, &t, &q).rate(0.0)),
        VizError::InvalidRate { .. }
    ));
    assert!(matches!(
        e(Animation::new(&p, &t, &q).trace(2)),
        VizError::PointOutOfRange {
            argument: "trace",
            index: 2,
            n_points: 2
        }
    ));
    assert!(matches!(
        e(Animation::new(&p, &t, &q).phase_plane(&[0.0], &[0.0, 1.0])),
        VizError::LengthMismatch {
            argument: "phase_plane s",
            ..
        }
    ));
    // A tree refuses a state of the wrong size through its own check.
    let tree = arm7();
    let arm = TreeDrawable::new(&tree);
    let wrong = vec![vec![0.0; 7]; 2];
    let mut pts = vec![[0.0; 3]; arm.n_points()];
    assert!(arm.points(0.0, &wrong[0][..3], &mut pts).is_err());
    assert!(Animation::new(&arm, &t, &wrong)
        .write_html(Vec::new())
        .is_ok());
}

/// Each model's drawn chains close where its constraints hold: the independent witness that
/// the points follow the model's coordinates and parameters.
#[test]
fn the_shipped_models_close_their_loops_at_consistent_states() {
    let pend = Pendulum::default();
    let (q, _) = pend.state(0.7, 0.0);
    let p = points_of(&pend, 0.0, &q);
    assert!((dist(p[0], p[1]) - pend.length).abs() < 1e-14);

    let sc = SliderCrank::default();
    let (q, _) = sc.state(0.9, 0.0);
    let p = points_of(&sc, 0.0, &q);
    assert!(dist(p[2], p[3]) < 1e-14, "{p:?}");
    assert!((dist(p[1], p[3]) - sc.rod_length).abs() < 1e-14);

    let fb = RedundantFourBar::default();
    let (q, _) = fb.state(1.1, 0.0).unwrap();
    let p = points_of(&fb, 0.0, &q);
    assert!(dist(p[3], p[4]) < 1e-12, "{p:?}");

    let par = RedundantParallelogram::default();
    let (q, _) = par.state(0.8, 0.0);
    let p = points_of(&par, 0.0, &q);
    for (tip, end) in [(3, 6), (4, 7), (5, 8)] {
        assert!(dist(p[tip], p[end]) < 1e-14, "{tip} {end}");
    }

    // The test set's consistent state: the four chains meet at E, and the spring has the
    // length its force is computed with (|D − C| from the model's own formula).
    let a = AndrewsSqueezer::default();
    let p = points_of(&a, 0.0, &ANDREWS_Q0);
    for e in [4, 7, 9] {
        assert!(dist(p[2], p[e]) < 1e-12, "{e}: {:?} {:?}", p[2], p[e]);
    }
    let mut phi = [0.0; 6];
    a.constraints(0.0, &ANDREWS_Q0, &mut phi);
    assert!(phi.iter().all(|v| v.abs() < 1e-15));

    // Keerthi's IC1 is consistent to ‖φ‖ ≈ 1.2e-4 as printed: the end effector is that close to
    // the circle in the plane y = y0.
    let k = KeerthiRobot::default();
    let p = points_of(&k, 0.0, &KEERTHI_IC1.q);
    let e = p[2];
    assert!((e[1] - k.plane).abs() < 2e-4);
    assert!((e[0] * e[0] + e[2] * e[2] - k.radius_squared).abs() < 2e-4);
    assert_eq!(k.surfaces()[0].points.len(), 96);

    // Huang's robot on its circle: the effector is at distance R from the centre.
    let h = HuangCartesianRobot::default();
    let q = [h.center[0] + h.radius, h.center[1]];
    let p = points_of(&h, 0.0, &q);
    assert!((dist(p[1], [h.center[0], h.center[1], 0.0]) - h.radius).abs() < 1e-15);

    // The car axis: the axle has length L, and the left wheel is on the line through the
    // origin perpendicular to the bump point (φ₁ = x_b x_l + y_b y_l = 0).
    let c = CarAxis::default();
    let p = points_of(&c, 0.0, &CAR_AXIS_Q0);
    assert!((dist(p[1], p[2]) - c.axle).abs() < 1e-12);
    assert!((p[3][0] * p[1][0] + p[3][1] * p[1][1]).abs() < 1e-12);
    assert!((dist(p[0], p[3]) - c.axle).abs() < 1e-15);

    // A02: every one of the 2n + 1 bars drawn as a link has the bar length at a state of the
    // physical branch, and the n + 1 ground pivots are on the x axis at A_i = (i·l, 0).
    for loops in [1usize, 3] {
        let nfb = NFourBar {
            length: 0.7,
            ..NFourBar::new(loops)
        };
        let (q, _) = nfb.state(1.3, 0.0);
        let nfb = NFourBarDrawable(nfb);
        let p = points_of(&nfb, 0.0, &q);
        let links: Vec<_> = nfb
            .segments()
            .into_iter()
            .filter(|s| s.kind == SegmentKind::Link)
            .collect();
        assert_eq!(links.len(), 2 * loops + 1);
        for s in &links {
            assert!((dist(p[s.from], p[s.to]) - 0.7).abs() < 1e-14, "{s:?}");
        }
        let kinds = nfb.point_kinds();
        for i in 0..=loops {
            assert_eq!(kinds[i], PointKind::Ground);
            assert_eq!(p[i], [0.7 * i as f64, 0.0, 0.0]);
        }
        // B0 = l (cos θ, sin θ)
        assert!(dist(p[loops + 1], [0.7 * 1.3f64.cos(), 0.7 * 1.3f64.sin(), 0.0]) < 1e-15);
    }
}

#[test]
fn a_tree_is_drawn_at_its_joint_origins_and_frames() {
    let tree = arm7();
    let arm = TreeDrawable::new(&tree);
    let nb = tree.n_bodies();
    assert_eq!((arm.n_points(), arm.n_frames(), nb), (nb + 1, nb, 8));
    // At q = 0 every rpy of arm7.urdf is zero: the origins are the running sums of the joints'
    // <origin xyz>, read from the URDF text here.
    let p = points_of(&arm, 0.0, &[0.0; 7]);
    assert!(dist(p[nb], [0.0, 0.5, 16.9]) < 1e-12, "{:?}", p[nb]);
    assert!(dist(p[1], [0.0, 0.0, 0.5]) < 1e-15);
    // At the stowed pose each frame is a rotation and its origin is the body's origin.
    let q = arm7_initial_q();
    let p = points_of(&arm, 0.0, &q);
    let mut frames = vec![Pose::IDENTITY; nb];
    arm.frames(0.0, &q, &mut frames).unwrap();
    for (i, f) in frames.iter().enumerate() {
        assert!(dist(f.trans, p[i + 1]) == 0.0);
        for r in 0..3 {
            for c in 0..3 {
                let d: f64 = (0..3).map(|k| f.rot[r][k] * f.rot[c][k]).sum();
                assert!((d - if r == c { 1.0 } else { 0.0 }).abs() < 1e-12);
            }
        }
        // A body point p_b lands at rot·p_b + trans, as the tree's own point_position says.
        let pb = [0.3, -0.2, 1.1];
        let w = tree.point_position(&q, i, pb).unwrap();
        let mine: [f64; 3] =
            std::array::from_fn(|r| f.trans[r] + (0..3).map(|k| f.rot[r][k] * pb[k]).sum::<f64>());
        assert!(dist(w, mine) < 1e-12);
    }
    // Segments join each body to its parent; the last body (the fixed tip) is a leaf.
    let segs = arm.segments();
    assert_eq!(segs.len(), nb);
    assert_eq!((segs[0].from, segs[0].to), (0, 1));
    assert_eq!(arm.point_kinds()[nb], PointKind::Mass);
    // Seven revolute axes and eight frames of axes.
    let shapes = arm.shapes();
    let axes = shapes
        .iter()
        .filter(|s| matches!(s.kind, ShapeKind::JointAxis { .. }));
    assert_eq!(axes.count(), 7);
    assert_eq!(shapes.len(), 15);
}

#[test]
fn urdf_primitive_visuals_are_drawn_and_meshes_noted() {
    let urdf = r#"<robot name="r">
      <link name="base"><visual><geometry><box size="0.4 0.4 0.1"/></geometry></visual></link>
      <link name="upper">
        <inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
        <visual><origin xyz="0 0 0.25" rpy="0 0 0"/><geometry><cylinder radius="0.05" length="0.5"/></geometry></visual>
        <visual><geometry><sphere radius="0.07"/></geometry></visual>
        <visual><geometry><mesh filename="package://r/upper.stl"/></geometry></visual>
      </link>
      <joint name="j" type="revolute"><parent link="base"/><child link="upper"/>
        <origin xyz="0 0 0.1" rpy="0 0 0"/><axis xyz="0 1 0"/><limit effort="1" velocity="1" lower="-1" upper="1"/></joint>
    </robot>"#;
    let tree = KinematicTree::from_urdf_str(urdf).unwrap();
    let d = TreeDrawable::with_urdf_str_visuals(&tree, urdf).unwrap();
    let shapes = d.shapes();
    let visual: Vec<_> = shapes
        .iter()
        .filter(|s| {
            matches!(
                s.kind,
                ShapeKind::Box { .. } | ShapeKind::Cylinder { .. } | ShapeKind::Sphere { .. }
            )
        })
        .collect();
    assert_eq!(visual.len(), 3);
    assert_eq!(visual[0].frame, None); // the root link's box is in the world
    assert_eq!(visual[1].frame, Some(0));
    assert_eq!(visual[1].pose.trans, [0.0, 0.0, 0.25]);
    assert_eq!(d.notes().len(), 1);
    assert!(d.notes()[0].contains("upper.stl"));
    let times = [0.0, 1.0];
    let q = vec![vec![0.0], vec![1.0]];
    let mut page = Vec::new();
    Animation::new(&d, &times, &q)
        .write_html(&mut page)
        .unwrap();
    let sc = scene(&String::from_utf8(page).unwrap());
    assert_eq!(sc["planar"], false);
    assert_eq!(sc["shapes"].as_array().unwrap().len(), 2 + 3);
    assert_eq!(sc["notes"].as_array().unwrap().len(), 1);
    assert!(matches!(
        TreeDrawable::with_urdf_str_visuals(&tree, "<robot"),
        Err(VizError::Urdf { .. })
    ));
}

#[test]
fn rpy_follows_the_urdf_convention() {
    // R = R_z(y) R_y(p) R_x(r): a pure yaw of 90° carries x onto y.
    let p = Pose::from_xyz_rpy([0.0; 3], [0.0, 0.0, std::f64::consts::FRAC_PI_2]);
    let x_axis = [p.rot[0][0], p.rot[1][0], p.rot[2][0]];
    assert!(dist(x_axis, [0.0, 1.0, 0.0]) < 1e-15);
    // Any angles: the product of the three active rotations about the fixed axes.
    let p = Pose::from_xyz_rpy([0.0; 3], [0.3, -0.4, 1.2]);
    let (rx, ry, rz) = (
        contour_model::spatial::rotation_about(&[1.0, 0.0, 0.0], 0.3),
        contour_model::spatial::rotation_about(&[0.0, 1.0, 0.0], -0.4),
        contour_model::spatial::rotation_about(&[0.0, 0.0, 1.0], 1.2),
    );
    let r = contour_model::spatial::mat3_mul(&rz, &contour_model::spatial::mat3_mul(&ry, &rx));
    for i in 0..3 {
        for j in 0..3 {
            assert!((r[i][j] - p.rot[i][j]).abs() < 1e-15);
        }
    }
}
