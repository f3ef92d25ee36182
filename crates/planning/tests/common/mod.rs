//! Test mechanisms: a point mass and a planar n-link arm with point masses and gravity.
#![allow(dead_code)]

use contour_model::Mechanism;
use contour_planning::Kinematics;
use faer::MatMut;

/// Planar n-link arm, joint angles relative, point mass m_k at the end of link k, gravity −y.
#[derive(Clone, Debug)]
pub struct PlanarArm {
    pub lengths: Vec<f64>,
    pub masses: Vec<f64>,
    pub gravity: f64,
}

impl PlanarArm {
    pub fn new(n: usize) -> Self {
        Self {
            lengths: (0..n).map(|k| 1.0 - 0.2 * k as f64).collect(),
            masses: (0..n).map(|k| 2.0 - 0.5 * k as f64).collect(),
            gravity: 9.81,
        }
    }
    fn angles(&self, q: &[f64]) -> Vec<f64> {
        let mut th = 0.0;
        q.iter()
            .map(|v| {
                th += v;
                th
            })
            .collect()
    }
    /// ∂r_k/∂q_j (2 components) for j ≤ k.
    fn jac(&self, q: &[f64], k: usize, j: usize) -> [f64; 2] {
        let th = self.angles(q);
        let mut out = [0.0; 2];
        if j > k {
            return out;
        }
        for i in j..=k {
            out[0] -= self.lengths[i] * th[i].sin();
            out[1] += self.lengths[i] * th[i].cos();
        }
        out
    }
}

impl Mechanism for PlanarArm {
    fn name(&self) -> &str {
        "planar-arm"
    }
    fn dof(&self) -> usize {
        self.lengths.len()
    }
    fn n_constraints(&self) -> usize {
        0
    }
    fn mass_matrix(&self, q: &[f64], mut m: MatMut<'_, f64>) {
        let n = self.dof();
        for a in 0..n {
            for b in 0..n {
                let mut v = 0.0;
                for k in 0..n {
                    let ja = self.jac(q, k, a);
                    let jb = self.jac(q, k, b);
                    v += self.masses[k] * (ja[0] * jb[0] + ja[1] * jb[1]);
                }
                m[(a, b)] = v;
            }
        }
    }
    fn bias_forces(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
        let n = self.dof();
        let th = self.angles(q);
        let mut om = 0.0;
        let w: Vec<f64> = qd
            .iter()
            .map(|v| {
                om += v;
                om
            })
            .collect();
        for a in 0..n {
            let mut v = 0.0;
            for k in 0..n {
                // J̇_k q̇ = Σ_{i≤k} −l_i ω_i² (cos θ_i, sin θ_i)
                let mut acc = [0.0; 2];
                for i in 0..=k {
                    acc[0] -= self.lengths[i] * w[i] * w[i] * th[i].cos();
                    acc[1] -= self.lengths[i] * w[i] * w[i] * th[i].sin();
                }
                let ja = self.jac(q, k, a);
                v += self.masses[k] * (ja[0] * acc[0] + ja[1] * (acc[1] + self.gravity));
            }
            h[a] = v;
        }
    }
    fn constraints(&self, _t: f64, _q: &[f64], _phi: &mut [f64]) {}
    fn constraint_jacobian(&self, _t: f64, _q: &[f64], _j: MatMut<'_, f64>) {}
    fn constraint_accel_bias(&self, _t: f64, _q: &[f64], _qd: &[f64], _rho: &mut [f64]) {}
}

/// Tip kinematics of a 2-link arm (elbow-down inverse).
#[derive(Clone, Debug)]
pub struct TwoLinkKinematics {
    pub l1: f64,
    pub l2: f64,
}

impl Kinematics for TwoLinkKinematics {
    fn dim(&self) -> usize {
        2
    }
    fn forward(&self, q: &[f64], p: &mut [f64]) {
        p[0] = self.l1 * q[0].cos() + self.l2 * (q[0] + q[1]).cos();
        p[1] = self.l1 * q[0].sin() + self.l2 * (q[0] + q[1]).sin();
    }
    fn jacobian(&self, q: &[f64], mut j: MatMut<'_, f64>) {
        let (s1, c1, s12, c12) = (
            q[0].sin(),
            q[0].cos(),
            (q[0] + q[1]).sin(),
            (q[0] + q[1]).cos(),
        );
        j[(0, 0)] = -self.l1 * s1 - self.l2 * s12;
        j[(0, 1)] = -self.l2 * s12;
        j[(1, 0)] = self.l1 * c1 + self.l2 * c12;
        j[(1, 1)] = self.l2 * c12;
    }
    fn jacobian_dot_qd(&self, q: &[f64], qd: &[f64], out: &mut [f64]) {
        let w12 = qd[0] + qd[1];
        out[0] = -self.l1 * q[0].cos() * qd[0] * qd[0] - self.l2 * (q[0] + q[1]).cos() * w12 * w12;
        out[1] = -self.l1 * q[0].sin() * qd[0] * qd[0] - self.l2 * (q[0] + q[1]).sin() * w12 * w12;
    }
    fn inverse_guess(&self, p: &[f64], q: &mut [f64]) {
        let c2 = ((p[0] * p[0] + p[1] * p[1] - self.l1 * self.l1 - self.l2 * self.l2)
            / (2.0 * self.l1 * self.l2))
            .clamp(-1.0, 1.0);
        q[1] = c2.acos();
        q[0] = p[1].atan2(p[0]) - (self.l2 * q[1].sin()).atan2(self.l1 + self.l2 * c2);
    }
}

/// Huang's Cartesian robot as a free point mass of mass `m` on both axes.
pub fn point_mass(m: f64) -> contour_model::models::HuangCartesianRobot {
    contour_model::models::HuangCartesianRobot {
        mass: [m, m],
        ..Default::default()
    }
}

/// Line from (2, 0) to (2 + L, 0) for s in [0, 1], far from Huang's circle: B = (L, 0), B̄ = 0.
pub fn line_of_length(len: f64) -> contour_planning::CartesianJointPath {
    use contour_planning::{CartesianJointPath, Path, Segment};
    let seg = Segment::line(&[2.0, 0.0], &[2.0 + len, 0.0], 0.0, 1.0);
    CartesianJointPath::new(Path::new(vec![seg]).unwrap())
}

/// The joint-space line from `start` to `end` for s in [0, 1], one unconstrained segment.
pub fn joint_line(start: &[f64], end: &[f64]) -> contour_planning::CartesianJointPath {
    use contour_planning::{CartesianJointPath, Path, Segment};
    CartesianJointPath::new(Path::new(vec![Segment::line(start, end, 0.0, 1.0)]).unwrap())
}
