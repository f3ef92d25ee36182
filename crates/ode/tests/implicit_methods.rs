//! The implicit methods: convergence orders (BDF k = 1…5, Huang's BDF2 with both starters,
//! the singly-implicit RK), stiff problems against tight-tolerance references, DAEs of index
//! 1 (exact solution) and 2 (GGL pendulum), the analytic-Jacobian path, `replace_y`, and the
//! failure modes (Newton failure, step-size underflow, index 2 without `y'₀`).

use contour_ode::test_models::{
    BlowUp, ExactSolution, HarmonicOscillator, Index1Dae, PendulumGgl, VanDerPol,
};
use contour_ode::verification::*;
use contour_ode::*;

fn assert_order(name: &str, theory: f64, (errors, measured): (Vec<f64>, f64)) {
    println!("{name}: errors {errors:?} → order {measured:.3} (theory {theory})");
    assert!(
        (measured - theory).abs() <= 0.3,
        "{name}: measured {measured}, theory {theory}"
    );
    assert!(errors.windows(2).all(|w| w[1] < w[0]), "{name}: {errors:?}");
}

#[test]
fn bdf_fixed_order_k_is_order_k() {
    for k in 1..=5 {
        assert_order(&format!("bdf k{k}"), k as f64, bdf_order(k).unwrap());
    }
}

#[test]
fn huang_bdf2_is_second_order_with_both_starters() {
    assert_order(
        "bdf2 (BE start)",
        2.0,
        huang_bdf2_order(HuangStart::BackwardEuler).unwrap(),
    );
    assert_order(
        "bdf2 (SIRK start)",
        2.0,
        huang_bdf2_order(HuangStart::SinglyImplicitRk).unwrap(),
    );
}

#[test]
fn singly_implicit_rk_is_third_order() {
    assert_order("sirk", 3.0, sirk_order().unwrap());
}

/// Van der Pol μ = 1000 on [0, 3000]: the error against the reference falls with the
/// tolerance; the tight run reproduces the reference; Jacobians are reused (far fewer than
/// steps).
#[test]
fn van_der_pol_mu_1000() {
    let mut last = f64::INFINITY;
    for tol in [1e-4, 1e-6, 1e-8, 1e-10] {
        let (y, st) = vdp1000_bdf(tol, tol, BdfConfig::default()).unwrap();
        let err = max_rel_error(&y, &VDP1000_REFERENCE);
        println!("vdp tol {tol:e}: rel error {err:.2e}, {st:?}");
        assert!(err < 1e3 * tol, "tol {tol:e}: {err:e}");
        assert!(err < last);
        last = err;
        assert!(st.jacobian_evals * 4 < st.steps, "{st:?}");
        assert!(st.steps < 20_000);
    }
    let (y, _) = vdp1000_bdf(1e-12, 1e-12, BdfConfig::default()).unwrap();
    assert!(max_rel_error(&y, &VDP1000_REFERENCE) < 1e-8);
}

/// Robertson to t = 1e5: relative error per component (also y₂ ≈ 7e-8), conservation of
/// y₁ + y₂ + y₃ (a linear invariant BDF keeps up to the Newton error).
#[test]
fn robertson_to_1e5() {
    for (tol, bound) in [(1e-4, 1e-2), (1e-6, 1e-4), (1e-8, 1e-6)] {
        let (y, st) = robertson_bdf(tol, tol * 1e-4, BdfConfig::default()).unwrap();
        let err = max_rel_error(&y, &ROBERTSON_REFERENCE);
        println!("robertson tol {tol:e}: rel error {err:.2e}, {st:?}");
        assert!(err < bound, "tol {tol:e}: {err:e}");
        assert!((y.iter().sum::<f64>() - 1.0).abs() < 1e-3 * tol);
        assert!(st.steps < 2000);
    }
    let (y, _) = robertson_bdf(1e-12, 1e-16, BdfConfig::default()).unwrap();
    assert!(max_rel_error(&y, &ROBERTSON_REFERENCE) < 1e-8);
}

