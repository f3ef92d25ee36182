//! MBS benchmark A05, the flyball governor (González, Dopico, Lugrís, Cuadrado 2006): a shaft
//! spinning freely about the vertical, a slider on it, two rods hinged at the shaft's top with a
//! ball at each end, and two stiff spring-dampers from the slider to the rods' midpoints.
//!
//! Two formulations of the same mechanism, each an [`AutoDiffModel`] whose dampers are applied
//! forces written by hand:
//!
//! * [`FlyballGovernor`]: the shaft angle ψ, the slider height s and the two ball positions
//!   (8 coordinates), each ball held by two rows (rod length, plane of the hinge);
//! * [`FlyballGovernorReduced`]: ψ, the rods' angles θ₁, θ₂ from the downward vertical and s
//!   (4 coordinates, no rows): its reference.
//!
//! A05's data (MBS-benchmarks-in-OpenSim, `src/A05-FlyballGovernor`): the shaft `1 × 0.01 ×
//! 0.01` m of density 3000 kg/m³ (0.3 kg), pinned to the ground about z at its bottom and
//! spinning at 2π rad/s; the slider a 0.1 m cube of 3 kg, its centre at `s(0) = 0.5` m above the
//! shaft's bottom, turning with the shaft; rods of 0.3 kg and 1 m hinged at the shaft's top
//! (height 1 m) at radius 0.05 m, 30° below the horizontal at the start, a 5 kg point mass at each
//! end; spring-dampers `K = 8·10⁵` N/m, `C = 4·10⁴` N·s/m, rest length 0.5 m, from the slider at
//! radius 0.05 m to each rod's midpoint (at rest length at the start); gravity 9.81 m/s² along
//! −z. Choices where the sources are silent or differ: the rods are slender (a uniform line
//! mass; OpenSim's bricks of 1 cm section change s by micrometres); the shaft and the slider keep
//! the axial inertia of their bricks (`5·10⁻⁶` and `5·10⁻³` kg m²), the only part of their
//! inertia that the motion uses; no stop limits the slider.
//!
//! The two formulations' agreement and every constraint method × integrator on this model:
//! `benches/results/mbs_a01_a04_a05_2026-11-28.md`.

use crate::autodiff::{AutoDiffModel, Scalar};

/// A05's parameters (SI units; the [`Default`] holds the benchmark's values).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlyballGovernor {
    /// Axial moment of inertia of the shaft and the slider together \[kg m²\] (0.005005).
    pub spin_inertia: f64,
    /// Slider mass \[kg\] (3).
    pub slider_mass: f64,
    /// Mass of each rod \[kg\] (0.3), a uniform slender rod.
    pub rod_mass: f64,
    /// Rod length \[m\] (1).
    pub rod_length: f64,
    /// Mass of each ball at a rod's end \[kg\] (5).
    pub ball_mass: f64,
    /// Height of the rods' hinges above the shaft's bottom \[m\] (1).
    pub hinge_height: f64,
    /// Radius of the rods' hinges \[m\] (0.05).
    pub hinge_radius: f64,
    /// Radius of the springs' attachments on the slider \[m\] (0.05).
    pub slider_radius: f64,
    /// Spring stiffness K \[N/m\] (8·10⁵).
    pub stiffness: f64,
    /// Damping C \[N s/m\] (4·10⁴).
    pub damping: f64,
    /// Spring rest length \[m\] (0.5).
    pub rest_length: f64,
    /// Gravitational acceleration along −z \[m/s²\] (9.81).
    pub gravity: f64,
}

impl Default for FlyballGovernor {
    fn default() -> Self {
        Self {
            spin_inertia: 5e-6 + 5e-3,
            slider_mass: 3.0,
            rod_mass: 0.3,
            rod_length: 1.0,
            ball_mass: 5.0,
            hinge_height: 1.0,
            hinge_radius: 0.05,
            slider_radius: 0.05,
            stiffness: 8e5,
            damping: 4e4,
            rest_length: 0.5,
            gravity: 9.81,
        }
    }
}

/// The rods' angle from the downward vertical at the start \[rad\] (30° below the horizontal).
pub const FLYBALL_THETA0: f64 = std::f64::consts::FRAC_PI_3;

/// The shaft's spin at the start \[rad/s\].
pub const FLYBALL_SPIN0: f64 = 2.0 * std::f64::consts::PI;

/// The slider height at the start \[m\].
pub const FLYBALL_S0: f64 = 0.5;

