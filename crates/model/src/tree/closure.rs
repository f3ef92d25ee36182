//! Loop closures as constraint rows on a [`KinematicTree`].

use super::kinematic_tree::{KinematicTree, TreeWorkspace};
use crate::spatial::{
    add3, cross, dot, mat3_identity, mat3_mul, mat3_transpose, mat3_tvec, sub3, Mat3, Vec3,
};
use crate::validate::check_finite;
use crate::{Mechanism, ModelError};
use faer::MatMut;

/// A loop-closure constraint on a tree (positions in world coordinates).
///
/// | variant | rows | `φ` |
/// |---|---|---|
/// | `PointAtWorld` | 3 | `p_A(q) − target` (a spherical joint to the ground) |
/// | `PointToPoint` | 3 | `p_A(q) − p_B(q)` (a spherical joint between bodies) |
/// | `Weld` | 6 | `p_A − p_B` and the orientation rows below |
///
/// Orientation rows of a weld: with world axes `a_k = R_A e_k` of body A and
/// `b'_k = R_B R₀ᵀ e_k` of body B (or the world) turned back by the assembly
/// rotation `R₀ = R_Aᵀ R_B`, `φ = (a₁·b'₂, a₂·b'₀, a₀·b'₁)` (cyclic pairs),
/// which vanishes when the relative orientation equals `R₀`. Then
/// `φ̇ = (a_i × b'_j)·(ω_A − ω_B)`, so `J = (a_i × b'_j)ᵀ (J_ωA − J_ωB)` and
/// `ρ = [(ω_A × a_i) × b'_j + a_i × (ω_B × b'_j)]·(ω_A − ω_B) + (a_i × b'_j)·(α_A − α_B)`
/// with `α` the angular `J̇ q̇`. The rows are independent for relative
/// rotations below 90° (at the assembly rotation `J` is `−(J_ωB − J_ωA)`,
/// up to row order).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Closure {
    /// Body point (body coordinates) held at a world point.
    PointAtWorld {
        /// Body index.
        body: usize,
        /// Point in body coordinates \[m\].
        point: Vec3,
        /// World point \[m\].
        target: Vec3,
    },
    /// A point of body A held at a point of body B.
    PointToPoint {
        /// Body A.
        body_a: usize,
        /// Point of A (A-coordinates) \[m\].
        point_a: Vec3,
        /// Body B.
        body_b: usize,
        /// Point of B (B-coordinates) \[m\].
        point_b: Vec3,
    },
    /// Body A rigidly welded to body B (`None`: the world).
    Weld {
        /// Body A.
        body_a: usize,
        /// Point of A (A-coordinates) \[m\].
        point_a: Vec3,
        /// Body B, or `None` for the world.
        body_b: Option<usize>,
        /// Point of B (B- or world coordinates) \[m\].
        point_b: Vec3,
        /// Assembly rotation `R₀ = R_Aᵀ R_B` (row-major).
        rotation: Mat3,
    },
}

impl Closure {
    /// Number of constraint rows (3 or 6).
    pub fn rows(&self) -> usize {
        match self {
            Closure::Weld { .. } => 6,
            _ => 3,
        }
    }

    /// Holds body point `point` at its world position in configuration `q`.
    pub fn point_at_current_position(
        tree: &KinematicTree,
        q: &[f64],
        body: usize,
        point: Vec3,
    ) -> Result<Closure, ModelError> {
        let target = tree.point_position(q, body, point)?;
        Ok(Closure::PointAtWorld {
            body,
            point,
            target,
        })
    }

    /// Joins `point_a` of body A to the point of body B that coincides with
    /// it in configuration `q`.
    pub fn point_to_point_at(
        tree: &KinematicTree,
        q: &[f64],
        body_a: usize,
        point_a: Vec3,
        body_b: usize,
    ) -> Result<Closure, ModelError> {
        let pw = tree.point_position(q, body_a, point_a)?;
        let xb = tree.body_transform(q, body_b)?;
        Ok(Closure::PointToPoint {
            body_a,
            point_a,
            body_b,
            point_b: xb.apply_point(&pw),
        })
    }

    /// Welds body A (at `point_a`) to body B (`None`: the world) in the
    /// relative pose they have in configuration `q`.
    pub fn weld_at(
        tree: &KinematicTree,
        q: &[f64],
        body_a: usize,
        point_a: Vec3,
        body_b: Option<usize>,
    ) -> Result<Closure, ModelError> {
        let pw = tree.point_position(q, body_a, point_a)?;
        let ea = tree.body_transform(q, body_a)?.rot;
        let (point_b, eb) = match body_b {
            Some(b) => {
                let xb = tree.body_transform(q, b)?;
                (xb.apply_point(&pw), xb.rot)
            }
            None => (pw, mat3_identity()),
        };
        // R₀ = R_Aᵀ R_B = E_A E_Bᵀ
        Ok(Closure::Weld {
            body_a,
            point_a,
            body_b,
            point_b,
            rotation: mat3_mul(&ea, &mat3_transpose(&eb)),
        })
    }

