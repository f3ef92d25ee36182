//! Built-in models by name (and URDF files) → a boxed [`Mechanism`] and its initial state.

use std::path::Path;

use contour::model::models as lib;
use contour::prelude::{
    Closure, ConstrainedTree, ConstraintKind, Controller, KinematicTree, Mechanism, WithController,
};

use crate::error::{CliError, ScenarioError};
use crate::scenario::{
    ClosureKind, ClosureSpec, InitialSpec, ModelSpec, NFourBarParams, MAX_N_FOUR_BAR_LOOPS,
};

/// A mechanism built from a scenario, with the initial state it asks for.
pub struct Built {
    /// The mechanism.
    pub mech: Box<dyn Mechanism>,
    /// Initial coordinates.
    pub q0: Vec<f64>,
    /// Initial velocities.
    pub qd0: Vec<f64>,
}

impl Built {
    /// Whether any constraint row is unilateral (then the contact simulator runs it).
    pub fn has_unilateral_rows(&self) -> bool {
        (0..self.mech.n_constraints())
            .any(|r| self.mech.constraint_kind(r) == ConstraintKind::Unilateral)
    }
}

/// A constant generalized force (Huang's robot pushed towards its obstacle).
#[derive(Debug, Clone, Copy)]
struct ConstantForce([f64; 2]);

impl Controller for ConstantForce {
    fn forces(&self, _t: f64, _q: &[f64], _qd: &[f64], u: &mut [f64]) {
        for (ui, f) in u.iter_mut().zip(self.0) {
            *ui += f;
        }
    }
}

/// Where a scenario came from, for the errors of values that parse but make no sense.
#[derive(Debug, Clone, Copy)]
pub struct Origin<'a> {
    /// File name (or a sweep run's name).
    pub file: &'a str,
    /// Source text, when there is one (to find the key's line).
    pub source: Option<&'a str>,
    /// Directory of relative paths.
    pub dir: &'a Path,
}

impl Origin<'_> {
    /// An error about `key` (dotted path; its last part is looked up in the source).
    pub fn error(&self, key: &str, message: impl Into<String>) -> ScenarioError {
        let last = key.rsplit('.').next().unwrap_or(key);
        let quoted = |k: &str| format!("\"{k}\"");
        // A quoted dotted key (sweeps: `"initial.angle"` of `random.initial.angle`), the key
        // itself, or its last part.
        let candidates = [
            quoted(key.split_once('.').map_or(key, |(_, r)| r)),
            quoted(key),
            key.to_string(),
            last.to_string(),
        ];
        let line = self
            .source
            .and_then(|s| {
                locate_in_section(s, key).or_else(|| {
                    candidates
                        .iter()
                        .find_map(|k| crate::scenario::locate_key(s, k))
                })
            })
            .unwrap_or(0);
        ScenarioError {
            file: self.file.to_string(),
            line,
            column: usize::from(line > 0),
            key: Some(key.to_string()),
            message: message.into(),
        }
    }
}

/// The line (1-based) of `c = …` under the header `[a.b]` for the key `a.b.c` (or of
/// `b.c = …` under `[a]`), before the next header.
fn locate_in_section(src: &str, key: &str) -> Option<usize> {
    let parts: Vec<&str> = key.split('.').collect();
    let lines: Vec<&str> = src.lines().collect();
    (1..parts.len()).rev().find_map(|cut| {
        let header = format!("[{}]", parts[..cut].join("."));
        let leaf = parts[cut..].join(".");
        let h = lines.iter().position(|l| l.trim() == header)?;
        lines[h + 1..]
            .iter()
            .take_while(|l| !l.trim_start().starts_with('['))
            .position(|l| {
                l.trim_start()
                    .strip_prefix(leaf.as_str())
                    .is_some_and(|r| r.trim_start().starts_with('='))
            })
            .map(|i| h + i + 2)
    })
}

