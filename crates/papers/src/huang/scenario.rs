//! The contour-following simulations of Huang section 6.3: the planned motion of case 1(a)
//! (path with discontinuous slopes (6.2.5), rest-to-rest cubics (4.3.21) with t1 = 1.56,
//! t2 = 5.21, tf = 7 s, contact force Λ = 1 N (6.2.10)), tracked by the PD law (6.3.3), on the
//! Cartesian robot (6.1.3) with
//!
//! * (I) no model error (circle radius 0.5 m),
//! * (II) the circle radius 0.55 m instead of 0.5 m,
//! * (III) Coulomb friction μ = 0.05 (6.3.4).

use contour::contact::{simulate, ContactConfig, ContactError, ContactTrajectory, Scheme};
use contour::model::models::{DesiredMotion, HuangCartesianRobot, HuangPdLaw};
use contour::model::WithController;
use contour::planning::{Path, PlanningError, RestToRestHistory, SegmentKind};

use super::ch6_2_planning::huang_paths;

/// Kinematic times of case 1(a): entry t1, exit t2, final tf \[s\].
pub const CASE1A_TIMES: [f64; 3] = [1.56, 5.21, 7.0];

/// Start of the task, at rest (6.2.1) \[m\].
pub const HUANG_START: [f64; 2] = [0.4, 0.8];

/// The planned motion of case 1(a): `s(t)` of (4.3.21) on the path of (6.2.5).
#[derive(Debug, Clone)]
pub struct HuangPlan {
    path: Path,
    history: RestToRestHistory,
    /// Circle centre of the plan \[m\].
    pub center: [f64; 2],
}

impl HuangPlan {
    /// Builds the plan of case 1(a) with contour-planning.
    pub fn case1a() -> Result<Self, PlanningError> {
        let (p1, _) = huang_paths()?;
        let [t1, t2, tf] = CASE1A_TIMES;
        let history = RestToRestHistory::new(0.0, t1, t2, tf, p1.s1, p1.s2)?;
        Ok(Self {
            path: p1.path,
            history,
            center: [0.0, 1.5],
        })
    }

    /// Desired position, velocity, acceleration and planned multiplier Λ at `t`.
    pub fn state(&self, t: f64) -> ([f64; 2], [f64; 2], [f64; 2], f64) {
        // segment by time, right-continuous at t1 and t2 (a step ending exactly at a breakpoint
        // is evaluated just before it, see `Simulator`): the cubics (4.3.21) piece by piece
        let [t0, t1, t2, tf] = self.history.times;
        let c = self.history.c;
        let t = t.clamp(t0, tf);
        let (seg, a, b, tk, sk) = if t < t1 {
            (0, c[0], c[1], t1, self.history.s1)
        } else if t < t2 {
            (1, c[2], c[3], t1, self.history.s1)
        } else {
            (2, c[4], c[5], t2, self.history.s2)
        };
        let d = t - tk;
        let (s, sd, sdd) = (
            a * d * d * d + b * d * d + sk,
            3.0 * a * d * d + 2.0 * b * d,
            6.0 * a * d + 2.0 * b,
        );
        let (mut p, mut dp, mut ddp) = ([0.0; 2], [0.0; 2], [0.0; 2]);
        // the segment's own formula (a step may land a round-off beyond its interval); a
        // failure leaves NaN, which the simulation refuses as a non-finite applied force
        if self.path.segments()[seg]
            .eval(s, &mut p, &mut dp, &mut ddp)
            .is_err()
        {
            (p, dp, ddp) = ([f64::NAN; 2], [f64::NAN; 2], [f64::NAN; 2]);
        }
        let lam = match &self.path.segments()[seg].kind {
            SegmentKind::Constrained { force, .. } => force.value(s),
            SegmentKind::Unconstrained => 0.0,
        };
        let mut qd = [0.0; 2];
        let mut qdd = [0.0; 2];
        for k in 0..2 {
            qd[k] = dp[k] * sd;
            qdd[k] = ddp[k] * sd * sd + dp[k] * sdd;
        }
        (p, qd, qdd, lam)
    }

    /// The planned motion at `t` with the joint forces of the inverse dynamics (4.3.6): for
    /// unit masses and `h = 0`, `F^d = q̈^d − Jᵀ(q^d) Λ` (6.1.3).
    pub fn desired(&self, t: f64) -> DesiredMotion {
        let (q, qd, qdd, lam) = self.state(t);
        let j = [2.0 * (q[0] - self.center[0]), 2.0 * (q[1] - self.center[1])];
        DesiredMotion {
            q,
            qd,
            force: [qdd[0] - j[0] * lam, qdd[1] - j[1] * lam],
        }
    }
}

/// Which of Huang's simulations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HuangCase {
    /// (I) no model errors.
    NoModelError,
    /// (II) circle radius 0.55 m.
    InexactRadius,
    /// (III) Coulomb friction μ = 0.05.
    CoulombFriction,
}

/// The robot of a case.
pub fn huang_robot(case: HuangCase) -> HuangCartesianRobot {
    match case {
        HuangCase::InexactRadius => HuangCartesianRobot {
            radius: 0.55,
            ..HuangCartesianRobot::default()
        },
        HuangCase::CoulombFriction => HuangCartesianRobot {
            friction: 0.05,
            ..HuangCartesianRobot::default()
        },
        HuangCase::NoModelError => HuangCartesianRobot::default(),
    }
}

/// Runs one of Huang's simulations (0 ≤ t ≤ 7 s from rest at (0.4, 0.8)) with `scheme`,
/// outputs every `output_dt` (None: every step). Breakpoints at t1, t2 (the planned forces
/// jump there). The controller tracks the plan through a closure `t ↦ desired(t)`.
pub fn simulate_huang(
    plan: &HuangPlan,
    case: HuangCase,
    scheme: Scheme,
    output_dt: Option<f64>,
) -> Result<ContactTrajectory, ContactError> {
    let robot = huang_robot(case);
    let law = HuangPdLaw::new(|t: f64| plan.desired(t));
    let mech = WithController::new(robot, law);
    let [t1, t2, tf] = CASE1A_TIMES;
    let mut cfg = ContactConfig::new(tf, scheme);
    cfg.breakpoints = vec![t1, t2];
    cfg.friction = robot.friction;
    cfg.output_dt = output_dt;
    // closed below 1e-8 m² in φ; normal speeds below 1e-5 m/s are numerical noise of the
    // schemes (the planned entry is at rest): an entry there is "without impact" (Thm 3.3.3)
    cfg.contact_tol = 1e-8;
    cfg.velocity_tol = 1e-5;
    simulate(&mech, 0.0, &HUANG_START, &[0.0, 0.0], cfg)
}
