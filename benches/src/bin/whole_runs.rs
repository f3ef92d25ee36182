//! Whole runs against their evaluations: for every method × integrator the
//! driver accepts, on Keerthi's robot (IC2 made consistent, control law (4.5), T = 5 s,
//! `ErrorControl::absolute(1e-4)`, Table 4.2's setting) and Andrews' squeezer (the test set's
//! consistent start, T = 0.03 s, `ErrorControl::mixed(1e-6)`), the wall time of one run
//! (fastest of 7, outputs only at T) against two denominators, both printed:
//!
//! * **`N_f × eval`** (and `ratio` = run / it): `N_f ×` the time of one constrained evaluation
//!   at the initial state (`ConstrainedDynamics::accelerations` — with Baumgarte's terms for
//!   Baumgarte's method — and for the projector method `ProjectionDynamics::accelerations`;
//!   fastest of 41 batches of repeated calls). One state
//!   in a hot loop: warm caches, perfectly predicted branches — a lower bound on what the
//!   run's evaluations cost inside the run.
//! * **`replay`** (and `ratio replay` = run / it): the run's own evaluations replayed alone.
//!   One untimed run records the `(t, q, q̇)` of every call of `Mechanism::applied_forces`
//!   (a pass-through [`Controller`] adding nothing, so the run and its bits are unchanged);
//!   then the same evaluation as above is called at those states in order, the first `N_f` of
//!   them (the outputs' λ at T is evaluated after the last step), and the fastest of 41 such
//!   passes is the column. Different states from one call to the next, as in the run; what
//!   the run adds besides (the integrator, the driver, the monitor, the method's own
//!   algebra) then also includes its effect on the evaluations' caches and branch history.
//!   Shown only when every recorded call is an evaluation or an output (`recorded = N_f +
//!   output evaluations`), else `—` (methods whose own algebra evaluates `u` as well).
//! * **`integrator`** (and `ratio w/o integrator` = (run − it) / `N_f × eval`): the
//!   integrator's own algebra in the run, measured, not estimated. The stepper is built as
//!   `Simulation::run` builds it (same configuration, tolerances, `t_stop = T`) and driven to
//!   `T` with the output interpolated there, but its right-hand side plays back the run's own
//!   derivatives `ẋ = (q̇, q̈)` (the recorded states evaluated once, beforehand): the `i`-th
//!   call returns the `i`-th value, at the cost of a copy. The pass must make exactly `N_f`
//!   calls and end on the run's final state bit for bit, else the program stops with an
//!   error; the column is the fastest of 41 passes. For the BDF (`—`) the integrator's
//!   algebra is its Newton iteration, counted with the method's own algebra; the other
//!   methods (`—`) change the integrated state between steps (projections,
//!   reparametrizations), which a bare stepper does not repeat, and have their own algebra
//!   counted in the last column.
//! * **`integrator + evals`** (and `driver share` = (run − it) / `N_f × eval`): the same
//!   playback, but each call also makes the run's evaluation at its recorded state (result
//!   discarded): the run's integrator and evaluations interleaved as in the run, without the
//!   driver. Fastest of 41 passes, alternating with the passes of `integrator`. Its excess
//!   over `replay + integrator` is what interleaving the two costs on this CPU (front end and
//!   branch history shared by two code paths; not I-cache misses, which callgrind counts at
//!   a few hundred per run); `run − it` is what the driver adds: input checks, consistent
//!   start, method set-up, the per-step violation monitor and recorder, the outputs.
//!
//! The issue-13 rule (run ≤ 1.3 × `N_f × eval` except where the method's own algebra is
//! counted separately) is read on `ratio`; with the integrator's own algebra (Adams
//! differences and coefficients, Runge–Kutta stages and error norms) counted separately like
//! a Newton iteration, on `ratio w/o integrator`; and the driver's own share on `driver
//! share`.
//!
//! Baumgarte's gains are critical with δ = 2 /s on Keerthi's robot (his ICS2) and δ = 100 /s on
//! Andrews' squeezer. "The evaluation" is the one the method makes per f-evaluation: for
//! Baumgarte's method the KKT evaluation with its terms (4.3), which evaluates φ, J and b as
//! well (until 2026-11-25 both denominators timed the plain KKT evaluation for Baumgarte's
//! rows too, which charged those terms to the driver). The ratios are what the driver, the integrator and the method's own
//! algebra (projections, Newton) add to the evaluations; the method's counters are printed
//! next to them. Prints a markdown table. Not run in CI (timings): `cargo run --release -p
//! contour-benches --bin whole_runs [FILTER [RUNS]]`, where `FILTER` keeps the rows whose
//! `system/method/integrator` contains it and `RUNS` (default 7) sets the number of runs per
//! row (many runs of one row for a profiler). With `WHOLE_RUNS_NO_EVAL` set, both
//! evaluation timings and the recording run are skipped (the evaluation columns are then 1 µs
//! and the ratios meaningless): for profiling the runs alone.

