//! Andrews' squeezing mechanism: the seven-body, index-3 benchmark of Hairer & Wanner (Solving
//! ODEs II, §VII.7, p. 533 ff) and of the IVP test set ("andrews"): seven angles
//! `q = (β, Θ, γ, Φ, δ, Ω, ε)`, six closure rows, a driving torque on `β` and a spring between
//! the points D and C. Parameters and the consistent initial state are the test set's.
//!
//! The test set writes `M q̈ = f(q, q̇) − Gᵀλ`, `g(q) = 0`; here `h` holds the velocity terms of
//! `−f`, `u` the torque `mom` and the spring's generalized force, `J = G`, and our λ is the
//! test set's `−λ`. `ρ = J̇ q̇`: every row of `g` is a sum of `a·cos(c·q)` and `a·sin(c·q)`
//! terms, whose second derivative along `q̇` is `−term · (c·q̇)²`.

use crate::Mechanism;
use faer::MatMut;

/// Andrews' squeezer with the test set's data (SI units: kg, m, kg·m², N·m, N/m).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AndrewsSqueezer {
    /// Masses `m1 … m7` \[kg\].
    pub m: [f64; 7],
    /// Moments of inertia `I1 … I7` \[kg·m²\].
    pub i: [f64; 7],
    /// Driving torque on β \[N·m\] (`mom` = 0.033).
    pub torque: f64,
    /// Spring stiffness `c0` \[N/m\] (4530).
    pub spring_stiffness: f64,
    /// Spring rest length `l0` \[m\] (0.07785).
    pub spring_length: f64,
}

impl Default for AndrewsSqueezer {
    fn default() -> Self {
        Self {
            m: [
                0.04325, 0.00365, 0.02373, 0.00706, 0.07050, 0.00706, 0.05498,
            ],
            i: [
                2.194e-6, 4.410e-7, 5.255e-6, 5.667e-7, 1.169e-5, 5.667e-7, 1.912e-5,
            ],
            torque: 0.033,
            spring_stiffness: 4530.0,
            spring_length: 0.07785,
        }
    }
}

/// The geometry of the squeezer \[m\], as the IVP test set names it (Hairer & Wanner, §VII.7,
/// Table 7.1); public so that drawings and tests use the numbers the dynamics use.
pub mod geometry {
    /// x of the fixed point A (Table 7.1's `xa`).
    pub const XA: f64 = -0.06934;
    /// y of the fixed point A (Table 7.1's `ya`).
    pub const YA: f64 = -0.00227;
    /// x of the fixed point B (Table 7.1's `xb`).
    pub const XB: f64 = -0.03635;
    /// y of the fixed point B (Table 7.1's `yb`).
    pub const YB: f64 = 0.03273;
    /// x of the fixed point C (Table 7.1's `xc`).
    pub const XC: f64 = 0.014;
    /// y of the fixed point C (Table 7.1's `yc`).
    pub const YC: f64 = 0.072;
    /// Table 7.1's `d`.
    pub const D: f64 = 28e-3;
    /// Table 7.1's `da`.
    pub const DA: f64 = 115e-4;
    /// Table 7.1's `e`.
    pub const E: f64 = 2e-2;
    /// Table 7.1's `ea`.
    pub const EA: f64 = 1421e-5;
    /// Table 7.1's `rr`.
    pub const RR: f64 = 7e-3;
    /// Table 7.1's `ra`.
    pub const RA: f64 = 92e-5;
    /// Table 7.1's `ss`.
    pub const SS: f64 = 35e-3;
    /// Table 7.1's `sa`.
    pub const SA: f64 = 1874e-5;
    /// Table 7.1's `sb`.
    pub const SB: f64 = 1043e-5;
    /// Table 7.1's `sc`.
    pub const SC: f64 = 18e-3;
    /// Table 7.1's `sd`.
    pub const SD: f64 = 2e-2;
    /// Table 7.1's `ta`.
    pub const TA: f64 = 2308e-5;
    /// Table 7.1's `tb`.
    pub const TB: f64 = 916e-5;
    /// Table 7.1's `u`.
    pub const U: f64 = 4e-2;
    /// Table 7.1's `ua`.
    pub const UA: f64 = 1228e-5;
    /// Table 7.1's `ub`.
    pub const UB: f64 = 449e-5;
    /// Table 7.1's `zf`.
    pub const ZF: f64 = 2e-2;
    /// Table 7.1's `zt`.
    pub const ZT: f64 = 4e-2;
    /// Table 7.1's `fa`.
    pub const FA: f64 = 1421e-5;
}
use geometry::*;

