//! Loop closures as constraint rows on a [`KinematicTree`].

use super::data::TreeData;
use super::kinematic_tree::KinematicTree;
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
/// | `Coupling` | 1 | `q_m − k q_a − c` (a URDF `<mimic>`; `J` constant, `ρ = 0`) |
///
/// On a planar tree ([`KinematicTree::is_planar_xy`]) the out-of-plane rows are
/// structurally zero (`J` row ≡ 0, `φ` constant) and [`ConstrainedTree`] leaves them out: a
/// point closure gives its 2 independent rows (x, y), a weld 3 (x, y and the rotation about
/// z). A full set would be rank-deficient for every KKT-based method.
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
    /// A coordinate that follows another, `q_m = k q_a + c` (a URDF `<mimic>`, see
    /// [`crate::tree::MimicCoupling`]): one row `φ = q_m − k q_a − c`, in planar and spatial
    /// trees alike.
    Coupling {
        /// The following coordinate `m`.
        coord: usize,
        /// The coordinate `a` it follows.
        master: usize,
        /// `k`.
        multiplier: f64,
        /// `c` \[rad or m\].
        offset: f64,
    },
}

impl From<&super::MimicCoupling> for Closure {
    fn from(m: &super::MimicCoupling) -> Self {
        Closure::Coupling {
            coord: m.coord,
            master: m.master_coord,
            multiplier: m.multiplier,
            offset: m.offset,
        }
    }
}

impl Closure {
    /// Number of constraint rows (3 or 6) on a spatial tree.
    pub fn rows(&self) -> usize {
        self.rows_in(false)
    }

    /// Number of rows on a planar (`true`) or spatial tree: 2/3 or 3/6.
    pub fn rows_in(&self, planar: bool) -> usize {
        match (self, planar) {
            (Closure::Coupling { .. }, _) => 1,
            (Closure::Weld { .. }, false) => 6,
            (Closure::Weld { .. }, true) => 3,
            (_, false) => 3,
            (_, true) => 2,
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

    /// Every closure as "point A of body A minus point B of body B or of the world":
    /// `(body_a, point_a, body_b, point_b)`; for `PointAtWorld` B is the world and
    /// `point_b` the target.
    /// `None` for a coupling.
    fn endpoints(&self) -> Option<(usize, Vec3, Option<usize>, Vec3)> {
        Some(match *self {
            Closure::PointAtWorld {
                body,
                point,
                target,
            } => (body, point, None, target),
            Closure::PointToPoint {
                body_a,
                point_a,
                body_b,
                point_b,
            } => (body_a, point_a, Some(body_b), point_b),
            Closure::Weld {
                body_a,
                point_a,
                body_b,
                point_b,
                ..
            } => (body_a, point_a, body_b, point_b),
            Closure::Coupling { .. } => return None,
        })
    }

    fn bodies(&self) -> [Option<usize>; 2] {
        self.endpoints()
            .map_or([None, None], |(a, _, b, _)| [Some(a), b])
    }
}

/// The cyclic index pairs `(i, j)` of the weld's orientation rows.
const PAIRS: [(usize, usize); 3] = [(1, 2), (2, 0), (0, 1)];

/// A kinematic tree with loop closures: a [`Mechanism`] with
/// `L = Σ rows` constraint rows, `φ`, `J = ∂φ/∂q` and `ρ = J̇ q̇` from the
/// tree's point kinematics (scleronomic: `b = 0`). `M`, `h` and the energies
/// are the tree's. On a planar tree only the in-plane rows are kept (see [`Closure`]).
#[derive(Debug, Clone)]
pub struct ConstrainedTree {
    tree: KinematicTree,
    closures: Vec<Closure>,
    rows: usize,
    planar: bool,
}

/// Kept position axes and weld orientation pairs, spatial and planar.
const AXES_3D: [usize; 3] = [0, 1, 2];
const AXES_2D: [usize; 2] = [0, 1];
const PAIRS_3D: [usize; 3] = [0, 1, 2];
/// The pair `(0, 1)`: `a_x·b'_y`, the rotation about z.
const PAIRS_2D: [usize; 1] = [2];

impl ConstrainedTree {
    /// Tree plus closures; [`ModelError::UnknownBody`] if a closure names a
    /// body the tree does not have, [`ModelError::NonFinite`] for non-finite points.
    pub fn new(tree: KinematicTree, closures: Vec<Closure>) -> Result<Self, ModelError> {
        tree.require_nq_eq_nv("a constrained tree")?;
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
                Closure::Coupling {
                    coord,
                    master,
                    multiplier,
                    offset,
                } => {
                    for k in [*coord, *master] {
                        if k >= tree.dof() {
                            return Err(ModelError::DimensionMismatch {
                                what: "coupled coordinate",
                                expected: tree.dof(),
                                found: k,
                            });
                        }
                    }
                    vec![*multiplier, *offset]
                }
            };
            check_finite("closure data", &data)?;
        }
        let planar = tree.is_planar_xy();
        let rows = closures.iter().map(|c| c.rows_in(planar)).sum();
        let ct = Self {
            tree,
            closures,
            rows,
            planar,
        };
        if planar {
            ct.check_out_of_plane_rows()?;
        }
        Ok(ct)
    }

