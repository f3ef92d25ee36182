//! Variable-order, variable-step Adams–Bashforth–Moulton (PECE) after Shampine & Gordon.
//!
//! A translation of the subroutines STEP and INTRP of L. F. Shampine and M. K. Gordon,
//! *Computer Solution of Ordinary Differential Equations: the Initial Value Problem*
//! (Freeman, 1975), chapters 5–7 (cited below as "S&G"). The solution is carried as modified
//! divided differences of `f`:
//!
//! ```text
//! ψᵢ(n+1) = tₙ₊₁ − tₙ₊₁₋ᵢ,   αᵢ = h/ψᵢ,   βᵢ(n+1) = Π_{j<i} ψⱼ(n+1)/ψⱼ(n),
//! φᵢ(n)   = Π_{j<i} ψⱼ(n) · f[tₙ, …, tₙ₋ᵢ₊₁],   φ*ᵢ(n) = βᵢ(n+1) φᵢ(n),
//! σ₁ = 1,  σᵢ₊₁ = i αᵢ σᵢ,
//! ```
//!
//! and the integration coefficients `gᵢ = g_{i,1}` from the recursion
//! `g_{1,q} = 1/q`, `g_{i,q} = g_{i−1,q} − αᵢ₋₁ g_{i−1,q+1}` (S&G (5.21)–(5.27)).
//! At order `k` one step is
//!
//! * **P** — `pₙ₊₁ = yₙ + h Σ_{i=1}^{k} gᵢ φ*ᵢ(n)` (Adams–Bashforth, order `k`),
//! * **E** — `f(tₙ₊₁, pₙ₊₁)`,
//! * **C** — `yₙ₊₁ = pₙ₊₁ + h g_{k+1} (f(pₙ₊₁) − φ⁽ᵖ⁾₁)` (Adams–Moulton of order `k+1`: local
//!   extrapolation, so the global order of "order k" is `k + 1`),
//! * **E** — `fₙ₊₁ = f(tₙ₊₁, yₙ₊₁)` and the difference update `φᵢ(n+1) = φ*ᵢ(n)+…`;
//!
//! two evaluations per accepted step and one per rejected attempt (plus one at the start).
//! The local error of the order-`k` corrector `err = |h| (gₖ − gₖ₊₁) ‖f(p) − φ⁽ᵖ⁾₁‖` must be
//! `≤ 1` in the norm of [`Tolerances`] with `wᵢ = atolᵢ + rtol·|yₙ,ᵢ|` (S&G's `eps = 1`,
//! `wt = w`; the weights are fixed at the start of each step as in DE). The estimates
//! ERKM2, ERKM1, ERK, ERKP1 of the errors at orders `k−2 … k+1` drive the order, the step is
//! doubled in the starting phase while the order rises, halved on failure (order 1 after the
//! third failure, then the optimal size), and otherwise chosen as
//! `h_new = |h|·max(½, min(0.9, (½/ERK)^{1/(k+1)}))` unless `2h` is safe. Round-off control
//! (S&G's `φ₁₅`, `φ₁₆`, NORND) is active near the precision limit. The dense output is INTRP:
//! the corrector polynomial evaluated from the stored differences.
//!
//! ## `replace_y` and the history
//!
//! [`Advance::replace_y`] follows Shampine's perturbation idea: the history `f(tₙ₋ⱼ)`, `j ≥ 1`,
//! is kept and only the current point is replaced. We set `yₙ ← ỹ`, evaluate `f̃ₙ = f(tₙ, ỹ)`
//! (one counted evaluation), and with `δ = f̃ₙ − fₙ` add `δ` to every stored difference
//! `φ₁ … φ_{kold+2}`. This is exact: the coefficient of `fₙ` in `f[tₙ,…,tₙ₋ᵢ₊₁]` is
//! `1/Π_{j<i}(tₙ − tₙ₋ⱼ) = 1/Π_{j<i} ψⱼ(n)`, so `φᵢ(n)` changes by exactly `δ` — the table
//! becomes the divided-difference table of the data `(tₙ, f̃ₙ), (tₙ₋₁, fₙ₋₁), …`. The
//! round-off carry `φ₁₅` is reset to zero. The interpolant (`dense`) afterwards is the
//! polynomial through the moved point.

use crate::error::{OdeError, Quantity};
use crate::norm::{norm_of, NormAcc, Tolerances};
use crate::problem::{check_dim, check_finite, eval_rhs, OdeRhs};
use crate::stats::Stats;
use crate::stepper::{check_initial, stepper_bookkeeping, Advance, StepInfo, Stepper};

/// Largest order of STEP.
pub const MAX_ORDER: usize = 12;

/// S&G's `gstr(k) ≈ |γ*ₖ|`, the constant-step error constants used in the order estimates.
const GSTR: [f64; 14] = [
    0.0, 0.5, 0.0833, 0.0417, 0.0264, 0.0188, 0.0143, 0.0114, 0.00936, 0.00789, 0.00679, 0.00592,
    0.00524, 0.00468,
];
/// `1/(q(q+1))`, STEP's initial `v(q)` (see `coefficients`), computed at compile time (the
/// same bits as the division at run time).
const V1: [f64; 14] = {
    let mut v = [0.0; 14];
    let mut q = 1;
    while q < 14 {
        v[q] = 1.0 / (q * (q + 1)) as f64;
        q += 1;
    }
    v
};
/// `two(k) = 2ᵏ`.
const TWO: [f64; 14] = [
    1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0,
];

