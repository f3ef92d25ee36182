//! The model registry: every built-in model by its name, with its parameters (unit, range,
//! whether required) and its default initial state, as data. The command line (`[model.<name>]`),
//! Python (`contour.model(name, **params)`) and the docs read this one list; the
//! constructor is [`ModelSpec::build`](crate::scenario::ModelSpec::build), the parameter
//! structs with their defaults are [`crate::scenario`]'s.
//!
//! A new model is a parameter struct, one [`ModelSpec`] variant, one arm of
//! `ModelSpec::build` and one entry here; the `every_entry_is_a_model_spec` test keeps the
//! entries and the structs in step.

use serde::Deserialize as _;

use crate::scenario::{MethodName, ModelSpec, Scenario, MAX_N_FOUR_BAR_LOOPS};

/// What values a parameter takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Range {
    /// The model's own rule, checked by its `validate()` (lengths, masses and inertias
    /// positive and finite, other numbers finite).
    Model,
    /// Any finite number.
    Finite,
    /// An integer in `min ..= max`.
    Count {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// `true` or `false`.
    Flag,
    /// A file path (relative to the scenario file).
    Path,
    /// A list of tables (URDF loop closures).
    List,
}

impl Range {
    /// Why `v` is outside the range, if it is (only [`Range::Finite`] and [`Range::Count`]
    /// are checked here; the others by serde and the model).
    pub fn check(&self, v: &toml::Value) -> Option<String> {
        match (self, v) {
            (Range::Finite, toml::Value::Float(x)) if !x.is_finite() => {
                Some("must be finite".into())
            }
            (Range::Count { min, max }, toml::Value::Integer(i)) if (*min..=*max).contains(i) => {
                None
            }
            (Range::Count { min, max }, _) => Some(format!("an integer, {min} to {max}")),
            _ => None,
        }
    }

    /// The range in words.
    pub fn describe(&self) -> String {
        match self {
            Range::Model => "checked by the model".into(),
            Range::Finite => "finite".into(),
            Range::Count { min, max } => format!("integer, {min} to {max}"),
            Range::Flag => "true or false".into(),
            Range::Path => "file path".into(),
            Range::List => "list".into(),
        }
    }
}

/// One parameter of a model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Param {
    /// Its key (`[model.<name>] <key> = …`, `contour.model(name, <key>=…)`).
    pub name: &'static str,
    /// Its unit (`""`: none).
    pub unit: &'static str,
    /// Its range.
    pub range: Range,
    /// Whether it must be given (the others default to the library's values).
    pub required: bool,
}

/// One model of the registry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelEntry {
    /// The model's name, the key of `[model.<name>]` (`_` is taken for `-` in Python).
    pub name: &'static str,
    /// What it is.
    pub summary: &'static str,
    /// Its parameters.
    pub params: &'static [Param],
    /// Its default initial state (`initial.angle`/`rate`, or `initial_state(angle, rate)`).
    pub initial: &'static str,
    /// The method that runs it when none is named (`[method] name`, `simulate(method=…)`),
    /// and why when it is not the house default, perturbation.
    pub method: (MethodName, &'static str),
}

/// The house default method: Keerthi's perturbation approach.
const PERTURBATION: (MethodName, &str) = (MethodName::Perturbation, "");

const fn p(name: &'static str, unit: &'static str) -> Param {
    Param {
        name,
        unit,
        range: Range::Model,
        required: false,
    }
}

const fn flag(name: &'static str) -> Param {
    Param {
        name,
        unit: "",
        range: Range::Flag,
        required: false,
    }
}

const fn finite(name: &'static str, unit: &'static str) -> Param {
    Param {
        name,
        unit,
        range: Range::Finite,
        required: false,
    }
}

