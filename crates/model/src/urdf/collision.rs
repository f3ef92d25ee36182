//! The `<collision>` elements of a URDF description, for contact: each link's primitive
//! shapes (and meshes, by name) with their poses in the link frame. Read by the same XML
//! reader and the same geometry parser as the visuals ([`super::UrdfGeometry`]); the import of
//! the tree never reads them.

use std::path::Path;

use super::{xml, UrdfGeometry, UrdfImportError};

/// One `<collision>` of a link: its shape and pose (`<origin xyz rpy>`, the URDF convention
/// `R = R_z(y) R_y(p) R_x(r)`) in the link frame.
#[derive(Debug, Clone, PartialEq)]
pub struct UrdfCollision {
    /// The link's name.
    pub link: String,
    /// Origin of the shape in the link frame \[m\].
    pub xyz: [f64; 3],
    /// Roll, pitch, yaw of the shape in the link frame \[rad\].
    pub rpy: [f64; 3],
    /// The shape.
    pub geometry: UrdfGeometry,
}

/// The `<collision>` elements of every link, in document order.
///
/// Errors: [`UrdfImportError::Parse`] for malformed XML or a collision whose geometry lacks
/// an attribute or has a non-number (naming the link and the line).
pub fn urdf_collisions_from_str(s: &str) -> Result<Vec<UrdfCollision>, UrdfImportError> {
    Ok(xml::read_with_collisions(s)?
        .visuals
        .into_iter()
        .map(|v| UrdfCollision {
            link: v.link,
            xyz: v.xyz,
            rpy: v.rpy,
            geometry: v.geometry,
        })
        .collect())
}

/// [`urdf_collisions_from_str`] of a file; [`UrdfImportError::Io`] when it cannot be read.
pub fn urdf_collisions_from_file(
    path: impl AsRef<Path>,
) -> Result<Vec<UrdfCollision>, UrdfImportError> {
    let path = path.as_ref();
    let s = std::fs::read_to_string(path).map_err(|e| UrdfImportError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    urdf_collisions_from_str(&s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collisions_are_read_apart_from_the_visuals() {
        let urdf = r#"<robot name="r">
          <link name="base">
            <visual><geometry><box size="0.4 0.4 0.1"/></geometry></visual>
            <collision><origin xyz="0 0 -0.2" rpy="0 0.1 0"/><geometry><sphere radius="0.02"/></geometry></collision>
          </link>
          <link name="foot"><collision><geometry><box size="0.1 0.2 0.3"/></geometry></collision></link>
        </robot>"#;
        let c = urdf_collisions_from_str(urdf).unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(
            (c[0].link.as_str(), c[0].xyz, c[0].rpy),
            ("base", [0.0, 0.0, -0.2], [0.0, 0.1, 0.0])
        );
        assert_eq!(c[0].geometry, UrdfGeometry::Sphere { radius: 0.02 });
        assert_eq!(
            c[1].geometry,
            UrdfGeometry::Box {
                size: [0.1, 0.2, 0.3]
            }
        );
        assert_eq!(super::super::urdf_visuals_from_str(urdf).unwrap().len(), 1);
        let bad = r#"<robot name="r"><link name="a"><collision><geometry><sphere/></geometry></collision></link></robot>"#;
        assert!(matches!(
            urdf_collisions_from_str(bad),
            Err(UrdfImportError::Parse { line: 1, .. })
        ));
    }
}