/// Order mode of [`AdamsBashforthMoulton`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AbmOrder {
    /// Order selected by STEP's estimates in `1..=max` (`max ≤ 12`).
    Variable {
        /// Largest order allowed.
        max: usize,
    },
    /// Order raised by one per step from 1 to `k`, then kept at `k` (global order `k + 1`).
    Fixed(usize),
}

/// Step-size mode of [`AdamsBashforthMoulton`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AbmStep {
    /// STEP's step-size control.
    Adaptive,
    /// Constant step `h` once the fixed order is reached (only with [`AbmOrder::Fixed`]).
    ///
    /// Start-up: the order is raised 1, 2, …, k under error control with the given
    /// tolerances (choose them tight), then the step is doubled per step without error test
    /// up to `h`, then kept at `h` without error test. Used for convergence-order tests.
    Fixed {
        /// The constant step size.
        h: f64,
    },
}

/// Configuration of [`AdamsBashforthMoulton`].
///
/// Defaults: `order = Variable { max: 12 }`, `step = Adaptive`, `h_init = None` (the
/// step is bounded by the distance to the stop time or `h_max`, then by S&G's
/// `¼·sqrt(eps/‖f₀‖)`), `h_max = ∞`.
#[derive(Debug, Clone, PartialEq)]
pub struct AbmConfig {
    /// Order mode.
    pub order: AbmOrder,
    /// Step mode.
    pub step: AbmStep,
    /// Upper bound of the first step.
    pub h_init: Option<f64>,
    /// Largest step size.
    pub h_max: f64,
}

impl Default for AbmConfig {
    fn default() -> Self {
        Self {
            order: AbmOrder::Variable { max: MAX_ORDER },
            step: AbmStep::Adaptive,
            h_init: None,
            h_max: f64::INFINITY,
        }
    }
}

/// Components per block of the difference table (two SSE2 registers of `f64`). Wider blocks
/// (8) save more per-block work on 6 to 14 components but waste lanes on very small systems
/// (2 components); narrower ones (2) the other way round.
const W: usize = 4;

/// One block of the difference table: `blk[i][j] = φᵢ` of component `W·b + j` for block `b`
/// (`i = 1 ..= 16`, index 0 unused). Within a block the table is column-major: the `W`
/// components of one column `φᵢ` are adjacent, so every per-column operation of a step is one
/// vector operation across the components, each component doing exactly the operations it
/// does alone, in the same order. The per-component vectors `y`, `f`, `p`, the inverse
/// weights and the scratch vector are padded to whole blocks (`W·⌈n/W⌉` numbers); the spare
/// lanes start at zero, are never passed to `f` and never enter a norm or a result.
type Block = [[f64; W]; 17];

/// Block 2's pass of STEP at order `k` over one block of the table.
///
/// `g` and `β` are copies on the stack: the compiler then knows that the stores into the
/// table do not change them (no reloads between the vector operations).
struct Predict {
    /// The order `k`.
    k: usize,
    /// `gᵢ` (index `i`).
    g: [f64; 14],
    /// `βᵢ(n+1)` (index `i`).
    beta: [f64; 14],
    /// `ns + 1`: `φᵢ → φ*ᵢ` for `i = ns+1 … k` (βᵢ = 1 below).
    nsp1: usize,
    /// The step `h`.
    hs: f64,
    /// No rounding control (S&G's NORND).
    nornd: bool,
}

impl Predict {
    /// For the block's components, in one pass: φ_{k+2} ← φ_{k+1}, φ_{k+1} ← 0, then for
    /// i = k … 1: φᵢ → φ*ᵢ = βᵢ φᵢ for i > ns (S&G (5.23)), `p += gᵢ φ*ᵢ`, `φᵢ ← φ*ᵢ + φᵢ₊₁`
    /// (the predictor and the differences summed for the corrector), and `pₗ ← yₗ + h p` (or
    /// S&G's rounding control with φ₁₅, φ₁₆). The components' chains are independent and run
    /// as vector operations across the lanes; each component sees the same operations in the
    /// same order as alone. (The slices `g`, `β`, `φ` zipped backwards, with φᵢ₊₁ carried in
    /// `next`: no bounds checks in the loops.)
    #[inline(always)]
    fn block(&self, blk: &mut Block, p: &mut [f64; W], y: &[f64; W]) {
        let k = self.k;
        let (kp1, kp2) = (k + 1, k + 2);
        blk[kp2] = blk[kp1];
        blk[kp1] = [0.0; W];
        // φᵢ, i = 1 … k: `lo` (i ≤ ns, βᵢ = 1) and `hi` (i > ns, scaled by βᵢ).
        let split = self.nsp1.min(kp1);
        let (lo, hi) = blk[1..kp1].split_at_mut(split - 1);
        let (g_lo, g_hi) = self.g[1..kp1].split_at(split - 1);
        let mut acc = [0.0; W];
        let mut next = [0.0; W]; // φ_{k+1}
        for ((c, gi), bi) in hi.iter_mut().zip(g_hi).zip(&self.beta[split..kp1]).rev() {
            let mut v = *c;
            for j in 0..W {
                v[j] *= bi;
                acc[j] += gi * v[j];
                v[j] += next[j];
            }
            *c = v;
            next = v;
        }
        for (c, gi) in lo.iter_mut().zip(g_lo).rev() {
            let mut v = *c;
            for j in 0..W {
                acc[j] += gi * v[j];
                v[j] += next[j];
            }
            *c = v;
            next = v;
        }
        if self.nornd {
            for j in 0..W {
                p[j] = y[j] + self.hs * acc[j];
            }
        } else {
            for j in 0..W {
                let tau = self.hs * acc[j] - blk[15][j];
                p[j] = y[j] + tau;
                blk[16][j] = (p[j] - y[j]) - tau;
            }
        }
    }
}

