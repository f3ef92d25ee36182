//! The correction (2.3) of Procedure P1: [`ManifoldProjection`], the modified Newton
//! iteration (2.15)–(2.17) with the skinny QR, the rank-revealing second look and the
//! refusal certificate (module [`super`]).

use contour_linalg::{LinalgError, PseudoInverse, SkinnyQr, DEFAULT_KKT_RANK_RTOL};
use contour_model::{Mechanism, RankDeficiency};
use faer::Mat;

use crate::error::ProjectionError;
use crate::method::check_parameters;
use crate::tolerance::{ErrorControl, NormKind};

use super::config::{PerturbationConfig, VelocityJacobian};

/// The share of the acceptance bound `accept_factor · τ` that the round-off of a residual,
/// amplified by `1/σ_min` of `(J T)ᵀ`, may take in a correction by the QR path; above it the
/// SVD path, which leaves out the components at round-off, decides (module docs). At 1% the
/// round-off moves `‖X*‖` by at most 1% of the bound, below the two digits to which the
/// acceptance test `‖X*‖ ≤ τ/2` is meaningful (the local error estimate it stands for is
/// itself an estimate); the second look at a refused correction covers the rest.
const NOISE_SHARE: f64 = 0.01;

/// The relative rank cut-off of the perturbation method with the round-off filter (the
/// correction's SVD and the evaluations' rank-revealing solve), `(64 ε)^{1/3}` ≈ 2.42e-5.
///
/// A state the correction leaves on the constraints to their round-off `c = 64 ε · scale`
/// (module docs, "Round-off filter") lies on the level set `φ = c`, which near a crossing of
/// branches is a hyperbola: at relative distance `θ` from the crossing its velocity leaves the
/// branch by about `c |v| / θ²`, and the acceleration data `J q̈ = −ρ` are inconsistent in
/// the nearly lost direction by about `c |v|² / θ²` (relative to the row's terms `|v|²`:
/// `c/θ²`). The evaluation drops that direction once `θ ≤ r` and accepts an inconsistency up
/// to `r` times the row's terms ([`contour_model::ModelError::InconsistentAtSingularity`]);
/// the largest one it meets, at `θ = r`, is `c/r²`. So `r³ ≥ c` with `c = 64 ε`:
/// `r = (64 ε)^{1/3}`. A cut-off set in `DynamicsOptions::rank_rtol` is used instead.
pub(crate) const ROUNDOFF_RANK_RTOL: f64 = 2.42e-5;

/// The safety factor of the refusal certificate (module docs, "Round-off filter"): a refused
/// correction skips the second look only when `‖X*‖` exceeds the acceptance bound by more than
/// twice the estimated effect of the round-off. It covers the inverse iteration's estimate of
/// `σ_min` (an upper estimate within a small factor of it: three steps, and near a rank loss the
/// gap `σ_min/σ_2` makes them converge fast) and the directions other than the nearly lost one
/// in the velocity residual's sensitivity to the position (at the ordinary round-off of `q`).
const CERTIFICATE_SAFETY: f64 = 2.0;

/// Steps of inverse iteration of the refusal certificate's `σ_min` estimate (as
/// [`SkinnyQr::condition_estimate`]).
const INVERSE_ITERATIONS: usize = 3;

/// An upper estimate `σ̂ ≥ σ_min(G)` of the smallest singular value of `G` by
/// [`INVERSE_ITERATIONS`] steps of inverse iteration on `G Gᵀ` from the fixed start of
/// [`SkinnyQr::condition_estimate`] (alternating signs): `solve` replaces its argument `x` by
/// `(G Gᵀ)⁻¹ x` (`false`: it cannot); `σ̂ = ‖(G Gᵀ)⁻¹ x‖^(-1/2)` for the last unit `x`, which
/// is left in `x` normalized (the estimate of the left singular vector of `σ_min`). `None`
/// when a solve fails or gives a zero or non-finite vector.
pub(crate) fn smallest_singular_value(
    x: &mut [f64],
    mut solve: impl FnMut(&mut [f64]) -> bool,
) -> Option<f64> {
    let m = x.len();
    if m == 0 {
        return None;
    }
    for (i, xi) in x.iter_mut().enumerate() {
        let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
        *xi = sign * (1.0 + i as f64 / m as f64);
    }
    let mut est = None;
    for _ in 0..INVERSE_ITERATIONS {
        let nx = x.iter().map(|v| v * v).sum::<f64>().sqrt();
        for xi in x.iter_mut() {
            *xi /= nx;
        }
        if !solve(x) {
            return None;
        }
        let nz = x.iter().map(|v| v * v).sum::<f64>().sqrt();
        if !(nz.is_finite() && nz > 0.0) {
            return None;
        }
        // ‖(G Gᵀ)⁻¹ x‖ ≤ 1/σ_min² for a unit x
        est = Some(nz.powf(-0.5));
    }
    let nx = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    for xi in x.iter_mut() {
        *xi /= nx;
    }
    est
}

