//! `--animate`: the scenario's mechanism as a [`Drawable`](contour::viz::Drawable), and the
//! run or the plan written as one self-contained `animation.html` beside the other outputs.

use std::path::{Path, PathBuf};

use contour::model::models as lib;
use contour::prelude::KinematicTree;
use contour::viz::models::NFourBarDrawable;
use contour::viz::{Drawable, TreeDrawable};

use crate::error::CliError;
use crate::model::Origin;
use crate::scenario::ModelSpec;

/// What `--animate` draws: a shipped planar or spatial model, or a kinematic tree (with the
/// primitive visuals of its URDF file when it came from one).
pub enum Drawing {
    /// A shipped model (its own points and segments).
    Model(Box<dyn Drawable>),
    /// A kinematic tree: links as capsules between joint origins, frames, joint axes.
    Tree {
        /// The tree (the same geometry the run used).
        tree: Box<KinematicTree>,
        /// The URDF file whose `<visual>` shapes are drawn too.
        urdf: Option<PathBuf>,
    },
}

impl Drawing {
    /// The drawing of the scenario's model (built again from the same description as the run).
    pub fn of(model: &ModelSpec, origin: Origin<'_>) -> Result<Drawing, CliError> {
        Ok(match model {
            ModelSpec::Pendulum(p) => Drawing::Model(Box::new(p.build())),
            ModelSpec::SliderCrank(p) => Drawing::Model(Box::new(p.build())),
            ModelSpec::FourBar(p) => Drawing::Model(Box::new(p.build())),
            ModelSpec::Keerthi(p) => Drawing::Model(Box::new(p.build())),
            ModelSpec::Huang(p) => Drawing::Model(Box::new(p.build())),
            ModelSpec::Andrews(p) => Drawing::Model(Box::new(p.build())),
            ModelSpec::NFourBar(p) => Drawing::Model(Box::new(NFourBarDrawable(
                crate::model::n_four_bar(p).map_err(|e| e.located(model.name(), origin))?,
            ))),
            ModelSpec::Arm7(_) => Drawing::Tree {
                tree: Box::new(lib::ssrms_arm()),
                urdf: None,
            },
            ModelSpec::Urdf(p) => {
                let path = origin.dir.join(&p.file);
                let tree = KinematicTree::from_urdf_file(&path).map_err(|e| {
                    origin.error("model.urdf.file", format!("{}: {e}", path.display()))
                })?;
                Drawing::Tree {
                    tree: Box::new(tree),
                    urdf: Some(path),
                }
            }
        })
    }

    /// Calls `f` with the drawing as a [`Drawable`].
    pub fn with<R>(
        &self,
        f: impl FnOnce(&dyn Drawable) -> Result<R, CliError>,
    ) -> Result<R, CliError> {
        match self {
            Drawing::Model(m) => f(m.as_ref()),
            Drawing::Tree { tree, urdf } => {
                let d = match urdf {
                    Some(path) => {
                        TreeDrawable::with_urdf_visuals(tree, path).map_err(contour::Error::from)?
                    }
                    None => TreeDrawable::new(tree),
                };
                f(&d)
            }
        }
    }
}

/// `out/animation.html`.
pub fn html_path(out: &Path) -> PathBuf {
    out.join("animation.html")
}
