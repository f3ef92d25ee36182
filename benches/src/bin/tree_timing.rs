//! µs per call of CRBA, RNEA `τ = RNEA(q, q̇, q̈)` and ABA on URDF robots, cycling through 64
//! states (the same formula as `benches/peers/pinocchio_timing.cpp`, so both sides see the
//! same states and neither can reuse the previous call's joint transforms): the Contour side of
//! `benches/peers/pinocchio_timing.sh`, which runs both in one sitting.
//!
//! Usage: `tree_timing name=file.urdf …`; prints CSV
//! `robot,nv,crba_us,crba_mechanism_us,crba_upper_us,rnea_us,aba_us`: `crba_us` through
//! [`KinematicTree::mass_matrix_with`] on a caller-owned [`TreeData`] (inputs checked, both
//! triangles written), `crba_mechanism_us` through the `Mechanism` trait (the tree's own
//! workspace pool, no input checks), `crba_upper_us` through
//! [`KinematicTree::mass_matrix_upper_with`] (the upper triangle, as Pinocchio's `crba`), RNEA and ABA through the `…_with` methods (inputs and
//! outputs checked). Times are the fastest of 41 batches of ≥ 1 ms.
//!
//! `tree_timing --calls=N --only=crba|crba_upper|rnea|aba name=file.urdf …` times nothing: it makes
//! exactly `N` calls of one algorithm per robot (cycling through the same states), for an
//! instruction count under `valgrind --tool=callgrind` (load-independent); the difference of
//! two counts over the difference of their `N` is the count per call.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use contour::model::tree::{KinematicTree, TreeData};
use contour::model::urdf::tree_from_urdf_file;
use contour::model::Mechanism;
use contour_benches::min_time_us;

/// State `k` of the 64: `q_i = sin(0.37 k + 0.91 i + 0.2)`, `q̇_i = 0.5 cos(0.23 k + 0.61 i)`,
/// `q̈_i = sin(0.53 k − 0.29 i)`, `τ_i = cos(0.17 k + 0.43 i)`.
pub fn state(k: usize, n: usize) -> [Vec<f64>; 4] {
    let k = k as f64;
    let f = |g: &dyn Fn(f64) -> f64| (0..n).map(|i| g(i as f64)).collect::<Vec<f64>>();
    [
        f(&|i| (0.37 * k + 0.91 * i + 0.2).sin()),
        f(&|i| 0.5 * (0.23 * k + 0.61 * i).cos()),
        f(&|i| (0.53 * k - 0.29 * i).sin()),
        f(&|i| (0.17 * k + 0.43 * i).cos()),
    ]
}

/// `N` calls of `only` (`crba`, `crba_upper`, `rnea` or `aba`) on `tree`, cycling through the 64 states.
fn count_calls(tree: &KinematicTree, calls: usize, only: &str) -> f64 {
    let n = tree.dof();
    let states: Vec<[Vec<f64>; 4]> = (0..64).map(|k| state(k, n)).collect();
    let mut data: TreeData = tree.data();
    let mut m = faer::Mat::zeros(n, n);
    let mut out = vec![0.0; n];
    let mut sink = 0.0;
    for c in 0..calls {
        let s = &states[(c + 1) % 64];
        sink += match only {
            "crba" => {
                tree.mass_matrix_with(&mut data, &s[0], m.as_mut()).unwrap();
                m[(0, 0)]
            }
            "crba_upper" => {
                tree.mass_matrix_upper_with(&mut data, &s[0], m.as_mut())
                    .unwrap();
                m[(0, 0)]
            }
            "rnea" => {
                tree.inverse_dynamics_with(&mut data, &s[0], &s[1], &s[2], &mut out)
                    .unwrap();
                out[0]
            }
            "aba" => {
                tree.forward_dynamics_with(&mut data, &s[0], &s[1], &s[3], &mut out)
                    .unwrap();
                out[0]
            }
            other => panic!("--only={other}: crba, crba_upper, rnea or aba"),
        };
    }
    sink
}

fn main() {
    let mut calls: Option<usize> = None;
    let mut only = String::from("crba");
    let mut robots = Vec::new();
    for arg in std::env::args().skip(1) {
        if let Some(n) = arg.strip_prefix("--calls=") {
            calls = Some(n.parse().expect("--calls=N"));
        } else if let Some(a) = arg.strip_prefix("--only=") {
            only = a.to_string();
        } else {
            robots.push(arg);
        }
    }
    if let Some(calls) = calls {
        for arg in &robots {
            let (_, path) = arg.split_once('=').expect("name=path");
            let tree: KinematicTree = tree_from_urdf_file(path).unwrap();
            std::hint::black_box(count_calls(&tree, calls, &only));
        }
        return;
    }
    println!("robot,nv,crba_us,crba_mechanism_us,crba_upper_us,rnea_us,aba_us");
    for arg in robots {
        let (name, path) = arg.split_once('=').expect("name=path");
        let tree: KinematicTree = tree_from_urdf_file(path).unwrap();
        let n = tree.dof();
        let states: Vec<[Vec<f64>; 4]> = (0..64).map(|k| state(k, n)).collect();
        let mut data: TreeData = tree.data();
        let mut m = faer::Mat::zeros(n, n);
        let mut out = vec![0.0; n];
        let mut k = 0;
        let mut next = || {
            k = (k + 1) % 64;
            &states[k]
        };
        let crba = min_time_us(|| {
            let s = next();
            tree.mass_matrix_with(&mut data, &s[0], m.as_mut()).unwrap();
            m[(0, 0)]
        });
        let crba_mech = min_time_us(|| {
            let s = next();
            tree.mass_matrix(&s[0], m.as_mut());
            m[(0, 0)]
        });
        let crba_upper = min_time_us(|| {
            let s = next();
            tree.mass_matrix_upper_with(&mut data, &s[0], m.as_mut())
                .unwrap();
            m[(0, 0)]
        });
        let rnea = min_time_us(|| {
            let s = next();
            tree.inverse_dynamics_with(&mut data, &s[0], &s[1], &s[2], &mut out)
                .unwrap();
            out[0]
        });
        let aba = min_time_us(|| {
            let s = next();
            tree.forward_dynamics_with(&mut data, &s[0], &s[1], &s[3], &mut out)
                .unwrap();
            out[0]
        });
        println!("{name},{n},{crba:.4},{crba_mech:.4},{crba_upper:.4},{rnea:.4},{aba:.4}");
    }
}
