//! # contour-projection — keeping a simulation on the constraint manifold
//!
//! This crate will hold every bilateral constraint-handling method of the source papers behind
//! one `Simulation` driver (mechanism + method + integrator + tolerances → `Trajectory`):
//!
//! * **Direct** integration of (q, q̇) with the acceleration-level constraint only
//!   (Keerthi's "ICS, δ = 0");
//! * **Baumgarte** stabilization, Keerthi (4.3) with α = 2δ, β = δ², or Huang (5.2.20)–(5.2.26);
//! * the **perturbation** approach, Keerthi's Procedure P1: integrate with tolerance τ/2, then
//!   project onto the manifold by the modified Newton iteration (2.15)–(2.17) with a skinny QR;
//! * **parametrization** of the manifold after Mani, Haug & Atkinson;
//! * **exact stabilization** (Gear–Gupta–Leimkuhler), Keerthi (4.4), as an index-2 DAE;
//! * the **Kövecses–Piedbœuf projector** method: velocity filtering (33) and configuration
//!   correction (35)/(36), valid for redundant constraints;
//! * Featherstone's **explicit constraints** q = γ(y) (`gamma_q`, FDgq).
//!
//! It is filled by the constraint-methods issue; for now it only reserves its place in the
//! dependency graph (`{model, ode} ← projection ← contact`).