use std::cell::RefCell;
use std::time::Instant;

use contour::model::models::{AndrewsSqueezer, ANDREWS_Q0};
use contour::ode::{
    AdamsBashforthMoulton, Advance, DormandPrince54, OdeError, OdeRhs, RhsError, RungeKuttaGill,
};
use contour::prelude::*;
use contour::projection::{ProjectionDynamics, Trajectory};
use contour_benches::min_time_us;

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

/// The evaluation of `ẋ = f(x)` that `method` makes once per f-evaluation: the projector
/// method's `ProjectionDynamics::accelerations`, Baumgarte's `ConstrainedDynamics` with its
/// terms (4.3) (which evaluate φ, J and b as well), every other method the plain KKT
/// evaluation (1.4)–(1.5).
enum Evaluation {
    Kkt(ConstrainedDynamics),
    Projector(ProjectionDynamics),
}

impl Evaluation {
    fn new(case: &Case<'_>, method: &Method) -> Result<Self, Box<dyn std::error::Error>> {
        Ok(match method {
            Method::Projector(_) => Evaluation::Projector(ProjectionDynamics::new(
                &case.mech,
                contour::linalg::DEFAULT_RANK_RTOL,
            )?),
            Method::Baumgarte(gains) => {
                let opts = DynamicsOptions {
                    baumgarte: Some(gains.to_model()?),
                    ..Default::default()
                };
                Evaluation::Kkt(ConstrainedDynamics::with_options(&case.mech, opts)?)
            }
            _ => Evaluation::Kkt(ConstrainedDynamics::new(&case.mech)),
        })
    }

    fn call(&mut self, case: &Case<'_>, t: f64, q: &[f64], qd: &[f64], out: &mut Out) -> bool {
        let (qdd, lambda) = (&mut out.0, &mut out.1);
        match self {
            Evaluation::Kkt(cd) => cd.accelerations(&case.mech, t, q, qd, qdd, lambda).is_ok(),
            Evaluation::Projector(pd) => {
                pd.accelerations(&case.mech, t, q, qd, qdd, lambda).is_ok()
            }
        }
    }
}

/// `(q̈, λ)` buffers of one evaluation.
struct Out(Vec<f64>, Vec<f64>);

impl Out {
    fn new(case: &Case<'_>) -> Self {
        Out(
            vec![0.0; case.mech.dof()],
            vec![0.0; case.mech.n_constraints()],
        )
    }
}

/// µs of one evaluation of `method` at the initial state (fastest of 41 batches).
fn evaluation_us(case: &Case<'_>, method: &Method) -> Result<f64, Box<dyn std::error::Error>> {
    let mut ev = Evaluation::new(case, method)?;
    let mut out = Out::new(case);
    if !ev.call(case, 0.0, &case.q0, &case.qd0, &mut out) {
        return Err(format!("{}: the evaluation at the initial state failed", case.name).into());
    }
    Ok(min_time_us(|| {
        ev.call(case, 0.0, &case.q0, &case.qd0, &mut out)
    }))
}

