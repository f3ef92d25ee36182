//! A plain loop over one kernel of the `kkt` and `trees` benches, for instruction counts under
//! `valgrind --tool=callgrind` (load-independent, unlike criterion on a shared machine): run it
//! with `reps` = 1 and 10 001 and divide the difference of the totals by 10 000.
//! Kernels: `crba_arm7`, `crba_panda`, `rnea_arm7`, `kkt_<system>`, `projector_<system>` with
//! `<system>` one of `keerthi`, `andrews`, `arm7` (the kkt bench's states). Every call is at a
//! new state ([`contour_benches::next_state`]).
//! `cargo run --release -p contour-benches --example kernel_loop -- crba_arm7 10001`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use std::hint::black_box;

use contour::linalg::DEFAULT_RANK_RTOL;
use contour::model::models::{
    arm7_initial_q, panda_arm, ssrms_arm, AndrewsSqueezer, KeerthiControlLaw, KeerthiRobot,
    ANDREWS_Q0, KEERTHI_IC1,
};
use contour::model::{ConstrainedDynamics, Mechanism, WithController};
use contour::projection::ProjectionDynamics;
use contour_benches::next_state;
use contour_papers::kovecses::arm_system;

fn constrained(mech: &dyn Mechanism, q: &[f64], qd: &[f64], projector: bool, reps: usize) -> f64 {
    let (n, l) = (mech.dof(), mech.n_constraints());
    let (mut q, mut qdd, mut lambda) = (q.to_vec(), vec![0.0; n], vec![0.0; l]);
    let mut kkt = ConstrainedDynamics::new(&mech);
    let mut pd = ProjectionDynamics::new(&mech, DEFAULT_RANK_RTOL).expect("projector");
    let mut acc = 0.0;
    for _ in 0..reps {
        next_state(&mut q);
        if projector {
            pd.accelerations(&mech, 0.0, black_box(&q), qd, &mut qdd, &mut lambda)
                .expect("projector");
        } else {
            kkt.accelerations(&mech, 0.0, black_box(&q), qd, &mut qdd, &mut lambda)
                .expect("kkt");
        }
        acc += qdd[0];
    }
    acc
}

fn main() {
    let what = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "crba_arm7".into());
    let reps: usize = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_001);
    let (kind, system) = what.split_once('_').expect("<kernel>_<system>");
    let out = match kind {
        "crba" | "rnea" => {
            let (tree, q0) = match system {
                "arm7" => (ssrms_arm(), arm7_initial_q().to_vec()),
                "panda" => (panda_arm(), vec![0.3; 7]),
                other => panic!("unknown tree {other}"),
            };
            let n = tree.dof();
            let (mut q, mut m, mut h) = (q0, faer::Mat::zeros(n, n), vec![0.0; n]);
            let qd: Vec<f64> = (0..n).map(|i| 0.1 * (i as f64 + 1.0).sin()).collect();
            let mut acc = 0.0;
            for _ in 0..reps {
                next_state(&mut q);
                if kind == "crba" {
                    tree.mass_matrix(black_box(&q), m.as_mut());
                    acc += m[(0, 0)];
                } else {
                    tree.bias_forces(black_box(&q), &qd, &mut h);
                    acc += h[0];
                }
            }
            acc
        }
        "kkt" | "projector" => {
            let projector = kind == "projector";
            match system {
                "keerthi" => {
                    let k =
                        WithController::new(KeerthiRobot::default(), KeerthiControlLaw::default());
                    constrained(&k, &KEERTHI_IC1.q, &KEERTHI_IC1.qd, projector, reps)
                }
                "andrews" => {
                    let a = AndrewsSqueezer::default();
                    let qd = [1.0, -0.5, 0.2, 0.1, -0.3, 0.2, 0.1];
                    constrained(&a, &ANDREWS_Q0, &qd, projector, reps)
                }
                "arm7" => {
                    let arm = arm_system();
                    let ic = contour_benches::arm7_state(&arm).expect("consistent arm state");
                    constrained(&arm, &ic.q, &ic.qd, projector, reps)
                }
                other => panic!("unknown system {other}"),
            }
        }
        other => panic!("unknown kernel {other}"),
    };
    println!("{what} × {reps}: {out:e}");
}
