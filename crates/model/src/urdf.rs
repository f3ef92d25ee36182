//! Building a [`KinematicTree`] from a URDF description.
//!
//! Mapping (ROS URDF conventions, <http://wiki.ros.org/urdf/XML>):
//!
//! * the root link (the one link that is no joint's child) is the fixed base and
//!   its `<inertial>` is ignored, or, with [`UrdfOptions::root_joint`] `FreeFlyer` or
//!   `Planar`, body 0 on that joint with its `<inertial>`;
//! * every `<joint>` makes its child link a body, ordered breadth-first from
//!   the root so that `parent(i) < i`; body names are the child links' names;
//! * `<origin xyz rpy>` of a joint is the tree transform: the child frame has
//!   the axes `R = R_z(y) R_y(p) R_x(r)` and origin `xyz` in the parent link
//!   frame, `X_tree = rot(Rᵀ) xlt(xyz)`;
//! * `revolute` and `continuous` → [`Joint::Revolute`] about `<axis xyz>`
//!   (default x, normalized), `prismatic` → [`Joint::Prismatic`], `fixed` →
//!   [`Joint::Fixed`]; dynamics (damping, friction) and safety controllers are
//!   ignored; `floating` → [`Joint::FreeFlyer`], `planar` with `<axis xyz="0 0 1">` (the
//!   plane's normal) → [`Joint::Planar`], and the `spherical` (or `ball`) extension, which
//!   the URDF specification lacks, → [`Joint::Spherical`]; these have no limits (their
//!   `nv` entries in [`UrdfJointLimits`] are unbounded); other types, and `planar` about
//!   another normal, are [`UrdfImportError::UnsupportedJointType`];
//! * `<mimic joint multiplier offset>` makes the joint's coordinate follow another's,
//!   `q_m = k q_a + c`: [`UrdfImport::mimic`] lists the couplings (the tree keeps one
//!   coordinate per movable joint), and [`crate::tree::Closure::Coupling`] (a bilateral row)
//!   or [`crate::tree::MimicReduction`] (the explicit constraint `q = γ(y)`) impose them;
//! * `<limit lower upper velocity effort>` is imported into [`UrdfJointLimits`] (one entry
//!   per degree of freedom, in the tree's q order); a missing or zero `velocity` /
//!   `effort` means no limit (+∞), as do the position limits of a `continuous` joint and
//!   `lower = upper = 0` (the attributes' defaults), and `lower > upper` (pybullet's
//!   "no limit"; a [`UrdfWarningKind::NoLimit`], refused in strict mode);
//! * `<inertial>`: mass, centre of mass at `origin xyz`, inertia tensor about
//!   the centre of mass in the frame rotated by `origin rpy`
//!   (`I_link = R I Rᵀ`). A link without `<inertial>` is a massless frame.
//! * gravity is ROS's `(0, 0, −9.81)` m/s²; change it with
//!   [`KinematicTree::set_gravity`].
//!
//! **What is read, what is refused, what is repaired.** Only the elements above are
//! interpreted; visual and collision content (materials, textures, meshes), transmissions,
//! `<gazebo>` blocks and unknown tags are skipped unread, so they never block an import.
//! Element nesting deeper than [`MAX_DEPTH`] is [`UrdfImportError::TooDeep`]. Duplicate link
//! or joint names, missing links, cycles and non-finite numbers are errors. The inertial
//! data is judged by what it does to the dynamics ([`UrdfOptions`]):
//!
//! * refused: a negative or non-finite mass, a non-finite tensor; a movable joint whose
//!   child subtree has no mass and no inertia ([`UrdfImportError::MasslessSubtree`]: `M` is
//!   singular for every q); an indefinite tensor (below) on a moving link when `M` at the
//!   zero configuration is not positive definite ([`UrdfImportError::InvalidInertia`]);
//! * repaired, with a [`UrdfWarning`]: a principal moment in `[−inertia_tolerance · I_max, 0)`
//!   (`I_max`: the largest principal moment of any link of the robot, so round-off of
//!   the robot's scale) is set to zero, the nearest positive semi-definite tensor; a
//!   negative moment within `1e-9` of the tensor's own `Σ|I_k|` is round-off and left as
//!   written (as the strict check allows);
//! * accepted as written, with a warning: principal moments that break the triangle
//!   inequality (positive semi-definite: `M` stays positive definite); a zero mass with a
//!   non-zero tensor (a body with rotational inertia only); an indefinite tensor beyond the
//!   tolerance (as Pinocchio takes it: such a link's own kinetic energy can be negative, but
//!   the robot's `M(q)` is checked positive definite at the zero configuration, and
//!   [`KinematicTree::forward_dynamics`] reports a non-positive articulated pivot at any
//!   other q). A link that never moves (fixed joints up to the root) enters no equation
//!   of motion.
//!
//! [`UrdfOptions::strict`] refuses all of these instead. Every error and warning names the
//! link or joint and the line of its start tag.

