//! Segments, entry, exit and impact: the main program of Huang Fig. 5.3.3 with the procedures
//! MSU (unconstrained, (3.4.1)) and MSC (constrained, (3.4.2)), for any [`Mechanism`] whose rows
//! are unilateral.
//!
//! * **Entry**: the sign change of `φᵢ` on an unconstrained step, located on the dense output
//!   ([`EntryLocation::EventLocation`], Illinois regula falsi) or by Huang's
//!   interpolation/extrapolation (5.3.6)–(5.3.10) ([`EntryLocation::HuangInterpolation`]).
//!   Then [`Simulator::settle`]: the impact law (3.3.8)–(3.3.9) by (5.3.12)–(5.3.14) when
//!   `J q̇⁻ < 0` (with restitution `e` and several rows: the LCP of [`crate::lcp`]),
//!   continuation without impact when `J q̇⁻ = 0` (Theorem 3.3.3), and the acceleration-level
//!   LCP (λ ≥ 0) choosing the rows that stay active — a consistent restart.
//! * **Exit**: λᵢ crossing zero located as an event ([`ExitCriterion::ContactForceEvent`]),
//!   or Huang's Taylor prediction `λₙ + (λₙ − λₙ₋₁) < 0` ([`ExitCriterion::TaylorPrediction`]);
//!   the tangency `J q̇ + b` (3.3.13) is reported with each exit.
//! * **Schemes**: [`Scheme::Modern`] (Dormand–Prince 5(4), variable step, events located on the
//!   dense output, M-metric projection onto `φ_A = 0`, `J_A q̇ = 0` after every constrained step)
//!   and [`Scheme::Huang`] (Runge–Kutta–Gill at constant step on MSU, constant-step BDF2 on the
//!   index-1 model with Baumgarte terms (6.3.2) on MSC, started by the singly-implicit RK).
//! * **Beyond the thesis**: restitution `e ∈ [0, 1]`, Coulomb friction with stick–slip,
//!   Zeno accumulation (impacts closer than `zeno_interval`) → plastic impact and persistent
//!   contact.

use crate::dynamics::{ContactDynamics, FrictionMode};
use crate::error::ContactError;
use contour_model::{ConstraintKind, Mechanism};
use contour_ode::events::{crossing, locate_root};
use contour_ode::{
    Advance, DaeResidual, Direction, DormandPrince54, DormandPrinceConfig, GillMode, HuangBdf2,
    HuangBdf2Config, HuangStart, OdeRhs, RhsError, RungeKuttaGill, RungeKuttaGillConfig, Stepper,
    Tolerances,
};
use contour_projection::{SimulationStats, Trajectory};
use serde::{Deserialize, Serialize};

pub use contour_projection::{Event, EventKind};

/// How an entry time is found on an unconstrained step.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum EntryLocation {
    /// Sign change of φ located on the dense output (Illinois), to `1e-13·(1+|t|)`.
    EventLocation,
    /// Huang (5.3.6)–(5.3.10): test `φ < ε` after each step, then secant interpolation
    /// (`φ_b < 0`) or Taylor extrapolation (`0 ≤ φ_b < ε`).
    HuangInterpolation {
        /// Threshold ε of the transition test.
        eps: f64,
    },
}

/// How an exit time is found on a constrained segment.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum ExitCriterion {
    /// λ crossing zero, located as an event (complementarity-correct).
    ContactForceEvent,
    /// Huang's procedure MSC: leave when the first-order Taylor prediction
    /// `λₙ + (λₙ − λₙ₋₁)` of the next step's contact force is negative.
    TaylorPrediction,
}

/// Modern scheme: Dormand–Prince 5(4) with events and projection.
/// Defaults: `rtol = 1e-10`, `atol = 1e-12`, `h_max = 0.05`, `project = true`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ModernConfig {
    /// Relative tolerance.
    pub rtol: f64,
    /// Absolute tolerance.
    pub atol: f64,
    /// Largest step \[s\].
    pub h_max: f64,
    /// Project `q` and `q̇` onto the active rows after every constrained step.
    pub project: bool,
}