/// The refusal certificate (module docs, "Round-off filter"): whether a correction the
/// acceptance bound refuses (`norm > accept`, or not converged after `iterations`) stays
/// refused by the rank-revealing second look, which can change `‖X*‖` by at most `bound`
/// (the round-off amplified by `1/σ_min`, in units of τ) per MNR iteration. A non-finite
/// norm or bound proves nothing.
pub(crate) fn refusal_stands(o: &ProjectionOutcome, accept: f64, bound: f64) -> bool {
    let iterations = if o.converged {
        1.0
    } else {
        o.iterations.max(1) as f64
    };
    let change = CERTIFICATE_SAFETY * bound * iterations;
    o.norm.is_finite() && change.is_finite() && o.norm - change > accept
}

/// `out = A x` for a column-major `A`, column by column.
fn mat_vec(a: &Mat<f64>, x: &[f64], out: &mut [f64]) {
    out.fill(0.0);
    for (k, &xk) in x.iter().enumerate().take(a.ncols()) {
        if xk == 0.0 {
            continue;
        }
        for (o, &aik) in out.iter_mut().zip(a.col_as_slice(k)) {
            *o += aik * xk;
        }
    }
}

/// `Σ |x_i|`.
pub(crate) fn norm1(x: &[f64]) -> f64 {
    x.iter().map(|v| v.abs()).sum()
}

/// Result of one manifold correction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProjectionOutcome {
    /// `‖X*‖₂ = ‖x − x̄‖` in units of τ.
    pub norm: f64,
    /// MNR iterations of the position problem.
    pub iterations: usize,
    /// Whether the position iteration converged.
    pub converged: bool,
}

/// The manifold correction of Procedure P1 step 2, (3.1)–(3.7), in preallocated storage.
#[derive(Debug)]
pub struct ManifoldProjection {
    n: usize,
    l: usize,
    ec: ErrorControl,
    max_it: usize,
    newton_tol: f64,
    vel: VelocityJacobian,
    s: Vec<f64>,
    t1: Vec<f64>,
    t2: Vec<f64>,
    j: Mat<f64>,
    a1: Mat<f64>,
    a2: Mat<f64>,
    qr1: SkinnyQr,
    qr2: SkinnyQr,
    phi: Vec<f64>,
    b: Vec<f64>,
    dmu: Vec<f64>,
    /// Round-off level of each residual row (module docs, "Round-off filter").
    noise: Vec<f64>,
    /// The round-off level of the position residual, kept for the velocity problem.
    noise_q: Vec<f64>,
    /// `J(q + w)` and `q + w` for the velocity residual's sensitivity to the position.
    jw: Mat<f64>,
    qw: Vec<f64>,
    xq: Vec<f64>,
    xv: Vec<f64>,
    accept: f64,
    rank_rtol: f64,
    rank_deficiency: RankDeficiency,
    roundoff_filter: bool,
    /// Compute a refused correction again by the rank-revealing path (with the round-off
    /// filter; not for the corrections of outputs, which are neither accepted nor refused).
    second_look: bool,
    /// Take the rank-revealing path whatever the QR says (the second look at a refused
    /// correction, module docs).
    force_svd: bool,
    /// The refused first correction, kept while the second look runs.
    refused: Vec<f64>,
    /// The SVD of the rank-revealing path (`A₁`, then `A₂` when it has its own).
    svd: PseudoInverse,
    /// Whether the last correction took the rank-revealing path in the position and in the
    /// velocity problem.
    used_svd: (bool, bool),
    /// The refusal certificate's inverse iteration (`L`), direction `u` (`N`) and `J v̄` (`L`).
    iv: Vec<f64>,
    iu: Vec<f64>,
    jv: Vec<f64>,
    /// Refused corrections computed again by the rank-revealing path (module docs).
    pub second_looks: usize,
    /// Refused corrections the refusal certificate kept from the second look.
    pub certified_refusals: usize,
    /// Corrections computed.
    pub projections: usize,
    /// MNR iterations of the position problems.
    pub iterations: usize,
    /// QR factorizations.
    pub qr_factorizations: usize,
    /// Position or velocity problems solved by the rank-revealing (SVD) path.
    pub rank_revealing: usize,
}

