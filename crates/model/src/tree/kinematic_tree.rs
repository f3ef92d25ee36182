//! [`KinematicTree`]: CRBA, RNEA, forward kinematics and body-point Jacobians.

use super::data::{DataPool, TreeData};
use super::joint::{Joint, JointModel};
use crate::spatial::{
    add3, cross, dot, mat3_tvec, scale3, CentroidalInertia, Motion, SpatialInertia, Transform, Vec3,
};
use crate::validate::{check_finite, check_len};
use crate::{Mechanism, ModelError};
use faer::MatMut;
use std::sync::OnceLock;

/// A body's inertia in the form [`KinematicTree::world_inertias`] transforms.
#[derive(Debug, Clone, Copy, PartialEq)]
enum BodyInertia {
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
enum CompositeLink {
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
struct Support {
    runs: Vec<(usize, usize)>,
    /// Start of body `i`'s runs in `runs` (`n_B + 1` entries).
    start: Vec<usize>,
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
    joint_model: Vec<JointModel>,
    pub(super) x_tree: Vec<Transform>,
    pub(super) inertia: Vec<SpatialInertia>,
    /// `inertia` in the form [`KinematicTree::world_inertias`] transforms.
    centroidal: Vec<BodyInertia>,
    body_names: Vec<String>,
    pub(super) q_index: Vec<Option<usize>>,
    /// Per body: where its composite inertia goes in the CRBA.
    composite: Vec<CompositeLink>,
    /// Per body: it has children other than `i + 1` (their `I^c` sum is in `ws.ic[i]`).
    branched: Vec<bool>,
    /// Per body `p`: the child whose link is [`CompositeLink::Set`]`(p)`, if any (so that
    /// [`KinematicTree::add_body`] turns it into `Add(p)` in O(1)).
    set_child: Vec<Option<usize>>,
    /// The CRBA's support runs ([`Support`]), built by the first CRBA that uses them: their
    /// size grows with the depth of the tree, and the other algorithms need none.
    support: OnceLock<Support>,
    pub(super) dof: usize,
    pub(super) gravity: Vec3,
    /// Identifies the structure (bodies, joints, transforms, inertias) for the caches of a
    /// [`TreeData`]: a new value at every [`KinematicTree::add_body`], kept by clones.
    pub(super) id: u64,
    /// Workspaces of the [`Mechanism`] methods (see [`DataPool`]), made on first use.
    pool: DataPool,
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
            gravity: [0.0, 0.0, -9.81],
            id: super::data::next_id(),
            pool: DataPool::default(),
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
        if let Joint::Revolute { axis } | Joint::Prismatic { axis } = joint {
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
        self.dof += joint.dof();
        // O(1): the lumped tree, the support runs and the workspaces are made on first use
        self.id = super::data::next_id();
        self.lumped = OnceLock::new();
        self.support = OnceLock::new();
        self.pool = DataPool::default();
        Ok(n)
    }

    /// The lumped tree of the field's doc (`None` when every joint moves), built by the first
    /// call after the last [`KinematicTree::add_body`].
    pub(super) fn lumped(&self) -> Option<&KinematicTree> {
        self.lumped.get_or_init(|| self.build_lumped()).as_deref()
    }

