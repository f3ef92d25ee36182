//! Cost of one constrained-acceleration evaluation (one N_f of a constraint method) next to the
//! cost of the model's own `M + h`, on the three small systems that dominate the tables and the
//! whole-run costs:
//!
//! * `keerthi` — Keerthi's 3-link robot under the control law (4.5) (N = 3, L = 2);
//! * `andrews` — Andrews' squeezer at the test set's initial angles, moving (ρ ≠ 0) (N = 7, L = 6);
//! * `arm7` — Kövecses' 7-joint arm with its tip held (N = 7, L = 3).
//!
//! Per system one criterion group `constrained_<system>` with the ids `m_plus_h` (the model's
//! mass matrix and bias forces), `model_all` (M, h, u, J, ρ: every model call of one
//! evaluation), `accelerations/range_space`, `accelerations/full_lu`
//! ([`ConstrainedDynamics::accelerations`]), `projector` (Kövecses (29)–(31),
//! [`ProjectionDynamics::accelerations`]) and `solve/range_space` (the KKT solve alone on the
//! assembled matrices). After the groups a summary table prints µs per call and the ratio to
//! `M + h` (the fastest of 41 batches of `std::time::Instant`, so the ratios come from one sitting
//! and survive a shared machine). Every call is at a new state
//! ([`contour_benches::next_state`]), as in a run.
//! `cargo bench -p contour-benches --bench kkt`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use std::hint::black_box;

use contour::linalg::{KktMethod, KktSolver, DEFAULT_RANK_RTOL};
use contour::model::models::{
    AndrewsSqueezer, KeerthiControlLaw, KeerthiRobot, ANDREWS_Q0, KEERTHI_IC1,
};
use contour::model::{ConstrainedDynamics, DynamicsOptions, Mechanism, WithController};
use contour::projection::ProjectionDynamics;
use contour_papers::kovecses::arm_system;
use criterion::{criterion_group, criterion_main, Criterion};
use faer::Mat;

/// One system's state and workspaces.
struct Case<'a> {
    name: &'static str,
    mech: &'a dyn Mechanism,
    q: Vec<f64>,
    qd: Vec<f64>,
}

/// The operations timed per system, each a closure over its own workspace.
struct Ops<'a> {
    mech: &'a dyn Mechanism,
    q: Vec<f64>,
    qd: Vec<f64>,
    m: Mat<f64>,
    j: Mat<f64>,
    h: Vec<f64>,
    u: Vec<f64>,
    rho: Vec<f64>,
    qdd: Vec<f64>,
    lambda: Vec<f64>,
    rs: ConstrainedDynamics,
    lu: ConstrainedDynamics,
    pd: ProjectionDynamics,
    solver: KktSolver,
    f: Vec<f64>,
    c: Vec<f64>,
}

impl<'a> Ops<'a> {
    fn new(case: &Case<'a>) -> Self {
        let mech = case.mech;
        let (n, l) = (mech.dof(), mech.n_constraints());
        let mut m = Mat::zeros(n, n);
        let mut j = Mat::zeros(l, n);
        mech.mass_matrix(&case.q, m.as_mut());
        mech.constraint_jacobian(0.0, &case.q, j.as_mut());
        Self {
            mech,
            q: case.q.clone(),
            qd: case.qd.clone(),
            m,
            j,
            h: vec![0.0; n],
            u: vec![0.0; n],
            rho: vec![0.0; l],
            qdd: vec![0.0; n],
            lambda: vec![0.0; l],
            rs: ConstrainedDynamics::new(&mech),
            lu: ConstrainedDynamics::with_options(
                &mech,
                DynamicsOptions {
                    method: KktMethod::FullLu,
                    ..DynamicsOptions::default()
                },
            )
            .expect("options"),
            pd: ProjectionDynamics::new(&mech, DEFAULT_RANK_RTOL).expect("projector"),
            solver: KktSolver::new(n, l, KktMethod::RangeSpace),
            f: (0..n).map(|i| 0.3 - 0.1 * i as f64).collect(),
            c: (0..l).map(|i| 0.05 - 0.02 * i as f64).collect(),
        }
    }

    fn m_plus_h(&mut self) -> f64 {
        contour_benches::next_state(&mut self.q);
        self.mech.mass_matrix(black_box(&self.q), self.m.as_mut());
        self.mech
            .bias_forces(black_box(&self.q), black_box(&self.qd), &mut self.h);
        self.m[(0, 0)] + self.h[0]
    }

