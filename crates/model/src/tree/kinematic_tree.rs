//! [`KinematicTree`]: the structure (bodies, joints, tree transforms, inertias), `add_body`,
//! the accessors, the workspaces and the [`Mechanism`] impl; each algorithm has its own file
//! (`kinematics`, `rnea`, `crba`, `aba`, `jacobians`, `energies`, `path_terms`).

use super::crba::Triangles;
use super::data::TreeData;
use super::joint::{Joint, JointModel};
use crate::pool::Pool;
use crate::spatial::{CentroidalInertia, SpatialInertia, Transform, Vec3};
use crate::validate::{check_finite, check_len};
use crate::{Mechanism, ModelError};
use faer::MatMut;
use std::sync::OnceLock;

/// A body's inertia in the form [`KinematicTree::world_inertias`] transforms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum BodyInertia {
    /// Zero (a massless frame): zero in every frame.
    Zero,
    /// About the centre of mass (RBDA (2.63)).
    About(CentroidalInertia),
    /// Massless with a first moment (no centre of mass): the body-frame [`SpatialInertia`].
    General,
}

/// Where the CRBA's backward pass sends the composite inertia `I^c_i` of body `i`
/// (`I^c_λ(i) += I^c_i`, RBDA Table 6.2), so that a chain needs no store and no zeroed sums.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CompositeLink {
    /// `λ(i)` is the base: nowhere.
    Base,
    /// `λ(i) = i − 1`: carried in registers to the next body of the pass.
    Chain,
    /// `λ(i) = p ≠ i − 1`, the first such child of `p` the pass reaches (the largest index):
    /// `ws.ic[p] = I^c_i`.
    Set(usize),
    /// `λ(i) = p ≠ i − 1`, a later such child: `ws.ic[p] += I^c_i`.
    Add(usize),
}

/// Per body `i`: its moving ancestors as runs `a..b` of consecutive body indices,
/// `runs[start[i]..start[i + 1]]` in increasing order (Featherstone's support set `κ(i)`
/// without `i`, RBDA §6.2), so that the CRBA walks only the bodies of `λ(i), λ(λ(i)), …` and
/// writes zeros over the gaps (a chain is one run `0..i`).
#[derive(Debug, Clone)]
pub(super) struct Support {
    pub(super) runs: Vec<(usize, usize)>,
    /// Start of body `i`'s runs in `runs` (`n_B + 1` entries).
    pub(super) start: Vec<usize>,
}