/// Every built-in model.
pub static MODELS: &[ModelEntry] = &[
    ModelEntry {
        name: "pendulum",
        summary: "point-mass pendulum in Cartesian coordinates q = (x, y), one constraint row",
        params: &[p("length", "m"), p("mass", "kg"), p("gravity", "m/s²")],
        initial: "angle 0.5 rad from the downward vertical, rate 0",
        method: PERTURBATION,
    },
    ModelEntry {
        name: "slider-crank",
        summary: "slider-crank: absolute link angles and the slider position",
        params: &[
            p("crank_length", "m"),
            p("rod_length", "m"),
            p("crank_mass", "kg"),
            p("rod_mass", "kg"),
            p("slider_mass", "kg"),
            p("gravity", "m/s²"),
            p("torque", "N·m"),
            p("slider_force", "N"),
        ],
        initial: "crank angle 0, rate 0",
        method: PERTURBATION,
    },
    ModelEntry {
        name: "four-bar",
        summary: "four-bar linkage with a redundant closure row",
        params: &[
            p("crank_length", "m"),
            p("coupler_length", "m"),
            p("rocker_length", "m"),
            p("ground_length", "m"),
            p("crank_mass", "kg"),
            p("coupler_mass", "kg"),
            p("rocker_mass", "kg"),
            p("gravity", "m/s²"),
            p("torque", "N·m"),
            p("redundant_direction", "rad"),
        ],
        initial: "crank angle 1 rad, rate 0",
        // Its three rows have rank 2. Every method counts rank, not rows, and runs it;
        // Kövecses' projector builds its projectors from the SVD of J and keeps all three
        // rows (its multipliers are the minimum-norm ones), so it is the default.
        method: (
            MethodName::Projector,
            "its 3 closure rows have rank 2; the projector method is built for any rank of J",
        ),
    },
    ModelEntry {
        name: "keerthi",
        summary: "Keerthi's 3-coordinate robot, driven by the control law (4.5) unless control = false",
        params: &[
            p("l3", "m"),
            p("m2", "kg"),
            p("m3", "kg"),
            p("j1", "kg·m²"),
            p("j2", "kg·m²"),
            p("j3", "kg·m²"),
            p("gravity", "m/s²"),
            p("plane", "m"),
            p("radius_squared", "m²"),
            flag("control"),
        ],
        initial: "Keerthi's initial condition IC1 projected onto its constraint (as printed it violates it by 1.2e-4; no one-angle state)",
        method: PERTURBATION,
    },
    ModelEntry {
        name: "huang",
        summary: "Huang's Cartesian robot outside a circle (one unilateral row), pushed by a constant force",
        params: &[
            p("radius", "m"),
            p("center", "m"),
            p("mass", "kg"),
            p("friction", ""),
            finite("force", "N"),
        ],
        initial: "0.2 m below the circle, at rest (no one-angle state)",
        method: PERTURBATION,
    },
    ModelEntry {
        name: "arm7",
        summary: "the SSRMS-like 7-joint arm of Kövecses & Piedbœuf, optionally with its tip held",
        params: &[finite("gravity", "m/s²"), flag("tip_held")],
        initial: "the arm's reference pose, at rest (no one-angle state)",
        method: PERTURBATION,
    },
    ModelEntry {
        name: "andrews",
        summary: "Andrews' squeezing mechanism (7 coordinates, 6 rows)",
        params: &[
            p("m", "kg"),
            p("i", "kg·m²"),
            p("torque", "N·m"),
            p("spring_stiffness", "N/m"),
            p("spring_length", "m"),
        ],
        initial: "the benchmark's consistent start, at rest (no one-angle state)",
        method: PERTURBATION,
    },
    ModelEntry {
        name: "n-four-bar",
        summary: "MBS benchmark A02: n four-bar loops in natural coordinates (2n + 2 coordinates, 2n + 1 rows)",
        params: &[
            Param {
                name: "n",
                unit: "",
                range: Range::Count {
                    min: 1,
                    max: MAX_N_FOUR_BAR_LOOPS as i64,
                },
                required: true,
            },
            finite("theta", "rad"),
            finite("theta_dot", "rad/s"),
            p("length", "m"),
            p("mass", "kg"),
            p("gravity", "m/s²"),
        ],
        initial: "every crank at theta (π/2) with rate theta_dot (−1), A02's start",
        method: PERTURBATION,
    },
    ModelEntry {
        name: "urdf",
        summary: "a kinematic tree from a URDF file, with loop closures",
        params: &[
            Param {
                name: "file",
                unit: "",
                range: Range::Path,
                required: true,
            },
            finite("gravity", "m/s²"),
            Param {
                name: "closures",
                unit: "",
                range: Range::List,
                required: false,
            },
        ],
        initial: "q = zeros (or initial.q), at rest (no one-angle state)",
        method: PERTURBATION,
    },
];

