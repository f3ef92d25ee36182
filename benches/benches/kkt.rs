//! Cost of one constrained-acceleration evaluation (one N_f of the Keerthi tables): the KKT
//! solve of M q̈ − Jᵀλ = u − h, J q̈ = −ρ for Keerthi's 3-link robot (N = 3, L = 2) under the
//! control law (4.5), by the range-space method and by a full LU, plus the bare KKT solve on
//! already-assembled matrices. `cargo bench -p contour-benches --bench kkt`.

use std::hint::black_box;

use contour::linalg::{KktMethod, KktSolver};
use contour::model::models::{KeerthiControlLaw, KeerthiRobot, KEERTHI_IC1};
use contour::model::{ConstrainedDynamics, DynamicsOptions, Mechanism, WithController};
use criterion::{criterion_group, criterion_main, Criterion};

fn keerthi_kkt(c: &mut Criterion) {
    let mech = WithController::new(KeerthiRobot::default(), KeerthiControlLaw::default());
    let (q, qd) = (KEERTHI_IC1.q, KEERTHI_IC1.qd);
    let mut group = c.benchmark_group("kkt_keerthi");
    for (name, method) in [
        ("range_space_3x2", KktMethod::RangeSpace),
        ("full_lu_3x2", KktMethod::FullLu),
    ] {
        let opts = DynamicsOptions {
            method,
            ..DynamicsOptions::default()
        };
        let mut dynamics = ConstrainedDynamics::with_options(&mech, opts).unwrap();
        let (mut qdd, mut lambda) = ([0.0; 3], [0.0; 2]);
        // Model evaluation + assembly + solve: what one f-evaluation of (1.5) costs.
        group.bench_function(format!("accelerations/{name}"), |b| {
            b.iter(|| {
                dynamics
                    .accelerations(
                        &mech,
                        0.0,
                        black_box(&q),
                        black_box(&qd),
                        &mut qdd,
                        &mut lambda,
                    )
                    .unwrap();
                black_box(qdd[0])
            })
        });
        // The linear algebra alone on the assembled M, J.
        let mut m = faer::Mat::<f64>::zeros(3, 3);
        let mut j = faer::Mat::<f64>::zeros(2, 3);
        mech.mass_matrix(&q, m.as_mut());
        mech.constraint_jacobian(0.0, &q, j.as_mut());
        let (f, cc) = ([0.3, -0.2, 0.1], [0.05, -0.02]);
        let mut solver = KktSolver::new(3, 2, method);
        group.bench_function(format!("solve/{name}"), |b| {
            b.iter(|| {
                solver
                    .solve(
                        m.as_ref(),
                        j.as_ref(),
                        black_box(&f),
                        black_box(&cc),
                        &mut qdd,
                        &mut lambda,
                    )
                    .unwrap();
                black_box(lambda[0])
            })
        });
    }
    group.finish();
}

criterion_group!(benches, keerthi_kkt);
criterion_main!(benches);