mod collision;
mod inertia;
mod visual;
mod xml;

use crate::spatial::{mat3_mul, mat3_transpose, rpy_to_matrix, Mat3, SpatialInertia, Transform};
use crate::tree::{Joint, KinematicTree, MimicCoupling};
pub use collision::{urdf_collisions_from_file, urdf_collisions_from_str, UrdfCollision};
use std::collections::{HashMap, VecDeque};
use std::path::Path;
pub use visual::{urdf_visuals_from_file, urdf_visuals_from_str, UrdfGeometry, UrdfVisual};
pub use xml::MAX_DEPTH;
use xml::{RawJoint, RawLink};

/// Why a URDF description could not be turned into a [`KinematicTree`]. Every variant that
/// concerns an element gives the line (1-based) of its start tag.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum UrdfImportError {
    /// The file could not be read.
    #[error("cannot read URDF file {path}: {message}")]
    Io {
        /// The path.
        path: String,
        /// The operating system's message.
        message: String,
    },
    /// The XML is malformed, or a required attribute is missing or not a number.
    #[error("malformed URDF at line {line}: {message}")]
    Parse {
        /// Line of the offending element.
        line: usize,
        /// What is wrong, naming the element and attribute.
        message: String,
    },
    /// Elements nested deeper than [`MAX_DEPTH`].
    #[error("line {line}: elements nested deeper than {depth}")]
    TooDeep {
        /// Line of the first element beyond the bound.
        line: usize,
        /// The bound.
        depth: usize,
    },
    /// A joint type that a kinematic tree of 1-DOF joints cannot represent
    /// (`floating`, `planar`, `spherical`) or that URDF does not define.
    #[error("joint '{joint}' (line {line}): unsupported joint type '{kind}'")]
    UnsupportedJointType {
        /// Name of the joint.
        joint: String,
        /// The type attribute.
        kind: String,
        /// Line of the joint.
        line: usize,
    },
    /// A joint names a parent or child link that does not exist.
    #[error("joint '{joint}' (line {line}): {role} link '{link}' does not exist")]
    MissingLink {
        /// Name of the joint.
        joint: String,
        /// `"parent"` or `"child"`.
        role: &'static str,
        /// The missing link's name.
        link: String,
        /// Line of the joint.
        line: usize,
    },
    /// Two links have the same name.
    #[error("link '{link}' (line {line}) is defined twice")]
    DuplicateLink {
        /// The name.
        link: String,
        /// Line of the second definition.
        line: usize,
    },
    /// Two joints have the same name.
    #[error("joint '{joint}' (line {line}) is defined twice")]
    DuplicateJoint {
        /// The name.
        joint: String,
        /// Line of the second definition.
        line: usize,
    },
    /// A link is the child of more than one joint (a closed loop; URDF describes trees).
    #[error("link '{link}' is the child of more than one joint (the second at line {line})")]
    MultipleParents {
        /// The link.
        link: String,
        /// Line of the second joint naming it as child.
        line: usize,
    },
    /// Not exactly one root link.
    #[error("expected exactly one root link, found {roots:?}")]
    RootCount {
        /// The links that are no joint's child.
        roots: Vec<String>,
    },
    /// A link not connected to the root (part of a cycle).
    #[error("link '{link}' (line {line}) is not connected to the root")]
    Disconnected {
        /// The link.
        link: String,
        /// Line of the link.
        line: usize,
    },
    /// A negative or non-finite mass (and, in strict mode, a zero mass with a non-zero
    /// inertia tensor).
    #[error("link '{link}' (line {line}): invalid mass {mass:.3e}")]
    InvalidMass {
        /// The link.
        link: String,
        /// The mass.
        mass: f64,
        /// Line of the link.
        line: usize,
    },
    /// An inertia tensor that is not finite, or indefinite on a moving link with `M` at the
    /// zero configuration not positive definite (in strict mode: any tensor that is not
    /// positive semi-definite or breaks the triangle inequalities).
    #[error("link '{link}' (line {line}): physically invalid inertia tensor (smallest principal moment {min_moment:.3e}, triangle excess {triangle_excess:.3e})")]
    InvalidInertia {
        /// The link.
        link: String,
        /// Line of the link.
        line: usize,
        /// The smallest principal moment \[kg·m²\] (NaN for a non-finite tensor).
        min_moment: f64,
        /// The largest `I_k − I_i − I_j` \[kg·m²\].
        triangle_excess: f64,
    },
    /// A zero or non-finite joint axis.
    #[error("joint '{joint}' (line {line}): zero or non-finite axis")]
    InvalidAxis {
        /// The joint.
        joint: String,
        /// Line of the joint.
        line: usize,
    },
    /// A non-finite origin.
    #[error("joint '{joint}' (line {line}): non-finite origin")]
    NonFiniteOrigin {
        /// The joint.
        joint: String,
        /// Line of the joint.
        line: usize,
    },
    /// A movable joint moves nothing: its child link and all links below have
    /// zero mass and zero inertia, so the mass matrix is singular for every q.
    #[error("joint '{joint}' (line {line}) moves only massless links (from '{link}'): the mass matrix would be singular")]
    MasslessSubtree {
        /// The joint.
        joint: String,
        /// Its child link.
        link: String,
        /// Line of the joint.
        line: usize,
    },
    /// A `<limit>` attribute that is negative or not finite (`velocity`,
    /// `effort`), NaN, or `lower > upper`.
    #[error("joint '{joint}' (line {line}): invalid limit {what} = {value:.3e}")]
    InvalidLimit {
        /// The joint.
        joint: String,
        /// `"velocity"`, `"effort"`, `"lower"` or `"upper"`.
        what: &'static str,
        /// The value.
        value: f64,
        /// Line of the joint.
        line: usize,
    },
    /// A `<mimic>` that cannot be imposed: it names a joint that does not exist or is fixed,
    /// sits on a fixed joint, has a non-finite multiplier or offset, or the mimic joints form
    /// a cycle (strict mode; otherwise a [`UrdfWarningKind::IgnoredMimic`]).
    #[error("joint '{joint}' (line {line}): invalid mimic: {reason}")]
    InvalidMimic {
        /// The mimicking joint.
        joint: String,
        /// What is wrong.
        reason: &'static str,
        /// Line of the joint.
        line: usize,
    },
    /// An import option out of its range ([`UrdfOptions::validate`]).
    #[error("invalid URDF option {option} = {value:e}")]
    InvalidOption {
        /// The option's field name in [`UrdfOptions`].
        option: &'static str,
        /// The rejected value.
        value: f64,
    },
}

