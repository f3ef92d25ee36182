//! 3-vectors and row-major 3×3 matrices.

/// A 3-vector.
pub type Vec3 = [f64; 3];
/// A 3×3 matrix, row-major: `m[i][j]` is row `i`, column `j`.
pub type Mat3 = [[f64; 3]; 3];

/// `a · b`.
#[inline]
pub fn dot(a: &Vec3, b: &Vec3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `a × b`.
#[inline]
pub fn cross(a: &Vec3, b: &Vec3) -> Vec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `a + b`.
#[inline]
pub fn add3(a: &Vec3, b: &Vec3) -> Vec3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// `a − b`.
#[inline]
pub fn sub3(a: &Vec3, b: &Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `s a`.
#[inline]
pub fn scale3(s: f64, a: &Vec3) -> Vec3 {
    [s * a[0], s * a[1], s * a[2]]
}

/// The skew matrix `a×` with `(a×) b = a × b`.
#[inline]
pub fn skew(a: &Vec3) -> Mat3 {
    [[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]]
}

/// The identity `1₃`.
#[inline]
pub fn mat3_identity() -> Mat3 {
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
}

/// `A B`.
#[inline]
pub fn mat3_mul(a: &Mat3, b: &Mat3) -> Mat3 {
    let mut c = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            c[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
        }
    }
    c
}

/// `Aᵀ`.
#[inline]
pub fn mat3_transpose(a: &Mat3) -> Mat3 {
    [
        [a[0][0], a[1][0], a[2][0]],
        [a[0][1], a[1][1], a[2][1]],
        [a[0][2], a[1][2], a[2][2]],
    ]
}

/// `A x`.
#[inline]
pub fn mat3_vec(a: &Mat3, x: &Vec3) -> Vec3 {
    [dot(&a[0], x), dot(&a[1], x), dot(&a[2], x)]
}

/// `Aᵀ x`.
#[inline]
pub fn mat3_tvec(a: &Mat3, x: &Vec3) -> Vec3 {
    [
        a[0][0] * x[0] + a[1][0] * x[1] + a[2][0] * x[2],
        a[0][1] * x[0] + a[1][1] * x[1] + a[2][1] * x[2],
        a[0][2] * x[0] + a[1][2] * x[1] + a[2][2] * x[2],
    ]
}

/// The active rotation by `angle` \[rad\] about the **unit** axis `u`
/// (Rodrigues): `R = c 1 + s u× + (1 − c) u uᵀ`.
pub fn rotation_about(u: &Vec3, angle: f64) -> Mat3 {
    let (s, c) = angle.sin_cos();
    let t = 1.0 - c;
    let [x, y, z] = *u;
    [
        [c + t * x * x, t * x * y - s * z, t * x * z + s * y],
        [t * x * y + s * z, c + t * y * y, t * y * z - s * x],
        [t * x * z - s * y, t * y * z + s * x, c + t * z * z],
    ]
}

/// The URDF roll-pitch-yaw rotation `R = R_z(yaw) R_y(pitch) R_x(roll)`
/// (fixed axes x, y, z, in that order); columns are the rotated frame's axes.
pub fn rpy_to_matrix(rpy: &Vec3) -> Mat3 {
    let rx = rotation_about(&[1.0, 0.0, 0.0], rpy[0]);
    let ry = rotation_about(&[0.0, 1.0, 0.0], rpy[1]);
    let rz = rotation_about(&[0.0, 0.0, 1.0], rpy[2]);
    mat3_mul(&rz, &mat3_mul(&ry, &rx))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rodrigues_is_orthogonal_and_rotates_the_right_way() {
        let u = [0.0, 0.0, 1.0];
        let r = rotation_about(&u, 0.5 * std::f64::consts::PI);
        let x = mat3_vec(&r, &[1.0, 0.0, 0.0]);
        assert!((x[1] - 1.0).abs() < 1e-15 && x[0].abs() < 1e-15);
        let n = 1.0 / 3f64.sqrt();
        let r = rotation_about(&[n, n, n], 0.7);
        let rtr = mat3_mul(&mat3_transpose(&r), &r);
        for i in 0..3 {
            for j in 0..3 {
                let e = if i == j { 1.0 } else { 0.0 };
                assert!((rtr[i][j] - e).abs() < 4e-16, "{rtr:?}");
            }
        }
        // rpy with only yaw = rotation about z
        let a = rpy_to_matrix(&[0.0, 0.0, 0.3]);
        let b = rotation_about(&[0.0, 0.0, 1.0], 0.3);
        assert_eq!(a, b);
        assert_eq!(
            mat3_vec(&skew(&[1.0, 2.0, 3.0]), &[-1.0, 0.5, 2.0]),
            cross(&[1.0, 2.0, 3.0], &[-1.0, 0.5, 2.0])
        );
    }
}
