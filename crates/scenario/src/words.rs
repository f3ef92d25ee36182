//! One spelling per word: where a name of the options language (a method, an integrator, a
//! norm, a KKT method, …) becomes the library's value. TOML reads the names through serde
//! ([`crate::scenario`]'s enums, kebab-case); Python's keyword arguments read the same enums
//! through [`FromStr`] ([`parse_word`]: the serde spelling, `_` taken for `-`); both turn them
//! into library values here and nowhere else.
//!
//! Defaults that are the options language's own (the library has none) live here too, each
//! once: [`BAUMGARTE_DEFAULT_GAINS`].

use std::str::FromStr;

use serde::de::DeserializeOwned;
use serde::Serialize;

use contour::prelude::{
    AbmConfig, BaumgarteGains, BdfConfig, DormandPrinceConfig, DynamicsOptions, EcsConfig,
    Integrator, KktMethod, Method, NormKind, ParametrizationConfig, PerturbationConfig,
    ProjectorConfig, RankDeficiency, RungeKuttaGillConfig,
};

use contour::model::ModelError;
use contour::ode::SirkConfig;
use contour::projection::AugmentedLagrangianConfig;

use crate::scenario::{
    Consistency, DynamicsSpec, IntegratorName, KktName, MethodName, NormName, RankDeficiencyName,
};

/// A word that names no value of its kind.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("`{given}`: {message}")]
pub struct WordError {
    /// The word given.
    pub given: String,
    /// What is wrong (serde's message: the known words).
    pub message: String,
}

/// The value of `T` named `word`: its serde spelling (TOML's), or that spelling with `_`
/// for `-` (Python's identifiers and keyword values).
pub fn parse_word<T: DeserializeOwned>(word: &str) -> Result<T, WordError> {
    let de = |w: &str| T::deserialize(toml::Value::String(w.to_string()));
    de(word)
        .or_else(|e| de(&word.replace('_', "-")).map_err(|_| e))
        .map_err(|e| WordError {
            given: word.to_string(),
            message: e.message().to_string(),
        })
}

macro_rules! from_str_by_serde {
    ($($t:ty),*) => {$(
        impl FromStr for $t {
            type Err = WordError;
            fn from_str(s: &str) -> Result<Self, WordError> {
                parse_word(s)
            }
        }
    )*};
}

from_str_by_serde!(
    MethodName,
    IntegratorName,
    NormName,
    KktName,
    RankDeficiencyName,
    Consistency
);

/// The gains of `method = "baumgarte"` when none are given: `α = 10 1/s`, `β = 25 1/s²`,
/// critical damping (`α = 2δ`, `β = δ²`) at `δ = 5 1/s`, so a constraint error decays as
/// `e^{−5t}` without overshoot. The library's `BaumgarteGains` has no default (a caller of
/// the library chooses); both doors use this one.
pub const BAUMGARTE_DEFAULT_GAINS: BaumgarteGains = BaumgarteGains {
    alpha: 10.0,
    beta: 25.0,
};

/// A method's setting that cannot be applied.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct SettingError {
    /// The setting at fault (its field name), when one is.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl SettingError {
    fn at(key: &str, message: impl Into<String>) -> Self {
        Self {
            key: Some(key.to_string()),
            message: message.into(),
        }
    }
}

/// `default` with the keys of `settings` replaced (every key must be one of `default`'s).
fn overlay<T: Serialize + DeserializeOwned>(
    default: &T,
    settings: &toml::Table,
) -> Result<T, SettingError> {
    let toml::Value::Table(mut table) =
        toml::Value::try_from(default).map_err(|e| SettingError {
            key: None,
            message: e.to_string(),
        })?
    else {
        return Err(SettingError {
            key: None,
            message: "settings are not a table".into(),
        });
    };
    for (k, v) in settings {
        if !table.contains_key(k) {
            let mut known: Vec<&str> = table.keys().map(String::as_str).collect();
            known.sort_unstable();
            return Err(SettingError::at(
                k,
                format!("unknown setting `{k}` (options: {})", known.join(", ")),
            ));
        }
        table.insert(k.clone(), v.clone());
    }
    T::deserialize(toml::Value::Table(table)).map_err(|e| SettingError {
        key: None,
        message: e.message().to_string(),
    })
}

