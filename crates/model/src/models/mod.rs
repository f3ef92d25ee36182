//! The papers' models and a few textbook mechanisms, each a plain struct whose
//! `Default` holds the nominal parameters (units in the field docs).
//!
//! | model | N | L | source |
//! |---|---|---|---|
//! | [`KeerthiRobot`] (+ [`KeerthiControlLaw`]) | 3 | 2 | Keerthi et al., section 4 |
//! | [`HuangCartesianRobot`] (+ [`HuangPdLaw`]) | 2 | 1 (unilateral) | Huang, (6.1.1)–(6.1.3), (6.3.3), (6.3.4) |
//! | [`Pendulum`] | 2 | 1 | Cartesian pendulum; MBS benchmark A01 ([`Pendulum::a01`], reduced reference [`Pendulum::reduced_solution`]) |
//! | [`SliderCrank`] | 3 | 2 | absolute link angles + slider position |
//! | [`RedundantFourBar`] | 3 | 3 (rank 2) | four-bar with a redundant closure row |
//! | [`RedundantParallelogram`] | 6 | 6 (rank 5) | parallelogram with a redundant middle crank |
//! | [`NFourBar`] | 2n + 2 | 2n + 1 (rank n + 1 when flat) | MBS benchmark A02, n four-bar loops in natural coordinates |
//! | [`Bricard`] / [`BricardJointAngles`] | 24 / 5 | 24 (rank 23) / 5 (rank 4) | MBS benchmark A04, Bricard's mechanism: natural coordinates / relative joint angles (its reference) |
//! | [`FlyballGovernor`] / [`FlyballGovernorReduced`] | 8 / 4 | 4 / 0 | MBS benchmark A05, the flyball governor (stiff spring-dampers): ball positions / reduced coordinates (its reference) |
//! | [`ssrms_arm`] / [`ssrms_arm_tip_held`] (+ [`Arm7LoadCase`]) | 7 | 0 / 3 | Kövecses & Piedbœuf, SSRMS-like (`data/arm7.urdf`) |
//! | [`panda_arm`] | 7 | 0 | Franka Emika Panda (`data/panda.urdf`) |
//! | [`AndrewsSqueezer`] | 7 | 6 | Andrews' squeezing mechanism (Hairer & Wanner; IVP test set) |
//! | [`CarAxis`] | 4 | 2 (time-dependent) | car axis (Hairer & Wanner VII.1; IVP test set) |
//! | [`Planar2g`] | 2 | 1 | Featherstone's `planar2g` (`q₂ = 2 sin q₁`) |

mod andrews;
mod arms;
mod bricard;
mod car_axis;
mod flyball_governor;
mod four_bar;
mod huang;
mod keerthi;
mod mbs_pendulum;
mod n_four_bar;
mod parallelogram;
mod pendulum;
mod planar2g;
mod slider_crank;
pub mod witnesses;

pub use andrews::{
    geometry as andrews_geometry, AndrewsSqueezer, ANDREWS_Q0, ANDREWS_REFERENCE_Q_AT_0_03,
};
pub use arms::{
    arm7_initial_q, arm7_initial_tip, arm7_line_endpoints, panda_arm, ssrms_arm,
    ssrms_arm_tip_held, Arm7LoadCase, ARM7_INITIAL_ANGLES_DEG, ARM7_TIP_BODY, ARM7_URDF,
    PANDA_URDF,
};
pub use bricard::{Bricard, BricardJointAngles};
pub use car_axis::{CarAxis, CAR_AXIS_Q0, CAR_AXIS_QD0};
pub use flyball_governor::{
    FlyballGovernor, FlyballGovernorReduced, FLYBALL_S0, FLYBALL_SPIN0, FLYBALL_THETA0,
};
pub use four_bar::RedundantFourBar;
pub use huang::{DesiredMotion, HuangCartesianRobot, HuangPdLaw};
pub use keerthi::{
    KeerthiControlLaw, KeerthiInitialCondition, KeerthiRobot, KEERTHI_IC1, KEERTHI_IC2,
};
pub use n_four_bar::{NFourBar, NFourBarEnergies};
pub use parallelogram::RedundantParallelogram;
pub use pendulum::Pendulum;
pub use planar2g::Planar2g;
pub use slider_crank::SliderCrank;

