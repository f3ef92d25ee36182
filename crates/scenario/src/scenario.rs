//! Scenario files: the TOML schema ([`Scenario`]) and its parsing with errors that name the
//! key and the line ([`ScenarioError`]).
//!
//! ```toml
//! [model.pendulum]          # a built-in model by name, its parameters (defaults: the library's)
//! length = 1.0
//! [initial]                 # q / qd, or angle / rate for the one-angle models; made consistent
//! angle = 0.5
//! [method]                  # direct | baumgarte | perturbation | parametrization |
//! name = "perturbation"     #   exact-stabilization | projector; settings = { … } overrides
//! [integrator]              # abm | dopri5 | rkg | bdf | sirk
//! name = "dopri5"
//! [tolerance]
//! atol = 1e-8
//! energy = 1e-3             # optional: fail the run where |E − E(t0)| exceeds it [J]
//! [dynamics]                # optional: the constrained solve (KKT method, rank cut-off)
//! kkt = "range-space"       #   range-space | full-lu; rank_rtol, pivot_rtol, rank_deficiency
//! [time]
//! end = 2.0
//! output_step = 0.01
//! ```
//!
//! The full schema, commented, is `examples/scenarios/simulate.toml`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use contour::projection::PassagePolicy;

use crate::error::ScenarioError;

/// A whole scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The mechanism.
    pub model: ModelSpec,
    /// The initial state (default: the model's nominal one, made consistent).
    #[serde(default)]
    pub initial: InitialSpec,
    /// Constraint method and its settings (default: the model's, [`Scenario::method_name`]).
    #[serde(default)]
    pub method: MethodSpec,
    /// Integrator (default: ABM; BDF for `exact-stabilization`, the DAE method that needs it).
    #[serde(default)]
    pub integrator: IntegratorSpec,
    /// Error control (default: the library's `absolute(1e-4)`, l2 norm).
    #[serde(default)]
    pub tolerance: ToleranceSpec,
    /// Options of the constrained dynamics (default: the library's, [`DynamicsSpec`]).
    #[serde(default, skip_serializing_if = "DynamicsSpec::is_default")]
    pub dynamics: DynamicsSpec,
    /// Time span and output times (required for `simulate`; unused by `plan`).
    #[serde(default)]
    pub time: TimeSpec,
    /// Unilateral contact settings (models with unilateral rows, e.g. Huang's robot).
    #[serde(default)]
    pub contact: ContactSpec,
    /// A minimum-time planning problem (`contour plan`).
    #[serde(default)]
    pub plan: Option<PlanSpec>,
}