impl FlyballGovernor {
    /// Index of the slider height s in `q`.
    pub const SLIDER: usize = 1;

    /// A05's start (`ψ = 0`, rods at [`FLYBALL_THETA0`], `s = 0.5` m, the whole assembly turning
    /// at [`FLYBALL_SPIN0`] about z): `q = (ψ, s, p₁, p₂)`, `q̇` the rigid rotation.
    pub fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        let (st, ct) = FLYBALL_THETA0.sin_cos();
        let rho = self.hinge_radius + self.rod_length * st;
        let z = self.hinge_height - self.rod_length * ct;
        let q = vec![0.0, FLYBALL_S0, rho, 0.0, z, -rho, 0.0, z];
        // ṗ = ω ẑ × p
        let w = FLYBALL_SPIN0;
        let qd = vec![w, 0.0, 0.0, w * rho, 0.0, 0.0, -w * rho, 0.0];
        (q, qd)
    }

    /// The hinge of rod `i` (side `σ = ±1`) and its rate per unit ψ̇: `h = (σ r cos ψ,
    /// σ r sin ψ, H)`.
    fn hinge<S: Scalar>(&self, psi: S, sigma: f64) -> ([S; 3], [S; 3]) {
        let (s, c) = (psi.sin(), psi.cos());
        let r = sigma * self.hinge_radius;
        (
            [c * r, s * r, S::from(self.hinge_height)],
            [-s * r, c * r, S::from(0.0)],
        )
    }

    /// Spring length `d` of side `σ` and its gradient with respect to `q` (8 entries).
    fn spring(&self, q: &[f64], sigma: f64, side: usize) -> (f64, [f64; 8]) {
        let (h, dh) = self.hinge(q[0], sigma);
        let (s, c) = q[0].sin_cos();
        let rs = sigma * self.slider_radius;
        let a = [c * rs, s * rs, q[1]];
        let da = [-s * rs, c * rs, 0.0];
        let p = &q[2 + 3 * side..5 + 3 * side];
        let e: [f64; 3] = [0, 1, 2].map(|k| 0.5 * (h[k] + p[k]) - a[k]);
        let d = (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt();
        let u = e.map(|x| x / d);
        let mut g = [0.0; 8];
        g[0] = (0..3).map(|k| u[k] * (0.5 * dh[k] - da[k])).sum();
        g[1] = -u[2];
        for k in 0..3 {
            g[2 + 3 * side + k] = 0.5 * u[k];
        }
        (d, g)
    }
}