impl Default for ModernConfig {
    fn default() -> Self {
        Self {
            rtol: 1e-10,
            atol: 1e-12,
            h_max: 0.05,
            project: true,
        }
    }
}

/// Huang's scheme (section 6.3): RKG at `h_free` on MSU, BDF2 at `h_constrained` on the index-1
/// model with Baumgarte `α = 2ρ₁²`, `β = ρ₂²` (6.3.2) on MSC, SIRK start. Friction on MSC is
/// Huang's (6.3.4) as written (sliding only, no sticking; zero below 1e-9 m/s), and the MSC exit
/// by φ > ε (5.3.11) is not needed: the Baumgarte terms hold φ at zero on MSC.
/// Defaults: `h_free = h_constrained = 0.01`, `ρ₁ = 5`, `ρ₂ = 25`,
/// entry by `HuangInterpolation { eps: 1e-6 }`, exit by `TaylorPrediction`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HuangSchemeConfig {
    /// Constant step of Runge–Kutta–Gill \[s\].
    pub h_free: f64,
    /// Constant step of the BDF2 \[s\].
    pub h_constrained: f64,
    /// Baumgarte ρ₁ (6.3.2).
    pub rho1: f64,
    /// Baumgarte ρ₂ (6.3.2).
    pub rho2: f64,
    /// Entry location procedure.
    pub entry: EntryLocation,
    /// Exit criterion.
    pub exit: ExitCriterion,
    /// Huang's literal transitions (Figs. 5.3.4–5.3.5): a detected entry always starts
    /// procedure MSC (even when the contact force at entry would be negative), and the MSU test
    /// is `φ < ε` after every step (also right after an exit). `false`: the entry row becomes
    /// active only when the acceleration LCP gives λ > 0, and a row closed at the start of MSU
    /// re-enters only after penetrating by ε.
    pub literal_transitions: bool,
}

impl Default for HuangSchemeConfig {
    fn default() -> Self {
        Self {
            h_free: 0.01,
            h_constrained: 0.01,
            rho1: 5.0,
            rho2: 25.0,
            entry: EntryLocation::HuangInterpolation { eps: 1e-6 },
            exit: ExitCriterion::TaylorPrediction,
            literal_transitions: true,
        }
    }
}

/// The numerical scheme.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Scheme {
    /// Variable-step, event-located, projected (the default).
    Modern(ModernConfig),
    /// Huang's section-6.3 scheme.
    Huang(HuangSchemeConfig),
}

impl Default for Scheme {
    fn default() -> Self {
        Scheme::Modern(ModernConfig::default())
    }
}

/// Configuration of a [`Simulator`]. Defaults: `restitution = 0` (Huang's plastic impact),
/// `friction = 0`, no breakpoints, output at every step, `contact_tol = 1e-9`,
/// `velocity_tol = 1e-9`, `zeno_interval = 1e-6` s, `max_events = 10 000`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContactConfig {
    /// Final time \[s\].
    pub t_end: f64,
    /// Scheme.
    pub scheme: Scheme,
    /// Coefficient of restitution e ∈ \[0, 1\] (Newton's law on the normal velocity).
    pub restitution: f64,
    /// Coulomb coefficient μ ≥ 0 on active rows (Huang (6.3.4), `p = q`).
    pub friction: f64,
    /// Times where the applied forces are discontinuous (the integrators stop and restart there).
    pub breakpoints: Vec<f64>,
    /// Output spacing (None: every accepted step).
    pub output_dt: Option<f64>,
    /// `|φ|` below which a row counts as closed.
    pub contact_tol: f64,
    /// `|J q̇|` below which a closed row counts as neither approaching nor separating.
    pub velocity_tol: f64,
    /// Impacts on a row closer in time than this are an accumulation (Zeno): the impact is made
    /// plastic and the contact persistent.
    pub zeno_interval: f64,
    /// Largest number of events.
    pub max_events: usize,
}