    /// The support runs of every body ([`Support`]), built by the first call after the last
    /// [`KinematicTree::add_body`].
    fn support(&self) -> &Support {
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
        if self.joint.iter().all(|j| j.dof() == 1) {
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
    /// Coordinate index of body `i`'s joint (`None` for a fixed joint).
    pub fn q_index(&self, i: usize) -> Option<usize> {
        self.q_index[i]
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
        check_len("q", q, self.dof)?;
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
        let mut d = TreeData::new(self.n_bodies(), self.dof, self.id);
        d.lumped = self.lumped().map(|l| Box::new(l.data()));
        d
    }

    /// Runs `f` on a workspace of the tree's own pool (the [`Mechanism`] methods, which
    /// take no workspace); the pool's workspaces are sized for this tree on first use.
    pub(crate) fn with_data<R>(&self, f: impl FnOnce(&mut TreeData) -> R) -> R {
        self.pool.with(
            || self.data(),
            |ws| {
                if ws.owner != self.id {
                    *ws = self.data();
                }
                f(ws)
            },
        )
    }

    /// Makes `data` this tree's: a workspace of another tree with the same sizes has its
    /// caches invalidated, one of other sizes is [`ModelError::DimensionMismatch`].
    pub(crate) fn adopt(&self, data: &mut TreeData) -> Result<(), ModelError> {
        if data.owner == self.id {
            return Ok(());
        }
        for (what, expected, found) in [
            ("tree data (bodies)", self.n_bodies(), data.xup.len()),
            ("tree data (coordinates)", self.dof, data.q_key.len()),
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

    /// Forward kinematics into `ws`: `X_up`, `⁰X_i`, `⁰X_i⁻¹ S_i`, and, when
    /// `qd` is given, the velocities `v_i = v_λ + ⁰S_i q̇_i` and the velocity-product
    /// accelerations `a_i = a_λ + v_i × ⁰S_i q̇_i` (q̈ = 0, no gravity) in world coordinates
    /// (RBDA Table 5.1's first lines in one common frame, as in [`KinematicTree::rnea`]: no
    /// joint transform), which give `J̇ q̇` for body points.
    pub(crate) fn kinematics(&self, ws: &mut TreeData, q: &[f64], qd: Option<&[f64]>) {
        self.up_transforms(ws, q);
        if !ws.x0_ok {
            // `prev` is `⁰X_{i−1}` in registers: in a chain (`λ(i) = i − 1`) the parent's
            // transform is not read back from the store just made.
            let mut prev = Transform::IDENTITY;
            for i in 0..self.n_bodies() {
                let x0 = match self.parent[i] {
                    Some(p) if p + 1 == i => ws.xup[i].compose(&prev),
                    Some(p) => ws.xup[i].compose(&ws.x0[p]),
                    None => ws.xup[i],
                };
                ws.s_world[i] = self.joint_model[i].subspace_in(&x0);
                ws.x0[i] = x0;
                prev = x0;
            }
            ws.x0_ok = true;
            ws.iw_ok = false;
        }
        if let Some(qd) = qd {
            for i in 0..self.n_bodies() {
                let vj = self.qi(i, qd) * ws.s_world[i];
                let (vp, ap) = match self.parent[i] {
                    Some(p) => (ws.v[p], ws.a[p]),
                    None => (Motion::ZERO, Motion::ZERO),
                };
                let v = vp + vj;
                ws.a[i] = ap + v.cross_motion(&vj);
                ws.v[i] = v;
            }
        }
    }

    /// `X_up(i) = X_J(q_i) X_T(i)` for every body into `ws` (the first line of RBDA Tables 5.1,
    /// 6.2 and 7.1), unless `ws` already holds them for this `q`, bit for bit: CRBA, RNEA, ABA
    /// and the closures' kinematics at one state then share one pass over the joints (one
    /// `sin_cos` per revolute joint per state instead of one per algorithm). The values are
    /// the same either way; `add_body` invalidates the cache.
    pub(crate) fn up_transforms(&self, ws: &mut TreeData, q: &[f64]) {
        let same = ws.xup_ok
            && ws.q_key.len() <= q.len()
            && ws
                .q_key
                .iter()
                .zip(q)
                .all(|(a, b)| a.to_bits() == b.to_bits());
        if same {
            return;
        }
        for i in 0..self.n_bodies() {
            ws.xup[i] = self.joint_model[i].up_transform(self.qi(i, q), &self.x_tree[i]);
        }
        for (k, v) in ws.q_key.iter_mut().zip(q) {
            *k = *v;
        }
        ws.xup_ok = true;
        ws.x0_ok = false;
    }

    /// The body inertias in world coordinates, `⁰I_i = ⁰X_iᵀ I_i ⁰X_i` (RBDA (2.66) with
    /// `⁰X_i`), into `ws.iw` after the forward kinematics, unless `ws` holds them for this `q`:
    /// CRBA and RNEA at one state transform each body's inertia once, from its form about the
    /// centre of mass ([`CentroidalInertia::transform_transpose`]: `⁰c = ⁰r + Eᵀ c`,
    /// `⁰I_c = Eᵀ I_c E`, then the parallel-axis term).
    pub(super) fn world_inertias(&self, ws: &mut TreeData, q: &[f64]) {
        self.kinematics(ws, q, None);
        if !ws.iw_ok {
            for i in 0..self.n_bodies() {
                let x = &ws.x0[i];
                ws.iw[i] = match &self.centroidal[i] {
                    BodyInertia::Zero => SpatialInertia::default(),
                    BodyInertia::About(c) => c.transform_transpose(x),
                    BodyInertia::General => self.inertia[i].transform_transpose(x),
                };
            }
            ws.iw_ok = true;
        }
    }

    /// RNEA into `tau` (RBDA Table 5.1): `τ = M q̈ + C q̇ + g-terms`, with `q̈ = 0` when `qdd`
    /// is `None`, gravity included, every quantity in world (base) coordinates — the same
    /// frame and the same `⁰S_i`, `⁰I_i` as [`KinematicTree::crba`], so `M` and `h` at one
    /// state share one forward pass and one inertia transform per body:
    ///
    /// ```text
    /// v_i = v_λ + ⁰S_i q̇_i,   a_i = a_λ + ⁰S_i q̈_i + v_i × ⁰S_i q̇_i   (a_0 = −a_g),
    /// f_i = ⁰I_i a_i + v_i ×* ⁰I_i v_i,   τ_i = ⁰S_iᵀ f_i,   f_λ += f_i,
    /// ```
    ///
    /// Table 5.1's lines with `ⁱX_λ` replaced by the identity of one common frame
    /// (`⁰Ṡ_i = v_i × ⁰S_i` for a subspace fixed in body `i`), as in Pinocchio's
    /// world-frame RNEA. No joint transform in either pass. `ws.v`, `ws.a`, `ws.f` are left
    /// in world coordinates (the closures' kinematics recompute theirs without gravity).
    fn rnea(&self, ws: &mut TreeData, q: &[f64], qd: &[f64], qdd: Option<&[f64]>, tau: &mut [f64]) {
        if let (Some(l), Some(d)) = (self.lumped(), ws.lumped.as_deref_mut()) {
            return l.rnea(d, q, qd, qdd, tau);
        }
        let a_root = Motion::new([0.0; 3], scale3(-1.0, &self.gravity));
        self.world_inertias(ws, q);
        for i in 0..self.n_bodies() {
            let s = ws.s_world[i];
            let vj = self.qi(i, qd) * s;
            let (vp, ap) = match self.parent[i] {
                Some(p) => (ws.v[p], ws.a[p]),
                None => (Motion::ZERO, a_root),
            };
            let v = vp + vj;
            let mut a = ap + v.cross_motion(&vj);
            if let Some(qdd) = qdd {
                a += self.qi(i, qdd) * s;
            }
            let inertia = &ws.iw[i];
            ws.f[i] = inertia.apply(&a) + v.cross_force(&inertia.apply(&v));
            ws.v[i] = v;
            ws.a[i] = a;
        }
        for i in (0..self.n_bodies()).rev() {
            if let Some(k) = self.q_index[i] {
                tau[k] = ws.s_world[i].dot(&ws.f[i]);
            }
            if let Some(p) = self.parent[i] {
                let fi = ws.f[i];
                ws.f[p] += fi;
            }
        }
    }

    /// CRBA into `m` (RBDA Table 6.2) in world coordinates: the upper triangle and the
    /// diagonal, and the strictly lower triangle too when `fill` is [`Triangles::Both`].
    ///
    /// `H_ij = S_jᵀ X* I^c_i S_i` is frame invariant, so with the composite inertias summed in
    /// world coordinates, `I^c_i = Σ_{k ∈ subtree(i)} ⁰X_kᵀ I_k ⁰X_k`, and the world motion
    /// subspaces `⁰S_i = ⁰X_i⁻¹ S_i`, every entry is a dot product,
    /// `H_ji = ⁰S_j · (I^c_i ⁰S_i)` for `j` an ancestor of `i` (no force transform per pair,
    /// as in Pinocchio's CRBA), and `H_ji = 0` for the other `j < i`. Column `i` above the
    /// diagonal is written from the support runs of body `i` (RBDA §6.2: only the ancestors
    /// `λ(i), λ(λ(i)), …` give non-zero entries), in one contiguous pass.
    fn crba(&self, ws: &mut TreeData, q: &[f64], mut m: MatMut<'_, f64>, fill: Triangles) {
        if let (Some(l), Some(d)) = (self.lumped(), ws.lumped.as_deref_mut()) {
            return l.crba(d, q, m, fill);
        }
        self.world_inertias(ws, q);
        // Every body moves (no lumped form was needed): body `i` is coordinate `i`.
        let by_column = self.dof == self.n_bodies();
        let n = self.dof;
        if !by_column {
            m.fill(0.0);
        } else if ws.h.len() != n * n {
            // the first CRBA on this workspace: `M`'s buffer, zeroed (see `TreeData::h`)
            ws.h.clear();
            ws.h.resize(n * n, 0.0);
        }
        // One backward pass: `I^c_i` is complete when body `i` is reached (its children have
        // larger indices), so column `i` of `H` follows at once. `next` carries `I^c_{i+1}` in
        // registers when `λ(i+1) = i` (a chain); other children leave theirs in `ws.ic`.
        let mut next: Option<SpatialInertia> = None;
        let support = by_column.then(|| self.support());
        for i in (0..self.n_bodies()).rev() {
            let mut ic = ws.iw[i];
            if self.branched[i] {
                ic += ws.ic[i];
            }
            if let Some(n) = next.take() {
                ic += n;
            }
            match self.composite[i] {
                CompositeLink::Base => {}
                CompositeLink::Chain => next = Some(ic),
                CompositeLink::Set(p) => ws.ic[p] = ic,
                CompositeLink::Add(p) => ws.ic[p] += ic,
            }
            let Some(k) = self.q_index[i] else { continue };
            let s = &ws.s_world[i];
            let f = ic.apply(s);
            if let Some(support) = support {
                // `ws.h` is `M` column-major; its entries off the support runs stay zero
                let h = &mut ws.h;
                h[k * n + k] = s.dot(&f);
                for &(a, b) in &support.runs[support.start[i]..support.start[i + 1]] {
                    let col = &mut h[k * n + a..k * n + b];
                    for (hj, sj) in col.iter_mut().zip(&ws.s_world[a..b]) {
                        *hj = sj.dot(&f);
                    }
                    if fill == Triangles::Both {
                        for j in a..b {
                            h[j * n + k] = h[k * n + j];
                        }
                    }
                }
                continue;
            }
            m[(k, k)] = s.dot(&f);
            let mut j = i;
            while let Some(p) = self.parent[j] {
                j = p;
                if let Some(kj) = self.q_index[j] {
                    let hij = ws.s_world[j].dot(&f);
                    m[(kj, k)] = hij;
                    if fill == Triangles::Both {
                        m[(k, kj)] = hij;
                    }
                }
            }
        }
        if by_column {
            copy_columns(&ws.h, n, m, fill);
        }
    }

    /// Inverse dynamics `τ = RNEA(q, q̇, q̈) = M q̈ + h` (gravity included): see
    /// [`KinematicTree::inverse_dynamics_with`].
    pub fn inverse_dynamics(
        &self,
        q: &[f64],
        qd: &[f64],
        qdd: &[f64],
        tau: &mut [f64],
    ) -> Result<(), ModelError> {
        self.with_data(|ws| self.inverse_dynamics_with(ws, q, qd, qdd, tau))
    }

    /// Inverse dynamics `τ = RNEA(q, q̇, q̈) = M q̈ + h` (gravity included, RBDA Table 5.1)
    /// on a caller-owned workspace (Pinocchio's `rnea(model, data, q, v, a)`).
    ///
    /// Errors: [`ModelError::DimensionMismatch`] and [`ModelError::NonFinite`] for the
    /// arguments and for `data` of another tree's sizes; [`ModelError::NonFinite`] with
    /// `what = "tau"` when finite arguments overflow (`q̇ = 1e200`).
    pub fn inverse_dynamics_with(
        &self,
        data: &mut TreeData,
        q: &[f64],
        qd: &[f64],
        qdd: &[f64],
        tau: &mut [f64],
    ) -> Result<(), ModelError> {
        self.check_q(q)?;
        self.check_qd(qd)?;
        check_len("qdd", qdd, self.dof)?;
        check_finite("qdd", qdd)?;
        check_len("tau", tau, self.dof)?;
        self.adopt(data)?;
        self.rnea(data, q, qd, Some(qdd), tau);
        check_finite("tau", tau)
    }

    /// The mass matrix `M(q)` by the CRBA (RBDA Table 6.2) into `m`, every entry written
    /// (both triangles), on a caller-owned workspace.
    ///
    /// Errors: [`ModelError::DimensionMismatch`] and [`ModelError::NonFinite`] for `q`, `m`'s
    /// shape and `data` of another tree's sizes.
    pub fn mass_matrix_with(
        &self,
        data: &mut TreeData,
        q: &[f64],
        m: MatMut<'_, f64>,
    ) -> Result<(), ModelError> {
        self.check_q(q)?;
        check_mat("mass matrix", &m, self.dof, self.dof)?;
        self.adopt(data)?;
        self.crba(data, q, m, Triangles::Both);
        Ok(())
    }

    /// The upper triangle of the mass matrix `M(q)` (the diagonal and every entry above it)
    /// by the CRBA into `m`; the strictly lower triangle of `m` is not written, as in
    /// Pinocchio's `crba` (for a Cholesky factorization that reads one triangle, e.g.
    /// faer's `llt(Side::Upper)`). The entries written equal those of
    /// [`KinematicTree::mass_matrix_with`] bit for bit. Errors as that method's.
    pub fn mass_matrix_upper_with(
        &self,
        data: &mut TreeData,
        q: &[f64],
        m: MatMut<'_, f64>,
    ) -> Result<(), ModelError> {
        self.check_q(q)?;
        check_mat("mass matrix", &m, self.dof, self.dof)?;
        self.adopt(data)?;
        self.crba(data, q, m, Triangles::Upper);
        Ok(())
    }

    /// The bias forces `h(q, q̇) = RNEA(q, q̇, 0)` (gravity included) on a caller-owned
    /// workspace. Errors as [`KinematicTree::inverse_dynamics_with`] (`what = "h"`).
    pub fn bias_forces_with(
        &self,
        data: &mut TreeData,
        q: &[f64],
        qd: &[f64],
        h: &mut [f64],
    ) -> Result<(), ModelError> {
        self.check_q(q)?;
        self.check_qd(qd)?;
        check_len("h", h, self.dof)?;
        self.adopt(data)?;
        self.rnea(data, q, qd, None, h);
        check_finite("h", h)
    }

    // ---- queries on a workspace filled by `kinematics` -------------------

    /// World position `r + Eᵀ p` of body point `p`.
    pub(crate) fn ws_point_position(&self, ws: &TreeData, body: usize, p: &Vec3) -> Vec3 {
        ws.x0[body].inv_apply_point(p)
    }

    /// World rotation `R = Eᵀ` of body `body` (columns: body axes in world coordinates).
    pub(crate) fn ws_rotation(&self, ws: &TreeData, body: usize) -> crate::spatial::Mat3 {
        crate::spatial::mat3_transpose(&ws.x0[body].rot)
    }

    /// World velocity of body point `p`: `v_O + ω × P` with the world spatial velocity
    /// `[ω; v_O]` of `kinematics` and `P` the point's world position.
    pub(crate) fn ws_point_velocity(&self, ws: &TreeData, body: usize, p: &Vec3) -> Vec3 {
        let v = &ws.v[body];
        let pw = self.ws_point_position(ws, body, p);
        add3(&v.lin, &cross(&v.ang, &pw))
    }

    /// `J̇ q̇` of body point `p` (world): `a_O + ω̇ × P + ω × (v_O + ω × P)` with the world
    /// velocity-product accelerations of `kinematics` and `P` the point's world position.
    pub(crate) fn ws_point_accel_bias(&self, ws: &TreeData, body: usize, p: &Vec3) -> Vec3 {
        let (v, a) = (&ws.v[body], &ws.a[body]);
        let pw = self.ws_point_position(ws, body, p);
        let vp = add3(&v.lin, &cross(&v.ang, &pw));
        add3(&add3(&a.lin, &cross(&a.ang, &pw)), &cross(&v.ang, &vp))
    }

    /// World angular velocity of `body`.
    pub(crate) fn ws_angular_velocity(&self, ws: &TreeData, body: usize) -> Vec3 {
        ws.v[body].ang
    }

    /// World angular `J̇ q̇` of `body` (the velocity-product part of `ω̇`).
    pub(crate) fn ws_angular_accel_bias(&self, ws: &TreeData, body: usize) -> Vec3 {
        ws.a[body].ang
    }

    /// `J[row0 + r, k] += sign · (J_p)_{r k}` for the point Jacobian
    /// `J_p = ∂(world position of p)/∂q`: column `k` of an ancestor joint is
    /// `s_lin + s_ang × P` with `⁰S = [s_ang; s_lin]` and `P` the world point.
    pub(crate) fn ws_add_point_jacobian(
        &self,
        ws: &TreeData,
        body: usize,
        p: &Vec3,
        sign: f64,
        j: &mut MatMut<'_, f64>,
        row0: usize,
    ) {
        self.ws_add_point_jacobian_axes(ws, body, p, sign, j, row0, &[0, 1, 2]);
    }

    /// [`KinematicTree::ws_add_point_jacobian`] for the world axes `axes` only: row
    /// `row0 + m` receives axis `axes[m]` (a planar closure keeps x and y).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn ws_add_point_jacobian_axes(
        &self,
        ws: &TreeData,
        body: usize,
        p: &Vec3,
        sign: f64,
        j: &mut MatMut<'_, f64>,
        row0: usize,
        axes: &[usize],
    ) {
        let pw = self.ws_point_position(ws, body, p);
        let mut b = Some(body);
        while let Some(i) = b {
            if let Some(k) = self.q_index[i] {
                let s = &ws.s_world[i];
                let col = add3(&s.lin, &cross(&s.ang, &pw));
                for (m, &r) in axes.iter().enumerate() {
                    j[(row0 + m, k)] += sign * col[r];
                }
            }
            b = self.parent[i];
        }
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
                    Joint::Fixed => true,
                }
        })
    }

