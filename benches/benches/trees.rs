//! Kinematic-tree dynamics: CRBA (mass matrix) and RNEA (bias forces) for spatial_v2's
//! planar(n), n = 2, 7, 20, 50, and for the 7-joint SSRMS-like arm, through the `Mechanism`
//! calls a constraint method makes per f-evaluation (no allocation per call; see
//! crates/model/tests). `cargo bench -p contour-benches --bench trees`.

use std::hint::black_box;

use contour::model::models::{arm7_initial_q, ssrms_arm};
use contour::model::tree::KinematicTree;
use contour::model::Mechanism;
use criterion::{criterion_group, criterion_main, Criterion};

fn bench_tree(c: &mut Criterion, group_name: &str, tree: &KinematicTree, q: &[f64]) {
    let n = tree.dof();
    let qd: Vec<f64> = (0..n).map(|i| 0.1 * (i as f64 + 1.0).sin()).collect();
    let mut m = faer::Mat::<f64>::zeros(n, n);
    let mut h = vec![0.0; n];
    let mut group = c.benchmark_group(group_name);
    group.bench_function(format!("crba_{n}"), |b| {
        b.iter(|| {
            tree.mass_matrix(black_box(q), m.as_mut());
            black_box(m[(0, 0)])
        })
    });
    group.bench_function(format!("rnea_{n}"), |b| {
        b.iter(|| {
            tree.bias_forces(black_box(q), black_box(&qd), &mut h);
            black_box(h[0])
        })
    });
    group.finish();
}

fn trees(c: &mut Criterion) {
    for n in [2usize, 7, 20, 50] {
        let tree = KinematicTree::planar(n);
        let q: Vec<f64> = (0..n).map(|i| 0.3 * (i as f64 + 0.5).cos()).collect();
        bench_tree(c, &format!("planar_{n}"), &tree, &q);
    }
    bench_tree(c, "arm7", &ssrms_arm(), &arm7_initial_q());
}

criterion_group!(benches, trees);
criterion_main!(benches);
