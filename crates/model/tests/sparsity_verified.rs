//! A declared sparsity pattern is checked against the dense matrices
//! (`SparsityPattern::verify`): a pattern that omits a real entry of `J` or `M`, or sparse
//! values that differ from the dense ones, is a typed error naming the entry. Without the
//! check such a model runs the sparse path of the perturbation method for tens of seconds and
//! ends with "too many steps".

use contour_model::models::NFourBar;
use contour_model::{Mechanism, ModelError, SparsityPattern};
use faer::MatMut;

/// A02 whose declared pattern leaves out one entry of `J` (`drop_j`) or of `M` (`drop_m`),
/// or whose sparse `J` values are scaled at one entry (`scale_j`).
struct Omitting {
    inner: NFourBar,
    drop_j: Option<usize>,
    drop_m: Option<usize>,
    scale_j: Option<usize>,
}

impl Omitting {
    fn new(inner: NFourBar) -> Self {
        Self {
            inner,
            drop_j: None,
            drop_m: None,
            scale_j: None,
        }
    }
}

fn without<T: Copy>(v: &[T], k: Option<usize>) -> Vec<T> {
    v.iter()
        .enumerate()
        .filter(|&(i, _)| Some(i) != k)
        .map(|(_, x)| *x)
        .collect()
}

impl Mechanism for Omitting {
    fn name(&self) -> &str {
        "omitting"
    }
    fn dof(&self) -> usize {
        self.inner.dof()
    }
    fn n_constraints(&self) -> usize {
        self.inner.n_constraints()
    }
    fn mass_matrix(&self, q: &[f64], m: MatMut<'_, f64>) {
        self.inner.mass_matrix(q, m)
    }
    fn bias_forces(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
        self.inner.bias_forces(q, qd, h)
    }
    fn constraints(&self, t: f64, q: &[f64], phi: &mut [f64]) {
        self.inner.constraints(t, q, phi)
    }
    fn constraint_jacobian(&self, t: f64, q: &[f64], j: MatMut<'_, f64>) {
        self.inner.constraint_jacobian(t, q, j)
    }
    fn constraint_accel_bias(&self, t: f64, q: &[f64], qd: &[f64], rho: &mut [f64]) {
        self.inner.constraint_accel_bias(t, q, qd, rho)
    }
    fn sparsity(&self) -> Option<SparsityPattern> {
        let p = self.inner.sparsity()?;
        Some(SparsityPattern {
            mass: without(&p.mass, self.drop_m),
            jacobian: without(&p.jacobian, self.drop_j),
        })
    }
    fn mass_matrix_values(&self, q: &[f64], values: &mut [f64]) {
        let mut all = vec![0.0; self.inner.sparsity().unwrap().mass.len()];
        self.inner.mass_matrix_values(q, &mut all);
        values.copy_from_slice(&without(&all, self.drop_m));
    }
    fn constraint_jacobian_values(&self, t: f64, q: &[f64], values: &mut [f64]) {
        let mut all = vec![0.0; self.inner.sparsity().unwrap().jacobian.len()];
        self.inner.constraint_jacobian_values(t, q, &mut all);
        if let Some(k) = self.scale_j {
            all[k] *= 1.5;
        }
        values.copy_from_slice(&without(&all, self.drop_j));
    }
}

#[test]
fn the_declared_pattern_of_every_a02_size_holds() {
    for loops in [1usize, 4, 100] {
        let p = NFourBar::new(loops);
        let (q, _) = p.state(std::f64::consts::FRAC_PI_2, -1.0);
        p.sparsity().unwrap().verify(&p, 0.0, &q).unwrap();
    }
}

#[test]
fn an_omitted_jacobian_entry_is_named() {
    let a02 = NFourBar::new(4);
    let (q, _) = a02.state(std::f64::consts::FRAC_PI_2, -1.0);
    let full = a02.sparsity().unwrap();
    // every entry of J, left out in turn, is found (the x entries vanish at θ = π/2 and are
    // seen at the perturbed probes)
    for k in 0..full.jacobian.len() {
        let m = Omitting {
            drop_j: Some(k),
            ..Omitting::new(a02)
        };
        let (row, col) = full.jacobian[k];
        match m.sparsity().unwrap().verify(&m, 0.0, &q) {
            Err(ModelError::UndeclaredSparsity {
                matrix: "jacobian",
                row: r,
                col: c,
                value,
            }) => assert!((r, c) == (row, col) && value != 0.0, "{k}: ({r}, {c})"),
            other => panic!("{k}: {other:?}"),
        }
    }
}

#[test]
fn an_omitted_mass_entry_and_a_wrong_value_are_named() {
    let a02 = NFourBar::new(2);
    let (q, _) = a02.state(0.7, -1.0);
    let full = a02.sparsity().unwrap();
    let m = Omitting {
        drop_m: Some(3),
        ..Omitting::new(a02)
    };
    let (row, col) = full.mass[3];
    assert!(matches!(
        m.sparsity().unwrap().verify(&m, 0.0, &q),
        Err(ModelError::UndeclaredSparsity { matrix: "mass matrix", row: r, col: c, .. })
            if (r, c) == (row.min(col), row.max(col))
    ));
    let m = Omitting {
        scale_j: Some(5),
        ..Omitting::new(a02)
    };
    let (row, col) = full.jacobian[5];
    assert!(matches!(
        m.sparsity().unwrap().verify(&m, 0.0, &q),
        Err(ModelError::SparseValuesMismatch { matrix: "jacobian", row: r, col: c, .. })
            if (r, c) == (row, col)
    ));
}

/// The cost of the check, once per run, for A02 at N = 100 (202 coordinates, 201 rows):
/// `cargo test -p contour-model --release --test sparsity_verified -- --ignored --nocapture`.
#[test]
#[ignore = "measurement"]
fn cost_of_the_check_at_n_100() {
    let p = NFourBar::new(100);
    let (q, _) = p.state(std::f64::consts::FRAC_PI_2, -1.0);
    let pattern = p.sparsity().unwrap();
    let reps = 200;
    let start = std::time::Instant::now();
    for _ in 0..reps {
        pattern.verify(&p, 0.0, &q).unwrap();
    }
    let per = start.elapsed().as_secs_f64() / reps as f64;
    println!(
        "SparsityPattern::verify, A02 N = 100: {:.1} us per run",
        per * 1e6
    );
}
