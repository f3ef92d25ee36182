//! Built-in models by name (and URDF files) → a boxed [`Mechanism`] and its initial state.

use std::path::Path;

use contour::model::models as lib;
use contour::model::urdf::{import_urdf_file, UrdfImport, UrdfOptions};
use contour::prelude::{
    consistent_state, Closure, ConsistentStateOptions, ConstrainedTree, ConstraintKind, Controller,
    KinematicTree, Mechanism, WithController,
};

use crate::error::{Error, ScenarioError};
use crate::scenario::{
    ClosureKind, ClosureSpec, InitialSpec, ModelSpec, NFourBarParams, MAX_N_FOUR_BAR_LOOPS,
};

/// A mechanism built from a scenario, with the initial state it asks for.
pub struct Built {
    /// The mechanism.
    pub mech: BoxedMechanism,
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

/// A mechanism that threads share (every built-in model; the Python door's callables too).
pub type BoxedMechanism = Box<dyn Mechanism + Send + Sync>;

/// The default initial state `(q, q̇)` of a built model at an angle \[rad\] and a rate
/// \[rad/s\] (`None`: the model's own).
pub type StateFn =
    Box<dyn Fn(Option<f64>, Option<f64>) -> Result<(Vec<f64>, Vec<f64>), StateError> + Send + Sync>;

/// Why a model has no default initial state at the angle asked for.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StateError {
    /// The model's state is not one angle (give `q` and `q̇`).
    #[error("model `{model}` has no one-angle state")]
    NoAngle {
        /// The model.
        model: &'static str,
    },
    /// The linkage does not close at this crank angle.
    #[error("the four-bar cannot be assembled at crank angle {theta}")]
    Unassembled {
        /// The crank angle \[rad\].
        theta: f64,
    },
}

/// A model built from its [`ModelSpec`]: the mechanism and its default initial state.
pub struct BuiltModel {
    /// The mechanism.
    pub mech: BoxedMechanism,
    /// Its default initial state at an angle and a rate.
    pub state: StateFn,
}

/// Why a [`ModelSpec`] does not build.
#[derive(Debug, thiserror::Error)]
pub enum ModelBuildError {
    /// A parameter (its key under `[model.<name>]`) the model refuses.
    #[error("{message}")]
    Param {
        /// The key, relative to the model's table (`n`, `closures.body`).
        key: String,
        /// What is wrong.
        message: String,
    },
    /// The library refused the model.
    #[error(transparent)]
    Contour(#[from] contour::Error),
}

impl ModelBuildError {
    /// The error of a scenario whose `[model.<model>]` does not build: a parameter's key
    /// located in the scenario (`model.<model>.<key>`; `q` is `initial.q`).
    pub fn located(self, model: &str, origin: Origin<'_>) -> Error {
        match self {
            ModelBuildError::Param { key, message } if key == "q" => {
                origin.error("initial.q", message).into()
            }
            ModelBuildError::Param { key, message } => origin
                .error(&format!("model.{model}.{key}"), message)
                .into(),
            ModelBuildError::Contour(e) => e.into(),
        }
    }

    fn param(key: &str, message: impl Into<String>) -> Self {
        ModelBuildError::Param {
            key: key.to_string(),
            message: message.into(),
        }
    }
}

fn fixed_state(model: &'static str, q: Vec<f64>, qd: Vec<f64>) -> StateFn {
    Box::new(move |angle, _rate| match angle {
        Some(_) => Err(StateError::NoAngle { model }),
        None => Ok((q.clone(), qd.clone())),
    })
}

impl ModelSpec {
    /// The model's name, the key of `[model.<name>]` and of the registry
    /// ([`crate::registry::MODELS`]).
    pub fn name(&self) -> &'static str {
        match self {
            ModelSpec::Pendulum(_) => "pendulum",
            ModelSpec::SliderCrank(_) => "slider-crank",
            ModelSpec::FourBar(_) => "four-bar",
            ModelSpec::Keerthi(_) => "keerthi",
            ModelSpec::Huang(_) => "huang",
            ModelSpec::Arm7(_) => "arm7",
            ModelSpec::Andrews(_) => "andrews",
            ModelSpec::NFourBar(_) => "n-four-bar",
            ModelSpec::Urdf(_) => "urdf",
        }
    }

