//! The kinetic and potential energies of a [`KinematicTree`]: `T = ½ Σ v_iᵀ ⁰I_i v_i`,
//! `V = −Σ m_i g · c_i`.

use super::KinematicTree;
use crate::spatial::{add3, dot, mat3_tvec, scale3};

impl KinematicTree {
    pub(super) fn kinetic(&self, q: &[f64], qd: &[f64]) -> f64 {
        self.with_data(|ws| {
            if self.multi {
                // body coordinates: T = ½ Σ v_iᵀ I_i v_i
                self.velocities_multi(ws, q, qd);
                return (0..self.n_bodies())
                    .map(|i| self.inertia[i].kinetic_energy(&ws.v[i]))
                    .sum();
            }
            self.world_inertias(ws, q);
            self.kinematics(ws, q, Some(qd));
            (0..self.n_bodies())
                .map(|i| ws.iw[i].kinetic_energy(&ws.v[i]))
                .sum()
        })
    }

    pub(super) fn potential(&self, q: &[f64]) -> f64 {
        self.with_data(|ws| {
            self.kinematics(ws, q, None);
            // V = −Σ g · (m_i r_i + E_iᵀ h_i) = −Σ m_i g · c_i
            (0..self.n_bodies())
                .map(|i| {
                    let x = &ws.x0[i];
                    let mc = add3(
                        &scale3(self.inertia[i].mass, &x.trans),
                        &mat3_tvec(&x.rot, &self.inertia[i].h),
                    );
                    -dot(&self.gravity, &mc)
                })
                .sum()
        })
    }
}
