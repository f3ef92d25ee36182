//! Finite-difference checks of a [`Mechanism`] (also reachable as
//! `contour_model::fd`), for this crate's tests and for later crates' models.
//!
//! Every check evaluates the model on a few perturbed points (it allocates;
//! it is test code) and returns a **normwise relative error**
//! `max_ij |A_ij − B_ij| / max(max|A|, max|B|)` (0 when both are exactly
//! zero). Central differences with step `h = ε^{1/3}·max(1, |x|)` give errors
//! of order `1e-10` for smooth models, so `≤ 1e-6` is a safe threshold.
//!
//! * [`check_jacobian`]: `J` against `∂φ/∂q`;
//! * [`check_rate_bias`]: `b` against `∂φ/∂t`;
//! * [`check_accel_bias`]: `ρ` against `d/ds [J(t+s, q+sq̇) q̇ + b(t+s, q+sq̇)]` at `s = 0`;
//! * [`check_mass_matrix`]: symmetry and positive definiteness of `M`;
//! * [`check_energy_balance`]: `h` consistent with `T` and `V` (free motion conserves `T + V`);
//! * [`fused_jacobian_and_bias_matches`]: the fused `J` and `ρ` call
//!   ([`Mechanism::constraint_jacobian_and_accel_bias`]) gives exactly the separate ones;
//! * [`fused_constraint_terms_match`]: the same for `φ`, `J` and `b`
//!   ([`Mechanism::constraints_jacobian_and_rate_bias`]).

use crate::validate::{check_position, check_state};
use crate::{Mechanism, ModelError};
use contour_linalg::Cholesky;
use faer::{Mat, Side};

/// `ε^{1/3}`, the optimal relative step of a central difference.
const CBRT_EPS: f64 = 6.055454452393343e-6;

/// Normwise relative difference `max|aᵢ − bᵢ| / max(|aᵢ|, |bᵢ|)` (0 when equal): the measure of
/// every check here, for comparing two models' outputs in tests.
pub fn relative_difference(a: &[f64], b: &[f64]) -> f64 {
    let num = a
        .iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
    if num == 0.0 {
        return 0.0;
    }
    let den = a.iter().chain(b).fold(0.0f64, |m, x| m.max(x.abs()));
    num / den.max(f64::MIN_POSITIVE)
}

fn jacobian_vec<M: Mechanism + ?Sized>(mech: &M, t: f64, q: &[f64]) -> Vec<f64> {
    let (l, n) = (mech.n_constraints(), mech.dof());
    let mut j = Mat::<f64>::zeros(l, n);
    mech.constraint_jacobian(t, q, j.as_mut());
    (0..n)
        .flat_map(|c| (0..l).map(move |r| (r, c)))
        .map(|(r, c)| j[(r, c)])
        .collect()
}

/// Whether [`Mechanism::constraint_jacobian_and_accel_bias`] returns bit for bit the `J` of
/// [`Mechanism::constraint_jacobian`] and the `ρ` of [`Mechanism::constraint_accel_bias`] at
/// `(t, q, q̇)` (an override may share work, never change a value).
pub fn fused_jacobian_and_bias_matches<M: Mechanism + ?Sized>(
    mech: &M,
    t: f64,
    q: &[f64],
    qd: &[f64],
) -> bool {
    let (l, n) = (mech.n_constraints(), mech.dof());
    let j = jacobian_vec(mech, t, q);
    let mut rho = vec![0.0; l];
    mech.constraint_accel_bias(t, q, qd, &mut rho);
    // start from values the fused call must overwrite
    let mut jf = Mat::<f64>::from_fn(l, n, |_, _| f64::NAN);
    let mut rhof = vec![f64::NAN; l];
    mech.constraint_jacobian_and_accel_bias(t, q, qd, jf.as_mut(), &mut rhof);
    let same = |a: f64, b: f64| a.to_bits() == b.to_bits();
    (0..n).all(|c| (0..l).all(|r| same(jf[(r, c)], j[r + c * l])))
        && rho.iter().zip(&rhof).all(|(a, b)| same(*a, *b))
}

