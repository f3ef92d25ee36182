//! Every option of `DynamicsOptions` × every method: a run with the option set either differs
//! from the run with the defaults (bits of q, q̇, λ, the statistics, or the error that ends
//! it), or is refused with `ProjectionError::UnusedOption` naming that option. An option that
//! is accepted and changes nothing fails the test. The model is MBS benchmark A02 with one
//! loop (`NFourBar::new(1)`), started at θ = 0.3 so that the run reaches the flat
//! configuration (θ = 0), where `J` loses rank and the rank options decide the solve.
//! The printed table is `benches/results/options_2026-11-28.md`.

use contour_linalg::KktMethod;
use contour_model::models::NFourBar;
use contour_model::models::Planar2g;
use contour_model::{Baumgarte, DynamicsOptions, ModelError, RankDeficiency};
use contour_projection::{
    AccelerationSolver, BaumgarteGains, ErrorControl, Integrator, Method, ProjectionError,
    ProjectorConfig, Simulation, Trajectory,
};

/// The options varied, each with a value inside its range that is not the default, and the
/// options of the run it is compared with. The rank options act on the rank-revealing solve
/// only (where the fast path cannot certify full rank), so their runs take it at every
/// evaluation (`pivot_rtol = 10`) and differ from that run in the one option.
fn options() -> [(&'static str, DynamicsOptions, DynamicsOptions); 5] {
    let d = DynamicsOptions::default();
    let svd = DynamicsOptions {
        pivot_rtol: Some(10.0),
        ..d
    };
    [
        (
            "method",
            d,
            DynamicsOptions {
                method: KktMethod::FullLu,
                ..d
            },
        ),
        (
            "baumgarte",
            d,
            DynamicsOptions {
                baumgarte: Some(Baumgarte::critical(5.0)),
                ..d
            },
        ),
        (
            "pivot_rtol",
            d,
            DynamicsOptions {
                pivot_rtol: Some(10.0),
                ..d
            },
        ),
        (
            "rank_rtol",
            svd,
            DynamicsOptions {
                rank_rtol: Some(0.1),
                ..svd
            },
        ),
        (
            "rank_deficiency",
            DynamicsOptions {
                rank_rtol: Some(0.5),
                ..svd
            },
            DynamicsOptions {
                rank_rtol: Some(0.5),
                rank_deficiency: RankDeficiency::Error,
                ..svd
            },
        ),
    ]
}

/// The defaults with only `option` taken from `opts`.
fn only(option: &str, opts: DynamicsOptions) -> DynamicsOptions {
    let mut d = DynamicsOptions::default();
    match option {
        "method" => d.method = opts.method,
        "baumgarte" => d.baumgarte = opts.baumgarte,
        "pivot_rtol" => d.pivot_rtol = opts.pivot_rtol,
        "rank_rtol" => d.rank_rtol = opts.rank_rtol,
        _ => d.rank_deficiency = opts.rank_deficiency,
    }
    d
}

fn methods() -> Vec<(&'static str, Method)> {
    let lagrange = ProjectorConfig {
        acceleration: AccelerationSolver::Lagrange,
        ..ProjectorConfig::default()
    };
    let mut m: Vec<_> = Method::every(BaumgarteGains::critical(5.0).unwrap())
        .into_iter()
        .map(|m| (m.name(), m))
        .collect();
    m.push(("projector (Lagrange)", Method::Projector(lagrange)));
    m
}

/// Bits of a trajectory: outputs and counters.
fn digest(t: &Trajectory) -> Vec<u64> {
    let mut d = Vec::new();
    for rows in [&t.q, &t.qd, &t.lambda] {
        d.extend(rows.as_flat().iter().map(|x| x.to_bits()));
    }
    d.extend(t.times.iter().map(|x| x.to_bits()));
    let s = &t.stats;
    d.extend([s.steps, s.f_evals, s.rank_revealing_evals, s.output_evals].map(|x| x as u64));
    d
}

/// What a run gives: the digest of its trajectory, or its error (with the partial
/// trajectory's digest).
fn outcome(
    p: &NFourBar,
    method: &Method,
    options: DynamicsOptions,
) -> Result<Vec<u64>, ProjectionError> {
    let (q, qd) = p.state(0.3, -1.0);
    let integrator = match method {
        Method::ExactStabilization(_) => Integrator::bdf(),
        _ => Integrator::abm(),
    };
    let sim = Simulation::new(p, &q, &qd, 0.0, 0.25)
        .method(method.clone())
        .integrator(integrator)
        .error_control(ErrorControl::absolute(1e-8))
        .output_times(vec![0.05, 0.1, 0.15, 0.2, 0.25])
        .dynamics(options);
    sim.run().map(|t| digest(&t))
}

fn error_digest(e: &ProjectionError) -> String {
    match e {
        ProjectionError::Failed(f) => format!("{} @ {:?}", f.source, digest(&f.partial)),
        e => e.to_string(),
    }
}

#[test]
fn every_option_changes_the_run_or_is_refused_by_name() {
    let p = NFourBar::new(1);
    let mut table = String::from("| option \\ method |");
    let methods = methods();
    for (name, _) in &methods {
        table += &format!(" {name} |");
    }
    table += "\n|---|";
    table += &"---|".repeat(methods.len());
    let mut silent = Vec::new();
    for (option, context, opts) in options() {
        table += &format!("\n| `{option}` |");
        for (name, method) in &methods {
            // a method that refuses the context (the projector's pivot_rtol) is compared
            // with its defaults
            let base = match outcome(&p, method, context) {
                Err(ProjectionError::UnusedOption { .. }) => {
                    outcome(&p, method, DynamicsOptions::default())
                }
                base => base,
            };
            let varied = match outcome(&p, method, opts) {
                Err(ProjectionError::UnusedOption { .. }) => {
                    outcome(&p, method, only(option, opts))
                }
                varied => varied,
            };
            let cell = match (&base, &varied) {
                (_, Err(ProjectionError::UnusedOption { option: o, .. })) if *o == option => {
                    "refused".to_string()
                }
                (Ok(a), Ok(b)) if a != b => "changes".to_string(),
                (Err(a), Err(b)) if error_digest(a) != error_digest(b) => {
                    format!("changes: {} → {}", short(a), short(b))
                }
                (Ok(_), Err(e)) => format!("changes: ends with {}", short(e)),
                (Err(_), Ok(_)) => "changes (runs)".to_string(),
                _ => {
                    silent.push(format!("{option} x {name}"));
                    "IGNORED".to_string()
                }
            };
            table += &format!(" {cell} |");
        }
    }
    println!("{table}");
    assert!(
        silent.is_empty(),
        "accepted and ignored: {silent:?}\n{table}"
    );
}

/// The variant name of the error that ends the run (the model's, for a model error).
fn short(e: &ProjectionError) -> String {
    let e = match e {
        ProjectionError::Failed(f) => &f.source,
        e => e,
    };
    let name = |d: String| {
        d.split([' ', '(', '{'])
            .next()
            .unwrap_or_default()
            .to_string()
    };
    match e {
        ProjectionError::Model(m) => name(format!("{m:?}")),
        e => name(format!("{e:?}")),
    }
}

/// The explicit method (FDgq) solves no KKT system: every set option is refused by name, and
/// the defaults run.
#[test]
fn the_explicit_method_refuses_every_set_option() {
    let p = Planar2g::default();
    let run = |opts: DynamicsOptions| {
        Simulation::new(&p, &[0.0; 2], &[0.0; 2], 0.0, 0.1)
            .explicit(&p)
            .dynamics(opts)
            .run()
    };
    assert!(run(DynamicsOptions::default()).is_ok());
    for (option, _, opts) in options() {
        match run(only(option, opts)) {
            Err(ProjectionError::UnusedOption {
                method: "explicit_gamma_q",
                option: o,
                ..
            }) => assert_eq!(o, option),
            other => panic!("{option}: {other:?}"),
        }
    }
}

/// Out-of-range values are refused before the run by `DynamicsOptions::validate`, for every
/// method alike (the projector method included), naming the option.
#[test]
fn out_of_range_values_are_refused_for_every_method() {
    let p = NFourBar::new(1);
    let d = DynamicsOptions::default();
    let bad = [
        (
            "rank_rtol",
            DynamicsOptions {
                rank_rtol: Some(1.0),
                ..d
            },
        ),
        (
            "rank_rtol",
            DynamicsOptions {
                rank_rtol: Some(0.0),
                ..d
            },
        ),
        (
            "rank_rtol",
            DynamicsOptions {
                rank_rtol: Some(-1.0),
                ..d
            },
        ),
        (
            "rank_rtol",
            DynamicsOptions {
                rank_rtol: Some(f64::NAN),
                ..d
            },
        ),
        (
            "pivot_rtol",
            DynamicsOptions {
                pivot_rtol: Some(-1.0),
                ..d
            },
        ),
        (
            "pivot_rtol",
            DynamicsOptions {
                pivot_rtol: Some(f64::NAN),
                ..d
            },
        ),
        (
            "baumgarte.alpha",
            DynamicsOptions {
                baumgarte: Some(Baumgarte {
                    alpha: -1.0,
                    beta: 0.0,
                }),
                ..d
            },
        ),
    ];
    for (name, method) in methods() {
        for (option, opts) in bad {
            match outcome(&p, &method, opts) {
                Err(ProjectionError::Model(ModelError::InvalidOption { option: o, .. })) => {
                    assert_eq!(o, option, "{name}")
                }
                other => panic!("{name} {option}: {other:?}"),
            }
        }
    }
}
