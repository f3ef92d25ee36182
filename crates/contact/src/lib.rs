//! # contour-contact — unilateral constraints, impact, entry and exit
//!
//! This crate will simulate mechanisms whose constraint rows are unilateral
//! (φ ≥ 0, λ ≥ 0, λφ = 0), after Huang's chapters 3 and 5:
//!
//! * unconstrained (MSU, (3.4.1)) and constrained (MSC, (3.4.2)) segments;
//! * **entry**: event location of φ = 0, the inelastic impact law (3.3.8)–(3.3.9) by the
//!   procedure (5.3.12)–(5.3.14), continuation without impact when Dṗ = 0 (Theorem 3.3.3);
//! * **exit**: when the contact force λ would become negative (located as an event on λ), and
//!   Huang's Taylor-prediction criterion for comparison; tangency (3.3.13) reported;
//! * Coulomb friction (6.3.4), the PD tracking controller (6.3.3), and the simulations of
//!   Huang's section 6.3.
//!
//! It is filled by the unilateral-contact issue.
