//! Kinematic trees (from URDF or built in code): links drawn as capsules between joint origins,
//! every link frame and joint axis, and the URDF's primitive visuals.
//!
//! The tree is read through [`KinematicTree::n_bodies`], [`KinematicTree::parent`],
//! [`KinematicTree::joint`] and the per-body world transform
//! [`KinematicTree::body_transform`] (`⁰X_i = (E, r)`: the body's axes in world coordinates
//! are the rows of `E`, its origin is `r`).

use std::path::Path;

use contour_model::tree::{Joint, KinematicTree};
use contour_model::urdf::{
    urdf_visuals_from_file, urdf_visuals_from_str, UrdfGeometry, UrdfImportError, UrdfVisual,
};
use contour_model::Mechanism;

use crate::drawable::{Drawable, PointKind, Pose, Segment, Shape, ShapeKind};
use crate::VizError;

/// A [`KinematicTree`] to draw. Points: the world origin (0), then the origin of body `i`
/// (point `i + 1`), which is its joint's origin. Segments: each body's origin to its parent's.
/// Frames: one per body, each with its axes and its joint axis.
#[derive(Debug, Clone)]
pub struct TreeDrawable<'a> {
    tree: &'a KinematicTree,
    visuals: Vec<Shape>,
    notes: Vec<String>,
}

impl<'a> TreeDrawable<'a> {
    /// The tree's skeleton: capsules, frames and joint axes.
    pub fn new(tree: &'a KinematicTree) -> Self {
        TreeDrawable {
            tree,
            visuals: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// The skeleton and the primitive `<visual>` shapes (box, cylinder, capsule as a cylinder,
    /// sphere) of the URDF file the tree was imported from, each in its link's frame (the root
    /// link's in the world). Meshes are not drawn: each is named in a note under the
    /// animation.
    pub fn with_urdf_visuals(
        tree: &'a KinematicTree,
        urdf: impl AsRef<Path>,
    ) -> Result<Self, VizError> {
        let path = urdf.as_ref();
        let visuals = urdf_visuals_from_file(path).map_err(|e| urdf_error(path.display(), &e))?;
        Ok(Self::with_robot_visuals(tree, &visuals))
    }

    /// As [`TreeDrawable::with_urdf_visuals`], from the URDF text.
    pub fn with_urdf_str_visuals(tree: &'a KinematicTree, urdf: &str) -> Result<Self, VizError> {
        let visuals = urdf_visuals_from_str(urdf).map_err(|e| urdf_error("(string)", &e))?;
        Ok(Self::with_robot_visuals(tree, &visuals))
    }

    fn with_robot_visuals(tree: &'a KinematicTree, visuals: &[UrdfVisual]) -> Self {
        let mut me = Self::new(tree);
        for v in visuals {
            // A link that is no body is the root (the world frame).
            let frame = tree.body_index(&v.link);
            let pose = Pose::from_xyz_rpy(v.xyz, v.rpy);
            let kind = match &v.geometry {
                UrdfGeometry::Box { size } => ShapeKind::Box { size: *size },
                UrdfGeometry::Cylinder { radius, length }
                | UrdfGeometry::Capsule { radius, length } => ShapeKind::Cylinder {
                    radius: *radius,
                    length: *length,
                },
                UrdfGeometry::Sphere { radius } => ShapeKind::Sphere { radius: *radius },
                UrdfGeometry::Mesh { filename, .. } => {
                    me.notes.push(format!(
                        "mesh {filename} of link {} is not drawn (meshes are not rendered)",
                        v.link
                    ));
                    continue;
                }
            };
            me.visuals.push(Shape { frame, pose, kind });
        }
        me
    }
}

/// [`VizError::Urdf`] of the reader's error for `path`.
fn urdf_error(path: impl std::fmt::Display, e: &UrdfImportError) -> VizError {
    VizError::Urdf {
        path: path.to_string(),
        message: e.to_string(),
    }
}

impl Drawable for TreeDrawable<'_> {
    fn dof(&self) -> usize {
        self.tree.dof()
    }
    fn n_points(&self) -> usize {
        self.tree.n_bodies() + 1
    }
    fn points(&self, _t: f64, q: &[f64], out: &mut [[f64; 3]]) -> Result<(), VizError> {
        out[0] = [0.0; 3];
        for i in 0..self.tree.n_bodies() {
            out[i + 1] = self.tree.body_transform(q, i)?.trans;
        }
        Ok(())
    }
    fn segments(&self) -> Vec<Segment> {
        (0..self.tree.n_bodies())
            .map(|i| Segment::link(self.tree.parent(i).map_or(0, |p| p + 1), i + 1))
            .collect()
    }
    fn point_kinds(&self) -> Vec<PointKind> {
        let mut kinds = vec![PointKind::Joint; self.n_points()];
        kinds[0] = PointKind::Ground;
        // Leaves (bodies with no child) are end effectors.
        for i in 0..self.tree.n_bodies() {
            if (0..self.tree.n_bodies()).all(|c| self.tree.parent(c) != Some(i)) {
                kinds[i + 1] = PointKind::Mass;
            }
        }
        kinds
    }
    fn n_frames(&self) -> usize {
        self.tree.n_bodies()
    }
    fn frames(&self, _t: f64, q: &[f64], out: &mut [Pose]) -> Result<(), VizError> {
        for (i, pose) in out.iter_mut().enumerate() {
            let x = self.tree.body_transform(q, i)?;
            // E maps world to body coordinates: the active rotation is Eᵀ.
            let e = x.rot;
            *pose = Pose {
                rot: std::array::from_fn(|r| std::array::from_fn(|c| e[c][r])),
                trans: x.trans,
            };
        }
        Ok(())
    }
    fn shapes(&self) -> Vec<Shape> {
        let mut shapes = Vec::new();
        for i in 0..self.tree.n_bodies() {
            let frame = Some(i);
            shapes.push(Shape {
                frame,
                pose: Pose::IDENTITY,
                kind: ShapeKind::Axes,
            });
            if let Joint::Revolute { axis } | Joint::Prismatic { axis } = *self.tree.joint(i) {
                shapes.push(Shape {
                    frame,
                    pose: Pose::IDENTITY,
                    kind: ShapeKind::JointAxis { direction: axis },
                });
            }
        }
        shapes.extend_from_slice(&self.visuals);
        shapes
    }
    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }
}
