//! Each kind against its own definitions: `difference` inverts `integrate`, `S v` is the
//! body-frame twist of `X_J(q ⊕ ε v)` (central differences), the neutral `q` gives `X_J = 1`.

use super::*;
use crate::spatial::{mat3_mul, mat3_transpose, sub3, Mat3};

fn kinds() -> Vec<Joint> {
    vec![
        Joint::revolute([0.3, -0.4, 0.5]).unwrap(),
        Joint::prismatic([0.0, 1.0, 2.0]).unwrap(),
        Joint::revolute_unbounded([1.0, 2.0, -0.5]).unwrap(),
        Joint::Spherical,
        Joint::FreeFlyer,
        Joint::Planar,
    ]
}

fn random_q(j: &Joint, rng: &mut SplitMix64) -> Vec<f64> {
    let nq = j.nq();
    let mut q = vec![0.0; nq];
    j.random_configuration(rng, &vec![-2.0; nq], &vec![2.0; nq], &mut q)
        .unwrap();
    q
}

fn max_abs(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

#[test]
fn difference_inverts_integrate() {
    let mut rng = SplitMix64::new(7);
    for j in kinds() {
        for _ in 0..50 {
            let q0 = random_q(&j, &mut rng);
            let v: Vec<f64> = rng.vector(j.nv(), -1.5, 1.5);
            let mut q1 = vec![0.0; j.nq()];
            j.integrate(&q0, &v, 1.0, &mut q1).unwrap();
            let mut d = vec![0.0; j.nv()];
            j.difference(&q0, &q1, &mut d).unwrap();
            assert!(max_abs(&d, &v) < 1e-13, "{j:?}: {d:?} vs {v:?}");
            // and back: q0 ⊕ (q1 ⊖ q0) = q1 (the quaternion up to its sign)
            let q2 = random_q(&j, &mut rng);
            j.difference(&q0, &q2, &mut d).unwrap();
            j.integrate(&q0, &d, 1.0, &mut q1).unwrap();
            let xa = j.transform_q(&q1).unwrap();
            let xb = j.transform_q(&q2).unwrap();
            let e: f64 = (0..3)
                .map(|r| max_abs(&xa.rot[r], &xb.rot[r]))
                .fold(max_abs(&xa.trans, &xb.trans), f64::max);
            assert!(e < 1e-13, "{j:?}: {e:e} at q0 {q0:?}, q2 {q2:?}");
        }
    }
}

/// `(R, p)` of the placement `X_J⁻¹` (columns of `R`: child axes in parent coordinates).
fn placement(j: &Joint, q: &[f64]) -> (Mat3, [f64; 3]) {
    let x = j.transform_q(q).unwrap();
    (mat3_transpose(&x.rot), x.trans)
}

#[test]
fn subspace_is_the_body_twist_of_integrate() {
    let mut rng = SplitMix64::new(11);
    let eps = 1e-6;
    for j in kinds() {
        let mut s = vec![Motion::ZERO; j.nv()];
        j.motion_subspace_into(&mut s).unwrap();
        for _ in 0..10 {
            let q = random_q(&j, &mut rng);
            let v: Vec<f64> = rng.vector(j.nv(), -1.0, 1.0);
            let (mut qp, mut qm) = (vec![0.0; j.nq()], vec![0.0; j.nq()]);
            j.integrate(&q, &v, eps, &mut qp).unwrap();
            j.integrate(&q, &v, -eps, &mut qm).unwrap();
            let (r, _) = placement(&j, &q);
            let ((rp, pp), (rm, pm)) = (placement(&j, &qp), placement(&j, &qm));
            // Ṙ and ṗ by central differences; body twist ω = (Rᵀ Ṙ)^∨, v = Rᵀ ṗ
            let rd: Mat3 = std::array::from_fn(|a| {
                std::array::from_fn(|b| (rp[a][b] - rm[a][b]) / (2.0 * eps))
            });
            let w = mat3_mul(&mat3_transpose(&r), &rd);
            let omega = [w[2][1], w[0][2], w[1][0]];
            let pd = sub3(&pp, &pm).map(|c| c / (2.0 * eps));
            let lin = crate::spatial::mat3_tvec(&r, &pd);
            let sv = s
                .iter()
                .zip(&v)
                .fold(Motion::ZERO, |acc, (sk, vk)| acc + *vk * *sk);
            assert!(max_abs(&sv.ang, &omega) < 1e-8, "{j:?} ω {sv:?} {omega:?}");
            assert!(max_abs(&sv.lin, &lin) < 1e-8, "{j:?} v {sv:?} {lin:?}");
        }
    }
}

#[test]
fn neutral_is_the_identity_and_random_stays_in_bounds() {
    let mut rng = SplitMix64::new(3);
    for j in kinds() {
        let mut q = vec![f64::NAN; j.nq()];
        j.neutral(&mut q).unwrap();
        assert_eq!(j.transform_q(&q).unwrap(), Transform::IDENTITY, "{j:?}");
        for _ in 0..20 {
            let q = random_q(&j, &mut rng);
            match j {
                Joint::Spherical => {
                    assert!((q.iter().map(|c| c * c).sum::<f64>() - 1.0).abs() < 1e-15)
                }
                Joint::FreeFlyer => {
                    assert!(q[..3].iter().all(|c| (-2.0..=2.0).contains(c)));
                    assert!((q[3..].iter().map(|c| c * c).sum::<f64>() - 1.0).abs() < 1e-15);
                }
                _ => assert!(q[..j.nq().min(2)].iter().all(|c| (-2.0..=2.0).contains(c))),
            }
        }
    }
}

#[test]
fn bad_lengths_and_bounds_are_typed_errors() {
    let j = Joint::FreeFlyer;
    let mut out = [0.0; 7];
    assert!(matches!(
        j.integrate(&[0.0; 6], &[0.0; 6], 1.0, &mut out),
        Err(ModelError::DimensionMismatch {
            expected: 7,
            found: 6,
            ..
        })
    ));
    assert!(matches!(
        j.difference(&[0.0; 7], &[0.0; 7], &mut [0.0; 7]),
        Err(ModelError::DimensionMismatch {
            expected: 6,
            found: 7,
            ..
        })
    ));
    let inf = [f64::INFINITY; 7];
    assert!(matches!(
        j.random_configuration(&mut SplitMix64::new(1), &[-1.0; 7], &inf, &mut out),
        Err(ModelError::InvalidParameter { .. })
    ));
    // unbounded kinds need no finite bounds
    let mut q = [0.0; 4];
    Joint::Spherical
        .random_configuration(
            &mut SplitMix64::new(1),
            &[f64::NEG_INFINITY; 4],
            &[f64::INFINITY; 4],
            &mut q,
        )
        .unwrap();
}

#[test]
fn free_flyer_integrates_through_pitch_half_pi() {
    // pitch π/2: the quaternion has no gimbal lock, integrate and difference stay exact
    let h = std::f64::consts::FRAC_PI_4;
    let q0 = [0.1, -0.2, 0.3, 0.0, h.sin(), 0.0, h.cos()];
    let v = [0.3, 0.2, -0.1, 0.7, -0.4, 0.9];
    let mut q1 = [0.0; 7];
    Joint::FreeFlyer.integrate(&q0, &v, 0.5, &mut q1).unwrap();
    let mut d = [0.0; 6];
    Joint::FreeFlyer.difference(&q0, &q1, &mut d).unwrap();
    assert!(max_abs(&d, &v.map(|c| 0.5 * c)) < 1e-14, "{d:?}");
}