    fn model_all(&mut self) -> f64 {
        contour_benches::next_state(&mut self.q);
        let (q, qd) = (black_box(&self.q[..]), black_box(&self.qd[..]));
        self.mech.mass_matrix(q, self.m.as_mut());
        self.mech.bias_forces(q, qd, &mut self.h);
        self.mech.applied_forces(0.0, q, qd, &mut self.u);
        self.mech.constraint_jacobian(0.0, q, self.j.as_mut());
        self.mech.constraint_accel_bias(0.0, q, qd, &mut self.rho);
        self.m[(0, 0)] + self.h[0] + self.u[0] + self.j[(0, 0)] + self.rho[0]
    }

    fn range_space(&mut self) -> f64 {
        contour_benches::next_state(&mut self.q);
        self.rs
            .accelerations(
                &self.mech,
                0.0,
                black_box(&self.q),
                black_box(&self.qd),
                &mut self.qdd,
                &mut self.lambda,
            )
            .expect("accelerations");
        self.qdd[0]
    }

    fn full_lu(&mut self) -> f64 {
        contour_benches::next_state(&mut self.q);
        self.lu
            .accelerations(
                &self.mech,
                0.0,
                black_box(&self.q),
                black_box(&self.qd),
                &mut self.qdd,
                &mut self.lambda,
            )
            .expect("accelerations");
        self.qdd[0]
    }

    fn projector(&mut self) -> f64 {
        contour_benches::next_state(&mut self.q);
        self.pd
            .accelerations(
                &self.mech,
                0.0,
                black_box(&self.q),
                black_box(&self.qd),
                &mut self.qdd,
                &mut self.lambda,
            )
            .expect("projector");
        self.qdd[0]
    }

    fn solve(&mut self) -> f64 {
        contour_benches::next_state(&mut self.q);
        self.solver
            .solve(
                self.m.as_ref(),
                self.j.as_ref(),
                black_box(&self.f),
                black_box(&self.c),
                &mut self.qdd,
                &mut self.lambda,
            )
            .expect("solve");
        self.lambda[0]
    }
}

type Op<'a> = (&'static str, fn(&mut Ops<'a>) -> f64);

fn ops<'a>() -> [Op<'a>; 6] {
    [
        ("m_plus_h", Ops::m_plus_h),
        ("model_all", Ops::model_all),
        ("accelerations/range_space", Ops::range_space),
        ("accelerations/full_lu", Ops::full_lu),
        ("projector", Ops::projector),
        ("solve/range_space", Ops::solve),
    ]
}

fn with_cases(mut body: impl FnMut(&Case<'_>)) {
    let keerthi = WithController::new(KeerthiRobot::default(), KeerthiControlLaw::default());
    let andrews = AndrewsSqueezer::default();
    let arm = arm_system();
    // the arm from a small motion made consistent (J q̇ = 0), as a run's state
    let arm_ic = contour_benches::arm7_state(&arm).expect("consistent arm state");
    let cases = [
        Case {
            name: "keerthi",
            mech: &keerthi,
            q: KEERTHI_IC1.q.to_vec(),
            qd: KEERTHI_IC1.qd.to_vec(),
        },
        Case {
            name: "andrews",
            mech: &andrews,
            q: ANDREWS_Q0.to_vec(),
            // test-set initial velocities are zero; use a small motion (ρ ≠ 0)
            qd: vec![1.0, -0.5, 0.2, 0.1, -0.3, 0.2, 0.1],
        },
        Case {
            name: "arm7",
            mech: &arm,
            q: arm_ic.q.clone(),
            qd: arm_ic.qd.clone(),
        },
    ];
    for case in &cases {
        body(case);
    }
}

fn constrained(c: &mut Criterion) {
    with_cases(|case| {
        let mut o = Ops::new(case);
        let mut group = c.benchmark_group(format!("constrained_{}", case.name));
        for (id, op) in ops() {
            group.bench_function(id, |b| b.iter(|| black_box(op(&mut o))));
        }
        group.finish();
    });
    // `KKT_NO_SUMMARY=1` skips the table (for profiling one benchmark)
    if std::env::var_os("KKT_NO_SUMMARY").is_none() {
        summary();
    }
}

fn time_us<'a>(o: &mut Ops<'a>, op: fn(&mut Ops<'a>) -> f64) -> f64 {
    contour_benches::min_time_us(|| op(o))
}

fn summary() {
    println!("\nµs per call (minimum of 41 batches) and ratio to the model's M + h");
    println!(
        "| system | {} |",
        ops()
            .iter()
            .map(|(id, _)| *id)
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|---|{}", "---|".repeat(ops().len()));
    with_cases(|case| {
        let mut o = Ops::new(case);
        let times: Vec<f64> = ops().iter().map(|(_, op)| time_us(&mut o, *op)).collect();
        let base = times[0];
        let cells: Vec<String> = times
            .iter()
            .map(|t| format!("{t:.3} ({:.1}×)", t / base))
            .collect();
        println!("| {} | {} |", case.name, cells.join(" | "));
    });
}

criterion_group!(benches, constrained);
criterion_main!(benches);