/// The test set's consistent initial angles (at rest, `q̇₀ = 0`), with its printed digits.
#[allow(clippy::excessive_precision)]
pub const ANDREWS_Q0: [f64; 7] = [
    -0.0617138900142764496358948458001,
    0.0,
    0.455279819163070380255912382449,
    0.222668390165885884674473185609,
    0.487364979543842550225598953530,
    -0.222668390165885884674473185609,
    1.23054744454982119249735015568,
];

/// The test set's reference positions at t = 0.03 (F. Mazzia, C. Magherini, *Test Set for
/// Initial Value Problem Solvers*, release 2.4, Università di Bari, 2008, problem "andrews",
/// routine `SOLN`; computed there with RADAU5 at tight tolerances). Data for checking a
/// simulation, not a result of this crate.
#[allow(clippy::excessive_precision)]
pub const ANDREWS_REFERENCE_Q_AT_0_03: [f64; 7] = [
    0.1581077119629904e+2,
    -0.1575637105984298e+2,
    0.4082224013073101e-1,
    -0.5347301163226948e+0,
    0.5244099658805304e+0,
    0.5347301163226948e+0,
    0.1048080741042263e+1,
];

/// The seven angles the constraint rows depend on, as sums of coordinates (with unit weights):
/// `β, β + Θ, γ, Φ + δ, δ, Ω + ε, ε`.
const ANGLES: [&[usize]; 7] = [&[0], &[0, 1], &[2], &[3, 4], &[4], &[5, 6], &[6]];

/// One trigonometric term `a·cos(θ)` (or `a·sin(θ)`) of a constraint row: the coefficient,
/// whether it is a sine, and the index of its angle `θ` in [`ANGLES`].
type Term = (f64, bool, usize);

/// The constraint rows as sums of trigonometric terms plus a constant (Hairer–Wanner (7.9)).
const ROWS: [(&[Term], f64); 6] = [
    (&[(RR, false, 0), (-D, false, 1), (-SS, true, 2)], -XB),
    (&[(RR, true, 0), (-D, true, 1), (SS, false, 2)], -YB),
    (
        &[
            (RR, false, 0),
            (-D, false, 1),
            (-E, true, 3),
            (-ZT, false, 4),
        ],
        -XA,
    ),
    (
        &[(RR, true, 0), (-D, true, 1), (E, false, 3), (-ZT, true, 4)],
        -YA,
    ),
    (
        &[
            (RR, false, 0),
            (-D, false, 1),
            (-ZF, false, 5),
            (-U, true, 6),
        ],
        -XA,
    ),
    (
        &[(RR, true, 0), (-D, true, 1), (-ZF, true, 5), (U, false, 6)],
        -YA,
    ),
];

fn angle(q: &[f64], idx: &[usize]) -> f64 {
    idx.iter().map(|&k| q[k]).sum()
}

/// `(sin θ, cos θ)` of the seven [`ANGLES`]: the only transcendental work of φ, J and ρ
/// (seven `sin_cos` calls instead of one `sin` or `cos` per term, 22 per row set).
fn angle_trig(q: &[f64]) -> [(f64, f64); 7] {
    ANGLES.map(|idx| angle(q, idx).sin_cos())
}

/// The value `a·sin θ` or `a·cos θ` of a term and its derivative `d/dθ`.
#[inline]
fn term(a: f64, sine: bool, (s, c): (f64, f64)) -> (f64, f64) {
    if sine {
        (a * s, a * c)
    } else {
        (a * c, -a * s)
    }
}

/// `J = ∂φ/∂q` from the angles' sines and cosines: each term adds its `d/dθ` to the columns of
/// its angle's coordinates.
/// `φ` of the rows (Hairer–Wanner (7.9)) from the sines and cosines of the angles.
#[inline(always)]
fn values(trig: &[(f64, f64); 7], phi: &mut [f64]) {
    for (r, (terms, c)) in ROWS.iter().enumerate() {
        phi[r] = *c;
        for &(a, sine, th) in terms.iter() {
            phi[r] += term(a, sine, trig[th]).0;
        }
    }
}

fn jacobian(trig: &[(f64, f64); 7], mut j: MatMut<'_, f64>) {
    j.fill(0.0);
    for (r, (terms, _)) in ROWS.iter().enumerate() {
        for &(a, sine, th) in terms.iter() {
            let d = term(a, sine, trig[th]).1;
            for &k in ANGLES[th] {
                j[(r, k)] += d;
            }
        }
    }
}

/// `ρ = J̇ q̇`: each term contributes `−term · θ̇²`.
fn accel_bias(trig: &[(f64, f64); 7], qd: &[f64], rho: &mut [f64]) {
    let w = ANGLES.map(|idx| angle(qd, idx));
    for (r, (terms, _)) in ROWS.iter().enumerate() {
        rho[r] = 0.0;
        for &(a, sine, th) in terms.iter() {
            rho[r] -= term(a, sine, trig[th]).0 * w[th] * w[th];
        }
    }
}