impl ContactConfig {
    /// Defaults with final time `t_end` and `scheme`.
    pub fn new(t_end: f64, scheme: Scheme) -> Self {
        Self {
            t_end,
            scheme,
            restitution: 0.0,
            friction: 0.0,
            breakpoints: Vec::new(),
            output_dt: None,
            contact_tol: 1e-9,
            velocity_tol: 1e-9,
            zeno_interval: 1e-6,
            max_events: 10_000,
        }
    }
}

/// One event of a contact trajectory: the workspace's [`Event`] (time, [`EventKind`], row,
/// impulse ξ, `J q̇ + b` before and after, kinetic energy lost, state), see
/// [`contour_projection::Event`] for which values each kind carries.
pub type ContactEvent = Event;

/// Work counters.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct ContactStats {
    /// Accepted steps.
    pub steps: u64,
    /// Right-hand-side (or residual) evaluations.
    pub evals: u64,
    /// Segments integrated.
    pub segments: u64,
    /// Constrained steps.
    pub constrained_steps: u64,
}

/// Result of a contact simulation: the workspace's one result type [`Trajectory`] (outputs,
/// events, mapped statistics; what users serialize and write as JSON / CSV) with the
/// contact-specific counters [`ContactStats`] beside it.
///
/// Dereferences to the [`Trajectory`], so `tr.times`, `tr.q`, `tr.events`,
/// `tr.events_of(kind)`, `tr.write_csv(w)` work directly; `tr.stats` is the [`ContactStats`]
/// (the mapped [`contour_projection::SimulationStats`] are `tr.trajectory.stats`).
///
/// In the [`Trajectory`]: `method` is the scheme (`"modern"` or `"huang"`), `integrator`
/// `"dopri5"` or `"rkg+bdf2"`; λ has all rows (zero for inactive ones); the step-wise
/// violation history is empty (unilateral rows have no drift to monitor: `φ ≥ 0` is the
/// state); `stats.steps` = [`ContactStats::steps`], `stats.f_evals` = [`ContactStats::evals`]
/// (every evaluation: integration, event functions and outputs), `stats.output_evals` = the
/// number of outputs (also in `f_evals`), `stats.restarts` = segments − 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContactTrajectory {
    /// The unified result.
    pub trajectory: Trajectory,
    /// Contact-specific counters.
    pub stats: ContactStats,
}

impl ContactTrajectory {
    /// The scheme, `"modern"` or `"huang"` (the trajectory's `method`).
    pub fn scheme(&self) -> &str {
        &self.trajectory.method
    }

    /// The unified result without the contact counters.
    pub fn into_trajectory(self) -> Trajectory {
        self.trajectory
    }
}

impl std::ops::Deref for ContactTrajectory {
    type Target = Trajectory;
    fn deref(&self) -> &Trajectory {
        &self.trajectory
    }
}

impl std::ops::DerefMut for ContactTrajectory {
    fn deref_mut(&mut self) -> &mut Trajectory {
        &mut self.trajectory
    }
}

impl From<ContactTrajectory> for Trajectory {
    fn from(c: ContactTrajectory) -> Self {
        c.trajectory
    }
}

/// Right-hand side `y = (q, q̇)` with a fixed active set and friction mode.
struct SegmentRhs<'a, M: ?Sized> {
    mech: &'a M,
    dyn_: ContactDynamics,
    active: Vec<usize>,
    friction: FrictionMode,
    lam: Vec<f64>,
    n: usize,
    evals: u64,
    /// Largest time passed to the model: just before a breakpoint ending the segment, so
    /// that the last stage of a step still sees the forces of the current segment.
    t_cap: f64,
}

impl<M: Mechanism + ?Sized> SegmentRhs<'_, M> {
    fn accel(&mut self, t: f64, y: &[f64], qdd: &mut [f64]) -> Result<(), ContactError> {
        let n = self.n;
        self.evals += 1;
        let t = t.min(self.t_cap);
        self.dyn_.evaluate(self.mech, t, &y[..n], &y[n..])?;
        self.dyn_
            .accelerations(&self.active, self.friction, &y[n..], qdd, &mut self.lam)
    }
}