macro_rules! params {
    ($(#[$doc:meta])* $name:ident => $lib:ty { $($(#[$fdoc:meta])* $f:ident : $t:ty),* $(,)? } $(extra { $($(#[$edoc:meta])* $e:ident : $et:ty = $ev:expr),* $(,)? })?) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct $name {
            $($(#[$fdoc])* pub $f: $t,)*
            $($($(#[$edoc])* pub $e: $et,)*)?
        }
        impl Default for $name {
            fn default() -> Self {
                let d = <$lib>::default();
                Self { $($f: d.$f,)* $($($e: $ev,)*)? }
            }
        }
        impl $name {
            /// The library model with these parameters.
            pub fn build(&self) -> $lib {
                let mut m = <$lib>::default();
                $(m.$f = self.$f.clone();)*
                m
            }
        }
    };
}

use contour::model::models as lib;

params!(
    /// `[model.pendulum]`: Cartesian pendulum (q = (x, y)).
    PendulumParams => lib::Pendulum {
        /// Rod length \[m\].
        length: f64,
        /// Bob mass \[kg\].
        mass: f64,
        /// Gravity \[m/s²\].
        gravity: f64,
    }
);
params!(
    /// `[model.slider-crank]`: absolute link angles + slider position.
    SliderCrankParams => lib::SliderCrank {
        /// Crank length \[m\].
        crank_length: f64,
        /// Connecting-rod length \[m\].
        rod_length: f64,
        /// Crank mass \[kg\].
        crank_mass: f64,
        /// Rod mass \[kg\].
        rod_mass: f64,
        /// Slider mass \[kg\].
        slider_mass: f64,
        /// Gravity \[m/s²\].
        gravity: f64,
        /// Crank torque \[N·m\].
        torque: f64,
        /// Force on the slider \[N\].
        slider_force: f64,
    }
);
params!(
    /// `[model.four-bar]`: four-bar with a redundant closure row.
    FourBarParams => lib::RedundantFourBar {
        /// Crank length \[m\].
        crank_length: f64,
        /// Coupler length \[m\].
        coupler_length: f64,
        /// Rocker length \[m\].
        rocker_length: f64,
        /// Ground length \[m\].
        ground_length: f64,
        /// Crank mass \[kg\].
        crank_mass: f64,
        /// Coupler mass \[kg\].
        coupler_mass: f64,
        /// Rocker mass \[kg\].
        rocker_mass: f64,
        /// Gravity \[m/s²\].
        gravity: f64,
        /// Crank torque \[N·m\].
        torque: f64,
        /// Direction of the redundant row \[rad\].
        redundant_direction: f64,
    }
);
params!(
    /// `[model.keerthi]`: Keerthi's 3-coordinate robot, driven by the control law (4.5) unless
    /// `control = false`.
    KeerthiParams => lib::KeerthiRobot {
        /// Link 3 length \[m\].
        l3: f64,
        /// Mass 2 \[kg\].
        m2: f64,
        /// Mass 3 \[kg\].
        m3: f64,
        /// Inertia 1 \[kg·m²\].
        j1: f64,
        /// Inertia 2 \[kg·m²\].
        j2: f64,
        /// Inertia 3 \[kg·m²\].
        j3: f64,
        /// Gravity \[m/s²\].
        gravity: f64,
        /// Height of the plane \[m\].
        plane: f64,
        /// Squared radius of the sphere \[m²\].
        radius_squared: f64,
    } extra {
        /// Apply Keerthi's control law (4.5) (default `true`, as in the paper).
        control: bool = true,
    }
);
params!(
    /// `[model.huang]`: Huang's Cartesian robot outside a circle (one unilateral row), pushed
    /// by a constant force.
    HuangParams => lib::HuangCartesianRobot {
        /// Circle radius \[m\].
        radius: f64,
        /// Circle centre \[m\].
        center: [f64; 2],
        /// Axis masses \[kg\].
        mass: [f64; 2],
        /// Coulomb friction coefficient on the circle.
        friction: f64,
    } extra {
        /// Constant applied force (F_x, F_y) \[N\].
        force: [f64; 2] = [0.0, 0.0],
    }
);
params!(
    /// `[model.andrews]`: Andrews' squeezing mechanism (7 coordinates, 6 rows).
    AndrewsParams => lib::AndrewsSqueezer {
        /// Masses \[kg\].
        m: [f64; 7],
        /// Inertias \[kg·m²\].
        i: [f64; 7],
        /// Motor torque \[N·m\].
        torque: f64,
        /// Spring stiffness \[N/m\].
        spring_stiffness: f64,
        /// Spring rest length \[m\].
        spring_length: f64,
    }
);

/// Largest number of loops of `[model.n-four-bar]`: 1000 (2002 coordinates). The A02 tables
/// go to 400 loops; the methods that solve densely hold `(2n + 2)²` matrices (32 MB each at a
/// thousand loops) and factor them in `O(n³)` per evaluation, so a larger `n` is a typing
/// error far more often than a run that finishes.
pub const MAX_N_FOUR_BAR_LOOPS: usize = 1000;

/// `[model.n-four-bar]`: MBS benchmark A02 (González et al. 2006), `n` four-bar loops in
/// natural coordinates (`q = (x_0, y_0, …, x_n, y_n)`, the moving points `B_i`; `2n + 2`
/// coordinates, `2n + 1` rows), started on the physical branch with every crank at `theta`.
/// `J` loses rank at the flat configurations (θ = 0, π): run it with the projector,
/// perturbation or parametrization method.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NFourBarParams {
    /// Number of four-bar loops, `1 ≤ n ≤` [`MAX_N_FOUR_BAR_LOOPS`] (required).
    pub n: usize,
    /// Initial crank angle θ \[rad\] (default π/2, A02's; `initial.angle` overrides it).
    #[serde(default = "a02_theta")]
    pub theta: f64,
    /// Initial crank rate θ̇ \[rad/s\] (default −1, A02's; `initial.rate` overrides it).
    #[serde(default = "a02_theta_dot")]
    pub theta_dot: f64,
    /// Length of every bar \[m\] (default 1).
    #[serde(default = "one")]
    pub length: f64,
    /// Mass of every bar \[kg\] (default 1).
    #[serde(default = "one")]
    pub mass: f64,
    /// Gravity along −y \[m/s²\] (default 9.81).
    #[serde(default = "a02_gravity")]
    pub gravity: f64,
}

fn a02_theta() -> f64 {
    std::f64::consts::FRAC_PI_2
}

fn a02_theta_dot() -> f64 {
    -1.0
}

fn one() -> f64 {
    1.0
}

fn a02_gravity() -> f64 {
    lib::NFourBar::new(1).gravity
}

impl NFourBarParams {
    /// The library model with these parameters (`n` unchecked: the model's build checks it).
    pub fn build(&self) -> lib::NFourBar {
        lib::NFourBar {
            loops: self.n,
            length: self.length,
            mass: self.mass,
            gravity: self.gravity,
        }
    }
}

/// `[model.arm7]`: the SSRMS-like 7-joint arm of Kövecses & Piedbœuf.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Arm7Params {
    /// Gravity vector \[m/s²\] (default zero: a space manipulator).
    pub gravity: [f64; 3],
    /// Hold the tip on its initial position (3 bilateral rows).
    pub tip_held: bool,
}

impl Default for Arm7Params {
    fn default() -> Self {
        Self {
            gravity: [0.0; 3],
            tip_held: false,
        }
    }
}

/// `[model.urdf]`: a kinematic tree from a URDF file, with loop closures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UrdfParams {
    /// The URDF file (relative to the scenario file).
    pub file: PathBuf,
    /// Gravity vector \[m/s²\] (default: ROS's (0, 0, −9.81)).
    #[serde(default = "ros_gravity")]
    pub gravity: [f64; 3],
    /// Loop closures (`[[model.urdf.closures]]`), assembled at the initial `q`.
    #[serde(default)]
    pub closures: Vec<ClosureSpec>,
}

/// Closure kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClosureKind {
    /// A point of `body` held at a world point (3 rows).
    PointAtWorld,
    /// A point of `body` joined to body `to` (3 rows).
    PointToPoint,
    /// `body` welded to `to`, or to the world without `to` (6 rows).
    Weld,
}

/// One `[[model.urdf.closures]]`: bodies by their URDF link names; the relative position
/// (and for a weld the orientation) is the one of the initial `q`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClosureSpec {
    /// The kind.
    pub kind: ClosureKind,
    /// Body A (link name).
    pub body: String,
    /// The point on body A, in its coordinates \[m\] (default: its origin).
    #[serde(default)]
    pub point: [f64; 3],
    /// Body B (point-to-point, weld; a weld without it is to the world).
    #[serde(default)]
    pub to: Option<String>,
    /// World target of a point-at-world closure \[m\] (default: the point's position at
    /// the initial `q`).
    #[serde(default)]
    pub target: Option<[f64; 3]>,
}