/// Index-1 DAE: the consistent initialization repairs the algebraic component, the error at
/// t = 10 follows the tolerance.
#[test]
fn index1_dae_with_exact_solution() {
    let mut p = Index1Dae;
    let mut y0 = [0.0; 2];
    p.exact(0.0, &mut y0);
    let z_exact = y0[1];
    y0[1] += 0.3;
    let mut s = Bdf::new(
        0.0,
        &y0,
        Tolerances::new(1e-6, 1e-6),
        BdfConfig::default().with_algebraic(p.algebraic()),
    )
    .unwrap();
    s.initialize(&mut p).unwrap();
    assert!((s.y()[1] - z_exact).abs() < 1e-12, "z₀ = {}", s.y()[1]);
    let mut yp = [0.0; 2];
    p.exact_derivative(0.0, &mut yp);
    assert!((s.yp()[0] - yp[0]).abs() < 1e-10);
    for (tol, bound) in [(1e-4, 2e-3), (1e-6, 2e-5), (1e-8, 2e-7)] {
        let (err, st) = index1_bdf(tol).unwrap();
        println!("index-1 tol {tol:e}: error {err:.2e}, {st:?}");
        assert!(err < bound, "{err:e}");
    }
}

/// The constant-step methods on the index-1 DAE (h = 0.01 over [0, 2], consistent start):
/// BDF2 and the SIRK with its RK update of the algebraic variable (|R(∞)| = √3 − 1 < 1).
#[test]
fn constant_step_methods_on_index1_dae() {
    let mut ex = [0.0; 2];
    let mut yp0 = [0.0; 2];
    Index1Dae.exact(0.0, &mut ex);
    Index1Dae.exact_derivative(0.0, &mut yp0);
    let y0 = ex;
    let tol = Tolerances::new(1e-10, 1e-10);
    let mut errs = Vec::new();
    for h in [0.02, 0.01] {
        let mut p = Index1Dae;
        let mut s = SinglyImplicitRk::new(
            0.0,
            &y0,
            tol.clone(),
            SirkConfig {
                h,
                initial_derivative: Some(yp0.to_vec()),
                ..Default::default()
            },
        )
        .unwrap();
        let sol = integrate_to(&mut s, &mut p, 2.0).unwrap();
        Index1Dae.exact(2.0, &mut ex);
        let e_sirk = max_abs_diff(&sol.y[0], &ex);
        let mut p = Index1Dae;
        let cfg = HuangBdf2Config {
            h,
            start: HuangStart::SinglyImplicitRk,
            ..Default::default()
        };
        let mut s = HuangBdf2::new(0.0, &y0, tol.clone(), cfg).unwrap();
        let sol = integrate_to(&mut s, &mut p, 2.0).unwrap();
        let e_bdf2 = max_abs_diff(&sol.y[0], &ex);
        println!(
            "h = {h}: sirk {e_sirk:.2e}, bdf2 {e_bdf2:.2e}, {:?}",
            sol.stats
        );
        errs.push((e_sirk, e_bdf2));
    }
    assert!(errs[1].0 < 1e-5 && errs[1].1 < 1e-4, "{errs:?}");
    // SIRK: order ≥ 2 on the DAE (Huang: ≥ O(h²) differential, O(h) algebraic; here the
    // algebraic equation is index 1), BDF2: order 2.
    assert!(
        errs[0].0 / errs[1].0 > 3.5 && errs[0].1 / errs[1].1 > 3.5,
        "{errs:?}"
    );
}

use contour_ode::test_models::max_abs_diff;