impl AutoDiffModel for FlyballGovernor {
    fn name(&self) -> &str {
        "flyball-governor"
    }
    fn dof(&self) -> usize {
        8
    }
    fn n_constraints(&self) -> usize {
        4
    }
    /// `½ I ψ̇² + ½ m_s ṡ² + Σ (m_r/6 (|ḣ|² + ḣ·ṗ + |ṗ|²) + ½ m_b |ṗ|²)`.
    fn kinetic_energy<S: Scalar>(&self, q: &[S], qd: &[S]) -> S {
        let mut t =
            qd[0] * qd[0] * (0.5 * self.spin_inertia) + qd[1] * qd[1] * (0.5 * self.slider_mass);
        for (side, sigma) in [(0, 1.0), (1, -1.0)] {
            let (_, dh) = self.hinge(q[0], sigma);
            let vh = dh.map(|x| x * qd[0]);
            let vp = &qd[2 + 3 * side..5 + 3 * side];
            let (mut hh, mut hp, mut pp) = (S::from(0.0), S::from(0.0), S::from(0.0));
            for k in 0..3 {
                hh += vh[k] * vh[k];
                hp += vh[k] * vp[k];
                pp += vp[k] * vp[k];
            }
            t += (hh + hp + pp) * (self.rod_mass / 6.0) + pp * (0.5 * self.ball_mass);
        }
        t
    }
    /// Gravity `g (m_s s + Σ (m_r (H + p_z)/2 + m_b p_z))` and the springs `½ K (d − d₀)²`.
    fn potential_energy<S: Scalar>(&self, q: &[S]) -> S {
        let g = self.gravity;
        let mut v = q[1] * (g * self.slider_mass);
        let (s, c) = (q[0].sin(), q[0].cos());
        for (side, sigma) in [(0, 1.0), (1, -1.0)] {
            let p = &q[2 + 3 * side..5 + 3 * side];
            v += (p[2] + self.hinge_height) * (0.5 * g * self.rod_mass)
                + p[2] * (g * self.ball_mass);
            let (h, _) = self.hinge(q[0], sigma);
            let rs = sigma * self.slider_radius;
            let e = [
                (h[0] + p[0]) * 0.5 - c * rs,
                (h[1] + p[1]) * 0.5 - s * rs,
                (h[2] + p[2]) * 0.5 - q[1],
            ];
            let d = (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt() - self.rest_length;
            v += d * d * (0.5 * self.stiffness);
        }
        v
    }
    /// The dampers: `u = −C ḋ ∇d` with `ḋ = ∇d · q̇`, per side.
    fn applied_forces(&self, _t: f64, q: &[f64], qd: &[f64], u: &mut [f64]) {
        u.fill(0.0);
        for (side, sigma) in [(0, 1.0), (1, -1.0)] {
            let (_, g) = self.spring(q, sigma, side);
            let rate: f64 = g.iter().zip(qd).map(|(a, b)| a * b).sum();
            for (ui, gi) in u.iter_mut().zip(g) {
                *ui -= self.damping * rate * gi;
            }
        }
    }
    /// Per side: `|p − h|² − l²` and `(p − h)·n`, `n = (−sin ψ, cos ψ, 0)` the normal of the
    /// plane through the shaft and the hinge.
    fn constraints<S: Scalar>(&self, _t: S, q: &[S], phi: &mut [S]) {
        let (s, c) = (q[0].sin(), q[0].cos());
        for (side, sigma) in [(0, 1.0), (1, -1.0)] {
            let (h, _) = self.hinge(q[0], sigma);
            let p = &q[2 + 3 * side..5 + 3 * side];
            let e = [p[0] - h[0], p[1] - h[1], p[2] - h[2]];
            phi[2 * side] =
                e[0] * e[0] + e[1] * e[1] + e[2] * e[2] - self.rod_length * self.rod_length;
            phi[2 * side + 1] = e[1] * c - e[0] * s;
        }
    }
}

/// A05 in reduced coordinates `q = (ψ, θ₁, θ₂, s)`: ball `i` (side `σ = ±1`) at
/// `p = (σ (r + l sin θ) cos ψ, σ (r + l sin θ) sin ψ, H − l cos θ)`, no constraint rows. The
/// spring length does not depend on ψ:
///
/// ```text
/// d² = (r − r_s + ½ l sin θ)² + (H − s − ½ l cos θ)²
/// ```
///
/// The same parameters as [`FlyballGovernor`]; the energies are written from these coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FlyballGovernorReduced {
    /// The parameters.
    pub governor: FlyballGovernor,
}

impl FlyballGovernorReduced {
    /// Index of the slider height s in `q`.
    pub const SLIDER: usize = 3;

    /// A05's start: `q = (0, θ₀, θ₀, 0.5)`, `q̇ = (2π, 0, 0, 0)`.
    pub fn initial_state(&self) -> ([f64; 4], [f64; 4]) {
        (
            [0.0, FLYBALL_THETA0, FLYBALL_THETA0, FLYBALL_S0],
            [FLYBALL_SPIN0, 0.0, 0.0, 0.0],
        )
    }

    /// The radial and vertical parts of the spring of rod angle `theta` at slider height `s`.
    fn spring_parts<S: Scalar>(&self, theta: S, s: S) -> (S, S) {
        let g = &self.governor;
        (
            theta.sin() * (0.5 * g.rod_length) + (g.hinge_radius - g.slider_radius),
            -theta.cos() * (0.5 * g.rod_length) - s + g.hinge_height,
        )
    }
}

