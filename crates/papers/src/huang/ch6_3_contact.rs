//! The rows `huang/6.3.1/*` of `shared/REPRODUCTION.md` and the data of Huang's figures
//! 6.3.1–6.3.17 (simulations I–III of section 6.3), computed with contour-contact.
//!
//! Fixed ids are computed with the modern scheme ([`Scheme::Modern`], default tolerances);
//! `huang/6.3.1/<case>/huang_scheme/...` repeat them with Huang's scheme (RKG h = 0.01 s,
//! BDF2 h = 0.01 s with ρ₁ = 5, ρ₂ = 25, ε = 1e-6, Taylor exit, literal transitions), and
//! `huang/6.3.1/II/chatter/...` vary the step size, ε, the exit criterion and the transition
//! rule of Huang's scheme to find the source of the chatter the thesis reports near A–B.

use contour::contact::{
    ContactDynamics, ContactTrajectory, EntryLocation, EventKind, ExitCriterion, FrictionMode,
    HuangSchemeConfig, ModernConfig, Scheme,
};
use contour::model::models::HuangPdLaw;
use contour::model::WithController;

use super::scenario::{huang_robot, simulate_huang, HuangCase, HuangPlan, CASE1A_TIMES};
use crate::{BoxError, LinePlot, Row, Series, Tolerance};

/// What explains the chatter of simulation II (the evidence is in the `II/chatter/*` rows).
pub const CHATTER_NOTE: &str = "Chatter = repeated entry/exit cycles between A and D. It \
appears only with Huang's literal transitions (a detected entry always starts MSC; the MSU test \
phi < eps is applied right after an exit): after the plastic impact at A the contact force is \
negative (planned F_y < 0), MSC runs one BDF2 step and leaves by the Taylor test; the end \
effector lifts off tangentially, phi stays below eps for the next RKG step, which re-enters, and \
the Baumgarte terms of MSC pull it back onto the circle: it is dragged clockwise along the circle \
a step at a time (Huang's portion Q of Fig. 6.3.11). Events between A and D (2 without chatter: the \
impact at A and its lift-off) grow with eps (6, 14, 45 for eps = 1e-6, 1e-4, 1e-3 at h = 0.01) \
and change non-monotonically with h (eps = 1e-3: 26, 45, 88, 8 for h = 0.02, 0.01, 0.005, 0.001); it vanishes with \
the complementarity rule (enter only when the LCP gives lambda > 0; 2 events at eps = 1e-3) or \
with event location (2 events); removing the Baumgarte terms changes nothing; the modern scheme gives impact A with \
immediate lift-off, free flight, impact D, exit E at every tolerance. The chatter is caused by \
the transition logic (eps-test + unconditional MSC), not by the DAE integrator.";

/// Data of one figure: named series of (x, y) points.
#[derive(Clone, Debug, PartialEq)]
struct SimFigure {
    /// File name stem (`fig6.3.1` …).
    name: String,
    /// Title.
    title: String,
    /// x-axis label.
    x_label: String,
    /// y-axis label.
    y_label: String,
    /// Series (legend, points).
    series: Vec<(String, Vec<(f64, f64)>)>,
}

impl From<SimFigure> for LinePlot {
    fn from(f: SimFigure) -> Self {
        let mut fig = LinePlot::new(&f.name, &f.title, &f.x_label, &f.y_label);
        for (label, pts) in f.series {
            fig.series.push(Series::line(label, pts));
        }
        fig
    }
}

/// Values below this are round-off: `--check` only keeps them below it.
pub const ROUNDOFF_FLOOR: f64 = 1e-9;

/// A measured value (6 digits, or only below [`ROUNDOFF_FLOOR`] at round-off level).
fn row(id: &str, paper: Option<f64>, ours: f64, unit: &'static str, note: &str) -> Row {
    Row::value_or_roundoff(id, ours, unit, ROUNDOFF_FLOOR)
        .paper_opt(paper)
        .note(note)
}

