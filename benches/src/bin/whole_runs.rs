//! Whole runs against their evaluations (issue 13, item 3): for every method × integrator the
//! driver accepts, on Keerthi's robot (IC2 made consistent, control law (4.5), T = 5 s,
//! `ErrorControl::absolute(1e-4)`, Table 4.2's setting) and Andrews' squeezer (the test set's
//! consistent start, T = 0.03 s, `ErrorControl::mixed(1e-6)`), the wall time of one run
//! (fastest of 7, outputs only at T) next to `N_f ×` the time of one constrained evaluation at
//! the initial state (`ConstrainedDynamics::accelerations`, and for the projector method
//! `ProjectionDynamics::accelerations`; fastest of 41 batches). Baumgarte's gains are critical
//! with δ = 2 /s on Keerthi's robot (his ICS2) and δ = 100 /s on Andrews' squeezer. The ratio
//! is what the driver, the integrator and the method's own algebra (projections, Newton) add
//! to the evaluations; the method's counters are printed next to it. Prints a markdown table.
//! Not run in CI (timings): `cargo run --release -p contour-benches --bin whole_runs
//! [FILTER [RUNS]]`, where `FILTER` keeps the rows whose `system/method/integrator` contains
//! it and `RUNS` (default 7) sets the number of runs per row (many runs of one row for a
//! profiler). With `WHOLE_RUNS_NO_EVAL` set, the evaluation-timing loop is skipped (the
//! evaluation column is then 1 µs and the ratio meaningless): for profiling the runs alone.

use std::time::Instant;

use contour::model::models::{AndrewsSqueezer, ANDREWS_Q0, KEERTHI_IC2};
use contour::prelude::*;
use contour::projection::ProjectionDynamics;
use contour_benches::min_time_us;
use contour_papers::keerthi::keerthi_system;

/// One system: its mechanism, consistent start, final time and error control.
struct Case<'a> {
    name: &'static str,
    mech: &'a dyn Mechanism,
    q0: Vec<f64>,
    qd0: Vec<f64>,
    t_end: f64,
    ec: ErrorControl,
    /// Baumgarte's critical gains `δ` \[1/s\].
    baumgarte_delta: f64,
}

/// µs of one constrained evaluation at the initial state: (KKT, projector).
fn evaluation_us(case: &Case<'_>) -> Result<(f64, f64), Box<dyn std::error::Error>> {
    let (n, l) = (case.mech.dof(), case.mech.n_constraints());
    let (mut qdd, mut lambda) = (vec![0.0; n], vec![0.0; l]);
    let mut cd = ConstrainedDynamics::new(&case.mech);
    cd.accelerations(&case.mech, 0.0, &case.q0, &case.qd0, &mut qdd, &mut lambda)?;
    let kkt = min_time_us(|| {
        cd.accelerations(&case.mech, 0.0, &case.q0, &case.qd0, &mut qdd, &mut lambda)
            .is_ok()
    });
    let mut pd = ProjectionDynamics::new(&case.mech, contour::linalg::DEFAULT_RANK_RTOL)?;
    let proj = min_time_us(|| {
        pd.accelerations(&case.mech, 0.0, &case.q0, &case.qd0, &mut qdd, &mut lambda)
            .is_ok()
    });
    Ok((kkt, proj))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let keerthi = keerthi_system();
    let k0 = consistent_state(
        &keerthi,
        0.0,
        &KEERTHI_IC2.q,
        &KEERTHI_IC2.qd,
        &ConsistentStateOptions::default(),
    )?;
    let andrews = AndrewsSqueezer::default();
    let filter = std::env::args().nth(1).unwrap_or_default();
    let runs: usize = match std::env::args().nth(2) {
        Some(r) => r.parse()?,
        None => 7,
    };
    let cases = [
        Case {
            name: "keerthi_ic2",
            mech: &keerthi,
            q0: k0.q.clone(),
            qd0: k0.qd.clone(),
            t_end: 5.0,
            ec: ErrorControl::absolute(1e-4),
            baumgarte_delta: 2.0,
        },
        Case {
            name: "andrews",
            mech: &andrews,
            q0: ANDREWS_Q0.to_vec(),
            qd0: vec![0.0; 7],
            t_end: 0.03,
            ec: ErrorControl::mixed(1e-6),
            baumgarte_delta: 100.0,
        },
    ];
    let integrators = contour_benches::every_integrator();
    println!("| system | method | integrator | N_i | N_f | run µs | N_f × eval µs | ratio | µs/step | own algebra |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for case in &cases {
        let (kkt, proj) = if std::env::var_os("WHOLE_RUNS_NO_EVAL").is_some() {
            (1.0, 1.0)
        } else {
            evaluation_us(case)?
        };
        eprintln!(
            "{}: one evaluation {kkt:.3} µs (KKT), {proj:.3} µs (projector)",
            case.name
        );
        for m in &contour_benches::every_method(case.baumgarte_delta)? {
            let eval = if matches!(m, Method::Projector(_)) {
                proj
            } else {
                kkt
            };
            for i in &integrators {
                if !format!("{}/{}/{}", case.name, m.name(), i.name()).contains(&filter) {
                    continue;
                }
                let sim = Simulation::new(&case.mech, &case.q0, &case.qd0, 0.0, case.t_end)
                    .method(m.clone())
                    .integrator(i.clone())
                    .error_control(case.ec)
                    .output_times(vec![case.t_end]);
                let mut best = f64::INFINITY;
                let mut last = None;
                for _ in 0..runs {
                    let t0 = Instant::now();
                    let r = sim.run();
                    best = best.min(t0.elapsed().as_secs_f64() * 1e6);
                    last = Some(r);
                }
                match last {
                    Some(Ok(tr)) => {
                        let s = tr.stats;
                        let evals = s.f_evals as f64 * eval;
                        let own = format!(
                            "proj {} ({} it), reparam {}, Newton {}, jac_f {}, corr {}",
                            s.projections,
                            s.projection_iterations,
                            s.reparametrizations,
                            s.newton_iterations,
                            s.jacobian_f_evals,
                            s.configuration_corrections
                        );
                        println!(
                            "| {} | {} | {} | {} | {} | {best:.1} | {evals:.1} | {:.2} | {:.3} | {own} |",
                            case.name,
                            m.name(),
                            i.name(),
                            s.steps,
                            s.f_evals,
                            best / evals,
                            best / s.steps.max(1) as f64,
                        );
                    }
                    Some(Err(ProjectionError::UnsupportedIntegrator { .. })) => {}
                    Some(Err(e)) => println!(
                        "| {} | {} | {} | failed: {e} | | | | | | |",
                        case.name,
                        m.name(),
                        i.name()
                    ),
                    None => {}
                }
            }
        }
    }
    Ok(())
}
