//! Integer statistics (steps, rejected steps, f-evaluations, …) of a fixed set of runs, so
//! that any change to step or order selection shows in review. Accuracy is checked elsewhere.
//! One snapshot per (method, problem, tolerance); CI runs with `INSTA_UPDATE=no`.

use contour_ode::reproduction::global_error;
use contour_ode::test_models::{ExactSolution, HarmonicOscillator, Kepler, TimeDependent};
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