/// An event count (exact, dimensionless).
fn count_row(id: &str, paper: Option<f64>, ours: f64, note: &str) -> Row {
    Row::count(id, ours).paper_opt(paper).note(note)
}

/// Huang's scheme as used for the `huang_scheme` rows, with step `h` for both segments.
pub fn huang_scheme(h: f64) -> Scheme {
    Scheme::Huang(HuangSchemeConfig {
        h_free: h,
        h_constrained: h,
        ..HuangSchemeConfig::default()
    })
}

fn modern() -> Scheme {
    Scheme::Modern(ModernConfig::default())
}

/// Max ‖q − q^d‖ over the outputs, and max |λ − Λ| over the outputs strictly inside the
/// constrained segment (between the first entry and the last exit).
pub fn tracking_errors(plan: &HuangPlan, tr: &ContactTrajectory) -> (f64, f64) {
    let t_out = tr
        .events_of(EventKind::Exit)
        .map(|e| e.t)
        .fold(f64::NEG_INFINITY, f64::max);
    // the last entry before the last exit (Huang's literal transitions may enter and leave
    // again within the last step before t1)
    let t_in = tr
        .events_of(EventKind::Entry)
        .map(|e| e.t)
        .filter(|&t| t < t_out)
        .fold(f64::NEG_INFINITY, f64::max);
    let (mut et, mut ef) = (0.0f64, 0.0f64);
    for (k, &t) in tr.times.iter().enumerate() {
        let d = plan.desired(t);
        let e = (tr.q[k][0] - d.q[0]).hypot(tr.q[k][1] - d.q[1]);
        et = et.max(e);
        if t > t_in && t < t_out {
            let (_, _, _, lam) = plan.state(t);
            ef = ef.max((tr.lambda[k][0] - lam).abs());
        }
    }
    (et, ef)
}

/// Times where the tangential (counter-clockwise) velocity on the circle changes sign from
/// positive to negative after `t_from`, by linear interpolation of the outputs.
fn tangential_reversal(tr: &ContactTrajectory, center: [f64; 2], t_from: f64) -> Option<f64> {
    let vt = |k: usize| {
        let (q, v) = (&tr.q[k], &tr.qd[k]);
        -(q[1] - center[1]) * v[0] + (q[0] - center[0]) * v[1]
    };
    for k in 1..tr.times.len() {
        if tr.times[k - 1] <= t_from {
            continue;
        }
        let (a, b) = (vt(k - 1), vt(k));
        if a > 0.0 && b <= 0.0 {
            let (ta, tb) = (tr.times[k - 1], tr.times[k]);
            return Some(ta + (tb - ta) * a / (a - b));
        }
    }
    None
}

fn count(tr: &ContactTrajectory, kind: EventKind) -> f64 {
    tr.events_of(kind).count() as f64
}