    /// The model's constructor: the mechanism and its default initial state. `dir` is the
    /// directory of a relative URDF path; `q` the configuration URDF closures are assembled
    /// at (default zeros).
    pub fn build(&self, dir: &Path, q: Option<&[f64]>) -> Result<BuiltModel, ModelBuildError> {
        Ok(match self {
            ModelSpec::Pendulum(p) => {
                let m = p.build();
                BuiltModel {
                    mech: Box::new(m),
                    state: Box::new(move |a, r| {
                        let (q, qd) = m.state(a.unwrap_or(0.5), r.unwrap_or(0.0));
                        Ok((q.to_vec(), qd.to_vec()))
                    }),
                }
            }
            ModelSpec::SliderCrank(p) => {
                let m = p.build();
                BuiltModel {
                    mech: Box::new(m),
                    state: Box::new(move |a, r| {
                        let (q, qd) = m.state(a.unwrap_or(0.0), r.unwrap_or(0.0));
                        Ok((q.to_vec(), qd.to_vec()))
                    }),
                }
            }
            ModelSpec::FourBar(p) => {
                let m = p.build();
                BuiltModel {
                    mech: Box::new(m),
                    state: Box::new(move |a, r| {
                        let theta = a.unwrap_or(1.0);
                        m.state(theta, r.unwrap_or(0.0))
                            .map(|(q, qd)| (q.to_vec(), qd.to_vec()))
                            .ok_or(StateError::Unassembled { theta })
                    }),
                }
            }
            ModelSpec::Keerthi(p) => {
                // IC1 as printed violates the constraint by 1.2e-4 (Keerthi Table 4.1); the
                // default state is its projection onto φ = 0 (the paper reproductions read
                // the printed `KEERTHI_IC1` itself).
                let m = p.build();
                let ic = consistent_state(
                    &m,
                    0.0,
                    &lib::KEERTHI_IC1.q,
                    &lib::KEERTHI_IC1.qd,
                    &ConsistentStateOptions::default(),
                )
                .map_err(|e| ModelBuildError::Contour(e.into()))?;
                let mech: BoxedMechanism = if p.control {
                    Box::new(WithController::new(m, lib::KeerthiControlLaw::default()))
                } else {
                    Box::new(m)
                };
                BuiltModel {
                    mech,
                    state: fixed_state("keerthi", ic.q, ic.qd),
                }
            }
            ModelSpec::Huang(p) => {
                let m = p.build();
                let q = vec![m.center[0], m.center[1] - m.radius - 0.2];
                BuiltModel {
                    mech: Box::new(WithController::new(m, ConstantForce(p.force))),
                    state: fixed_state("huang", q, vec![0.0; 2]),
                }
            }
            ModelSpec::Arm7(p) => {
                let mech: BoxedMechanism = if p.tip_held {
                    if p.gravity != [0.0; 3] {
                        return Err(ModelBuildError::param(
                            "gravity",
                            "gravity with tip_held is not offered (the held arm is a space \
                             manipulator)",
                        ));
                    }
                    Box::new(lib::ssrms_arm_tip_held())
                } else {
                    let mut t = lib::ssrms_arm();
                    t.set_gravity(p.gravity);
                    Box::new(t)
                };
                BuiltModel {
                    mech,
                    state: fixed_state("arm7", lib::arm7_initial_q().to_vec(), vec![0.0; 7]),
                }
            }
            ModelSpec::Andrews(p) => BuiltModel {
                mech: Box::new(p.build()),
                state: fixed_state("andrews", lib::ANDREWS_Q0.to_vec(), vec![0.0; 7]),
            },
            ModelSpec::NFourBar(p) => {
                let m = n_four_bar(p)?;
                let (theta, theta_dot) = (p.theta, p.theta_dot);
                BuiltModel {
                    mech: Box::new(m),
                    state: Box::new(move |a, r| {
                        Ok(m.state(a.unwrap_or(theta), r.unwrap_or(theta_dot)))
                    }),
                }
            }
            ModelSpec::Urdf(p) => {
                let path = dir.join(&p.file);
                let mut t = KinematicTree::from_urdf_file(&path).map_err(|e| {
                    ModelBuildError::param("file", format!("{}: {e}", path.display()))
                })?;
                t.set_gravity(p.gravity);
                let n = t.dof();
                let q = q.map_or_else(|| vec![0.0; n], <[f64]>::to_vec);
                let mech: BoxedMechanism = if p.closures.is_empty() {
                    Box::new(t)
                } else {
                    if q.len() != n {
                        return Err(ModelBuildError::param(
                            "q",
                            format!("has {} entries, the model has {n} coordinates", q.len()),
                        ));
                    }
                    let closures = p
                        .closures
                        .iter()
                        .map(|c| closure(&t, &q, c))
                        .collect::<Result<Vec<_>, ModelBuildError>>()?;
                    Box::new(ConstrainedTree::new(t, closures).map_err(contour::Error::from)?)
                };
                BuiltModel {
                    mech,
                    state: fixed_state("urdf", q, vec![0.0; n]),
                }
            }
        })
    }
}