/// GGL pendulum (index 2, λ and μ out of the error test): the position constraint holds to
/// the Newton accuracy, energy drifts by O(tol); without a supplied y'₀ the consistent
/// initialization reports the singular (index-2) matrix.
#[test]
fn pendulum_ggl_index2() {
    for tol in [1e-4, 1e-6, 1e-8] {
        let (drift, de, st) = pendulum_ggl_bdf(tol).unwrap();
        println!("ggl tol {tol:e}: max |φ| {drift:.2e}, energy drift {de:.2e}, {st:?}");
        assert!(drift < 10.0 * tol, "{drift:e}");
        assert!(de < 1e3 * tol.sqrt() * tol.sqrt().max(1e-3), "{de:e}");
    }
    let mut p = PendulumGgl { g: 9.81 };
    let cfg = BdfConfig::default().with_algebraic_excluded(p.algebraic());
    let mut s = Bdf::new(0.0, &p.y0(1.0), Tolerances::new(1e-6, 1e-6), cfg).unwrap();
    assert!(matches!(s.step(&mut p), Err(OdeError::SingularIterationMatrix { t }) if t == 0.0));
}

/// An analytic iteration matrix (`WithJacobian`) gives the same solution with fewer residual
/// evaluations.
#[test]
fn analytic_jacobian() {
    struct Vdp(OdeAsDae<VanDerPol>);
    impl DaeResidual for Vdp {
        fn dim(&self) -> usize {
            2
        }
        fn residual(
            &mut self,
            t: f64,
            y: &[f64],
            yp: &[f64],
            r: &mut [f64],
        ) -> Result<(), RhsError> {
            self.0.residual(t, y, yp, r)
        }
    }
    impl DaeJacobian for Vdp {
        fn iteration_matrix(
            &mut self,
            _t: f64,
            y: &[f64],
            _yp: &[f64],
            cj: f64,
            mut m: faer::MatMut<'_, f64>,
        ) -> Result<(), RhsError> {
            let mu = self.0.rhs.mu;
            // F = y' − f: G = cj·I − ∂f/∂y.
            m[(0, 0)] = cj;
            m[(0, 1)] = -1.0;
            m[(1, 0)] = -(-2.0 * mu * y[0] * y[1] - 1.0);
            m[(1, 1)] = cj - mu * (1.0 - y[0] * y[0]);
            Ok(())
        }
    }
    let p = VanDerPol { mu: 1000.0 };
    let run_fd = vdp1000_bdf(1e-6, 1e-6, BdfConfig::default()).unwrap();
    let mut f = WithJacobian(Vdp(OdeAsDae::new(p)));
    let mut s = Bdf::new(
        0.0,
        &p.y0(),
        Tolerances::new(1e-6, 1e-6),
        BdfConfig::default(),
    )
    .unwrap();
    let sol = integrate_to(&mut s, &mut f, 3000.0).unwrap();
    println!("analytic {:?}\nfd {:?}", sol.stats, run_fd.1);
    assert!(max_rel_error(&sol.y[0], &VDP1000_REFERENCE) < 1e-2);
    assert!(sol.stats.f_evals + sol.stats.jacobian_evals <= run_fd.1.f_evals + 10);
    assert!(sol.stats.f_evals < run_fd.1.f_evals - run_fd.1.jacobian_evals);
}