/// Shampine–Gordon Adams PECE stepper (see the module documentation).
#[derive(Debug, Clone)]
pub struct AdamsBashforthMoulton {
    cfg: AbmConfig,
    tol: Tolerances,
    n: usize,
    m_active: usize,
    kmax: usize,
    k_fixed: Option<usize>,
    /// Current time `x` and the start of the last step `xold`.
    x: f64,
    xold: f64,
    y: Vec<f64>,
    yp: Vec<f64>,
    p: Vec<f64>,
    /// Inverse weights `1/wt` (zero in the spare lanes, never written).
    s: Vec<f64>,
    scratch: Vec<f64>,
    /// `φ(l, 1..=16)` in blocks of `W` components (see [`Block`]): `phi[l / W][i][l % W]`, so
    /// that every per-component recursion of a step runs in one pass over the blocks, as
    /// vector operations across the block's components.
    phi: Vec<Block>,
    psi: [f64; 14],
    alpha: [f64; 14],
    beta: [f64; 14],
    sig: [f64; 14],
    v: [f64; 14],
    w: [f64; 14],
    g: [f64; 14],
    /// S&G's `H`: the step size to try next.
    hs: f64,
    hold: f64,
    h_last: f64,
    k: usize,
    kold: usize,
    ns: usize,
    start: bool,
    phase1: bool,
    nornd: bool,
    fixed_phase: bool,
    initialized: bool,
    t_stop: Option<f64>,
    stats: Stats,
}

impl AdamsBashforthMoulton {
    /// Creates a stepper at `(t0, y0)`; allocates every workspace (`22·W·⌈n/W⌉` numbers).
    ///
    /// Errors: non-finite input, invalid tolerances, an order outside `1..=12`, a fixed step
    /// without a fixed order.
    pub fn new(t0: f64, y0: &[f64], tol: Tolerances, cfg: AbmConfig) -> Result<Self, OdeError> {
        let n = y0.len();
        check_initial(t0, y0, &tol)?;
        let (kmax, k_fixed) = match cfg.order {
            AbmOrder::Variable { max } => (max, None),
            AbmOrder::Fixed(k) => (k, Some(k)),
        };
        if !(1..=MAX_ORDER).contains(&kmax) {
            return Err(OdeError::InvalidParameter {
                name: "order",
                value: kmax as f64,
            });
        }
        if let AbmStep::Fixed { h } = cfg.step {
            if k_fixed.is_none() {
                return Err(OdeError::InvalidParameter {
                    name: "step (fixed step needs a fixed order)",
                    value: h,
                });
            }
            if !(h > 0.0 && h.is_finite()) {
                return Err(OdeError::InvalidParameter {
                    name: "h",
                    value: h,
                });
            }
        }
        if cfg.h_max.is_nan() || cfg.h_max <= 0.0 {
            return Err(OdeError::InvalidParameter {
                name: "h_max",
                value: cfg.h_max,
            });
        }
        if let Some(h) = cfg.h_init {
            if !(h > 0.0 && h.is_finite()) {
                return Err(OdeError::InvalidParameter {
                    name: "h_init",
                    value: h,
                });
            }
        }
        let m_active = tol.active_components(n);
        // Whole blocks: the spare lanes beyond `n` start at zero (see [`Block`]).
        let z = || vec![0.0; n.div_ceil(W) * W];
        let mut y = z();
        y[..n].copy_from_slice(y0);
        Ok(Self {
            cfg,
            tol,
            n,
            m_active,
            kmax,
            k_fixed,
            x: t0,
            xold: t0,
            y,
            yp: z(),
            p: z(),
            s: z(),
            scratch: z(),
            phi: vec![[[0.0; W]; 17]; n.div_ceil(W)],
            psi: [0.0; 14],
            alpha: [0.0; 14],
            beta: [0.0; 14],
            sig: [0.0; 14],
            v: [0.0; 14],
            w: [0.0; 14],
            g: [0.0; 14],
            hs: 0.0,
            hold: 0.0,
            h_last: 0.0,
            k: 1,
            kold: 0,
            ns: 0,
            start: true,
            phase1: true,
            nornd: true,
            fixed_phase: false,
            initialized: false,
            t_stop: None,
            stats: Stats::default(),
        })
    }

    /// Order `k` to be used on the next step.
    pub fn next_order(&self) -> usize {
        self.k
    }

    /// Step size proposed for the next step.
    pub fn h_next(&self) -> f64 {
        self.hs
    }

    /// Evaluates `f(t0, y0)` and marks the stepper for S&G's start (block 0).
    fn init<F: OdeRhs + ?Sized>(&mut self, f: &mut F) -> Result<(), OdeError> {
        check_dim(f, self.n)?;
        let n = self.n;
        eval_rhs(f, &mut self.stats, self.x, &self.y[..n], &mut self.yp[..n])?;
        check_finite(&self.yp[..n], Quantity::Derivative)?;
        self.start = true;
        self.fixed_phase = false;
        self.kold = 0;
        self.k = 1;
        self.ns = 0;
        self.hold = 0.0;
        self.h_last = 0.0;
        self.xold = self.x;
        self.initialized = true;
        Ok(())
    }