/// Import options. `Default`: lenient (`strict = false`), `inertia_tolerance = 1e-6`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UrdfOptions {
    /// Refuse every inertial defect (the strict check of positive semi-definiteness and the
    /// triangle inequalities to a relative `1e-9`, and a zero mass with a non-zero tensor)
    /// instead of repairing or accepting it with a warning.
    pub strict: bool,
    /// Relative tolerance of the repair: a negative principal moment `λ` with
    /// `|λ| ≤ inertia_tolerance · I_max` (`I_max` the largest principal moment of any link) is
    /// set to zero; below that the tensor is kept with a warning (module doc). Range: finite
    /// and `≥ 0` (`0`: no repair).
    pub inertia_tolerance: f64,
    /// The joint between the world and the root link (default [`RootJoint::Fixed`]).
    pub root_joint: RootJoint,
}

/// The joint an import puts between the world and the URDF's root link (Pinocchio's
/// `buildModelFromUrdf(path, root_joint)`); with a moving root joint the root link's
/// `<inertial>` is the first body's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RootJoint {
    /// The root link is the world (its inertial is ignored).
    #[default]
    Fixed,
    /// A free-flyer: `q = (x, y, z, qx, qy, qz, qw)`, nq 7, nv 6.
    FreeFlyer,
    /// A planar joint in the world's x–y plane: `q = (x, y, cos θ, sin θ)`, nq 4, nv 3.
    Planar,
}

impl Default for UrdfOptions {
    fn default() -> Self {
        Self {
            strict: false,
            inertia_tolerance: 1e-6,
            root_joint: RootJoint::Fixed,
        }
    }
}

impl UrdfOptions {
    /// These options with `root_joint` between the world and the root link.
    #[must_use]
    pub fn root_joint(mut self, root_joint: RootJoint) -> Self {
        self.root_joint = root_joint;
        self
    }

    /// The strict options (`strict = true`).
    pub fn strict() -> Self {
        Self {
            strict: true,
            ..Self::default()
        }
    }

    /// Checks every option against its range: `inertia_tolerance` finite and `≥ 0` (`strict`
    /// takes any value). Every import entry point calls it once, before reading the text.
    ///
    /// Errors: [`crate::ModelError::Urdf`] holding [`UrdfImportError::InvalidOption`], which names
    /// the option and the value.
    pub fn validate(&self) -> Result<(), crate::ModelError> {
        self.check().map_err(crate::ModelError::from)
    }

    /// [`UrdfOptions::validate`] with the import's error type.
    fn check(&self) -> Result<(), UrdfImportError> {
        let t = self.inertia_tolerance;
        if !(t.is_finite() && t >= 0.0) {
            return Err(UrdfImportError::InvalidOption {
                option: "inertia_tolerance",
                value: t,
            });
        }
        Ok(())
    }
}