    /// Whether the tree is planar and the out-of-plane rows are left out.
    pub fn is_planar(&self) -> bool {
        self.planar
    }

    /// On a planar tree the dropped rows are constant; they must be zero (a closure whose
    /// points lie in different planes can never close): [`ModelError::InvalidParameter`]
    /// names the offset otherwise.
    fn check_out_of_plane_rows(&self) -> Result<(), ModelError> {
        let t = &self.tree;
        let mut ws = t.data();
        let q = vec![0.0; t.dof()];
        t.kinematics(&mut ws, &q, None);
        for c in &self.closures {
            let Some((a, pa, b, pb)) = c.endpoints() else {
                continue;
            };
            let za = t.ws_point_position(&ws, a, &pa)[2];
            let zb = b.map_or(pb, |b| t.ws_point_position(&ws, b, &pb))[2];
            let dz = za - zb;
            if dz.abs() > 1e-12 * (1.0 + za.abs() + zb.abs()) {
                return Err(ModelError::InvalidParameter {
                    what: "closure out of the plane of a planar tree (z offset)",
                    value: dz,
                });
            }
        }
        Ok(())
    }

    fn axes(&self) -> &'static [usize] {
        if self.planar {
            &AXES_2D
        } else {
            &AXES_3D
        }
    }

    fn pairs(&self) -> &'static [usize] {
        if self.planar {
            &PAIRS_2D
        } else {
            &PAIRS_3D
        }
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
        ws: &TreeData,
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
        t.with_data(|ws| self.ws_constraints(ws, q, phi));
    }

    fn constraint_jacobian(&self, _t: f64, q: &[f64], j: MatMut<'_, f64>) {
        self.tree.with_data(|ws| {
            self.tree.kinematics(ws, q, None);
            self.ws_jacobian(ws, j);
        });
    }

    fn constraint_accel_bias(&self, _t: f64, q: &[f64], qd: &[f64], rho: &mut [f64]) {
        self.tree.with_data(|ws| {
            self.tree.kinematics(ws, q, Some(qd));
            self.ws_accel_bias(ws, rho);
        });
    }

    /// One forward-kinematics pass (with velocities) for both: `J` reads only the transforms,
    /// which are the same with and without `q̇`.
    fn constraint_jacobian_and_accel_bias(
        &self,
        _t: f64,
        q: &[f64],
        qd: &[f64],
        j: MatMut<'_, f64>,
        rho: &mut [f64],
    ) {
        self.tree.with_data(|ws| {
            self.tree.kinematics(ws, q, Some(qd));
            self.ws_jacobian(ws, j);
            self.ws_accel_bias(ws, rho);
        });
    }
}

