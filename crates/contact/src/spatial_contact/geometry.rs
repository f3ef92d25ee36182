//! Contact geometry on the links of a tree against a ground half-space.
//!
//! Every shape is a set of spheres `(body, centre c in body coordinates, radius r)`: a sphere
//! is one, a box its 8 corners (`r = 0`), a capsule its two end spheres. Against the
//! half-space `{x : n·x ≥ d}` (unit `n`), a sphere whose centre is at world point `C` has
//!
//! ```text
//! g = n·C − d − r                  (signed distance, < 0 in penetration)
//! P = C − r n                      (the contact point, on the sphere)
//! u = [n t₁ t₂]ᵀ J_p(P) v          (normal and tangential velocity of the body point at P)
//! ```
//!
//! with `(n, t₁, t₂)` a right-handed orthonormal frame fixed by the ground (`t₁` the unit
//! projection of the world axis least aligned with `n`, `t₂ = n × t₁`).

use crate::error::ContactError;
use contour_model::spatial::{cross, dot, rpy_to_matrix, scale3, sub3, Transform, Vec3};
use contour_model::tree::{KinematicTree, TreeData};
use contour_model::urdf::{UrdfCollision, UrdfGeometry};
use faer::MatMut;

/// One contact sphere on a body.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactSphere {
    /// Body index in the tree.
    pub body: usize,
    /// Centre in body coordinates \[m\].
    pub center: Vec3,
    /// Radius \[m\] (0 for a box corner).
    pub radius: f64,
}

/// The contact spheres of a tree's links.
#[derive(Debug, Clone, Default)]
pub struct ContactGeometry {
    spheres: Vec<ContactSphere>,
}

fn check_body(tree: &KinematicTree, body: usize) -> Result<(), ContactError> {
    if body < tree.n_bodies() {
        Ok(())
    } else {
        Err(ContactError::Model(
            contour_model::ModelError::UnknownBody {
                body,
                n_bodies: tree.n_bodies(),
            },
        ))
    }
}

fn check_length(name: &'static str, value: f64) -> Result<(), ContactError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(ContactError::InvalidParameter { name, value })
    }
}

impl ContactGeometry {
    /// No spheres.
    pub fn new() -> Self {
        Self::default()
    }

    /// The spheres, in the order they were added.
    pub fn spheres(&self) -> &[ContactSphere] {
        &self.spheres
    }

    /// Adds a sphere of `radius` \[m\] centred at body point `center`.
    ///
    /// Errors: [`ContactError::Model`] for an unknown body, [`ContactError::InvalidParameter`]
    /// for a negative or non-finite radius or centre.
    pub fn add_sphere(
        &mut self,
        tree: &KinematicTree,
        body: usize,
        center: Vec3,
        radius: f64,
    ) -> Result<&mut Self, ContactError> {
        check_body(tree, body)?;
        check_length("sphere radius", radius)?;
        if let Some(&c) = center.iter().find(|c| !c.is_finite()) {
            return Err(ContactError::InvalidParameter {
                name: "sphere center",
                value: c,
            });
        }
        self.spheres.push(ContactSphere {
            body,
            center,
            radius,
        });
        Ok(self)
    }

    /// Adds a box of edge lengths `size` \[m\] (x, y, z of the box frame) as its 8 corners;
    /// `pose` places the box frame in the body (`pose.inv_apply_point` maps box to body
    /// coordinates, as [`Transform::from_pose`] builds it).
    ///
    /// Errors: as [`ContactGeometry::add_sphere`] (negative or non-finite edges).
    pub fn add_box(
        &mut self,
        tree: &KinematicTree,
        body: usize,
        pose: &Transform,
        size: Vec3,
    ) -> Result<&mut Self, ContactError> {
        for s in size {
            check_length("box size", s)?;
        }
        for k in 0..8 {
            let corner = [0, 1, 2].map(|a| {
                let sign = if k >> a & 1 == 1 { 0.5 } else { -0.5 };
                sign * size[a]
            });
            self.add_sphere(tree, body, pose.inv_apply_point(&corner), 0.0)?;
        }
        Ok(self)
    }

