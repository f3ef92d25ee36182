//! Singular passages of the methods that keep no state on the constraints (direct and
//! Baumgarte): the policy ([`PassagePolicy`]), the band `σ_r/σ_1 <` [`PASSAGE_BAND_RATIO`]
//! where `J` is near a rank drop (shared with GGL's passage error), the stall check and the
//! ambiguous-branch check.
//!
//! **The guard.** Where `J` drops below the rank it had at the start (a flat
//! four-bar) φ is quadratic along the lost direction `u` (`uᵀφ ≈ κe²/2` for a displacement
//! `e` along `u`): neither (1.4) nor Baumgarte's `αφ̇ + βφ` has a term linear in `e` that
//! restores it, and the sign of the drift left there picks the branch the run continues on.
//! By default ([`PassagePolicy::Stop`]) the first evaluation whose `J` has a numerical rank
//! (the rank-revealing KKT solve's, cut-off `DynamicsOptions::rank_rtol`) below the initial
//! rank ends the run with [`ProjectionError::SingularPassage`]; redundant rows present from
//! `t0` are not a passage.
//!
//! A step can also jump over the band where `J` loses rank: the drifted state does not cross
//! the singular configuration but turns onto the other branch along the level set `φ = d`
//! (near the crossing `φ ≈ xs` that level set is a hyperbola joining an arm of one branch to
//! an arm of the other). So with [`PassagePolicy::Stop`] every accepted step is also checked
//! for an ambiguous branch by two Newton steps toward `φ = 0`,
//! `Δq = M⁻¹Jᵀ(J M⁻¹Jᵀ)⁺φ`. The first removes the drift in the directions `J` keeps; the
//! second converges quadratically at a regular state but only linearly near a crossing
//! (from a point at distance `ρ` of the crossing on `xs = d`, one step leaves
//! `(d/ρ²)²` of the residual: 1/4 at the vertex). Where the second step leaves more than
//! [`AMBIGUOUS_CONTRACTION`] of its residual, and more than half the fraction the first step
//! left (a state far off the constraints contracts slowly at first, but faster at each step:
//! the SSRMS arm of Kövecses' direct run at τ = 1e-3 ends 80 s with ‖φ‖ = 0.14, first and
//! second fractions 0.26 and 0.056), the run ends with [`ProjectionError::AmbiguousBranch`]. The
//! check costs one mass matrix, two Jacobians, three constraint evaluations and two KKT
//! solves per accepted step, in a workspace allocated at the start: measured on A02
//! (`NFourBar`, n = 1, 4, 40, 0.6 s at τ = 1e-9, alone on a core), 16–31 % more time per
//! DOPRI5 step (six evaluations) and 1.4–2.1× per ABM step (two); `Continue` skips it
//! (`benches/examples/a02_check_cost.rs` measures it, with the hand-written and the
//! automatic-derivative model). Copying `M` and `J` from the step's last evaluation instead
//! of evaluating them again saves nothing measurable: the two KKT solves are the cost.
//!
//! **Stalls on the way to a passage.** Off the constraints the field of either method has a
//! pole at the crossing: along the lost direction the KKT solve divides the part of the
//! drift that `J` no longer sees by `J`'s smallest singular value `σ`, which falls linearly
//! with the distance to the crossing. On A02 (`NFourBar`, τ = 1e-9, every step logged with
//! `t, h, ‖φ‖, ‖J q̇ + b‖, σ_min/σ_max, ‖q̈‖`) `‖q̈‖` stays at its physical size (39 at
//! n = 1) down to `σ ≈ 1e-4` and then grows about like `σ⁻³` (6.8e6 at `σ = 6.8e-7`) while
//! `‖φ‖` and `‖J q̇ + b‖` stay at 1.7e-9 and 2.3e-9: every evaluation succeeds, and the
//! error test resolves the pole with steps proportional to the distance (`h ≈ 0.1–0.2
//! σ/|σ̇|` from `σ ≈ 1e-3`; the accepted BDF steps shrink the same way), then, as the pole
//! steepens, with ever smaller fractions of it (`h ≈ 1e-11` s at `σ ≈ 7e-7`). Each step covers a bounded
//! fraction of the remaining distance, so the run creeps toward the crossing: σ stays above
//! what the rank-revealing solve cuts off, and the Newton steps of the branch check still
//! converge. The exact motion has no pole there (`q̈` is unique and bounded at the
//! passage), so the step the error test allows for it does not shrink with the distance: a
//! run that keeps to it crosses the band in one or two steps. With [`PassagePolicy::Stop`]
//! the run therefore ends with [`ProjectionError::StalledPassage`] where, inside the band
//! `σ_r/σ_1 <` [`PASSAGE_BAND_RATIO`] (`r` the initial rank of
//! `J`, the same band as GGL's passage error) and on the way toward the crossing, the
//! accepted step has shrunk at least in proportion to `σ` since the run entered the band
//! (`h/h_ref ≤ σ/σ_band`, `h_ref` the step before the shrinking started) while `σ` has
//! fallen by [`PASSAGE_STALL_DEPTH`] from its value at the first check in the band. The
//! SVD of `J` it needs runs only where a step has halved against the reference step and,
//! while inside the band, at each step (workspace allocated at the start).
//!
//! [`PassagePolicy::Continue`] continues through all three.