/// The run of `method` × `integrator` on `case`'s system, for `mech` (the case's mechanism,
/// or it wrapped).
fn simulation<'m, M: Mechanism + ?Sized>(
    case: &Case<'_>,
    mech: &'m M,
    method: &Method,
    integrator: &Integrator,
) -> Simulation<'m, M> {
    Simulation::new(mech, &case.q0, &case.qd0, 0.0, case.t_end)
        .method(method.clone())
        .integrator(integrator.clone())
        .error_control(case.ec)
        .output_times(vec![case.t_end])
}

/// A pass-through controller (adds no force) that records the `(t, q, q̇)` of every call,
/// flattened as `[t, q…, q̇…]`.
#[derive(Default)]
struct StateRecorder(RefCell<Vec<f64>>);

impl Controller for StateRecorder {
    fn forces(&self, t: f64, q: &[f64], qd: &[f64], _u: &mut [f64]) {
        let mut r = self.0.borrow_mut();
        r.push(t);
        r.extend_from_slice(q);
        r.extend_from_slice(qd);
    }
}

/// The `(t, q, q̇)` of every `Mechanism::applied_forces` call of one untimed run, flattened as
/// `[t, q…, q̇…]` per call, after checking that the run repeats the timed one.
fn record_states(
    case: &Case<'_>,
    method: &Method,
    integrator: &Integrator,
    timed: &SimulationStats,
) -> Result<Vec<f64>, Box<dyn std::error::Error>> {
    let rec = StateRecorder::default();
    let wrapped = WithController::new(case.mech, &rec);
    let s = simulation(case, &wrapped, method, integrator).run()?.stats;
    if (s.steps, s.f_evals) != (timed.steps, timed.f_evals) {
        return Err("the recording run differs from the timed run".into());
    }
    Ok(rec.0.into_inner())
}

/// The first `N_f` recorded states when every recorded call is an evaluation or an output
/// (`recorded = N_f + output evaluations`), else `None`.
fn evaluation_states<'s>(
    case: &Case<'_>,
    states: &'s [f64],
    s: &SimulationStats,
) -> Option<&'s [f64]> {
    let w = 1 + 2 * case.mech.dof();
    (states.len() == (s.f_evals + s.output_evals) * w).then(|| &states[..s.f_evals * w])
}

/// µs of the evaluations of one run replayed alone (see the module documentation).
fn replay_us(
    case: &Case<'_>,
    method: &Method,
    states: &[f64],
) -> Result<f64, Box<dyn std::error::Error>> {
    let n = case.mech.dof();
    let mut ev = Evaluation::new(case, method)?;
    let mut out = Out::new(case);
    let mut best = f64::INFINITY;
    for _ in 0..41 {
        let t0 = Instant::now();
        for x in states.chunks_exact(1 + 2 * n) {
            let (t, q, qd) = (x[0], &x[1..=n], &x[n + 1..]);
            std::hint::black_box(ev.call(case, t, q, qd, &mut out));
        }
        best = best.min(t0.elapsed().as_secs_f64() * 1e6);
    }
    Ok(best)
}

/// The run's evaluations made again at the recorded states, their results discarded (the
/// second mode of [`Playback`]).
struct Reevaluate<'a, 'c> {
    ev: &'a mut Evaluation,
    case: &'a Case<'c>,
    states: &'a [f64],
    out: &'a mut Out,
}

/// The run's derivatives `ẋ = (q̇, q̈)` played back: the `i`-th call returns the `i`-th
/// recorded value, whatever its arguments (the integrator's own algebra with evaluations of
/// no cost). With `reevaluate`, each call also makes the run's `i`-th evaluation at its
/// recorded state (the integrator and the evaluations interleaved as in the run, without
/// the driver).
struct Playback<'a, 'c> {
    dim: usize,
    derivs: &'a [f64],
    next: usize,
    reevaluate: Option<Reevaluate<'a, 'c>>,
}