    fn bodies(&self) -> [Option<usize>; 2] {
        match *self {
            Closure::PointAtWorld { body, .. } => [Some(body), None],
            Closure::PointToPoint { body_a, body_b, .. } => [Some(body_a), Some(body_b)],
            Closure::Weld { body_a, body_b, .. } => [Some(body_a), body_b],
        }
    }
}

/// The cyclic index pairs `(i, j)` of the weld's orientation rows.
const PAIRS: [(usize, usize); 3] = [(1, 2), (2, 0), (0, 1)];

/// A kinematic tree with loop closures: a [`Mechanism`] with
/// `L = Σ rows` constraint rows, `φ`, `J = ∂φ/∂q` and `ρ = J̇ q̇` from the
/// tree's point kinematics (scleronomic: `b = 0`). `M`, `h` and the energies
/// are the tree's.
#[derive(Debug, Clone)]
pub struct ConstrainedTree {
    tree: KinematicTree,
    closures: Vec<Closure>,
    rows: usize,
}

impl ConstrainedTree {
    /// Tree plus closures; [`ModelError::UnknownBody`] if a closure names a
    /// body the tree does not have, [`ModelError::NonFinite`] for non-finite points.
    pub fn new(tree: KinematicTree, closures: Vec<Closure>) -> Result<Self, ModelError> {
        for c in &closures {
            for b in c.bodies().into_iter().flatten() {
                tree.check_body(b)?;
            }
            let data: Vec<f64> = match c {
                Closure::PointAtWorld { point, target, .. } => [*point, *target].concat(),
                Closure::PointToPoint {
                    point_a, point_b, ..
                } => [*point_a, *point_b].concat(),
                Closure::Weld {
                    point_a,
                    point_b,
                    rotation,
                    ..
                } => [*point_a, *point_b, rotation[0], rotation[1], rotation[2]].concat(),
            };
            check_finite("closure data", &data)?;
        }
        let rows = closures.iter().map(Closure::rows).sum();
        Ok(Self {
            tree,
            closures,
            rows,
        })
    }
    /// The tree.
    pub fn tree(&self) -> &KinematicTree {
        &self.tree
    }
    /// The closures, in row order.
    pub fn closures(&self) -> &[Closure] {
        &self.closures
    }

    fn weld_axes(
        &self,
        ws: &TreeWorkspace,
        body_a: usize,
        body_b: Option<usize>,
        rotation: &Mat3,
    ) -> ([Vec3; 3], [Vec3; 3]) {
        let ra = self.tree.ws_rotation(ws, body_a);
        let rb = body_b.map_or(mat3_identity(), |b| self.tree.ws_rotation(ws, b));
        // a_k = R_A e_k (column k); b'_k = R_B R₀ᵀ e_k = R_B (row k of R₀)
        let ra_t = mat3_transpose(&ra);
        let a = [ra_t[0], ra_t[1], ra_t[2]];
        let rbt = mat3_transpose(&rb);
        let b = [
            mat3_tvec(&rbt, &rotation[0]),
            mat3_tvec(&rbt, &rotation[1]),
            mat3_tvec(&rbt, &rotation[2]),
        ];
        (a, b)
    }
}