/// Whether [`Mechanism::constraints_jacobian_and_rate_bias`] returns bit for bit the `φ`, `J`
/// and `b` of [`Mechanism::constraints`], [`Mechanism::constraint_jacobian`] and
/// [`Mechanism::constraint_rate_bias`] at `(t, q)`.
pub fn fused_constraint_terms_match<M: Mechanism + ?Sized>(mech: &M, t: f64, q: &[f64]) -> bool {
    let (l, n) = (mech.n_constraints(), mech.dof());
    let j = jacobian_vec(mech, t, q);
    let (mut phi, mut b) = (vec![0.0; l], vec![0.0; l]);
    mech.constraints(t, q, &mut phi);
    mech.constraint_rate_bias(t, q, &mut b);
    // start from values the fused call must overwrite
    let mut jf = Mat::<f64>::from_fn(l, n, |_, _| f64::NAN);
    let (mut phif, mut bf) = (vec![f64::NAN; l], vec![f64::NAN; l]);
    mech.constraints_jacobian_and_rate_bias(t, q, &mut phif, jf.as_mut(), &mut bf);
    let same = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits());
    (0..n).all(|c| (0..l).all(|r| jf[(r, c)].to_bits() == j[r + c * l].to_bits()))
        && same(&phi, &phif)
        && same(&b, &bf)
}

/// Normwise relative error of `J(t, q)` against central differences of `φ` in `q`.
pub fn check_jacobian<M: Mechanism + ?Sized>(
    mech: &M,
    t: f64,
    q: &[f64],
) -> Result<f64, ModelError> {
    check_position(mech, q)?;
    let (l, n) = (mech.n_constraints(), mech.dof());
    let analytic = jacobian_vec(mech, t, q);
    let mut fd = vec![0.0; l * n];
    let (mut qp, mut qm) = (q.to_vec(), q.to_vec());
    let (mut fp, mut fm) = (vec![0.0; l], vec![0.0; l]);
    for c in 0..n {
        let h = CBRT_EPS * q[c].abs().max(1.0);
        qp[c] = q[c] + h;
        qm[c] = q[c] - h;
        mech.constraints(t, &qp, &mut fp);
        mech.constraints(t, &qm, &mut fm);
        for r in 0..l {
            fd[r + c * l] = (fp[r] - fm[r]) / (qp[c] - qm[c]);
        }
        qp[c] = q[c];
        qm[c] = q[c];
    }
    Ok(relative_difference(&analytic, &fd))
}

/// Normwise relative error of `b(t, q)` against central differences of `φ` in `t`.
pub fn check_rate_bias<M: Mechanism + ?Sized>(
    mech: &M,
    t: f64,
    q: &[f64],
) -> Result<f64, ModelError> {
    check_position(mech, q)?;
    let l = mech.n_constraints();
    let mut b = vec![0.0; l];
    mech.constraint_rate_bias(t, q, &mut b);
    let h = CBRT_EPS * t.abs().max(1.0);
    let (mut fp, mut fm) = (vec![0.0; l], vec![0.0; l]);
    mech.constraints(t + h, q, &mut fp);
    mech.constraints(t - h, q, &mut fm);
    let fd: Vec<f64> = fp
        .iter()
        .zip(&fm)
        .map(|(p, m)| (p - m) / ((t + h) - (t - h)))
        .collect();
    Ok(relative_difference(&b, &fd))
}

/// `φ̇(s) = J(t+s, q+s q̇) q̇ + b(t+s, q+s q̇)` along the straight motion.
fn phidot_along<M: Mechanism + ?Sized>(
    mech: &M,
    t: f64,
    q: &[f64],
    qd: &[f64],
    s: f64,
) -> Vec<f64> {
    let (l, n) = (mech.n_constraints(), mech.dof());
    let qs: Vec<f64> = q.iter().zip(qd).map(|(x, v)| x + s * v).collect();
    let mut j = Mat::<f64>::zeros(l, n);
    mech.constraint_jacobian(t + s, &qs, j.as_mut());
    let mut out = vec![0.0; l];
    mech.constraint_rate_bias(t + s, &qs, &mut out);
    for r in 0..l {
        for c in 0..n {
            out[r] += j[(r, c)] * qd[c];
        }
    }
    out
}

