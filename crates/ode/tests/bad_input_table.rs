//! The bad-input table of contour-ode: every public function that takes a slice or an index,
//! fed wrong lengths, indices out of range, NaN/∞ and tolerances or step bounds below what
//! f64 can resolve. Each case must return an error whose message names the argument (no
//! panic, no `Ok`); [`every_slice_or_index_fn_has_a_case`] proves that each such function of
//! `src/` has a case here or a written exemption.
//!
//! The dense output is fed a buffer one short and one long for every method, before the first
//! step and after it (24 calls).

use contour_ode::*;

type Call = Box<dyn Fn() -> Result<(), OdeError>>;

/// One case: the function (`file.rs:name`), the bad input, a word the error message must
/// contain, the call.
pub struct Case {
    /// `file.rs:name` (`file.rs:Trait::name` for a trait method).
    pub func: &'static str,
    /// The bad input, in words.
    pub input: String,
    /// A word the error message must contain.
    pub names: &'static str,
    /// The call.
    pub call: Call,
}

fn case(
    func: &'static str,
    input: impl Into<String>,
    names: &'static str,
    call: impl Fn() -> Result<(), OdeError> + 'static,
) -> Case {
    Case {
        func,
        input: input.into(),
        names,
        call: Box::new(call),
    }
}

/// Functions the table does not feed, with the reason.
pub const EXEMPT: &[(&str, &str)] = &[
    (
        "events.rs:EventFunction::g",
        "implemented by the caller; the driver checks g is finite",
    ),
    (
        "events.rs:EventFunction::on_event",
        "implemented by the caller",
    ),
    (
        "problem.rs:OdeRhs::eval",
        "implemented by the caller; the methods check f is finite",
    ),
    (
        "problem.rs:DaeResidual::residual",
        "implemented by the caller",
    ),
    (
        "problem.rs:DaeJacobian::iteration_matrix",
        "implemented by the caller",
    ),
    (
        "problem.rs:DaeJacobian::solve_iteration",
        "implemented by the caller; the BDF checks the update is finite",
    ),
    (
        "problem.rs:DaeJacobian::map_error_estimate",
        "implemented by the caller",
    ),
    (
        "problem.rs:DaeJacobian::map_newton_update",
        "implemented by the caller; the BDF checks the norm of the mapped update is finite",
    ),
    ("norm.rs:active_components", "a count: every n is valid"),
    (
        "test_models.rs:exact",
        "reference problems of the tests and benches",
    ),
    (
        "test_models.rs:exact_derivative",
        "reference problems of the tests and benches",
    ),
    (
        "test_models.rs:phi",
        "reference problems of the tests and benches",
    ),
    (
        "test_models.rs:energy",
        "reference problems of the tests and benches",
    ),
    (
        "test_models.rs:max_abs_diff",
        "reference problems of the tests and benches",
    ),
    (
        "test_models.rs:ExactSolution::exact",
        "reference problems of the tests and benches",
    ),
    (
        "verification.rs:observed_order",
        "verification runs of tables/ode.md",
    ),
    (
        "verification.rs:abm_steps",
        "verification runs of tables/ode.md",
    ),
    (
        "verification.rs:abm_order",
        "verification runs of tables/ode.md",
    ),
    (
        "verification.rs:bdf_steps",
        "verification runs of tables/ode.md",
    ),
    (
        "verification.rs:bdf_order",
        "verification runs of tables/ode.md",
    ),
    (
        "verification.rs:max_rel_error",
        "verification runs of tables/ode.md",
    ),
];

const Y0: [f64; 3] = [1.0, 0.0, -0.5];

/// y' = −y (three components).
fn decay() -> FnRhs<impl FnMut(f64, &[f64], &mut [f64])> {
    FnRhs::new(3, |_t, y: &[f64], dy: &mut [f64]| {
        for (d, v) in dy.iter_mut().zip(y) {
            *d = -v;
        }
    })
}

fn tol() -> Tolerances {
    Tolerances::new(1e-8, 1e-8)
}

/// `stepper.dense` with a buffer of `len` after `steps` steps.
fn dense_after<S: Stepper + Advance<F>, F>(
    mut s: S,
    mut f: F,
    steps: usize,
    len: usize,
) -> Result<(), OdeError> {
    for _ in 0..steps {
        s.step(&mut f)?;
    }
    let mut out = vec![0.0; len];
    s.dense(s.t(), &mut out)
}

