//! Moreau–Jean time-stepping (Acary & Brogliato 2008, §10.1: the NSCD method of Moreau and
//! Jean) with `θ = 1` at the velocity level, on a kinematic tree against the ground. One step
//! from `(q_k, v_k)` over `h`:
//!
//! ```text
//! M(q_k) (v⁺ − v_k) = h (τ − b(q_k, v_k)) + Jᵀ P            (impulse balance, forces at k)
//! q_{k+1} = q_k ⊕ h v⁺                                       (θ = 1, on the joints' groups)
//! 0 ≤ u_n⁺ + e min(u_n⁻, 0) ⊥ P_n ≥ 0                        (Newton's impact law, per contact)
//! ```
//!
//! at the active contacts `g(q_k) ≤ margin`, with `u = J v` their normal and tangential
//! velocities (`J` from [`super::Ground::contact_rows`]). Coulomb's cone is replaced by a
//! pyramid of `k` directions `d_j = cos(2πj/k) t₁ + sin(2πj/k) t₂`, `P_t = Σ β_j d_j`, and a
//! slack `λ` (the sliding speed), after Stewart & Trinkle (1996) and Anitescu & Potra (1997):
//!
//! ```text
//! 0 ≤ d_jᵀ u_t⁺ + λ        ⊥ β_j ≥ 0
//! 0 ≤ μ P_n − Σ_j β_j      ⊥ λ ≥ 0
//! ```
//!
//! With `u⁺ = J v_free + W P`, `v_free = v_k + h M⁻¹ (τ − b)` and the Delassus matrix
//! `W = J M⁻¹ Jᵀ`, this is one LCP in `z = (P_n, β, λ)` of size `n_c (k + 2)`, solved by
//! [`Lemke`] (its matrix is copositive-plus, so Lemke's method does not end on a ray).
//! `v⁺ = v_free + M⁻¹ Jᵀ P`. Every buffer is allocated in [`MoreauJean::new`] for all the
//! spheres at once: a step allocates nothing.

use super::geometry::{ContactGeometry, Ground};
use crate::error::ContactError;
use crate::lcp::Lemke;
use contour_linalg::Cholesky;
use contour_model::spatial::Vec3;
use contour_model::tree::{KinematicTree, TreeData};
use faer::Mat;

/// Options of [`MoreauJean`].
///
/// | field | default | range |
/// |---|---|---|
/// | `h` | `1e-3` s | `> 0`, finite |
/// | `friction_directions` | 4 | `≥ 3` |
/// | `margin` | 0 m | `≥ 0` |
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoreauJeanConfig {
    /// Time step \[s\].
    pub h: f64,
    /// Number `k` of directions of the friction pyramid (4: the square pyramid, exact for
    /// sliding along `±t₁`, `±t₂`).
    pub friction_directions: usize,
    /// A contact is active when its signed distance at `q_k` is at most this \[m\].
    pub margin: f64,
}

impl Default for MoreauJeanConfig {
    fn default() -> Self {
        Self {
            h: 1e-3,
            friction_directions: 4,
            margin: 0.0,
        }
    }
}

impl MoreauJeanConfig {
    /// Checks the ranges of the table above.
    ///
    /// Errors: [`ContactError::InvalidParameter`] naming the field.
    pub fn validate(&self) -> Result<(), ContactError> {
        if !(self.h.is_finite() && self.h > 0.0) {
            return Err(ContactError::InvalidParameter {
                name: "h",
                value: self.h,
            });
        }
        if self.friction_directions < 3 {
            return Err(ContactError::InvalidParameter {
                name: "friction_directions",
                value: self.friction_directions as f64,
            });
        }
        if !(self.margin.is_finite() && self.margin >= 0.0) {
            return Err(ContactError::InvalidParameter {
                name: "margin",
                value: self.margin,
            });
        }
        Ok(())
    }
}

/// What one step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StepReport {
    /// Active contacts.
    pub contacts: usize,
    /// Rows of the LCP (`contacts · (k + 2)`).
    pub lcp_size: usize,
    /// Pivots of Lemke's method.
    pub pivots: usize,
}

/// The Moreau–Jean stepper of a tree, its contact spheres and the ground, with its scratch.
#[derive(Debug)]
pub struct MoreauJean<'t> {
    tree: &'t KinematicTree,
    geometry: ContactGeometry,
    ground: Ground,
    config: MoreauJeanConfig,
    data: TreeData,
    mass: Mat<f64>,
    chol: Cholesky,
    /// `τ − b`, then `M⁻¹ (τ − b)`.
    rhs: Vec<f64>,
    v_free: Vec<f64>,
    q_next: Vec<f64>,
    /// The active contacts' rows `[n; t₁; t₂] J` (3 per contact).
    jc: Mat<f64>,
    jp: Mat<f64>,
    /// `M⁻¹ Jᵀ` (nv × 3 n_c).
    y: Mat<f64>,
    /// The Delassus matrix `J M⁻¹ Jᵀ` (3 n_c square, row-major).
    delassus: Vec<f64>,
    u_free: Vec<f64>,
    u_minus: Vec<f64>,
    lcp_a: Vec<f64>,
    lcp_b: Vec<f64>,
    lcp_z: Vec<f64>,
    lcp_w: Vec<f64>,
    lemke: Lemke,
    /// `(cos, sin)` of the pyramid's directions.
    directions: Vec<(f64, f64)>,
    /// Per active contact: the sphere's index, its contact point (body coordinates), its
    /// signed distance and its impulse `(P_n, P_t1, P_t2)` \[N s\].
    active: Vec<ActiveContact>,
}