/// A kinematic tree with a fixed base: bodies `0..n_B`, `parent(i) < i`
/// (`None` = the base), a [`Joint`] and a tree transform `X_tree(i)`
/// (parent frame → joint predecessor frame) per body, spatial inertias in body
/// coordinates and a uniform gravity field (spatial_v2's model structure).
///
/// Implements [`Mechanism`] with `L = 0`:
/// `M(q)` by the composite-rigid-body algorithm (RBDA Table 6.2) and
/// `h(q, q̇) = RNEA(q, q̇, 0)` including gravity (RBDA Table 5.1),
/// `T = ½ Σ v_iᵀ I_i v_i`, `V = −Σ m_i g·c_i`.
///
/// Coordinates: one per non-fixed joint, in body order
/// ([`KinematicTree::q_index`]). No call allocates: scratch lives in a caller-owned
/// [`TreeData`] (the `…_with` methods) or in the tree's thread-safe pool (the [`Mechanism`]
/// methods), so the tree is `Sync`.
#[derive(Debug, Clone)]
pub struct KinematicTree {
    name: String,
    pub(super) parent: Vec<Option<usize>>,
    pub(super) joint: Vec<Joint>,
    /// `joint` with the axis classified, for the recursive algorithms.
    pub(super) joint_model: Vec<JointModel>,
    pub(super) x_tree: Vec<Transform>,
    pub(super) inertia: Vec<SpatialInertia>,
    /// `inertia` in the form [`KinematicTree::world_inertias`] transforms.
    pub(super) centroidal: Vec<BodyInertia>,
    body_names: Vec<String>,
    pub(super) q_index: Vec<Option<usize>>,
    /// Per body: where its composite inertia goes in the CRBA.
    pub(super) composite: Vec<CompositeLink>,
    /// Per body: it has children other than `i + 1` (their `I^c` sum is in `ws.ic[i]`).
    pub(super) branched: Vec<bool>,
    /// Per body `p`: the child whose link is [`CompositeLink::Set`]`(p)`, if any (so that
    /// [`KinematicTree::add_body`] turns it into `Add(p)` in O(1)).
    set_child: Vec<Option<usize>>,
    /// The CRBA's support runs ([`Support`]), built by the first CRBA that uses them: their
    /// size grows with the depth of the tree, and the other algorithms need none.
    support: OnceLock<Support>,
    pub(super) dof: usize,
    /// Number of configuration coordinates `nq` (`= dof` unless a joint has `nq ≠ nv`).
    pub(super) nq: usize,
    /// Per body: the first of its joint's configuration coordinates (Pinocchio's `idx_q`).
    pub(super) idx_q: Vec<usize>,
    /// Per body: the first of its joint's velocity coordinates (Pinocchio's `idx_v`).
    pub(super) idx_v: Vec<usize>,
    /// The columns of every joint's `S` (child coordinates), body `i`'s at
    /// `idx_v[i]..idx_v[i] + nv_i`.
    pub(super) s_cols: Vec<crate::spatial::Motion>,
    /// Some joint has `nq ≠ nv` or more than one degree of freedom: the algorithms take their
    /// general path ([`super::multi`]).
    pub(super) multi: bool,
    pub(super) gravity: Vec3,
    /// Identifies the structure (bodies, joints, transforms, inertias) for the caches of a
    /// [`TreeData`]: a new value at every [`KinematicTree::add_body`], kept by clones.
    pub(super) id: u64,
    /// Workspaces of the [`Mechanism`] methods ([`Pool`]; the pristine one is empty and each is
    /// sized for the tree on first use).
    pool: Pool<TreeData>,
    /// The tree the dynamics run on when some bodies hang on fixed joints: every such body
    /// merged into the nearest moving ancestor (its inertia moved into that body's frame,
    /// `I_a += X_{a→d}ᵀ I_d X_{a→d}`, RBDA (2.66)), or dropped when fixed joints lead to the
    /// base (it never moves), and the fixed chains composed into the tree transforms, as
    /// Pinocchio's URDF import does. The same coordinates in the same order, so `M`, `h`,
    /// RNEA and ABA are those of this tree to round-off; the kinematic queries and the
    /// closures keep every body. `None` when no body has a fixed joint. Built on first use
    /// ([`KinematicTree::lumped`]), so that adding a body stays O(1).
    lumped: OnceLock<Option<Box<KinematicTree>>>,
}