    /// `‖·‖` of the vector `vᵢ·sᵢ`.
    #[inline]
    fn wnorm(&self, v: impl Iterator<Item = f64>) -> f64 {
        norm_of(
            self.tol.norm,
            v.zip(&self.s[..self.n]).map(|(v, s)| v * s),
            self.m_active,
        )
    }

    /// `‖·‖` of the column `φᵢ` weighted by `s` (the same bits as [`Self::wnorm`]).
    fn wnorm_col(&self, i: usize) -> f64 {
        let mut acc = NormAcc::new(self.tol.norm);
        let blocks = self.phi.iter().zip(self.s.as_chunks::<W>().0);
        for (b, (blk, s)) in blocks.enumerate() {
            for j in 0..W {
                if b * W + j < self.n {
                    acc.push(blk[i][j] * s[j]);
                }
            }
        }
        acc.finish(self.m_active)
    }

    /// Block 1 of STEP: the coefficients ψ, α, β, σ, g for the current `k`, `h`.
    fn coefficients(&mut self) {
        // k ≤ 12 always; stated so that the compiler drops the bounds checks below.
        let k = self.k.min(MAX_ORDER);
        let h = self.hs;
        let kp1 = k + 1;
        let kp2 = k + 2;
        // ns: number of steps taken with size h, including the current one.
        if h != self.hold {
            self.ns = 0;
        }
        if self.ns <= self.kold {
            self.ns += 1;
        }
        let ns = self.ns;
        let nsp1 = ns + 1;
        if k < ns {
            return; // no coefficient changes
        }
        // S&G (5.23)-(5.25): α, β, ψ, σ that change.
        let ns_f = ns as f64;
        self.beta[ns] = 1.0;
        self.alpha[ns] = 1.0 / ns_f;
        let mut temp1 = h * ns_f;
        self.sig[nsp1] = 1.0;
        let mut i_f = ns_f; // `i as f64`, counted in floating point (exact)
        for i in nsp1..kp1 {
            i_f += 1.0;
            let im1 = i - 1;
            let temp2 = self.psi[im1];
            self.psi[im1] = temp1;
            self.beta[i] = self.beta[im1] * temp1 / temp2;
            temp1 = temp2 + h;
            self.alpha[i] = h / temp1;
            self.sig[i + 1] = i_f * self.alpha[i] * self.sig[i];
        }
        self.psi[k] = temp1;
        // g coefficients, S&G (5.27): v holds g_{ns,q}, w the working column.
        if ns > 1 {
            if k > self.kold {
                // Order raised: update the diagonal part of v.
                self.v[k] = V1[k];
                if ns >= 3 {
                    for j in 1..ns - 1 {
                        let i = k - j;
                        self.v[i] -= self.alpha[j + 1] * self.v[i + 1];
                    }
                }
            }
            let temp5 = self.alpha[ns];
            for iq in 1..kp2 - ns {
                self.v[iq] -= temp5 * self.v[iq + 1];
                self.w[iq] = self.v[iq];
            }
            self.g[nsp1] = self.w[1];
        } else {
            self.v[1..kp1].copy_from_slice(&V1[1..kp1]);
            self.w[1..kp1].copy_from_slice(&V1[1..kp1]);
        }
        for i in ns + 2..kp2 {
            let temp6 = self.alpha[i - 1];
            for iq in 1..kp2 - i + 1 {
                self.w[iq] -= temp6 * self.w[iq + 1];
            }
            self.g[i] = self.w[1];
        }
    }

    /// Block 3 of STEP: undo the prediction (restore φ, ψ, x) after a failed step.
    fn restore(&mut self) {
        let k = self.k;
        self.x = self.xold;
        for blk in &mut self.phi {
            for i in 1..k + 1 {
                for j in 0..W {
                    blk[i][j] = (1.0 / self.beta[i]) * (blk[i][j] - blk[i + 1][j]);
                }
            }
        }
        for i in 2..k + 1 {
            self.psi[i - 1] = self.psi[i] - self.hs;
        }
    }
}

impl Stepper for AdamsBashforthMoulton {
    fn t(&self) -> f64 {
        self.x
    }
    #[inline]
    fn y(&self) -> &[f64] {
        &self.y[..self.n]
    }
    fn t_prev(&self) -> f64 {
        self.xold
    }
    fn h(&self) -> f64 {
        self.h_last
    }
    fn order(&self) -> usize {
        self.kold.max(1)
    }

