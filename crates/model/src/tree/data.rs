//! [`TreeData`], the caller-owned workspace of a kinematic tree; the tree's
//! [`crate::Mechanism`] methods (which take none) borrow theirs from a [`crate::pool::Pool`].

use crate::spatial::{ArticulatedInertia, Force, Motion, SpatialInertia, Transform};
use std::sync::atomic::{AtomicU64, Ordering};

/// A fresh structure id for [`KinematicTree`] (ids start at 1; 0 marks a default `TreeData`).
pub(crate) fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The per-body scratch of a [`KinematicTree`]'s recursive algorithms: Pinocchio's `Data`,
/// RigidBodyDynamics.jl's `MechanismState`. Made by [`KinematicTree::data`], owned by the
/// caller and passed `&mut` to the `…_with` methods, so the tree stays immutable and `Sync`
/// and one tree serves many threads, each with its own `TreeData`. No call allocates.
///
/// It caches the transforms of the last `q` (bit for bit): CRBA, RNEA and ABA at one state
/// share one pass over the joints. A `TreeData` used with another tree of the same sizes has
/// its caches reset; one of other sizes is refused.
#[derive(Debug, Clone, Default)]
pub struct TreeData {
    /// The tree whose caches these are ([`KinematicTree`]'s structure id).
    pub(crate) owner: u64,
    /// The workspace of the tree's lumped form (bodies on fixed joints merged), if it has one.
    pub(crate) lumped: Option<Box<TreeData>>,
    /// `X_up(i) = X_J(q_i) X_tree(i)` (parent → body `i`).
    pub(crate) xup: Vec<Transform>,
    /// `⁰X_i`: base (world) → body `i`.
    pub(crate) x0: Vec<Transform>,
    /// Body velocities `v_i`: world coordinates after `kinematics` and RNEA, body
    /// coordinates after ABA.
    pub(crate) v: Vec<Motion>,
    /// Body accelerations `a_i` (same frames as `v`).
    pub(crate) a: Vec<Motion>,
    /// Body forces `f_i` (RNEA).
    pub(crate) f: Vec<Force>,
    /// CRBA: the sum of the composite inertias `I^c_j` of the children `j` of body `i` other
    /// than `i + 1` (valid for the bodies with such children, see [`CompositeLink`]).
    pub(crate) ic: Vec<SpatialInertia>,
    /// CRBA: `M` column-major (`N × N`), allocated (zeroed) by the first CRBA that uses it,
    /// empty until then: building a tree and the other algorithms stay O(N) in memory. Only
    /// the entries of ancestor pairs and the diagonal are ever written, so the others stay
    /// zero from the start (Pinocchio's `data.M`).
    pub(crate) h: Vec<f64>,
    /// Body inertias in world coordinates, `⁰X_iᵀ I_i ⁰X_i` (CRBA and RNEA), valid when `iw_ok`.
    pub(crate) iw: Vec<SpatialInertia>,
    /// Motion subspaces in world coordinates, `⁰X_i⁻¹ S_i`.
    pub(crate) s_world: Vec<Motion>,
    /// Articulated-body inertias `I^A_i` (ABA).
    pub(crate) ia: Vec<ArticulatedInertia>,
    /// Articulated bias forces `p^A_i` (ABA).
    pub(crate) pa: Vec<Force>,
    /// `U_i = I^A_i S_i` (ABA).
    pub(crate) uu: Vec<Force>,
    /// `D_i = S_iᵀ U_i` and `u_i = τ_i − S_iᵀ p^A_i` (ABA).
    pub(crate) du: Vec<[f64; 2]>,
    /// ABA of a tree with multi-dof joints, per velocity coordinate `k` of body `i`'s block:
    /// `U_k = I^A_i S_k` (empty for other trees).
    pub(crate) v_u: Vec<Force>,
    /// Row `k` of the Cholesky factor `L` of body `i`'s `D_i = S_iᵀ U_i = L Lᵀ`.
    pub(crate) v_l: Vec<[f64; 6]>,
    /// `u_k = τ_k − S_kᵀ p^A_i`.
    pub(crate) v_rhs: Vec<f64>,
    /// The velocity-product accelerations `c_i` of ABA (multi-dof trees).
    pub(crate) c: Vec<Motion>,
    /// The `q` (length nq) at which `xup` was computed, valid when `xup_ok`.
    pub(crate) q_key: Vec<f64>,
    /// `xup` holds `X_up(q_key)`.
    pub(crate) xup_ok: bool,
    /// `x0` and `s_world` belong to the current `xup`.
    pub(crate) x0_ok: bool,
    /// `iw` belongs to the current `x0`.
    pub(crate) iw_ok: bool,
}

impl TreeData {
    /// Sized for `nb` bodies and `dof` configuration coordinates, caches empty; O(`nb` + `dof`) memory (the
    /// CRBA's `N × N` buffer is made on first use).
    pub(crate) fn new(nb: usize, dof: usize, owner: u64) -> Self {
        Self {
            owner,
            lumped: None,
            xup: vec![Transform::IDENTITY; nb],
            x0: vec![Transform::IDENTITY; nb],
            v: vec![Motion::ZERO; nb],
            a: vec![Motion::ZERO; nb],
            f: vec![Force::ZERO; nb],
            ic: vec![SpatialInertia::default(); nb],
            h: Vec::new(),
            iw: vec![SpatialInertia::default(); nb],
            s_world: vec![Motion::ZERO; nb],
            ia: vec![ArticulatedInertia::default(); nb],
            pa: vec![Force::ZERO; nb],
            uu: vec![Force::ZERO; nb],
            du: vec![[0.0; 2]; nb],
            v_u: Vec::new(),
            v_l: Vec::new(),
            v_rhs: Vec::new(),
            c: Vec::new(),
            q_key: vec![f64::NAN; dof],
            xup_ok: false,
            x0_ok: false,
            iw_ok: false,
        }
    }

    /// Sizes the storage of the general (multi-dof) algorithms for `nv` velocity coordinates.
    pub(crate) fn size_multi(&mut self, nv: usize) {
        self.v_u = vec![Force::ZERO; nv];
        self.v_l = vec![[0.0; 6]; nv];
        self.v_rhs = vec![0.0; nv];
        self.c = vec![Motion::ZERO; self.xup.len()];
    }

    /// Forgets the cached state, and zeroes `h` (another tree of the same sizes has other
    /// ancestor pairs).
    pub(crate) fn invalidate(&mut self) {
        self.xup_ok = false;
        self.x0_ok = false;
        self.iw_ok = false;
        self.h.fill(0.0);
    }
}