impl Mechanism for ConstrainedTree {
    fn name(&self) -> &str {
        self.tree.name()
    }
    fn dof(&self) -> usize {
        self.tree.dof()
    }
    fn n_constraints(&self) -> usize {
        self.rows
    }
    fn mass_matrix(&self, q: &[f64], m: MatMut<'_, f64>) {
        self.tree.mass_matrix(q, m)
    }
    fn bias_forces(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
        self.tree.bias_forces(q, qd, h)
    }
    fn kinetic_energy(&self, q: &[f64], qd: &[f64]) -> Option<f64> {
        self.tree.kinetic_energy(q, qd)
    }
    fn potential_energy(&self, q: &[f64]) -> Option<f64> {
        self.tree.potential_energy(q)
    }

    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        let t = &self.tree;
        let mut ws = t.workspace();
        t.kinematics(&mut ws, q, None);
        let mut r = 0;
        for c in &self.closures {
            match *c {
                Closure::PointAtWorld {
                    body,
                    point,
                    target,
                } => {
                    let p = sub3(&t.ws_point_position(&ws, body, &point), &target);
                    phi[r..r + 3].copy_from_slice(&p);
                }
                Closure::PointToPoint {
                    body_a,
                    point_a,
                    body_b,
                    point_b,
                } => {
                    let p = sub3(
                        &t.ws_point_position(&ws, body_a, &point_a),
                        &t.ws_point_position(&ws, body_b, &point_b),
                    );
                    phi[r..r + 3].copy_from_slice(&p);
                }
                Closure::Weld {
                    body_a,
                    point_a,
                    body_b,
                    point_b,
                    rotation,
                } => {
                    let pb = body_b.map_or(point_b, |b| t.ws_point_position(&ws, b, &point_b));
                    let p = sub3(&t.ws_point_position(&ws, body_a, &point_a), &pb);
                    phi[r..r + 3].copy_from_slice(&p);
                    let (a, b) = self.weld_axes(&ws, body_a, body_b, &rotation);
                    for (k, (i, j)) in PAIRS.iter().enumerate() {
                        phi[r + 3 + k] = dot(&a[*i], &b[*j]);
                    }
                }
            }
            r += c.rows();
        }
    }

    fn constraint_jacobian(&self, _t: f64, q: &[f64], mut j: MatMut<'_, f64>) {
        let t = &self.tree;
        let mut ws = t.workspace();
        t.kinematics(&mut ws, q, None);
        j.fill(0.0);
        let mut r = 0;
        for c in &self.closures {
            match *c {
                Closure::PointAtWorld { body, point, .. } => {
                    t.ws_add_point_jacobian(&ws, body, &point, 1.0, &mut j, r);
                }
                Closure::PointToPoint {
                    body_a,
                    point_a,
                    body_b,
                    point_b,
                } => {
                    t.ws_add_point_jacobian(&ws, body_a, &point_a, 1.0, &mut j, r);
                    t.ws_add_point_jacobian(&ws, body_b, &point_b, -1.0, &mut j, r);
                }
                Closure::Weld {
                    body_a,
                    point_a,
                    body_b,
                    point_b,
                    rotation,
                } => {
                    t.ws_add_point_jacobian(&ws, body_a, &point_a, 1.0, &mut j, r);
                    if let Some(b) = body_b {
                        t.ws_add_point_jacobian(&ws, b, &point_b, -1.0, &mut j, r);
                    }
                    let (a, bp) = self.weld_axes(&ws, body_a, body_b, &rotation);
                    for (k, (i, jj)) in PAIRS.iter().enumerate() {
                        let w = cross(&a[*i], &bp[*jj]);
                        t.ws_add_angular_jacobian(&ws, body_a, &w, 1.0, &mut j, r + 3 + k);
                        if let Some(b) = body_b {
                            t.ws_add_angular_jacobian(&ws, b, &w, -1.0, &mut j, r + 3 + k);
                        }
                    }
                }
            }
            r += c.rows();
        }
    }

    fn constraint_accel_bias(&self, _t: f64, q: &[f64], qd: &[f64], rho: &mut [f64]) {
        let t = &self.tree;
        let mut ws = t.workspace();
        t.kinematics(&mut ws, q, Some(qd));
        let mut r = 0;
        for c in &self.closures {
            match *c {
                Closure::PointAtWorld { body, point, .. } => {
                    let a = t.ws_point_accel_bias(&ws, body, &point);
                    rho[r..r + 3].copy_from_slice(&a);
                }
                Closure::PointToPoint {
                    body_a,
                    point_a,
                    body_b,
                    point_b,
                } => {
                    let a = sub3(
                        &t.ws_point_accel_bias(&ws, body_a, &point_a),
                        &t.ws_point_accel_bias(&ws, body_b, &point_b),
                    );
                    rho[r..r + 3].copy_from_slice(&a);
                }
                Closure::Weld {
                    body_a,
                    point_a,
                    body_b,
                    point_b,
                    rotation,
                } => {
                    let ab = body_b.map_or([0.0; 3], |b| t.ws_point_accel_bias(&ws, b, &point_b));
                    let acc = sub3(&t.ws_point_accel_bias(&ws, body_a, &point_a), &ab);
                    rho[r..r + 3].copy_from_slice(&acc);
                    let (a, bp) = self.weld_axes(&ws, body_a, body_b, &rotation);
                    let wa = t.ws_angular_velocity(&ws, body_a);
                    let wb = body_b.map_or([0.0; 3], |b| t.ws_angular_velocity(&ws, b));
                    let aa = t.ws_angular_accel_bias(&ws, body_a);
                    let abb = body_b.map_or([0.0; 3], |b| t.ws_angular_accel_bias(&ws, b));
                    let dw = sub3(&wa, &wb);
                    let da = sub3(&aa, &abb);
                    for (k, (i, j)) in PAIRS.iter().enumerate() {
                        let w = cross(&a[*i], &bp[*j]);
                        let wdot = add3(
                            &cross(&cross(&wa, &a[*i]), &bp[*j]),
                            &cross(&a[*i], &cross(&wb, &bp[*j])),
                        );
                        rho[r + 3 + k] = dot(&wdot, &dw) + dot(&w, &da);
                    }
                }
            }
            r += c.rows();
        }
    }
}