/// Normwise relative error of `ρ(t, q, q̇)` against the central difference of
/// `J(t+s, q+s q̇) q̇ + b(t+s, q+s q̇)` at `s = 0` (the definition
/// `φ̈ = J q̈ + ρ` with `q̈ = 0`).
pub fn check_accel_bias<M: Mechanism + ?Sized>(
    mech: &M,
    t: f64,
    q: &[f64],
    qd: &[f64],
) -> Result<f64, ModelError> {
    check_state(mech, q, qd)?;
    let l = mech.n_constraints();
    let mut rho = vec![0.0; l];
    mech.constraint_accel_bias(t, q, qd, &mut rho);
    let vmax = qd.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let qmax = q.iter().fold(1.0f64, |m, v| m.max(v.abs())).max(t.abs());
    let s = CBRT_EPS * qmax / vmax.max(1.0);
    let fp = phidot_along(mech, t, q, qd, s);
    let fm = phidot_along(mech, t, q, qd, -s);
    let fd: Vec<f64> = fp
        .iter()
        .zip(&fm)
        .map(|(p, m)| (p - m) / (2.0 * s))
        .collect();
    Ok(relative_difference(&rho, &fd))
}

/// Symmetry and definiteness of `M(q)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MassMatrixReport {
    /// `max |M − Mᵀ| / max |M|`.
    pub asymmetry: f64,
    /// Smallest eigenvalue of the symmetric part.
    pub min_eigenvalue: f64,
    /// Largest eigenvalue of the symmetric part.
    pub max_eigenvalue: f64,
}

/// Evaluates `M(q)`; [`ModelError::NonFinite`] for NaN entries,
/// [`ModelError::MassMatrixNotPositiveDefinite`] when a Cholesky factorization fails.
pub fn check_mass_matrix<M: Mechanism + ?Sized>(
    mech: &M,
    q: &[f64],
) -> Result<MassMatrixReport, ModelError> {
    check_position(mech, q)?;
    let n = mech.dof();
    let mut m = Mat::<f64>::zeros(n, n);
    mech.mass_matrix(q, m.as_mut());
    crate::validate::check_finite_mat("mass matrix", m.as_ref())?;
    let mut asym = 0.0f64;
    let mut mx = 0.0f64;
    for i in 0..n {
        for j in 0..n {
            asym = asym.max((m[(i, j)] - m[(j, i)]).abs());
            mx = mx.max(m[(i, j)].abs());
        }
    }
    let sym = Mat::from_fn(n, n, |i, j| 0.5 * (m[(i, j)] + m[(j, i)]));
    Cholesky::new(n)
        .factor(sym.as_ref())
        .map_err(|e| ModelError::from_solver(e, 0))?;
    let eig = sym
        .self_adjoint_eigenvalues(Side::Lower)
        .map_err(|_| ModelError::Linalg(contour_linalg::LinalgError::SvdNoConvergence))?;
    let min = eig.iter().cloned().fold(f64::INFINITY, f64::min);
    let max = eig.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    Ok(MassMatrixReport {
        asymmetry: if asym == 0.0 { 0.0 } else { asym / mx },
        min_eigenvalue: min,
        max_eigenvalue: max,
    })
}

/// Consistency of `h` with the energies: along free motion (`u = 0`, no
/// constraint forces, `q̈ = −M⁻¹h`) the total energy is conserved, so the
/// central differences `Ṫ`, `V̇` of `T(q+sq̇, q̇+sq̈)` and `V(q+sq̇)` cancel.
/// Returns `|Ṫ + V̇| / (|Ṫ| + |V̇|)` (0 when both vanish), or `None` when the
/// model provides no energy.
pub fn check_energy_balance<M: Mechanism + ?Sized>(
    mech: &M,
    q: &[f64],
    qd: &[f64],
) -> Result<Option<f64>, ModelError> {
    check_state(mech, q, qd)?;
    let n = mech.dof();
    if mech.kinetic_energy(q, qd).is_none() || mech.potential_energy(q).is_none() {
        return Ok(None);
    }
    let mut m = Mat::<f64>::zeros(n, n);
    mech.mass_matrix(q, m.as_mut());
    let mut h = vec![0.0; n];
    mech.bias_forces(q, qd, &mut h);
    let mut chol = Cholesky::new(n);
    chol.factor(m.as_ref())
        .map_err(|e| ModelError::from_solver(e, 0))?;
    let mut qdd: Vec<f64> = h.iter().map(|x| -x).collect();
    chol.solve_in_place(&mut qdd);
    let vmax = qd.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    let s = CBRT_EPS / vmax.max(1.0);
    let at = |s: f64| {
        let qs: Vec<f64> = (0..n).map(|i| q[i] + s * qd[i]).collect();
        let vs: Vec<f64> = (0..n).map(|i| qd[i] + s * qdd[i]).collect();
        (
            mech.kinetic_energy(&qs, &vs).unwrap_or(0.0),
            mech.potential_energy(&qs).unwrap_or(0.0),
        )
    };
    let (tp, vp) = at(s);
    let (tm, vm) = at(-s);
    let dt = (tp - tm) / (2.0 * s);
    let dv = (vp - vm) / (2.0 * s);
    let den = dt.abs() + dv.abs();
    Ok(Some(if den == 0.0 {
        0.0
    } else {
        (dt + dv).abs() / den
    }))
}

