//! Input checks shared by every routine of the crate: lengths and finiteness.
//!
//! Each check returns [`ModelError::DimensionMismatch`] or
//! [`ModelError::NonFinite`] naming the offending quantity and index.

use crate::{Mechanism, ModelError};
use faer::MatRef;

/// `x.len() == expected`, else [`ModelError::DimensionMismatch`].
pub fn check_len(what: &'static str, x: &[f64], expected: usize) -> Result<(), ModelError> {
    if x.len() == expected {
        Ok(())
    } else {
        Err(ModelError::DimensionMismatch {
            what,
            expected,
            found: x.len(),
        })
    }
}

/// Every entry of `x` is finite, else [`ModelError::NonFinite`] with the first bad index.
pub fn check_finite(what: &'static str, x: &[f64]) -> Result<(), ModelError> {
    if contour_linalg::all_finite(x) {
        return Ok(());
    }
    match x.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(index) => Err(ModelError::NonFinite { what, index }),
    }
}

/// Every entry of `a` is finite, else [`ModelError::NonFinite`] with the first
/// bad column-major index `row + col·nrows`.
pub fn check_finite_mat(what: &'static str, a: MatRef<'_, f64>) -> Result<(), ModelError> {
    // one branch-free pass per column; the culprit is located only on failure
    let fast = (0..a.ncols()).all(|c| {
        a.col(c)
            .try_as_col_major()
            .is_some_and(|x| contour_linalg::all_finite(x.as_slice()))
    });
    if fast {
        return Ok(());
    }
    for col in 0..a.ncols() {
        for row in 0..a.nrows() {
            if !a[(row, col)].is_finite() {
                return Err(ModelError::NonFinite {
                    what,
                    index: row + col * a.nrows(),
                });
            }
        }
    }
    Ok(())
}

/// A scalar (time, step, ...) is finite.
pub fn check_scalar(what: &'static str, x: f64) -> Result<(), ModelError> {
    if x.is_finite() {
        Ok(())
    } else {
        Err(ModelError::NonFinite { what, index: 0 })
    }
}

/// `q` has length N and is finite.
pub fn check_position<M: Mechanism + ?Sized>(mech: &M, q: &[f64]) -> Result<(), ModelError> {
    check_len("q", q, mech.dof())?;
    check_finite("q", q)
}

/// `t` is finite; `q` and `q̇` have length N and are finite.
pub fn check_state<M: Mechanism + ?Sized>(
    mech: &M,
    q: &[f64],
    qd: &[f64],
) -> Result<(), ModelError> {
    check_position(mech, q)?;
    check_len("qd", qd, mech.dof())?;
    check_finite("qd", qd)
}

/// As [`check_state`], plus the time `t`.
pub fn check_timed_state<M: Mechanism + ?Sized>(
    mech: &M,
    t: f64,
    q: &[f64],
    qd: &[f64],
) -> Result<(), ModelError> {
    check_scalar("t", t)?;
    check_state(mech, q, qd)
}

/// Output buffers: `q̈` of length N and `λ` of length L.
pub fn check_outputs<M: Mechanism + ?Sized>(
    mech: &M,
    qdd: &[f64],
    lambda: &[f64],
) -> Result<(), ModelError> {
    check_len("qdd", qdd, mech.dof())?;
    check_len("lambda", lambda, mech.n_constraints())
}

/// A model parameter that must be positive and finite (a length, a mass, an inertia), else
/// [`ModelError::InvalidParameter`].
pub fn check_positive_parameter(what: &'static str, value: f64) -> Result<(), ModelError> {
    if value > 0.0 && value.is_finite() {
        Ok(())
    } else {
        Err(ModelError::InvalidParameter { what, value })
    }
}

/// A model parameter that must be finite (gravity, a torque, a position), else
/// [`ModelError::InvalidParameter`].
pub fn check_finite_parameter(what: &'static str, value: f64) -> Result<(), ModelError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(ModelError::InvalidParameter { what, value })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::Pendulum;

    #[test]
    fn reports_wrong_lengths_and_nan() {
        let p = Pendulum::default();
        assert_eq!(
            check_state(&p, &[1.0], &[0.0, 0.0]),
            Err(ModelError::DimensionMismatch {
                what: "q",
                expected: 2,
                found: 1
            })
        );
        assert_eq!(
            check_state(&p, &[1.0, 0.0], &[0.0, 0.0, 1.0]),
            Err(ModelError::DimensionMismatch {
                what: "qd",
                expected: 2,
                found: 3
            })
        );
        assert_eq!(
            check_state(&p, &[1.0, f64::NAN], &[0.0, 0.0]),
            Err(ModelError::NonFinite {
                what: "q",
                index: 1
            })
        );
        assert_eq!(
            check_timed_state(&p, f64::INFINITY, &[1.0, 0.0], &[0.0, 0.0]),
            Err(ModelError::NonFinite {
                what: "t",
                index: 0
            })
        );
        assert_eq!(
            check_outputs(&p, &[0.0; 2], &[]),
            Err(ModelError::DimensionMismatch {
                what: "lambda",
                expected: 1,
                found: 0
            })
        );
        let a = faer::Mat::from_fn(2, 2, |i, j| if i == 1 && j == 1 { f64::NAN } else { 1.0 });
        assert_eq!(
            check_finite_mat("m", a.as_ref()),
            Err(ModelError::NonFinite {
                what: "m",
                index: 3
            })
        );
        assert!(check_state(&p, &[1.0, 0.0], &[0.0, 0.0]).is_ok());
    }
}