/// What an import accepted and how (see the module doc).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum UrdfWarningKind {
    /// A negative principal moment within the tolerance was set to zero.
    RepairedInertia {
        /// The principal moment before the repair \[kg·m²\].
        min_moment: f64,
    },
    /// Principal moments that break the triangle inequality (positive semi-definite, kept).
    TriangleInequality {
        /// The largest `I_k − I_i − I_j` \[kg·m²\].
        excess: f64,
    },
    /// A zero mass with a non-zero inertia tensor: rotational inertia only.
    MasslessWithInertia,
    /// A `<mimic>` that cannot be imposed (see [`UrdfImportError::InvalidMimic`]), left out:
    /// the joint keeps its own coordinate.
    IgnoredMimic {
        /// Why.
        reason: &'static str,
    },
    /// An indefinite inertia tensor beyond the repair tolerance, kept as written (the
    /// robot's `M` at the zero configuration is positive definite, or the link never moves).
    IndefiniteInertia {
        /// The smallest principal moment \[kg·m²\].
        min_moment: f64,
    },
    /// `<limit lower upper>` with `lower > upper`, pybullet's "no limit": read as unbounded.
    NoLimit {
        /// The `lower` attribute.
        lower: f64,
        /// The `upper` attribute.
        upper: f64,
    },
}

/// One finding of an import that did not block it.
#[derive(Clone, Debug, PartialEq)]
pub struct UrdfWarning {
    /// The link or joint.
    pub element: String,
    /// Line of its start tag.
    pub line: usize,
    /// What was found and done.
    pub kind: UrdfWarningKind,
}

impl std::fmt::Display for UrdfWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (e, l) = (&self.element, self.line);
        match &self.kind {
            UrdfWarningKind::NoLimit { lower, upper } => write!(
                f,
                "joint {e} (line {l}): lower {lower} > upper {upper} read as no limit"
            ),
            UrdfWarningKind::RepairedInertia { min_moment } => write!(
                f,
                "link '{e}' (line {l}): principal moment {min_moment:e} set to zero"
            ),
            UrdfWarningKind::TriangleInequality { excess } => write!(
                f,
                "link '{e}' (line {l}): principal moments break the triangle inequality by {excess:e} (kept: positive semi-definite)"
            ),
            UrdfWarningKind::MasslessWithInertia => write!(
                f,
                "link '{e}' (line {l}): zero mass with a non-zero inertia tensor (rotational inertia only)"
            ),
            UrdfWarningKind::IgnoredMimic { reason } => {
                write!(f, "joint '{e}' (line {l}): mimic ignored: {reason}")
            }
            UrdfWarningKind::IndefiniteInertia { min_moment } => write!(
                f,
                "link '{e}' (line {l}): indefinite inertia tensor (principal moment {min_moment:e}) kept"
            ),
        }
    }
}

/// A `<mimic>` coupling as imported: the tree's [`MimicCoupling`] (the import fills it; the
/// tree's closures and reductions read it).
pub type UrdfMimic = MimicCoupling;

/// The `<limit>` values of a URDF's movable joints, one entry per degree of
/// freedom in the tree's q order ([`KinematicTree::q_index`]); +∞ (−∞ for
/// `lower`) where the URDF gives no limit.
#[derive(Clone, Debug, PartialEq)]
pub struct UrdfJointLimits {
    /// Joint names, in q order.
    pub names: Vec<String>,
    /// Lower position limits \[rad or m\].
    pub lower: Vec<f64>,
    /// Upper position limits \[rad or m\].
    pub upper: Vec<f64>,
    /// Velocity limits |q̇| ≤ velocity \[rad/s or m/s\].
    pub velocity: Vec<f64>,
    /// Effort limits |τ| ≤ effort \[N·m or N\].
    pub effort: Vec<f64>,
}

/// Everything an import gives: the tree, the joints' limits, the mimic couplings and the
/// warnings (the import report).
#[derive(Clone, Debug)]
pub struct UrdfImport {
    /// The tree.
    pub tree: KinematicTree,
    /// The `<limit>` values, in q order.
    pub limits: UrdfJointLimits,
    /// The `<mimic>` couplings, in the mimicking joints' q order.
    pub mimic: Vec<UrdfMimic>,
    /// What was repaired or accepted with a defect.
    pub warnings: Vec<UrdfWarning>,
}

