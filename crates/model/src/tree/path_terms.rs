//! Inverse dynamics along a path without the mass matrix, and a body-frame RNEA for one state.
//!
//! Along a curve `q = Q(s)` with `q̇ = B ṡ`, `q̈ = B s̈ + B̄ ṡ²` (Huang (4.3.2)) the joint forces
//! are affine in `s̈` and in `ṡ²` (Huang (4.3.6), (4.3.24)):
//!
//! ```text
//! τ = M(Q) q̈ + h(Q, q̇) = a s̈ + b ṡ² + c,
//! a = M B = RNEA(Q, 0, B) without gravity,
//! b = M B̄ + C(Q, B) B = RNEA(Q, B, B̄) without gravity,
//! c = h(Q, 0) = RNEA(Q, 0, 0) (gravity alone),
//! ```
//!
//! because `h(q, q̇) = C(q, q̇) q̇ + g(q)` is quadratic in `q̇` and RNEA is linear in `q̈` and in
//! the gravity field. The three RNEAs of RBDA Table 5.1 share one forward kinematics and one
//! world-inertia transform ([`KinematicTree::path_terms`]), in world coordinates as
//! [`KinematicTree`]'s own RNEA and CRBA: with `⁰S_i`, `⁰I_i` and `v_i = Σ_{j ≼ i} ⁰S_j B_j`,
//!
//! ```text
//! a-pass:  α_i = v_i                                    f^a_i = ⁰I_i v_i
//! b-pass:  β_i = β_λ + ⁰S_i B̄_i + v_i × ⁰S_i B_i        f^b_i = ⁰I_i β_i + v_i ×* f^a_i
//! c-pass:  γ_i = −a_g                                   f^c_i = ⁰I_i (−a_g)
//! a_k = ⁰S_iᵀ Σ_{j ∈ subtree(i)} f^a_j  (and b_k, c_k alike)
//! ```
//!
//! (the a-pass's acceleration `Σ ⁰S_j B_j` is the b-pass's velocity). Three inertia products
//! per body instead of the CRBA's composite inertias and two RNEAs.
//!
//! [`KinematicTree::rnea_body`] is RBDA Table 5.1 as printed, in body coordinates: for one
//! state at a new `q` it needs only `X_up` (no `⁰X_i`, no world inertias).

use super::data::TreeData;
use super::KinematicTree;
use crate::spatial::{cross, scale3, Force, Motion};