    /// `J[row, k] += sign · w · (J_ω)_{·k}` for the angular-velocity Jacobian
    /// `J_ω` of `body` (world coordinates).
    pub(crate) fn ws_add_angular_jacobian(
        &self,
        ws: &TreeData,
        body: usize,
        w: &Vec3,
        sign: f64,
        j: &mut MatMut<'_, f64>,
        row: usize,
    ) {
        let mut b = Some(body);
        while let Some(i) = b {
            if let Some(k) = self.q_index[i] {
                j[(row, k)] += sign * dot(w, &ws.s_world[i].ang);
            }
            b = self.parent[i];
        }
    }

    // ---- public, validated queries ----------------------------------------

    /// The shared frame of the queries below: checks `q` (and `q̇`) and `body`, runs the
    /// forward kinematics (with velocities when `qd` is given) and reads the workspace.
    fn query<R>(
        &self,
        q: &[f64],
        qd: Option<&[f64]>,
        body: usize,
        read: impl FnOnce(&TreeData) -> R,
    ) -> Result<R, ModelError> {
        self.check_q(q)?;
        if let Some(qd) = qd {
            self.check_qd(qd)?;
        }
        self.check_body(body)?;
        Ok(self.with_data(|ws| {
            self.kinematics(ws, q, qd);
            read(ws)
        }))
    }