fn joint_limit(
    j: &RawJoint,
    options: &UrdfOptions,
    warnings: &mut Vec<UrdfWarning>,
) -> Result<(f64, f64, f64, f64), UrdfImportError> {
    let l = &j.limit;
    let bad = |what: &'static str, value: f64| UrdfImportError::InvalidLimit {
        joint: j.name.clone(),
        what,
        value,
        line: j.line,
    };
    for (what, v) in [("velocity", l.velocity), ("effort", l.effort)] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(bad(what, v));
        }
    }
    for (what, v) in [("lower", l.lower), ("upper", l.upper)] {
        if v.is_nan() {
            return Err(bad(what, v));
        }
    }
    let none = |v: f64| if v > 0.0 { v } else { f64::INFINITY };
    let (lower, upper) = if j.kind == "continuous" || (l.lower == 0.0 && l.upper == 0.0) {
        (f64::NEG_INFINITY, f64::INFINITY)
    } else if l.lower > l.upper {
        if options.strict {
            return Err(bad("lower", l.lower));
        }
        // pybullet writes lower > upper for "no limit"
        warnings.push(UrdfWarning {
            element: j.name.clone(),
            line: j.line,
            kind: UrdfWarningKind::NoLimit {
                lower: l.lower,
                upper: l.upper,
            },
        });
        (f64::NEG_INFINITY, f64::INFINITY)
    } else {
        (l.lower, l.upper)
    };
    Ok((lower, upper, none(l.velocity), none(l.effort)))
}

/// `nv` unbounded entries named `name` (a joint of several degrees of freedom: URDF gives it
/// no limits).
fn push_unbounded(limits: &mut UrdfJointLimits, name: &str, nv: usize) {
    for _ in 0..nv {
        limits.names.push(name.to_string());
        limits.lower.push(f64::NEG_INFINITY);
        limits.upper.push(f64::INFINITY);
        limits.velocity.push(f64::INFINITY);
        limits.effort.push(f64::INFINITY);
    }
}

fn massless(link: &RawLink) -> bool {
    link.inertial
        .as_ref()
        .is_none_or(|i| i.mass == 0.0 && i.inertia.iter().all(|x| *x == 0.0))
}

fn tensor(link: &RawLink) -> Mat3 {
    let t = link.inertial.as_ref().map_or([0.0; 6], |i| i.inertia);
    [[t[0], t[1], t[2]], [t[1], t[3], t[4]], [t[2], t[4], t[5]]]
}

/// Reads a URDF file ([`tree_from_urdf_str`]).
pub fn tree_from_urdf_file(path: impl AsRef<Path>) -> Result<KinematicTree, UrdfImportError> {
    import_urdf_file(path, &UrdfOptions::default()).map(|i| i.tree)
}

