//! What a mechanism gives to be drawn: points and segments for a state, and optionally
//! surfaces, body frames and shapes attached to them.

use crate::VizError;

/// A rigid placement: the active rotation `rot` (its columns are the frame's axes in world
/// coordinates) and the frame's origin `trans` in world coordinates \[m\]. A world point of a
/// frame point `p` is `rot · p + trans`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    /// Active rotation (row-major 3×3).
    pub rot: [[f64; 3]; 3],
    /// Origin \[m\].
    pub trans: [f64; 3],
}

impl Pose {
    /// The identity placement.
    pub const IDENTITY: Pose = Pose {
        rot: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        trans: [0.0; 3],
    };

    /// A URDF `<origin xyz rpy>`: `R = R_z(yaw) R_y(pitch) R_x(roll)`, origin `xyz`.
    pub fn from_xyz_rpy(xyz: [f64; 3], rpy: [f64; 3]) -> Self {
        let (sr, cr) = rpy[0].sin_cos();
        let (sp, cp) = rpy[1].sin_cos();
        let (sy, cy) = rpy[2].sin_cos();
        Pose {
            rot: [
                [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                [-sp, cp * sr, cp * cr],
            ],
            trans: xyz,
        }
    }
}

/// How a segment between two points is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentKind {
    /// A rigid link: a capsule (thick line with round ends).
    Link,
    /// A thin line (a spring, a massless rod, a guide).
    Line,
}

/// A segment between points `from` and `to` of a [`Drawable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// Index of the first point.
    pub from: usize,
    /// Index of the second point.
    pub to: usize,
    /// How it is drawn.
    pub kind: SegmentKind,
}

impl Segment {
    /// A rigid link (capsule) from `from` to `to`.
    pub fn link(from: usize, to: usize) -> Self {
        Segment {
            from,
            to,
            kind: SegmentKind::Link,
        }
    }

    /// A thin line from `from` to `to`.
    pub fn line(from: usize, to: usize) -> Self {
        Segment {
            from,
            to,
            kind: SegmentKind::Line,
        }
    }
}

/// How a point is marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointKind {
    /// A joint (small ring).
    Joint,
    /// A point mass or end effector (filled disc).
    Mass,
    /// A fixed support (filled triangle).
    Ground,
}

/// A fixed surface or obstacle, drawn as a polyline in world coordinates \[m\].
#[derive(Debug, Clone, PartialEq)]
pub struct Surface {
    /// Vertices.
    pub points: Vec<[f64; 3]>,
    /// Whether the last vertex joins the first.
    pub closed: bool,
}

impl Surface {
    /// The straight piece from `a` to `b` (a floor, a wall, a slider guide).
    pub fn line(a: [f64; 3], b: [f64; 3]) -> Self {
        Surface {
            points: vec![a, b],
            closed: false,
        }
    }

    /// A circle of `radius` about `center` in the plane spanned by the orthonormal `u`, `v`,
    /// as a 96-gon.
    pub fn circle(center: [f64; 3], radius: f64, u: [f64; 3], v: [f64; 3]) -> Self {
        let n = 96;
        let points = (0..n)
            .map(|k| {
                let (s, c) = (std::f64::consts::TAU * k as f64 / n as f64).sin_cos();
                std::array::from_fn(|i| center[i] + radius * (c * u[i] + s * v[i]))
            })
            .collect();
        Surface {
            points,
            closed: true,
        }
    }
}

/// A shape drawn in a body frame, as a wireframe.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ShapeKind {
    /// A box of edge lengths `size` centred on the shape's origin.
    Box {
        /// Edge lengths along x, y, z \[m\].
        size: [f64; 3],
    },
    /// A cylinder about the shape's z axis, centred on its origin.
    Cylinder {
        /// Radius \[m\].
        radius: f64,
        /// Length \[m\].
        length: f64,
    },
    /// A sphere about the shape's origin.
    Sphere {
        /// Radius \[m\].
        radius: f64,
    },
    /// The frame's axes (x red, y green, z blue), of a length scaled to the scene.
    Axes,
    /// A joint axis: a line through the origin along the unit `direction`, scaled to the scene.
    JointAxis {
        /// Unit direction in the frame.
        direction: [f64; 3],
    },
}

/// A shape placed at `pose` in frame `frame` (`None`: the world).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    /// The frame it moves with.
    pub frame: Option<usize>,
    /// Its placement in that frame.
    pub pose: Pose,
    /// What it is.
    pub kind: ShapeKind,
}

/// A mechanism that can be drawn: points and segments for a state `(t, q)`.
///
/// Only [`Drawable::dof`], [`Drawable::n_points`], [`Drawable::points`] and
/// [`Drawable::segments`] are required; surfaces, point marks, moving frames and shapes in
/// them have defaults (none). Points are world coordinates in metres; a planar mechanism
/// leaves `z = 0` and is shown in its plane (x right, y up), any other in 3-D with z up.
pub trait Drawable {
    /// Number of coordinates `q` the points depend on.
    fn dof(&self) -> usize;
    /// Number of points.
    fn n_points(&self) -> usize;
    /// The points at time `t` and coordinates `q` (`out.len() == n_points()`).
    fn points(&self, t: f64, q: &[f64], out: &mut [[f64; 3]]) -> Result<(), VizError>;
    /// The segments between points (fixed for the whole motion).
    fn segments(&self) -> Vec<Segment>;
    /// How each point is marked (default: every point a joint).
    fn point_kinds(&self) -> Vec<PointKind> {
        vec![PointKind::Joint; self.n_points()]
    }
    /// Fixed surfaces and obstacles (default: none).
    fn surfaces(&self) -> Vec<Surface> {
        Vec::new()
    }
    /// Number of moving frames (default: none).
    fn n_frames(&self) -> usize {
        0
    }
    /// The frames' world poses at `(t, q)` (`out.len() == n_frames()`).
    fn frames(&self, _t: f64, _q: &[f64], _out: &mut [Pose]) -> Result<(), VizError> {
        Ok(())
    }
    /// Shapes drawn in the frames (default: none).
    fn shapes(&self) -> Vec<Shape> {
        Vec::new()
    }
    /// Remarks shown under the animation (e.g. visuals that are not drawn).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}