fn ros_gravity() -> [f64; 3] {
    [0.0, 0.0, -9.81]
}

/// The model: one key of `[model.<name>]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModelSpec {
    /// Cartesian pendulum.
    Pendulum(PendulumParams),
    /// Slider-crank.
    SliderCrank(SliderCrankParams),
    /// Redundant four-bar.
    FourBar(FourBarParams),
    /// Keerthi's robot.
    Keerthi(KeerthiParams),
    /// Huang's Cartesian robot.
    Huang(HuangParams),
    /// The 7-joint arm.
    Arm7(Arm7Params),
    /// Andrews' squeezer.
    Andrews(AndrewsParams),
    /// MBS benchmark A02: `n` four-bar loops.
    NFourBar(NFourBarParams),
    /// A URDF file.
    Urdf(UrdfParams),
}

/// What to do with the initial state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Consistency {
    /// Project it onto the constraints first (`consistent_state`).
    #[default]
    Make,
    /// Require it consistent to `tol`.
    Require,
}

/// `[initial]`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InitialSpec {
    /// Coordinates q (default: the model's nominal state).
    pub q: Option<Vec<f64>>,
    /// Velocities q̇ (default: zero, or the model's nominal).
    pub qd: Option<Vec<f64>>,
    /// Angle \[rad\] for the one-angle models (pendulum from the downward vertical,
    /// slider-crank, four-bar and n-four-bar crank angle); replaces `q`/`qd` (and the
    /// n-four-bar's `theta`).
    pub angle: Option<f64>,
    /// Angular rate \[rad/s\] with `angle` (replaces the n-four-bar's `theta_dot`).
    pub rate: Option<f64>,
    /// `make` (default) or `require`.
    pub consistent: Consistency,
    /// Tolerance of `require` (default 1e-10).
    pub tol: Option<f64>,
}