/// Reads a URDF file ([`import_urdf_str`]).
pub fn import_urdf_file(
    path: impl AsRef<Path>,
    options: &UrdfOptions,
) -> Result<UrdfImport, UrdfImportError> {
    options.check()?;
    let path = path.as_ref();
    let s = std::fs::read_to_string(path).map_err(|e| UrdfImportError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    import_checked(&s, options)
}

/// Builds a [`KinematicTree`] from URDF text with the default (lenient) options (see the
/// module doc for the mapping). Errors name the offending element and its line.
pub fn tree_from_urdf_str(s: &str) -> Result<KinematicTree, UrdfImportError> {
    import_urdf_str(s, &UrdfOptions::default()).map(|i| i.tree)
}

/// [`tree_from_urdf_str`] and the joints' `<limit>` values.
pub fn tree_and_limits_from_urdf_str(
    s: &str,
) -> Result<(KinematicTree, UrdfJointLimits), UrdfImportError> {
    import_urdf_str(s, &UrdfOptions::default()).map(|i| (i.tree, i.limits))
}

/// The import with its report: tree, limits, mimic couplings and warnings.
///
/// Errors: [`UrdfImportError::InvalidOption`] for options out of range
/// ([`UrdfOptions::validate`]), and the module doc's defects of the description.
pub fn import_urdf_str(s: &str, options: &UrdfOptions) -> Result<UrdfImport, UrdfImportError> {
    options.check()?;
    import_checked(s, options)
}

/// [`import_urdf_str`] with `options` already validated.
fn import_checked(s: &str, options: &UrdfOptions) -> Result<UrdfImport, UrdfImportError> {
    let robot = xml::read(s)?;
    let mut link_index = HashMap::new();
    for (k, l) in robot.links.iter().enumerate() {
        if link_index.insert(l.name.as_str(), k).is_some() {
            return Err(UrdfImportError::DuplicateLink {
                link: l.name.clone(),
                line: l.line,
            });
        }
    }
    let mut joint_index = HashMap::new();
    for (k, j) in robot.joints.iter().enumerate() {
        if joint_index.insert(j.name.as_str(), k).is_some() {
            return Err(UrdfImportError::DuplicateJoint {
                joint: j.name.clone(),
                line: j.line,
            });
        }
    }
    // parent joint of every link; children of every link
    let mut parent_joint: Vec<Option<usize>> = vec![None; robot.links.len()];
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); robot.links.len()];
    let mut child_link = Vec::with_capacity(robot.joints.len());
    for (k, j) in robot.joints.iter().enumerate() {
        let find = |role: &'static str, name: &str| {
            link_index
                .get(name)
                .copied()
                .ok_or_else(|| UrdfImportError::MissingLink {
                    joint: j.name.clone(),
                    role,
                    link: name.to_string(),
                    line: j.line,
                })
        };
        let p = find("parent", &j.parent)?;
        let c = find("child", &j.child)?;
        if parent_joint[c].replace(k).is_some() {
            return Err(UrdfImportError::MultipleParents {
                link: j.child.clone(),
                line: j.line,
            });
        }
        children[p].push(k);
        child_link.push(c);
    }
    let roots: Vec<usize> = (0..robot.links.len())
        .filter(|&l| parent_joint[l].is_none())
        .collect();
    if roots.len() != 1 {
        return Err(UrdfImportError::RootCount {
            roots: roots.iter().map(|&l| robot.links[l].name.clone()).collect(),
        });
    }
    let root = roots[0];
    // the root's inertial is ignored, but a negative (or NaN) mass is still refused
    check_mass(&robot.links[root], options, &mut Vec::new())?;
    // links whose whole subtree is massless (children before parents: reverse BFS)
    let mut order = vec![root];
    let mut k = 0;
    while k < order.len() {
        for &j in &children[order[k]] {
            order.push(child_link[j]);
        }
        k += 1;
    }
    let mut massless_below = vec![false; robot.links.len()];
    for &l in order.iter().rev() {
        massless_below[l] =
            massless(&robot.links[l]) && children[l].iter().all(|&j| massless_below[child_link[j]]);
    }
    // the robot's inertia scale: the largest principal moment of any link
    let i_max = robot
        .links
        .iter()
        .map(tensor)
        .filter(|t| t.iter().flatten().all(|x| x.is_finite()))
        .map(|t| inertia::Principal::of(&t).moments[2])
        .fold(0.0, f64::max);
    let mut warnings = Vec::new();
    let mut limits = UrdfJointLimits {
        names: Vec::new(),
        lower: Vec::new(),
        upper: Vec::new(),
        velocity: Vec::new(),
        effort: Vec::new(),
    };
    let mut tree = KinematicTree::new(robot.name.clone());
    // body index of each link (None: the root); whether it moves (a movable joint above it)
    let mut body_of: Vec<Option<usize>> = vec![None; robot.links.len()];
    let mut moves = vec![false; robot.links.len()];
    let mut coord_of_joint: Vec<Option<usize>> = vec![None; robot.joints.len()];
    let mut reached = vec![false; robot.links.len()];
    // moving links whose indefinite tensor is kept
    let mut indefinite = Vec::new();
    reached[root] = true;
    if options.root_joint != RootJoint::Fixed {
        let link = &robot.links[root];
        let joint = match options.root_joint {
            RootJoint::Planar => Joint::Planar,
            _ => Joint::FreeFlyer,
        };
        let inertia = link_inertia(link, i_max, options, &mut warnings)?;
        let body = tree
            .add_body(link.name.clone(), None, joint, Transform::IDENTITY, inertia)
            .map_err(|_| UrdfImportError::InvalidInertia {
                link: link.name.clone(),
                line: link.line,
                min_moment: f64::NAN,
                triangle_excess: f64::NAN,
            })?;
        body_of[root] = Some(body);
        moves[root] = true;
        push_unbounded(&mut limits, &link.name, joint.nv());
    }
    let mut queue = VecDeque::from([root]);
    while let Some(l) = queue.pop_front() {
        for &k in &children[l] {
            let j = &robot.joints[k];
            let c = child_link[k];
            let bad_axis = |_| UrdfImportError::InvalidAxis {
                joint: j.name.clone(),
                line: j.line,
            };
            let joint = match j.kind.as_str() {
                "revolute" | "continuous" => Joint::revolute(j.axis).map_err(bad_axis)?,
                "prismatic" => Joint::prismatic(j.axis).map_err(bad_axis)?,
                "fixed" => Joint::Fixed,
                "floating" => Joint::FreeFlyer,
                // not in the URDF specification; the common extension for a ball joint
                "spherical" | "ball" => Joint::Spherical,
                // motion in the plane normal to the axis: the joint frame's x–y plane
                "planar" if j.axis == [0.0, 0.0, 1.0] => Joint::Planar,
                other => {
                    return Err(UrdfImportError::UnsupportedJointType {
                        joint: j.name.clone(),
                        kind: other.to_string(),
                        line: j.line,
                    })
                }
            };
            if joint.dof() > 1 {
                if massless_below[c] {
                    return Err(UrdfImportError::MasslessSubtree {
                        joint: j.name.clone(),
                        link: j.child.clone(),
                        line: j.line,
                    });
                }
                push_unbounded(&mut limits, &j.name, joint.nv());
            }
            if joint.dof() == 1 {
                if massless_below[c] {
                    return Err(UrdfImportError::MasslessSubtree {
                        joint: j.name.clone(),
                        link: j.child.clone(),
                        line: j.line,
                    });
                }
                let (lo, hi, v, e) = joint_limit(j, options, &mut warnings)?;
                coord_of_joint[k] = Some(limits.names.len());
                limits.names.push(j.name.clone());
                limits.lower.push(lo);
                limits.upper.push(hi);
                limits.velocity.push(v);
                limits.effort.push(e);
            }
            moves[c] = moves[l] || joint.dof() > 0;
            if !j.xyz.iter().chain(j.rpy.iter()).all(|x| x.is_finite()) {
                return Err(UrdfImportError::NonFiniteOrigin {
                    joint: j.name.clone(),
                    line: j.line,
                });
            }
            let x_tree = Transform::from_pose(&rpy_to_matrix(&j.rpy), j.xyz);
            let link = &robot.links[c];
            let inertia = link_inertia(link, i_max, options, &mut warnings)?;
            if moves[c]
                && matches!(
                    warnings.last(),
                    Some(UrdfWarning { kind: UrdfWarningKind::IndefiniteInertia { .. }, element, .. })
                        if *element == link.name
                )
            {
                indefinite.push(c);
            }
            let body = tree
                .add_body(link.name.clone(), body_of[l], joint, x_tree, inertia)
                .map_err(|_| UrdfImportError::InvalidInertia {
                    link: link.name.clone(),
                    line: link.line,
                    min_moment: f64::NAN,
                    triangle_excess: f64::NAN,
                })?;
            body_of[c] = Some(body);
            reached[c] = true;
            queue.push_back(c);
        }
    }
    if let Some(l) = reached.iter().position(|r| !r) {
        return Err(UrdfImportError::Disconnected {
            link: robot.links[l].name.clone(),
            line: robot.links[l].line,
        });
    }
    if let Some(&c) = indefinite.first() {
        check_positive_definite(&tree, &robot.links[c])?;
    }
    let mimic = mimics(
        &robot.joints,
        &joint_index,
        &coord_of_joint,
        options,
        &mut warnings,
    )?;
    Ok(UrdfImport {
        tree,
        limits,
        mimic,
        warnings,
    })
}