/// The entry of the model `name` (`_` taken for `-`).
pub fn entry(name: &str) -> Option<&'static ModelEntry> {
    let name = name.replace('_', "-");
    MODELS.iter().find(|e| e.name == name)
}

/// The default method of the model `name` (perturbation for a name outside the registry).
pub fn default_method(name: &str) -> MethodName {
    entry(name).map_or(MethodName::Perturbation, |e| e.method.0)
}

impl Scenario {
    /// The method that runs: the one named in `[method]`, else the model's default
    /// ([`default_method`]).
    pub fn method_name(&self) -> MethodName {
        self.method
            .name
            .unwrap_or_else(|| default_method(self.model.name()))
    }
}

/// The registry's names, comma-separated (for messages).
pub fn names() -> String {
    MODELS.iter().map(|e| e.name).collect::<Vec<_>>().join(", ")
}

/// The registry as a Markdown table (name, parameters with unit and range, initial state).
pub fn markdown() -> String {
    let mut s = String::from("| model | parameters | initial state |\n|---|---|---|\n");
    for e in MODELS {
        let params: Vec<String> = e
            .params
            .iter()
            .map(|p| {
                let unit = if p.unit.is_empty() {
                    String::new()
                } else {
                    format!(" \\[{}\\]", p.unit)
                };
                let req = if p.required { ", required" } else { "" };
                format!("`{}`{unit} ({}{req})", p.name, p.range.describe())
            })
            .collect();
        s.push_str(&format!(
            "| `{}`: {} | {} | {} |\n",
            e.name,
            e.summary,
            params.join(", "),
            e.initial
        ));
    }
    s
}

/// A model's parameters that the registry refuses.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParamError {
    /// No model of this name.
    #[error("unknown model `{name}` (known: {known})")]
    UnknownModel {
        /// The name given.
        name: String,
        /// The known names.
        known: String,
    },
    /// A key that is no parameter of the model.
    #[error("model `{model}` has no parameter `{key}` (known: {known})")]
    UnknownParameter {
        /// The model.
        model: &'static str,
        /// The key given.
        key: String,
        /// Its parameters.
        known: String,
    },
    /// A required parameter is missing.
    #[error("{model}.{key}: required ({range})")]
    Missing {
        /// The model.
        model: &'static str,
        /// The parameter.
        key: &'static str,
        /// Its range in words.
        range: String,
    },
    /// A value outside its parameter's range, or of the wrong type.
    #[error("{model}.{key} = {value}: {why}")]
    Invalid {
        /// The model.
        model: &'static str,
        /// The parameter.
        key: String,
        /// The value given (inline TOML).
        value: String,
        /// What is wrong.
        why: String,
    },
}