impl<M: Mechanism + ?Sized> OdeRhs for SegmentRhs<'_, M> {
    fn dim(&self) -> usize {
        2 * self.n
    }
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        let n = self.n;
        dy[..n].copy_from_slice(&y[n..]);
        let (_, acc) = dy.split_at_mut(n);
        self.accel(t, y, acc).map_err(|_| RhsError::Failed)
    }
}

/// Residual of Huang's index-1 constrained model, `y = (q, q̇, λ_A)`.
struct HuangDae<'a, 'b, M: ?Sized> {
    rhs: &'b mut SegmentRhs<'a, M>,
    mu: f64,
}

impl<M: Mechanism + ?Sized> DaeResidual for HuangDae<'_, '_, M> {
    fn dim(&self) -> usize {
        2 * self.rhs.n + self.rhs.active.len()
    }
    fn residual(&mut self, t: f64, y: &[f64], yp: &[f64], r: &mut [f64]) -> Result<(), RhsError> {
        let n = self.rhs.n;
        let s = &mut *self.rhs;
        s.evals += 1;
        let t = t.min(s.t_cap);
        s.dyn_
            .evaluate(s.mech, t, &y[..n], &y[n..2 * n])
            .map_err(|_| RhsError::Failed)?;
        for i in 0..n {
            r[i] = yp[i] - y[n + i];
        }
        let (_, rest) = r.split_at_mut(n);
        let (r_v, r_l) = rest.split_at_mut(n);
        s.dyn_.index1_residual(
            &s.active,
            self.mu,
            &y[n..2 * n],
            &yp[n..2 * n],
            &y[2 * n..],
            r_v,
            r_l,
        );
        Ok(())
    }
}

/// Slots of the event vector: rows `0..L` (entry φ or exit λ), then one friction slot.
const FRICTION_SLOT: usize = usize::MAX;

/// The simulator of a mechanism with unilateral rows.
pub struct Simulator<'a, M: Mechanism + ?Sized> {
    rhs: SegmentRhs<'a, M>,
    cfg: ContactConfig,
    n: usize,
    l: usize,
    t: f64,
    y: Vec<f64>,
    /// φ offset of rows that start a segment closed (so that a touching start is no event).
    delta: Vec<f64>,
    last_impact: Vec<f64>,
    persistent: Vec<bool>,
    slip_dir: Vec<f64>,
    traj: ContactTrajectory,
    next_out: f64,
    // scratch
    g0: Vec<f64>,
    g1: Vec<f64>,
    ytmp: Vec<f64>,
    acc: Vec<f64>,
    xi: Vec<f64>,
    erow: Vec<f64>,
    cands: Vec<usize>,
}