    /// S&G's INTRP: with `hᵢ = t − tₙ`, `y(t) ≈ yₙ + hᵢ Σ_{i=1}^{kold+1} gᵢ(hᵢ) φᵢ(n)`, where
    /// `w_q = 1/q`, `γ = (hᵢ + ψⱼ₋₂)/ψⱼ₋₁`, `η = hᵢ/ψⱼ₋₁`, `w_q ← γ w_q − η w_{q+1}`, `gⱼ = w₁`.
    fn dense(&self, t_out: f64, out: &mut [f64]) -> Result<(), OdeError> {
        crate::stepper::check_dense(self.dim(), t_out, out)?;
        if self.kold == 0 {
            out.copy_from_slice(&self.y[..self.n]);
            return Ok(());
        }
        let hi = t_out - self.x;
        let ki = self.kold + 1;
        let kip1 = ki + 1;
        let mut g = [0.0f64; 14];
        let mut w = [0.0f64; 14];
        g[1] = 1.0;
        for i in 1..kip1 {
            w[i] = 1.0 / i as f64;
        }
        let mut term = 0.0;
        for j in 2..kip1 {
            let psijm1 = self.psi[j - 1];
            let gamma = (hi + term) / psijm1;
            let eta = hi / psijm1;
            for i in 1..kip1 - j + 1 {
                w[i] = gamma * w[i] - eta * w[i + 1];
            }
            g[j] = w[1];
            term = psijm1;
        }
        // Per block of components, as vector operations; the real lanes go to `out`.
        let interp = |blk: &Block, y: &[f64; W]| {
            let mut acc = [0.0; W];
            for j in 1..kip1 {
                let i = kip1 - j;
                for l in 0..W {
                    acc[l] += g[i] * blk[i][l];
                }
            }
            let mut o = [0.0; W];
            for l in 0..W {
                o[l] = y[l] + hi * acc[l];
            }
            o
        };
        let ys = self.y.as_chunks::<W>().0;
        let (outs, out_tail) = out.as_chunks_mut::<W>();
        for ((o, blk), y) in outs.iter_mut().zip(&self.phi).zip(ys) {
            *o = interp(blk, y);
        }
        if let (Some(blk), Some(y)) = (self.phi.get(outs.len()), ys.get(outs.len())) {
            let o = interp(blk, y);
            let m = out_tail.len();
            out_tail.copy_from_slice(&o[..m]);
        }
        crate::problem::check_finite(out, crate::error::Quantity::DenseOutput)
    }

    stepper_bookkeeping!();
    fn set_max_step(&mut self, h_max: f64) {
        self.cfg.h_max = h_max;
    }
    fn step_bound(&self) -> Option<(&'static str, f64)> {
        self.cfg
            .h_max
            .is_finite()
            .then_some(("h_max", self.cfg.h_max))
    }
}