/// The rows `huang/6.3.1/*` (see the module documentation).
pub fn huang_sim_rows() -> Result<Vec<Row>, BoxError> {
    let plan = HuangPlan::case1a()?;
    let mut rows = Vec::new();
    let [t1, t2, _] = CASE1A_TIMES;

    // (I) no model errors
    for (prefix, scheme, tracking_tol, force_tol) in [
        (
            "huang/6.3.1/I",
            modern(),
            Tolerance::AtMost(1e-5),
            Tolerance::AtMost(1e-3),
        ),
        (
            "huang/6.3.1/I/huang_scheme",
            huang_scheme(0.01),
            Tolerance::None,
            Tolerance::None,
        ),
    ] {
        let tr = simulate_huang(&plan, HuangCase::NoModelError, scheme, None)?;
        let (et, ef) = tracking_errors(&plan, &tr);
        rows.push(row(
            &format!("{prefix}/max_tracking_error"),
            None,
            et,
            "m",
            "max ‖q − q^d‖ over 0 ≤ t ≤ 7 s (thesis: computed = desired exactly); tolerance ≤ 1e-5 m",
        ).tolerance(tracking_tol));
        rows.push(
            row(
                &format!("{prefix}/max_force_error"),
                None,
                ef,
                "N",
                "max |λ − Λ| (Λ = 1 N) strictly between entry and exit; tolerance ≤ 1e-3 N",
            )
            .tolerance(force_tol),
        );
        let entry = tr
            .events_of(EventKind::Entry)
            .last()
            .map_or(f64::NAN, |e| e.t);
        let exit = tr
            .events_of(EventKind::Exit)
            .last()
            .map_or(f64::NAN, |e| e.t);
        rows.push(row(
            &format!("{prefix}/t_entry"),
            Some(t1),
            entry,
            "s",
            "last entry (planned t1 = 1.56 s, at rest: no impact, Theorem 3.3.3)",
        ));
        rows.push(row(
            &format!("{prefix}/t_exit"),
            Some(t2),
            exit,
            "s",
            "exit (planned t2 = 5.21 s)",
        ));
        rows.push(count_row(
            &format!("{prefix}/n_impacts"),
            None,
            count(&tr, EventKind::Impact),
            "impacts with J q̇⁻ below −1e-5 m/s",
        ));
    }

    // (II) inexact radius
    let modern_ii = simulate_huang(&plan, HuangCase::InexactRadius, modern(), None)?;
    let huang_ii = simulate_huang(&plan, HuangCase::InexactRadius, huang_scheme(0.01), None)?;
    for (prefix, tr) in [
        ("huang/6.3.1/II", &modern_ii),
        ("huang/6.3.1/II/huang_scheme", &huang_ii),
    ] {
        let imps: Vec<_> = tr.events_of(EventKind::Impact).collect();
        let exits: Vec<_> = tr.events_of(EventKind::Exit).collect();
        let nan = f64::NAN;
        rows.push(row(
            &format!("{prefix}/t_first_impact"),
            None,
            imps.first().map_or(nan, |e| e.t),
            "s",
            "point A (thesis: before the planned entry 1.56 s)",
        ));
        rows.push(row(
            &format!("{prefix}/xi_first_impact"),
            None,
            imps.first().and_then(|e| e.impulse).unwrap_or(nan),
            "N·s",
            "impulse ξ at A, Huang (3.3.8) (multiplier of ∇φ, as in (6.1.3))",
        ));
        rows.push(row(
            &format!("{prefix}/t_second_impact"),
            None,
            imps.get(1).map_or(nan, |e| e.t),
            "s",
            "point D",
        ));
        rows.push(row(
            &format!("{prefix}/xi_second_impact"),
            None,
            imps.get(1).and_then(|e| e.impulse).unwrap_or(nan),
            "N·s",
            "impulse ξ at D",
        ));
        rows.push(count_row(
            &format!("{prefix}/n_impacts"),
            None,
            imps.len() as f64,
            "thesis: impacts at A and D",
        ));
        rows.push(count_row(
            &format!("{prefix}/n_exits"),
            None,
            exits.len() as f64,
            "thesis: exits at B and E (modern: λ < 0 right after the plastic impact at A, so the \
             end effector lifts off at A itself: B = A)",
        ));
        rows.push(row(
            &format!("{prefix}/t_last_exit"),
            None,
            exits.last().map_or(nan, |e| e.t),
            "s",
            "point E",
        ));
        rows.push(row(
            &format!("{prefix}/max_tangency_residual"),
            None,
            exits
                .iter()
                .filter_map(|e| e.normal_velocity_after.map(f64::abs))
                .fold(0.0, f64::max),
            "m²/s",
            "max |D ṗ| = |J q̇| at the exits, tangency (3.3.13)",
        ));
    }
    // chatter study on Huang's scheme
    let t_d = modern_ii
        .events_of(EventKind::Impact)
        .nth(1)
        .map_or(2.0, |e| e.t);
    let mut variants: Vec<(String, HuangSchemeConfig)> = Vec::new();
    for h in [0.02, 0.01, 0.005, 0.002, 0.001] {
        variants.push((
            format!("h={h}"),
            HuangSchemeConfig {
                h_free: h,
                h_constrained: h,
                ..HuangSchemeConfig::default()
            },
        ));
    }
    for h in [0.02, 0.005, 0.001] {
        variants.push((
            format!("eps=1e-3,h={h}"),
            HuangSchemeConfig {
                h_free: h,
                h_constrained: h,
                entry: EntryLocation::HuangInterpolation { eps: 1e-3 },
                ..HuangSchemeConfig::default()
            },
        ));
    }
    variants.push((
        "eps=1e-3,non_literal".into(),
        HuangSchemeConfig {
            entry: EntryLocation::HuangInterpolation { eps: 1e-3 },
            literal_transitions: false,
            ..HuangSchemeConfig::default()
        },
    ));
    for eps in [1e-3, 1e-4, 1e-8] {
        variants.push((
            format!("eps={eps:e}"),
            HuangSchemeConfig {
                entry: EntryLocation::HuangInterpolation { eps },
                ..HuangSchemeConfig::default()
            },
        ));
    }
    variants.push((
        "exit=lambda_event".into(),
        HuangSchemeConfig {
            exit: ExitCriterion::ContactForceEvent,
            ..HuangSchemeConfig::default()
        },
    ));
    variants.push((
        "entry=event_location".into(),
        HuangSchemeConfig {
            entry: EntryLocation::EventLocation,
            literal_transitions: false,
            ..HuangSchemeConfig::default()
        },
    ));
    variants.push((
        "rho=0".into(),
        HuangSchemeConfig {
            rho1: 1e-8,
            rho2: 1e-8,
            ..HuangSchemeConfig::default()
        },
    ));
    for (name, hc) in variants {
        let tr = simulate_huang(&plan, HuangCase::InexactRadius, Scheme::Huang(hc), None)?;
        let between = tr
            .events
            .iter()
            .filter(|e| e.t > 0.5 && e.t < t_d - 1e-3)
            .count() as f64;
        rows.push(count_row(
            &format!("huang/6.3.1/II/chatter/{name}/events_A_to_D"),
            None,
            between,
            CHATTER_NOTE,
        ));
        rows.push(count_row(
            &format!("huang/6.3.1/II/chatter/{name}/n_impacts"),
            None,
            count(&tr, EventKind::Impact),
            "",
        ));
    }
    // modern scheme at several tolerances: same event sequence
    for rtol in [1e-6, 1e-8, 1e-12] {
        let tr = simulate_huang(
            &plan,
            HuangCase::InexactRadius,
            Scheme::Modern(ModernConfig {
                rtol,
                atol: rtol * 1e-2,
                ..ModernConfig::default()
            }),
            None,
        )?;
        rows.push(count_row(
            &format!("huang/6.3.1/II/chatter/modern_rtol={rtol:e}/n_events"),
            None,
            tr.events.len() as f64,
            "all events of the modern scheme (5: impact A with lift-off = exit B, impact D + entry, \
             exit E)",
        ));
    }

    // (III) Coulomb friction
    let tr = simulate_huang(&plan, HuangCase::CoulombFriction, modern(), None)?;
    let t_in = tr
        .events_of(EventKind::Entry)
        .map(|e| e.t)
        .next()
        .unwrap_or(t1);
    let rev = tr
        .events_of(EventKind::Reversal)
        .next()
        .map_or(f64::NAN, |e| e.t);
    rows.push(row(
        "huang/6.3.1/III/t_reversal",
        None,
        rev,
        "s",
        "point F: the sliding velocity vanishes and reverses (event on q̇·d₀; |F_t| > μλ there, \
         so no sticking)",
    ));
    let exit = tr.events_of(EventKind::Exit).last();
    rows.push(row(
        "huang/6.3.1/III/t_exit",
        Some(5.21),
        exit.map_or(f64::NAN, |e| e.t),
        "s",
        "point G: the thesis reports the slope discontinuity of ẋ, ẏ at t = 5.21 s",
    ));
    if let Some(e) = exit {
        // slope discontinuity of the velocities at the exit: q̈ just before (active, sliding)
        // and just after (free, forces of the next plan segment)
        let robot = huang_robot(HuangCase::CoulombFriction);
        let law = HuangPdLaw::new(|t: f64| plan.desired(t));
        let mech = WithController::new(robot, law);
        let mut d = ContactDynamics::new(&mech);
        let (mut a_l, mut a_r, mut lam) = ([0.0; 2], [0.0; 2], [0.0; 1]);
        let t_l = e.t * (1.0 - 4.0 * f64::EPSILON);
        d.evaluate(&mech, t_l, &e.q, &e.qd)?;
        d.accelerations(
            &[0],
            FrictionMode::Slip { mu: 0.05 },
            &e.qd,
            &mut a_l,
            &mut lam,
        )?;
        d.evaluate(&mech, e.t, &e.q, &e.qd)?;
        d.accelerations(&[], FrictionMode::None, &e.qd, &mut a_r, &mut lam)?;
        rows.push(row(
            "huang/6.3.1/III/xdd_jump_at_exit",
            None,
            a_r[0] - a_l[0],
            "m/s²",
            "ẍ(t⁺) − ẍ(t⁻) at the exit: the slope discontinuity of ẋ (friction and contact force \
             vanish, planned forces switch)",
        ));
        rows.push(row(
            "huang/6.3.1/III/ydd_jump_at_exit",
            None,
            a_r[1] - a_l[1],
            "m/s²",
            "ÿ(t⁺) − ÿ(t⁻) at the exit",
        ));
        rows.push(row(
            "huang/6.3.1/III/tangency_at_exit",
            None,
            e.normal_velocity_after.unwrap_or(f64::NAN),
            "m²/s",
            "J q̇ at the exit, (3.3.13)",
        ));
    }
    let (et, _) = tracking_errors(&plan, &tr);
    rows.push(row(
        "huang/6.3.1/III/max_tracking_error",
        None,
        et,
        "m",
        "the thesis: errors due to Coulomb friction are quite large",
    ));
    let trh = simulate_huang(&plan, HuangCase::CoulombFriction, huang_scheme(0.01), None)?;
    rows.push(row(
        "huang/6.3.1/III/huang_scheme/t_reversal",
        None,
        tangential_reversal(&trh, [0.0, 1.5], t_in).unwrap_or(f64::NAN),
        "s",
        "sign change of the counter-clockwise sliding velocity (interpolated between steps)",
    ));
    rows.push(row(
        "huang/6.3.1/III/huang_scheme/t_exit",
        Some(5.21),
        trh.events_of(EventKind::Exit)
            .last()
            .map_or(f64::NAN, |e| e.t),
        "s",
        "",
    ));
    // every row follows the desired path of 6.2.1, Huang's construction as stated (arc (6.2.3)
    // given, s1 and s2 solved from the normality condition)
    for r in &mut rows {
        let sep = if r.note.is_empty() { "" } else { "; " };
        r.note = format!(
            "{}{sep}desired path: (6.2.1)-(6.2.5) as stated, s1 and s2 solved from the normality condition",
            r.note
        );
    }
    Ok(rows)
}