    /// Adds a capsule of `radius` whose cylindrical part of `length` runs along the z axis of
    /// `pose` (centred), as its two end spheres.
    ///
    /// Errors: as [`ContactGeometry::add_sphere`].
    pub fn add_capsule(
        &mut self,
        tree: &KinematicTree,
        body: usize,
        pose: &Transform,
        radius: f64,
        length: f64,
    ) -> Result<&mut Self, ContactError> {
        check_length("capsule length", length)?;
        for z in [-0.5 * length, 0.5 * length] {
            self.add_sphere(tree, body, pose.inv_apply_point(&[0.0, 0.0, z]), radius)?;
        }
        Ok(self)
    }

    /// The spheres, boxes and capsules of URDF `<collision>` elements
    /// ([`contour_model::urdf::urdf_collisions_from_str`]) on the tree's bodies of the same
    /// names; meshes and cylinders are skipped and counted in the second value, as are
    /// collisions of links that are not bodies of the tree.
    ///
    /// Errors: as [`ContactGeometry::add_sphere`].
    pub fn from_urdf_collisions(
        tree: &KinematicTree,
        collisions: &[UrdfCollision],
    ) -> Result<(Self, usize), ContactError> {
        let mut g = Self::new();
        let mut skipped = 0;
        for c in collisions {
            let Some(body) = tree.body_index(&c.link) else {
                skipped += 1;
                continue;
            };
            let pose = Transform::from_pose(&rpy_to_matrix(&c.rpy), c.xyz);
            match c.geometry {
                UrdfGeometry::Sphere { radius } => {
                    g.add_sphere(tree, body, c.xyz, radius)?;
                }
                UrdfGeometry::Box { size } => {
                    g.add_box(tree, body, &pose, size)?;
                }
                UrdfGeometry::Capsule { radius, length } => {
                    g.add_capsule(tree, body, &pose, radius, length)?;
                }
                UrdfGeometry::Cylinder { .. } | UrdfGeometry::Mesh { .. } => skipped += 1,
            }
        }
        Ok((g, skipped))
    }
}

/// A ground half-space `{x : n·x ≥ offset}` with its contact law.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ground {
    normal: Vec3,
    offset: f64,
    t1: Vec3,
    t2: Vec3,
    /// Coulomb friction coefficient μ ≥ 0 (default 0.8).
    pub mu: f64,
    /// Newton restitution coefficient e ∈ \[0, 1\] (default 0).
    pub restitution: f64,
}

impl Default for Ground {
    /// The plane `z = 0` (normal `+z`), μ = 0.8, e = 0.
    fn default() -> Self {
        Self::new([0.0, 0.0, 1.0], 0.0).unwrap_or(Self {
            normal: [0.0, 0.0, 1.0],
            offset: 0.0,
            t1: [1.0, 0.0, 0.0],
            t2: [0.0, 1.0, 0.0],
            mu: 0.8,
            restitution: 0.0,
        })
    }
}

impl Ground {
    /// The half-space `n·x ≥ offset` (`normal` normalized) with μ = 0.8, e = 0.
    ///
    /// Errors: [`ContactError::InvalidParameter`] for a zero or non-finite normal or offset.
    pub fn new(normal: Vec3, offset: f64) -> Result<Self, ContactError> {
        let len = dot(&normal, &normal).sqrt();
        if !(len.is_finite() && len > 1e-12) {
            return Err(ContactError::InvalidParameter {
                name: "ground normal",
                value: len,
            });
        }
        if !offset.is_finite() {
            return Err(ContactError::InvalidParameter {
                name: "ground offset",
                value: offset,
            });
        }
        let n = scale3(1.0 / len, &normal);
        // the world axis least aligned with n, projected on the plane
        let k = (0..3)
            .min_by(|&a, &b| n[a].abs().total_cmp(&n[b].abs()))
            .unwrap_or(0);
        let mut e = [0.0; 3];
        e[k] = 1.0;
        let t = sub3(&e, &scale3(n[k], &n));
        let t1 = scale3(1.0 / dot(&t, &t).sqrt(), &t);
        let t2 = cross(&n, &t1);
        Ok(Self {
            normal: n,
            offset,
            t1,
            t2,
            mu: 0.8,
            restitution: 0.0,
        })
    }