/// An active contact of the last step.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ActiveContact {
    /// Index of the sphere in [`ContactGeometry::spheres`].
    pub sphere: usize,
    /// The contact point in body coordinates \[m\].
    pub point: Vec3,
    /// Signed distance at the start of the step \[m\].
    pub gap: f64,
    /// Impulse over the step in the contact frame `(n, t₁, t₂)` \[N s\].
    pub impulse: Vec3,
}

impl<'t> MoreauJean<'t> {
    /// A stepper for `tree` with the spheres of `geometry` against `ground`; allocates every
    /// buffer for all spheres active at once.
    ///
    /// Errors: [`ContactError::InvalidParameter`] from [`MoreauJeanConfig::validate`] and
    /// [`Ground::validate`].
    pub fn new(
        tree: &'t KinematicTree,
        geometry: ContactGeometry,
        ground: Ground,
        config: MoreauJeanConfig,
    ) -> Result<Self, ContactError> {
        config.validate()?;
        ground.validate()?;
        let (nv, ns, k) = (
            tree.nv(),
            geometry.spheres().len(),
            config.friction_directions,
        );
        let rows = 3 * ns;
        let lcp = ns * (k + 2);
        let directions = (0..k)
            .map(|j| {
                let a = 2.0 * std::f64::consts::PI * j as f64 / k as f64;
                (a.cos(), a.sin())
            })
            .collect();
        Ok(Self {
            tree,
            ground,
            config,
            data: tree.data(),
            mass: Mat::zeros(nv, nv),
            chol: Cholesky::new(nv),
            rhs: vec![0.0; nv],
            v_free: vec![0.0; nv],
            q_next: vec![0.0; tree.nq()],
            jc: Mat::zeros(rows, nv),
            jp: Mat::zeros(3, nv),
            y: Mat::zeros(nv, rows),
            delassus: vec![0.0; rows * rows],
            u_free: vec![0.0; rows],
            u_minus: vec![0.0; rows],
            lcp_a: vec![0.0; lcp * lcp],
            lcp_b: vec![0.0; lcp],
            lcp_z: vec![0.0; lcp],
            lcp_w: vec![0.0; lcp],
            lemke: Lemke::new(lcp),
            directions,
            active: Vec::with_capacity(ns),
            geometry,
        })
    }

    /// The options.
    pub fn config(&self) -> &MoreauJeanConfig {
        &self.config
    }

    /// The ground.
    pub fn ground(&self) -> &Ground {
        &self.ground
    }

    /// The contact spheres.
    pub fn geometry(&self) -> &ContactGeometry {
        &self.geometry
    }

    /// The active contacts of the last step with their impulses.
    pub fn contacts(&self) -> &[ActiveContact] {
        &self.active
    }

    /// `Σ P_n / h` over the active contacts of the last step: the mean normal force \[N\].
    pub fn total_normal_force(&self) -> f64 {
        self.active.iter().map(|c| c.impulse[0]).sum::<f64>() / self.config.h
    }

    /// One step `(q, v) ← (q ⊕ h v⁺, v⁺)` with the joint forces `tau` (length nv) held over
    /// the step.
    ///
    /// Errors: [`ContactError::DimensionMismatch`] for the lengths; from the tree (non-finite
    /// state); [`ContactError::NotPositiveDefinite`] for the mass matrix; from [`Lemke`].
    pub fn step(
        &mut self,
        q: &mut [f64],
        v: &mut [f64],
        tau: &[f64],
    ) -> Result<StepReport, ContactError> {
        let tree = self.tree;
        let (nv, h) = (tree.nv(), self.config.h);
        for (what, len, expected) in [
            ("q", q.len(), tree.nq()),
            ("v", v.len(), nv),
            ("tau", tau.len(), nv),
        ] {
            if len != expected {
                return Err(ContactError::DimensionMismatch {
                    what,
                    expected,
                    found: len,
                });
            }
        }
        // free velocity: v_free = v + h M⁻¹ (τ − b(q, v))
        tree.mass_matrix_with(&mut self.data, q, self.mass.as_mut())?;
        self.chol
            .factor(self.mass.as_ref())
            .map_err(|e| ContactError::factorization("mass matrix", e))?;
        tree.bias_forces_with(&mut self.data, q, v, &mut self.rhs)?;
        for (r, t) in self.rhs.iter_mut().zip(tau) {
            *r = t - *r;
        }
        self.chol.solve_in_place(&mut self.rhs);
        for i in 0..nv {
            self.v_free[i] = v[i] + h * self.rhs[i];
        }
        // the active contacts and their rows
        self.active.clear();
        for (s, sphere) in self.geometry.spheres().iter().enumerate() {
            let (gap, point) = self
                .ground
                .sphere_contact(tree, &mut self.data, q, sphere)?;
            if gap <= self.config.margin {
                let a = self.active.len();
                self.ground.contact_rows(
                    tree,
                    &mut self.data,
                    q,
                    sphere.body,
                    point,
                    self.jp.as_mut(),
                    self.jc.as_mut().subrows_mut(3 * a, 3),
                )?;
                self.active.push(ActiveContact {
                    sphere: s,
                    point,
                    gap,
                    impulse: [0.0; 3],
                });
            }
        }
        let nc = self.active.len();
        let mut report = StepReport {
            contacts: nc,
            ..StepReport::default()
        };
        if nc > 0 {
            report.lcp_size = self.solve_contacts(v)?;
            report.pivots = self.lemke.pivots();
        }
        v.copy_from_slice(&self.v_free);
        tree.integrate(q, v, h, &mut self.q_next)?;
        q.copy_from_slice(&self.q_next);
        Ok(report)
    }