impl ManifoldProjection {
    /// Workspace for `mech` with tolerance `ec` (the τ of (2.1), not τ/2).
    pub fn new<M: Mechanism + ?Sized>(
        mech: &M,
        ec: ErrorControl,
        cfg: &PerturbationConfig,
    ) -> Result<Self, ProjectionError> {
        let (n, l) = (mech.dof(), mech.n_constraints());
        if ec.norm == NormKind::Max {
            return Err(ProjectionError::UnsupportedNorm {
                method: "perturbation",
            });
        }
        ec.validate()?;
        cfg.validate()?;
        Ok(Self {
            n,
            l,
            ec,
            max_it: cfg.max_newton_iterations,
            newton_tol: cfg.newton_tol,
            vel: cfg.velocity_jacobian,
            s: vec![0.0; 2 * n],
            t1: vec![0.0; n],
            t2: vec![0.0; n],
            j: Mat::zeros(l, n),
            a1: Mat::zeros(n, l),
            a2: Mat::zeros(n, l),
            qr1: SkinnyQr::new(n, l),
            qr2: SkinnyQr::new(n, l),
            phi: vec![0.0; l],
            b: vec![0.0; l],
            dmu: vec![0.0; l],
            noise: vec![0.0; l],
            noise_q: vec![0.0; l],
            jw: Mat::zeros(l, n),
            qw: vec![0.0; n],
            xq: vec![0.0; n],
            xv: vec![0.0; n],
            accept: cfg.accept_factor,
            rank_rtol: DEFAULT_KKT_RANK_RTOL,
            rank_deficiency: RankDeficiency::MinimumNorm,
            roundoff_filter: cfg.roundoff_filter,
            second_look: cfg.roundoff_filter,
            force_svd: false,
            refused: vec![0.0; 2 * n],
            svd: PseudoInverse::new(n, l),
            used_svd: (false, false),
            iv: vec![0.0; l],
            iu: vec![0.0; n],
            jv: vec![0.0; l],
            second_looks: 0,
            certified_refusals: 0,
            projections: 0,
            iterations: 0,
            qr_factorizations: 0,
            rank_revealing: 0,
        })
    }

    /// Sets the relative rank cut-off (on the singular values of `(J T)ᵀ`, default
    /// [`DEFAULT_KKT_RANK_RTOL`]) and what a numerical rank below `L` gives: the minimum-norm
    /// correction (default) or [`LinalgError::RankDeficient`] (module documentation).
    ///
    /// Errors: [`ProjectionError::InvalidParameter`] for a `rank_rtol` outside `(0, 1)`.
    pub fn set_rank(
        &mut self,
        rank_rtol: f64,
        rank_deficiency: RankDeficiency,
    ) -> Result<(), ProjectionError> {
        check_parameters(&[("rank_rtol", rank_rtol, rank_rtol > 0.0 && rank_rtol < 1.0)])?;
        self.rank_rtol = rank_rtol;
        self.rank_deficiency = rank_deficiency;
        Ok(())
    }

    /// Whether the QR of the position (`second = false`, `A₁`) or velocity (`A₂`) problem
    /// loses rank at the cut-off: then the SVD of that `n × L` matrix is computed into
    /// `self.svd` (no allocation); with [`RankDeficiency::Error`] a numerical rank below `L` is
    /// an error.
    fn use_svd(&mut self, second: bool) -> Result<bool, ProjectionError> {
        if !self.svd_needed(second) {
            return Ok(false);
        }
        self.compute_svd(second)?;
        Ok(true)
    }