    /// The plane through the origin tilted by `angle` \[rad\] about the world x axis (normal
    /// `(0, −sin θ, cos θ)`), e.g. a slope.
    ///
    /// Errors: as [`Ground::new`].
    pub fn tilted_about_x(angle: f64) -> Result<Self, ContactError> {
        Self::new([0.0, -angle.sin(), angle.cos()], 0.0)
    }

    /// With friction coefficient `mu` and restitution `e`.
    ///
    /// Errors: [`ContactError::InvalidParameter`] for μ < 0, e ∉ \[0, 1\] or non-finite values.
    pub fn with_law(mut self, mu: f64, restitution: f64) -> Result<Self, ContactError> {
        self.mu = mu;
        self.restitution = restitution;
        self.validate()?;
        Ok(self)
    }

    /// Checks μ ≥ 0 and e ∈ \[0, 1\].
    ///
    /// Errors: [`ContactError::InvalidParameter`].
    pub fn validate(&self) -> Result<(), ContactError> {
        if !(self.mu.is_finite() && self.mu >= 0.0) {
            return Err(ContactError::InvalidParameter {
                name: "mu",
                value: self.mu,
            });
        }
        if !(0.0..=1.0).contains(&self.restitution) {
            return Err(ContactError::InvalidParameter {
                name: "restitution",
                value: self.restitution,
            });
        }
        Ok(())
    }

    /// The unit normal `n`.
    pub fn normal(&self) -> Vec3 {
        self.normal
    }

    /// The contact frame `[n, t₁, t₂]` (rows; right-handed, orthonormal).
    pub fn frame(&self) -> [Vec3; 3] {
        [self.normal, self.t1, self.t2]
    }

    /// Signed distance `g = n·C − d − r` \[m\] of a sphere of radius `r` centred at world `c`.
    pub fn distance(&self, c: &Vec3, r: f64) -> f64 {
        dot(&self.normal, c) - self.offset - r
    }

    /// Signed distance of `sphere` and its contact point `P = C − r n` in body coordinates
    /// at `q`, on a caller-owned workspace.
    ///
    /// Errors: from the tree (`q`'s length, non-finite values).
    pub fn sphere_contact(
        &self,
        tree: &KinematicTree,
        data: &mut TreeData,
        q: &[f64],
        sphere: &ContactSphere,
    ) -> Result<(f64, Vec3), ContactError> {
        let x = tree.body_transform_with(data, q, sphere.body)?;
        let c = x.inv_apply_point(&sphere.center);
        let g = self.distance(&c, sphere.radius);
        let p_world = sub3(&c, &scale3(sphere.radius, &self.normal));
        Ok((g, x.apply_point(&p_world)))
    }

    /// The rows `[nᵀ; t₁ᵀ; t₂ᵀ] J_p(P)` (3×nv) of body point `p` (body coordinates) into
    /// `rows`, with `jp` a 3×nv scratch.
    ///
    /// Errors: from the tree (shapes, `q`).
    pub fn contact_rows(
        &self,
        tree: &KinematicTree,
        data: &mut TreeData,
        q: &[f64],
        body: usize,
        p: Vec3,
        mut jp: MatMut<'_, f64>,
        mut rows: MatMut<'_, f64>,
    ) -> Result<(), ContactError> {
        tree.point_jacobian_with(data, q, body, p, jp.as_mut())?;
        for (r, axis) in self.frame().iter().enumerate() {
            for c in 0..jp.ncols() {
                let col = [jp[(0, c)], jp[(1, c)], jp[(2, c)]];
                rows[(r, c)] = dot(axis, &col);
            }
        }
        Ok(())
    }
}