fn dense_cases() -> Vec<Case> {
    let mut v = Vec::new();
    for steps in [0usize, 1] {
        for len in [2usize, 4] {
            let when = if steps == 0 {
                "before the first step"
            } else {
                "after a step"
            };
            let input = |m: &str| format!("{m}, out of length {len} for 3 states, {when}");
            v.push(case(
                "stepper.rs:Stepper::dense",
                input("ABM"),
                "out",
                move || {
                    dense_after(
                        AdamsBashforthMoulton::new(0.0, &Y0, tol(), AbmConfig::default())?,
                        decay(),
                        steps,
                        len,
                    )
                },
            ));
            v.push(case(
                "stepper.rs:Stepper::dense",
                input("RKG"),
                "out",
                move || {
                    dense_after(
                        RungeKuttaGill::new(0.0, &Y0, tol(), RungeKuttaGillConfig::default())?,
                        decay(),
                        steps,
                        len,
                    )
                },
            ));
            v.push(case(
                "stepper.rs:Stepper::dense",
                input("DOPRI5"),
                "out",
                move || {
                    dense_after(
                        DormandPrince54::new(0.0, &Y0, tol(), DormandPrinceConfig::default())?,
                        decay(),
                        steps,
                        len,
                    )
                },
            ));
            v.push(case(
                "stepper.rs:Stepper::dense",
                input("BDF"),
                "out",
                move || {
                    dense_after(
                        Bdf::new(0.0, &Y0, tol(), BdfConfig::default())?,
                        OdeAsDae::new(decay()),
                        steps,
                        len,
                    )
                },
            ));
            v.push(case(
                "stepper.rs:Stepper::dense",
                input("Huang BDF2"),
                "out",
                move || {
                    dense_after(
                        HuangBdf2::new(0.0, &Y0, tol(), HuangBdf2Config::default())?,
                        OdeAsDae::new(decay()),
                        steps,
                        len,
                    )
                },
            ));
            v.push(case(
                "stepper.rs:Stepper::dense",
                input("SIRK"),
                "out",
                move || {
                    dense_after(
                        SinglyImplicitRk::new(0.0, &Y0, tol(), SirkConfig::default())?,
                        OdeAsDae::new(decay()),
                        steps,
                        len,
                    )
                },
            ));
        }
    }
    v
}