/// `(θ, θ̇)` of the one-degree-of-freedom equation `θ̈ = accel(θ, θ̇)` at the sorted `times`
/// (from `t = 0`, where `(θ, θ̇) = (theta0, omega0)`), by the classical fourth-order
/// Runge–Kutta method with `steps_per_unit` fixed steps per second: the reference motions of
/// the models with a reduced equation on one branch ([`NFourBar::reduced_solution`],
/// [`SliderCrank::isosceles_reduced_solution`]).
fn rk4_reduced(
    accel: impl Fn(f64, f64) -> f64,
    theta0: f64,
    omega0: f64,
    times: &[f64],
    steps_per_unit: usize,
) -> Vec<(f64, f64)> {
    let (mut t, mut th, mut w) = (0.0f64, theta0, omega0);
    let mut out = Vec::with_capacity(times.len());
    for &tk in times {
        let span = tk - t;
        if span > 0.0 {
            let k = ((span * steps_per_unit as f64).ceil() as usize).max(1);
            let h = span / k as f64;
            for _ in 0..k {
                // θ̈ = accel(θ, θ̇): RK4 on (θ, θ̇)
                let (k1t, k1w) = (w, accel(th, w));
                let (k2t, k2w) = (
                    w + 0.5 * h * k1w,
                    accel(th + 0.5 * h * k1t, w + 0.5 * h * k1w),
                );
                let (k3t, k3w) = (
                    w + 0.5 * h * k2w,
                    accel(th + 0.5 * h * k2t, w + 0.5 * h * k2w),
                );
                let (k4t, k4w) = (w + h * k3w, accel(th + h * k3t, w + h * k3w));
                th += h / 6.0 * (k1t + 2.0 * k2t + 2.0 * k3t + k4t);
                w += h / 6.0 * (k1w + 2.0 * k2w + 2.0 * k3w + k4w);
            }
            t = tk;
        }
        out.push((th, w));
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::testing::{
        check_accel_bias, check_energy_balance, check_jacobian, check_mass_matrix, check_rate_bias,
        SplitMix64,
    };
    use crate::Mechanism;

    /// Runs every finite-difference check on `cases` random states drawn by `sample`.
    pub(crate) fn check_model<M: Mechanism>(
        mech: &M,
        seed: u64,
        cases: usize,
        mut sample: impl FnMut(&mut SplitMix64) -> (Vec<f64>, Vec<f64>),
    ) {
        let mut rng = SplitMix64::new(seed);
        let mut worst = [0.0f64; 5];
        for _ in 0..cases {
            let (q, qd) = sample(&mut rng);
            let t = rng.uniform(0.0, 10.0);
            let mm = check_mass_matrix(mech, &q).unwrap();
            assert!(
                mm.asymmetry <= 1e-15,
                "{}: asymmetry {}",
                mech.name(),
                mm.asymmetry
            );
            assert!(
                mm.min_eigenvalue > 0.0,
                "{}: min eigenvalue {}",
                mech.name(),
                mm.min_eigenvalue
            );
            let errs = [
                check_jacobian(mech, t, &q).unwrap(),
                check_rate_bias(mech, t, &q).unwrap(),
                check_accel_bias(mech, t, &q, &qd).unwrap(),
                check_energy_balance(mech, &q, &qd)
                    .unwrap()
                    .expect("energy provided"),
                mm.asymmetry,
            ];
            for (w, e) in worst.iter_mut().zip(errs) {
                *w = w.max(e);
            }
        }
        let [j, b, rho, energy, _] = worst;
        eprintln!(
            "{}: worst J {j:.1e}, b {b:.1e}, rho {rho:.1e}, energy {energy:.1e}",
            mech.name()
        );
        assert!(j <= 1e-6, "{}: J relative error {j:e}", mech.name());
        assert!(b <= 1e-6, "{}: b relative error {b:e}", mech.name());
        assert!(rho <= 1e-6, "{}: rho relative error {rho:e}", mech.name());
        assert!(
            energy <= 1e-6,
            "{}: energy balance relative error {energy:e}",
            mech.name()
        );
    }

    fn box_sampler(
        lo: Vec<f64>,
        hi: Vec<f64>,
        vmax: f64,
    ) -> impl FnMut(&mut SplitMix64) -> (Vec<f64>, Vec<f64>) {
        move |rng| {
            let q = lo
                .iter()
                .zip(&hi)
                .map(|(a, b)| rng.uniform(*a, *b))
                .collect();
            let qd = rng.vector(lo.len(), -vmax, vmax);
            (q, qd)
        }
    }

    #[test]
    fn keerthi_robot_passes_finite_difference_checks() {
        check_model(
            &KeerthiRobot::default(),
            1,
            25,
            box_sampler(vec![-3.0, -0.5, -0.1], vec![3.0, 0.5, 0.4], 2.0),
        );
    }

    #[test]
    fn huang_robot_passes_finite_difference_checks() {
        check_model(
            &HuangCartesianRobot::default(),
            2,
            25,
            box_sampler(vec![-1.0, 0.5], vec![1.0, 2.5], 2.0),
        );
    }

    #[test]
    fn pendulum_passes_finite_difference_checks() {
        check_model(
            &Pendulum::default(),
            3,
            25,
            box_sampler(vec![-1.5, -1.5], vec![1.5, 1.5], 3.0),
        );
    }

    #[test]
    fn slider_crank_passes_finite_difference_checks() {
        check_model(
            &SliderCrank::default(),
            4,
            25,
            box_sampler(vec![-4.0, -1.0, 0.1], vec![4.0, 1.0, 0.5], 5.0),
        );
    }

    #[test]
    fn redundant_four_bar_passes_finite_difference_checks() {
        check_model(
            &RedundantFourBar::default(),
            5,
            25,
            box_sampler(vec![-4.0, -4.0, -4.0], vec![4.0, 4.0, 4.0], 5.0),
        );
    }
}