/// Method names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MethodName {
    /// No stabilization.
    Direct,
    /// Baumgarte.
    Baumgarte,
    /// Keerthi's perturbation approach.
    #[default]
    Perturbation,
    /// Local parametrization.
    Parametrization,
    /// GGL with the BDF (also spelled `ecs`).
    #[serde(alias = "ecs")]
    ExactStabilization,
    /// Kövecses' projectors.
    Projector,
    /// Bayo–Ledesma's augmented Lagrangian (index 3, trapezoidal rule, constant step).
    AugmentedLagrangian,
}

/// `[method]`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MethodSpec {
    /// The method (`None`: the model's default, [`Scenario::method_name`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<MethodName>,
    /// Overrides of the method's configuration (its field names; the rest keep the library's
    /// defaults; Baumgarte: `alpha`, `beta` or `delta`, default
    /// [`crate::words::BAUMGARTE_DEFAULT_GAINS`]).
    #[serde(default)]
    pub settings: toml::Table,
    /// What the direct and Baumgarte methods do at a singular passage (`J` below its initial
    /// rank, a step that shrinks with its distance from a crossing of branches, or a state
    /// within its drift of one): `"stop"` (the default: the run fails with the
    /// singular-passage, stalled-passage or ambiguous-branch error) or `"continue"`
    /// (the rank-revealing solve; pair it with `tolerance.energy`). The other methods keep
    /// their state on the constraints and ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passage_policy: Option<PassagePolicy>,
}

/// Integrator names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IntegratorName {
    /// Adams–Bashforth–Moulton.
    #[default]
    Abm,
    /// Dormand–Prince 5(4).
    Dopri5,
    /// Runge–Kutta–Gill.
    Rkg,
    /// BDF.
    Bdf,
    /// Singly-implicit Runge–Kutta (constant step: `h_max`, default 0.01 s).
    Sirk,
}

/// `[integrator]`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct IntegratorSpec {
    /// The integrator (default: [`IntegratorSpec::resolved`]).
    pub name: Option<IntegratorName>,
    /// Largest step \[s\].
    pub h_max: Option<f64>,
    /// First step \[s\].
    pub h_init: Option<f64>,
}