    /// Whether the QR of `A₁` (`second = false`) or `A₂` comes near a rank loss at the
    /// cut-off, or the round-off `self.noise` of its residual, amplified by `1/σ̂_min`, could
    /// exceed `NOISE_SHARE` of the acceptance bound.
    fn svd_needed(&mut self, second: bool) -> bool {
        let qr = if second { &mut self.qr2 } else { &mut self.qr1 };
        let a = if second { &self.a2 } else { &self.a1 };
        // the SVD decides when the QR's diagonal or its condition estimate come within ten
        // times the cut-off (the estimate's c_max may be √L below σ_max) ...
        if self.force_svd || qr.rank(self.rank_rtol) != self.l {
            return true;
        }
        let cond = qr.condition_estimate();
        if cond <= 10.0 * self.rank_rtol {
            return true;
        }
        // ... or, with the round-off filter, when ‖noise‖/σ̂_min (σ̂_min = cond · c_max) exceeds
        // NOISE_SHARE of the bound
        if !self.roundoff_filter {
            return false;
        }
        let cmax = (0..self.l)
            .map(|i| (0..self.n).map(|k| a[(k, i)] * a[(k, i)]).sum::<f64>())
            .fold(0.0f64, f64::max)
            .sqrt();
        let noise = self.noise.iter().map(|e| e * e).sum::<f64>().sqrt();
        // a NaN asks for the SVD too
        !matches!(
            noise.partial_cmp(&(NOISE_SHARE * self.accept * cond * cmax)),
            Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
        )
    }

    /// The SVD of `A₁` or `A₂` into `self.svd`; with [`RankDeficiency::Error`] a numerical
    /// rank below `L` is an error.
    fn compute_svd(&mut self, second: bool) -> Result<(), ProjectionError> {
        let a = if second { &self.a2 } else { &self.a1 };
        self.svd.compute(a.as_ref(), 0.0, self.rank_rtol)?;
        self.rank_revealing += 1;
        let rank = self.svd.rank();
        if rank < self.l && self.rank_deficiency == RankDeficiency::Error {
            return Err(LinalgError::RankDeficient {
                rank,
                required: self.l,
                tolerance: self.rank_rtol,
            }
            .into());
        }
        Ok(())
    }

    /// `δX = Σ_i u_i (v_iᵀ rhs) / σ_i` over the kept singular directions of `A = U Σ Vᵀ` in
    /// `self.svd` (the minimum-norm solution of `Aᵀ δX = rhs`); with the round-off filter each
    /// component `v_iᵀ rhs` is first brought toward 0 by its round-off `Σ_r |v_ri| noise_r`
    /// (soft threshold, module docs).
    fn min_norm_step(&self, rhs: &[f64], out: &mut [f64]) {
        if !self.roundoff_filter {
            // without the filter every kept direction is corrected: δX = (Aᵀ)† rhs
            let pinv = self.svd.pinv();
            for (k, o) in out.iter_mut().enumerate() {
                let mut d = 0.0;
                for (i, r) in rhs.iter().enumerate() {
                    d += pinv[(i, k)] * r;
                }
                *o = d;
            }
            return;
        }
        let (u, v, s) = (self.svd.u(), self.svd.v(), self.svd.singular_values());
        out.fill(0.0);
        for (i, &si) in s.iter().enumerate().take(self.svd.rank()) {
            let (mut c, mut nu) = (0.0, 0.0);
            for (r, (x, e)) in rhs.iter().zip(&self.noise).enumerate() {
                c += v[(r, i)] * x;
                nu += v[(r, i)].abs() * e;
            }
            if c.abs() <= nu {
                continue;
            }
            // soft threshold: the residual is brought back to its round-off, not below it
            let w = (c - nu.copysign(c)) / si;
            for (k, o) in out.iter_mut().enumerate() {
                *o += u[(k, i)] * w;
            }
        }
    }