fn series_of(tr: &ContactTrajectory, f: impl Fn(usize) -> f64) -> Vec<(f64, f64)> {
    (0..tr.times.len()).map(|k| (tr.times[k], f(k))).collect()
}

fn circle(r: f64) -> Vec<(f64, f64)> {
    (0..=200)
        .map(|k| {
            let a = 2.0 * std::f64::consts::PI * k as f64 / 200.0;
            (r * a.cos(), 1.5 + r * a.sin())
        })
        .collect()
}

/// Data of figures 6.3.1–6.3.17: computed (modern and Huang's scheme) beside desired.
pub fn huang_sim_figures() -> Result<Vec<LinePlot>, BoxError> {
    let plan = HuangPlan::case1a()?;
    let grid: Vec<f64> = (0..=700).map(|k| k as f64 * 0.01).collect();
    let mut figs = Vec::new();
    let cases = [
        (HuangCase::NoModelError, 1, "without disturbance"),
        (
            HuangCase::InexactRadius,
            6,
            "with disturbance due to inexact radius",
        ),
        (
            HuangCase::CoulombFriction,
            12,
            "with disturbance due to Coulomb friction",
        ),
    ];
    for (case, first, what) in cases {
        let trm = simulate_huang(&plan, case, modern(), Some(0.01))?;
        let trh = simulate_huang(&plan, case, huang_scheme(0.01), None)?;
        let quantities: [(&str, &str, usize); 5] = [
            ("Displacement x", "x [m]", 0),
            ("Displacement y", "y [m]", 1),
            ("Velocity ẋ", "ẋ [m/s]", 2),
            ("Velocity ẏ", "ẏ [m/s]", 3),
            ("Contact force λ", "λ [N]", 4),
        ];
        for (k, (title, ylab, which)) in quantities.into_iter().enumerate() {
            let pick = |tr: &ContactTrajectory, i: usize| match which {
                0 => tr.q[i][0],
                1 => tr.q[i][1],
                2 => tr.qd[i][0],
                3 => tr.qd[i][1],
                _ => tr.lambda[i][0],
            };
            let desired: Vec<(f64, f64)> = grid
                .iter()
                .map(|&t| {
                    let (q, qd, _, lam) = plan.state(t);
                    let v = match which {
                        0 => q[0],
                        1 => q[1],
                        2 => qd[0],
                        3 => qd[1],
                        _ => lam,
                    };
                    (t, v)
                })
                .collect();
            figs.push(SimFigure {
                name: format!("fig6.3.{}", first + k),
                title: format!("{title} {what}"),
                x_label: "t [s]".into(),
                y_label: ylab.into(),
                series: vec![
                    (
                        "computed (modern)".into(),
                        series_of(&trm, |i| pick(&trm, i)),
                    ),
                    (
                        "computed (Huang's scheme)".into(),
                        series_of(&trh, |i| pick(&trh, i)),
                    ),
                    ("desired".into(), desired),
                ],
            });
        }
        if case != HuangCase::NoModelError {
            let path: Vec<(f64, f64)> = grid
                .iter()
                .map(|&t| {
                    let (q, ..) = plan.state(t);
                    (q[0], q[1])
                })
                .collect();
            let mut series = vec![
                (
                    "computed path (modern)".to_string(),
                    trm.q.iter().map(|q| (q[0], q[1])).collect::<Vec<_>>(),
                ),
                (
                    "computed path (Huang's scheme)".to_string(),
                    trh.q.iter().map(|q| (q[0], q[1])).collect(),
                ),
                ("desired path".to_string(), path),
                ("constraint r = 0.5".to_string(), circle(0.5)),
            ];
            let name = if case == HuangCase::InexactRadius {
                series.push(("constraint r = 0.55".to_string(), circle(0.55)));
                "fig6.3.11"
            } else {
                "fig6.3.17"
            };
            figs.push(SimFigure {
                name: name.into(),
                title: format!("Path and constraint {what}"),
                x_label: "x [m]".into(),
                y_label: "y [m]".into(),
                series,
            });
        }
    }
    figs.sort_by_key(|f| {
        f.name
            .trim_start_matches("fig6.3.")
            .parse::<u32>()
            .unwrap_or(0)
    });
    Ok(figs.into_iter().map(LinePlot::from).collect())
}
