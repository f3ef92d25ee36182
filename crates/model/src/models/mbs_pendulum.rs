//! MBS benchmark A01, the simple pendulum (González, Dopico, Lugrís, Cuadrado 2006): the
//! Cartesian [`Pendulum`] with A01's data and initial state, and the reduced one-degree-of-freedom
//! solution that serves as its reference.
//!
//! A01 (the benchmark's specification as the MBS-benchmarks-in-OpenSim project documents it,
//! `help/benchmarks/A01_SimplePendulum.rst`): a 1 kg point mass on a massless 1 m bar pinned to
//! the ground, gravity 9.81 m/s² along −y, starting horizontal at rest with the mass at
//! (−1, 0) m (the benchmark's θ(0) = π from +x), simulated 10 s.
//!
//! Measured against the reduced solution: `benches/results/mbs_a01_a04_a05_2026-11-28.md`.

use super::Pendulum;

impl Pendulum {
    /// A01's pendulum: 1 kg, 1 m, g = 9.81 m/s² (the [`Default`]).
    pub fn a01() -> Self {
        Self::default()
    }

    /// A01's initial state: the mass at `(−ℓ, 0)` at rest, i.e. `θ = −π/2` from the downward
    /// vertical ([`Pendulum::state`]).
    pub fn a01_initial_state(&self) -> ([f64; 2], [f64; 2]) {
        ([-self.length, 0.0], [0.0, 0.0])
    }

    /// `θ̈ = −(g/ℓ) sin θ`, θ from the downward vertical (the reduced equation of the rod).
    pub fn reduced_acceleration(&self, theta: f64) -> f64 {
        -self.gravity / self.length * theta.sin()
    }

    /// `(θ, θ̇)` at the sorted `times` from `(theta0, omega0)` at `t = 0`, by the classical
    /// Runge–Kutta method on the reduced equation with `steps_per_unit` fixed steps per second:
    /// an independent witness for A01 (no code of the constrained solvers); `q = ℓ (sin θ,
    /// −cos θ)` maps it to the Cartesian coordinates. `2·10⁴` steps per second give about
    /// 1e-12 rad over A01's 10 s.
    pub fn reduced_solution(
        &self,
        theta0: f64,
        omega0: f64,
        times: &[f64],
        steps_per_unit: usize,
    ) -> Vec<(f64, f64)> {
        super::rk4_reduced(
            |th, _| self.reduced_acceleration(th),
            theta0,
            omega0,
            times,
            steps_per_unit,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Mechanism;

    /// The reduced solution conserves `½ℓ²θ̇² − gℓ cos θ` and converges at fourth order; the
    /// mass passes the bottom with `v² = 2 g ℓ`.
    #[test]
    fn a01_reduced_solution_conserves_energy() {
        let p = Pendulum::a01();
        let (q0, qd0) = p.a01_initial_state();
        let (qs, _) = p.state(-std::f64::consts::FRAC_PI_2, 0.0);
        assert!((q0[0] - qs[0]).abs() < 1e-15 && (q0[1] - qs[1]).abs() < 1e-15);
        assert_eq!(qd0, [0.0, 0.0]);
        let times: Vec<f64> = (1..=100).map(|k| 0.1 * k as f64).collect();
        let th0 = -std::f64::consts::FRAC_PI_2;
        let fine = p.reduced_solution(th0, 0.0, &times, 20_000);
        let coarse = p.reduced_solution(th0, 0.0, &times, 2_000);
        let energy = |th: f64, w: f64| 0.5 * w * w - 9.81 * th.cos();
        let mut d = 0.0f64;
        let mut vmax = 0.0f64;
        for ((a, b), (c, _)) in fine.iter().zip(&coarse) {
            assert!((energy(*a, *b) - energy(th0, 0.0)).abs() < 1e-11);
            d = d.max((a - c).abs());
            vmax = vmax.max(b.abs());
        }
        assert!(d < 1e-7 && d > 0.0, "{d:e}");
        // |θ̇| at the bottom: sqrt(2 g / ℓ) (the 0.1 s samples pass near it)
        assert!(
            vmax <= (2.0f64 * 9.81).sqrt() + 1e-9 && vmax > 4.0,
            "{vmax}"
        );
        // the energy of the Cartesian model at the start: m g y = 0
        let e0 = p.kinetic_energy(&q0, &qd0).unwrap() + p.potential_energy(&q0).unwrap();
        assert_eq!(e0, 0.0);
    }
}