impl IntegratorSpec {
    /// The integrator that runs: the one named, else BDF for `exact-stabilization` (a DAE
    /// method: GGL needs an implicit DAE integrator) and ABM for every other method.
    pub fn resolved(&self, method: MethodName) -> IntegratorName {
        self.name.unwrap_or(method.default_integrator())
    }
}

/// Norm names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NormName {
    /// Plain l2.
    #[default]
    L2,
    /// Root mean square.
    Rms,
    /// Max norm.
    Max,
}

/// `[tolerance]`: `wᵢ = atol + rtol·|xᵢ|`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ToleranceSpec {
    /// Absolute tolerance.
    pub atol: f64,
    /// Relative tolerance.
    pub rtol: f64,
    /// Norm.
    pub norm: NormName,
    /// Energy tolerance \[J\]: the run fails where `|E − E(t0)|` exceeds it, for models that
    /// report their energy (ignored otherwise; default: no limit, the drift is in the
    /// statistics). Positive and finite.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub energy: Option<f64>,
}

impl Default for ToleranceSpec {
    fn default() -> Self {
        Self {
            atol: 1e-4,
            rtol: 0.0,
            norm: NormName::L2,
            energy: None,
        }
    }
}

/// KKT methods of the constrained solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KktName {
    /// Cholesky of `M`, then of the Schur complement `J M⁻¹ Jᵀ` (the library's default).
    #[default]
    RangeSpace,
    /// Partial-pivot LU of the whole augmented matrix.
    FullLu,
}

/// What a rank-deficient `J` gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RankDeficiencyName {
    /// The unique `q̈` and the minimum-norm `λ` of the rank-revealing solve (the default).
    #[default]
    MinimumNorm,
    /// The run fails with the rank-deficient-Jacobian error.
    Error,
}

/// `[dynamics]`: options of the constrained solve `M q̈ − Jᵀλ = u − h`, `J q̈ = −ρ` of every
/// method (the library's `DynamicsOptions`; an absent key keeps the library's default). Like
/// `method.passage_policy` and `tolerance.energy` it is refused for models with unilateral
/// rows, which the contact simulator runs.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DynamicsSpec {
    /// `"range-space"` (default) or `"full-lu"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kkt: Option<KktName>,
    /// Relative rank cut-off of the rank-revealing solve, in `(0, 1)` (default 1e-6): singular
    /// values of `L⁻¹Jᵀ` at or below `rank_rtol · σ_max` count as lost. It also sets where
    /// the direct and Baumgarte methods see a singular passage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank_rtol: Option<f64>,
    /// Relative pivot tolerance of the KKT factorizations, `≥ 0` (default 1e-12).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pivot_rtol: Option<f64>,
    /// `"minimum-norm"` (default) or `"error"` (a rank-deficient `J` fails the run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank_deficiency: Option<RankDeficiencyName>,
}

impl DynamicsSpec {
    /// No key set (every option at the library's default).
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

/// `[time]`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TimeSpec {
    /// Start time \[s\] (default 0).
    pub start: f64,
    /// End time \[s\] (required to simulate).
    pub end: Option<f64>,
    /// Outputs every `output_step` seconds from `start` (default: every accepted step).
    pub output_step: Option<f64>,
    /// Explicit output times (instead of `output_step`).
    pub outputs: Option<Vec<f64>>,
    /// Step budget.
    pub max_steps: Option<usize>,
}

/// `[contact]` (models with unilateral rows).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContactSpec {
    /// Newton's coefficient of restitution.
    pub restitution: f64,
}

impl Default for ContactSpec {
    fn default() -> Self {
        Self { restitution: 0.0 }
    }
}