/// `replace_y` on the BDF: projecting the oscillator onto its invariant circle after every
/// step keeps the invariant at round-off and the solution accurate; replacing by the same
/// state changes nothing.
#[test]
fn bdf_replace_y() {
    let p = HarmonicOscillator { omega: 1.0 };
    let run = |project: bool| {
        let mut f = OdeAsDae::new(p);
        let mut s = Bdf::new(
            0.0,
            &p.y0(),
            Tolerances::new(1e-8, 1e-8),
            BdfConfig::default(),
        )
        .unwrap();
        s.set_t_stop(Some(10.0));
        let mut inv: f64 = 0.0;
        let mut y = [0.0; 2];
        while s.t() < 10.0 {
            s.step(&mut f).unwrap();
            y.copy_from_slice(s.y());
            if project {
                let r = (y[0] * y[0] + y[1] * y[1]).sqrt();
                y[0] /= r;
                y[1] /= r;
            }
            s.replace_y(&mut f, &y).unwrap();
            inv = inv.max((s.y()[0].powi(2) + s.y()[1].powi(2) - 1.0).abs());
        }
        let mut ex = [0.0; 2];
        p.exact(10.0, &mut ex);
        (max_abs_diff(s.y(), &ex), inv, *s.stats())
    };
    let (e0, _, st0) = run(false);
    let (e1, inv1, st1) = run(true);
    println!("plain {e0:.2e} {st0:?}\nprojected {e1:.2e} |inv| {inv1:.1e} {st1:?}");
    assert!(e0 < 1e-5 && e1 < 1e-5);
    assert!(inv1 < 1e-14);
}

#[test]
fn failures_are_reported_with_where() {
    // Newton failure in fixed-step mode (one iteration allowed, huge step).
    let mut f = OdeAsDae::new(FnRhs::new(1, |_t, y: &[f64], dy: &mut [f64]| {
        dy[0] = -y[0].powi(3)
    }));
    let cfg = BdfConfig {
        max_newton_iterations: 1,
        ..BdfConfig::default().fixed(1, 10.0)
    };
    let mut s = Bdf::new(0.0, &[10.0], Tolerances::new(1e-6, 1e-6), cfg).unwrap();
    assert!(matches!(s.step(&mut f), Err(OdeError::NoConvergence { t, .. }) if t == 0.0));
    // Step-size underflow at the blow-up of y' = y² (t = 1).
    let mut f = OdeAsDae::new(BlowUp);
    let mut s = Bdf::new(
        0.0,
        &[1.0],
        Tolerances::new(1e-8, 1e-8),
        BdfConfig::default(),
    )
    .unwrap();
    match integrate(&mut s, &mut f, 2.0, &[], &mut [], &DriverOptions::default()) {
        Err(OdeError::StepSizeTooSmall { t, h }) => {
            println!("underflow at t = {t}, h = {h:e}");
            assert!(t > 0.99 && t <= 1.0, "t = {t}");
        }
        other => panic!("expected StepSizeTooSmall, got {other:?}"),
    }
    // Bad input.
    let tol = Tolerances::new(1e-6, 1e-6);
    assert!(matches!(
        Bdf::new(0.0, &[f64::NAN], tol.clone(), BdfConfig::default()),
        Err(OdeError::NonFinite {
            what: Quantity::InitialState,
            index: 0
        })
    ));
    assert!(Bdf::new(0.0, &[1.0], Tolerances::new(0.0, 0.0), BdfConfig::default()).is_err());
    assert!(HuangBdf2::new(
        0.0,
        &[1.0],
        tol.clone(),
        HuangBdf2Config {
            h: -1.0,
            ..Default::default()
        }
    )
    .is_err());
    assert!(
        SinglyImplicitRk::new(0.0, &[f64::INFINITY], tol.clone(), SirkConfig::default()).is_err()
    );
    let mut s = Bdf::new(0.0, &[1.0, 2.0], tol, BdfConfig::default()).unwrap();
    assert!(matches!(
        s.step(&mut f),
        Err(OdeError::DimensionMismatch {
            expected: 2,
            got: 1
        })
    ));
}