/// Builds the mechanism and the initial state of `model` with `initial`.
pub fn build(model: &ModelSpec, initial: &InitialSpec, origin: Origin<'_>) -> Result<Built, Error> {
    let built = model
        .build(origin.dir, initial.q.as_deref())
        .map_err(|e| e.located(model.name(), origin))?;
    let (q0, qd0) = (built.state)(initial.angle, initial.rate).map_err(|e| {
        origin.error(
            "initial.angle",
            match e {
                StateError::NoAngle { .. } => format!("{e}; give q and qd"),
                StateError::Unassembled { .. } => e.to_string(),
            },
        )
    })?;
    let mech = built.mech;
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

/// The import report of a URDF model (its warnings and `<mimic>` couplings, from the
/// library's [`import_urdf_file`]), or `None` for a built-in model. `strict` imports with
/// [`UrdfOptions::strict`] (an inertial defect is an error) and refuses any warning left.
pub fn urdf_report(
    model: &ModelSpec,
    strict: bool,
    origin: Origin<'_>,
) -> Result<Option<UrdfImport>, Error> {
    let ModelSpec::Urdf(p) = model else {
        return Ok(None);
    };
    let path = origin.dir.join(&p.file);
    let options = UrdfOptions {
        strict,
        ..UrdfOptions::default()
    };
    let import = import_urdf_file(&path, &options)
        .map_err(|e| origin.error("model.urdf.file", format!("{}: {e}", path.display())))?;
    if strict && !import.warnings.is_empty() {
        let list: Vec<String> = import.warnings.iter().map(|w| w.to_string()).collect();
        return Err(origin
            .error(
                "model.urdf.file",
                format!(
                    "{}: {} import warning(s) refused by --strict: {}",
                    path.display(),
                    list.len(),
                    list.join("; ")
                ),
            )
            .into());
    }
    Ok(Some(import))
}

/// A02's mechanism of `p`, with `n` in `1 ..= MAX_N_FOUR_BAR_LOOPS` and a finite initial crank angle and rate (the bar length, mass and gravity are checked
/// by the model).
pub fn n_four_bar(p: &NFourBarParams) -> Result<lib::NFourBar, ModelBuildError> {
    if !(1..=MAX_N_FOUR_BAR_LOOPS).contains(&p.n) {
        return Err(ModelBuildError::param(
            "n",
            format!(
                "{} loops: the number of four-bar loops is 1 to {MAX_N_FOUR_BAR_LOOPS}",
                p.n
            ),
        ));
    }
    for (key, v) in [("theta", p.theta), ("theta_dot", p.theta_dot)] {
        if !v.is_finite() {
            return Err(ModelBuildError::param(key, format!("{v} is not finite")));
        }
    }
    Ok(p.build())
}

/// A closure of a URDF tree, assembled at `q`; errors name `closures.body` or `closures.to`.
pub fn closure(
    tree: &KinematicTree,
    q: &[f64],
    c: &ClosureSpec,
) -> Result<Closure, ModelBuildError> {
    let body = |key: &str, name: &str| {
        tree.body_index(name)
            .ok_or_else(|| ModelBuildError::param(key, format!("no link `{name}` in the URDF")))
    };
    let a = body("closures.body", &c.body)?;
    let b =
        c.to.as_deref()
            .map(|n| body("closures.to", n))
            .transpose()?;
    let model = |e: contour::model::ModelError| ModelBuildError::from(contour::Error::from(e));
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
            return Err(ModelBuildError::param(
                "closures.to",
                "a point-at-world closure has no `to`",
            ))
        }
        (ClosureKind::PointToPoint, None) => {
            return Err(ModelBuildError::param(
                "closures.to",
                "a point-to-point closure needs `to`",
            ))
        }
    })
}
