//! Kinematic trees (Featherstone, RBDA chapters 4–6; spatial_v2's model structure).
//!
//! A tree of `n_B` bodies numbered so that `parent(i) < i` (`None`: the fixed
//! base). Body `i` is connected to its parent by [`Joint`] `i`; its frame is
//! reached by `X_up(i) = X_J(q_i) X_tree(i)`:
//!
//! ```text
//! v_i = X_up(i) v_λ(i) + S_i q̇_i                                   RBDA (5.7)
//! a_i = X_up(i) a_λ(i) + S_i q̈_i + v_i × S_i q̇_i,  a_0 = −a_g      RBDA Table 5.1 (RNEA)
//! f_i = I_i a_i + v_i ×* I_i v_i,  τ_i = S_iᵀ f_i,  f_λ(i) += X_up(i)ᵀ f_i
//! I^c_λ(i) += X_up(i)ᵀ I^c_i X_up(i),  H_ii = S_iᵀ I^c_i S_i,  H_ij = S_jᵀ (X_j…)ᵀ I^c_i S_i   RBDA Table 6.2 (CRBA)
//! ```
//!
//! CRBA, RNEA and the closures' kinematics evaluate these lines in one common frame, the base:
//! with `⁰S_i = ⁰X_i⁻¹ S_i` and `⁰I_i = ⁰X_iᵀ I_i ⁰X_i` every `X_up` product above becomes the
//! identity, and `M`, `h`, `J`, `ρ` at one state share one forward pass (ABA keeps body frames).
//!
//! * [`Joint`] — revolute and prismatic about any axis (and the spatial_v2
//!   names `Rx … Pz`, the planar revolute `r` = `Rz`, planar prismatic `px`, `py`),
//!   fixed joints (0 degrees of freedom).
//! * [`KinematicTree`] — implements [`crate::Mechanism`] with `M` by the CRBA
//!   and `h` by the RNEA; forward kinematics, body-point Jacobians and `J̇ q̇`;
//!   [`KinematicTree::planar`] is spatial_v2's `planar(n)`.
//! * [`ConstrainedTree`] — a tree with loop closures ([`Closure`]) as
//!   constraint rows `φ`, `J`, `ρ`.
//!
//! ```
//! use contour_model::tree::{Closure, ConstrainedTree, KinematicTree};
//! use contour_model::Mechanism;
//! use faer::Mat;
//!
//! // spatial_v2's planar(3): M by CRBA, h by RNEA
//! let tree = KinematicTree::planar(3);
//! let (q, qd) = ([0.3, -0.2, 0.5], [0.1, 0.2, -0.3]);
//! let mut m = Mat::zeros(3, 3);
//! tree.mass_matrix(&q, m.as_mut());
//! let mut h = [0.0; 3];
//! tree.bias_forces(&q, &qd, &mut h);
//! // close the loop: the far end of link 3 held where it is (a four-bar; on a
//! // planar tree the closure keeps its 2 independent rows, x and y)
//! let tip = Closure::point_at_current_position(&tree, &q, 2, [1.0, 0.0, 0.0])?;
//! let closed = ConstrainedTree::new(tree, vec![tip])?;
//! assert_eq!(closed.n_constraints(), 2);
//! # Ok::<(), contour_model::ModelError>(())
//! ```
//!
//! **Model and data.** A tree is immutable after construction and `Sync`: the per-body
//! scratch of the recursive algorithms (`X_up`, `v`, `a`, `f`, `I^c`, `I^A`) lives in a
//! [`TreeData`] that the caller owns ([`KinematicTree::data`], Pinocchio's `Data`) and passes
//! to [`KinematicTree::mass_matrix_with`], [`KinematicTree::bias_forces_with`],
//! [`KinematicTree::inverse_dynamics_with`] and [`KinematicTree::forward_dynamics_with`];
//! one tree serves many threads, each with its own `TreeData`. The [`crate::Mechanism`]
//! methods, which take no workspace, borrow one from a small thread-safe pool inside the
//! tree (one uncontended lock per call; spares are made only when calls overlap, so a run
//! allocates nothing after its first steps). No call allocates otherwise, and no `unsafe`
//! is involved.

mod aba;
mod centroidal;
mod closure;
mod configuration;
mod crba;
mod data;
mod energies;
mod jacobians;
pub mod joint;
mod kinematic_tree;
mod kinematics;
mod mimic;
mod multi;
mod path_terms;
mod rnea;
#[cfg(test)]
mod tests;

pub use centroidal::CentroidalData;
pub use closure::{Closure, ConstrainedTree};
pub use data::TreeData;
pub use joint::Joint;
pub use kinematic_tree::KinematicTree;
pub use mimic::{MimicCoupling, MimicReduction};