impl AutoDiffModel for FlyballGovernorReduced {
    fn name(&self) -> &str {
        "flyball-governor-reduced"
    }
    fn dof(&self) -> usize {
        4
    }
    fn kinetic_energy<S: Scalar>(&self, q: &[S], qd: &[S]) -> S {
        let g = &self.governor;
        let (r, l) = (g.hinge_radius, g.rod_length);
        let w = qd[0];
        let mut t = w * w * (0.5 * g.spin_inertia) + qd[3] * qd[3] * (0.5 * g.slider_mass);
        for i in 1..=2 {
            let (st, ct) = (q[i].sin(), q[i].cos());
            let th = qd[i];
            // in the frame turning with the shaft (radial, tangential, vertical):
            // ḣ = (0, r ψ̇, 0), ṗ = (l cos θ θ̇, (r + l sin θ) ψ̇, l sin θ θ̇)
            let (pr, pt, pz) = (ct * th * l, (st * l + r) * w, st * th * l);
            let ht = w * r;
            let pp = pr * pr + pt * pt + pz * pz;
            t += (ht * ht + ht * pt + pp) * (g.rod_mass / 6.0) + pp * (0.5 * g.ball_mass);
        }
        t
    }
    fn potential_energy<S: Scalar>(&self, q: &[S]) -> S {
        let g = &self.governor;
        let mut v = q[3] * (g.gravity * g.slider_mass);
        for i in 1..=2 {
            let z = -q[i].cos() * g.rod_length + g.hinge_height;
            v += (z + g.hinge_height) * (0.5 * g.gravity * g.rod_mass)
                + z * (g.gravity * g.ball_mass);
            let (a, b) = self.spring_parts(q[i], q[3]);
            let d = (a * a + b * b).sqrt() - g.rest_length;
            v += d * d * (0.5 * g.stiffness);
        }
        v
    }
    /// The dampers `u = −C ḋ ∇d`, `∇d = (0, ∂d/∂θ, ∂d/∂s)` per side.
    fn applied_forces(&self, _t: f64, q: &[f64], qd: &[f64], u: &mut [f64]) {
        let g = &self.governor;
        u.fill(0.0);
        for i in 1..=2 {
            let (a, b) = self.spring_parts(q[i], q[3]);
            let d = a.hypot(b);
            let l2 = 0.5 * g.rod_length;
            let dth = (a * l2 * q[i].cos() + b * l2 * q[i].sin()) / d;
            let ds = -b / d;
            let rate = dth * qd[i] + ds * qd[3];
            u[i] -= g.damping * rate * dth;
            u[3] -= g.damping * rate * ds;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::autodiff::AutoDiff;
    use crate::testing::{check_accel_bias, check_jacobian, check_rate_bias, SplitMix64};
    use crate::Mechanism;

    /// J, b and ρ of the 8-coordinate model against finite differences of φ; the start is
    /// consistent, the springs at rest length, and both formulations agree on the energy there.
    #[test]
    fn flyball_passes_finite_difference_checks() {
        let fg = AutoDiff::new(FlyballGovernor::default());
        let mut rng = SplitMix64::new(5);
        for _ in 0..6 {
            let q = rng.vector(8, -1.0, 1.0);
            let qd = rng.vector(8, -1.0, 1.0);
            let (ej, eb, er) = (
                check_jacobian(&fg, 0.1, &q).unwrap(),
                check_rate_bias(&fg, 0.1, &q).unwrap(),
                check_accel_bias(&fg, 0.1, &q, &qd).unwrap(),
            );
            assert!(ej < 1e-7 && eb < 1e-7 && er < 1e-6, "{ej:e} {eb:e} {er:e}");
        }
        let gov = FlyballGovernor::default();
        let (q0, qd0) = gov.initial_state();
        let (pr, vr) = crate::constraint_residuals(&fg, 0.0, &q0, &qd0).unwrap();
        assert!(pr < 1e-15 && vr < 1e-15, "{pr:e} {vr:e}");
        for (side, sigma) in [(0, 1.0), (1, -1.0)] {
            let (d, _) = gov.spring(&q0, sigma, side);
            assert!((d - 0.5).abs() < 1e-15, "{d}");
        }
        let red = AutoDiff::new(FlyballGovernorReduced::default());
        let (r0, rd0) = FlyballGovernorReduced::default().initial_state();
        let e8 = fg.kinetic_energy(&q0, &qd0).unwrap() + fg.potential_energy(&q0).unwrap();
        let e4 = red.kinetic_energy(&r0, &rd0).unwrap() + red.potential_energy(&r0).unwrap();
        assert!((e8 - e4).abs() < 1e-12 * e8.abs(), "{e8} {e4}");
    }

    /// The hand-written dampers of both formulations against finite differences of the spring
    /// length: `u · δ = −C ḋ (d(q + εδ) − d(q − εδ))/(2ε)` with `ḋ` the same difference along q̇;
    /// the reduced model's energies against the 8-coordinate model's at a mapped state.
    #[test]
    fn flyball_dampers_match_finite_differences() {
        let gov = FlyballGovernor::default();
        let red = FlyballGovernorReduced::default();
        let mut rng = SplitMix64::new(17);
        let eps = 1e-6;
        for _ in 0..5 {
            // reduced: d of side 1 along a direction
            let q = [
                rng.uniform(-3.0, 3.0),
                rng.uniform(0.3, 1.5),
                rng.uniform(0.3, 1.5),
                rng.uniform(0.3, 0.8),
            ];
            let qd = rng.vector(4, -1.0, 1.0);
            let dir = rng.vector(4, -1.0, 1.0);
            let dist = |x: &[f64], i: usize| {
                let (a, b) = red.spring_parts(x[i], x[3]);
                a.hypot(b)
            };
            let fd = |v: &[f64], i: usize| {
                let p: Vec<f64> = q.iter().zip(v).map(|(a, b)| a + eps * b).collect();
                let m: Vec<f64> = q.iter().zip(v).map(|(a, b)| a - eps * b).collect();
                (dist(&p, i) - dist(&m, i)) / (2.0 * eps)
            };
            let expected: f64 = (1..=2).map(|i| -4e4 * fd(&qd, i) * fd(&dir, i)).sum();
            let mut u = [0.0; 4];
            red.applied_forces(0.0, &q, &qd, &mut u);
            let got: f64 = u.iter().zip(&dir).map(|(a, b)| a * b).sum();
            assert!(
                (got - expected).abs() < 1e-5 * expected.abs().max(1.0),
                "{got} {expected}"
            );

            // 8 coordinates, through the gradient of the spring length
            let q8 = rng.vector(8, -1.0, 1.0);
            let qd8 = rng.vector(8, -1.0, 1.0);
            let dir8 = rng.vector(8, -1.0, 1.0);
            let fd8 = |v: &[f64], side: usize, sigma: f64| {
                let p: Vec<f64> = q8.iter().zip(v).map(|(a, b)| a + eps * b).collect();
                let m: Vec<f64> = q8.iter().zip(v).map(|(a, b)| a - eps * b).collect();
                (gov.spring(&p, sigma, side).0 - gov.spring(&m, sigma, side).0) / (2.0 * eps)
            };
            let expected8: f64 = [(0, 1.0), (1, -1.0)]
                .iter()
                .map(|&(s, g)| -4e4 * fd8(&qd8, s, g) * fd8(&dir8, s, g))
                .sum();
            let mut u8 = [0.0; 8];
            gov.applied_forces(0.0, &q8, &qd8, &mut u8);
            let got8: f64 = u8.iter().zip(&dir8).map(|(a, b)| a * b).sum();
            assert!(
                (got8 - expected8).abs() < 1e-5 * expected8.abs().max(1.0),
                "{got8} {expected8}"
            );

            // T and V of the two formulations at the mapped state
            let (psi, th, s) = (q[0], q[1], q[3]);
            let (sp, cp) = psi.sin_cos();
            let rho = 0.05 + th.sin();
            let drho = th.cos() * qd[1];
            let p1 = [rho * cp, rho * sp, 1.0 - th.cos()];
            let v1 = [
                drho * cp - rho * sp * qd[0],
                drho * sp + rho * cp * qd[0],
                th.sin() * qd[1],
            ];
            let rho2 = -(0.05 + q[2].sin());
            let drho2 = -q[2].cos() * qd[2];
            let p2 = [rho2 * cp, rho2 * sp, 1.0 - q[2].cos()];
            let v2 = [
                drho2 * cp - rho2 * sp * qd[0],
                drho2 * sp + rho2 * cp * qd[0],
                q[2].sin() * qd[2],
            ];
            let qn = [psi, s, p1[0], p1[1], p1[2], p2[0], p2[1], p2[2]];
            let qdn = [qd[0], qd[3], v1[0], v1[1], v1[2], v2[0], v2[1], v2[2]];
            let (t8, t4) = (gov.kinetic_energy(&qn, &qdn), red.kinetic_energy(&q, &qd));
            let (v8, v4) = (gov.potential_energy(&qn), red.potential_energy(&q));
            assert!((t8 - t4).abs() < 1e-12 * t4.abs().max(1.0), "{t8} {t4}");
            assert!((v8 - v4).abs() < 1e-9 * v4.abs().max(1.0), "{v8} {v4}");
            let (mut u8m, mut u4) = ([0.0; 8], [0.0; 4]);
            gov.applied_forces(0.0, &qn, &qdn, &mut u8m);
            red.applied_forces(0.0, &q, &qd, &mut u4);
            // the power of the dampers is the same in both coordinates
            let (p8, p4): (f64, f64) = (
                u8m.iter().zip(&qdn).map(|(a, b)| a * b).sum(),
                u4.iter().zip(&qd).map(|(a, b)| a * b).sum(),
            );
            assert!((p8 - p4).abs() < 1e-7 * p4.abs().max(1.0), "{p8} {p4}");
        }
    }
}