impl ConstrainedTree {
    /// `φ` after the forward kinematics into `ws`.
    fn ws_constraints(&self, ws: &mut TreeData, q: &[f64], phi: &mut [f64]) {
        let t = &self.tree;
        t.kinematics(ws, q, None);
        let ws = &*ws;
        let (axes, pairs) = (self.axes(), self.pairs());
        let mut r = 0;
        for c in &self.closures {
            let Some((a, pa, b, pb)) = c.endpoints() else {
                if let Closure::Coupling {
                    coord,
                    master,
                    multiplier,
                    offset,
                } = *c
                {
                    phi[r] = q[coord] - multiplier * q[master] - offset;
                }
                r += 1;
                continue;
            };
            let pa = t.ws_point_position(ws, a, &pa);
            let pb = b.map_or(pb, |b| t.ws_point_position(ws, b, &pb));
            let p = sub3(&pa, &pb);
            for (m, &ax) in axes.iter().enumerate() {
                phi[r + m] = p[ax];
            }
            if let Closure::Weld {
                body_a,
                body_b,
                rotation,
                ..
            } = *c
            {
                let (a, b) = self.weld_axes(ws, body_a, body_b, &rotation);
                for (m, &k) in pairs.iter().enumerate() {
                    let (i, j) = PAIRS[k];
                    phi[r + axes.len() + m] = dot(&a[i], &b[j]);
                }
            }
            r += c.rows_in(self.planar);
        }
    }

    /// `J` from a workspace filled by [`KinematicTree::kinematics`].
    fn ws_jacobian(&self, ws: &TreeData, mut j: MatMut<'_, f64>) {
        let t = &self.tree;
        j.fill(0.0);
        let (axes, pairs) = (self.axes(), self.pairs());
        let mut r = 0;
        for c in &self.closures {
            let Some((a, pa, b, pb)) = c.endpoints() else {
                if let Closure::Coupling {
                    coord,
                    master,
                    multiplier,
                    ..
                } = *c
                {
                    j[(r, coord)] += 1.0;
                    j[(r, master)] -= multiplier;
                }
                r += 1;
                continue;
            };
            t.ws_add_point_jacobian_axes(ws, a, &pa, 1.0, &mut j, r, axes);
            if let Some(b) = b {
                t.ws_add_point_jacobian_axes(ws, b, &pb, -1.0, &mut j, r, axes);
            }
            if let Closure::Weld {
                body_a,
                body_b,
                rotation,
                ..
            } = *c
            {
                let (av, bp) = self.weld_axes(ws, body_a, body_b, &rotation);
                for (m, &k) in pairs.iter().enumerate() {
                    let (i, jj) = PAIRS[k];
                    let w = cross(&av[i], &bp[jj]);
                    let row = r + axes.len() + m;
                    t.ws_add_angular_jacobian(ws, body_a, &w, 1.0, &mut j, row);
                    if let Some(b) = body_b {
                        t.ws_add_angular_jacobian(ws, b, &w, -1.0, &mut j, row);
                    }
                }
            }
            r += c.rows_in(self.planar);
        }
    }

