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
//! * **Impact or persistent contact** at an entry: the normal velocity after the impact law
//!   decides. `J q̇⁺ + b > velocity_tol` (e > 0): the row separates, the impact is the whole
//!   transition and flight goes on (also under Huang's literal transitions), so e = 1 keeps
//!   the energy to round-off. `≤ velocity_tol`: the row stays closed and the contact force
//!   decides. A plastic impact leaves `J q̇⁺ + b = 0` to round-off, so a resting contact never
//!   reads as a rebound. Every approaching row that passes the entry test at that instant
//!   (`φ < ε` under Huang's interpolation (5.3.6), else `φ ≤ contact_tol`) takes part in the
//!   impact, so rows that land together hit together. Measured in
//!   `benches/results/elastic_impacts_2026-11-28.md`.
//! * **Exit**: λᵢ crossing zero located as an event ([`ExitCriterion::ContactForceEvent`]),
//!   or Huang's Taylor prediction `λₙ + (λₙ − λₙ₋₁) < 0` ([`ExitCriterion::TaylorPrediction`]);
//!   the tangency `J q̇ + b` (3.3.13) is reported with each exit.
//! * **Schemes**: [`Scheme::Modern`] (Dormand–Prince 5(4), variable step, events located on the
//!   dense output, M-metric projection onto `φ_A = 0`, `J_A q̇ = 0` after every constrained step)
//!   and [`Scheme::Huang`] (Runge–Kutta–Gill at constant step on MSU, constant-step BDF2 on the
//!   index-1 model with Baumgarte terms (6.3.2) on MSC, started by the singly-implicit RK).
//! * **Files**: `field.rs` the field of one segment, `events.rs` events and settling,
//!   `modern.rs` and `huang_scheme.rs` the two schemes; this file the configuration, the
//!   result type and the driver.
//! * **Beyond the thesis**: restitution `e ∈ [0, 1]`, Coulomb friction with stick–slip,
//!   Zeno accumulation (impacts closer than `zeno_interval`) → plastic impact and persistent
//!   contact.

use crate::dynamics::{ContactDynamics, FrictionMode};
use crate::error::ContactError;
use contour_model::{ConstraintKind, Mechanism};
use contour_ode::events::{crossing, locate_root};
use contour_ode::norm::{MIXED_ATOL_FLOOR_FACTOR, RTOL_FLOOR};
use contour_ode::{
    Advance, DaeResidual, Direction, DormandPrince54, DormandPrinceConfig, GillMode, HuangBdf2,
    HuangBdf2Config, HuangStart, OdeRhs, RhsError, RungeKuttaGill, RungeKuttaGillConfig, Stepper,
    Tolerances,
};
use contour_trajectory::Trajectory;
use serde::{Deserialize, Serialize};

mod events;
mod field;
mod huang_scheme;
mod modern;

use field::{HuangDae, SegmentRhs};

pub use contour_trajectory::{Event, EventKind};