/// The [`ModelSpec`] of the model `name` with the parameters `params` (the rest at their
/// defaults): each key checked against the registry (known, required, in range), then read
/// by the same serde as `[model.<name>]` of a scenario file.
pub fn model_spec(name: &str, params: &toml::Table) -> Result<ModelSpec, ParamError> {
    let e = entry(name).ok_or_else(|| ParamError::UnknownModel {
        name: name.to_string(),
        known: names(),
    })?;
    let known = || {
        e.params
            .iter()
            .map(|p| p.name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (k, v) in params {
        let Some(p) = e.params.iter().find(|p| p.name == k) else {
            return Err(ParamError::UnknownParameter {
                model: e.name,
                key: k.clone(),
                known: known(),
            });
        };
        if let Some(why) = p.range.check(v) {
            return Err(ParamError::Invalid {
                model: e.name,
                key: k.clone(),
                value: v.to_string(),
                why,
            });
        }
    }
    if let Some(p) = e
        .params
        .iter()
        .find(|p| p.required && !params.contains_key(p.name))
    {
        return Err(ParamError::Missing {
            model: e.name,
            key: p.name,
            range: p.range.describe(),
        });
    }
    let read = |t: &toml::Table| {
        let outer = toml::Table::from_iter([(e.name.to_string(), toml::Value::Table(t.clone()))]);
        ModelSpec::deserialize(toml::Value::Table(outer))
    };
    read(params).map_err(|err| {
        // The key at fault is the one whose removal clears the error.
        let key = params.keys().find(|k| {
            let mut t = params.clone();
            t.remove(*k);
            read(&t).is_ok()
        });
        match key {
            Some(k) => ParamError::Invalid {
                model: e.name,
                key: k.clone(),
                value: params[k].to_string(),
                why: err.message().to_string(),
            },
            None => ParamError::Invalid {
                model: e.name,
                key: String::new(),
                value: String::new(),
                why: err.message().to_string(),
            },
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_a_model_spec_whose_fields_are_its_parameters() {
        for e in MODELS {
            let mut t = toml::Table::new();
            if e.name == "n-four-bar" {
                t.insert("n".into(), toml::Value::Integer(2));
            }
            if e.name == "urdf" {
                t.insert("file".into(), toml::Value::String("a.urdf".into()));
            }
            let spec = model_spec(e.name, &t).unwrap_or_else(|err| panic!("{}: {err}", e.name));
            assert_eq!(spec.name(), e.name);
            let toml::Value::Table(outer) = toml::Value::try_from(&spec).unwrap() else {
                panic!("{}: not a table", e.name);
            };
            let toml::Value::Table(fields) = &outer[e.name] else {
                panic!("{}: no parameter table", e.name);
            };
            let mut fields: Vec<&str> = fields.keys().map(String::as_str).collect();
            let mut params: Vec<&str> = e.params.iter().map(|p| p.name).collect();
            if e.name == "urdf" {
                params.retain(|p| *p != "closures"); // an empty list is still a field
                fields.retain(|p| *p != "closures");
            }
            fields.sort_unstable();
            params.sort_unstable();
            assert_eq!(fields, params, "{}", e.name);
        }
    }

    #[test]
    fn parameters_are_refused_naming_model_key_and_value() {
        let t = |s: &str| -> toml::Table { toml::from_str(s).unwrap() };
        let e = model_spec("pendulum", &t("radius = 2.0")).unwrap_err();
        assert!(e.to_string().contains("no parameter `radius`"), "{e}");
        let e = model_spec("double-pendulum", &t("")).unwrap_err();
        assert!(e.to_string().contains("unknown model"), "{e}");
        for (src, needle) in [
            ("", "n-four-bar.n: required"),
            ("n = 0", "n-four-bar.n = 0"),
            ("n = -2", "n-four-bar.n = -2"),
            ("n = 1000000", "1 to 1000"),
            ("n = 2.5", "n-four-bar.n = 2.5"),
            ("n = 2\ntheta = nan", "n-four-bar.theta = nan"),
        ] {
            let e = model_spec("n_four_bar", &t(src)).unwrap_err();
            assert!(e.to_string().contains(needle), "{src}: {e}");
        }
        let e = model_spec("pendulum", &t("length = \"long\"")).unwrap_err();
        assert!(
            e.to_string().starts_with("pendulum.length = \"long\""),
            "{e}"
        );
        assert!(model_spec("slider_crank", &t("crank_length = 0.1")).is_ok());
    }

    #[test]
    fn the_markdown_table_has_a_row_per_model() {
        assert_eq!(markdown().lines().count(), 2 + MODELS.len());
    }
}
