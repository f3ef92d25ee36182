//! Spatial motion and force vectors.

use super::mat3::{add3, cross, dot, scale3, sub3, Vec3};
use std::ops::{Add, AddAssign, Mul, Neg, Sub};

/// A spatial motion vector `m = [ω; v]` (RBDA §2.2): angular part `ω`, and
/// linear part `v`, the velocity of the body-fixed point at the frame origin.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Motion {
    /// Angular part ω \[rad/s\] (or \[rad/s²\] for accelerations).
    pub ang: Vec3,
    /// Linear part v \[m/s\] (or \[m/s²\]).
    pub lin: Vec3,
}

/// A spatial force vector `f = [n; f]` (RBDA §2.3): moment `n` about the
/// frame origin, and the resultant force `f`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Force {
    /// Moment n about the frame origin \[N·m\].
    pub ang: Vec3,
    /// Resultant force f \[N\].
    pub lin: Vec3,
}

macro_rules! spatial_ops {
    ($t:ident) => {
        impl $t {
            /// The zero vector.
            pub const ZERO: $t = $t {
                ang: [0.0; 3],
                lin: [0.0; 3],
            };
            /// From `[ang; lin]`.
            pub fn new(ang: Vec3, lin: Vec3) -> Self {
                Self { ang, lin }
            }
            /// From a 6-array `[a0, a1, a2, l0, l1, l2]`.
            pub fn from_array(a: [f64; 6]) -> Self {
                Self {
                    ang: [a[0], a[1], a[2]],
                    lin: [a[3], a[4], a[5]],
                }
            }
            /// As a 6-array `[ang; lin]`.
            pub fn to_array(&self) -> [f64; 6] {
                [
                    self.ang[0],
                    self.ang[1],
                    self.ang[2],
                    self.lin[0],
                    self.lin[1],
                    self.lin[2],
                ]
            }
        }
        impl Add for $t {
            type Output = $t;
            fn add(self, o: $t) -> $t {
                $t {
                    ang: add3(&self.ang, &o.ang),
                    lin: add3(&self.lin, &o.lin),
                }
            }
        }
        impl AddAssign for $t {
            fn add_assign(&mut self, o: $t) {
                *self = *self + o;
            }
        }
        impl Sub for $t {
            type Output = $t;
            fn sub(self, o: $t) -> $t {
                $t {
                    ang: sub3(&self.ang, &o.ang),
                    lin: sub3(&self.lin, &o.lin),
                }
            }
        }
        impl Neg for $t {
            type Output = $t;
            fn neg(self) -> $t {
                $t {
                    ang: scale3(-1.0, &self.ang),
                    lin: scale3(-1.0, &self.lin),
                }
            }
        }
        impl Mul<$t> for f64 {
            type Output = $t;
            fn mul(self, o: $t) -> $t {
                $t {
                    ang: scale3(self, &o.ang),
                    lin: scale3(self, &o.lin),
                }
            }
        }
    };
}
spatial_ops!(Motion);
spatial_ops!(Force);

impl Motion {
    /// Motion cross product `self × m = crm(self) m = [ω×ω'; ω×v' + v×ω']`, RBDA (2.31).
    #[inline]
    pub fn cross_motion(&self, m: &Motion) -> Motion {
        Motion {
            ang: cross(&self.ang, &m.ang),
            lin: add3(&cross(&self.ang, &m.lin), &cross(&self.lin, &m.ang)),
        }
    }
    /// Force cross product `self ×* f = crf(self) f = [ω×n + v×f; ω×f]`, RBDA (2.32).
    #[inline]
    pub fn cross_force(&self, f: &Force) -> Force {
        Force {
            ang: add3(&cross(&self.ang, &f.ang), &cross(&self.lin, &f.lin)),
            lin: cross(&self.ang, &f.lin),
        }
    }
    /// Scalar product `m · f = ω·n + v·f` (power).
    #[inline]
    pub fn dot(&self, f: &Force) -> f64 {
        dot(&self.ang, &f.ang) + dot(&self.lin, &f.lin)
    }
}

/// The 6×6 matrix `crm(m)` (row-major), for tests and reports.
pub fn crm_matrix(m: &Motion) -> [[f64; 6]; 6] {
    let mut out = [[0.0; 6]; 6];
    for k in 0..6 {
        let mut e = [0.0; 6];
        e[k] = 1.0;
        let col = m.cross_motion(&Motion::from_array(e)).to_array();
        for i in 0..6 {
            out[i][k] = col[i];
        }
    }
    out
}

/// The 6×6 matrix `crf(m)` (row-major).
pub fn crf_matrix(m: &Motion) -> [[f64; 6]; 6] {
    let mut out = [[0.0; 6]; 6];
    for k in 0..6 {
        let mut e = [0.0; 6];
        e[k] = 1.0;
        let col = m.cross_force(&Force::from_array(e)).to_array();
        for i in 0..6 {
            out[i][k] = col[i];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crf_is_minus_crm_transpose_and_m_cross_m_is_zero() {
        let m = Motion::from_array([0.3, -1.2, 0.7, 2.0, 0.1, -0.4]);
        let a = crm_matrix(&m);
        let b = crf_matrix(&m);
        for i in 0..6 {
            for j in 0..6 {
                assert_eq!(b[i][j], -a[j][i], "({i},{j})");
            }
        }
        let z = m.cross_motion(&m).to_array();
        assert!(z.iter().all(|x| x.abs() < 1e-15), "{z:?}");
        // (m × m')·f = −m'·(m ×* f)
        let m2 = Motion::from_array([1.0, 0.5, -0.2, 0.3, 0.9, -1.1]);
        let f = Force::from_array([0.2, -0.7, 1.3, 0.4, 0.0, 2.0]);
        let lhs = m.cross_motion(&m2).dot(&f);
        let rhs = -m2.dot(&m.cross_force(&f));
        assert!((lhs - rhs).abs() < 1e-14, "{lhs} {rhs}");
    }
}