/// A number of `settings`.
fn number(settings: &toml::Table, key: &str) -> Result<Option<f64>, SettingError> {
    match settings.get(key) {
        None => Ok(None),
        Some(toml::Value::Float(x)) => Ok(Some(*x)),
        Some(toml::Value::Integer(i)) => Ok(Some(*i as f64)),
        Some(v) => Err(SettingError::at(key, format!("{v} is not a number"))),
    }
}

impl MethodName {
    /// The library's method with `settings` over its defaults: the fields of the method's
    /// configuration (`PerturbationConfig`, …; enum values by name). Baumgarte takes `alpha`
    /// \[1/s\] and `beta` \[1/s²\] over [`BAUMGARTE_DEFAULT_GAINS`], or `delta` \[1/s\] alone
    /// (critical damping `α = 2δ`, `β = δ²`); gains are checked here.
    pub fn method(self, settings: &toml::Table) -> Result<Method, SettingError> {
        Ok(match self {
            MethodName::Direct => {
                if let Some(k) = settings.keys().next() {
                    return Err(SettingError::at(k, "the direct method has no settings"));
                }
                Method::Direct
            }
            MethodName::Baumgarte => {
                let invalid = |e: contour::prelude::ProjectionError| match e {
                    contour::prelude::ProjectionError::InvalidParameter { name, value } => {
                        SettingError::at(name, format!("{value:e} is out of range"))
                    }
                    e => SettingError {
                        key: None,
                        message: e.to_string(),
                    },
                };
                let gains = match number(settings, "delta")? {
                    Some(d) => {
                        if let Some(k) = settings.keys().find(|k| *k != "delta") {
                            return Err(SettingError::at(
                                k,
                                "`delta` sets alpha = 2 delta and beta = delta²: give `delta` \
                                 alone, or `alpha` and `beta`",
                            ));
                        }
                        BaumgarteGains::critical(d).map_err(invalid)?
                    }
                    None => {
                        let g = overlay(&BAUMGARTE_DEFAULT_GAINS, settings)?;
                        BaumgarteGains::new(g.alpha, g.beta).map_err(invalid)?
                    }
                };
                Method::Baumgarte(gains)
            }
            MethodName::Perturbation => {
                Method::Perturbation(overlay(&PerturbationConfig::default(), settings)?)
            }
            MethodName::Parametrization => {
                Method::Parametrization(overlay(&ParametrizationConfig::default(), settings)?)
            }
            MethodName::ExactStabilization => {
                Method::ExactStabilization(overlay(&EcsConfig::default(), settings)?)
            }
            MethodName::Projector => {
                Method::Projector(overlay(&ProjectorConfig::default(), settings)?)
            }
            MethodName::AugmentedLagrangian => Method::AugmentedLagrangian(overlay(
                &AugmentedLagrangianConfig::default(),
                settings,
            )?),
        })
    }

    /// Every method.
    pub const ALL: [MethodName; 7] = [
        MethodName::Direct,
        MethodName::Baumgarte,
        MethodName::Perturbation,
        MethodName::Parametrization,
        MethodName::ExactStabilization,
        MethodName::Projector,
        MethodName::AugmentedLagrangian,
    ];

    /// The names of the settings [`MethodName::method`] takes, sorted.
    pub fn setting_names(self) -> Vec<String> {
        fn fields<T: Serialize>(default: &T) -> Vec<String> {
            match toml::Value::try_from(default) {
                Ok(toml::Value::Table(t)) => t.keys().cloned().collect(),
                _ => Vec::new(),
            }
        }
        let mut names = match self {
            MethodName::Direct => Vec::new(),
            MethodName::Baumgarte => vec!["alpha".into(), "beta".into(), "delta".into()],
            MethodName::Perturbation => fields(&PerturbationConfig::default()),
            MethodName::Parametrization => fields(&ParametrizationConfig::default()),
            MethodName::ExactStabilization => fields(&EcsConfig::default()),
            MethodName::Projector => fields(&ProjectorConfig::default()),
            MethodName::AugmentedLagrangian => fields(&AugmentedLagrangianConfig::default()),
        };
        names.sort_unstable();
        names
    }

    /// The integrator a method runs on when none is named: BDF for `exact-stabilization` (a
    /// DAE method: GGL needs an implicit DAE integrator), ABM for every other.
    pub fn default_integrator(self) -> IntegratorName {
        match self {
            MethodName::ExactStabilization => IntegratorName::Bdf,
            _ => IntegratorName::Abm,
        }
    }
}

