//! # contour-planning — paths, path histories and minimum-time motion
//!
//! This crate will plan the motion of a (possibly constrained) manipulator along a path, after
//! Huang's chapter 4 and section 6.2:
//!
//! * paths p = P(s), q = Q(s), s ∈ [0, 1], from lines, arcs and polynomials, with B = Q′ and
//!   B̄ = Q″ (4.3.2), and their construction from boundary, normality and tangency conditions;
//! * kinematic path histories: constant speed (4.3.12)–(4.3.16), rest-to-rest cubic
//!   (4.3.17)–(4.3.21);
//! * inverse dynamics along the path (4.3.5)–(4.3.7), with a prescribed contact force;
//! * acceleration limits from torque limits (4.3.22)–(4.3.32);
//! * minimum time by the phase-plane method (Bobrow, Shin–McKay), with switching points.
//!
//! It is filled by the planning issue.