/// Builds the mechanism and the initial state of `model` with `initial`.
pub fn build(
    model: &ModelSpec,
    initial: &InitialSpec,
    origin: Origin<'_>,
) -> Result<Built, CliError> {
    let angle = initial.angle;
    let rate = initial.rate.unwrap_or(0.0);
    let no_angle = |name: &str| -> Result<(), CliError> {
        match angle {
            Some(_) => Err(origin
                .error(
                    "initial.angle",
                    format!("model `{name}` has no one-angle state; give q and qd"),
                )
                .into()),
            None => Ok(()),
        }
    };
    let (mech, q0, qd0): (Box<dyn Mechanism>, Vec<f64>, Vec<f64>) = match model {
        ModelSpec::Pendulum(p) => {
            let m = p.build();
            let (q, qd) = m.state(angle.unwrap_or(0.5), rate);
            (Box::new(m), q.to_vec(), qd.to_vec())
        }
        ModelSpec::SliderCrank(p) => {
            let m = p.build();
            let (q, qd) = m.state(angle.unwrap_or(0.0), rate);
            (Box::new(m), q.to_vec(), qd.to_vec())
        }
        ModelSpec::FourBar(p) => {
            let m = p.build();
            let theta = angle.unwrap_or(1.0);
            let (q, qd) = m.state(theta, rate).ok_or_else(|| {
                origin.error(
                    "initial.angle",
                    format!("the four-bar cannot be assembled at crank angle {theta}"),
                )
            })?;
            (Box::new(m), q.to_vec(), qd.to_vec())
        }
        ModelSpec::Keerthi(p) => {
            no_angle("keerthi")?;
            let ic = lib::KEERTHI_IC1;
            let m = p.build();
            let mech: Box<dyn Mechanism> = if p.control {
                Box::new(WithController::new(m, lib::KeerthiControlLaw::default()))
            } else {
                Box::new(m)
            };
            (mech, ic.q.to_vec(), ic.qd.to_vec())
        }
        ModelSpec::Huang(p) => {
            no_angle("huang")?;
            let m = p.build();
            let q = vec![m.center[0], m.center[1] - m.radius - 0.2];
            (
                Box::new(WithController::new(m, ConstantForce(p.force))),
                q,
                vec![0.0; 2],
            )
        }
        ModelSpec::Arm7(p) => {
            no_angle("arm7")?;
            let q = lib::arm7_initial_q().to_vec();
            let mech: Box<dyn Mechanism> = if p.tip_held {
                if p.gravity != [0.0; 3] {
                    return Err(origin
                        .error("model.arm7.gravity", "gravity with tip_held is not offered (the held arm is a space manipulator)")
                        .into());
                }
                Box::new(lib::ssrms_arm_tip_held())
            } else {
                let mut t = lib::ssrms_arm();
                t.set_gravity(p.gravity);
                Box::new(t)
            };
            (mech, q, vec![0.0; 7])
        }
        ModelSpec::Andrews(p) => {
            no_angle("andrews")?;
            (Box::new(p.build()), lib::ANDREWS_Q0.to_vec(), vec![0.0; 7])
        }
        ModelSpec::NFourBar(p) => {
            let m = n_four_bar(p, origin)?;
            let theta = angle.unwrap_or(p.theta);
            let theta_dot = initial.rate.unwrap_or(p.theta_dot);
            let (q, qd) = m.state(theta, theta_dot);
            (Box::new(m), q, qd)
        }
        ModelSpec::Urdf(p) => {
            no_angle("urdf")?;
            let path = origin.dir.join(&p.file);
            let mut t = KinematicTree::from_urdf_file(&path)
                .map_err(|e| origin.error("model.urdf.file", format!("{}: {e}", path.display())))?;
            t.set_gravity(p.gravity);
            let n = t.dof();
            let q = initial.q.clone().unwrap_or_else(|| vec![0.0; n]);
            if p.closures.is_empty() {
                (Box::new(t), q, vec![0.0; n])
            } else {
                if q.len() != n {
                    return Err(origin
                        .error(
                            "initial.q",
                            format!("has {} entries, the model has {n} coordinates", q.len()),
                        )
                        .into());
                }
                let closures = p
                    .closures
                    .iter()
                    .map(|c| closure(&t, &q, c, origin))
                    .collect::<Result<Vec<_>, CliError>>()?;
                let ct = ConstrainedTree::new(t, closures).map_err(contour::Error::from)?;
                (Box::new(ct), q, vec![0.0; n])
            }
        }
    };
    let n = mech.dof();
    let q0 = initial.q.clone().unwrap_or(q0);
    let qd0 = initial.qd.clone().unwrap_or(qd0);
    for (key, v) in [("initial.q", &q0), ("initial.qd", &qd0)] {
        if v.len() != n {
            return Err(origin
                .error(
                    key,
                    format!("has {} entries, the model has {n} coordinates", v.len()),
                )
                .into());
        }
    }
    Ok(Built { mech, q0, qd0 })
}

/// A02's mechanism of `p`, with `n` in `1 ..= MAX_N_FOUR_BAR_LOOPS` and a finite initial
/// crank angle and rate (the bar length, mass and gravity are checked by the model).
pub fn n_four_bar(p: &NFourBarParams, origin: Origin<'_>) -> Result<lib::NFourBar, CliError> {
    if !(1..=MAX_N_FOUR_BAR_LOOPS).contains(&p.n) {
        return Err(origin
            .error(
                "model.n-four-bar.n",
                format!(
                    "{} loops: the number of four-bar loops is 1 to {MAX_N_FOUR_BAR_LOOPS}",
                    p.n
                ),
            )
            .into());
    }
    for (key, v) in [
        ("model.n-four-bar.theta", p.theta),
        ("model.n-four-bar.theta_dot", p.theta_dot),
    ] {
        if !v.is_finite() {
            return Err(origin.error(key, format!("{v} is not finite")).into());
        }
    }
    Ok(p.build())
}

/// A closure of a URDF tree, assembled at `q`.
fn closure(
    tree: &KinematicTree,
    q: &[f64],
    c: &ClosureSpec,
    origin: Origin<'_>,
) -> Result<Closure, CliError> {
    let body = |key: &str, name: &str| {
        tree.body_index(name).ok_or_else(|| {
            CliError::from(origin.error(key, format!("no link `{name}` in the URDF")))
        })
    };
    let a = body("model.urdf.closures.body", &c.body)?;
    let b =
        c.to.as_deref()
            .map(|n| body("model.urdf.closures.to", n))
            .transpose()?;
    let model = |e: contour::model::ModelError| CliError::from(contour::Error::from(e));
    Ok(match (c.kind, b) {
        (ClosureKind::PointAtWorld, None) => match c.target {
            Some(target) => Closure::PointAtWorld {
                body: a,
                point: c.point,
                target,
            },
            None => Closure::point_at_current_position(tree, q, a, c.point).map_err(model)?,
        },
        (ClosureKind::PointToPoint, Some(b)) => {
            Closure::point_to_point_at(tree, q, a, c.point, b).map_err(model)?
        }
        (ClosureKind::Weld, b) => Closure::weld_at(tree, q, a, c.point, b).map_err(model)?,
        (ClosureKind::PointAtWorld, Some(_)) => {
            return Err(origin
                .error(
                    "model.urdf.closures.to",
                    "a point-at-world closure has no `to`",
                )
                .into())
        }
        (ClosureKind::PointToPoint, None) => {
            return Err(origin
                .error(
                    "model.urdf.closures.to",
                    "a point-to-point closure needs `to`",
                )
                .into())
        }
    })
}
