//! Kinematic-tree dynamics: CRBA (mass matrix), RNEA (bias forces), ABA (forward dynamics,
//! RBDA Table 7.1) and CRBA + RNEA + Cholesky (forward dynamics through `M`) for spatial_v2's
//! planar(n), n = 2, 7, 20, 50, 100, and for the shipped 7-joint arm and Panda, through the
//! calls a constraint method makes per f-evaluation (no allocation per call; see
//! crates/model/tests). After the criterion groups a summary table prints µs per call (fastest
//! of 41 batches) next to Pinocchio's, from `benches/peers/results/pinocchio_timing.csv` when
//! that file is present. Every call is at a new state ([`contour_benches::next_state`]), as in a
//! run. `cargo bench -p contour-benches --bench trees`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use std::hint::black_box;

use contour::linalg::Cholesky;
use contour::model::models::{arm7_initial_q, panda_arm, ssrms_arm};
use contour::model::tree::KinematicTree;
use contour::model::Mechanism;
use contour_benches::{min_time_us, next_state};
use criterion::{criterion_group, criterion_main, Criterion};

struct Ws {
    q: Vec<f64>,
    qd: Vec<f64>,
    tau: Vec<f64>,
    m: faer::Mat<f64>,
    h: Vec<f64>,
    qdd: Vec<f64>,
    chol: Cholesky,
}

impl Ws {
    fn new(tree: &KinematicTree, q: &[f64]) -> Self {
        let n = tree.dof();
        Self {
            q: q.to_vec(),
            qd: (0..n).map(|i| 0.1 * (i as f64 + 1.0).sin()).collect(),
            tau: (0..n).map(|i| 0.5 * (i as f64 + 0.3).cos()).collect(),
            m: faer::Mat::zeros(n, n),
            h: vec![0.0; n],
            qdd: vec![0.0; n],
            chol: Cholesky::new(n),
        }
    }
    fn crba(&mut self, t: &KinematicTree) -> f64 {
        next_state(&mut self.q);
        t.mass_matrix(black_box(&self.q), self.m.as_mut());
        self.m[(0, 0)]
    }
    fn rnea(&mut self, t: &KinematicTree) -> f64 {
        next_state(&mut self.q);
        t.bias_forces(black_box(&self.q), black_box(&self.qd), &mut self.h);
        self.h[0]
    }
    fn aba(&mut self, t: &KinematicTree) -> f64 {
        next_state(&mut self.q);
        t.forward_dynamics(black_box(&self.q), &self.qd, &self.tau, &mut self.qdd)
            .expect("aba");
        self.qdd[0]
    }
    fn crba_cholesky(&mut self, t: &KinematicTree) -> f64 {
        next_state(&mut self.q);
        t.mass_matrix(black_box(&self.q), self.m.as_mut());
        t.bias_forces(&self.q, &self.qd, &mut self.h);
        self.chol.factor(self.m.as_ref()).expect("spd");
        for (x, (u, h)) in self.qdd.iter_mut().zip(self.tau.iter().zip(&self.h)) {
            *x = u - h;
        }
        self.chol.solve_in_place(&mut self.qdd);
        self.qdd[0]
    }
}

type Op = (&'static str, fn(&mut Ws, &KinematicTree) -> f64);
const OPS: [Op; 4] = [
    ("crba", Ws::crba),
    ("rnea", Ws::rnea),
    ("aba", Ws::aba),
    ("crba_rnea_cholesky", Ws::crba_cholesky),
];

fn cases() -> Vec<(String, KinematicTree, Vec<f64>)> {
    let mut out = Vec::new();
    for n in [2usize, 7, 20, 50, 100] {
        let q: Vec<f64> = (0..n).map(|i| 0.3 * (i as f64 + 0.5).cos()).collect();
        out.push((format!("planar_{n}"), KinematicTree::planar(n), q));
    }
    out.push(("arm7".into(), ssrms_arm(), arm7_initial_q().to_vec()));
    out.push(("panda".into(), panda_arm(), vec![0.3; 7]));
    out
}

fn trees(c: &mut Criterion) {
    for (name, tree, q) in cases() {
        let n = tree.dof();
        let mut ws = Ws::new(&tree, &q);
        let mut group = c.benchmark_group(&name);
        for (id, op) in OPS {
            group.bench_function(format!("{id}_{n}"), |b| b.iter(|| op(&mut ws, &tree)));
        }
        group.finish();
    }
    if std::env::var_os("TREES_NO_SUMMARY").is_none() {
        summary();
    }
}

fn summary() {
    let peer = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/peers/results/pinocchio_timing.csv"
    ))
    .unwrap_or_default();
    // robot,nv,crba_us,crba_newq_us,rnea_us,aba_us,... — columns found by name; our CRBA is
    // timed at a new q per call, so it is compared with Pinocchio's `crba_newq_us`.
    let header: Vec<&str> = peer
        .lines()
        .find(|l| l.starts_with("robot,"))
        .map(|l| l.split(',').collect())
        .unwrap_or_default();
    let pin = |robot: &str, column: &str| -> Option<f64> {
        let col = header.iter().position(|h| *h == column)?;
        peer.lines()
            .find(|l| l.starts_with(&format!("{robot},")))
            .and_then(|l| l.split(',').nth(col))
            .and_then(|v| v.parse().ok())
    };
    const PEER_COLUMNS: [&str; 3] = ["crba_newq_us", "rnea_us", "aba_us"];
    println!("\nµs per call (fastest of 41 batches); in brackets: ratio to Pinocchio 4.1 (C++)");
    println!("| tree | crba | rnea | aba | crba + rnea + cholesky |");
    println!("|---|---|---|---|---|");
    for (name, tree, q) in cases() {
        let mut ws = Ws::new(&tree, &q);
        let cells: Vec<String> = OPS
            .iter()
            .enumerate()
            .map(|(k, (_, op))| {
                let t = min_time_us(|| op(&mut ws, &tree));
                match PEER_COLUMNS.get(k).and_then(|c| pin(&name, c)) {
                    Some(p) => format!("{t:.3} ({:.2}×)", t / p),
                    None => format!("{t:.3}"),
                }
            })
            .collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
}

criterion_group!(benches, trees);
criterion_main!(benches);
