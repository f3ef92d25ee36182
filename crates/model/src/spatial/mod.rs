//! Spatial (6-D) vector algebra in the conventions of Featherstone's *Rigid
//! Body Dynamics Algorithms* (RBDA) and spatial_v2.
//!
//! ```text
//! motion  m = [ω; v]      (angular part first; v = velocity of the body-fixed point at the frame origin)
//! force   f = [n; f]      (moment about the frame origin first)
//! m × m'  = crm(m) m' = [ω×ω'; ω×v' + v×ω']            RBDA (2.31)
//! m ×* f  = crf(m) f  = [ω×n + v×f; ω×f],  crf = −crmᵀ  RBDA (2.32)
//! X = [E 0; −E r× E]  (Plücker transform A → B: E rotates A- to B-coordinates,
//!                      r = origin of B in A-coordinates)   RBDA (2.24)
//! X* = X⁻ᵀ = [E −E r×; 0 E]                                 RBDA (2.25)
//! I = [Ī  h×; h×ᵀ  m 1],  h = m c,  Ī = I_c + m c× c×ᵀ        RBDA (2.62) (spatial_v2 `mcI`)
//! I_A = Xᵀ I_B X   (inertia of a body expressed in B, moved to A)
//! I^A = [A B; Bᵀ C] (articulated-body inertia, RBDA §7.1: [`ArticulatedInertia`])
//! ```
//!
//! 3-vectors are `[f64; 3]` ([`Vec3`]) and 3×3 matrices are row-major
//! `[[f64; 3]; 3]` ([`Mat3`]); everything is `Copy` and allocation free.

mod articulated;
mod inertia;
mod mat3;
mod transform;
mod vector;

pub use articulated::ArticulatedInertia;
pub(crate) use inertia::CentroidalInertia;
pub use inertia::SpatialInertia;
pub use mat3::{
    add3, cross, dot, mat3_identity, mat3_mul, mat3_transpose, mat3_tvec, mat3_vec, rotation_about,
    rpy_to_matrix, scale3, skew, sub3, Mat3, Vec3,
};
pub use transform::Transform;
pub use vector::{crf_matrix, crm_matrix, Force, Motion};