/// Every case of the table.
pub fn cases() -> Vec<Case> {
    let mut v = vec![
        // constructors: NaN state, tolerance floors
        case(
            "adams_bashforth_moulton.rs:new",
            "y0 = (1, NaN, 0)",
            "InitialState",
            || {
                AdamsBashforthMoulton::new(0.0, &[1.0, f64::NAN, 0.0], tol(), AbmConfig::default())
                    .map(|_| ())
            },
        ),
        case(
            "adams_bashforth_moulton.rs:new",
            "rtol = 0, atol = 1e-100 at |y0| = 1",
            "floor",
            || {
                AdamsBashforthMoulton::new(
                    0.0,
                    &Y0,
                    Tolerances::new(0.0, 1e-100),
                    AbmConfig::default(),
                )
                .map(|_| ())
            },
        ),
        case("dormand_prince.rs:new", "rtol = 1e-16", "floor", || {
            DormandPrince54::new(
                0.0,
                &Y0,
                Tolerances::new(1e-16, 1e-8),
                DormandPrinceConfig::default(),
            )
            .map(|_| ())
        }),
        case(
            "dormand_prince.rs:new",
            "atol = 1e-300, rtol = 0, |y0| = 1e3",
            "floor",
            || {
                DormandPrince54::new(
                    0.0,
                    &[1e3],
                    Tolerances::new(0.0, 1e-300),
                    DormandPrinceConfig::default(),
                )
                .map(|_| ())
            },
        ),
        case(
            "runge_kutta_gill.rs:new",
            "y0 = (inf)",
            "InitialState",
            || {
                RungeKuttaGill::new(
                    0.0,
                    &[f64::INFINITY],
                    tol(),
                    RungeKuttaGillConfig::default(),
                )
                .map(|_| ())
            },
        ),
        case(
            "bdf.rs:new",
            "per-component atol of length 2 for 3 states",
            "expected 3",
            || {
                Bdf::new(
                    0.0,
                    &Y0,
                    tol().with_atol_per_component(vec![1e-8; 2]),
                    BdfConfig::default(),
                )
                .map(|_| ())
            },
        ),
        case("bdf.rs:with_max_order", "max order 9", "max_order", || {
            Bdf::new(0.0, &Y0, tol(), BdfConfig::default().with_max_order(9)).map(|_| ())
        }),
        case("bdf.rs:fixed", "fixed order 0", "fixed", || {
            Bdf::new(0.0, &Y0, tol(), BdfConfig::default().fixed(0, 0.1)).map(|_| ())
        }),
        case(
            "bdf.rs:dense_derivative",
            "out of length 2 for 3 states",
            "out",
            || {
                let s = Bdf::new(0.0, &Y0, tol(), BdfConfig::default())?;
                s.dense_derivative(0.0, &mut [0.0; 2])
            },
        ),
        case(
            "bdf.rs:dense_derivative",
            "t_out = NaN",
            "OutputTime",
            || {
                let s = Bdf::new(0.0, &Y0, tol(), BdfConfig::default())?;
                s.dense_derivative(f64::NAN, &mut [0.0; 3])
            },
        ),
        case(
            "bdf.rs:start_with_history",
            "one history value",
            "history length",
            || {
                let mut s = Bdf::new(0.0, &Y0, tol(), BdfConfig::default())?;
                s.start_with_history(0.1, &[&Y0])
            },
        ),
        case(
            "bdf.rs:restart_with_derivative",
            "y' of length 2",
            "expected 3",
            || {
                let mut s = Bdf::new(0.0, &Y0, tol(), BdfConfig::default())?;
                s.restart_with_derivative(0.0, &Y0, &[0.0; 2])
            },
        ),
        case(
            "sirk.rs:restart_with_derivative",
            "y' of length 2",
            "expected 3",
            || {
                let mut s = SinglyImplicitRk::new(0.0, &Y0, tol(), SirkConfig::default())?;
                s.restart_with_derivative(0.0, &Y0, &[0.0; 2])
            },
        ),
        case("sirk_ode.rs:new", "rtol = 1e-15", "floor", || {
            SirkOde::new(
                0.0,
                &Y0,
                Tolerances::new(1e-15, 1e-8),
                SirkConfig::default(),
            )
            .map(|_| ())
        }),
        case("bdf_huang.rs:new", "y0 = (NaN)", "InitialState", || {
            HuangBdf2::new(0.0, &[f64::NAN], tol(), HuangBdf2Config::default()).map(|_| ())
        }),
        case("sirk.rs:new", "rtol = 1e-15", "floor", || {
            SinglyImplicitRk::new(
                0.0,
                &Y0,
                Tolerances::new(1e-15, 1e-8),
                SirkConfig::default(),
            )
            .map(|_| ())
        }),
        // the driver
        case(
            "driver.rs:integrate",
            "unsorted output times",
            "invalid interval",
            || {
                let mut s = DormandPrince54::new(0.0, &Y0, tol(), DormandPrinceConfig::default())?;
                integrate(
                    &mut s,
                    &mut decay(),
                    1.0,
                    &[0.5, 0.2],
                    &mut [],
                    &DriverOptions::default(),
                )
                .map(|_| ())
            },
        ),
        case(
            "driver.rs:integrate",
            "DOPRI5 with h_max = 1e-300",
            "h_max",
            || {
                let cfg = DormandPrinceConfig {
                    h_max: 1e-300,
                    ..DormandPrinceConfig::default()
                };
                let mut s = DormandPrince54::new(0.0, &Y0, tol(), cfg)?;
                integrate_to(&mut s, &mut decay(), 1.0).map(|_| ())
            },
        ),
        case(
            "driver.rs:integrate",
            "h_max = 1e-3 on [0, 1e4] with 1e6 steps",
            "max_steps",
            || {
                let cfg = DormandPrinceConfig {
                    h_max: 1e-3,
                    ..DormandPrinceConfig::default()
                };
                let mut s = DormandPrince54::new(0.0, &Y0, tol(), cfg)?;
                integrate_to(&mut s, &mut decay(), 1e4).map(|_| ())
            },
        ),
        case(
            "driver.rs:check_step_bound",
            "h_max = 1e-20 at t = 1e6",
            "time resolution",
            || {
                let cfg = DormandPrinceConfig {
                    h_max: 1e-20,
                    ..DormandPrinceConfig::default()
                };
                let s = DormandPrince54::new(1e6, &Y0, tol(), cfg)?;
                driver::check_step_bound(&s, 1e6, 1e6 + 1.0, 1_000_000)
            },
        ),
        // norms
        case(
            "norm.rs:validate",
            "weights of length 2 for 3 states",
            "expected 3",
            || tol().with_weights(vec![1.0; 2]).validate(3),
        ),
        case(
            "norm.rs:validate_at",
            "atol = 1e-20, rtol = 0, |y0| = 1",
            "floor",
            || Tolerances::new(0.0, 1e-20).validate_at(&Y0),
        ),
        case("norm.rs:atol_at", "i = 5 of 3 components", "i = 5", || {
            tol()
                .with_atol_per_component(vec![1e-8; 3])
                .atol_at(5)
                .map(|_| ())
        }),
        case(
            "norm.rs:inverse_scales",
            "y_abs of length 2, s of length 3",
            "y_abs",
            || tol().inverse_scales(&[1.0; 2], &mut [0.0; 3]),
        ),
        case(
            "norm.rs:inverse_scales",
            "atol of length 2, s of length 3",
            "atol",
            || {
                tol()
                    .with_atol_per_component(vec![1e-8; 2])
                    .inverse_scales(&[1.0; 3], &mut [0.0; 3])
            },
        ),
        case(
            "norm.rs:norm_scaled",
            "s of length 2 for e of 3",
            "s",
            || tol().norm_scaled(&[1.0; 3], &[1.0; 2], 3).map(|_| ()),
        ),
        case("norm.rs:norm_scaled", "m = 0", "m", || {
            tol().norm_scaled(&[1.0; 3], &[1.0; 3], 0).map(|_| ())
        }),
        case(
            "norm.rs:norm_two_point",
            "a of length 1 for e of 3",
            "a",
            || {
                tol()
                    .norm_two_point(&[1.0; 3], &[1.0], &[1.0; 3])
                    .map(|_| ())
            },
        ),
        // problems
        case(
            "problem.rs:new",
            "FnRhs of dimension 2 for a 3-state stepper",
            "expected 3",
            || {
                let mut s = DormandPrince54::new(0.0, &Y0, tol(), DormandPrinceConfig::default())?;
                let mut f = FnRhs::new(2, |_t, _y: &[f64], dy: &mut [f64]| dy.fill(0.0));
                s.step(&mut f).map(|_| ())
            },
        ),
        // stepper state changes
        case(
            "stepper.rs:Advance::replace_y",
            "y of length 2",
            "expected 3",
            || {
                let mut s = DormandPrince54::new(0.0, &Y0, tol(), DormandPrinceConfig::default())?;
                let mut f = decay();
                s.step(&mut f)?;
                s.replace_y(&mut f, &[0.0; 2])
            },
        ),
        case(
            "stepper.rs:Advance::restart",
            "y = (NaN, 0, 0)",
            "ReplacedState",
            || {
                let mut s = DormandPrince54::new(0.0, &Y0, tol(), DormandPrinceConfig::default())?;
                s.restart(&mut decay(), 0.0, &[f64::NAN, 0.0, 0.0])
            },
        ),
        case(
            "stepper.rs:check_dense",
            "out of length 4 for 3",
            "out",
            || stepper::check_dense(3, 0.0, &[0.0; 4]),
        ),
        case(
            "stepper.rs:Stepper::dense",
            "DOPRI5, t_out = NaN",
            "OutputTime",
            || {
                let s = DormandPrince54::new(0.0, &Y0, tol(), DormandPrinceConfig::default())?;
                s.dense(f64::NAN, &mut [0.0; 3])
            },
        ),
    ];
    v.extend(dense_cases());
    v
}

/// Every case is an error naming its argument.
#[test]
fn every_case_is_an_error_naming_the_argument() {
    let cases = cases();
    crate::pub_fn_scan::check_cases(
        "contour-ode",
        cases.iter().map(|c| {
            (
                c.func,
                c.input.as_ref(),
                c.names,
                &*c.call as &dyn Fn() -> _,
            )
        }),
    );
}

/// The lint: each public function of `src/` taking a slice or an index has a case above or
/// an exemption with its reason.
#[test]
fn every_slice_or_index_fn_has_a_case() {
    let mut covered: std::collections::BTreeSet<&str> = cases().iter().map(|c| c.func).collect();
    covered.extend(EXEMPT.iter().map(|(f, _)| *f));
    crate::pub_fn_scan::check_coverage(env!("CARGO_MANIFEST_DIR"), &covered, 20, false);
}
