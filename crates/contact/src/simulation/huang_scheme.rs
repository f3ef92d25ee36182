//! Huang's section-6.3 scheme: Runge–Kutta–Gill at constant step on MSU, constant-step BDF2
//! on the index-1 model with Baumgarte terms (6.3.2) on MSC (started by the singly-implicit
//! RK), entry by interpolation/extrapolation (5.3.6)–(5.3.10), exit by Taylor prediction.

use super::*;

impl<M: Mechanism + ?Sized> Simulator<'_, M> {
    pub(super) fn run_huang(&mut self, hc: HuangSchemeConfig) -> Result<(), ContactError> {
        let (n, l) = (self.n, self.l);
        let tol = Tolerances::new(1e-8, 1e-10);
        let (alpha, beta) = (2.0 * hc.rho1 * hc.rho1, hc.rho2 * hc.rho2); // Huang (6.3.2)
        let mut g0 = std::mem::take(&mut self.g0);
        let mut g1 = std::mem::take(&mut self.g1);
        let mut ye = vec![0.0; 2 * n + l];
        let mut yb = vec![0.0; 2 * n + l];
        let mut y_start = vec![0.0; 2 * n];
        // normal velocities J q̇ + b of every row at the end of an MSU step
        let mut w_b = vec![0.0; l];
        while self.t < self.cfg.t_end - 1e-12 {
            let (t_stop, is_bp) = self.next_stop();
            self.traj.stats.segments += 1;
            if self.rhs.active.is_empty() {
                // Procedure MSU: Runge–Kutta–Gill at constant step, Huang (5.3.3)
                self.rhs.dyn_.baumgarte = None;
                let mut st = RungeKuttaGill::new(
                    self.t,
                    &self.y,
                    tol.clone(),
                    RungeKuttaGillConfig {
                        mode: GillMode::Fixed { h: hc.h_free },
                        ..RungeKuttaGillConfig::default()
                    },
                )?;
                st.set_t_stop(Some(t_stop));
                self.events_now(&mut y_start, &mut g0)?;
                loop {
                    st.step(&mut self.rhs)?;
                    self.traj.stats.steps += 1;
                    let (t_a, t_b) = (st.t_prev(), st.t());
                    yb[..2 * n].copy_from_slice(st.y());
                    self.events_at(t_b, &yb[..2 * n], &mut g1)?;
                    for (i, w) in w_b.iter_mut().enumerate() {
                        *w = self.rhs.dyn_.normal_velocity_in(i, &yb[n..2 * n]);
                    }
                    let mut entry: Option<(f64, usize)> = None;
                    for i in 0..l {
                        let te = match hc.entry {
                            EntryLocation::EventLocation => {
                                if crossing(g0[i], g1[i], Direction::Falling).is_none() {
                                    continue;
                                }
                                self.locate_event(&st, i, t_a, t_b, g0[i], g1[i])?
                            }
                            EntryLocation::HuangInterpolation { eps } => {
                                // Huang's test φ_b < ε for rows open at t_a (φ_a ≥ ε). A row
                                // that starts inside the band enters, literally, after its own
                                // exit (the MSU test after every step) or when it approaches at
                                // t_b; a touching row that never left contact, at rest or
                                // separating (a ball of a resting pair), is no entry. Without
                                // literal transitions it enters when it penetrates by ε.
                                if g1[i] >= eps {
                                    self.exited[i] = false;
                                }
                                let test = if hc.literal_transitions {
                                    g1[i] < eps
                                        && (g0[i] >= eps
                                            || self.exited[i]
                                            || w_b[i] < -self.cfg.velocity_tol)
                                } else {
                                    (g1[i] < eps && g0[i] >= eps) || g1[i] < -eps
                                };
                                if !test {
                                    continue;
                                }
                                if !hc.literal_transitions
                                    && g0[i] > 0.0
                                    && g0[i] < eps
                                    && g1[i] < 0.0
                                {
                                    // the step starts inside the band (a rebound from an
                                    // impact there): any point of the step's rising branch
                                    // passes φ < ε, so (5.3.6)–(5.3.8) could place the entry
                                    // before the row approaches and relaunch the body from a
                                    // lower height at every bounce; the entry is the crossing
                                    // of the surface itself. Literal transitions keep Huang's
                                    // secant, whose entry hands over to MSC.
                                    self.locate_event(&st, i, t_a, t_b, g0[i], g1[i])?
                                } else {
                                    self.huang_entry_time(&st, i, t_a, t_b, g0[i], g1[i], eps)?
                                }
                            }
                        };
                        if entry.is_none_or(|(x, _)| te < x) {
                            entry = Some((te, i));
                        }
                    }
                    if let Some((te, row)) = entry {
                        if te <= t_b {
                            st.dense(te, &mut ye[..2 * n])?;
                        } else {
                            // Huang (5.3.10): extrapolated entry beyond t_b, first-order Taylor
                            let mut dy = vec![0.0; 2 * n];
                            self.rhs.eval(t_b, &yb[..2 * n], &mut dy).map_err(|_| {
                                ContactError::NonFinite {
                                    what: "rhs",
                                    index: 0,
                                }
                            })?;
                            for k in 0..2 * n {
                                ye[k] = yb[k] + (te - t_b) * dy[k];
                            }
                        }
                        self.output_dense(te.min(t_b), &|s, o| st.dense(s, o), 2 * n)?;
                        self.t = te;
                        self.y.copy_from_slice(&ye[..2 * n]);
                        self.output_point(true)?;
                        // Huang's entry test φ < ε (5.3.6) applies to every row at t_E
                        let band = match hc.entry {
                            EntryLocation::HuangInterpolation { eps } => eps,
                            EntryLocation::EventLocation => self.cfg.contact_tol,
                        };
                        self.settle_within(te, None, Some(row), band)?;
                        if hc.literal_transitions
                            && !self.rhs.active.contains(&row)
                            && !self.impact_separates(row, te)
                        {
                            // Huang: the entry hands over to procedure MSC (Figs. 5.3.4–5.3.5),
                            // whatever the sign of λ, unless the impact at t_E made the row
                            // separate (e > 0): then the impact is the whole transition
                            let qd = self.y[n..2 * n].to_vec();
                            let w = self.rhs.dyn_.normal_velocity_in(row, &qd);
                            self.rhs.active.push(row);
                            self.rhs.friction = FrictionMode::None;
                            self.delta[row] = 0.0;
                            self.record_event(te, EventKind::Entry, row, [0.0, w, w, 0.0]);
                        }
                        self.output_point(true)?;
                        break;
                    }
                    self.output_dense(t_b, &|s, o| st.dense(s, o), 2 * n)?;
                    std::mem::swap(&mut g0, &mut g1);
                    if self.accept_point(t_b, &yb[..2 * n], t_stop, is_bp)? {
                        break;
                    }
                }
            } else {
                // Procedure MSC: BDF2 at constant step on the index-1 model (6.3.2), SIRK start
                self.rhs.dyn_.baumgarte = Some((alpha, beta));
                let k = self.rhs.active.len();
                let mu = self.cfg.friction;
                if mu > 0.0 {
                    self.rhs.friction = FrictionMode::Slip { mu };
                }
                let y0 = self.y.clone();
                self.lambda_at(self.t, &y0)?;
                let mut yd = self.y.clone();
                for r in 0..k {
                    yd.push(self.rhs.lam[self.rhs.active[r]]);
                }
                let mut yp0 = self.y[n..].to_vec();
                yp0.extend_from_slice(&self.acc);
                yp0.extend(std::iter::repeat_n(0.0, k));
                let mut st = HuangBdf2::new(
                    self.t,
                    &yd,
                    tol.clone(),
                    HuangBdf2Config {
                        h: hc.h_constrained,
                        start: HuangStart::SinglyImplicitRk,
                        initial_derivative: Some(yp0),
                        ..HuangBdf2Config::default()
                    },
                )?;
                st.set_t_stop(Some(t_stop));
                let active = self.rhs.active.clone();
                let lam_of = |y: &[f64]| -> f64 { y[2 * n..].iter().sum::<f64>() };
                let mut lam_prev = lam_of(&yd);
                let mut exit_at: Option<f64> = None;
                let mut steps_here = 0usize;
                loop {
                    {
                        let mut dae = HuangDae {
                            rhs: &mut self.rhs,
                            mu,
                        };
                        st.step(&mut dae)?;
                    }
                    steps_here += 1;
                    self.traj.stats.steps += 1;
                    self.traj.stats.constrained_steps += 1;
                    let (t_a, t_b) = (st.t_prev(), st.t());
                    yb[..2 * n + k].copy_from_slice(st.y());
                    let lam_b = lam_of(&yb[..2 * n + k]);
                    match hc.exit {
                        ExitCriterion::ContactForceEvent => {
                            if lam_b < 0.0 && lam_prev < 0.0 {
                                // entered (literally) with a negative contact force: leave at once
                                exit_at = Some(t_a);
                            } else if lam_b < 0.0 {
                                let mut yy = vec![0.0; 2 * n + k];
                                let te = locate_root(
                                    |s| match st.dense(s, &mut yy) {
                                        Ok(()) => lam_of(&yy),
                                        Err(_) => f64::NAN,
                                    },
                                    t_a,
                                    t_b,
                                    lam_prev,
                                    lam_b,
                                    1e-13 * (1.0 + t_b.abs()),
                                )?;
                                exit_at = Some(te);
                            }
                        }
                        ExitCriterion::TaylorPrediction => {
                            // MSC: first-order Taylor prediction of λ at the next step
                            let pred = lam_b + (lam_b - lam_prev);
                            if lam_b < 0.0 && lam_prev >= 0.0 {
                                exit_at = Some(t_a + (t_b - t_a) * lam_prev / (lam_prev - lam_b));
                            } else if (pred < 0.0 && steps_here > 1) || lam_b < 0.0 {
                                exit_at = Some(t_b);
                            }
                        }
                    }
                    lam_prev = lam_b;
                    let t_hit = exit_at.unwrap_or(t_b);
                    self.output_dense(t_hit, &|s, o| st.dense(s, o), 2 * n + k)?;
                    if let Some(te) = exit_at {
                        st.dense(te, &mut ye[..2 * n + k])?;
                        self.t = te;
                        self.y.copy_from_slice(&ye[..2 * n]);
                        self.output_point(true)?;
                        // leave every active row whose λ is not positive (one row: the row)
                        let row = active[0];
                        self.rhs.friction = FrictionMode::None;
                        self.settle(te, Some(row), None)?;
                        self.output_point(true)?;
                        break;
                    }
                    if self.accept_point(t_b, &yb[..2 * n], t_stop, is_bp)? {
                        break;
                    }
                }
            }
        }
        self.rhs.dyn_.baumgarte = None;
        self.g0 = g0;
        self.g1 = g1;
        Ok(())
    }

    /// Huang's entry-time procedure (5.3.6)–(5.3.10) on the step `[t_a, t_b]` of row `i`
    /// (state between the mesh points from the integrator's dense output).
    #[allow(clippy::too_many_arguments)]
    /// Accepts Huang's step ending at `(t_b, y_b)` and records it; `true` at the stop `t_stop`
    /// (at a breakpoint, `is_bp`, the contact set is settled there first).
    fn accept_point(
        &mut self,
        t_b: f64,
        y_b: &[f64],
        t_stop: f64,
        is_bp: bool,
    ) -> Result<bool, ContactError> {
        self.t = t_b;
        self.y.copy_from_slice(y_b);
        self.output_point(false)?;
        if t_b < t_stop - 1e-12 {
            return Ok(false);
        }
        if is_bp {
            self.uncap();
            self.settle(t_b, None, None)?;
            self.output_point(true)?;
        }
        Ok(true)
    }

    pub(super) fn huang_entry_time(
        &mut self,
        st: &RungeKuttaGill,
        i: usize,
        mut t_a: f64,
        mut t_b: f64,
        mut phi_a: f64,
        mut phi_b: f64,
        eps: f64,
    ) -> Result<f64, ContactError> {
        let n = self.n;
        let l = self.l;
        let mut yy = vec![0.0; 2 * n];
        let mut gg = vec![0.0; l + 1];
        if phi_b >= 0.0 {
            // extrapolation (5.3.9)–(5.3.10): t_E = t_b − φ_b / (D ṗ)(t_b)
            let yb = st.y().to_vec();
            self.rhs
                .dyn_
                .evaluate_in(self.rhs.mech, t_b, &yb[..n], &yb[n..])?;
            let phidot = self.rhs.dyn_.normal_velocity_in(i, &yb[n..]);
            if phidot >= 0.0 {
                return Ok(t_b);
            }
            let te = t_b - phi_b / phidot;
            // Huang's step (ii): φ(t_E) < 0 → t_E = t_b (state by a first-order Taylor step)
            let mut phi_e = phi_b + phidot * (te - t_b);
            if phi_e.abs() < 1e-300 {
                phi_e = 0.0;
            }
            return Ok(if phi_e < 0.0 { t_b } else { te });
        }
        // interpolation (5.3.6)–(5.3.8): the mean-value slope D ṗ(σ_a) = (φ_b − φ_a)/(t_b − t_a)
        for _ in 0..100 {
            let te = t_a - phi_a * (t_b - t_a) / (phi_b - phi_a);
            st.dense(te, &mut yy)?;
            self.events_at(te, &yy, &mut gg)?;
            let phi_e = gg[i];
            if (0.0..eps).contains(&phi_e) {
                return Ok(te);
            }
            if phi_e >= eps {
                t_a = te;
                phi_a = phi_e;
            } else {
                t_b = te;
                phi_b = phi_e;
            }
        }
        Ok(t_b)
    }
}