/// How an entry time is found on an unconstrained step.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum EntryLocation {
    /// Sign change of φ located on the dense output (Illinois), to `1e-13·(1+|t|)`.
    EventLocation,
    /// Huang (5.3.6)–(5.3.10): test `φ < ε` after each step, then secant interpolation
    /// (`φ_b < 0`) or Taylor extrapolation (`0 ≤ φ_b < ε`).
    HuangInterpolation {
        /// Threshold ε > 0 of the transition test (in the unit of φ).
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
    /// Huang's literal transitions (Figs. 5.3.4–5.3.5): a detected entry starts procedure MSC
    /// (even when the contact force at entry would be negative) unless the impact at the entry
    /// instant leaves the row separating (`J q̇⁺ + b > velocity_tol`, e > 0), and the MSU test
    /// is `φ < ε` after every step (also right after an exit; a touching row that never left
    /// contact enters only when it approaches). `false`: the entry row becomes active only
    /// when the acceleration LCP gives λ > 0, and a row closed at the start of MSU re-enters
    /// only after penetrating by ε, and a row that crosses the surface within a step started
    /// inside the band enters at the crossing, not at Huang's secant point
    /// (`benches/results/elastic_impacts_2026-11-29.md`).
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
/// [`contour_trajectory::Event`] for which values each kind carries.
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
/// (the mapped [`contour_trajectory::SimulationStats`] are `tr.trajectory.stats`).
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

/// Slots of the event vector: rows `0..L` (entry φ or exit λ), then one friction slot.
const FRICTION_SLOT: usize = usize::MAX;

/// Largest number of outputs a [`ContactConfig::output_dt`] may ask for
/// (`(t_end − t0) / output_dt`); more is refused with [`ContactError::WorkCap`].
pub const MAX_OUTPUTS: f64 = 1e6;

/// Largest number of steps a step-size bound may force (`(t_end − t0) / h` for the modern
/// `h_max` and Huang's `h_free`, `h_constrained`); more is refused with
/// [`ContactError::WorkCap`].
pub const MAX_FORCED_STEPS: f64 = 1e7;

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
    /// Rows that left contact (an exit, or a lift-off right after an impact) and have not yet
    /// left Huang's ε band: the literal MSU test `φ < ε` applies to them after every step.
    exited: Vec<bool>,
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
    /// Errors: wrong lengths, non-finite values, a bilateral row, bad parameters
    /// ([`ContactError::InvalidParameter`] naming the field: tolerances, steps, unsorted or
    /// out-of-span `breakpoints`), work caps ([`ContactError::WorkCap`]: [`MAX_OUTPUTS`],
    /// [`MAX_FORCED_STEPS`]), a row violated at the start by more than `contact_tol`
    /// ([`ContactError::InitialPenetration`]: move the initial state onto the admissible set).
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
        let non_negative = |v: f64| v >= 0.0 && v.is_finite();
        let checks = [
            ("t0", t0, t0.is_finite()),
            ("t_end", cfg.t_end, cfg.t_end.is_finite() && cfg.t_end > t0),
            (
                "restitution",
                cfg.restitution,
                (0.0..=1.0).contains(&cfg.restitution),
            ),
            ("friction", cfg.friction, non_negative(cfg.friction)),
            (
                "contact_tol",
                cfg.contact_tol,
                non_negative(cfg.contact_tol),
            ),
            (
                "velocity_tol",
                cfg.velocity_tol,
                non_negative(cfg.velocity_tol),
            ),
            (
                "zeno_interval",
                cfg.zeno_interval,
                non_negative(cfg.zeno_interval),
            ),
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
        let span = cfg.t_end - t0;
        if let Some(dt) = cfg.output_dt {
            // at most MAX_OUTPUTS outputs, and dt must move the output clock at t0 and t_end
            let outputs = span / dt;
            if outputs.is_nan()
                || outputs > MAX_OUTPUTS
                || t0 + dt == t0
                || cfg.t_end + dt == cfg.t_end
            {
                return Err(ContactError::WorkCap {
                    name: "output_dt",
                    value: dt,
                    cap: "(t_end - t0) / output_dt <= 1e6",
                });
            }
        }
        let mut prev = t0;
        for &b in &cfg.breakpoints {
            // finite, inside [t0, t_end], strictly increasing
            if !(b >= prev && b <= cfg.t_end) || (b == prev && b != t0) {
                return Err(ContactError::InvalidParameter {
                    name: "breakpoints",
                    value: b,
                });
            }
            prev = b;
        }
        // step-size bounds that force more than MAX_FORCED_STEPS steps
        let forced = |name: &'static str, h: f64| {
            if span / h <= MAX_FORCED_STEPS {
                Ok(())
            } else {
                Err(ContactError::WorkCap {
                    name,
                    value: h,
                    cap: "(t_end - t0) / step <= 1e7",
                })
            }
        };
        match cfg.scheme {
            Scheme::Modern(m) => {
                for (name, value, ok) in [
                    ("rtol", m.rtol, m.rtol > 0.0 && m.rtol <= 1.0),
                    ("atol", m.atol, m.atol > 0.0 && m.atol.is_finite()),
                    ("h_max", m.h_max, m.h_max > 0.0 && !m.h_max.is_nan()),
                ] {
                    if !ok {
                        return Err(ContactError::InvalidParameter { name, value });
                    }
                }
                // the floors f64 can meet at the state's scale S = max |(q0, q̇0)|
                // (contour_ode::Tolerances::validate_at): rtol ≥ 1e-14, atol ≥ 1e-30·S
                if m.rtol < RTOL_FLOOR {
                    return Err(ContactError::ToleranceBelowFloor {
                        name: "rtol",
                        value: m.rtol,
                        floor: RTOL_FLOOR,
                    });
                }
                let size = q0.iter().chain(qd0).fold(0.0f64, |a, v| a.max(v.abs()));
                let floor = MIXED_ATOL_FLOOR_FACTOR * size;
                if m.atol < floor {
                    return Err(ContactError::ToleranceBelowFloor {
                        name: "atol",
                        value: m.atol,
                        floor,
                    });
                }
                forced("h_max", m.h_max)?;
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
                forced("h_free", h.h_free)?;
                forced("h_constrained", h.h_constrained)?;
                if let EntryLocation::HuangInterpolation { eps } = h.entry {
                    // Huang (5.3.6): the entry test φ < ε needs a finite ε > 0
                    if !(eps > 0.0 && eps.is_finite()) {
                        return Err(ContactError::InvalidParameter {
                            name: "eps",
                            value: eps,
                        });
                    }
                }
            }
        }
        // initial penetration: an error, not a launch (Huang) nor a silent snap (modern)
        let mut phi = vec![0.0; l];
        mech.constraints(t0, q0, &mut phi);
        for (row, &p) in phi.iter().enumerate() {
            if !p.is_finite() {
                return Err(ContactError::NonFinite {
                    what: "phi(q0)",
                    index: row,
                });
            }
            if p < -cfg.contact_tol {
                return Err(ContactError::InitialPenetration { row, phi: p });
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
            exited: vec![false; l],
            persistent: vec![false; l],
            slip_dir: vec![0.0; n],
            traj: ContactTrajectory {
                trajectory: Trajectory {
                    x_initial,
                    ..Trajectory::new(scheme, integrator)
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