impl IntegratorName {
    /// The library's integrator with its default configuration, its largest step `h_max`
    /// \[s\] and first step `h_init` \[s\] replaced where given (SIRK's constant step is
    /// `h_max`).
    pub fn integrator(self, h_max: Option<f64>, h_init: Option<f64>) -> Integrator {
        macro_rules! set {
            ($c:expr) => {{
                let mut c = $c;
                if let Some(h) = h_max {
                    c.h_max = h;
                }
                if h_init.is_some() {
                    c.h_init = h_init;
                }
                c
            }};
        }
        match self {
            IntegratorName::Abm => Integrator::Abm(set!(AbmConfig::default())),
            IntegratorName::Dopri5 => {
                Integrator::DormandPrince(set!(DormandPrinceConfig::default()))
            }
            IntegratorName::Rkg => {
                Integrator::RungeKuttaGill(set!(RungeKuttaGillConfig::default()))
            }
            IntegratorName::Bdf => Integrator::Bdf(set!(BdfConfig::default())),
            IntegratorName::Sirk => Integrator::Sirk(SirkConfig {
                h: h_max.unwrap_or(SirkConfig::default().h),
                ..SirkConfig::default()
            }),
        }
    }

    /// The name as the library's errors spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            IntegratorName::Abm => "abm",
            IntegratorName::Dopri5 => "dopri5",
            IntegratorName::Rkg => "rkg",
            IntegratorName::Bdf => "bdf",
            IntegratorName::Sirk => "sirk",
        }
    }
}

impl NormName {
    /// The library's norm.
    pub fn kind(self) -> NormKind {
        match self {
            NormName::L2 => NormKind::L2,
            NormName::Rms => NormKind::Rms,
            NormName::Max => NormKind::Max,
        }
    }
}

impl KktName {
    /// The library's KKT method.
    pub fn method(self) -> KktMethod {
        match self {
            KktName::RangeSpace => KktMethod::RangeSpace,
            KktName::FullLu => KktMethod::FullLu,
        }
    }
}

impl RankDeficiencyName {
    /// The library's rule for a rank-deficient `J`.
    pub fn value(self) -> RankDeficiency {
        match self {
            RankDeficiencyName::MinimumNorm => RankDeficiency::MinimumNorm,
            RankDeficiencyName::Error => RankDeficiency::Error,
        }
    }
}

/// An option of [`DynamicsOptions`] out of its range, by the library's own rule
/// ([`DynamicsOptions::validate`]: one range per option, the same for every method).
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("must be in {range}, not {value:e}")]
pub struct DynamicsOptionError {
    /// The option's field name (`rank_rtol`, `pivot_rtol`, ...).
    pub option: &'static str,
    /// The rejected value.
    pub value: f64,
    /// The accepted range, as the library documents it.
    pub range: &'static str,
}

impl DynamicsOptionError {
    /// The option's field name (`rank_rtol`, `pivot_rtol`).
    pub fn field(&self) -> &'static str {
        self.option
    }
}

/// Checks `o` with [`DynamicsOptions::validate`], so a door refuses an option before the run,
/// against its own key, by the rule every method applies.
pub fn validate_dynamics_options(o: &DynamicsOptions) -> Result<(), DynamicsOptionError> {
    match o.validate() {
        Ok(()) => Ok(()),
        Err(ModelError::InvalidOption {
            option,
            value,
            range,
        }) => Err(DynamicsOptionError {
            option,
            value,
            range,
        }),
        // `validate` reports nothing else; a future error is still a refusal of the options.
        Err(_) => Err(DynamicsOptionError {
            option: "dynamics",
            value: f64::NAN,
            range: "the library's documented ranges",
        }),
    }
}

impl DynamicsSpec {
    /// The library's options of the constrained solve (an absent key keeps the library's
    /// default), checked by [`validate_dynamics_options`].
    pub fn options(&self) -> Result<DynamicsOptions, DynamicsOptionError> {
        let o = DynamicsOptions {
            method: self.kkt.unwrap_or_default().method(),
            rank_rtol: self.rank_rtol,
            pivot_rtol: self.pivot_rtol,
            rank_deficiency: self.rank_deficiency.unwrap_or_default().value(),
            ..DynamicsOptions::default()
        };
        validate_dynamics_options(&o)?;
        Ok(o)
    }
}

