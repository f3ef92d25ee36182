//! The `<visual>` elements of a URDF description, for drawing: each link's primitive shapes
//! and meshes with their poses in the link frame. The import of the tree never reads them
//! ([`super::import_urdf_str`] skips visual content, so a malformed visual never blocks an
//! import); [`urdf_visuals_from_str`] reads them with the same XML reader and the same
//! messages.

use std::path::Path;

use super::{xml, UrdfImportError};

/// The `<geometry>` of a `<visual>` (lengths in metres).
#[derive(Debug, Clone, PartialEq)]
pub enum UrdfGeometry {
    /// `<box size>`: edge lengths along x, y, z.
    Box {
        /// Edge lengths \[m\].
        size: [f64; 3],
    },
    /// `<cylinder radius length>` along the z axis, centred on the origin.
    Cylinder {
        /// Radius \[m\].
        radius: f64,
        /// Length \[m\].
        length: f64,
    },
    /// `<capsule radius length>` along the z axis, centred on the origin.
    Capsule {
        /// Radius \[m\].
        radius: f64,
        /// Length of the cylindrical part \[m\].
        length: f64,
    },
    /// `<sphere radius>`.
    Sphere {
        /// Radius \[m\].
        radius: f64,
    },
    /// `<mesh filename scale>` (not read: the file name and the scale only).
    Mesh {
        /// The `filename` attribute as written.
        filename: String,
        /// The `scale` attribute (default `1 1 1`).
        scale: [f64; 3],
    },
}

/// One `<visual>` of a link: its shape and pose (`<origin xyz rpy>`, the URDF convention
/// `R = R_z(y) R_y(p) R_x(r)`) in the link frame.
#[derive(Debug, Clone, PartialEq)]
pub struct UrdfVisual {
    /// The link's name.
    pub link: String,
    /// Origin of the shape in the link frame \[m\].
    pub xyz: [f64; 3],
    /// Roll, pitch, yaw of the shape in the link frame \[rad\].
    pub rpy: [f64; 3],
    /// The shape.
    pub geometry: UrdfGeometry,
}

/// The `<visual>` elements of every link, in document order.
///
/// Errors: [`UrdfImportError::Parse`] for malformed XML or a visual whose geometry lacks an
/// attribute or has a non-number (naming the link and the line).
pub fn urdf_visuals_from_str(s: &str) -> Result<Vec<UrdfVisual>, UrdfImportError> {
    Ok(xml::read_with_visuals(s)?.visuals)
}

/// [`urdf_visuals_from_str`] of a file; [`UrdfImportError::Io`] when it cannot be read.
pub fn urdf_visuals_from_file(path: impl AsRef<Path>) -> Result<Vec<UrdfVisual>, UrdfImportError> {
    let path = path.as_ref();
    let s = std::fs::read_to_string(path).map_err(|e| UrdfImportError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    urdf_visuals_from_str(&s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visuals_are_read_in_document_order_with_their_poses() {
        let urdf = r#"<robot name="r">
          <link name="base"><visual><geometry><box size="0.4 0.4 0.1"/></geometry></visual></link>
          <link name="upper">
            <visual><origin xyz="0 0 0.25" rpy="0.1 0 0"/><geometry><cylinder radius="0.05" length="0.5"/></geometry></visual>
            <collision><geometry><sphere radius="9"/></geometry></collision>
            <visual><geometry><mesh filename="package://r/upper.stl"/></geometry></visual>
          </link>
        </robot>"#;
        let v = urdf_visuals_from_str(urdf).unwrap();
        assert_eq!(v.len(), 3);
        assert_eq!(v[0].link, "base");
        assert_eq!(
            v[0].geometry,
            UrdfGeometry::Box {
                size: [0.4, 0.4, 0.1]
            }
        );
        assert_eq!((v[1].xyz, v[1].rpy), ([0.0, 0.0, 0.25], [0.1, 0.0, 0.0]));
        assert_eq!(
            v[1].geometry,
            UrdfGeometry::Cylinder {
                radius: 0.05,
                length: 0.5
            }
        );
        assert_eq!(
            v[2].geometry,
            UrdfGeometry::Mesh {
                filename: "package://r/upper.stl".into(),
                scale: [1.0; 3]
            }
        );
    }

    #[test]
    fn a_malformed_visual_is_refused_here_and_ignored_by_the_import() {
        let urdf = r#"<robot name="r">
          <link name="base"><visual><geometry><sphere/></geometry></visual></link>
          <link name="arm"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link>
          <joint name="j" type="revolute"><parent link="base"/><child link="arm"/></joint>
        </robot>"#;
        assert!(matches!(
            urdf_visuals_from_str(urdf),
            Err(UrdfImportError::Parse { line: 2, .. })
        ));
        let import = super::super::import_urdf_str(urdf, &super::super::UrdfOptions::default());
        assert!(import.is_ok(), "{import:?}");
    }
}
