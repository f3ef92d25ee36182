//! Building a [`KinematicTree`] from a URDF description (parsed with the
//! `urdf-rs` crate).
//!
//! Mapping (ROS URDF conventions, <http://wiki.ros.org/urdf/XML>):
//!
//! * the root link (the one link that is no joint's child) is the fixed base;
//!   its `<inertial>` is ignored;
//! * every `<joint>` makes its child link a body, ordered breadth-first from
//!   the root so that `parent(i) < i`; body names are the child links' names;
//! * `<origin xyz rpy>` of a joint is the tree transform: the child frame has
//!   the axes `R = R_z(y) R_y(p) R_x(r)` and origin `xyz` in the parent link
//!   frame, `X_tree = rot(Rᵀ) xlt(xyz)`;
//! * `revolute` and `continuous` → [`Joint::Revolute`] about `<axis xyz>`
//!   (default x, normalized), `prismatic` → [`Joint::Prismatic`], `fixed` →
//!   [`Joint::Fixed`]; dynamics (damping, friction), mimic and safety
//!   controllers are ignored; `floating`, `planar`, `spherical` are
//!   [`UrdfImportError::UnsupportedJointType`];
//! * `<limit lower upper velocity effort>` is imported by
//!   [`tree_and_limits_from_urdf_str`] into [`UrdfJointLimits`] (one entry per
//!   degree of freedom, in the tree's q order); a missing or zero `velocity` /
//!   `effort` means no limit (+∞), as do the position limits of a
//!   `continuous` joint and `lower = upper = 0` (the attributes' defaults);
//! * `<inertial>`: mass, centre of mass at `origin xyz`, inertia tensor about
//!   the centre of mass in the frame rotated by `origin rpy`
//!   (`I_link = R I Rᵀ`). A link without `<inertial>` is a massless frame. A
//!   negative mass is refused on every link, the root included; a movable
//!   joint whose child subtree has no mass and no inertia (M singular for
//!   every q) is refused at import ([`UrdfImportError::MasslessSubtree`]).
//! * gravity is ROS's `(0, 0, −9.81)` m/s²; change it with
//!   [`KinematicTree::set_gravity`].

use crate::spatial::{mat3_mul, mat3_transpose, rpy_to_matrix, Mat3, SpatialInertia, Transform};
use crate::tree::{Joint, KinematicTree};
use std::collections::{HashMap, VecDeque};
use std::path::Path;

