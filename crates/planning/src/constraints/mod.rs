//! Constraints along a path in toppra's canonical form: rows
//!
//! ```text
//! a_k(s) s̈ + b_k(s) ṡ² + c_k(s) ≤ 0
//! ```
//!
//! Joint velocity limits (`|B_i| ṡ ≤ q̇max_i`, rows with a = 0), joint acceleration limits
//! (`q̈ = B s̈ + B̄ ṡ²`, Huang (4.3.2)) and any user rows (Cartesian acceleration caps,
//! polyhedral friction cones, contact-force bounds written as rows) all have this form. They
//! are added to an [`crate::AccelerationLimits`] with
//! [`crate::AccelerationLimits::with_constraint`] and then bound s̈ in the phase plane and in
//! TOPP-RA next to (or without) the torque limits. A row with `a = 0` (exactly) is a pure
//! velocity condition `b ṡ² + c ≤ 0` and is never divided by.
//!
//! One file per kind: [`JointVelocityLimits`], [`JointAccelerationLimits`], [`FnConstraint`].

mod joint_acceleration;
mod joint_velocity;

pub use joint_acceleration::JointAccelerationLimits;
pub use joint_velocity::JointVelocityLimits;

use crate::error::PlanningError;

/// The joint path at one point: `q = Q(s)`, `B = Q′(s)`, `B̄ = Q″(s)` (Huang (4.3.2)).
#[derive(Clone, Copy, Debug)]
pub struct PathPoint<'p> {
    /// Path parameter.
    pub s: f64,
    /// Segment of the path the point belongs to.
    pub segment: usize,
    /// Joint coordinates Q(s).
    pub q: &'p [f64],
    /// Path tangent B = Q′(s).
    pub b: &'p [f64],
    /// Path curvature B̄ = Q″(s).
    pub bbar: &'p [f64],
}

/// Rows `a s̈ + b ṡ² + c ≤ 0` along a joint path (speed-free: a, b, c depend on s only).
/// `Sync` (immutable data, as the models), so that the limits holding them can be shared
/// across threads.
pub trait PathConstraint: Sync {
    /// Number of rows.
    fn rows(&self) -> usize;

    /// Writes the rows' `a`, `b`, `c` at `p` (each slice has [`Self::rows`] entries).
    fn eval(&self, p: &PathPoint<'_>, a: &mut [f64], b: &mut [f64], c: &mut [f64]);

    /// Checks that the constraint fits a joint path with `n` joints (default: nothing).
    ///
    /// Errors: [`PlanningError::DimensionMismatch`], [`PlanningError::InvalidParameter`].
    fn check_dof(&self, n: usize) -> Result<(), PlanningError> {
        let _ = n;
        Ok(())
    }
}

/// Largest number of rows an [`crate::AccelerationLimits`] accepts, over all its added
/// constraints ([`FnConstraint::new`] and [`crate::AccelerationLimits::with_constraint`]
/// refuse more with [`PlanningError::WorkCap`]): the rows are evaluated and stored at every
/// grid point, 24 bytes per row and point (a polyhedral friction cone of 8 facets on 10 contacts
/// has 80 rows).
pub const MAX_CONSTRAINT_ROWS: usize = 100_000;

/// [`PlanningError::WorkCap`] unless `rows ≤` [`MAX_CONSTRAINT_ROWS`].
pub(crate) fn check_row_count(rows: usize) -> Result<(), PlanningError> {
    if rows <= MAX_CONSTRAINT_ROWS {
        Ok(())
    } else {
        Err(PlanningError::WorkCap {
            name: "constraint rows",
            value: rows as f64,
            cap: "rows <= 1e5 (MAX_CONSTRAINT_ROWS)",
        })
    }
}

/// Rows given by a closure `f(point, a, b, c)` with a fixed row count (toppra's canonical
/// linear constraint, e.g. a Cartesian acceleration cap written through the Jacobian). The
/// closure is `Sync`, as every [`PathConstraint`].
///
/// Build it with [`FnConstraint::new`], which refuses a row count above
/// [`MAX_CONSTRAINT_ROWS`]; a literal with more rows is refused by
/// [`crate::AccelerationLimits::with_constraint`].
pub struct FnConstraint<F: Fn(&PathPoint<'_>, &mut [f64], &mut [f64], &mut [f64])> {
    /// Number of rows.
    pub rows: usize,
    /// The rows' coefficients at a point.
    pub f: F,
}

impl<F: Fn(&PathPoint<'_>, &mut [f64], &mut [f64], &mut [f64])> FnConstraint<F> {
    /// `rows` rows written by `f(point, a, b, c)` (each slice has `rows` entries).
    ///
    /// Errors: [`PlanningError::WorkCap`] for `rows` above [`MAX_CONSTRAINT_ROWS`].
    pub fn new(rows: usize, f: F) -> Result<Self, PlanningError> {
        check_row_count(rows)?;
        Ok(Self { rows, f })
    }
}

impl<F: Fn(&PathPoint<'_>, &mut [f64], &mut [f64], &mut [f64]) + Sync> PathConstraint
    for FnConstraint<F>
{
    fn rows(&self) -> usize {
        self.rows
    }
    fn eval(&self, p: &PathPoint<'_>, a: &mut [f64], b: &mut [f64], c: &mut [f64]) {
        (self.f)(p, a, b, c)
    }
}

/// Checks a vector of per-joint limits: length `n`, every entry `> 0` (NaN fails; +∞ is "no
/// limit").
pub(crate) fn positive_per_joint(
    what: &'static str,
    v: &[f64],
    n: usize,
) -> Result<(), PlanningError> {
    if v.len() != n {
        return Err(PlanningError::DimensionMismatch {
            what,
            expected: n,
            found: v.len(),
        });
    }
    for &x in v {
        if x.is_nan() || x <= 0.0 {
            return Err(PlanningError::InvalidParameter {
                name: what,
                value: x,
                expected: "> 0 (+inf for no limit)",
            });
        }
    }
    Ok(())
}