impl KinematicTree {
    /// `a = M(q) q'`, `b = M(q) q'' + C(q, q') q'`, `c = h(q, 0)` into `a`, `b`, `c` (lengths
    /// N, unchecked: [`crate::Mechanism::fast_path_coefficients`]' contract) by the three
    /// world-frame passes of the module doc, sharing the forward kinematics and the world
    /// inertias with [`KinematicTree`]'s CRBA and RNEA (and their caches).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn path_terms(
        &self,
        ws: &mut TreeData,
        q: &[f64],
        qp: &[f64],
        qpp: &[f64],
        a: &mut [f64],
        b: &mut [f64],
        c: &mut [f64],
    ) {
        if let (Some(l), Some(d)) = (self.lumped(), ws.lumped.as_deref_mut()) {
            return l.path_terms(d, q, qp, qpp, a, b, c);
        }
        // a_0 = −a_g, RBDA Table 5.1
        let a_root = Motion::new([0.0; 3], scale3(-1.0, &self.gravity));
        self.world_inertias(ws, q);
        let nb = self.n_bodies();
        // ws.v: v_i (= the a-pass acceleration), ws.a: β_i; forces f^a, f^b, f^c in ws.f,
        // ws.pa, ws.uu (ABA's scratch, rewritten by every ABA call)
        for i in 0..nb {
            let s = ws.s_world[i];
            let vj = self.qi(i, qp) * s;
            let (vp, bp) = match self.parent[i] {
                Some(p) => (ws.v[p], ws.a[p]),
                None => (Motion::ZERO, Motion::ZERO),
            };
            let v = vp + vj;
            let beta = bp + v.cross_motion(&vj) + self.qi(i, qpp) * s;
            let inertia = &ws.iw[i];
            let fa = inertia.apply(&v);
            ws.f[i] = fa;
            ws.pa[i] = inertia.apply(&beta) + v.cross_force(&fa);
            // ⁰I_i [0; −g] = [h × (−g); m (−g)]: `apply` with ω = 0 (RBDA (2.63))
            ws.uu[i] = Force::new(
                cross(&inertia.h, &a_root.lin),
                scale3(inertia.mass, &a_root.lin),
            );
            ws.v[i] = v;
            ws.a[i] = beta;
        }
        for i in (0..nb).rev() {
            let (fa, fb, fc) = (ws.f[i], ws.pa[i], ws.uu[i]);
            if let Some(k) = self.q_index[i] {
                let s = &ws.s_world[i];
                a[k] = s.dot(&fa);
                b[k] = s.dot(&fb);
                c[k] = s.dot(&fc);
            }
            if let Some(p) = self.parent[i] {
                ws.f[p] += fa;
                ws.pa[p] += fb;
                ws.uu[p] += fc;
            }
        }
    }

    /// RNEA into `tau` (RBDA Table 5.1 in body coordinates), gravity included:
    ///
    /// ```text
    /// v_i = X_up(i) v_λ + S_i q̇_i,   a_i = X_up(i) a_λ + S_i q̈_i + v_i × S_i q̇_i   (a_0 = −a_g),
    /// f_i = I_i a_i + v_i ×* I_i v_i,   τ_i = S_iᵀ f_i,   f_λ += X_up(i)ᵀ f_i.
    /// ```
    ///
    /// One state at a new `q` needs only `X_up` (shared with the other algorithms through
    /// [`KinematicTree::up_transforms`]' cache): no `⁰X_i` and no world inertias, which the
    /// world-frame RNEA needs. Equal to it up to round-off. `ws.v`, `ws.a`, `ws.f` are left in
    /// body coordinates (as after ABA).
    pub(crate) fn rnea_body(
        &self,
        ws: &mut TreeData,
        q: &[f64],
        qd: &[f64],
        qdd: &[f64],
        tau: &mut [f64],
    ) {
        if let (Some(l), Some(d)) = (self.lumped(), ws.lumped.as_deref_mut()) {
            return l.rnea_body(d, q, qd, qdd, tau);
        }
        let a_root = Motion::new([0.0; 3], scale3(-1.0, &self.gravity));
        self.up_transforms(ws, q);
        let nb = self.n_bodies();
        for i in 0..nb {
            let s = self.joint[i].motion_subspace();
            let x = &ws.xup[i];
            let vj = self.qi(i, qd) * s;
            let (vp, ap) = match self.parent[i] {
                Some(p) => (x.apply_motion(&ws.v[p]), x.apply_motion(&ws.a[p])),
                None => (Motion::ZERO, x.apply_motion(&a_root)),
            };
            let v = vp + vj;
            let a = ap + self.qi(i, qdd) * s + v.cross_motion(&vj);
            let inertia = &self.inertia[i];
            ws.f[i] = inertia.apply(&a) + v.cross_force(&inertia.apply(&v));
            ws.v[i] = v;
            ws.a[i] = a;
        }
        for i in (0..nb).rev() {
            let f = ws.f[i];
            if let Some(k) = self.q_index[i] {
                tau[k] = self.joint[i].motion_subspace().dot(&f);
            }
            if let Some(p) = self.parent[i] {
                let fp: Force = ws.xup[i].transpose_apply_force(&f);
                ws.f[p] += fp;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::models::{arm7_initial_q, ssrms_arm};
    use crate::spatial::{SpatialInertia, Transform};
    use crate::tree::{Joint, KinematicTree};
    use crate::Mechanism;
    use faer::Mat;

    /// A branched tree with every joint kind (revolute about a unit and a general axis,
    /// prismatic, fixed) and gravity along no axis.
    fn branched() -> KinematicTree {
        let mut t = KinematicTree::new("branched").with_gravity([0.3, -1.2, -9.5]);
        let i = |m: f64, c: [f64; 3]| {
            SpatialInertia::from_mass_com_inertia(
                m,
                c,
                [[0.3, 0.01, 0.02], [0.01, 0.2, 0.03], [0.02, 0.03, 0.25]],
            )
        };
        let x = |r: [f64; 3], th: f64| Transform::rot_x(th).compose(&Transform::translation(r));
        let b0 = t
            .add_body(
                "b0",
                None,
                Joint::RZ,
                x([0.0, 0.0, 0.1], 0.0),
                i(2.0, [0.1, 0.0, 0.2]),
            )
            .unwrap();
        let gen = Joint::revolute([0.6, 0.0, 0.8]).unwrap();
        let b1 = t
            .add_body(
                "b1",
                Some(b0),
                gen,
                x([0.3, 0.1, 0.0], 0.4),
                i(1.5, [0.2, 0.1, 0.0]),
            )
            .unwrap();
        t.add_body(
            "b2",
            Some(b1),
            Joint::PX,
            x([0.2, 0.0, 0.1], -0.3),
            i(0.7, [0.0, 0.1, 0.1]),
        )
        .unwrap();
        let b3 = t
            .add_body(
                "b3",
                Some(b0),
                Joint::Fixed,
                x([0.0, 0.4, 0.0], 0.2),
                i(0.5, [0.1, 0.1, 0.1]),
            )
            .unwrap();
        t.add_body(
            "b4",
            Some(b3),
            Joint::RY,
            x([0.1, 0.2, 0.3], 0.7),
            i(0.9, [0.0, 0.2, 0.1]),
        )
        .unwrap();
        t
    }

    fn close(x: &[f64], y: &[f64]) -> bool {
        let scale = y.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        x.iter().zip(y).all(|(u, v)| (u - v).abs() <= 1e-12 * scale)
    }

    /// `a = M q'`, `b = M q'' + h(q, q') − h(q, 0)`, `c = h(q, 0)` (CRBA and RNEA) to round-off,
    /// on the 7-joint arm and on a branched tree with fixed, prismatic and general-axis joints.
    #[test]
    fn path_terms_equal_mass_matrix_and_bias_forces() {
        let mut arm = ssrms_arm();
        arm.set_gravity([0.0, 0.0, -9.81]);
        let q7 = arm7_initial_q().to_vec();
        for tree in [arm, branched()] {
            let n = tree.dof();
            let q: Vec<f64> = if n == 7 {
                q7.clone()
            } else {
                (0..n).map(|k| 0.3 + 0.2 * k as f64).collect()
            };
            let qp: Vec<f64> = (0..n).map(|k| 0.7 - 0.25 * k as f64).collect();
            let qpp: Vec<f64> = (0..n).map(|k| -1.1 + 0.4 * k as f64).collect();
            let mut m = Mat::<f64>::zeros(n, n);
            tree.mass_matrix(&q, m.as_mut());
            let (mut h1, mut h0) = (vec![0.0; n], vec![0.0; n]);
            tree.bias_forces(&q, &qp, &mut h1);
            tree.bias_forces(&q, &vec![0.0; n], &mut h0);
            let mb: Vec<f64> = (0..n)
                .map(|i| (0..n).map(|j| m[(i, j)] * qp[j]).sum())
                .collect();
            let want_b: Vec<f64> = (0..n)
                .map(|i| (0..n).map(|j| m[(i, j)] * qpp[j]).sum::<f64>() + h1[i] - h0[i])
                .collect();
            let (mut a, mut b, mut c) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
            tree.fast_path_coefficients(&q, &qp, &qpp, &mut a, &mut b, &mut c)
                .unwrap();
            assert!(close(&a, &mb), "a {a:?} vs {mb:?}");
            assert!(close(&b, &want_b), "b {b:?} vs {want_b:?}");
            assert!(close(&c, &h0), "c {c:?} vs {h0:?}");
            assert!(b.iter().any(|v| v.abs() > 1e-2) && c.iter().any(|v| v.abs() > 1e-2));
            // and τ at (q, q' ṡ, q' s̈ + q'' ṡ²) is a s̈ + b ṡ² + c (RNEA, body and world frame)
            let (sd, sdd) = (1.3, -0.6);
            let qd: Vec<f64> = qp.iter().map(|v| v * sd).collect();
            let qdd: Vec<f64> = (0..n).map(|k| qp[k] * sdd + qpp[k] * sd * sd).collect();
            let (mut t_world, mut t_body) = (vec![0.0; n], vec![0.0; n]);
            tree.inverse_dynamics(&q, &qd, &qdd, &mut t_world).unwrap();
            tree.fast_inverse_dynamics(&q, &qd, &qdd, &mut t_body)
                .unwrap();
            let affine: Vec<f64> = (0..n).map(|k| a[k] * sdd + b[k] * sd * sd + c[k]).collect();
            assert!(close(&affine, &t_world), "{affine:?} vs {t_world:?}");
            assert!(close(&t_body, &t_world), "{t_body:?} vs {t_world:?}");
        }
    }

    /// The coefficients against finite differences of the inverse dynamics along
    /// `q(s) = q0 + s q' + ½ s² q''` at s = 0: `τ(ṡ, s̈)` is exactly affine in `s̈` and `ṡ²`, so
    /// differences in `s̈` and `ṡ` recover `a` and `b`.
    #[test]
    fn path_terms_match_differences_of_inverse_dynamics() {
        let tree = branched();
        let n = tree.dof();
        let q: Vec<f64> = (0..n).map(|k| -0.2 + 0.3 * k as f64).collect();
        let qp: Vec<f64> = (0..n).map(|k| 0.5 + 0.1 * k as f64).collect();
        let qpp: Vec<f64> = (0..n).map(|k| 0.9 - 0.5 * k as f64).collect();
        let tau = |sd: f64, sdd: f64| {
            let qd: Vec<f64> = qp.iter().map(|v| v * sd).collect();
            let qdd: Vec<f64> = (0..n).map(|k| qp[k] * sdd + qpp[k] * sd * sd).collect();
            let mut t = vec![0.0; n];
            tree.inverse_dynamics(&q, &qd, &qdd, &mut t).unwrap();
            t
        };
        let (mut a, mut b, mut c) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        tree.fast_path_coefficients(&q, &qp, &qpp, &mut a, &mut b, &mut c)
            .unwrap();
        let t0 = tau(0.0, 0.0);
        let (ta, tb) = (tau(0.0, 1.0), tau(1.0, 0.0));
        let fa: Vec<f64> = (0..n).map(|k| ta[k] - t0[k]).collect();
        let fb: Vec<f64> = (0..n).map(|k| tb[k] - t0[k]).collect();
        assert!(close(&a, &fa), "{a:?} vs {fa:?}");
        assert!(close(&b, &fb), "{b:?} vs {fb:?}");
        assert!(close(&c, &t0), "{c:?} vs {t0:?}");
        // a wrong q'' must show
        let mut qpp2 = qpp.clone();
        qpp2[1] += 1e-3;
        tree.fast_path_coefficients(&q, &qp, &qpp2, &mut a, &mut b, &mut c)
            .unwrap();
        assert!(!close(&b, &fb));
    }
}