impl<F: OdeRhs + ?Sized> Advance<F> for AdamsBashforthMoulton {
    fn step(&mut self, f: &mut F) -> Result<StepInfo, OdeError> {
        if !self.initialized {
            self.init(f)?;
        }
        const TWOU: f64 = 2.0 * f64::EPSILON;
        const FOURU: f64 = 4.0 * f64::EPSILON;
        const P5EPS: f64 = 0.5; // eps = 1 after scaling by the weights
                                // DE: weights from the current solution, fixed for the whole step.
        self.tol
            .inverse_scales_in(self.y.iter().map(|v| v.abs()), &mut self.s[..self.n]);
        let fixed_h = match self.cfg.step {
            AbmStep::Fixed { h } => Some(h),
            AbmStep::Adaptive => None,
        };

        // Limit the step (DE: h = sign(min(|h|, |tend − x|), h)).
        let bound = |this: &Self, h: f64| -> (f64, bool) {
            let mut h = h.min(this.cfg.h_max);
            if let Some(hf) = fixed_h {
                h = h.min(hf);
            }
            if let Some(ts) = this.t_stop {
                let rem = ts - this.x;
                if h >= rem - FOURU * this.x.abs().max(ts.abs()) {
                    return (rem, true);
                }
            }
            (h, false)
        };

        // ---- Block 0 ----
        if self.start {
            let h_in = self.cfg.h_init.unwrap_or(f64::INFINITY);
            let (h_b, _) = bound(self, h_in);
            self.hs = h_b;
        }
        let (h0, mut hits_stop) = bound(self, self.hs);
        self.hs = h0;
        if self.hs.is_nan() || self.hs < FOURU * self.x.abs() || self.hs <= 0.0 {
            return Err(OdeError::StepSizeTooSmall {
                t: self.x,
                h: self.hs,
            });
        }
        let round = TWOU * self.wnorm(self.y.iter().copied());
        if P5EPS < round {
            return Err(OdeError::ToleranceTooSmall {
                t: self.x,
                factor: 2.0 * round * (1.0 + FOURU),
            });
        }
        self.g[1] = 1.0;
        self.g[2] = 0.5;
        self.sig[1] = 1.0;
        if self.start {
            // Initialize: φ₁ = f₀, φ₂ = 0, first step ¼·sqrt(eps/‖f₀‖).
            let sum = self.wnorm(self.yp.iter().copied());
            for (blk, f) in self.phi.iter_mut().zip(self.yp.as_chunks::<W>().0) {
                blk[1] = *f;
                blk[2] = [0.0; W];
            }
            let mut absh = self.hs;
            if sum > 0.0 && 1.0 < 16.0 * sum * self.hs * self.hs {
                absh = 0.25 * (1.0 / sum).sqrt();
            }
            if !absh.is_finite() {
                absh = 1.0;
            }
            self.hs = absh.max(FOURU * self.x.abs());
            hits_stop = self.t_stop.is_some_and(|ts| self.x + self.hs >= ts);
            if hits_stop {
                self.hs = self.t_stop.unwrap_or(self.x) - self.x;
            }
            self.hold = 0.0;
            self.k = 1;
            self.kold = 0;
            self.start = false;
            self.phase1 = true;
            self.nornd = true;
            if P5EPS <= 100.0 * round {
                self.nornd = false;
                for blk in &mut self.phi {
                    blk[15] = [0.0; W];
                }
            }
        }
        let mut ifail = 0usize;
        let mut rejected = 0usize;

        loop {
            // ---- Block 1: coefficients ----
            self.coefficients();
            let k = self.k;
            let kp1 = k + 1;
            let kp2 = k + 2;
            let km1 = k.wrapping_sub(1);
            let nsp1 = self.ns + 1;

            // ---- Block 2: predict, evaluate, estimate ----
            // φ*, the predictor p and the summed differences in one pass per block of
            // components (`Predict::block`).
            let pass = Predict {
                k,
                g: self.g,
                beta: self.beta,
                nsp1,
                hs: self.hs,
                nornd: self.nornd,
            };
            let ps = self.p.as_chunks_mut::<W>().0;
            for ((blk, p), y) in self.phi.iter_mut().zip(ps).zip(self.y.as_chunks::<W>().0) {
                pass.block(blk, p, y);
            }
            self.xold = self.x;
            self.x = if hits_stop {
                self.t_stop.unwrap_or(self.x + self.hs)
            } else {
                self.x + self.hs
            };
            let absh = self.hs.abs();
            let n = self.n;
            eval_rhs(f, &mut self.stats, self.x, &self.p[..n], &mut self.yp[..n])?;

            // Errors at orders k, k−1, k−2 as if the step were constant.
            // The three norms in one pass over `f(p) − φ₁` (each summed in component order,
            // as three separate passes would: the same bits; the terms of a block's components
            // are formed as vector operations, then added in component order). Columns k−1
            // and k are read at orders ≥ 3 and ≥ 2 (else column 1 stands in; the value is not
            // used).
            let (nk2, nk1, n0) = {
                let ck = if k >= 2 { k } else { 1 };
                let ckm1 = if k >= 3 { k - 1 } else { 1 };
                let norm = self.tol.norm;
                let (mut a2, mut a1, mut a0) =
                    (NormAcc::new(norm), NormAcc::new(norm), NormAcc::new(norm));
                let terms = |blk: &Block, f: &[f64; W], s: &[f64; W]| {
                    let (mut t2, mut t1, mut t0) = ([0.0; W], [0.0; W], [0.0; W]);
                    for j in 0..W {
                        let d = f[j] - blk[1][j];
                        t2[j] = (blk[ckm1][j] + d) * s[j];
                        t1[j] = (blk[ck][j] + d) * s[j];
                        t0[j] = d * s[j];
                    }
                    (t2, t1, t0)
                };
                let fs = self.yp.as_chunks::<W>().0;
                let mut blocks = self.phi.iter().zip(fs).zip(self.s.as_chunks::<W>().0);
                // The blocks of real components only, then the one with spare lanes (if any).
                for ((blk, f), s) in blocks.by_ref().take(n / W) {
                    let (t2, t1, t0) = terms(blk, f, s);
                    for j in 0..W {
                        a2.push(t2[j]);
                        a1.push(t1[j]);
                        a0.push(t0[j]);
                    }
                }
                if let Some(((blk, f), s)) = blocks.next() {
                    let (t2, t1, t0) = terms(blk, f, s);
                    for j in 0..n % W {
                        a2.push(t2[j]);
                        a1.push(t1[j]);
                        a0.push(t0[j]);
                    }
                }
                let m = self.m_active;
                (a2.finish(m), a1.finish(m), a0.finish(m))
            };
            let mut erkm2 = 0.0;
            let mut erkm1 = 0.0;
            if k >= 3 {
                erkm2 = absh * self.sig[k - 1] * GSTR[k - 2] * nk2;
            }
            if k >= 2 {
                erkm1 = absh * self.sig[k] * GSTR[k - 1] * nk1;
            }
            let temp5 = absh * n0;
            let err = temp5 * (self.g[k] - self.g[kp1]);
            let mut erk = temp5 * self.sig[kp1] * GSTR[k];
            let mut knew = k;
            if self.k_fixed.is_none() {
                if k >= 3 {
                    if erkm1.max(erkm2) <= erk {
                        knew = km1;
                    }
                } else if k == 2 && erkm1 <= 0.5 * erk {
                    knew = km1;
                }
            }

            if err <= 1.0 || self.fixed_phase {
                // ---- Block 4: correct, evaluate, update differences, choose k and h ----
                self.kold = k;
                self.hold = self.hs;
                let temp1 = self.hs * self.g[kp1];
                let nornd = self.nornd;
                // Correct: y = p + h g_{k+1} (f − φ₁) (with φ₁₅, φ₁₆ unless NORND).
                let ys = self.y.as_chunks_mut::<W>().0;
                let (ps, fs) = (self.p.as_chunks::<W>().0, self.yp.as_chunks::<W>().0);
                for (((blk, y), p), f) in self.phi.iter_mut().zip(ys).zip(ps).zip(fs) {
                    if nornd {
                        for j in 0..W {
                            y[j] = p[j] + temp1 * (f[j] - blk[1][j]);
                        }
                    } else {
                        for j in 0..W {
                            let rho = temp1 * (f[j] - blk[1][j]) - blk[16][j];
                            y[j] = p[j] + rho;
                            blk[15][j] = (y[j] - p[j]) - rho;
                        }
                    }
                }
                eval_rhs(f, &mut self.stats, self.x, &self.y[..n], &mut self.yp[..n])?;
                // e = f − φ₁; φ_{k+1} ← e, φ_{k+2} ← e − φ_{k+2}; φᵢ += e (i = 1 … k)
                for (blk, f) in self.phi.iter_mut().zip(self.yp.as_chunks::<W>().0) {
                    let mut e = [0.0; W];
                    for j in 0..W {
                        e[j] = f[j] - blk[1][j];
                    }
                    for j in 0..W {
                        blk[kp2][j] = e[j] - blk[kp2][j];
                    }
                    blk[kp1] = e;
                    for c in &mut blk[1..=k] {
                        for j in 0..W {
                            c[j] += e[j];
                        }
                    }
                }
                let h = self.hs;
                self.h_last = h;
                self.stats.steps += 1;
                let info = StepInfo {
                    t_prev: self.xold,
                    t: self.x,
                    h,
                    order: k,
                    rejected,
                };

                let mut hnew;
                if let Some(kf) = self.k_fixed {
                    // Fixed order: raise by one per step up to kf, then keep it.
                    if k >= kf {
                        self.phase1 = false;
                    }
                    if k < kf {
                        self.k = kp1;
                    }
                    if self.fixed_phase || (fixed_h.is_some() && self.k == kf && k == kf) {
                        self.fixed_phase = true;
                        self.hs = (2.0 * h).min(fixed_h.unwrap_or(f64::INFINITY));
                        return Ok(info);
                    }
                } else {
                    // Estimate the error at order k+1 unless in phase 1, lowering, or the
                    // step was not constant (S&G block 4).
                    if knew == km1 || k == self.kmax {
                        self.phase1 = false;
                    }
                    let raise;
                    if self.phase1 {
                        raise = Some(true);
                    } else if knew == km1 {
                        raise = Some(false);
                    } else if kp1 > self.ns {
                        raise = None;
                    } else {
                        let erkp1 = absh * GSTR[kp1] * self.wnorm_col(kp2);
                        if k == 1 {
                            raise = if erkp1 >= 0.5 * erk { None } else { Some(true) };
                            if raise == Some(true) {
                                erk = erkp1;
                            }
                        } else if erkm1 <= erk.min(erkp1) {
                            raise = Some(false);
                        } else if erkp1 >= erk || k == self.kmax {
                            raise = None;
                        } else {
                            raise = Some(true);
                            erk = erkp1;
                        }
                    }
                    match raise {
                        Some(true) => {
                            self.k = kp1;
                            if self.phase1 {
                                erk = 0.0;
                            }
                        }
                        Some(false) => {
                            self.k = km1;
                            erk = erkm1;
                        }
                        None => {}
                    }
                }
                // Step size for the next step.
                hnew = h + h;
                if !self.phase1 && P5EPS < erk * TWO[self.k + 1] {
                    hnew = h;
                    if P5EPS < erk {
                        let r = (P5EPS / erk).powf(1.0 / (self.k + 1) as f64);
                        hnew = absh * 0.5f64.max(0.9f64.min(r));
                        hnew = hnew.max(FOURU * self.x.abs());
                    }
                }
                self.hs = hnew;
                return Ok(info);
            }

            // ---- Block 3: unsuccessful step ----
            rejected += 1;
            self.stats.rejected_steps += 1;
            self.phase1 = false;
            self.restore();
            hits_stop = false;
            ifail += 1;
            let mut temp2 = 0.5;
            if ifail > 3 && P5EPS < 0.25 * erk {
                temp2 = (P5EPS / erk).sqrt();
            }
            if ifail >= 3 && self.k_fixed.is_none() {
                knew = 1;
            }
            self.hs *= temp2;
            self.k = knew;
            if self.hs.is_nan() || self.hs.abs() < FOURU * self.x.abs() || self.hs <= 0.0 {
                return Err(OdeError::StepSizeTooSmall {
                    t: self.x,
                    h: self.hs,
                });
            }
        }
    }

