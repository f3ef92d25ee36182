//! The recording modes keep what they promise: [`Recording::OutputsOnly`] the outputs of a
//! full run bit for bit and no per-step history; [`Recording::Stream`] the bytes
//! `Trajectory::write_csv` writes for a full run (its independent witness), nothing kept, the
//! vectors' capacity bounded by one step's rows; a failing sink ends the run with a typed
//! error that keeps the partial trajectory; a bound on the step size that forces more steps
//! than the budget is refused before the first step.

use contour_model::models::Pendulum;
use contour_ode::{DormandPrinceConfig, GillMode, OdeError, RungeKuttaGillConfig};
use contour_projection::{
    CsvSink, Integrator, LastRowSink, Method, OutputRow, OutputSink, ProjectionError, Recording,
    Simulation,
};
use std::sync::{Arc, Mutex};

const STEPS: usize = 2000;
const H: f64 = 1e-3;

fn sim(p: &Pendulum, outputs: Vec<f64>, recording: Recording) -> Simulation<'_, Pendulum> {
    let (q0, qd0) = p.state(1.0, 0.0);
    Simulation::new(p, &q0, &qd0, 0.0, STEPS as f64 * H)
        .method(Method::Direct)
        .integrator(Integrator::RungeKuttaGill(RungeKuttaGillConfig {
            mode: GillMode::Fixed { h: H },
            ..RungeKuttaGillConfig::default()
        }))
        .output_times(outputs)
        .recording(recording)
}

#[test]
fn outputs_only_keeps_the_outputs_of_a_full_run() {
    let p = Pendulum::default();
    let full = sim(&p, Vec::new(), Recording::Full).run().unwrap();
    let only = sim(&p, Vec::new(), Recording::OutputsOnly).run().unwrap();
    assert_eq!(full.stats.steps, STEPS);
    assert_eq!(full.step_times.len(), STEPS);
    assert_eq!(full.times.len(), STEPS + 1);
    assert!(only.step_times.is_empty() && only.step_phi.is_empty());
    assert!(only.step_times.capacity() <= 128);
    assert_eq!(
        (&only.times, &only.q, &only.qd),
        (&full.times, &full.q, &full.qd)
    );
    assert_eq!(only.lambda, full.lambda);
    assert_eq!(only.stats, full.stats);
    assert_eq!(only.x_final, full.x_final);
}

#[test]
fn stream_writes_the_csv_of_a_full_run_and_keeps_nothing() {
    let p = Pendulum::default();
    let full = sim(&p, Vec::new(), Recording::Full).run().unwrap();
    let mut witness = Vec::new();
    full.write_csv(&mut witness).unwrap();
    let sink = Arc::new(Mutex::new(CsvSink::new(Vec::<u8>::new())));
    let streamed = sim(&p, Vec::new(), Recording::stream(sink.clone()))
        .run()
        .unwrap();
    assert!(streamed.times.is_empty() && streamed.q.is_empty() && streamed.step_times.is_empty());
    // at most the rows of one step were ever held
    assert!(
        streamed.times.capacity() <= 4,
        "{}",
        streamed.times.capacity()
    );
    assert_eq!(streamed.stats, full.stats);
    assert_eq!(streamed.x_final, full.x_final);
    let sink = Arc::try_unwrap(sink).unwrap().into_inner().unwrap();
    assert_eq!(sink.rows(), STEPS + 1);
    let bytes = sink.finish().unwrap();
    assert_eq!(
        String::from_utf8(bytes).unwrap(),
        String::from_utf8(witness).unwrap()
    );
    // requested output times are streamed too
    let last = Arc::new(Mutex::new(LastRowSink::default()));
    let t_end = STEPS as f64 * H;
    let r = sim(&p, vec![0.5, t_end], Recording::stream(last.clone()))
        .run()
        .unwrap();
    let last = last.lock().unwrap();
    assert_eq!((last.rows, last.t), (2, t_end));
    assert_eq!(last.x, r.x_final);
}

/// Refuses the 11th row.
struct Failing(usize);

impl OutputSink for Failing {
    fn row(&mut self, _row: OutputRow<'_>) -> std::io::Result<()> {
        self.0 += 1;
        if self.0 > 10 {
            return Err(std::io::Error::other("disk full"));
        }
        Ok(())
    }
}

#[test]
fn a_failing_sink_ends_the_run_with_a_typed_error() {
    let p = Pendulum::default();
    let e = sim(
        &p,
        Vec::new(),
        Recording::stream(Arc::new(Mutex::new(Failing(0)))),
    )
    .run()
    .unwrap_err();
    let ProjectionError::Failed(f) = &e else {
        panic!("{e:?}");
    };
    assert!(
        matches!(&f.source, ProjectionError::OutputSink { message, .. } if message == "disk full"),
        "{e}"
    );
    // the run stopped at the step whose rows the sink refused
    assert!(f.partial.stats.steps <= 11, "{}", f.partial.stats.steps);
}

#[test]
fn a_step_bound_forcing_more_steps_than_the_budget_is_refused() {
    let p = Pendulum::default();
    let (q0, qd0) = p.state(1.0, 0.0);
    let e = Simulation::new(&p, &q0, &qd0, 0.0, 1.0)
        .method(Method::Direct)
        .integrator(Integrator::DormandPrince(DormandPrinceConfig {
            h_max: 1e-300,
            ..DormandPrinceConfig::default()
        }))
        .run()
        .unwrap_err();
    assert!(
        matches!(
            e.cause(),
            ProjectionError::Ode(OdeError::StepBoundTooSmall { name: "h_max", .. })
        ),
        "{e}"
    );
}