impl KinematicTree {
    /// An empty tree with spatial_v2's default gravity `g = (0, 0, −9.81)` m/s².
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            parent: Vec::new(),
            joint: Vec::new(),
            joint_model: Vec::new(),
            x_tree: Vec::new(),
            inertia: Vec::new(),
            centroidal: Vec::new(),
            body_names: Vec::new(),
            q_index: Vec::new(),
            composite: Vec::new(),
            branched: Vec::new(),
            set_child: Vec::new(),
            support: OnceLock::new(),
            dof: 0,
            nq: 0,
            idx_q: Vec::new(),
            idx_v: Vec::new(),
            s_cols: Vec::new(),
            multi: false,
            gravity: [0.0, 0.0, -9.81],
            id: super::data::next_id(),
            pool: Pool::new(TreeData::default()),
            lumped: OnceLock::new(),
        }
    }

    /// Appends body `n_B` (returned) attached to `parent` (`None`: the base)
    /// by `joint`, with tree transform `x_tree` (parent frame → joint frame)
    /// and spatial inertia `inertia` in body coordinates.
    ///
    /// Errors: [`ModelError::UnknownBody`] for a parent that does not exist
    /// yet, [`ModelError::NonFinite`] for non-finite data,
    /// [`ModelError::InvalidParameter`] for a negative mass.
    pub fn add_body(
        &mut self,
        name: impl Into<String>,
        parent: Option<usize>,
        joint: Joint,
        x_tree: Transform,
        inertia: SpatialInertia,
    ) -> Result<usize, ModelError> {
        let n = self.parent.len();
        if let Some(p) = parent {
            if p >= n {
                return Err(ModelError::UnknownBody {
                    body: p,
                    n_bodies: n,
                });
            }
        }
        let xt: Vec<f64> = x_tree
            .rot
            .iter()
            .flatten()
            .chain(x_tree.trans.iter())
            .copied()
            .collect();
        check_finite("x_tree", &xt)?;
        if !inertia.is_finite() {
            return Err(ModelError::NonFinite {
                what: "inertia",
                index: n,
            });
        }
        if let Joint::Revolute { axis }
        | Joint::Prismatic { axis }
        | Joint::RevoluteUnbounded { axis } = joint
        {
            check_finite("joint axis", &axis)?;
        }
        if inertia.mass < 0.0 {
            return Err(ModelError::InvalidParameter {
                what: "mass",
                value: inertia.mass,
            });
        }
        self.parent.push(parent);
        self.joint.push(joint);
        self.joint_model.push(JointModel::from(&joint));
        self.x_tree.push(x_tree);
        self.inertia.push(inertia);
        self.centroidal
            .push(if inertia == SpatialInertia::default() {
                BodyInertia::Zero
            } else {
                CentroidalInertia::from_spatial(&inertia)
                    .map_or(BodyInertia::General, BodyInertia::About)
            });
        self.body_names.push(name.into());
        self.q_index.push((joint.dof() == 1).then_some(self.dof));
        let link = match parent {
            None => CompositeLink::Base,
            Some(p) if p + 1 == n => CompositeLink::Chain,
            Some(p) => {
                // The pass runs over decreasing indices: this child is now the first.
                if let Some(c) = self.set_child[p].replace(n) {
                    self.composite[c] = CompositeLink::Add(p);
                }
                self.branched[p] = true;
                CompositeLink::Set(p)
            }
        };
        self.composite.push(link);
        self.branched.push(false);
        self.set_child.push(None);
        self.idx_q.push(self.nq);
        self.idx_v.push(self.dof);
        let nv = joint.nv();
        self.s_cols
            .extend(std::iter::repeat_n(crate::spatial::Motion::ZERO, nv));
        let _ = joint.motion_subspace_into(&mut self.s_cols[self.dof..]);
        self.multi |= matches!(self.joint_model[n], JointModel::Multi);
        self.nq += joint.nq();
        self.dof += nv;
        // O(1): the lumped tree, the support runs and the workspaces are made on first use
        self.id = super::data::next_id();
        self.lumped = OnceLock::new();
        self.support = OnceLock::new();
        self.pool = Pool::new(TreeData::default());
        Ok(n)
    }

    /// The lumped tree of the field's doc (`None` when every joint moves), built by the first
    /// call after the last [`KinematicTree::add_body`].
    pub(super) fn lumped(&self) -> Option<&KinematicTree> {
        self.lumped.get_or_init(|| self.build_lumped()).as_deref()
    }

    /// The support runs of every body ([`Support`]), built by the first call after the last
    /// [`KinematicTree::add_body`].
    pub(super) fn support(&self) -> &Support {
        self.support.get_or_init(|| {
            let mut s = Support {
                runs: Vec::new(),
                start: Vec::with_capacity(self.n_bodies() + 1),
            };
            s.start.push(0);
            for (n, parent) in self.parent.iter().enumerate() {
                if let Some(p) = *parent {
                    // κ(n) \ {n} = κ(p): p's runs, then p itself when its joint moves
                    s.runs.extend_from_within(s.start[p]..s.start[p + 1]);
                    if self.joint[p].dof() == 1 {
                        let own = s.runs.len() > s.start[n];
                        match s.runs.last_mut() {
                            Some(last) if own && last.1 == p => last.1 = p + 1,
                            _ => s.runs.push((p, p + 1)),
                        }
                    }
                }
                s.start.push(s.runs.len());
            }
            s
        })
    }

    /// The tree of [`KinematicTree::lumped`]'s doc, `None` when every joint moves.
    fn build_lumped(&self) -> Option<Box<KinematicTree>> {
        // the general path of a tree with multi-dof joints handles fixed joints itself
        if self.multi || self.joint.iter().all(|j| j.dof() == 1) {
            return None;
        }
        let nb = self.n_bodies();
        // per body: the lumped body it is rigidly part of (`None`: the base) and the transform
        // from that body's frame to its own (`None`: identity)
        let mut anchor: Vec<Option<usize>> = vec![None; nb];
        let mut from_anchor: Vec<Option<Transform>> = vec![None; nb];
        let mut count = 0;
        let mut extra: Vec<Option<SpatialInertia>> = Vec::new();
        for i in 0..nb {
            let (a, x) = self.parent[i].map_or((None, None), |p| (anchor[p], from_anchor[p]));
            let xt = x.map_or(self.x_tree[i], |x| self.x_tree[i].compose(&x));
            if self.joint[i].dof() == 1 {
                anchor[i] = Some(count);
                count += 1;
                extra.push(None);
            } else {
                anchor[i] = a;
                from_anchor[i] = Some(xt);
                if let Some(a) = a {
                    if self.inertia[i] != SpatialInertia::default() {
                        let moved = self.inertia[i].transform_transpose(&xt);
                        extra[a] = Some(extra[a].map_or(moved, |e| e + moved));
                    }
                }
            }
        }
        let mut t = KinematicTree::new(self.name.clone());
        t.gravity = self.gravity;
        for i in (0..nb).filter(|&i| self.joint[i].dof() == 1) {
            let (a, x) = self.parent[i].map_or((None, None), |p| (anchor[p], from_anchor[p]));
            let xt = x.map_or(self.x_tree[i], |x| self.x_tree[i].compose(&x));
            let k = anchor[i]?;
            let inertia = extra[k].map_or(self.inertia[i], |e| self.inertia[i] + e);
            t.add_body(self.body_names[i].clone(), a, self.joint[i], xt, inertia)
                .ok()?;
        }
        Some(Box::new(t))
    }

    /// spatial_v2 `planar(n)`: an `n`-link planar chain of revolute joints
    /// about z, unit link lengths along x (`X_tree = xlt(1, 0, 0)` after the
    /// first), unit masses, centre of mass at mid-link, rotational inertia
    /// 1/12 about it (a thin rod: `diag(0, 1/12, 1/12)`), and **no gravity**.
    pub fn planar(n: usize) -> Self {
        Self::planar_with_gravity(n, 0.0)
    }

    /// [`KinematicTree::planar`] with gravity `g` \[m/s²\] along −y (in the plane of motion).
    pub fn planar_with_gravity(n: usize, g: f64) -> Self {
        let mut t = Self::new(format!("planar({n})"));
        t.gravity = [0.0, -g, 0.0];
        let i = SpatialInertia::from_mass_com_inertia(
            1.0,
            [0.5, 0.0, 0.0],
            [
                [0.0, 0.0, 0.0],
                [0.0, 1.0 / 12.0, 0.0],
                [0.0, 0.0, 1.0 / 12.0],
            ],
        );
        for k in 0..n {
            let xt = if k == 0 {
                Transform::IDENTITY
            } else {
                Transform::translation([1.0, 0.0, 0.0])
            };
            let parent = k.checked_sub(1);
            // constant, valid data: add_body cannot fail here (tested by every planar model)
            #[allow(clippy::expect_used)]
            t.add_body(format!("link{}", k + 1), parent, Joint::RZ, xt, i)
                .expect("valid planar data");
        }
        t
    }

    /// Replaces the name.
    pub fn set_name(&mut self, name: impl Into<String>) {
        self.name = name.into();
    }
    /// Gravity `g` \[m/s²\] in base coordinates.
    pub fn gravity(&self) -> Vec3 {
        self.gravity
    }
    /// Sets gravity `g` \[m/s²\] in base coordinates (`a_g = [0; g]`).
    pub fn set_gravity(&mut self, g: Vec3) {
        self.gravity = g;
        if let Some(Some(l)) = self.lumped.get_mut() {
            l.gravity = g;
        }
    }
    /// Builder form of [`KinematicTree::set_gravity`].
    #[must_use]
    pub fn with_gravity(mut self, g: Vec3) -> Self {
        self.set_gravity(g);
        self
    }
    /// Number of bodies `n_B` (the base excluded).
    pub fn n_bodies(&self) -> usize {
        self.parent.len()
    }
    /// Parent of body `i` (`None`: the base). Panics if `i ≥ n_B`.
    pub fn parent(&self, i: usize) -> Option<usize> {
        self.parent[i]
    }
    /// Joint of body `i`.
    pub fn joint(&self, i: usize) -> &Joint {
        &self.joint[i]
    }
    /// Tree transform of body `i`.
    pub fn x_tree(&self, i: usize) -> &Transform {
        &self.x_tree[i]
    }
    /// Spatial inertia of body `i` (body coordinates).
    pub fn inertia(&self, i: usize) -> &SpatialInertia {
        &self.inertia[i]
    }
    /// Name of body `i`.
    pub fn body_name(&self, i: usize) -> &str {
        &self.body_names[i]
    }
    /// Index of the body named `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.body_names.iter().position(|n| n == name)
    }
    /// Coordinate index of body `i`'s joint when it has one degree of freedom (`None` for a
    /// fixed joint and the multi-dof kinds; see [`KinematicTree::idx_q`],
    /// [`KinematicTree::idx_v`]).
    pub fn q_index(&self, i: usize) -> Option<usize> {
        self.q_index[i]
    }
    /// The first configuration coordinate of body `i`'s joint (Pinocchio's `idx_q`; its
    /// `nq` coordinates follow). Panics if `i ≥ n_B`.
    pub fn idx_q(&self, i: usize) -> usize {
        self.idx_q[i]
    }
    /// The first velocity coordinate of body `i`'s joint (Pinocchio's `idx_v`).
    pub fn idx_v(&self, i: usize) -> usize {
        self.idx_v[i]
    }
    /// Number of configuration coordinates `nq` (Pinocchio's `model.nq`).
    pub fn nq(&self) -> usize {
        self.nq
    }
    /// Number of velocity coordinates `nv` (degrees of freedom, Pinocchio's `model.nv`;
    /// [`Mechanism::dof`]).
    pub fn nv(&self) -> usize {
        self.dof
    }
    /// [`ModelError::ConfigurationNotVelocity`] when `nq ≠ nv`: `what` needs one coordinate
    /// vector for both.
    pub fn require_nq_eq_nv(&self, what: &'static str) -> Result<(), ModelError> {
        if self.nq == self.dof {
            Ok(())
        } else {
            Err(ModelError::ConfigurationNotVelocity {
                what,
                nq: self.nq,
                nv: self.dof,
            })
        }
    }
    /// Total mass `Σ m_i` \[kg\].
    pub fn total_mass(&self) -> f64 {
        self.inertia.iter().map(|i| i.mass).sum()
    }

    pub(crate) fn check_body(&self, body: usize) -> Result<(), ModelError> {
        if body < self.n_bodies() {
            Ok(())
        } else {
            Err(ModelError::UnknownBody {
                body,
                n_bodies: self.n_bodies(),
            })
        }
    }

    pub(crate) fn check_q(&self, q: &[f64]) -> Result<(), ModelError> {
        check_len("q", q, self.nq)?;
        check_finite("q", q)
    }

    pub(crate) fn check_qd(&self, qd: &[f64]) -> Result<(), ModelError> {
        check_len("qd", qd, self.dof)?;
        check_finite("qd", qd)
    }

    #[inline]
    pub(crate) fn qi(&self, i: usize, q: &[f64]) -> f64 {
        self.q_index[i].map_or(0.0, |k| q[k])
    }

    /// A workspace for this tree's algorithms (Pinocchio's `model.createData()`): the
    /// per-body scratch that [`KinematicTree::mass_matrix_with`] and the other `…_with`
    /// methods fill. One per thread; the tree itself is shared by reference.
    pub fn data(&self) -> TreeData {
        let mut d = TreeData::new(self.n_bodies(), self.nq, self.id);
        if self.multi {
            d.size_multi(self.dof);
        }
        d.lumped = self.lumped().map(|l| Box::new(l.data()));
        d
    }

    /// Runs `f` on a workspace of the tree's own pool (the [`Mechanism`] methods, which
    /// take no workspace); the pool's workspaces are sized for this tree on first use.
    pub(crate) fn with_data<R>(&self, f: impl FnOnce(&mut TreeData) -> R) -> R {
        self.pool.with(|ws| {
            if ws.owner != self.id {
                *ws = self.data();
            }
            f(ws)
        })
    }

    /// Makes `data` this tree's: a workspace of another tree with the same sizes has its
    /// caches invalidated, one of other sizes is [`ModelError::DimensionMismatch`].
    pub(crate) fn adopt(&self, data: &mut TreeData) -> Result<(), ModelError> {
        if data.owner == self.id {
            return Ok(());
        }
        for (what, expected, found) in [
            ("tree data (bodies)", self.n_bodies(), data.xup.len()),
            ("tree data (coordinates)", self.nq, data.q_key.len()),
            (
                "tree data (velocities)",
                if self.multi { self.dof } else { 0 },
                data.v_u.len(),
            ),
        ] {
            if expected != found {
                return Err(ModelError::DimensionMismatch {
                    what,
                    expected,
                    found,
                });
            }
        }
        match (self.lumped(), &mut data.lumped) {
            (Some(l), Some(d)) => l.adopt(d)?,
            (None, None) => {}
            (l, _) => {
                return Err(ModelError::DimensionMismatch {
                    what: "tree data (bodies on moving joints)",
                    expected: l.map_or(self.n_bodies(), |l| l.n_bodies()),
                    found: data.lumped.as_ref().map_or(data.xup.len(), |d| d.xup.len()),
                })
            }
        }
        data.invalidate();
        data.owner = self.id;
        Ok(())
    }

    /// Whether every body moves in the world xy-plane: revolute axes along ±z, prismatic
    /// axes in the plane, and every tree transform a rotation about z. Then world z of every
    /// body point and the x and y components of every body orientation are constant.
    pub fn is_planar_xy(&self) -> bool {
        let rot_about_z = |r: &crate::spatial::Mat3| {
            r[0][2] == 0.0 && r[1][2] == 0.0 && r[2][0] == 0.0 && r[2][1] == 0.0 && r[2][2] == 1.0
        };
        self.joint.iter().zip(&self.x_tree).all(|(jt, xt)| {
            rot_about_z(&xt.rot)
                && match jt {
                    Joint::Revolute { axis } => axis[0] == 0.0 && axis[1] == 0.0,
                    Joint::Prismatic { axis } => axis[2] == 0.0,
                    Joint::RevoluteUnbounded { axis } => axis[0] == 0.0 && axis[1] == 0.0,
                    Joint::Planar | Joint::Fixed => true,
                    Joint::Spherical | Joint::FreeFlyer => false,
                }
        })
    }
}

