//! The modern scheme: Dormand–Prince 5(4) at variable step, events located on the dense
//! output, the M-metric projection onto `φ_A = 0`, `J_A q̇ = 0` after every constrained step.

use super::*;

impl<M: Mechanism + ?Sized> Simulator<'_, M> {
    pub(super) fn run_modern(&mut self, m: ModernConfig) -> Result<(), ContactError> {
        let (n, l) = (self.n, self.l);
        let tol = Tolerances::new(m.rtol, m.atol);
        let mut st = DormandPrince54::new(
            self.t,
            &self.y,
            tol,
            DormandPrinceConfig {
                h_max: m.h_max,
                ..DormandPrinceConfig::default()
            },
        )?;
        let mut g0 = std::mem::take(&mut self.g0);
        let mut g1 = std::mem::take(&mut self.g1);
        let mut ye = vec![0.0; 2 * n];
        let mut ynew = vec![0.0; 2 * n];
        let mut y_start = vec![0.0; 2 * n];
        while self.t < self.cfg.t_end {
            let (t_stop, is_bp) = self.next_stop();
            st.restart(&mut self.rhs, self.t, &self.y)?;
            st.set_t_stop(Some(t_stop));
            self.traj.stats.segments += 1;
            self.events_now(&mut y_start, &mut g0)?;
            loop {
                st.step(&mut self.rhs)?;
                self.traj.stats.steps += 1;
                let constrained = !self.rhs.active.is_empty();
                if constrained {
                    self.traj.stats.constrained_steps += 1;
                }
                let (t_a, t_b) = (st.t_prev(), st.t());
                ynew.copy_from_slice(st.y());
                self.events_at(t_b, &ynew, &mut g1)?;
                // earliest crossing among the slots (all falling)
                let mut first: Option<(f64, usize)> = None;
                for k in 0..=l {
                    if crossing(g0[k], g1[k], Direction::Falling).is_some() {
                        let slot = if k == l { FRICTION_SLOT } else { k };
                        let te = self.locate_event(&st, k, t_a, t_b, g0[k], g1[k])?;
                        if first.is_none_or(|(tf, _)| te < tf) {
                            first = Some((te, slot));
                        }
                    }
                }
                if let Some((te, slot)) = first {
                    st.dense(te, &mut ye)?;
                    self.output_dense(te, &|s, o| st.dense(s, o), 2 * n)?;
                    self.t = te;
                    self.y.copy_from_slice(&ye);
                    if constrained && m.project {
                        let active = std::mem::take(&mut self.rhs.active);
                        let (q, qd) = self.y.split_at_mut(n);
                        let r = self
                            .rhs
                            .dyn_
                            .project_in(self.rhs.mech, te, &active, q, qd, 3);
                        self.rhs.active = active;
                        r?;
                    }
                    self.output_point(true)?;
                    self.handle_event(slot)?;
                    self.output_point(true)?;
                    break;
                }
                if constrained && m.project {
                    let active = std::mem::take(&mut self.rhs.active);
                    let (q, qd) = ynew.split_at_mut(n);
                    let r = self
                        .rhs
                        .dyn_
                        .project_in(self.rhs.mech, t_b, &active, q, qd, 3);
                    self.rhs.active = active;
                    r?;
                    st.replace_y(&mut self.rhs, &ynew)?;
                }
                self.output_dense(t_b, &|s, o| st.dense(s, o), 2 * n)?;
                self.t = t_b;
                self.y.copy_from_slice(&ynew);
                self.output_point(false)?;
                self.events_at(t_b, &ynew, &mut g0)?;
                // penetration guard: an inactive row far below zero means a missed entry
                for i in 0..l {
                    if !self.rhs.active.contains(&i) && g0[i] < -1e-6 {
                        return Err(ContactError::Penetration {
                            t: t_b,
                            row: i,
                            phi: g0[i],
                        });
                    }
                }
                if t_b >= t_stop {
                    if is_bp {
                        self.uncap();
                        self.settle(t_b, None, None)?;
                        self.output_point(true)?;
                    }
                    break;
                }
            }
        }
        self.g0 = g0;
        self.g1 = g1;
        Ok(())
    }
}
