//! A `Simulation` over a `Sync` model is `Sync` and `Send`: one simulation shared by reference
//! across 8 threads runs to the serial result bit for bit (a kinematic tree, whose `Mechanism`
//! methods borrow workspaces from the tree's thread-safe pool, and the explicit constraint
//! `q = γ(y)` of planar2g).

use contour_model::models::Planar2g;
use contour_model::tree::{ConstrainedTree, KinematicTree};
use contour_model::Mechanism;
use contour_projection::{ErrorControl, Integrator, Simulation, Trajectory};

fn assert_sync<T: Sync + Send>() {}

#[test]
fn simulations_are_sync() {
    assert_sync::<Simulation<'static, KinematicTree>>();
    assert_sync::<Simulation<'static, ConstrainedTree>>();
    assert_sync::<Simulation<'static, dyn Mechanism + Sync>>();
}

/// Output times, final state and step counts, as bits.
fn bits(tr: &Trajectory) -> Vec<u64> {
    let counts = [tr.stats.steps as f64, tr.stats.f_evals as f64];
    tr.times
        .iter()
        .chain(&tr.x_final)
        .chain(&counts)
        .map(|x| x.to_bits())
        .collect()
}

/// Runs `sim` once serially, then 8 threads × 3 runs of the same `&Simulation`.
fn serial_equals_shared<M: Mechanism + Sync + ?Sized>(sim: &Simulation<'_, M>) {
    let serial = bits(&sim.run().unwrap());
    let shared: Vec<Vec<Vec<u64>>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| s.spawn(|| (0..3).map(|_| bits(&sim.run().unwrap())).collect()))
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
fn one_simulation_shared_by_8_threads_gives_the_serial_run() {
    let tree = KinematicTree::planar_with_gravity(4, 9.81);
    let sim = Simulation::new(&tree, &[0.3, -0.2, 0.5, 0.1], &[0.0; 4], 0.0, 1.0)
        .integrator(Integrator::dopri5())
        .error_control(ErrorControl::absolute(1e-8))
        .output_times(vec![0.5, 1.0]);
    serial_equals_shared(&sim);
    let p = Planar2g::default();
    let sim = Simulation::new(&p, &[0.0; 2], &[0.0; 2], 0.0, 1.0)
        .explicit(&p)
        .integrator(Integrator::dopri5())
        .error_control(ErrorControl::absolute(1e-8))
        .output_times(vec![0.5, 1.0]);
    serial_equals_shared(&sim);
}