    /// Adds to `self.noise` (the round-off of the velocity residual `J(q) v + b`) what the
    /// uncertainty of the corrected position `q` makes of it: along each kept direction `u_j`
    /// of the position problem's SVD (still in `self.svd`) the position is known to
    /// `η_j = Σ_r |v_rj| noise_q_r / σ_j` (scaled units), and moving `q` by `η_j T₁ u_j`
    /// changes the residual by `η_j (J(q + T₁u_j) − J(q)) v` (exact for the quadratic
    /// constraints of natural coordinates). Near a crossing of branches `η_j` grows as
    /// `1/σ_j` and this term as `1/σ_j²`: a velocity correction by it would follow the
    /// level set of the round-off of `φ` (a hyperbola onto another branch), not the branch.
    /// Directions whose `η_j` is within the ordinary round-off of `q` are skipped.
    fn add_position_uncertainty<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) {
        let qmax = q.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let floor = 8.0 * 64.0 * f64::EPSILON * qmax;
        for j in 0..self.svd.rank() {
            let (u, vs, s) = (self.svd.u(), self.svd.v(), self.svd.singular_values());
            let nu: f64 = (0..self.l)
                .map(|r| vs[(r, j)].abs() * self.noise_q[r])
                .sum();
            let eta = nu / s[j];
            let wmax = (0..self.n).fold(0.0f64, |m, k| m.max((self.t1[k] * u[(k, j)]).abs()));
            if eta * wmax <= floor {
                continue;
            }
            for k in 0..self.n {
                self.qw[k] = q[k] + self.t1[k] * u[(k, j)];
            }
            mech.constraint_jacobian(t, &self.qw, self.jw.as_mut());
            // dr = (J(q + T₁u_j) − J(q)) v column by column (contiguous columns; each row
            // sums its terms in the order of k, as a row-by-row sum does)
            self.iv.fill(0.0);
            for (k, &vk) in v.iter().enumerate() {
                let (cw, cj) = (self.jw.col_as_slice(k), self.j.col_as_slice(k));
                for ((d, a), b) in self.iv.iter_mut().zip(cw).zip(cj) {
                    *d += (a - b) * vk;
                }
            }
            for (e, dr) in self.noise.iter_mut().zip(&self.iv) {
                *e += eta * dr.abs();
            }
        }
    }

    /// The round-off level of each row of a residual `J x + …` at `x` into `self.noise`,
    /// `noise_i = 64 ε Σ_k |J_ik| |x_k|` with the round-off filter (module docs), else
    /// `64 ε max_k |x_k| Σ_k |J_ik|` (the bound of [`Self::residual_within`]).
    fn noise_level(&mut self, x: &[f64]) {
        if !self.roundoff_filter {
            // without the filter: one level for all rows, 64 ε max_k |x_k| Σ_k |J_ik|
            let xmax = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            for (i, e) in self.noise.iter_mut().enumerate() {
                let row: f64 = (0..self.n).map(|k| self.j[(i, k)].abs()).sum();
                *e = 64.0 * f64::EPSILON * xmax * row;
            }
            return;
        }
        for (i, e) in self.noise.iter_mut().enumerate() {
            let row: f64 = (0..self.n).map(|k| self.j[(i, k)].abs() * x[k].abs()).sum();
            *e = 64.0 * f64::EPSILON * row;
        }
    }

    /// `self.dmu = Σ_{i ≥ r} v_i (v_iᵀ self.phi)`: the part of the residual in `self.phi` in the
    /// directions the SVD in `self.svd` drops (`r` its rank, `V` its right singular vectors,
    /// `L × L`); zero when it drops none.
    fn dropped_part(&mut self, l: usize) {
        self.dmu.fill(0.0);
        let v = self.svd.v();
        for i in self.svd.rank()..l {
            let mut c = 0.0;
            for (r, p) in self.phi.iter().enumerate() {
                c += v[(r, i)] * p;
            }
            for (r, d) in self.dmu.iter_mut().enumerate() {
                *d += v[(r, i)] * c;
            }
        }
    }

    /// Whether every residual `res_i` is one a move of `accept` (scaled norm, weights `t`)
    /// could leave, or round-off: `|res_i| ≤ (accept · Σ_k |J_ik| t_k) + noise_i`, with the
    /// round-off level `noise_i` of the residual in `self.noise` ([`Self::noise_level`]; module
    /// docs).
    fn residual_within(&self, res: &[f64], t: &[f64], accept: f64) -> bool {
        res.iter().zip(&self.noise).enumerate().all(|(i, (r, e))| {
            let move_scale: f64 = (0..self.n).map(|k| self.j[(i, k)].abs() * t[k]).sum();
            r.abs() <= accept * move_scale + e
        })
    }

    /// The corrections of outputs (Remark 2.2): a refused correction is kept as it is, without
    /// the second look, which only decides between accepting a step and redoing it.
    pub(crate) fn for_outputs(mut self) -> Self {
        self.second_look = false;
        self
    }

    /// The refusal certificate of the correction `o` just computed by [`Self::correct`] from
    /// `x̄ = (q̄, v̄)`, with `q` the position of the velocity problem's Jacobian (module docs, "Round-off filter"): `σ̂₁`, `σ̂₂` of `A₁`, `A₂` by inverse iteration
    /// with their QR ([`smallest_singular_value`]), and [`refusal_stands`] with the bound
    /// `hypot(B_q, B_v)`, `B_q = ‖noise_q‖₁/σ̂₁`,
    /// `B_v = (‖noise_v‖₁ + B_q ‖(J(q + T₁u) − J(q)) v̄‖₁)/σ̂₂` (`u` the direction of `σ̂₁`).
    /// `false` (the second look runs) where a QR path is not at hand or a `σ̂` is within twice
    /// the rank cut-off of `‖A‖_F` (the SVD may drop a direction, which the bound does not
    /// cover).
    fn refusal_certified<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        q: &[f64],
        vbar: &[f64],
        o: &ProjectionOutcome,
    ) -> bool {
        let (n, l) = (self.n, self.l);
        if l == 0 || self.used_svd.0 {
            return false;
        }
        let fro = |a: &Mat<f64>| {
            let mut s = 0.0;
            for i in 0..l {
                for k in 0..n {
                    s += a[(k, i)] * a[(k, i)];
                }
            }
            s.sqrt()
        };
        // position problem: A₁ = (J(q̄) T₁)ᵀ, RᵀR = A₁ᵀA₁ = G₁G₁ᵀ
        let qr1 = &mut self.qr1;
        let Some(s1) =
            smallest_singular_value(&mut self.iv, |x| qr1.solve_normal_in_place(x).is_ok())
        else {
            return false;
        };
        if s1 <= 2.0 * self.rank_rtol * fro(&self.a1) {
            return false;
        }
        let bq = norm1(&self.noise_q) / s1;
        // u ∝ A₁ v (the direction of σ̂₁ in the scaled coordinates)
        let mut un = 0.0;
        for k in 0..n {
            let mut d = 0.0;
            for i in 0..l {
                d += self.a1[(k, i)] * self.iv[i];
            }
            self.iu[k] = d;
            un += d * d;
        }
        let un = un.sqrt();
        if !(un.is_finite() && un > 0.0) {
            return false;
        }
        // velocity problem: σ̂₂ of A₂ (A₁/α when shared)
        let alpha = self.t1[0] / self.t2[0];
        let shared = self.vel == VelocityJacobian::Predicted
            && (0..n).all(|k| (self.t1[k] / self.t2[k] - alpha).abs() <= 1e-12 * alpha.abs());
        let s2 = if shared {
            s1 / alpha.abs()
        } else {
            let qr2 = &mut self.qr2;
            match smallest_singular_value(&mut self.iv, |x| qr2.solve_normal_in_place(x).is_ok()) {
                Some(s2) if s2 > 2.0 * self.rank_rtol * fro(&self.a2) => s2,
                _ => return false,
            }
        };
        // the velocity residual's sensitivity to the position along u: self.j is J(q) of the
        // velocity problem and self.noise its round-off (with a position term where the
        // velocity problem took the rank-revealing path)
        for k in 0..n {
            self.qw[k] = q[k] + self.t1[k] * self.iu[k] / un;
        }
        mech.constraint_jacobian(t, &self.qw, self.jw.as_mut());
        mat_vec(&self.jw, vbar, &mut self.jv);
        mat_vec(&self.j, vbar, &mut self.iv);
        for (a, b) in self.jv.iter_mut().zip(&self.iv) {
            *a -= b;
        }
        let bv = (norm1(&self.noise) + bq * norm1(&self.jv)) / s2;
        refusal_stands(o, self.accept, bq.hypot(bv))
    }

    /// Corrects `x̄ = (q̄, v̄)` onto `φ = 0`, `J q̇ + b = 0`; writes the corrected state to `out`.
    /// With [`PerturbationConfig::roundoff_filter`] a correction the acceptance bound refuses
    /// (`‖X*‖ > accept_factor`, or not converged) is computed again by the rank-revealing path,
    /// which leaves out the components at round-off (module docs, "Round-off filter"); that
    /// one is returned when the bound accepts it, else the first. Does not allocate.
    pub fn project<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        xbar: &[f64],
        out: &mut [f64],
    ) -> Result<ProjectionOutcome, ProjectionError> {
        self.projections += 1;
        let o = self.correct(mech, t, xbar, out)?;
        let accepted = |o: &ProjectionOutcome| o.converged && o.norm <= self.accept;
        if !self.second_look || accepted(&o) {
            return Ok(o);
        }
        // a first correction by the rank-revealing path in both problems is what the second
        // look computes again; a refusal the certificate shows to stand is kept as it is
        let n = self.n;
        let q = match self.vel {
            VelocityJacobian::Predicted => &xbar[..n],
            VelocityJacobian::Projected => &out[..n],
        };
        if (self.used_svd.0 && self.used_svd.1)
            || self.refusal_certified(mech, t, q, &xbar[n..], &o)
        {
            self.certified_refusals += 1;
            return Ok(o);
        }
        self.second_look_at(mech, t, xbar, out, o)
    }

    /// The second look (module docs, "Round-off filter") at the refused correction `o` of
    /// `xbar` that `out` holds: the correction computed again by the rank-revealing path,
    /// returned when the acceptance bound accepts it; else `o` and `out` stand.
    fn second_look_at<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        xbar: &[f64],
        out: &mut [f64],
        o: ProjectionOutcome,
    ) -> Result<ProjectionOutcome, ProjectionError> {
        self.second_looks += 1;
        self.refused.copy_from_slice(out);
        self.force_svd = true;
        let again = self.correct(mech, t, xbar, out);
        self.force_svd = false;
        match again {
            Ok(a) if a.converged && a.norm <= self.accept => Ok(a),
            // refused by both: the first correction stands
            _ => {
                out.copy_from_slice(&self.refused);
                Ok(o)
            }
        }
    }

    /// One correction of [`Self::project`] (the QR path, or the rank-revealing one where
    /// [`Self::svd_needed`] asks for it).
    fn correct<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        xbar: &[f64],
        out: &mut [f64],
    ) -> Result<ProjectionOutcome, ProjectionError> {
        let (n, l) = (self.n, self.l);
        out.copy_from_slice(xbar);
        self.used_svd = (false, false);
        if l == 0 {
            return Ok(ProjectionOutcome {
                norm: 0.0,
                iterations: 0,
                converged: true,
            });
        }
        // Keerthi (2.11), (3.1): T = diag(T₁, T₂) with TᵀWT = I, W = diag(s²).
        self.ec.inverse_scales(xbar, &mut self.s);
        for k in 0..n {
            self.t1[k] = 1.0 / self.s[k];
            self.t2[k] = 1.0 / self.s[n + k];
        }
        let (qbar, vbar) = xbar.split_at(n);
        // Keerthi (3.7): (G₁)_Q(0)ᵀ = (J(q̄) T₁)ᵀ, skinny QR.
        mech.constraint_jacobian(t, qbar, self.j.as_mut());
        for k in 0..n {
            for i in 0..l {
                self.a1[(k, i)] = self.j[(i, k)] * self.t1[k];
            }
        }
        // more rows than coordinates (redundant rows, rank < N): no skinny QR, the SVD decides
        if l <= n {
            self.qr1.factor(self.a1.as_ref())?;
            self.qr_factorizations += 1;
        }
        self.noise_level(qbar);
        self.noise_q.copy_from_slice(&self.noise);
        let svd1 = self.use_svd(false)?;
        // Position problem (3.5) by MNR (2.16)–(2.17); Q accumulated in xq.
        self.xq.fill(0.0);
        let qscale = qbar.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let mut converged = false;
        let mut it = 0;
        while it < self.max_it {
            it += 1;
            mech.constraints(t, &out[..n], &mut self.phi);
            // Keerthi (2.16): R₁ᵀR₁ δμ = −G(X_l)
            for i in 0..l {
                self.dmu[i] = -self.phi[i];
            }
            if svd1 {
                // the minimum-norm step over the kept directions (module docs)
                let mut dx = std::mem::take(&mut self.xv);
                self.min_norm_step(&self.dmu, &mut dx);
                self.xv = dx;
            } else {
                self.qr1.solve_normal_in_place(&mut self.dmu)?;
            }
            // Keerthi (2.17): X_{l+1} = G_X(0)ᵀ μ_{l+1}, i.e. δX = A₁ δμ
            let mut dnorm = 0.0;
            let mut dmax = 0.0f64;
            for k in 0..n {
                let d = if svd1 {
                    self.xv[k]
                } else {
                    let mut d = 0.0;
                    for i in 0..l {
                        d += self.a1[(k, i)] * self.dmu[i];
                    }
                    d
                };
                self.xq[k] += d;
                dnorm += d * d;
                dmax = dmax.max((self.t1[k] * d).abs());
                out[k] = qbar[k] + self.t1[k] * self.xq[k];
            }
            if !dnorm.is_finite() {
                break;
            }
            if dnorm.sqrt() <= self.newton_tol || dmax <= 4.0 * f64::EPSILON * qscale {
                converged = true;
                break;
            }
        }
        self.iterations += it;
        if !converged && it == self.max_it {
            // Near a singular configuration the MNR updates stall at the round-off of φ
            // amplified by 1/σ_min and never meet `newton_tol`; a point where φ is at its
            // round-off is on the manifold (module docs).
            mech.constraints(t, &out[..n], &mut self.phi);
            converged = self.residual_within(&self.phi, &self.t1, 0.0);
        }
        if svd1 && converged {
            // the residual left in the dropped directions (module docs); J is J(q̄) here
            mech.constraints(t, &out[..n], &mut self.phi);
            converged = self.residual_within(&self.phi, &self.t1, self.accept);
        }
        // Velocity problem (3.6) with (3.4): J(q̄)(v̄ + T₂V) + b = 0, one MNR step (affine).
        let q_for_j = match self.vel {
            VelocityJacobian::Predicted => qbar,
            VelocityJacobian::Projected => {
                mech.constraint_jacobian(t, &out[..n], self.j.as_mut());
                &out[..n]
            }
        };
        mech.constraint_rate_bias(t, q_for_j, &mut self.b);
        self.noise_level(vbar);
        if svd1 && self.roundoff_filter {
            self.add_position_uncertainty(mech, t, q_for_j, vbar);
        }
        for i in 0..l {
            let mut r = self.b[i];
            for k in 0..n {
                r += self.j[(i, k)] * vbar[k];
            }
            self.dmu[i] = -r;
        }
        // W₂ = α² W₁ ⇔ T₂ = T₁/α: reuse Q₁, R₂ = R₁/α (end of section 3).
        let alpha = self.t1[0] / self.t2[0];
        let shared = self.vel == VelocityJacobian::Predicted
            && (0..n).all(|k| (self.t1[k] / self.t2[k] - alpha).abs() <= 1e-12 * alpha.abs());
        // the velocity residual, kept for the check of the dropped directions
        self.phi.copy_from_slice(&self.dmu);
        let mut svd2 = shared && svd1;
        if svd2 {
            // (A₂ᵀ)† = α (A₁ᵀ)† with A₂ = A₁/α
            let mut dx = std::mem::take(&mut self.xv);
            self.min_norm_step(&self.dmu, &mut dx);
            self.xv = dx;
            for x in &mut self.xv {
                *x *= alpha;
            }
        } else if shared {
            self.qr1.solve_normal_in_place(&mut self.dmu)?;
            for k in 0..n {
                let mut d = 0.0;
                for i in 0..l {
                    d += self.a1[(k, i)] * self.dmu[i];
                }
                // V = A₂ δμ₂ with A₂ = A₁/α and δμ₂ = α² δμ₁  ⇒  V = α A₁ δμ₁
                self.xv[k] = alpha * d;
            }
        } else {
            for k in 0..n {
                for i in 0..l {
                    self.a2[(k, i)] = self.j[(i, k)] * self.t2[k];
                }
            }
            if l <= n {
                self.qr2.factor(self.a2.as_ref())?;
                self.qr_factorizations += 1;
            }
            if self.roundoff_filter {
                // the velocity problem goes by the SVD with the position problem (its
                // residual's round-off then includes the position's uncertainty) or when its
                // own QR asks
                svd2 = svd1 || self.svd_needed(true);
                if svd2 {
                    if !svd1 {
                        self.compute_svd(false)?;
                        self.add_position_uncertainty(mech, t, q_for_j, vbar);
                    }
                    self.compute_svd(true)?;
                }
            } else {
                svd2 = self.use_svd(true)?;
            }
            if svd2 {
                let mut dx = std::mem::take(&mut self.xv);
                self.min_norm_step(&self.dmu, &mut dx);
                self.xv = dx;
            } else {
                self.qr2.solve_normal_in_place(&mut self.dmu)?;
                for k in 0..n {
                    let mut d = 0.0;
                    for i in 0..l {
                        d += self.a2[(k, i)] * self.dmu[i];
                    }
                    self.xv[k] = d;
                }
            }
        }
        if svd2 {
            // the velocity residual left in the dropped directions, J (v̄ + T₂V) + b = r + A₂ᵀV
            for i in 0..l {
                let mut r = -self.phi[i];
                for k in 0..n {
                    r += self.j[(i, k)] * self.t2[k] * self.xv[k];
                }
                self.phi[i] = r;
            }
            // its part in the dropped directions: the kept ones are brought to their round-off
            // direction by direction (module docs), which a residual of each row need not be
            self.dropped_part(l);
            converged &= self.residual_within(&self.dmu, &self.t2, self.accept);
        }
        self.used_svd = (svd1, svd2);
        let mut norm = 0.0;
        for k in 0..n {
            out[n + k] = vbar[k] + self.t2[k] * self.xv[k];
            norm += self.xq[k] * self.xq[k] + self.xv[k] * self.xv[k];
        }
        Ok(ProjectionOutcome {
            norm: norm.sqrt(),
            iterations: it,
            converged,
        })
    }
}