use contour_linalg::{KktMethod, KktSolver};
use contour_model::Mechanism;
use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::svd::{svd, svd_scratch, ComputeSvdVectors};
use faer::{Mat, Par};
use serde::{Deserialize, Serialize};

use crate::error::ProjectionError;

/// Relative singular value `σ_r(J)/σ_1(J)` (`r` the rank of `J` at the start) below which
/// `J` is near a rank drop: a failure of GGL's BDF there is
/// [`ProjectionError::GglSingularPassage`], and the direct and Baumgarte methods watch their
/// steps for a stall inside it ([`ProjectionError::StalledPassage`]).
///
/// **Why.** In a direction that `J` loses, the equilibrated iteration matrix of GGL's (4.4)
/// has a Schur-complement pivot of order `σ³`, so the unscaled matrix has condition
/// `≈ c_j²/σ³`: at tight tolerances Newton iterates on amplified round-off and the step
/// collapses (A02 at N = 4, τ = 1e-9: condition 1e17 at `σ ≈ 5e-4`). Below this ratio such a
/// failure is a passage, not a model error. The measurements are in
/// `benches/results/ggl_singular_passages_2026-11-27.md`.
pub const PASSAGE_BAND_RATIO: f64 = 1e-2;

/// What the direct and Baumgarte methods do at a singular passage: an evaluation where `J`
/// has a numerical rank below its rank at the initial state (module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PassagePolicy {
    /// End the run with [`ProjectionError::SingularPassage`] (the default): the drift, not
    /// the dynamics, would pick the branch after the passage.
    #[default]
    Stop,
    /// Continue with the unique `q̈` and the minimum-norm λ of the rank-revealing solve. The
    /// run may follow another branch; [`crate::Simulation::energy_tolerance`] turns the energy
    /// jump of a wrong branch into a typed error.
    Continue,
}