impl<'a, M: Mechanism + ?Sized> Simulator<'a, M> {
    /// Sets up a simulation of `mech` from `(t0, q0, q̇0)`.
    ///
    /// Errors: wrong lengths, non-finite values, a bilateral row, bad parameters.
    pub fn new(
        mech: &'a M,
        t0: f64,
        q0: &[f64],
        qd0: &[f64],
        cfg: ContactConfig,
    ) -> Result<Self, ContactError> {
        let (n, l) = (mech.dof(), mech.n_constraints());
        for (what, v, len) in [("q0", q0, n), ("qd0", qd0, n)] {
            if v.len() != len {
                return Err(ContactError::DimensionMismatch {
                    what,
                    expected: len,
                    found: v.len(),
                });
            }
            if let Some(index) = v.iter().position(|x| !x.is_finite()) {
                return Err(ContactError::NonFinite { what, index });
            }
        }
        if let Some(row) = (0..l).find(|&r| mech.constraint_kind(r) != ConstraintKind::Unilateral) {
            return Err(ContactError::BilateralRow { row });
        }
        let checks = [
            ("t0", t0, t0.is_finite()),
            ("t_end", cfg.t_end, cfg.t_end.is_finite() && cfg.t_end > t0),
            (
                "restitution",
                cfg.restitution,
                (0.0..=1.0).contains(&cfg.restitution),
            ),
            (
                "friction",
                cfg.friction,
                cfg.friction >= 0.0 && cfg.friction.is_finite(),
            ),
            ("contact_tol", cfg.contact_tol, cfg.contact_tol >= 0.0),
            ("velocity_tol", cfg.velocity_tol, cfg.velocity_tol >= 0.0),
            ("zeno_interval", cfg.zeno_interval, cfg.zeno_interval >= 0.0),
            (
                "output_dt",
                cfg.output_dt.unwrap_or(1.0),
                cfg.output_dt.is_none_or(|d| d > 0.0 && d.is_finite()),
            ),
        ];
        for (name, value, ok) in checks {
            if !ok {
                return Err(ContactError::InvalidParameter { name, value });
            }
        }
        match cfg.scheme {
            Scheme::Modern(m) => {
                if !(m.rtol > 0.0 && m.atol > 0.0 && m.h_max > 0.0) {
                    return Err(ContactError::InvalidParameter {
                        name: "modern tolerances",
                        value: m.rtol.min(m.atol).min(m.h_max),
                    });
                }
            }
            Scheme::Huang(h) => {
                for (name, value) in [
                    ("h_free", h.h_free),
                    ("h_constrained", h.h_constrained),
                    ("rho1", h.rho1),
                    ("rho2", h.rho2),
                ] {
                    if !(value > 0.0 && value.is_finite()) {
                        return Err(ContactError::InvalidParameter { name, value });
                    }
                }
            }
        }
        let mut y = q0.to_vec();
        y.extend_from_slice(qd0);
        let x_initial = y.clone();
        let (scheme, integrator) = match cfg.scheme {
            Scheme::Modern(_) => ("modern", "dopri5"),
            Scheme::Huang(_) => ("huang", "rkg+bdf2"),
        };
        Ok(Self {
            rhs: SegmentRhs {
                mech,
                dyn_: ContactDynamics::new(mech),
                active: Vec::with_capacity(l),
                friction: FrictionMode::None,
                lam: vec![0.0; l],
                n,
                evals: 0,
                t_cap: f64::INFINITY,
            },
            n,
            l,
            t: t0,
            y,
            delta: vec![0.0; l],
            last_impact: vec![f64::NEG_INFINITY; l],
            persistent: vec![false; l],
            slip_dir: vec![0.0; n],
            traj: ContactTrajectory {
                trajectory: Trajectory {
                    method: scheme.into(),
                    integrator: integrator.into(),
                    times: Vec::new(),
                    q: Vec::new(),
                    qd: Vec::new(),
                    lambda: Vec::new(),
                    step_times: Vec::new(),
                    step_phi: Vec::new(),
                    step_phidot: Vec::new(),
                    x_initial,
                    x_final: Vec::new(),
                    events: Vec::new(),
                    stats: SimulationStats::default(),
                },
                stats: ContactStats::default(),
            },
            next_out: t0,
            g0: vec![0.0; l + 1],
            g1: vec![0.0; l + 1],
            ytmp: vec![0.0; 2 * n + l],
            acc: vec![0.0; n],
            xi: vec![0.0; l],
            erow: vec![0.0; l],
            cands: Vec::with_capacity(l),
            cfg,
        })
    }

    /// Runs to `t_end` and returns the trajectory.
    pub fn run(mut self) -> Result<ContactTrajectory, ContactError> {
        let t0 = self.t;
        self.settle(t0, None, None)?;
        self.output_point(true)?;
        match self.cfg.scheme {
            Scheme::Modern(m) => self.run_modern(m)?,
            Scheme::Huang(h) => self.run_huang(h)?,
        }
        self.traj.stats.evals = self.rhs.evals;
        let c = self.traj.stats;
        let outputs = self.traj.times.len();
        let tr = &mut self.traj.trajectory;
        tr.x_final = self.y.clone();
        tr.stats.steps = c.steps as usize;
        tr.stats.f_evals = c.evals as usize;
        tr.stats.output_evals = outputs;
        tr.stats.restarts = c.segments.saturating_sub(1) as usize;
        Ok(self.traj)
    }