/// The `<mimic>` couplings, chains composed (`q_m = k₁ (k₂ q_a + c₂) + c₁`).
fn mimics(
    joints: &[RawJoint],
    joint_index: &HashMap<&str, usize>,
    coord_of_joint: &[Option<usize>],
    options: &UrdfOptions,
    warnings: &mut Vec<UrdfWarning>,
) -> Result<Vec<UrdfMimic>, UrdfImportError> {
    let mut out = Vec::new();
    for (k, j) in joints.iter().enumerate() {
        match mimic_of(k, joints, joint_index, coord_of_joint) {
            Ok(Some(m)) => out.push(m),
            Ok(None) => {}
            Err(reason) if !options.strict => warnings.push(UrdfWarning {
                element: j.name.clone(),
                line: j.line,
                kind: UrdfWarningKind::IgnoredMimic { reason },
            }),
            Err(reason) => {
                return Err(UrdfImportError::InvalidMimic {
                    joint: j.name.clone(),
                    reason,
                    line: j.line,
                })
            }
        }
    }
    out.sort_by_key(|m| m.coord);
    Ok(out)
}

/// The coupling of joint `k` (`None`: it has no `<mimic>`), or why it cannot be imposed.
fn mimic_of(
    k: usize,
    joints: &[RawJoint],
    joint_index: &HashMap<&str, usize>,
    coord_of_joint: &[Option<usize>],
) -> Result<Option<UrdfMimic>, &'static str> {
    let j = &joints[k];
    let Some(m) = &j.mimic else { return Ok(None) };
    let Some(coord) = coord_of_joint[k] else {
        return Err("a fixed joint cannot mimic");
    };
    if !(m.multiplier.is_finite() && m.offset.is_finite()) {
        return Err("non-finite multiplier or offset");
    }
    let (mut multiplier, mut offset) = (m.multiplier, m.offset);
    let mut master = m.joint.as_str();
    let mut steps = 0;
    let master_k = loop {
        let Some(&a) = joint_index.get(master) else {
            return Err("the mimicked joint does not exist");
        };
        if coord_of_joint[a].is_none() {
            return Err("the mimicked joint is fixed");
        }
        steps += 1;
        if a == k || steps > joints.len() {
            return Err("the mimic joints form a cycle");
        }
        match &joints[a].mimic {
            None => break a,
            Some(next) => {
                offset += multiplier * next.offset;
                multiplier *= next.multiplier;
                master = next.joint.as_str();
            }
        }
    };
    Ok(Some(UrdfMimic {
        joint: j.name.clone(),
        coord,
        master: joints[master_k].name.clone(),
        master_coord: coord_of_joint[master_k].unwrap_or(0),
        multiplier,
        offset,
    }))
}