/// Why a URDF description could not be turned into a [`KinematicTree`].
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
    /// The XML is malformed or does not follow the URDF schema (message of `urdf-rs`).
    #[error("malformed URDF: {message}")]
    Parse {
        /// The parser's message.
        message: String,
    },
    /// A joint type that a kinematic tree of 1-DOF joints cannot represent
    /// (`floating`, `planar`, `spherical`) or that URDF does not define.
    #[error("joint '{joint}': unsupported joint type '{kind}'")]
    UnsupportedJointType {
        /// Name of the joint (`"?"` if it could not be located).
        joint: String,
        /// The type attribute.
        kind: String,
    },
    /// A joint names a parent or child link that does not exist.
    #[error("joint '{joint}': {role} link '{link}' does not exist")]
    MissingLink {
        /// Name of the joint.
        joint: String,
        /// `"parent"` or `"child"`.
        role: &'static str,
        /// The missing link's name.
        link: String,
    },
    /// Two links have the same name.
    #[error("link '{link}' is defined twice")]
    DuplicateLink {
        /// The name.
        link: String,
    },
    /// A link is the child of more than one joint (a closed loop; URDF describes trees).
    #[error("link '{link}' is the child of more than one joint")]
    MultipleParents {
        /// The link.
        link: String,
    },
    /// Not exactly one root link.
    #[error("expected exactly one root link, found {roots:?}")]
    RootCount {
        /// The links that are no joint's child.
        roots: Vec<String>,
    },
    /// A link not connected to the root (part of a cycle).
    #[error("link '{link}' is not connected to the root")]
    Disconnected {
        /// The link.
        link: String,
    },
    /// A negative, zero (with a non-zero inertia tensor) or non-finite mass.
    #[error("link '{link}': invalid mass {mass}")]
    InvalidMass {
        /// The link.
        link: String,
        /// The mass.
        mass: f64,
    },
    /// An inertia tensor that is not positive semi-definite or violates the
    /// triangle inequalities of principal moments, or is not finite.
    #[error("link '{link}': physically invalid inertia tensor")]
    InvalidInertia {
        /// The link.
        link: String,
    },
    /// A zero or non-finite joint axis.
    #[error("joint '{joint}': zero or non-finite axis")]
    InvalidAxis {
        /// The joint.
        joint: String,
    },
    /// A non-finite origin.
    #[error("joint '{joint}': non-finite origin")]
    NonFiniteOrigin {
        /// The joint.
        joint: String,
    },
    /// A movable joint moves nothing: its child link and all links below have
    /// zero mass and zero inertia, so the mass matrix is singular for every q.
    #[error("joint '{joint}' moves only massless links (from '{link}'): the mass matrix would be singular")]
    MasslessSubtree {
        /// The joint.
        joint: String,
        /// Its child link.
        link: String,
    },
    /// A `<limit>` attribute that is negative or not finite (`velocity`,
    /// `effort`), NaN, or `lower > upper`.
    #[error("joint '{joint}': invalid limit {what} = {value}")]
    InvalidLimit {
        /// The joint.
        joint: String,
        /// `"velocity"`, `"effort"`, `"lower"` or `"upper"`.
        what: &'static str,
        /// The value.
        value: f64,
    },
}

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

fn joint_limit(j: &urdf_rs::Joint) -> Result<(f64, f64, f64, f64), UrdfImportError> {
    let l = &j.limit;
    let bad = |what: &'static str, value: f64| UrdfImportError::InvalidLimit {
        joint: j.name.clone(),
        what,
        value,
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
    let (lower, upper) = if matches!(j.joint_type, urdf_rs::JointType::Continuous)
        || (l.lower == 0.0 && l.upper == 0.0)
    {
        (f64::NEG_INFINITY, f64::INFINITY)
    } else if l.lower > l.upper {
        return Err(bad("lower", l.lower));
    } else {
        (l.lower, l.upper)
    };
    Ok((lower, upper, none(l.velocity), none(l.effort)))
}

fn massless(link: &urdf_rs::Link) -> bool {
    let t = &link.inertial.inertia;
    link.inertial.mass.value == 0.0
        && [t.ixx, t.ixy, t.ixz, t.iyy, t.iyz, t.izz]
            .iter()
            .all(|x| *x == 0.0)
}