    /// Keeps the history and replaces the current point (see the module documentation):
    /// `yₙ ← ỹ`, `f̃ₙ = f(tₙ, ỹ)` (counted), `φᵢ += f̃ₙ − fₙ` for `i = 1 … kold+2`, `φ₁₅ ← 0`.
    /// Before the first step this is a restart at `t₀`.
    fn replace_y(&mut self, f: &mut F, y: &[f64]) -> Result<(), OdeError> {
        crate::stepper::check_replacement(self.n, y)?;
        if !self.initialized || self.kold == 0 {
            self.y[..self.n].copy_from_slice(y);
            if self.initialized {
                self.init(f)?;
            }
            return Ok(());
        }
        eval_rhs(f, &mut self.stats, self.x, y, &mut self.scratch[..self.n])?;
        let last = (self.kold + 2).min(14);
        let (f_news, f_olds) = (self.scratch.as_chunks::<W>().0, self.yp.as_chunks::<W>().0);
        for ((blk, f_new), f_old) in self.phi.iter_mut().zip(f_news).zip(f_olds) {
            let mut delta = [0.0; W];
            for j in 0..W {
                delta[j] = f_new[j] - f_old[j];
            }
            for c in &mut blk[1..=last] {
                for j in 0..W {
                    c[j] += delta[j];
                }
            }
            blk[15] = [0.0; W];
        }
        self.yp.copy_from_slice(&self.scratch);
        self.y[..self.n].copy_from_slice(y);
        Ok(())
    }