    /// The LCP of the active contacts; `v_free` becomes `v⁺`. Returns the LCP's size.
    fn solve_contacts(&mut self, v: &[f64]) -> Result<usize, ContactError> {
        let nv = self.tree.nv();
        let nc = self.active.len();
        let rows = 3 * nc;
        let k = self.directions.len();
        let mu = self.ground.mu;
        let e = self.ground.restitution;
        // Y = M⁻¹ Jᵀ, W = J Y, u_free = J v_free, u⁻ = J v
        for r in 0..rows {
            for c in 0..nv {
                self.y[(c, r)] = self.jc[(r, c)];
            }
        }
        self.chol
            .solve_mat_in_place(self.y.as_mut().subcols_mut(0, rows));
        for r in 0..rows {
            for s in 0..rows {
                self.delassus[r * rows + s] =
                    (0..nv).map(|c| self.jc[(r, c)] * self.y[(c, s)]).sum();
            }
            self.u_free[r] = (0..nv).map(|c| self.jc[(r, c)] * self.v_free[c]).sum();
            self.u_minus[r] = (0..nv).map(|c| self.jc[(r, c)] * v[c]).sum();
        }
        // z = (P_n [nc], β [nc k], λ [nc]); a row of the (P_n, β) blocks is g = e_{3a} or
        // cos_j e_{3a+1} + sin_j e_{3a+2}, so A_rs = g_rᵀ W g_s
        let m = nc * (k + 2);
        let nb = nc * (k + 1);
        let gen = |r: usize| -> [(usize, f64); 2] {
            if r < nc {
                [(3 * r, 1.0), (3 * r, 0.0)]
            } else {
                let (a, j) = ((r - nc) / k, (r - nc) % k);
                let (c, s) = self.directions[j];
                [(3 * a + 1, c), (3 * a + 2, s)]
            }
        };
        let a_mat = &mut self.lcp_a[..m * m];
        a_mat.fill(0.0);
        for r in 0..nb {
            let gr = gen(r);
            for s in 0..nb {
                let gs = gen(s);
                let mut x = 0.0;
                for &(p, cp) in &gr {
                    for &(t, ct) in &gs {
                        x += cp * self.delassus[p * rows + t] * ct;
                    }
                }
                a_mat[r * m + s] = x;
            }
            self.lcp_b[r] = gr.iter().map(|&(p, cp)| cp * self.u_free[p]).sum::<f64>();
        }
        for a in 0..nc {
            // Newton's law on the normal row: u_n⁺ + e min(u_n⁻, 0) ≥ 0
            self.lcp_b[a] += e * self.u_minus[3 * a].min(0.0);
            let lam = nb + a;
            a_mat[lam * m + a] = mu;
            for j in 0..k {
                let beta = nc + a * k + j;
                a_mat[beta * m + lam] = 1.0;
                a_mat[lam * m + beta] = -1.0;
            }
            self.lcp_b[lam] = 0.0;
        }
        self.lemke.solve(
            &self.lcp_a[..m * m],
            &self.lcp_b[..m],
            &mut self.lcp_z[..m],
            &mut self.lcp_w[..m],
        )?;
        // P in the contact frames, v⁺ = v_free + Y P
        for (a, c) in self.active.iter_mut().enumerate() {
            let mut p = [self.lcp_z[a], 0.0, 0.0];
            for (j, &(cj, sj)) in self.directions.iter().enumerate() {
                let b = self.lcp_z[nc + a * k + j];
                p[1] += cj * b;
                p[2] += sj * b;
            }
            c.impulse = p;
            for (r, pr) in p.iter().enumerate() {
                for i in 0..nv {
                    self.v_free[i] += self.y[(i, 3 * a + r)] * pr;
                }
            }
        }
        Ok(m)
    }
}