/// The joint-space path of a plan: one key of `[plan.path]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum PathSpec {
    /// A straight joint-space line.
    Line {
        /// Start pose.
        start: Vec<f64>,
        /// End pose.
        end: Vec<f64>,
    },
    /// Straight lines through the waypoints (one segment each, s = 0, 1, 2, …).
    Waypoints(Vec<Vec<f64>>),
    /// A circular arc `center + r (cos θ u + sin θ v)`.
    Arc {
        /// Centre.
        center: Vec<f64>,
        /// First unit direction.
        u: Vec<f64>,
        /// Second unit direction (orthogonal to `u`).
        v: Vec<f64>,
        /// Radius.
        radius: f64,
        /// Start angle \[rad\].
        theta_start: f64,
        /// End angle \[rad\].
        theta_end: f64,
    },
}

/// `[plan]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanSpec {
    /// The path.
    pub path: PathSpec,
    /// Symmetric torque limit for every joint \[N·m\] (or `torque_limits`).
    #[serde(default)]
    pub torque_limit: Option<f64>,
    /// Per-joint symmetric torque limits \[N·m\].
    #[serde(default)]
    pub torque_limits: Option<Vec<f64>>,
    /// Symmetric joint velocity limit for every joint, |q̇ᵢ| ≤ v \[rad/s or m/s\] (or
    /// `velocity_limits`; with `urdf_limits`, replaces the URDF's velocities).
    #[serde(default)]
    pub velocity_limit: Option<f64>,
    /// Per-joint joint velocity limits \[rad/s or m/s\].
    #[serde(default)]
    pub velocity_limits: Option<Vec<f64>>,
    /// Symmetric joint acceleration limit for every joint, |q̈ᵢ| ≤ a \[rad/s² or m/s²\] (or
    /// `acceleration_limits`).
    #[serde(default)]
    pub acceleration_limit: Option<f64>,
    /// Per-joint joint acceleration limits \[rad/s² or m/s²\].
    #[serde(default)]
    pub acceleration_limits: Option<Vec<f64>>,
    /// Take the limits from a URDF model's `<limit effort= velocity=>` tags: |τᵢ| ≤ effortᵢ
    /// and |q̇ᵢ| ≤ velocityᵢ (instead of `torque_limit(s)`; default false).
    #[serde(default)]
    pub urdf_limits: bool,
    /// Sampling rate of the written trajectory \[Hz\] (default 1000).
    #[serde(default = "default_rate")]
    pub sample_rate: f64,
    /// Also solve with TOPP-RA on this many intervals and report its time (a cross-check of
    /// the phase-plane optimum; default: not run).
    #[serde(default)]
    pub toppra_intervals: Option<usize>,
}

fn default_rate() -> f64 {
    1000.0
}

/// A parsed scenario with where it came from (for relative paths and error lines).
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The scenario.
    pub scenario: Scenario,
    /// The directory relative paths are taken from.
    pub dir: PathBuf,
    /// The file name (for messages).
    pub file: String,
    /// The source text (for locating keys of later errors).
    pub source: String,
}

/// 1-based (line, column) of byte `offset` in `src`.
pub fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(src.len());
    let before = &src[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map_or(offset, |p| offset - p - 1) + 1;
    (line, col)
}

/// The key of a `key = value` line (or of an unknown field named in the message).
fn key_at(src: &str, line: usize, message: &str) -> Option<String> {
    if let Some(rest) = message.split("unknown field `").nth(1) {
        return rest.split('`').next().map(str::to_string);
    }
    if let Some(rest) = message.split("unknown variant `").nth(1) {
        return rest.split('`').next().map(str::to_string);
    }
    let text = src.lines().nth(line.checked_sub(1)?)?;
    let (key, _) = text.split_once('=')?;
    let key = key.trim().trim_matches('"');
    (!key.is_empty() && !key.starts_with('[')).then(|| key.to_string())
}