    /// `ρ` from a workspace filled by [`KinematicTree::kinematics`] with velocities.
    fn ws_accel_bias(&self, ws: &TreeData, rho: &mut [f64]) {
        let t = &self.tree;
        let (axes, pairs) = (self.axes(), self.pairs());
        let mut r = 0;
        for c in &self.closures {
            let Some((a, pa, b, pb)) = c.endpoints() else {
                // a coupling is linear in q: J̇ = 0
                rho[r] = 0.0;
                r += 1;
                continue;
            };
            let aa = t.ws_point_accel_bias(ws, a, &pa);
            let ab = b.map_or([0.0; 3], |b| t.ws_point_accel_bias(ws, b, &pb));
            let acc = sub3(&aa, &ab);
            for (m, &ax) in axes.iter().enumerate() {
                rho[r + m] = acc[ax];
            }
            if let Closure::Weld {
                body_a,
                body_b,
                rotation,
                ..
            } = *c
            {
                let (a, bp) = self.weld_axes(ws, body_a, body_b, &rotation);
                let wa = t.ws_angular_velocity(ws, body_a);
                let wb = body_b.map_or([0.0; 3], |b| t.ws_angular_velocity(ws, b));
                let aa = t.ws_angular_accel_bias(ws, body_a);
                let abb = body_b.map_or([0.0; 3], |b| t.ws_angular_accel_bias(ws, b));
                let dw = sub3(&wa, &wb);
                let da = sub3(&aa, &abb);
                for (m, &k) in pairs.iter().enumerate() {
                    let (i, j) = PAIRS[k];
                    let w = cross(&a[i], &bp[j]);
                    let wdot = add3(
                        &cross(&cross(&wa, &a[i]), &bp[j]),
                        &cross(&a[i], &cross(&wb, &bp[j])),
                    );
                    rho[r + axes.len() + m] = dot(&wdot, &dw) + dot(&w, &da);
                }
            }
            r += c.rows_in(self.planar);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{check_accel_bias, check_jacobian, fused_jacobian_and_bias_matches};

    /// A four-bar from `planar(3)`: the tip of link 3 held at a ground point.
    fn four_bar() -> ConstrainedTree {
        let t = KinematicTree::planar_with_gravity(3, 9.81);
        let q = [0.9, -1.2, -1.1];
        let c = Closure::point_at_current_position(&t, &q, 2, [1.0, 0.0, 0.0]).unwrap();
        ConstrainedTree::new(t, vec![c]).unwrap()
    }

    /// The planar closure keeps its 2 independent rows; J and ρ pass finite differences.
    #[test]
    fn planar_point_closure_has_two_rows() {
        let m = four_bar();
        assert!(m.is_planar());
        assert_eq!(m.n_constraints(), 2);
        let q = [0.7, -1.0, -1.3];
        assert!(check_jacobian(&m, 0.0, &q).unwrap() < 1e-8);
        assert!(check_accel_bias(&m, 0.0, &q, &[0.3, -0.5, 0.8]).unwrap() < 1e-6);
        assert!(fused_jacobian_and_bias_matches(
            &m,
            0.0,
            &q,
            &[0.3, -0.5, 0.8]
        ));
        // a spatial tree keeps 3 rows for the same closure
        let mut t = KinematicTree::planar(3);
        t.add_body(
            "out",
            Some(2),
            crate::tree::Joint::revolute([1.0, 0.0, 0.0]).unwrap(),
            crate::spatial::Transform::translation([1.0, 0.0, 0.0]),
            crate::spatial::SpatialInertia::from_mass_com_inertia(
                1.0,
                [0.0; 3],
                [[0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.1]],
            ),
        )
        .unwrap();
        assert!(!t.is_planar_xy());
        let c = Closure::PointAtWorld {
            body: 3,
            point: [0.0, 0.5, 0.0],
            target: [1.0, 1.0, 0.0],
        };
        let s = ConstrainedTree::new(t, vec![c]).unwrap();
        assert_eq!(s.n_constraints(), 3);
    }

    /// A weld on a planar tree keeps x, y and the rotation about z; J and ρ pass finite
    /// differences.
    #[test]
    fn planar_weld_has_three_rows() {
        let t = KinematicTree::planar_with_gravity(4, 9.81);
        let q = [0.9, -1.2, -1.1, 0.4];
        let c = Closure::weld_at(&t, &q, 3, [1.0, 0.0, 0.0], None).unwrap();
        let m = ConstrainedTree::new(t, vec![c]).unwrap();
        assert_eq!(m.n_constraints(), 3);
        let mut phi = [1.0; 3];
        m.constraints(0.0, &q, &mut phi);
        assert!(phi.iter().all(|v| v.abs() < 1e-14), "{phi:?}");
        let q2 = [0.7, -1.0, -1.3, 0.2];
        assert!(check_jacobian(&m, 0.0, &q2).unwrap() < 1e-8);
        assert!(check_accel_bias(&m, 0.0, &q2, &[0.3, -0.5, 0.8, 0.1]).unwrap() < 1e-6);
        assert!(fused_jacobian_and_bias_matches(
            &m,
            0.0,
            &q2,
            &[0.3, -0.5, 0.8, 0.1]
        ));
    }

    /// A closure that leaves the plane can never close: a typed error at construction.
    #[test]
    fn out_of_plane_closure_is_refused() {
        let t = KinematicTree::planar(3);
        let c = Closure::PointAtWorld {
            body: 2,
            point: [1.0, 0.0, 0.0],
            target: [1.0, 1.0, 0.25],
        };
        match ConstrainedTree::new(t, vec![c]) {
            Err(ModelError::InvalidParameter { value, .. }) => {
                assert!((value + 0.25).abs() < 1e-15)
            }
            other => panic!("{other:?}"),
        }
    }
}