impl Mechanism for AndrewsSqueezer {
    fn name(&self) -> &str {
        "andrews-squeezer"
    }
    fn dof(&self) -> usize {
        7
    }
    fn n_constraints(&self) -> usize {
        6
    }
    /// Hairer–Wanner (7.8).
    fn mass_matrix(&self, q: &[f64], mut mm: MatMut<'_, f64>) {
        let (m, i) = (&self.m, &self.i);
        let (coth, siph, siom) = (q[1].cos(), q[3].sin(), q[5].sin());
        mm.fill(0.0);
        mm[(0, 0)] =
            m[0] * RA * RA + m[1] * (RR * RR - 2.0 * DA * RR * coth + DA * DA) + i[0] + i[1];
        mm[(1, 0)] = m[1] * (DA * DA - DA * RR * coth) + i[1];
        mm[(0, 1)] = mm[(1, 0)];
        mm[(1, 1)] = m[1] * DA * DA + i[1];
        mm[(2, 2)] = m[2] * (SA * SA + SB * SB) + i[2];
        let ee = E - EA;
        mm[(3, 3)] = m[3] * ee * ee + i[3];
        mm[(4, 3)] = m[3] * (ee * ee + ZT * ee * siph) + i[3];
        mm[(3, 4)] = mm[(4, 3)];
        mm[(4, 4)] = m[3] * (ZT * ZT + 2.0 * ZT * ee * siph + ee * ee)
            + m[4] * (TA * TA + TB * TB)
            + i[3]
            + i[4];
        let ff = ZF - FA;
        mm[(5, 5)] = m[5] * ff * ff + i[5];
        mm[(6, 5)] = m[5] * (ff * ff - U * ff * siom) + i[5];
        mm[(5, 6)] = mm[(6, 5)];
        mm[(6, 6)] = m[5] * (ff * ff - 2.0 * U * ff * siom + U * U)
            + m[6] * (UA * UA + UB * UB)
            + i[5]
            + i[6];
    }
    /// The velocity terms of the test set's `f`, with the opposite sign.
    fn bias_forces(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
        let m = &self.m;
        let (sith, coph, coom) = (q[1].sin(), q[3].cos(), q[5].cos());
        let (bep, thp, php, dep, omp, epp) = (qd[0], qd[1], qd[3], qd[4], qd[5], qd[6]);
        let (ee, ff) = (E - EA, ZF - FA);
        h[0] = m[1] * DA * RR * thp * (thp + 2.0 * bep) * sith;
        h[1] = -m[1] * DA * RR * bep * bep * sith;
        h[2] = 0.0;
        h[3] = -m[3] * ZT * ee * dep * dep * coph;
        h[4] = m[3] * ZT * ee * php * (php + 2.0 * dep) * coph;
        h[5] = m[5] * U * ff * epp * epp * coom;
        h[6] = -m[5] * U * ff * omp * (omp + 2.0 * epp) * coom;
    }
    /// The driving torque on β and the spring between D and C (acting on γ).
    fn applied_forces(&self, _t: f64, q: &[f64], _qd: &[f64], u: &mut [f64]) {
        let (siga, coga) = q[2].sin_cos();
        let xd = SD * coga + SC * siga + XB;
        let yd = SD * siga - SC * coga + YB;
        let lang = ((xd - XC).powi(2) + (yd - YC).powi(2)).sqrt();
        let force = -self.spring_stiffness * (lang - self.spring_length) / lang;
        let (fx, fy) = (force * (xd - XC), force * (yd - YC));
        u.fill(0.0);
        u[0] = self.torque;
        u[2] = fx * (SC * coga - SD * siga) + fy * (SD * coga + SC * siga);
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        values(&angle_trig(q), phi);
    }
    fn constraint_jacobian(&self, _t: f64, q: &[f64], j: MatMut<'_, f64>) {
        jacobian(&angle_trig(q), j);
    }
    fn constraint_accel_bias(&self, _t: f64, q: &[f64], qd: &[f64], rho: &mut [f64]) {
        accel_bias(&angle_trig(q), qd, rho);
    }
    /// One set of seven `sin_cos` for both.
    fn constraint_jacobian_and_accel_bias(
        &self,
        _t: f64,
        q: &[f64],
        qd: &[f64],
        j: MatMut<'_, f64>,
        rho: &mut [f64],
    ) {
        let trig = angle_trig(q);
        jacobian(&trig, j);
        accel_bias(&trig, qd, rho);
    }
    /// One set of seven `sin_cos` for φ and J (the constraint monitor's call).
    fn constraints_jacobian_and_rate_bias(
        &self,
        t: f64,
        q: &[f64],
        phi: &mut [f64],
        j: MatMut<'_, f64>,
        b: &mut [f64],
    ) {
        let trig = angle_trig(q);
        values(&trig, phi);
        jacobian(&trig, j);
        self.constraint_rate_bias(t, q, b);
    }
    fn kinetic_energy(&self, q: &[f64], qd: &[f64]) -> Option<f64> {
        let mut buf = [0.0; 49];
        self.mass_matrix(q, MatMut::from_column_major_slice_mut(&mut buf, 7, 7));
        let mut t = 0.0;
        for c in 0..7 {
            for r in 0..7 {
                t += 0.5 * qd[r] * buf[r + 7 * c] * qd[c];
            }
        }
        Some(t)
    }
}