/// Factor by which `J`'s relative singular value `σ_r/σ_1` must fall inside the passage band,
/// with every step shrinking at least in proportion to it, before a run is taken to stall at
/// the passage ([`ProjectionError::StalledPassage`], module documentation): one decade of the
/// distance to the crossing. The exact motion crosses the band in one or two steps of its
/// regular size and never shrinks its step tenfold there. Surveyed on A02 (`NFourBar`,
/// n = 1 and 4, τ = 1e-6 and 1e-9, direct and Baumgarte δ = 10 and 50 with the four
/// integrators, 20 s, and the n = 40 rows of direct and Baumgarte δ = 10 and 50; every
/// accepted step logged with `h` and `σ`, the check evaluated and not acted on) with the
/// score `max(h σ_band/(h_ref σ), DEPTH σ/σ_entry)` (the check fires at ≤ 1): the 22 runs
/// that pass keep it at ≥ 2.4 over the whole run (≥ 10 at n = 1, 4), the 5 that end later
/// with [`ProjectionError::SingularPassage`] at ≥ 1.17 before that; every run that stops at
/// a passage (34 at n = 1, 4 and the 8 creeping or slow n = 40 rows) reaches ≤ 1 within
/// 3–63 steps of entering the band, at `σ` between 2e-7 and 1e-3, with B0 still within
/// 1e-3 of the exact solution (within 1e-8 at τ = 1e-9). On a second mechanism, the isosceles
/// slider-crank (crate documentation), every run it stops returns `Ok` on the folded branch or
/// ends with a rank error when continued through the passage instead.
pub const PASSAGE_STALL_DEPTH: f64 = 10.0;

/// Workspace and state of the stall check: `J` and its singular values at an accepted
/// state, the previous accepted configuration, the reference step and, inside the band,
/// `σ` at the first check and at the last step. Allocated once.
pub(crate) struct StallCheck {
    j: Mat<f64>,
    s: Diag<f64>,
    sorted: Vec<f64>,
    buf: MemBuffer,
    /// Rank of `J` at the initial state: `σ_rank/σ_1` is watched.
    rank: usize,
    q_prev: Vec<f64>,
    t_prev: f64,
    /// Largest step since the last check that found `J` outside the band (0 before the
    /// first step).
    h_ref: f64,
    /// `(σ at the first check in the band, σ at the last step)` while inside the band.
    band: Option<(f64, f64)>,
}

impl std::fmt::Debug for StallCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StallCheck")
            .field("rank", &self.rank)
            .field("t_prev", &self.t_prev)
            .field("h_ref", &self.h_ref)
            .field("band", &self.band)
            .finish_non_exhaustive()
    }
}

impl StallCheck {
    /// `None` where `J` at the initial state is already inside the band (or of rank 0).
    pub(crate) fn new<M: Mechanism + ?Sized>(
        mech: &M,
        t0: f64,
        q0: &[f64],
        rank: usize,
    ) -> Option<Self> {
        let (n, l) = (mech.dof(), mech.n_constraints());
        let k = n.min(l);
        let req = svd_scratch::<f64>(
            l,
            n,
            ComputeSvdVectors::No,
            ComputeSvdVectors::No,
            Par::Seq,
            Default::default(),
        );
        let mut c = Self {
            j: Mat::zeros(l, n),
            s: Diag::zeros(k),
            sorted: vec![0.0; k],
            buf: MemBuffer::new(req),
            rank,
            q_prev: q0.to_vec(),
            t_prev: t0,
            h_ref: 0.0,
            band: None,
        };
        let ratio = c.ratio(mech, t0, q0)?;
        (rank > 0 && rank <= k && ratio >= PASSAGE_BAND_RATIO).then_some(c)
    }

    /// `σ_rank(J)/σ_1(J)` at `(t, q)` (`None` where the SVD fails or `J` is zero).
    fn ratio<M: Mechanism + ?Sized>(&mut self, mech: &M, t: f64, q: &[f64]) -> Option<f64> {
        mech.constraint_jacobian(t, q, self.j.as_mut());
        svd(
            self.j.as_ref(),
            self.s.as_mut(),
            None,
            None,
            Par::Seq,
            MemStack::new(&mut self.buf),
            Default::default(),
        )
        .ok()?;
        for (d, v) in self.sorted.iter_mut().zip(self.s.column_vector().iter()) {
            *d = v.abs();
        }
        self.sorted.sort_unstable_by(|a, b| b.total_cmp(a));
        let (hi, lo) = (
            *self.sorted.first()?,
            *self.sorted.get(self.rank.checked_sub(1)?)?,
        );
        (hi > 0.0 && lo.is_finite()).then_some(lo / hi)
    }