/// `tolerance.energy` \[J\], refused unless positive and finite.
pub fn check_energy_tolerance(tol: Option<f64>) -> Result<Option<f64>, String> {
    match tol {
        Some(t) if !(t.is_finite() && t > 0.0) => {
            Err(format!("must be a positive, finite energy [J], not {t:e}"))
        }
        t => Ok(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_read_in_both_spellings_and_unknown_ones_list_the_known() {
        assert_eq!(
            "exact_stabilization".parse::<MethodName>(),
            Ok(MethodName::ExactStabilization)
        );
        assert_eq!(
            "exact-stabilization".parse::<MethodName>(),
            Ok(MethodName::ExactStabilization)
        );
        assert_eq!("range_space".parse::<KktName>(), Ok(KktName::RangeSpace));
        assert_eq!(
            "dopri5".parse::<IntegratorName>(),
            Ok(IntegratorName::Dopri5)
        );
        let e = "qr".parse::<KktName>().unwrap_err();
        assert!(e.to_string().contains("full-lu"), "{e}");
        assert!(parse_word::<contour::projection::PassagePolicy>("Continue").is_err());
        assert_eq!(
            parse_word::<contour::projection::PassagePolicy>("continue"),
            Ok(contour::projection::PassagePolicy::Continue)
        );
    }

    #[test]
    fn perturbation_takes_its_sparse_mode_as_a_setting() {
        use contour::projection::sparse::SparseMode;
        assert!(MethodName::Perturbation
            .setting_names()
            .contains(&"sparse".to_string()));
        let mut t = toml::Table::new();
        t.insert("sparse".into(), toml::Value::String("dense".into()));
        let Ok(Method::Perturbation(c)) = MethodName::Perturbation.method(&t) else {
            panic!("perturbation with sparse = dense");
        };
        assert_eq!(c.sparse, SparseMode::Dense);
        t.insert("sparse".into(), toml::Value::String("sometimes".into()));
        assert!(MethodName::Perturbation.method(&t).is_err());
    }

    #[test]
    fn baumgarte_defaults_once_and_takes_alpha_beta_or_delta() {
        let none = toml::Table::new();
        let Ok(Method::Baumgarte(g)) = MethodName::Baumgarte.method(&none) else {
            panic!("not baumgarte");
        };
        assert_eq!((g.alpha, g.beta), (10.0, 25.0));
        let delta: toml::Table = toml::from_str("delta = 2.0").unwrap();
        let Ok(Method::Baumgarte(g)) = MethodName::Baumgarte.method(&delta) else {
            panic!("not baumgarte");
        };
        assert_eq!((g.alpha, g.beta), (4.0, 4.0));
        let alpha: toml::Table = toml::from_str("alpha = 3").unwrap();
        let Ok(Method::Baumgarte(g)) = MethodName::Baumgarte.method(&alpha) else {
            panic!("not baumgarte");
        };
        assert_eq!((g.alpha, g.beta), (3.0, 25.0));
        let both: toml::Table = toml::from_str("delta = 2.0\nbeta = 1.0").unwrap();
        assert!(MethodName::Baumgarte.method(&both).is_err());
        let negative: toml::Table = toml::from_str("alpha = -1.0").unwrap();
        let e = MethodName::Baumgarte.method(&negative).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("alpha"));
    }

    #[test]
    fn unknown_settings_name_the_options() {
        let bad: toml::Table = toml::from_str("no_such_field = 1").unwrap();
        let e = MethodName::Perturbation.method(&bad).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("no_such_field"));
        assert!(e.message.contains("options:"), "{e}");
    }

    #[test]
    fn dynamics_tolerances_are_checked_by_the_solver_rule() {
        let mut o = DynamicsOptions::default();
        assert!(validate_dynamics_options(&o).is_ok());
        o.rank_rtol = Some(1.5);
        assert_eq!(
            validate_dynamics_options(&o).map_err(|e| (e.field(), e.value)),
            Err(("rank_rtol", 1.5))
        );
        // One range for every method: a zero cut-off is refused at the door, as by the library.
        o.rank_rtol = Some(0.0);
        assert_eq!(
            validate_dynamics_options(&o).map_err(|e| e.to_string()),
            Err("must be in (0, 1), not 0e0".to_string())
        );
        o.rank_rtol = None;
        o.pivot_rtol = Some(f64::INFINITY);
        assert_eq!(
            validate_dynamics_options(&o).map_err(|e| e.field()),
            Err("pivot_rtol")
        );
    }
}
