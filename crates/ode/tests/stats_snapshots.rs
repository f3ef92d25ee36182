//! Integer statistics (steps, rejected steps, f-evaluations, …) of a fixed set of runs, so
//! that any change to step or order selection shows in review. Accuracy is checked elsewhere.
//! One snapshot per (method, problem, tolerance); CI runs with `INSTA_UPDATE=no`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use contour_ode::test_models::{ExactSolution, HarmonicOscillator, Kepler, TimeDependent};
use contour_ode::verification::global_error;
use contour_ode::*;

fn stats_of<P: ExactSolution + Clone>(method: &str, p: &P, t_end: f64, tol: f64) -> Stats {
    let tols = Tolerances::new(tol, tol);
    let y0 = p.y0();
    let mut p = p.clone();
    let r = match method {
        "abm" => global_error(
            &mut AdamsBashforthMoulton::new(p.t0(), &y0, tols, AbmConfig::default()).unwrap(),
            &mut p,
            t_end,
        ),
        "dopri5" => global_error(
            &mut DormandPrince54::new(p.t0(), &y0, tols, DormandPrinceConfig::default()).unwrap(),
            &mut p,
            t_end,
        ),
        "rkg" => global_error(
            &mut RungeKuttaGill::new(p.t0(), &y0, tols, RungeKuttaGillConfig::default()).unwrap(),
            &mut p,
            t_end,
        ),
        _ => unreachable!(),
    };
    r.unwrap().1
}

#[test]
fn integer_statistics() {
    for method in ["abm", "dopri5", "rkg"] {
        for tol in [1e-6, 1e-9] {
            let s = stats_of(method, &Kepler { e: 0.5 }, 3.0 * Kepler::PERIOD, tol);
            insta::assert_yaml_snapshot!(format!("{method}_kepler_e0.5_3periods_tol{tol:e}"), s);
        }
        let s = stats_of(method, &HarmonicOscillator { omega: 1.0 }, 10.0, 1e-8);
        insta::assert_yaml_snapshot!(format!("{method}_oscillator_t10_tol1e-8"), s);
        let s = stats_of(method, &TimeDependent, 10.0, 1e-7);
        insta::assert_yaml_snapshot!(format!("{method}_time_dependent_t10_tol1e-7"), s);
    }
}

/// The implicit methods: BDF on the stiff problems, the DAEs and the oscillator; Huang's
/// BDF2 (both starters) and the SIRK at constant step on the oscillator.
#[test]
fn implicit_integer_statistics() {
    use contour_ode::verification::{
        dae_global_error, index1_bdf, pendulum_ggl_bdf, robertson_bdf, vdp1000_bdf,
    };
    for tol in [1e-4, 1e-6] {
        let s = vdp1000_bdf(tol, tol, BdfConfig::default()).unwrap().1;
        insta::assert_yaml_snapshot!(format!("bdf_vdp1000_t3000_tol{tol:e}"), s);
        let s = robertson_bdf(tol, tol * 1e-4, BdfConfig::default())
            .unwrap()
            .1;
        insta::assert_yaml_snapshot!(format!("bdf_robertson_t1e5_tol{tol:e}"), s);
    }
    let s = index1_bdf(1e-6).unwrap().1;
    insta::assert_yaml_snapshot!("bdf_index1_t10_tol1e-6", s);
    let s = pendulum_ggl_bdf(1e-6).unwrap().2;
    insta::assert_yaml_snapshot!("bdf_pendulum_ggl_t10_tol1e-6", s);
    let p = HarmonicOscillator { omega: 1.0 };
    let tols = Tolerances::new(1e-8, 1e-8);
    let mut b = Bdf::new(0.0, &p.y0(), tols.clone(), BdfConfig::default()).unwrap();
    let s = dae_global_error(&mut b, &p, 10.0).unwrap().1;
    insta::assert_yaml_snapshot!("bdf_oscillator_t10_tol1e-8", s);
    for (name, start) in [
        ("be", HuangStart::BackwardEuler),
        ("sirk", HuangStart::SinglyImplicitRk),
    ] {
        let cfg = HuangBdf2Config {
            h: 0.05,
            start,
            ..Default::default()
        };
        let mut b = HuangBdf2::new(0.0, &p.y0(), tols.clone(), cfg).unwrap();
        let s = dae_global_error(&mut b, &p, 10.0).unwrap().1;
        insta::assert_yaml_snapshot!(format!("bdf2_huang_{name}_start_oscillator_h0.05"), s);
    }
    let mut b = SinglyImplicitRk::new(
        0.0,
        &p.y0(),
        tols,
        SirkConfig {
            h: 0.05,
            ..Default::default()
        },
    )
    .unwrap();
    let s = dae_global_error(&mut b, &p, 10.0).unwrap().1;
    insta::assert_yaml_snapshot!("sirk_oscillator_h0.05", s);
}