pub(super) fn check_mat(
    what: &'static str,
    j: &MatMut<'_, f64>,
    rows: usize,
    cols: usize,
) -> Result<(), ModelError> {
    if j.nrows() != rows {
        return Err(ModelError::DimensionMismatch {
            what,
            expected: rows,
            found: j.nrows(),
        });
    }
    if j.ncols() != cols {
        return Err(ModelError::DimensionMismatch {
            what,
            expected: cols,
            found: j.ncols(),
        });
    }
    Ok(())
}

impl Mechanism for KinematicTree {
    fn name(&self) -> &str {
        &self.name
    }
    fn dof(&self) -> usize {
        self.dof
    }
    // A tree with nq ≠ nv is no `Mechanism`: the trait's q has `dof` = nv entries, which is
    // no configuration of it. The refusal is a typed error on the fallible path:
    // `validate` returns `ConfigurationNotVelocity`, and every driver runs it before the first
    // evaluation (`ConstrainedDynamics`, `consistent_state`, `ConstrainedTree::new`);
    // `fast_forward_dynamics` returns the same error itself. The infallible methods
    // (`mass_matrix`, `bias_forces`, `fast_inverse_dynamics`, `fast_path_coefficients`) have
    // no error channel and no right answer for such a q: they write NaN, never a number for a
    // q read at the wrong offsets, so a caller that skipped `validate` fails its own
    // finiteness check instead of running on wrong values. The tree's own `…_with` methods
    // take q (nq) and v (nv) and serve nq ≠ nv.
    fn validate(&self) -> Result<(), ModelError> {
        self.require_nq_eq_nv("a kinematic tree as a Mechanism")
    }
    fn mass_matrix(&self, q: &[f64], mut m: MatMut<'_, f64>) {
        if self.multi {
            return m.fill(f64::NAN);
        }
        self.with_data(|ws| self.crba(ws, q, m, Triangles::Both));
    }
    fn bias_forces(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
        if self.multi {
            return h.fill(f64::NAN);
        }
        self.with_data(|ws| self.rnea(ws, q, qd, None, h));
    }
    fn kinetic_energy(&self, q: &[f64], qd: &[f64]) -> Option<f64> {
        (!self.multi).then(|| self.kinetic(q, qd))
    }
    fn potential_energy(&self, q: &[f64]) -> Option<f64> {
        (!self.multi).then(|| self.potential(q))
    }
    fn fast_forward_dynamics(
        &self,
        q: &[f64],
        qd: &[f64],
        tau: &[f64],
        qdd: &mut [f64],
    ) -> Option<Result<(), ModelError>> {
        if self.multi {
            return Some(self.require_nq_eq_nv("forward dynamics of a Mechanism"));
        }
        Some(self.forward_dynamics(q, qd, tau, qdd))
    }
    fn fast_inverse_dynamics(
        &self,
        q: &[f64],
        qd: &[f64],
        qdd: &[f64],
        tau: &mut [f64],
    ) -> Option<()> {
        if self.multi {
            tau.fill(f64::NAN);
            return Some(());
        }
        self.with_data(|ws| self.rnea_body(ws, q, qd, qdd, tau));
        Some(())
    }
    fn fast_path_coefficients(
        &self,
        q: &[f64],
        dq_ds: &[f64],
        d2q_ds2: &[f64],
        a: &mut [f64],
        b: &mut [f64],
        c: &mut [f64],
    ) -> Option<()> {
        if self.multi {
            for x in [a, b, c] {
                x.fill(f64::NAN);
            }
            return Some(());
        }
        self.with_data(|ws| self.path_terms(ws, q, dq_ds, d2q_ds2, a, b, c));
        Some(())
    }
}