pub use crate::rng::SplitMix64;

#[cfg(test)]
mod tests {
    use super::*;
    use faer::MatMut;

    /// Point mass on a circle whose centre moves: c(t) = (A sin ωt, 0).
    /// φ = (x − c)² + y² − ℓ², b = −2(x − c) ċ, ρ = 2(ẋ − ċ)² + 2ẏ² − 2(x − c) c̈.
    struct MovingCircle {
        wrong_rho: bool,
    }
    const A: f64 = 0.3;
    const W: f64 = 2.0;
    impl Mechanism for MovingCircle {
        fn name(&self) -> &str {
            "moving-circle"
        }
        fn dof(&self) -> usize {
            2
        }
        fn n_constraints(&self) -> usize {
            1
        }
        fn mass_matrix(&self, _q: &[f64], mut m: MatMut<'_, f64>) {
            m.fill(0.0);
            m[(0, 0)] = 1.0;
            m[(1, 1)] = 1.0;
        }
        fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
            h[0] = 0.0;
            h[1] = 9.81;
        }
        fn constraints(&self, t: f64, q: &[f64], phi: &mut [f64]) {
            let c = A * (W * t).sin();
            phi[0] = (q[0] - c).powi(2) + q[1] * q[1] - 1.0;
        }
        fn constraint_jacobian(&self, t: f64, q: &[f64], mut j: MatMut<'_, f64>) {
            let c = A * (W * t).sin();
            j[(0, 0)] = 2.0 * (q[0] - c);
            j[(0, 1)] = 2.0 * q[1];
        }
        fn constraint_rate_bias(&self, t: f64, q: &[f64], b: &mut [f64]) {
            let c = A * (W * t).sin();
            let cd = A * W * (W * t).cos();
            b[0] = -2.0 * (q[0] - c) * cd;
        }
        fn constraint_accel_bias(&self, t: f64, q: &[f64], qd: &[f64], rho: &mut [f64]) {
            let c = A * (W * t).sin();
            let cd = A * W * (W * t).cos();
            let cdd = -A * W * W * (W * t).sin();
            let extra = if self.wrong_rho {
                0.0
            } else {
                -2.0 * (q[0] - c) * cdd
            };
            rho[0] = 2.0 * (qd[0] - cd).powi(2) + 2.0 * qd[1] * qd[1] + extra;
        }
        fn kinetic_energy(&self, _q: &[f64], qd: &[f64]) -> Option<f64> {
            Some(0.5 * (qd[0] * qd[0] + qd[1] * qd[1]))
        }
        fn potential_energy(&self, q: &[f64]) -> Option<f64> {
            Some(9.81 * q[1])
        }
    }

    #[test]
    fn checks_pass_on_a_rheonomic_model_and_catch_a_wrong_rho() {
        let good = MovingCircle { wrong_rho: false };
        let bad = MovingCircle { wrong_rho: true };
        let mut rng = SplitMix64::new(7);
        for _ in 0..20 {
            let t = rng.uniform(0.0, 3.0);
            let q = rng.vector(2, -1.5, 1.5);
            let qd = rng.vector(2, -2.0, 2.0);
            assert!(check_jacobian(&good, t, &q).unwrap() < 1e-8);
            assert!(check_rate_bias(&good, t, &q).unwrap() < 1e-8);
            assert!(check_accel_bias(&good, t, &q, &qd).unwrap() < 1e-7);
            assert!(check_energy_balance(&good, &q, &qd).unwrap().unwrap() < 1e-8);
        }
        // the missing −2(x − c) c̈ term is detected at a point where it is not small
        let e = check_accel_bias(&bad, 0.7, &[0.9, 0.2], &[0.1, -0.3]).unwrap();
        assert!(e > 1e-2, "{e}");
    }

    #[test]
    fn random_generator_is_deterministic_and_in_range() {
        let mut a = SplitMix64::new(1);
        let mut b = SplitMix64::new(1);
        for _ in 0..100 {
            let x = a.uniform(-2.0, 3.0);
            assert_eq!(x, b.uniform(-2.0, 3.0));
            assert!((-2.0..3.0).contains(&x));
        }
    }
}
