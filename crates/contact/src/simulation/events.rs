//! Events and settling: the next stop (output, breakpoint, end), recording, outputs on the
//! dense output, the event functions (entry φ, exit λ, friction), and [`Simulator::settle`]:
//! impact (3.3.8)–(3.3.9) by (5.3.12)–(5.3.14), the acceleration-level LCP of the rows that
//! stay active, stick or slip.

use super::*;

/// A stepper's dense output `(t, out)` as a closure.
type DenseFn<'a> = dyn Fn(f64, &mut [f64]) -> Result<(), contour_ode::OdeError> + 'a;

impl<M: Mechanism + ?Sized> Simulator<'_, M> {
    /// Next stop (breakpoint or final time) after the current time; sets the model's time cap.
    pub(super) fn next_stop(&mut self) -> (f64, bool) {
        let mut ts = self.cfg.t_end;
        let mut bp = false;
        for &b in &self.cfg.breakpoints {
            if b > self.t + 1e-12 * (1.0 + self.t.abs()) && b < ts {
                ts = b;
                bp = true;
            }
        }
        self.rhs.t_cap = if bp {
            ts - 2.0 * f64::EPSILON * ts.abs()
        } else {
            f64::INFINITY
        };
        (ts, bp)
    }

    /// Clears the time cap (at a breakpoint, before the restart there).
    pub(super) fn uncap(&mut self) {
        self.rhs.t_cap = f64::INFINITY;
    }

    /// Records an event at the current state; `vals = [ξ, J q̇⁻ + b, J q̇⁺ + b, T⁻ − T⁺]`, kept
    /// where they apply to `kind` (all for impacts, the normal velocities for entries and
    /// exits, none otherwise; friction events have no row).
    pub(super) fn record_event(&mut self, t: f64, kind: EventKind, row: usize, vals: [f64; 4]) {
        let n = self.n;
        let mut e = Event::new(t, kind).with_state(&self.y[..2 * n]);
        match kind {
            EventKind::Impact => {
                e.row = Some(row);
                e.impulse = Some(vals[0]);
                e.normal_velocity_before = Some(vals[1]);
                e.normal_velocity_after = Some(vals[2]);
                e.energy_loss = Some(vals[3]);
            }
            EventKind::Entry | EventKind::Exit => {
                e.row = Some(row);
                e.normal_velocity_before = Some(vals[1]);
                e.normal_velocity_after = Some(vals[2]);
            }
            EventKind::PersistentContact => e.row = Some(row),
            _ => {}
        }
        self.traj.events.push(e);
    }

    /// λ (all rows) at `(t, y)` with the current active set (into `self.rhs.lam`).
    pub(super) fn lambda_at(&mut self, t: f64, y: &[f64]) -> Result<(), ContactError> {
        let mut acc = std::mem::take(&mut self.acc);
        let r = self.rhs.accel(t, y, &mut acc);
        self.acc = acc;
        r
    }

    pub(super) fn push_output(&mut self, t: f64, y: &[f64]) -> Result<(), ContactError> {
        let n = self.n;
        self.lambda_at(t, y)?;
        self.traj.times.push(t);
        self.traj.q.push(&y[..n]);
        self.traj.qd.push(&y[n..2 * n]);
        self.traj.lambda.push(&self.rhs.lam);
        Ok(())
    }

    /// Output at the current point (forced: always; else on the output grid / every step).
    pub(super) fn output_point(&mut self, force: bool) -> Result<(), ContactError> {
        let y = std::mem::take(&mut self.y);
        let r = if force || self.cfg.output_dt.is_none() {
            self.push_output(self.t, &y)
        } else {
            Ok(())
        };
        self.y = y;
        r
    }

    /// Grid outputs in `(t_a, t_b]` from a dense interpolant.
    pub(super) fn output_dense(
        &mut self,
        t_b: f64,
        dense: &DenseFn<'_>,
        dim: usize,
    ) -> Result<(), ContactError> {
        if let Some(dt) = self.cfg.output_dt {
            while self.next_out <= t_b {
                let to = self.next_out;
                let mut yy = std::mem::take(&mut self.ytmp);
                let r = dense(to, &mut yy[..dim])
                    .map_err(ContactError::from)
                    .and_then(|()| self.push_output(to, &yy[..2 * self.n]));
                self.ytmp = yy;
                r?;
                self.next_out = to + dt;
            }
        }
        Ok(())
    }

    /// The time in `[t_a, t_b]` where event function `row` crosses zero, located on the
    /// stepper's dense output (`g_a`, `g_b` its values at the ends; tolerance
    /// `1e-13·(1 + |t_b|)`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn locate_event<S: Stepper + ?Sized>(
        &mut self,
        st: &S,
        row: usize,
        t_a: f64,
        t_b: f64,
        g_a: f64,
        g_b: f64,
    ) -> Result<f64, ContactError> {
        let mut yy = vec![0.0; 2 * self.n];
        let mut gg = vec![0.0; self.l + 1];
        Ok(locate_root(
            |s| {
                if st.dense(s, &mut yy).is_err() || self.events_at(s, &yy, &mut gg).is_err() {
                    return f64::NAN;
                }
                gg[row]
            },
            t_a,
            t_b,
            g_a,
            g_b,
            1e-13 * (1.0 + t_b.abs()),
        )?)
    }

    /// Event functions at the current state into `g` (at the start of a segment); `y` is
    /// scratch of length `2N`.
    pub(super) fn events_now(&mut self, y: &mut [f64], g: &mut [f64]) -> Result<(), ContactError> {
        y.copy_from_slice(&self.y);
        let t = self.t;
        self.events_at(t, y, g)
    }

    /// Event functions at `(t, y)` into `g` (rows: φ + δ when inactive, λ when active;
    /// last slot: friction).
    pub(super) fn events_at(
        &mut self,
        t: f64,
        y: &[f64],
        g: &mut [f64],
    ) -> Result<(), ContactError> {
        let n = self.n;
        self.lambda_at(t, y)?;
        let phi = self.rhs.dyn_.phi();
        for i in 0..self.l {
            g[i] = if self.rhs.active.contains(&i) {
                self.rhs.lam[i]
            } else {
                phi[i] + self.delta[i]
            };
        }
        g[self.l] = match self.rhs.friction {
            FrictionMode::Slip { .. } => (0..n).map(|p| y[n + p] * self.slip_dir[p]).sum(),
            FrictionMode::Stick => {
                let lsum: f64 = self.rhs.lam.iter().sum();
                let fnorm = self
                    .rhs
                    .dyn_
                    .friction_force
                    .iter()
                    .map(|v| v * v)
                    .sum::<f64>()
                    .sqrt();
                self.cfg.friction * lsum - fnorm
            }
            FrictionMode::None => 1.0,
        };
        Ok(())
    }

    pub(super) fn check_event_budget(&self) -> Result<(), ContactError> {
        if self.traj.events.len() > self.cfg.max_events {
            Err(ContactError::TooManyEvents {
                t: self.t,
                limit: self.cfg.max_events,
            })
        } else {
            Ok(())
        }
    }

    /// Consistent restart at the current point `(t, y)`: impacts on approaching closed rows
    /// (impact law (3.3.8)–(3.3.9) / LCP with restitution), then the active set from the
    /// acceleration LCP, friction mode, and the φ offsets of closed inactive rows.
    /// `exiting` is a row that must leave (λ reached zero); `closing` a row whose entry was
    /// just detected (closed whatever its φ, e.g. within Huang's ε).
    ///
    /// Errors: a non-finite `t`, a row not below L ([`ContactError::RowIndex`]), and those of
    /// the impact and the acceleration LCP.
    pub fn settle(
        &mut self,
        t: f64,
        exiting: Option<usize>,
        closing: Option<usize>,
    ) -> Result<(), ContactError> {
        let band = self.cfg.contact_tol;
        self.settle_within(t, exiting, closing, band)
    }

    /// [`Simulator::settle`] where a row approaching with `φ < band` also counts as closed:
    /// at an entry found by Huang's test `φ < ε` (5.3.6) every row that passes the same test
    /// at `t_E` hits at that instant (a bar landing flat hits both supports at once).
    pub(super) fn settle_within(
        &mut self,
        t: f64,
        exiting: Option<usize>,
        closing: Option<usize>,
        band: f64,
    ) -> Result<(), ContactError> {
        let (n, l) = (self.n, self.l);
        if !t.is_finite() {
            return Err(ContactError::NonFinite {
                what: "t",
                index: 0,
            });
        }
        for (what, row) in [("exiting", exiting), ("closing", closing)] {
            if let Some(index) = row.filter(|&r| r >= l) {
                return Err(ContactError::RowIndex {
                    what,
                    index,
                    len: l,
                });
            }
        }
        self.t = t;
        let mech = self.rhs.mech;
        {
            let (q, qd) = self.y.split_at(n);
            self.rhs.dyn_.evaluate_in(mech, t, q, &qd[..n])?;
        }
        let was_active = self.rhs.active.clone();
        // closed rows
        self.cands.clear();
        for i in 0..l {
            let phi = self.rhs.dyn_.phi()[i];
            let in_band = phi < band
                && self.rhs.dyn_.normal_velocity_in(i, &self.y[n..2 * n]) < -self.cfg.velocity_tol;
            let closed = phi <= self.cfg.contact_tol
                || in_band
                || was_active.contains(&i)
                || Some(i) == closing;
            if closed && Some(i) != exiting {
                self.cands.push(i);
            }
        }
        // impact when a closed row approaches: J q̇⁻ < 0 (Theorem 3.3.7)
        let approaching = self
            .cands
            .iter()
            .any(|&i| self.rhs.dyn_.normal_velocity_in(i, &self.y[n..2 * n]) < 0.0);
        if approaching {
            let k = self.cands.len();
            if k > crate::lcp::LCP_MAX_SIZE {
                return Err(ContactError::LcpTooLarge {
                    size: k,
                    limit: crate::lcp::LCP_MAX_SIZE,
                });
            }
            let mut wminus = [0.0f64; crate::lcp::LCP_MAX_SIZE];
            for (r, &i) in self.cands.iter().enumerate() {
                wminus[r] = self.rhs.dyn_.normal_velocity_in(i, &self.y[n..2 * n]);
                // Zeno: impacts accumulating on row i → plastic, persistent contact
                let zeno = t - self.last_impact[i] < self.cfg.zeno_interval;
                if zeno && !self.persistent[i] {
                    self.persistent[i] = true;
                }
                self.erow[r] = if self.persistent[i] || wminus[r] >= 0.0 {
                    0.0
                } else {
                    self.cfg.restitution
                };
            }
            let t_before = self.rhs.dyn_.kinetic_energy_in(&self.y[n..2 * n]);
            let cands = std::mem::take(&mut self.cands);
            let mut xi = std::mem::take(&mut self.xi);
            let erow = std::mem::take(&mut self.erow);
            let r =
                self.rhs
                    .dyn_
                    .impact_in(&cands, &erow[..k], &mut self.y[n..2 * n], &mut xi[..k]);
            self.erow = erow;
            self.cands = cands;
            r?;
            let t_after = self.rhs.dyn_.kinetic_energy_in(&self.y[n..2 * n]);
            for r in 0..k {
                let i = self.cands[r];
                // below the velocity tolerance the (plastic) correction is an entry without
                // impact (Theorem 3.3.3), reported by the active-set change below
                if xi[r] > 0.0 && wminus[r] < -self.cfg.velocity_tol {
                    let wplus = self.rhs.dyn_.normal_velocity_in(i, &self.y[n..2 * n]);
                    let kind = EventKind::Impact;
                    self.last_impact[i] = t;
                    self.record_event(t, kind, i, [xi[r], wminus[r], wplus, t_before - t_after]);
                    if self.persistent[i] && kind == EventKind::Impact {
                        self.record_event(t, EventKind::PersistentContact, i, [0.0; 4]);
                    }
                }
            }
            self.xi = xi;
        }
        // rows that are closed and not separating are candidates of the acceleration LCP
        let qd: Vec<f64> = self.y[n..2 * n].to_vec();
        self.cands
            .retain(|&i| self.rhs.dyn_.normal_velocity_in(i, &qd) <= self.cfg.velocity_tol);
        let mut lam = std::mem::take(&mut self.rhs.lam);
        let cands = std::mem::take(&mut self.cands);
        let r = self.rhs.dyn_.contact_lcp_in(&cands, &mut lam);
        self.cands = cands;
        r?;
        self.rhs.active.clear();
        for &i in &self.cands {
            if lam[i] > 0.0 {
                self.rhs.active.push(i);
            }
        }
        self.rhs.lam = lam;
        // events of entry / exit by the change of the active set; a row hit by an impact at
        // this instant counts as active before (the impulsive contact), so a lift-off right
        // after the impact is an exit
        for i in 0..l {
            let now = self.rhs.active.contains(&i);
            let before = was_active.contains(&i);
            let hit = approaching && self.last_impact[i] == t;
            let w = self.rhs.dyn_.normal_velocity_in(i, &qd);
            if now && !before {
                self.exited[i] = false;
                self.record_event(t, EventKind::Entry, i, [0.0, w, w, 0.0]);
            } else if !now && (before || hit) {
                // tangency (3.3.13): J q̇ + b at the exit
                self.exited[i] = true;
                self.record_event(t, EventKind::Exit, i, [0.0, w, w, 0.0]);
            }
        }
        // φ offsets of inactive closed rows: a touching start is not an entry
        for i in 0..l {
            let phi = self.rhs.dyn_.phi()[i];
            self.delta[i] = if !self.rhs.active.contains(&i) && phi <= self.cfg.contact_tol {
                (-phi).max(0.0) + 1e-14 * (1.0 + phi.abs())
            } else {
                0.0
            };
        }
        // friction mode
        self.rhs.friction = FrictionMode::None;
        if self.cfg.friction > 0.0 && !self.rhs.active.is_empty() {
            let speed = qd.iter().map(|v| v * v).sum::<f64>().sqrt();
            if speed > self.cfg.velocity_tol {
                self.rhs.friction = FrictionMode::Slip {
                    mu: self.cfg.friction,
                };
                for p in 0..n {
                    self.slip_dir[p] = qd[p] / speed;
                }
            } else {
                self.set_stick_or_slip(t)?;
            }
        }
        self.check_event_budget()
    }

    /// `true` when an impact on `row` at `t` (the instant just settled) left the row
    /// separating, `J q̇⁺ + b > velocity_tol`: the impact law (3.3.8)–(3.3.9) resolves that
    /// entry and no constrained phase follows. The rule is the one [`Simulator::settle`] uses
    /// to drop separating rows from the acceleration LCP; a plastic impact leaves
    /// `J q̇⁺ + b = 0` to round-off, so a resting contact never passes it.
    pub(super) fn impact_separates(&self, row: usize, t: f64) -> bool {
        let n = self.n;
        self.last_impact[row] == t
            && self.rhs.dyn_.normal_velocity_in(row, &self.y[n..2 * n]) > self.cfg.velocity_tol
    }

    /// At zero sliding speed: stick when the static friction force needed is within μλ,
    /// else slip along the net tangential force.
    pub(super) fn set_stick_or_slip(&mut self, t: f64) -> Result<bool, ContactError> {
        let n = self.n;
        for p in 0..n {
            self.y[n + p] = 0.0;
        }
        self.rhs.friction = FrictionMode::Stick;
        let y = self.y.clone();
        self.lambda_at(t, &y)?;
        let lsum: f64 = self.rhs.lam.iter().sum();
        let f = &self.rhs.dyn_.friction_force;
        let fnorm = f.iter().map(|v| v * v).sum::<f64>().sqrt();
        if fnorm <= self.cfg.friction * lsum {
            return Ok(true);
        }
        for p in 0..n {
            self.slip_dir[p] = -f[p] / fnorm;
        }
        self.rhs.friction = FrictionMode::Slip {
            mu: self.cfg.friction,
        };
        Ok(false)
    }

    /// Handles the event of `slot` at the current point.
    pub(super) fn handle_event(&mut self, slot: usize) -> Result<(), ContactError> {
        let t = self.t;
        if slot == FRICTION_SLOT {
            match self.rhs.friction {
                FrictionMode::Slip { .. } => {
                    self.record_event(t, EventKind::Reversal, 0, [0.0; 4]);
                    if self.set_stick_or_slip(t)? {
                        self.record_event(t, EventKind::Stick, 0, [0.0; 4]);
                    }
                }
                FrictionMode::Stick => {
                    let _ = self.set_stick_or_slip(t)?;
                    if let FrictionMode::Stick = self.rhs.friction {
                        // numerically at the boundary: force slip along the net force
                        self.rhs.friction = FrictionMode::Slip {
                            mu: self.cfg.friction,
                        };
                    }
                    self.record_event(t, EventKind::Slip, 0, [0.0; 4]);
                }
                FrictionMode::None => {}
            }
            return self.check_event_budget();
        }
        if self.rhs.active.contains(&slot) {
            self.settle(t, Some(slot), None)
        } else {
            self.settle(t, None, Some(slot))
        }
    }
}