    /// `⁰X_body`: the transform from the base (world) frame to `body`'s frame.
    pub fn body_transform(&self, q: &[f64], body: usize) -> Result<Transform, ModelError> {
        self.query(q, None, body, |ws| ws.x0[body])
    }

    /// World position of the point with body coordinates `p` \[m\].
    pub fn point_position(&self, q: &[f64], body: usize, p: Vec3) -> Result<Vec3, ModelError> {
        self.query(q, None, body, |ws| self.ws_point_position(ws, body, &p))
    }

    /// World velocity `J_p(q) q̇` of body point `p` \[m/s\].
    pub fn point_velocity(
        &self,
        q: &[f64],
        qd: &[f64],
        body: usize,
        p: Vec3,
    ) -> Result<Vec3, ModelError> {
        self.query(q, Some(qd), body, |ws| self.ws_point_velocity(ws, body, &p))
    }

    /// `J̇_p q̇`: the world acceleration of body point `p` when `q̈ = 0` \[m/s²\].
    pub fn point_accel_bias(
        &self,
        q: &[f64],
        qd: &[f64],
        body: usize,
        p: Vec3,
    ) -> Result<Vec3, ModelError> {
        self.query(q, Some(qd), body, |ws| {
            self.ws_point_accel_bias(ws, body, &p)
        })
    }