/// Events through the BDF dense output (the driver is generic): the falling body's impact
/// time to 1e-10, and a restart (bounce, v ← −0.5 v) through the consistent initialization.
#[test]
fn bdf_events_and_restart() {
    use contour_ode::test_models::FallingBody;
    let body = FallingBody {
        g: 9.81,
        h0: 10.0,
        v0: 1.0,
    };
    let mut f = OdeAsDae::new(body);
    let mut s = Bdf::new(
        0.0,
        &body.y0(),
        Tolerances::new(1e-10, 1e-10),
        BdfConfig::default(),
    )
    .unwrap();
    struct Ground;
    impl EventFunction for Ground {
        fn g(&mut self, _t: f64, y: &[f64]) -> f64 {
            y[0]
        }
        fn direction(&self) -> Direction {
            Direction::Falling
        }
        fn on_event(&mut self, _t: f64, y: &mut [f64]) -> EventAction {
            y[0] = 0.0;
            y[1] *= -0.5;
            EventAction::Restart
        }
    }
    let mut ground = Ground;
    let sol = integrate(
        &mut s,
        &mut f,
        2.0,
        &[],
        &mut [&mut ground],
        &DriverOptions::default(),
    )
    .unwrap();
    let t1 = body.impact_time();
    let err = (sol.events[0].t - t1).abs();
    println!("bdf impact error {err:.2e}, {:?}", sol.stats);
    assert!(err <= 1e-10, "{err:e}");
    // After the bounce: y = v₁(t − t₁) − g(t − t₁)²/2 with v₁ = 0.5·(g t₁ − v₀).
    let v1 = 0.5 * (body.g * t1 - body.v0);
    let dt = 2.0 - t1;
    let y_end = v1 * dt - 0.5 * body.g * dt * dt;
    assert!(
        (sol.y.last().unwrap()[0] - y_end).abs() < 1e-7,
        "{:?} vs {y_end}",
        sol.y.last()
    );
}

/// Huang's use case: the pendulum in index-3 form `q' = v`, `v' = −(0, g) − Gᵀλ`, `φ = 0`
/// with the constant-step BDF2 (both starters). The position constraint holds to the
/// secant-iteration accuracy; the energy drifts by O(h²).
#[test]
fn huang_bdf2_on_index3_pendulum() {
    struct Pendulum3;
    impl DaeResidual for Pendulum3 {
        fn dim(&self) -> usize {
            5
        }
        fn residual(
            &mut self,
            _t: f64,
            y: &[f64],
            yp: &[f64],
            r: &mut [f64],
        ) -> Result<(), RhsError> {
            let g = 9.81;
            r[0] = yp[0] - y[2];
            r[1] = yp[1] - y[3];
            r[2] = yp[2] + y[0] * y[4];
            r[3] = yp[3] + g + y[1] * y[4];
            r[4] = 0.5 * (y[0] * y[0] + y[1] * y[1] - 1.0);
            Ok(())
        }
    }
    let pend = PendulumGgl { g: 9.81 };
    let (y0, yp0) = (pend.y0(1.0), pend.yp0(1.0));
    for start in [HuangStart::BackwardEuler, HuangStart::SinglyImplicitRk] {
        let mut drifts = Vec::new();
        for h in [2e-3, 1e-3] {
            let cfg = HuangBdf2Config {
                h,
                start,
                initial_derivative: Some(yp0[..5].to_vec()),
                ..Default::default()
            };
            let mut s = HuangBdf2::new(0.0, &y0[..5], Tolerances::new(1e-7, 1e-7), cfg).unwrap();
            let sol = integrate(
                &mut s,
                &mut Pendulum3,
                2.0,
                &[],
                &mut [],
                &DriverOptions::default(),
            )
            .unwrap();
            let phi = sol.y.iter().map(|y| pend.phi(y).abs()).fold(0.0, f64::max);
            let e0 = pend.energy(&y0);
            let de = sol
                .y
                .iter()
                .map(|y| (pend.energy(y) - e0).abs())
                .fold(0.0, f64::max);
            println!(
                "index 3, {start:?}, h = {h}: max |φ| {phi:.1e}, energy drift {de:.2e}, {:?}",
                sol.stats
            );
            assert!(phi < 1e-8, "{phi:e}");
            drifts.push(de);
        }
        assert!(
            drifts[1] < 0.02 && drifts[0] / drifts[1] > 3.0,
            "{drifts:?}"
        );
    }
}
