//! Trees with free-flyer, spherical, planar and unbounded revolute joints (`nq ≠ nv`) against
//! Pinocchio 4.1: `M` (CRBA), `τ = RNEA(q, v, a)`, `q̈ = ABA(q, v, τ)`, `integrate` and
//! `difference` agree with `tests/fixtures/pinocchio_floating.json`, written by
//! `benches/peers/pinocchio_floating.py` (not run in CI). The trees are built from the model
//! Pinocchio holds (its joint order, placements and lumped inertias), so the URDF reader is not
//! under test here; solo12 and a1 carry a free-flyer root, with states at pitch ±π/2.
//! The centre of mass, its velocity and Jacobian and the centroidal momentum and its matrix
//! are checked against `centerOfMass`, `jacobianCenterOfMass` and `ccrba`, and against
//! finite differences of `c(q ⊕ ε v)`.

use contour_model::spatial::{SpatialInertia, Transform};
use contour_model::tree::{Joint, KinematicTree};
use faer::Mat;
use serde_json::Value;

fn vec_of(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

fn mat3_of(v: &Value) -> [[f64; 3]; 3] {
    let r: Vec<Vec<f64>> = v.as_array().expect("rows").iter().map(vec_of).collect();
    std::array::from_fn(|i| std::array::from_fn(|j| r[i][j]))
}

fn vec3_of(v: &Value) -> [f64; 3] {
    let x = vec_of(v);
    [x[0], x[1], x[2]]
}

/// `max |a − b| / max(|b|, 1)`.
fn rel(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    let num = a
        .iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
    num / b.iter().fold(1.0f64, |m, x| m.max(x.abs()))
}

fn build(model: &Value) -> KinematicTree {
    let mut tree = KinematicTree::new(model["name"].as_str().expect("name"));
    tree.set_gravity(vec3_of(&model["gravity"]));
    for j in model["joints"].as_array().expect("joints") {
        let axis = || vec3_of(&j["axis"]);
        let joint = match j["kind"].as_str().expect("kind") {
            "free_flyer" => Joint::FreeFlyer,
            "spherical" => Joint::Spherical,
            "planar" => Joint::Planar,
            "revolute" => Joint::revolute(axis()).expect("axis"),
            "prismatic" => Joint::prismatic(axis()).expect("axis"),
            "revolute_unbounded" => Joint::revolute_unbounded(axis()).expect("axis"),
            k => panic!("kind {k}"),
        };
        let parent = j["parent"].as_i64().expect("parent");
        let x_tree = Transform::from_pose(&mat3_of(&j["rotation"]), vec3_of(&j["translation"]));
        let inertia = SpatialInertia::from_mass_com_inertia(
            j["mass"].as_f64().expect("mass"),
            vec3_of(&j["com"]),
            mat3_of(&j["inertia"]),
        );
        let parent = usize::try_from(parent).ok();
        let i = tree
            .add_body(
                j["name"].as_str().expect("name"),
                parent,
                joint,
                x_tree,
                inertia,
            )
            .expect("body");
        assert_eq!(tree.idx_q(i) as u64, j["idx_q"].as_u64().expect("idx_q"));
        assert_eq!(tree.idx_v(i) as u64, j["idx_v"].as_u64().expect("idx_v"));
    }
    tree
}

#[test]
fn floating_and_spherical_trees_match_pinocchio() {
    let fixture: Value =
        serde_json::from_str(include_str!("fixtures/pinocchio_floating.json")).expect("fixture");
    let models = fixture["models"].as_array().expect("models");
    let names: Vec<&str> = models
        .iter()
        .map(|m| m["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(names, ["solo12", "a1", "spherical_chain", "planar_mix"]);
    for model in models {
        let tree = build(model);
        let name = model["name"].as_str().unwrap_or("").to_owned();
        let (nq, nv) = (tree.nq(), tree.nv());
        assert_eq!(nq as u64, model["nq"].as_u64().expect("nq"), "{name}");
        assert_eq!(nv as u64, model["nv"].as_u64().expect("nv"), "{name}");
        assert_ne!(nq, nv);
        let mut data = tree.data();
        // the largest error of each quantity, printed for the results table
        let mut worst = [0.0f64; 5];
        for (k, s) in model["states"]
            .as_array()
            .expect("states")
            .iter()
            .enumerate()
        {
            let (q, v, a, tau_in) = (
                vec_of(&s["q"]),
                vec_of(&s["v"]),
                vec_of(&s["a"]),
                vec_of(&s["tau_in"]),
            );
            let mut m = Mat::<f64>::zeros(nv, nv);
            tree.mass_matrix_with(&mut data, &q, m.as_mut())
                .expect("crba");
            let want: Vec<f64> = s["mass_matrix"]
                .as_array()
                .expect("rows")
                .iter()
                .flat_map(vec_of)
                .collect();
            let ours: Vec<f64> = (0..nv * nv).map(|i| m[(i / nv, i % nv)]).collect();
            let e = rel(&ours, &want);
            worst[0] = worst[0].max(e);
            assert!(e <= 1e-12, "{name} state {k}: M rel {e:e}");
            let mut tau = vec![0.0; nv];
            tree.inverse_dynamics_with(&mut data, &q, &v, &a, &mut tau)
                .expect("rnea");
            let e = rel(&tau, &vec_of(&s["rnea_tau"]));
            worst[1] = worst[1].max(e);
            assert!(e <= 1e-12, "{name} state {k}: tau rel {e:e}");
            let mut qdd = vec![0.0; nv];
            tree.forward_dynamics_with(&mut data, &q, &v, &tau_in, &mut qdd)
                .expect("aba");
            let e = rel(&qdd, &vec_of(&s["aba_qdd"]));
            worst[2] = worst[2].max(e);
            assert!(e <= 1e-12, "{name} state {k}: qdd rel {e:e}");
            let mut q_next = vec![0.0; nq];
            tree.integrate(&q, &v, 1.0, &mut q_next).expect("integrate");
            let e = rel(&q_next, &vec_of(&s["integrate"]));
            worst[3] = worst[3].max(e);
            assert!(e <= 1e-14, "{name} state {k}: integrate {e:e}");
            let mut d = vec![0.0; nv];
            tree.difference(&q, &vec_of(&s["q1"]), &mut d)
                .expect("difference");
            let e = rel(&d, &vec_of(&s["difference"]));
            worst[4] = worst[4].max(e);
            assert!(e <= 1e-14, "{name} state {k}: difference {e:e}");
        }
        let [m, t, a, i, d] = worst;
        println!("| {name} | {nq} | {nv} | {m:.1e} | {t:.1e} | {a:.1e} | {i:.1e} | {d:.1e} |");
    }
}

fn mat_of(v: &Value) -> Vec<Vec<f64>> {
    v.as_array().expect("rows").iter().map(vec_of).collect()
}

fn flat(m: &Mat<f64>) -> Vec<f64> {
    (0..m.nrows())
        .flat_map(|i| (0..m.ncols()).map(move |j| m[(i, j)]))
        .collect()
}

#[test]
fn centre_of_mass_and_centroidal_momentum_match_pinocchio() {
    let fixture: Value =
        serde_json::from_str(include_str!("fixtures/pinocchio_floating.json")).expect("fixture");
    for model in fixture["models"].as_array().expect("models") {
        let tree = build(model);
        let name = model["name"].as_str().unwrap_or("").to_owned();
        let (nq, nv) = (tree.nq(), tree.nv());
        let mut cd = tree.centroidal_data();
        // the largest error of c, ċ, J_com, A_g, h_g and of J_com v against finite differences
        let mut worst = [0.0f64; 6];
        for (k, s) in model["states"]
            .as_array()
            .expect("states")
            .iter()
            .enumerate()
        {
            let (q, v) = (vec_of(&s["q"]), vec_of(&s["v"]));
            let c = tree.com(&mut cd, &q).expect("com");
            let vc = tree.com_velocity(&mut cd, &q, &v).expect("com velocity");
            let mut j = Mat::<f64>::zeros(3, nv);
            tree.com_jacobian(&mut cd, &q, j.as_mut())
                .expect("jacobian");
            let mut ag = Mat::<f64>::zeros(6, nv);
            tree.centroidal_momentum_matrix(&mut cd, &q, ag.as_mut())
                .expect("ag");
            let hg = tree.centroidal_momentum(&mut cd, &q, &v).expect("hg");
            let want_j: Vec<f64> = mat_of(&s["com_jacobian"]).concat();
            let want_ag: Vec<f64> = mat_of(&s["ag"]).concat();
            let errors = [
                rel(&c, &vec_of(&s["com"])),
                rel(&vc, &vec_of(&s["com_velocity"])),
                rel(&flat(&j), &want_j),
                rel(&flat(&ag), &want_ag),
                rel(&hg, &vec_of(&s["hg"])),
            ];
            for (w, e) in worst.iter_mut().zip(errors) {
                *w = w.max(e);
            }
            assert!(
                errors.iter().all(|e| *e <= 1e-12),
                "{name} state {k}: {errors:?}"
            );
            // d c(q ⊕ ε v)/dε at 0 = J_com v = ċ (central differences)
            let eps = 1e-6;
            let (mut qp, mut qm) = (vec![0.0; nq], vec![0.0; nq]);
            tree.integrate(&q, &v, eps, &mut qp).expect("integrate");
            tree.integrate(&q, &v, -eps, &mut qm).expect("integrate");
            let (cp, cm) = (
                tree.com(&mut cd, &qp).expect("com"),
                tree.com(&mut cd, &qm).expect("com"),
            );
            let fd: Vec<f64> = (0..3).map(|r| (cp[r] - cm[r]) / (2.0 * eps)).collect();
            let jv: Vec<f64> = (0..3)
                .map(|r| (0..nv).map(|c| j[(r, c)] * v[c]).sum())
                .collect();
            let e = rel(&fd, &jv);
            worst[5] = worst[5].max(e);
            assert!(e <= 1e-8, "{name} state {k}: fd {e:e}");
            assert!(rel(&jv, &vc) <= 1e-13, "{name} state {k}: J v vs c dot");
        }
        let [c, vc, j, ag, hg, fd] = worst;
        println!("| {name} | {c:.1e} | {vc:.1e} | {j:.1e} | {ag:.1e} | {hg:.1e} | {fd:.1e} |");
    }
}

#[test]
fn centroidal_quantities_refuse_bad_input() {
    let fixture: Value =
        serde_json::from_str(include_str!("fixtures/pinocchio_floating.json")).expect("fixture");
    let tree = build(&fixture["models"][0]);
    let mut cd = tree.centroidal_data();
    let mut q = vec![0.0; tree.nq()];
    tree.neutral(&mut q).expect("neutral");
    let mut short = Mat::<f64>::zeros(6, tree.nv() - 1);
    assert!(tree
        .centroidal_momentum_matrix(&mut cd, &q, short.as_mut())
        .is_err());
    q[0] = f64::NAN;
    assert!(tree.com(&mut cd, &q).is_err());
    let other = build(&fixture["models"][2]);
    q[0] = 0.0;
    assert!(other.com(&mut other.centroidal_data(), &q).is_err());
    assert!(tree.com(&mut other.centroidal_data(), &q).is_err());
}