/// Reads a URDF file ([`tree_from_urdf_str`]).
pub fn tree_from_urdf_file(path: impl AsRef<Path>) -> Result<KinematicTree, UrdfImportError> {
    let path = path.as_ref();
    let s = std::fs::read_to_string(path).map_err(|e| UrdfImportError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    tree_from_urdf_str(&s)
}

/// Finds the name of the first `<joint … type="kind" …>` element (for error messages only).
fn locate_joint_with_type(s: &str, kind: &str) -> Option<String> {
    let attr = |tag: &str, key: &str| -> Option<String> {
        for quote in ['"', '\''] {
            let pat = format!("{key}={quote}");
            if let Some(i) = tag.find(&pat) {
                let rest = &tag[i + pat.len()..];
                return rest.find(quote).map(|j| rest[..j].to_string());
            }
        }
        None
    };
    let mut rest = s;
    while let Some(i) = rest.find("<joint") {
        let tail = &rest[i..];
        let end = tail.find('>').unwrap_or(tail.len());
        let tag = &tail[..end];
        if attr(tag, " type").as_deref() == Some(kind) {
            return attr(tag, " name");
        }
        rest = &tail[end..];
    }
    None
}

fn parse_error(e: urdf_rs::UrdfError, s: &str) -> UrdfImportError {
    let message = e.to_string();
    if let Some(i) = message.find("unknown variant `") {
        let rest = &message[i + "unknown variant `".len()..];
        if let Some(j) = rest.find('`') {
            let kind = rest[..j].to_string();
            if let Some(joint) = locate_joint_with_type(s, &kind) {
                return UrdfImportError::UnsupportedJointType { joint, kind };
            }
        }
    }
    UrdfImportError::Parse { message }
}

fn inertia_is_valid(i: &Mat3) -> bool {
    let finite = i.iter().flatten().all(|x| x.is_finite());
    let (a, b, c) = (i[0][0], i[1][1], i[2][2]);
    let scale = (a.abs() + b.abs() + c.abs()).max(f64::MIN_POSITIVE);
    let tol = 1e-9 * scale;
    let minors2 = a * b - i[0][1] * i[0][1] >= -tol * scale
        && b * c - i[1][2] * i[1][2] >= -tol * scale
        && a * c - i[0][2] * i[0][2] >= -tol * scale;
    let det = a * (b * c - i[1][2] * i[2][1]) - i[0][1] * (i[1][0] * c - i[1][2] * i[2][0])
        + i[0][2] * (i[1][0] * i[2][1] - b * i[2][0]);
    finite
        && a >= -tol
        && b >= -tol
        && c >= -tol
        && minors2
        && det >= -tol * scale * scale
        && a + b >= c - tol
        && b + c >= a - tol
        && a + c >= b - tol
}

/// Builds a [`KinematicTree`] from URDF text (see the module doc for the
/// mapping). Errors name the offending element.
pub fn tree_from_urdf_str(s: &str) -> Result<KinematicTree, UrdfImportError> {
    tree_and_limits_from_urdf_str(s).map(|(t, _)| t)
}

/// [`tree_from_urdf_str`] and the joints' `<limit>` values.
pub fn tree_and_limits_from_urdf_str(
    s: &str,
) -> Result<(KinematicTree, UrdfJointLimits), UrdfImportError> {
    let robot = urdf_rs::read_from_string(s).map_err(|e| parse_error(e, s))?;
    let mut link_index = HashMap::new();
    for (k, l) in robot.links.iter().enumerate() {
        if link_index.insert(l.name.as_str(), k).is_some() {
            return Err(UrdfImportError::DuplicateLink {
                link: l.name.clone(),
            });
        }
    }
    // parent joint of every link; children of every link
    let mut parent_joint: Vec<Option<usize>> = vec![None; robot.links.len()];
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); robot.links.len()];
    for (k, j) in robot.joints.iter().enumerate() {
        let find = |role: &'static str, name: &str| {
            link_index
                .get(name)
                .copied()
                .ok_or_else(|| UrdfImportError::MissingLink {
                    joint: j.name.clone(),
                    role,
                    link: name.to_string(),
                })
        };
        let p = find("parent", &j.parent.link)?;
        let c = find("child", &j.child.link)?;
        if parent_joint[c].replace(k).is_some() {
            return Err(UrdfImportError::MultipleParents {
                link: j.child.link.clone(),
            });
        }
        children[p].push(k);
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
    link_inertia(&robot.links[root])?;
    // links whose whole subtree is massless (children before parents: reverse BFS)
    let mut order = vec![root];
    let mut k = 0;
    while k < order.len() {
        for &j in &children[order[k]] {
            order.push(link_index[robot.joints[j].child.link.as_str()]);
        }
        k += 1;
    }
    let mut massless_below = vec![false; robot.links.len()];
    for &l in order.iter().rev() {
        massless_below[l] = massless(&robot.links[l])
            && children[l]
                .iter()
                .all(|&j| massless_below[link_index[robot.joints[j].child.link.as_str()]]);
    }
    let mut limits = UrdfJointLimits {
        names: Vec::new(),
        lower: Vec::new(),
        upper: Vec::new(),
        velocity: Vec::new(),
        effort: Vec::new(),
    };
    let mut tree = KinematicTree::new(robot.name.clone());
    // body index of each link (None: the root)
    let mut body_of: Vec<Option<usize>> = vec![None; robot.links.len()];
    let mut reached = vec![false; robot.links.len()];
    reached[root] = true;
    let mut queue = VecDeque::from([root]);
    while let Some(l) = queue.pop_front() {
        for &k in &children[l] {
            let j = &robot.joints[k];
            let c = link_index[j.child.link.as_str()];
            let joint = match j.joint_type {
                urdf_rs::JointType::Revolute | urdf_rs::JointType::Continuous => {
                    Joint::revolute(j.axis.xyz.0).map_err(|_| UrdfImportError::InvalidAxis {
                        joint: j.name.clone(),
                    })?
                }
                urdf_rs::JointType::Prismatic => {
                    Joint::prismatic(j.axis.xyz.0).map_err(|_| UrdfImportError::InvalidAxis {
                        joint: j.name.clone(),
                    })?
                }
                urdf_rs::JointType::Fixed => Joint::Fixed,
                ref other => {
                    return Err(UrdfImportError::UnsupportedJointType {
                        joint: j.name.clone(),
                        kind: format!("{other:?}").to_lowercase(),
                    })
                }
            };
            if joint.dof() == 1 {
                if massless_below[c] {
                    return Err(UrdfImportError::MasslessSubtree {
                        joint: j.name.clone(),
                        link: j.child.link.clone(),
                    });
                }
                let (lo, hi, v, e) = joint_limit(j)?;
                limits.names.push(j.name.clone());
                limits.lower.push(lo);
                limits.upper.push(hi);
                limits.velocity.push(v);
                limits.effort.push(e);
            }
            let o = &j.origin;
            if !o.xyz.iter().chain(o.rpy.iter()).all(|x| x.is_finite()) {
                return Err(UrdfImportError::NonFiniteOrigin {
                    joint: j.name.clone(),
                });
            }
            let x_tree = Transform::from_pose(&rpy_to_matrix(&o.rpy.0), o.xyz.0);
            let link = &robot.links[c];
            let inertia = link_inertia(link)?;
            let body = tree
                .add_body(link.name.clone(), body_of[l], joint, x_tree, inertia)
                .map_err(|_| UrdfImportError::InvalidInertia {
                    link: link.name.clone(),
                })?;
            body_of[c] = Some(body);
            reached[c] = true;
            queue.push_back(c);
        }
    }
    if let Some(l) = reached.iter().position(|r| !r) {
        return Err(UrdfImportError::Disconnected {
            link: robot.links[l].name.clone(),
        });
    }
    Ok((tree, limits))
}