/// The first line (1-based) whose key is `key` (`key = …`), for errors without a span.
pub fn locate_key(src: &str, key: &str) -> Option<usize> {
    let assigns = |r: &str| r.trim_start().starts_with('=');
    src.lines()
        .position(|l| l.trim_start().strip_prefix(key).is_some_and(assigns))
        .or_else(|| {
            // Inside an inline table: `settings = { key = … }`.
            src.lines().position(|l| {
                l.match_indices(key)
                    .any(|(i, _)| l[..i].ends_with(['{', ',', ' ']) && assigns(&l[i + key.len()..]))
            })
        })
        .map(|i| i + 1)
}

/// Converts a toml error on `src` into a [`ScenarioError`].
pub fn toml_error(file: &str, src: &str, e: &toml::de::Error) -> ScenarioError {
    let message = e.message().trim().to_string();
    let (line, column) = e.span().map_or((0, 0), |s| line_col(src, s.start));
    let key = key_at(src, line, &message);
    ScenarioError {
        file: file.to_string(),
        line,
        column,
        key,
        message,
    }
}

/// Parses a scenario from its text.
pub fn parse(file: &str, src: &str) -> Result<Scenario, ScenarioError> {
    toml::from_str(src).map_err(|e| toml_error(file, src, &e))
}

/// Largest scenario or sweep file read (32 MiB): parsing TOML takes about twenty times the
/// file's size in memory, and a list long enough to need more (a million output times) is
/// better written as `output_step`.
pub const MAX_FILE_BYTES: u64 = 32 << 20;

/// The text of a scenario or sweep file, refused above [`MAX_FILE_BYTES`].
pub fn read_source(path: &Path) -> crate::error::Result<String> {
    let len = std::fs::metadata(path)
        .map_err(|e| crate::Error::io(path, e))?
        .len();
    if len > MAX_FILE_BYTES {
        return Err(ScenarioError {
            file: path.display().to_string(),
            line: 0,
            column: 0,
            key: None,
            message: format!(
                "{len} bytes: scenario and sweep files are limited to {MAX_FILE_BYTES} bytes \
                 (long lists of output times are `output_step`)"
            ),
        }
        .into());
    }
    std::fs::read_to_string(path).map_err(|e| crate::Error::io(path, e))
}

/// Reads and parses a scenario file.
pub fn load(path: &Path) -> crate::error::Result<Loaded> {
    let source = read_source(path)?;
    let file = path.display().to_string();
    let scenario = parse(&file, &source)?;
    Ok(Loaded {
        scenario,
        dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
        file,
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"
[model.pendulum]
length = 2.0

[initial]
angle = 0.3

[time]
end = 1.0
"#;

    #[test]
    fn parses_a_small_scenario_with_defaults() {
        let s = parse("a.toml", OK).unwrap();
        match &s.model {
            ModelSpec::Pendulum(p) => {
                assert_eq!(p.length, 2.0);
                assert_eq!(p.mass, 1.0);
            }
            m => panic!("{m:?}"),
        }
        assert_eq!(s.method.name, None);
        assert_eq!(s.method_name(), MethodName::Perturbation);
        assert_eq!(s.time.end, Some(1.0));
    }

    #[test]
    fn unknown_key_names_key_and_line() {
        let src = OK.replace("length = 2.0", "length = 2.0\nlenght = 3.0");
        let e = parse("a.toml", &src).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("lenght"));
        assert_eq!(e.line, 4, "{e}");
    }

    #[test]
    fn wrong_type_names_key_and_line() {
        let src = OK.replace("end = 1.0", "end = \"soon\"");
        let e = parse("a.toml", &src).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("end"), "{e}");
        assert_eq!(e.line, 9, "{e}");
        assert!(e.to_string().starts_with("a.toml:9:"), "{e}");
    }

    #[test]
    fn unknown_model_names_it() {
        let src = OK.replace("[model.pendulum]", "[model.pendulm]");
        let e = parse("a.toml", &src).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("pendulm"), "{e}");
        assert_eq!(e.line, 2, "{e}");
    }
}
