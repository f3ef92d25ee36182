//! 3-D contact with the ground by Moreau–Jean time-stepping against closed forms: a sphere
//! at rest (normal force m g), a box on a slope (sticks for tan θ < μ, slides with
//! a = g (sin θ − μ cos θ) otherwise), a box sliding to rest after v₀²/(2 μ g).

use contour_contact::spatial_contact::{ContactGeometry, Ground, MoreauJean, MoreauJeanConfig};
use contour_model::spatial::{SpatialInertia, Transform};
use contour_model::tree::{Joint, KinematicTree};

const G: f64 = 9.81;

/// One free-flying body of mass `m` with the inertia of a box of edges `size`.
fn free_body(m: f64, size: [f64; 3]) -> KinematicTree {
    let [a, b, c] = size;
    let i = [
        [m * (b * b + c * c) / 12.0, 0.0, 0.0],
        [0.0, m * (a * a + c * c) / 12.0, 0.0],
        [0.0, 0.0, m * (a * a + b * b) / 12.0],
    ];
    let mut t = KinematicTree::new("body");
    t.add_body(
        "body",
        None,
        Joint::FreeFlyer,
        Transform::IDENTITY,
        SpatialInertia::from_mass_com_inertia(m, [0.0; 3], i),
    )
    .unwrap();
    t
}

#[test]
fn a_sphere_resting_on_the_ground_carries_its_weight() {
    let (m, r) = (2.5, 0.1);
    let tree = free_body(m, [0.2; 3]);
    let mut geo = ContactGeometry::new();
    geo.add_sphere(&tree, 0, [0.0; 3], r).unwrap();
    let ground = Ground::default().with_law(0.5, 0.0).unwrap();
    let mut mj = MoreauJean::new(&tree, geo, ground, MoreauJeanConfig::default()).unwrap();
    let mut q = [0.0, 0.0, r, 0.0, 0.0, 0.0, 1.0];
    let mut v = [0.0; 6];
    for _ in 0..100 {
        let rep = mj.step(&mut q, &mut v, &[0.0; 6]).unwrap();
        assert_eq!(rep.contacts, 1);
        assert!((mj.total_normal_force() - m * G).abs() < 1e-9 * m * G);
    }
    assert!((q[2] - r).abs() < 1e-12 && v.iter().all(|x| x.abs() < 1e-12));
}

#[test]
fn a_sphere_dropped_on_a_plastic_ground_stops_at_the_first_impact() {
    let (m, r) = (1.0, 0.05);
    let tree = free_body(m, [0.1; 3]);
    let mut geo = ContactGeometry::new();
    geo.add_sphere(&tree, 0, [0.0; 3], r).unwrap();
    let mut mj =
        MoreauJean::new(&tree, geo, Ground::default(), MoreauJeanConfig::default()).unwrap();
    let mut q = [0.0, 0.0, r + 0.2, 0.0, 0.0, 0.0, 1.0];
    let mut v = [0.0; 6];
    for _ in 0..1000 {
        mj.step(&mut q, &mut v, &[0.0; 6]).unwrap();
    }
    // penetration at most one step of the impact speed √(2 g 0.2) ≈ 2 m/s
    assert!(q[2] > r - 2.1e-3 && v[2].abs() < 1e-12);
    assert!((mj.total_normal_force() - m * G).abs() < 1e-9);
}

/// A box of edges `size` lying flat on the slope of angle `theta` (about x), with the speed
/// `v0` down the slope; returns the box's displacement and speed along the slope after `t`.
fn box_on_slope(theta: f64, mu: f64, v0: f64, t: f64, h: f64) -> (f64, f64, f64) {
    let (m, size) = (3.0, [0.2, 0.3, 0.1]);
    let tree = free_body(m, size);
    let mut geo = ContactGeometry::new();
    geo.add_box(&tree, 0, &Transform::IDENTITY, size).unwrap();
    let ground = Ground::tilted_about_x(theta)
        .unwrap()
        .with_law(mu, 0.0)
        .unwrap();
    let n = ground.normal();
    let [_, _, t2] = ground.frame();
    let cfg = MoreauJeanConfig {
        h,
        ..MoreauJeanConfig::default()
    };
    let mut mj = MoreauJean::new(&tree, geo, ground, cfg).unwrap();
    let half = 0.5 * size[2];
    let (s, c) = (0.5 * theta).sin_cos();
    let mut q = [half * n[0], half * n[1], half * n[2], s, 0.0, 0.0, c];
    // down the slope is −t₂; the body-frame velocity of the free-flyer: the box's y axis is t₂
    let mut v = [0.0, -v0, 0.0, 0.0, 0.0, 0.0];
    let p0 = [q[0], q[1], q[2]];
    let steps = (t / h).round() as usize;
    for _ in 0..steps {
        mj.step(&mut q, &mut v, &[0.0; 6]).unwrap();
    }
    let d: f64 = (0..3).map(|k| (q[k] - p0[k]) * -t2[k]).sum();
    (d, -v[1], mj.total_normal_force())
}

#[test]
fn a_box_on_a_slope_sticks_when_tan_theta_is_below_mu() {
    let theta = 0.3f64; // tan θ = 0.309
    let (d, v, fn_sum) = box_on_slope(theta, 0.4, 0.0, 1.0, 1e-3);
    assert!(d.abs() < 1e-9 && v.abs() < 1e-9, "d {d}, v {v}");
    assert!((fn_sum - 3.0 * G * theta.cos()).abs() < 1e-8, "{fn_sum}");
}

#[test]
fn a_box_on_a_slope_slides_with_the_coulomb_acceleration() {
    let (theta, mu, t) = (0.5f64, 0.3, 1.0);
    let a = G * (theta.sin() - mu * theta.cos());
    for h in [2e-3, 1e-3] {
        let (d, v, _) = box_on_slope(theta, mu, 0.0, t, h);
        // v is exact at the steps (constant acceleration) to the LCP's round-off; d is O(h)
        assert!(
            (v - a * t).abs() < 1e-7 * a * t,
            "h {h}: v {v} vs {}",
            a * t
        );
        assert!(
            (d - 0.5 * a * t * t).abs() < 0.6 * a * t * h,
            "h {h}: d {d}"
        );
    }
}

#[test]
fn a_box_sliding_on_flat_ground_stops_after_v0_squared_over_two_mu_g() {
    let (mu, v0) = (0.5, 2.0);
    let stop = v0 * v0 / (2.0 * mu * G);
    for h in [1e-3, 5e-4] {
        let (d, v, _) = box_on_slope(0.0, mu, v0, 1.0, h);
        assert!(v.abs() < 1e-12, "still moving: {v}");
        assert!((d - stop).abs() < 2.0 * v0 * h, "h {h}: {d} vs {stop}");
    }
}