    fn restart(&mut self, f: &mut F, t: f64, y: &[f64]) -> Result<(), OdeError> {
        crate::stepper::check_restart(self.n, t, y)?;
        self.y[..self.n].copy_from_slice(y);
        self.x = t;
        self.init(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_models::{ExactSolution, HarmonicOscillator, Kepler};

    /// With constant steps the g coefficients reduce to the Adams–Bashforth constants
    /// `γ*ᵢ`: 1, 1/2, 5/12, 3/8, 251/720, 95/288, 19087/60480 (S&G (5.28)).
    #[test]
    fn constant_step_g_are_adams_coefficients() {
        let mut f = HarmonicOscillator { omega: 1.0 };
        let cfg = AbmConfig {
            order: AbmOrder::Fixed(6),
            step: AbmStep::Fixed { h: 0.05 },
            ..Default::default()
        };
        let mut s =
            AdamsBashforthMoulton::new(0.0, &f.y0(), Tolerances::new(1e-12, 1e-12), cfg).unwrap();
        for _ in 0..60 {
            s.step(&mut f).unwrap();
        }
        assert_eq!(s.h(), 0.05);
        assert_eq!(s.order(), 6);
        let gamma = [
            1.0,
            0.5,
            5.0 / 12.0,
            3.0 / 8.0,
            251.0 / 720.0,
            95.0 / 288.0,
            19087.0 / 60480.0,
        ];
        for (i, gi) in gamma.iter().enumerate() {
            assert!(
                (s.g[i + 1] - gi).abs() < 1e-14,
                "g[{}] = {} vs {gi}",
                i + 1,
                s.g[i + 1]
            );
        }
        // Constant step: βᵢ = 1, σᵢ₊₁ = i αᵢ σᵢ = 1 with αᵢ = 1/i.
        for i in 1..=6 {
            assert!((s.beta[i] - 1.0).abs() < 1e-13 && (s.sig[i + 1] - 1.0).abs() < 1e-13);
        }
    }

    /// Fixed order with STEP's step control: the order rises 1, 2, … to k and stays; the
    /// tolerance is met.
    #[test]
    fn fixed_order_adaptive_step() {
        let mut f = Kepler { e: 0.5 };
        let cfg = AbmConfig {
            order: AbmOrder::Fixed(4),
            ..Default::default()
        };
        let mut s =
            AdamsBashforthMoulton::new(0.0, &f.y0(), Tolerances::new(1e-8, 1e-8), cfg).unwrap();
        s.set_t_stop(Some(Kepler::PERIOD));
        let mut orders = Vec::new();
        while s.t() < Kepler::PERIOD {
            orders.push(s.step(&mut f).unwrap().order);
        }
        assert_eq!(&orders[..4], &[1, 2, 3, 4]);
        assert!(orders[4..].iter().all(|&k| k == 4));
        let mut ex = [0.0; 4];
        f.exact(Kepler::PERIOD, &mut ex);
        let err = crate::test_models::max_abs_diff(s.y(), &ex);
        assert!(err < 1e-5, "error {err}");
    }

    /// Variable order: the starting phase raises the order and doubles the step; the order
    /// reaches the high range on a smooth problem; INTRP reproduces the step end points.
    #[test]
    fn starting_phase_and_interpolation() {
        let mut f = HarmonicOscillator { omega: 1.0 };
        let mut s = AdamsBashforthMoulton::new(
            0.0,
            &f.y0(),
            Tolerances::new(1e-10, 1e-10),
            AbmConfig::default(),
        )
        .unwrap();
        let mut hs = Vec::new();
        let mut ks = Vec::new();
        let mut buf = [0.0; 2];
        let mut max_k = 0;
        for _ in 0..60 {
            let info = s.step(&mut f).unwrap();
            hs.push(info.h);
            ks.push(info.order);
            max_k = max_k.max(info.order);
            s.dense(s.t(), &mut buf).unwrap();
            assert!(crate::test_models::max_abs_diff(&buf, s.y()) < 1e-15);
            // Interpolated midpoint vs exact solution.
            let tm = 0.5 * (s.t_prev() + s.t());
            s.dense(tm, &mut buf).unwrap();
            let mut ex = [0.0; 2];
            f.exact(tm, &mut ex);
            assert!(crate::test_models::max_abs_diff(&buf, &ex) < 1e-7);
        }
        assert_eq!(&ks[..3], &[1, 2, 3]);
        assert_eq!(hs[1], 2.0 * hs[0]);
        assert_eq!(hs[2], 2.0 * hs[1]);
        assert!(max_k >= 8, "max order {max_k}");
    }

    /// `GSTR[k]` is `|γ*ₖ|`, the error constant of the k-th Adams–Moulton formula, printed to
    /// three significant digits by Shampine & Gordon: the γ* follow from
    /// `Σⱼ₌₀ᵏ γ*ⱼ/(k + 1 − j) = 0`, `γ*₀ = 1` (Hairer–Nørsett–Wanner III.1), an independent
    /// witness of every entry (the order and step selection rest on them).
    #[test]
    fn gstr_are_the_adams_moulton_error_constants() {
        let mut gamma = [0.0f64; 14];
        gamma[0] = 1.0;
        for k in 1..14 {
            gamma[k] = -(0..k).map(|j| gamma[j] / (k + 1 - j) as f64).sum::<f64>();
        }
        for k in 1..14 {
            let unit = 10f64.powf(GSTR[k].log10().floor() - 2.0);
            assert!(
                (GSTR[k] - gamma[k].abs()).abs() <= 0.5 * unit * (1.0 + 1e-9),
                "GSTR[{k}] = {} but |γ*_{k}| = {}",
                GSTR[k],
                gamma[k].abs()
            );
        }
    }
}