impl OdeRhs for Playback<'_, '_> {
    fn dim(&self) -> usize {
        self.dim
    }
    fn eval(&mut self, _t: f64, _y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        let start = self.next * self.dim;
        let d = self
            .derivs
            .get(start..start + self.dim)
            .ok_or(RhsError::Failed)?;
        if let Some(r) = &mut self.reevaluate {
            let n = self.dim / 2;
            let x = r
                .states
                .get(self.next * (1 + 2 * n)..(self.next + 1) * (1 + 2 * n))
                .ok_or(RhsError::Failed)?;
            std::hint::black_box(r.ev.call(r.case, x[0], &x[1..=n], &x[n + 1..], r.out));
        }
        dy.copy_from_slice(d);
        self.next += 1;
        Ok(())
    }
}

/// One pass of the bare stepper over the run (built, stepped to `T` with `t_stop = T` as the
/// driver does, the output at `T` interpolated into `out`).
fn play<'a, 'c, S: Advance<Playback<'a, 'c>>>(
    mut stepper: S,
    f: &mut Playback<'a, 'c>,
    t_end: f64,
    out: &mut [f64],
) -> Result<(), OdeError> {
    stepper.set_t_stop(Some(t_end));
    while stepper.t() < t_end {
        stepper.step(f)?;
    }
    stepper.dense(t_end, out)
}