    /// `Some(σ ratio)` where the accepted step `h` ending at `(t, q)` stalls at a passage
    /// (module documentation); keeps `q` as the previous configuration.
    pub(crate) fn stalls<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        h: f64,
        q: &[f64],
    ) -> Option<f64> {
        let fired = self.judge(mech, t, h, q);
        self.q_prev.copy_from_slice(q);
        self.t_prev = t;
        fired
    }

    fn judge<M: Mechanism + ?Sized>(&mut self, mech: &M, t: f64, h: f64, q: &[f64]) -> Option<f64> {
        let (entry, prev, sigma) = match self.band {
            None => {
                // outside the band J is only looked at where the step has halved
                if h > 0.5 * self.h_ref {
                    self.h_ref = self.h_ref.max(h);
                    return None;
                }
                let sigma = self.ratio(mech, t, q)?;
                if sigma >= PASSAGE_BAND_RATIO {
                    self.h_ref = h;
                    return None;
                }
                // σ at the previous accepted state tells the way (toward the crossing or away)
                let (tp, qp) = (self.t_prev, std::mem::take(&mut self.q_prev));
                let before = self.ratio(mech, tp, &qp).unwrap_or(0.0);
                self.q_prev = qp;
                (sigma, before, sigma)
            }
            Some((entry, prev)) => {
                let sigma = self.ratio(mech, t, q)?;
                if sigma >= PASSAGE_BAND_RATIO {
                    self.band = None;
                    self.h_ref = h;
                    return None;
                }
                (entry, prev, sigma)
            }
        };
        self.band = Some((entry, sigma));
        // on the way toward the crossing, the step shrunk at least in proportion to the
        // distance (σ), over PASSAGE_STALL_DEPTH of it
        let toward = sigma < prev;
        let tracks = h * PASSAGE_BAND_RATIO <= self.h_ref * sigma;
        (toward && tracks && PASSAGE_STALL_DEPTH * sigma <= entry).then_some(sigma)
    }
}

/// Largest fraction of the residual that the second of two Newton steps toward `φ = 0` may
/// leave before a state is taken to be on an ambiguous branch (module documentation).
/// Measured on A02 (`NFourBar`, n = 1 and 4, τ = 1e-6 and 1e-9, direct and Baumgarte δ = 10
/// and 50 with the four integrators, 20 s, the check computed at every accepted step and
/// never acted on; B0 against the exact reduced solution): in the 31 runs that keep to the
/// physical branch the second step never leaves more than the round-off of `φ`; each of the
/// 16 runs that turn onto another branch (and one that stalls at a passage) exceeds 0.02
/// while B0 is still within 1.1e-3 of the exact solution. Where one crank row loses rank the
/// fraction reaches 1/4 (the vertex of the drifted hyperbola); where several lose rank
/// together it stays lower (n = 4, direct + RK-Gill at τ = 1e-6: 2.9e-2 at most before its
/// turn at t = 2.675 s), hence a bound well below 1/4.
pub const AMBIGUOUS_CONTRACTION: f64 = 0.02;

/// Multiple of the round-off in `φ` (`ε Σ_k |J_ik| |q_k|` per row) below which a residual
/// left by the Newton step is noise, not a sign of a crossing.
const NOISE_FACTOR: f64 = 64.0;

/// Workspace of the ambiguous-branch check: `M`, `J`, `φ` at the accepted state, the Newton
/// correction and `φ` after it. Allocated once.
#[derive(Debug)]
pub(crate) struct BranchCheck {
    mm: Mat<f64>,
    j: Mat<f64>,
    kkt: KktSolver,
    zero: Vec<f64>,
    phi: Vec<f64>,
    dq: Vec<f64>,
    mu: Vec<f64>,
    q1: Vec<f64>,
}

impl BranchCheck {
    pub(crate) fn new(n: usize, l: usize) -> Self {
        Self {
            mm: Mat::zeros(n, n),
            j: Mat::zeros(l, n),
            kkt: KktSolver::new(n, l, KktMethod::RangeSpace),
            zero: vec![0.0; n],
            phi: vec![0.0; l],
            dq: vec![0.0; n],
            mu: vec![0.0; l],
            q1: vec![0.0; n],
        }
    }