impl AndrewsSqueezer {
    /// The kinetic energy `½ q̇ᵀ M(q) q̇` for any scalar (the generic form of (7.8), used by
    /// the automatic-derivative witness).
    pub fn kinetic_energy_generic<S: crate::autodiff::Scalar>(&self, q: &[S], qd: &[S]) -> S {
        let (m, i) = (&self.m, &self.i);
        let (coth, siph, siom) = (q[1].cos(), q[3].sin(), q[5].sin());
        let (ee, ff) = (E - EA, ZF - FA);
        let m00 =
            (coth * (-2.0 * DA * RR) + (RR * RR + DA * DA)) * m[1] + (m[0] * RA * RA + i[0] + i[1]);
        let m01 = coth * (-m[1] * DA * RR) + (m[1] * DA * DA + i[1]);
        let m11 = m[1] * DA * DA + i[1];
        let m22 = m[2] * (SA * SA + SB * SB) + i[2];
        let m33 = m[3] * ee * ee + i[3];
        let m34 = siph * (m[3] * ZT * ee) + (m[3] * ee * ee + i[3]);
        let m44 = siph * (2.0 * m[3] * ZT * ee)
            + (m[3] * (ZT * ZT + ee * ee) + m[4] * (TA * TA + TB * TB) + i[3] + i[4]);
        let m55 = m[5] * ff * ff + i[5];
        let m56 = siom * (-m[5] * U * ff) + (m[5] * ff * ff + i[5]);
        let m66 = siom * (-2.0 * m[5] * U * ff)
            + (m[5] * (ff * ff + U * U) + m[6] * (UA * UA + UB * UB) + i[5] + i[6]);
        let v = qd;
        (m00 * v[0] * v[0]
            + m01 * v[0] * v[1] * 2.0
            + v[1] * v[1] * m11
            + v[2] * v[2] * m22
            + v[3] * v[3] * m33
            + m34 * v[3] * v[4] * 2.0
            + m44 * v[4] * v[4]
            + v[5] * v[5] * m55
            + m56 * v[5] * v[6] * 2.0
            + m66 * v[6] * v[6])
            * 0.5
    }

    /// The constraints `φ(q)` for any scalar (Hairer–Wanner (7.9)).
    pub fn constraints_generic<S: crate::autodiff::Scalar>(&self, q: &[S], phi: &mut [S]) {
        for (r, (terms, c)) in ROWS.iter().enumerate() {
            let mut v = S::from(*c);
            for &(a, sine, idx) in terms.iter() {
                let mut th = S::from(0.0);
                for &k in ANGLES[idx].iter() {
                    th += q[k];
                }
                v += if sine { th.sin() } else { th.cos() } * a;
            }
            phi[r] = v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{
        check_accel_bias, check_jacobian, check_mass_matrix, fused_constraint_terms_match,
        fused_jacobian_and_bias_matches, SplitMix64,
    };

    #[test]
    fn the_test_sets_initial_state_is_consistent() {
        let a = AndrewsSqueezer::default();
        let mut phi = [0.0; 6];
        a.constraints(0.0, &ANDREWS_Q0, &mut phi);
        let worst = phi.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        assert!(worst < 1e-15, "{phi:?}");
    }

    #[test]
    fn jacobian_and_bias_match_finite_differences() {
        let a = AndrewsSqueezer::default();
        let mut rng = SplitMix64::new(7);
        for _ in 0..20 {
            let q: Vec<f64> = ANDREWS_Q0
                .iter()
                .map(|x| x + rng.uniform(-0.3, 0.3))
                .collect();
            let qd = rng.vector(7, -50.0, 50.0);
            assert!(check_jacobian(&a, 0.0, &q).unwrap() < 1e-7);
            assert!(check_accel_bias(&a, 0.0, &q, &qd).unwrap() < 1e-6);
            assert!(fused_jacobian_and_bias_matches(&a, 0.0, &q, &qd));
            assert!(fused_constraint_terms_match(&a, 0.0, &q));
            let mm = check_mass_matrix(&a, &q).unwrap();
            assert!(mm.asymmetry == 0.0 && mm.min_eigenvalue > 0.0, "{mm:?}");
        }
    }
}