/// µs of the integrator's own algebra in one run (see the module documentation): the stepper
/// built as `Simulation::run` builds it and driven through the run's steps by [`Playback`]
/// of the run's own derivatives: the fastest of 41 passes alone, and of 41 passes that also
/// make the run's evaluations at their recorded states (alternating). `None` for the BDF (its iteration
/// matrix is the method's Newton, counted by the other columns) and for every method but
/// the direct one and Baumgarte's (the others change the integrated state between steps,
/// which the bare stepper does not repeat). Errors unless every pass makes exactly `N_f`
/// calls and ends at the run's final state, bit for bit.
fn integrator_us(
    case: &Case<'_>,
    method: &Method,
    integrator: &Integrator,
    states: &[f64],
    tr: &Trajectory,
) -> Result<Option<(f64, f64)>, Box<dyn std::error::Error>> {
    if !matches!(method, Method::Direct | Method::Baumgarte(_)) {
        return Ok(None);
    }
    let n = case.mech.dof();
    let mut ev = Evaluation::new(case, method)?;
    let mut out = Out::new(case);
    let mut derivs = Vec::with_capacity(states.len() / (1 + 2 * n) * 2 * n);
    for x in states.chunks_exact(1 + 2 * n) {
        let (t, q, qd) = (x[0], &x[1..=n], &x[n + 1..]);
        if !ev.call(case, t, q, qd, &mut out) {
            return Err("an evaluation of the recorded run failed".into());
        }
        derivs.extend_from_slice(qd);
        derivs.extend_from_slice(&out.0);
    }
    let x0: Vec<f64> = case.q0.iter().chain(&case.qd0).copied().collect();
    let tol = case.ec.to_ode(2 * n);
    let mut x_end = vec![0.0; 2 * n];
    let mut best = [f64::INFINITY; 2];
    let mut ev2 = Evaluation::new(case, method)?;
    let mut out2 = Out::new(case);
    for pass in 0..82 {
        let mut f = Playback {
            dim: 2 * n,
            derivs: &derivs,
            next: 0,
            reevaluate: (pass % 2 == 1).then_some(Reevaluate {
                ev: &mut ev2,
                case,
                states,
                out: &mut out2,
            }),
        };
        let t0 = Instant::now();
        match integrator {
            Integrator::Abm(cfg) => play(
                AdamsBashforthMoulton::new(0.0, &x0, tol.clone(), cfg.clone())?,
                &mut f,
                case.t_end,
                &mut x_end,
            )?,
            Integrator::DormandPrince(cfg) => play(
                DormandPrince54::new(0.0, &x0, tol.clone(), cfg.clone())?,
                &mut f,
                case.t_end,
                &mut x_end,
            )?,
            Integrator::RungeKuttaGill(cfg) => play(
                RungeKuttaGill::new(0.0, &x0, tol.clone(), cfg.clone())?,
                &mut f,
                case.t_end,
                &mut x_end,
            )?,
            // implicit integrators are not played back
            Integrator::Bdf(_) | Integrator::Sirk(_) => return Ok(None),
        }
        best[pass % 2] = best[pass % 2].min(t0.elapsed().as_secs_f64() * 1e6);
        let (q, qd) = (tr.q.last(), tr.qd.last());
        let same_end = q.zip(qd).is_some_and(|(q, qd)| {
            x_end
                .iter()
                .zip(q.iter().chain(qd))
                .all(|(a, b)| a.to_bits() == b.to_bits())
        });
        if f.next * 2 * n != derivs.len() || !same_end {
            return Err(format!(
                "{}/{}/{}: the playback left the run ({} of {} calls)",
                case.name,
                method.name(),
                integrator.name(),
                f.next,
                derivs.len() / (2 * n)
            )
            .into());
        }
    }
    Ok(Some((best[0], best[1])))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (keerthi, k0) = contour_benches::keerthi_ic2_start()?;
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
    println!("| system | method | integrator | N_i | N_f | run µs | N_f × eval µs | ratio | replay µs | ratio replay | integrator µs | ratio w/o integrator | integrator + evals µs | driver share | µs/step | own algebra |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let no_eval = std::env::var_os("WHOLE_RUNS_NO_EVAL").is_some();
    for case in &cases {
        for m in &contour_benches::every_method(case.baumgarte_delta)? {
            let eval = if no_eval {
                1.0
            } else {
                evaluation_us(case, m)?
            };
            eprintln!("{}/{}: one evaluation {eval:.3} µs", case.name, m.name());
            for i in &integrators {
                if !format!("{}/{}/{}", case.name, m.name(), i.name()).contains(&filter) {
                    continue;
                }
                let sim = simulation(case, &case.mech, m, i);
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
                        let states = if no_eval {
                            None
                        } else {
                            Some(record_states(case, m, i, &s)?)
                        };
                        let states = states
                            .as_deref()
                            .and_then(|x| evaluation_states(case, x, &s));
                        let (replay, integ_pair) = match states {
                            Some(x) => (
                                Some(replay_us(case, m, x)?),
                                integrator_us(case, m, i, x, &tr)?,
                            ),
                            None => (None, None),
                        };
                        let (integ, interleaved) =
                            (integ_pair.map(|p| p.0), integ_pair.map(|p| p.1));
                        let cell = |v: Option<f64>, f: &dyn Fn(f64) -> f64, digits: usize| {
                            v.map_or("—".to_owned(), |v| format!("{:.*}", digits, f(v)))
                        };
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
                            "| {} | {} | {} | {} | {} | {best:.1} | {evals:.1} | {:.2} | {} | {} | {} | {} | {} | {} | {:.3} | {own} |",
                            case.name,
                            m.name(),
                            i.name(),
                            s.steps,
                            s.f_evals,
                            best / evals,
                            cell(replay, &|r| r, 1),
                            cell(replay, &|r| best / r, 2),
                            cell(integ, &|g| g, 1),
                            cell(integ, &|g| (best - g) / evals, 2),
                            cell(interleaved, &|g| g, 1),
                            cell(interleaved, &|g| (best - g) / evals, 2),
                            best / s.steps.max(1) as f64,
                        );
                    }
                    Some(Err(ProjectionError::UnsupportedIntegrator { .. })) => {}
                    Some(Err(e)) => println!(
                        "| {} | {} | {} | failed: {e} | | | | | | | | | | | | |",
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
