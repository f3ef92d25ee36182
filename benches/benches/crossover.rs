//! The crossover of contour-linalg's small-matrix kernels and faer's (`Kernel`, `SMALL_MAX`):
//! Cholesky factor + solve of an `n × n` SPD matrix, and the range-space KKT solve with
//! `m = n / 2` constraints, each with `Kernel::Small` and `Kernel::Faer`. One criterion group
//! per operation, ids `<kernel>_<n>`; a summary table (fastest of 41 batches) follows.
//! `cargo bench -p contour-benches --bench crossover`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use std::hint::black_box;

use contour::linalg::testing::{rand_mat, spd, Rng};
use contour::linalg::{Cholesky, Kernel, KktMethod, KktSolver};
use contour_benches::min_time_us;
use criterion::{criterion_group, criterion_main, Criterion};

const SIZES: [usize; 9] = [2, 4, 8, 16, 24, 32, 48, 64, 96];

fn chol_op(n: usize, kernel: Kernel) -> impl FnMut() -> f64 {
    let mut rng = Rng::new(n as u64);
    let m = spd(&mut rng, n);
    let mut ch = Cholesky::with_kernel(n, kernel);
    let mut x = vec![1.0; n];
    move || {
        ch.factor(black_box(m.as_ref())).expect("spd");
        ch.solve_in_place(&mut x);
        x[0]
    }
}

fn kkt_op(n: usize, kernel: Kernel) -> impl FnMut() -> f64 {
    let l = (n / 2).max(1);
    let mut rng = Rng::new(n as u64 + 1);
    let (m, j) = (spd(&mut rng, n), rand_mat(&mut rng, l, n));
    let (f, c) = (vec![0.3; n], vec![0.1; l]);
    let (mut qdd, mut lam) = (vec![0.0; n], vec![0.0; l]);
    let mut s = KktSolver::with_kernel(n, l, KktMethod::RangeSpace, kernel);
    move || {
        s.solve(
            black_box(m.as_ref()),
            j.as_ref(),
            &f,
            &c,
            &mut qdd,
            &mut lam,
        )
        .expect("kkt");
        qdd[0]
    }
}

fn crossover(c: &mut Criterion) {
    for (name, small) in [("cholesky", true), ("kkt_range_space", false)] {
        let mut group = c.benchmark_group(name);
        for n in SIZES {
            for (kname, kernel) in [("small", Kernel::Small), ("faer", Kernel::Faer)] {
                let mut op: Box<dyn FnMut() -> f64> = if small {
                    Box::new(chol_op(n, kernel))
                } else {
                    Box::new(kkt_op(n, kernel))
                };
                group.bench_function(format!("{kname}_{n}"), |b| b.iter(&mut op));
            }
        }
        group.finish();
    }
    if std::env::var_os("CROSSOVER_NO_SUMMARY").is_none() {
        println!("\nµs per call (fastest of 41 batches): small kernels / faer");
        println!("| n | cholesky small | cholesky faer | kkt (m = n/2) small | kkt faer |");
        println!("|---|---|---|---|---|");
        for n in SIZES {
            let t = [
                min_time_us(chol_op(n, Kernel::Small)),
                min_time_us(chol_op(n, Kernel::Faer)),
                min_time_us(kkt_op(n, Kernel::Small)),
                min_time_us(kkt_op(n, Kernel::Faer)),
            ];
            println!(
                "| {n} | {:.3} | {:.3} | {:.3} | {:.3} |",
                t[0], t[1], t[2], t[3]
            );
        }
    }
}

criterion_group!(benches, crossover);
criterion_main!(benches);