    /// `Some((‖φ‖, contraction))` where the second of two Newton steps from `q` toward
    /// `φ = 0` leaves more than [`AMBIGUOUS_CONTRACTION`] of the residual it starts from, more
    /// than half the fraction the first step left, and more than round-off; `None` otherwise.
    /// The first step removes the drift in the directions `J` keeps (quadratic convergence);
    /// what the second leaves measures the lost direction alone.
    pub(crate) fn ambiguous<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        q: &[f64],
    ) -> Result<Option<(f64, f64)>, ProjectionError> {
        mech.constraints(t, q, &mut self.phi);
        let drift = norm(&self.phi);
        if drift == 0.0 || !drift.is_finite() {
            return Ok(None);
        }
        mech.mass_matrix(q, self.mm.as_mut());
        self.q1.copy_from_slice(q);
        self.newton_step(mech, t)?;
        let first = norm(&self.phi);
        self.newton_step(mech, t)?;
        let left = norm(&self.phi);
        let mut noise = 0.0;
        for i in 0..self.phi.len() {
            let row = (0..q.len()).fold(0.0, |a, k| a + (self.j[(i, k)] * q[k]).abs());
            noise += (NOISE_FACTOR * f64::EPSILON * row).powi(2);
        }
        let contraction = left / first;
        // Newton's quadratic convergence shows as a second contraction well below the first
        // (`left/first ≈ C·first` where `first/drift ≈ C·drift`), even from a state far off
        // the constraints; near a crossing the second is no better than half the first
        let accelerating = contraction <= 0.5 * first / drift;
        Ok(
            (left > noise.sqrt() && contraction > AMBIGUOUS_CONTRACTION && !accelerating)
                .then_some((drift, contraction)),
        )
    }

    /// One Newton step from `q1` with `φ(t, q1)` in `phi`: `M Δq − Jᵀμ = 0`, `J Δq = φ`
    /// (`J` at `q1`, the mass matrix of the accepted state as the metric), `q1 ← q1 − Δq`,
    /// `phi ← φ(t, q1)`.
    fn newton_step<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
    ) -> Result<(), ProjectionError> {
        mech.constraint_jacobian(t, &self.q1, self.j.as_mut());
        self.kkt.solve(
            self.mm.as_ref(),
            self.j.as_ref(),
            &self.zero,
            &self.phi,
            &mut self.dq,
            &mut self.mu,
        )?;
        for (q1, &d) in self.q1.iter_mut().zip(&self.dq) {
            *q1 -= d;
        }
        mech.constraints(t, &self.q1, &mut self.phi);
        Ok(())
    }
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use contour_model::models::NFourBar;

    /// Accepted states of A02 (`NFourBar`, n = 4) on the exact motion approaching the flat
    /// position, `θ` halving at every step from π/2, and the step sizes given by `h(k)`:
    /// `Some(step index)` of the first step the stall check stops, and the allocations of
    /// the checks (after the workspace exists).
    fn approach(h: impl Fn(usize) -> f64) -> (Option<usize>, u64) {
        let p = NFourBar::new(4);
        let states: Vec<Vec<f64>> = (0..40)
            .map(|k| {
                p.state(std::f64::consts::FRAC_PI_2 * 0.5f64.powi(k), -1.0)
                    .0
            })
            .collect();
        let mut check = StallCheck::new(&p, 0.0, &states[0], p.n_constraints()).unwrap();
        let mut fired = None;
        let info = allocation_counter::measure(|| {
            let mut t = 0.0;
            for (k, q) in states.iter().enumerate().skip(1) {
                t += h(k);
                if fired.is_none() && check.stalls(&p, t, h(k), q).is_some() {
                    fired = Some(k);
                }
            }
        });
        (fired, info.count_total)
    }

    /// A02 (n = 1) with both cranks on their circles at angles `θ0 = rho`,
    /// `θ1 = rho − d/(2 rho)`: near the crossing at θ0 = θ1 = 0 the coupler's residual is
    /// `2θ0(θ0 − θ1) + O(θ³) ≈ d`, a point of the level set φ = d (a hyperbola whose vertex is
    /// at `rho ≈ √(d/2)`) at distance about `rho` from the crossing.
    fn on_level_set(rho: f64, d: f64) -> Vec<f64> {
        let (t0, t1) = (rho, rho - d / (2.0 * rho));
        vec![t0.cos(), t0.sin(), 1.0 + t1.cos(), t1.sin()]
    }

    /// The branch check on the level set φ = d of A02's parallelogram (n = 1): near the
    /// vertex of the hyperbola the second Newton step leaves up to 1/4 of its residual (the
    /// module documentation's `(d/ρ²)²`; 0.20 at `rho = √(d/2)`, 0.249 at 2^(-1/4) of it), so
    /// the state is on an ambiguous branch; far from the crossing (`rho ≥ 30 √d`) Newton
    /// converges quadratically, and on the constraints there is nothing to check.
    #[test]
    fn a_drifted_state_at_the_vertex_of_its_level_set_is_ambiguous_and_one_far_from_it_is_not() {
        let p = NFourBar::new(1);
        let mut c = BranchCheck::new(p.dof(), p.n_constraints());
        for d in [1e-6, 1e-8, 1e-10] {
            let vertex = (d / 2.0f64).sqrt();
            let (drift, contraction) = c
                .ambiguous(&p, 0.0, &on_level_set(vertex, d))
                .unwrap()
                .expect("the vertex is not seen as ambiguous");
            assert!((drift - d).abs() < 0.02 * d, "d = {d:e}: drift {drift:e}");
            assert!(
                (0.15..0.26).contains(&contraction),
                "d = {d:e}: {contraction}"
            );
            for rho in [30.0 * d.sqrt(), 0.1, 0.5] {
                assert_eq!(c.ambiguous(&p, 0.0, &on_level_set(rho, d)).unwrap(), None);
            }
        }
        let (q, _) = p.state(1e-3, -1.0);
        assert_eq!(c.ambiguous(&p, 0.0, &q).unwrap(), None);
    }

    #[test]
    fn a_step_that_shrinks_with_the_distance_stalls_and_a_regular_one_does_not() {
        // the step shrinks faster than θ (σ ∝ θ near the flat position): a stall, once σ has
        // fallen PASSAGE_STALL_DEPTH inside the band
        let (fired, allocs) = approach(|k| 1e-2 * 0.4f64.powi(k as i32));
        let k = fired.expect("no stall seen");
        let p = NFourBar::new(4);
        let (q, _) = p.state(std::f64::consts::FRAC_PI_2 * 0.5f64.powi(k as i32), -1.0);
        let mut c = StallCheck::new(&p, 0.0, &p.state(1.0, -1.0).0, p.n_constraints()).unwrap();
        let sigma = c.ratio(&p, 0.0, &q).unwrap();
        assert!(
            sigma < PASSAGE_BAND_RATIO / PASSAGE_STALL_DEPTH,
            "{k} {sigma}"
        );
        assert!(
            sigma > PASSAGE_BAND_RATIO / (4.0 * PASSAGE_STALL_DEPTH),
            "{k} {sigma}"
        );
        assert_eq!(allocs, 0);
        // the counter is live (a zero above cannot pass vacuously)
        let live = allocation_counter::measure(|| {
            std::hint::black_box(Box::new(1.0f64));
        });
        assert_eq!(live.count_total, 1);
        // a step of regular size (the exact motion's): never
        assert_eq!(approach(|_| 1e-2).0, None);
        // a step that halves once and then keeps its size: never
        assert_eq!(approach(|k| if k < 20 { 1e-2 } else { 5e-3 }).0, None);
    }
}