    /// Next stop (breakpoint or final time) after the current time; sets the model's time cap.
    fn next_stop(&mut self) -> (f64, bool) {
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
    fn uncap(&mut self) {
        self.rhs.t_cap = f64::INFINITY;
    }

    /// Records an event at the current state; `vals = [ξ, J q̇⁻ + b, J q̇⁺ + b, T⁻ − T⁺]`, kept
    /// where they apply to `kind` (all for impacts, the normal velocities for entries and
    /// exits, none otherwise; friction events have no row).
    fn record_event(&mut self, t: f64, kind: EventKind, row: usize, vals: [f64; 4]) {
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
    fn lambda_at(&mut self, t: f64, y: &[f64]) -> Result<(), ContactError> {
        let mut acc = std::mem::take(&mut self.acc);
        let r = self.rhs.accel(t, y, &mut acc);
        self.acc = acc;
        r
    }

    fn push_output(&mut self, t: f64, y: &[f64]) -> Result<(), ContactError> {
        let n = self.n;
        self.lambda_at(t, y)?;
        self.traj.times.push(t);
        self.traj.q.push(y[..n].to_vec());
        self.traj.qd.push(y[n..2 * n].to_vec());
        self.traj.lambda.push(self.rhs.lam.clone());
        Ok(())
    }

    /// Output at the current point (forced: always; else on the output grid / every step).
    fn output_point(&mut self, force: bool) -> Result<(), ContactError> {
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
    fn output_dense(
        &mut self,
        t_b: f64,
        dense: &dyn Fn(f64, &mut [f64]),
        dim: usize,
    ) -> Result<(), ContactError> {
        if let Some(dt) = self.cfg.output_dt {
            while self.next_out <= t_b {
                let to = self.next_out;
                let mut yy = std::mem::take(&mut self.ytmp);
                dense(to, &mut yy[..dim]);
                let r = self.push_output(to, &yy[..2 * self.n]);
                self.ytmp = yy;
                r?;
                self.next_out = to + dt;
            }
        }
        Ok(())
    }

    /// Event functions at `(t, y)` into `g` (rows: φ + δ when inactive, λ when active;
    /// last slot: friction).
    fn events_at(&mut self, t: f64, y: &[f64], g: &mut [f64]) -> Result<(), ContactError> {
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

    fn check_event_budget(&self) -> Result<(), ContactError> {
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
    pub fn settle(
        &mut self,
        t: f64,
        exiting: Option<usize>,
        closing: Option<usize>,
    ) -> Result<(), ContactError> {
        let (n, l) = (self.n, self.l);
        self.t = t;
        let mech = self.rhs.mech;
        {
            let (q, qd) = self.y.split_at(n);
            self.rhs.dyn_.evaluate(mech, t, q, &qd[..n])?;
        }
        let was_active = self.rhs.active.clone();
        // closed rows
        self.cands.clear();
        for i in 0..l {
            let closed = self.rhs.dyn_.phi()[i] <= self.cfg.contact_tol
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
            .any(|&i| self.rhs.dyn_.normal_velocity(i, &self.y[n..2 * n]) < 0.0);
        if approaching {
            let k = self.cands.len();
            let mut wminus = [0.0f64; crate::lcp::LCP_MAX_SIZE];
            for (r, &i) in self.cands.iter().enumerate() {
                wminus[r] = self.rhs.dyn_.normal_velocity(i, &self.y[n..2 * n]);
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
            let t_before = self.rhs.dyn_.kinetic_energy(&self.y[n..2 * n]);
            let cands = std::mem::take(&mut self.cands);
            let mut xi = std::mem::take(&mut self.xi);
            let erow = std::mem::take(&mut self.erow);
            let r = self
                .rhs
                .dyn_
                .impact(&cands, &erow[..k], &mut self.y[n..2 * n], &mut xi[..k]);
            self.erow = erow;
            self.cands = cands;
            r?;
            let t_after = self.rhs.dyn_.kinetic_energy(&self.y[n..2 * n]);
            for r in 0..k {
                let i = self.cands[r];
                // below the velocity tolerance the (plastic) correction is an entry without
                // impact (Theorem 3.3.3), reported by the active-set change below
                if xi[r] > 0.0 && wminus[r] < -self.cfg.velocity_tol {
                    let wplus = self.rhs.dyn_.normal_velocity(i, &self.y[n..2 * n]);
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
            .retain(|&i| self.rhs.dyn_.normal_velocity(i, &qd) <= self.cfg.velocity_tol);
        let mut lam = std::mem::take(&mut self.rhs.lam);
        let cands = std::mem::take(&mut self.cands);
        let r = self.rhs.dyn_.contact_lcp(&cands, &mut lam);
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
            let w = self.rhs.dyn_.normal_velocity(i, &qd);
            if now && !before {
                self.record_event(t, EventKind::Entry, i, [0.0, w, w, 0.0]);
            } else if !now && (before || hit) {
                // tangency (3.3.13): J q̇ + b at the exit
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

    /// At zero sliding speed: stick when the static friction force needed is within μλ,
    /// else slip along the net tangential force.
    fn set_stick_or_slip(&mut self, t: f64) -> Result<bool, ContactError> {
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
    fn handle_event(&mut self, slot: usize) -> Result<(), ContactError> {
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

    fn run_modern(&mut self, m: ModernConfig) -> Result<(), ContactError> {
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
            y_start.copy_from_slice(&self.y);
            let t = self.t;
            self.events_at(t, &y_start, &mut g0)?;
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
                        let tol_t = 1e-13 * (1.0 + t_b.abs());
                        let mut yy = vec![0.0; 2 * n];
                        let mut gg = vec![0.0; l + 1];
                        let te = locate_root(
                            |s| {
                                st.dense(s, &mut yy);
                                if self.events_at(s, &yy, &mut gg).is_err() {
                                    return f64::NAN;
                                }
                                gg[k]
                            },
                            t_a,
                            t_b,
                            g0[k],
                            g1[k],
                            tol_t,
                        )?;
                        if first.is_none_or(|(tf, _)| te < tf) {
                            first = Some((te, slot));
                        }
                    }
                }
                if let Some((te, slot)) = first {
                    st.dense(te, &mut ye);
                    self.output_dense(te, &|s, o| st.dense(s, o), 2 * n)?;
                    self.t = te;
                    self.y.copy_from_slice(&ye);
                    if constrained && m.project {
                        let active = std::mem::take(&mut self.rhs.active);
                        let (q, qd) = self.y.split_at_mut(n);
                        let r = self.rhs.dyn_.project(self.rhs.mech, te, &active, q, qd, 3);
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
                    let r = self.rhs.dyn_.project(self.rhs.mech, t_b, &active, q, qd, 3);
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

    fn run_huang(&mut self, hc: HuangSchemeConfig) -> Result<(), ContactError> {
        let (n, l) = (self.n, self.l);
        let tol = Tolerances::new(1e-8, 1e-10);
        let (alpha, beta) = (2.0 * hc.rho1 * hc.rho1, hc.rho2 * hc.rho2); // Huang (6.3.2)
        let mut g0 = std::mem::take(&mut self.g0);
        let mut g1 = std::mem::take(&mut self.g1);
        let mut ye = vec![0.0; 2 * n + l];
        let mut yb = vec![0.0; 2 * n + l];
        let mut y_start = vec![0.0; 2 * n];
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
                y_start.copy_from_slice(&self.y);
                let t = self.t;
                self.events_at(t, &y_start, &mut g0)?;
                loop {
                    st.step(&mut self.rhs)?;
                    self.traj.stats.steps += 1;
                    let (t_a, t_b) = (st.t_prev(), st.t());
                    yb[..2 * n].copy_from_slice(st.y());
                    self.events_at(t_b, &yb[..2 * n], &mut g1)?;
                    let mut entry: Option<(f64, usize)> = None;
                    for i in 0..l {
                        let te = match hc.entry {
                            EntryLocation::EventLocation => {
                                if crossing(g0[i], g1[i], Direction::Falling).is_none() {
                                    continue;
                                }
                                let mut yy = vec![0.0; 2 * n];
                                let mut gg = vec![0.0; l + 1];
                                locate_root(
                                    |s| {
                                        st.dense(s, &mut yy);
                                        if self.events_at(s, &yy, &mut gg).is_err() {
                                            return f64::NAN;
                                        }
                                        gg[i]
                                    },
                                    t_a,
                                    t_b,
                                    g0[i],
                                    g1[i],
                                    1e-13 * (1.0 + t_b.abs()),
                                )?
                            }
                            EntryLocation::HuangInterpolation { eps } => {
                                // Huang's test φ_b < ε for rows open at t_a (φ_a ≥ ε); a row that
                                // starts closed but inactive enters when it penetrates by ε
                                let test = if hc.literal_transitions {
                                    g1[i] < eps
                                } else {
                                    (g1[i] < eps && g0[i] >= eps) || g1[i] < -eps
                                };
                                if !test {
                                    continue;
                                }
                                self.huang_entry_time(&st, i, t_a, t_b, g0[i], g1[i], eps)?
                            }
                        };
                        if entry.is_none_or(|(x, _)| te < x) {
                            entry = Some((te, i));
                        }
                    }
                    if let Some((te, row)) = entry {
                        if te <= t_b {
                            st.dense(te, &mut ye[..2 * n]);
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
                        self.settle(te, None, Some(row))?;
                        if hc.literal_transitions && !self.rhs.active.contains(&row) {
                            // Huang: the entry always hands over to procedure MSC
                            let qd = self.y[n..2 * n].to_vec();
                            let w = self.rhs.dyn_.normal_velocity(row, &qd);
                            self.rhs.active.push(row);
                            self.rhs.friction = FrictionMode::None;
                            self.delta[row] = 0.0;
                            self.record_event(te, EventKind::Entry, row, [0.0, w, w, 0.0]);
                        }
                        self.output_point(true)?;
                        break;
                    }
                    self.output_dense(t_b, &|s, o| st.dense(s, o), 2 * n)?;
                    self.t = t_b;
                    self.y.copy_from_slice(&yb[..2 * n]);
                    self.output_point(false)?;
                    std::mem::swap(&mut g0, &mut g1);
                    if t_b >= t_stop - 1e-12 {
                        if is_bp {
                            self.uncap();
                            self.settle(t_b, None, None)?;
                            self.output_point(true)?;
                        }
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
                                    |s| {
                                        st.dense(s, &mut yy);
                                        lam_of(&yy)
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
                        st.dense(te, &mut ye[..2 * n + k]);
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
                    self.t = t_b;
                    self.y.copy_from_slice(&yb[..2 * n]);
                    self.output_point(false)?;
                    if t_b >= t_stop - 1e-12 {
                        if is_bp {
                            self.uncap();
                            self.settle(t_b, None, None)?;
                            self.output_point(true)?;
                        }
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
    fn huang_entry_time(
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
                .evaluate(self.rhs.mech, t_b, &yb[..n], &yb[n..])?;
            let phidot = self.rhs.dyn_.normal_velocity(i, &yb[n..]);
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
            st.dense(te, &mut yy);
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

/// Simulates `mech` from `(t0, q0, q̇0)` with `cfg` (see [`Simulator`]).
pub fn simulate<M: Mechanism + ?Sized>(
    mech: &M,
    t0: f64,
    q0: &[f64],
    qd0: &[f64],
    cfg: ContactConfig,
) -> Result<ContactTrajectory, ContactError> {
    Simulator::new(mech, t0, q0, qd0, cfg)?.run()
}