fn link_inertia(link: &urdf_rs::Link) -> Result<SpatialInertia, UrdfImportError> {
    let inl = &link.inertial;
    let m = inl.mass.value;
    let t = &inl.inertia;
    let i_in: Mat3 = [
        [t.ixx, t.ixy, t.ixz],
        [t.ixy, t.iyy, t.iyz],
        [t.ixz, t.iyz, t.izz],
    ];
    let zero_tensor = i_in.iter().flatten().all(|x| *x == 0.0);
    if !m.is_finite() || m < 0.0 || (m == 0.0 && !zero_tensor) {
        return Err(UrdfImportError::InvalidMass {
            link: link.name.clone(),
            mass: m,
        });
    }
    if !inertia_is_valid(&i_in)
        || !inl
            .origin
            .xyz
            .iter()
            .chain(inl.origin.rpy.iter())
            .all(|x| x.is_finite())
    {
        return Err(UrdfImportError::InvalidInertia {
            link: link.name.clone(),
        });
    }
    let r = rpy_to_matrix(&inl.origin.rpy.0);
    let i_link = mat3_mul(&r, &mat3_mul(&i_in, &mat3_transpose(&r)));
    Ok(SpatialInertia::from_mass_com_inertia(
        m,
        inl.origin.xyz.0,
        i_link,
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