/// Refuses a negative or non-finite mass (and, strict, a zero mass with a non-zero tensor).
fn check_mass(
    link: &RawLink,
    options: &UrdfOptions,
    warnings: &mut Vec<UrdfWarning>,
) -> Result<(), UrdfImportError> {
    let Some(inl) = &link.inertial else {
        return Ok(());
    };
    let m = inl.mass;
    let zero_tensor = inl.inertia.iter().all(|x| *x == 0.0);
    let zero_with_tensor = m == 0.0 && !zero_tensor;
    if !m.is_finite() || m < 0.0 || (zero_with_tensor && options.strict) {
        return Err(UrdfImportError::InvalidMass {
            link: link.name.clone(),
            mass: m,
            line: link.line,
        });
    }
    if zero_with_tensor {
        warnings.push(UrdfWarning {
            element: link.name.clone(),
            line: link.line,
            kind: UrdfWarningKind::MasslessWithInertia,
        });
    }
    Ok(())
}

/// [`UrdfImportError::InvalidInertia`] for `link` unless `M` of `tree` at the zero
/// configuration is positive definite.
fn check_positive_definite(tree: &KinematicTree, link: &RawLink) -> Result<(), UrdfImportError> {
    use crate::Mechanism;
    let n = tree.dof();
    let mut m = faer::Mat::zeros(n, n);
    tree.mass_matrix(&vec![0.0; n], m.as_mut());
    if m.llt(faer::Side::Lower).is_ok() {
        return Ok(());
    }
    let p = inertia::Principal::of(&tensor(link));
    Err(UrdfImportError::InvalidInertia {
        link: link.name.clone(),
        line: link.line,
        min_moment: p.moments[0],
        triangle_excess: p.triangle_excess(),
    })
}

/// The link's spatial inertia in its frame, the tensor checked, repaired or accepted as the
/// module doc says.
fn link_inertia(
    link: &RawLink,
    i_max: f64,
    options: &UrdfOptions,
    warnings: &mut Vec<UrdfWarning>,
) -> Result<SpatialInertia, UrdfImportError> {
    check_mass(link, options, warnings)?;
    let Some(inl) = &link.inertial else {
        return Ok(SpatialInertia::default());
    };
    let mut i_in = tensor(link);
    let invalid = |min_moment: f64, triangle_excess: f64| UrdfImportError::InvalidInertia {
        link: link.name.clone(),
        line: link.line,
        min_moment,
        triangle_excess,
    };
    let finite_pose = inl.xyz.iter().chain(inl.rpy.iter()).all(|x| x.is_finite());
    if !finite_pose || !i_in.iter().flatten().all(|x| x.is_finite()) {
        return Err(invalid(f64::NAN, f64::NAN));
    }
    let warn = |kind| UrdfWarning {
        element: link.name.clone(),
        line: link.line,
        kind,
    };
    let p = inertia::Principal::of(&i_in);
    if options.strict {
        if !inertia::strictly_valid(&i_in) {
            return Err(invalid(p.moments[0], p.triangle_excess()));
        }
    } else if p.moments[0] < -1e-9 * p.moments.iter().map(|m| m.abs()).sum::<f64>() {
        // (a negative moment within 1e-9 of the tensor's own scale is the round-off of its
        // printed digits and of the eigen-decomposition: the tensor is kept as written, as
        // the strict check allows)
        if p.moments[0] >= -options.inertia_tolerance * i_max {
            i_in = p.clipped();
            warnings.push(warn(UrdfWarningKind::RepairedInertia {
                min_moment: p.moments[0],
            }));
        } else {
            warnings.push(warn(UrdfWarningKind::IndefiniteInertia {
                min_moment: p.moments[0],
            }));
        }
    } else {
        let excess = p.triangle_excess();
        let trace: f64 = p.moments.iter().sum();
        if excess > 1e-9 * trace {
            warnings.push(warn(UrdfWarningKind::TriangleInequality { excess }));
        }
    }
    let r = rpy_to_matrix(&inl.rpy);
    let i_link = mat3_mul(&r, &mat3_mul(&i_in, &mat3_transpose(&r)));
    Ok(SpatialInertia::from_mass_com_inertia(
        inl.mass, inl.xyz, i_link,
    ))
}

impl KinematicTree {
    /// [`tree_from_urdf_str`].
    pub fn from_urdf_str(s: &str) -> Result<KinematicTree, UrdfImportError> {
        tree_from_urdf_str(s)
    }
    /// [`tree_from_urdf_file`].
    pub fn from_urdf_file(path: impl AsRef<Path>) -> Result<KinematicTree, UrdfImportError> {
        tree_from_urdf_file(path)
    }
}