    /// Point Jacobian `J_p = ∂(world position of p)/∂q` (3×N) into `j`.
    pub fn point_jacobian(
        &self,
        q: &[f64],
        body: usize,
        p: Vec3,
        j: MatMut<'_, f64>,
    ) -> Result<(), ModelError> {
        self.jacobian_query("point jacobian", q, body, j, |ws, j| {
            self.ws_add_point_jacobian(ws, body, &p, 1.0, j, 0);
        })
    }

    /// Angular-velocity Jacobian `J_ω` of `body` (3×N, world coordinates) into `j`.
    pub fn angular_jacobian(
        &self,
        q: &[f64],
        body: usize,
        j: MatMut<'_, f64>,
    ) -> Result<(), ModelError> {
        self.jacobian_query("angular jacobian", q, body, j, |ws, j| {
            for r in 0..3 {
                let mut e = [0.0; 3];
                e[r] = 1.0;
                self.ws_add_angular_jacobian(ws, body, &e, 1.0, j, r);
            }
        })
    }

    /// The shared frame of the 3×N Jacobian queries: checks `q`, `body` and the shape of `j`,
    /// runs the forward kinematics, zeroes `j` and lets `add` accumulate into it.
    fn jacobian_query(
        &self,
        what: &'static str,
        q: &[f64],
        body: usize,
        mut j: MatMut<'_, f64>,
        add: impl FnOnce(&TreeData, &mut MatMut<'_, f64>),
    ) -> Result<(), ModelError> {
        self.check_q(q)?;
        self.check_body(body)?;
        check_mat(what, &j, 3, self.dof)?;
        self.with_data(|ws| {
            self.kinematics(ws, q, None);
            j.fill(0.0);
            add(ws, &mut j);
        });
        Ok(())
    }

    /// World angular velocity `ω` and angular `J̇_ω q̇` of `body`.
    pub fn angular_velocity_and_bias(
        &self,
        q: &[f64],
        qd: &[f64],
        body: usize,
    ) -> Result<(Vec3, Vec3), ModelError> {
        self.query(q, Some(qd), body, |ws| {
            (
                self.ws_angular_velocity(ws, body),
                self.ws_angular_accel_bias(ws, body),
            )
        })
    }

    fn kinetic(&self, q: &[f64], qd: &[f64]) -> f64 {
        self.with_data(|ws| {
            self.world_inertias(ws, q);
            self.kinematics(ws, q, Some(qd));
            (0..self.n_bodies())
                .map(|i| ws.iw[i].kinetic_energy(&ws.v[i]))
                .sum()
        })
    }

    fn potential(&self, q: &[f64]) -> f64 {
        self.with_data(|ws| {
            self.kinematics(ws, q, None);
            // V = −Σ g · (m_i r_i + E_iᵀ h_i) = −Σ m_i g · c_i
            (0..self.n_bodies())
                .map(|i| {
                    let x = &ws.x0[i];
                    let mc = add3(
                        &scale3(self.inertia[i].mass, &x.trans),
                        &mat3_tvec(&x.rot, &self.inertia[i].h),
                    );
                    -dot(&self.gravity, &mc)
                })
                .sum()
        })
    }
}

fn check_mat(
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

/// `M` from the column-major `h` (`n × n`) into `m`: every entry, or the diagonal and the
/// entries above it ([`Triangles::Upper`]); one slice copy per column when `m`'s columns are
/// contiguous.
fn copy_columns(h: &[f64], n: usize, mut m: MatMut<'_, f64>, fill: Triangles) {
    let rows = |j: usize| if fill == Triangles::Both { n } else { j + 1 };
    match m.as_mut().try_as_col_major_mut() {
        Some(mut m) => {
            for (j, src) in h.chunks_exact(n).enumerate() {
                let r = rows(j);
                m.as_mut().col_mut(j).as_slice_mut()[..r].copy_from_slice(&src[..r]);
            }
        }
        None => {
            for (j, src) in h.chunks_exact(n).enumerate() {
                for i in 0..rows(j) {
                    m[(i, j)] = src[i];
                }
            }
        }
    }
}

/// Which triangles of the symmetric `M(q)` a CRBA writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Triangles {
    /// Every entry.
    Both,
    /// The diagonal and the entries above it; the strictly lower triangle is left as it was.
    Upper,
}

impl Mechanism for KinematicTree {
    fn name(&self) -> &str {
        &self.name
    }
    fn dof(&self) -> usize {
        self.dof
    }
    fn mass_matrix(&self, q: &[f64], m: MatMut<'_, f64>) {
        self.with_data(|ws| self.crba(ws, q, m, Triangles::Both));
    }
    fn bias_forces(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
        self.with_data(|ws| self.rnea(ws, q, qd, None, h));
    }
    fn kinetic_energy(&self, q: &[f64], qd: &[f64]) -> Option<f64> {
        Some(self.kinetic(q, qd))
    }
    fn potential_energy(&self, q: &[f64]) -> Option<f64> {
        Some(self.potential(q))
    }
    fn fast_forward_dynamics(
        &self,
        q: &[f64],
        qd: &[f64],
        tau: &[f64],
        qdd: &mut [f64],
    ) -> Option<Result<(), ModelError>> {
        Some(self.forward_dynamics(q, qd, tau, qdd))
    }
    fn fast_inverse_dynamics(
        &self,
        q: &[f64],
        qd: &[f64],
        qdd: &[f64],
        tau: &mut [f64],
    ) -> Option<()> {
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
        self.with_data(|ws| self.path_terms(ws, q, dq_ds, d2q_ds2, a, b, c));
        Some(())
    }
}
