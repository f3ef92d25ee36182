//! The maximum-velocity curve: admissibility of (s, ṡ) under the acceleration bounds
//! h(s, ṡ) ≤ s̈ ≤ γ(s, ṡ) (Huang (4.3.22)–(4.3.32)) and the search for α(s), the largest
//! admissible ṡ, with the speed cap.

use super::*;

impl<'l, 'a, M: Mechanism + ?Sized, P: JointPath + ?Sized, L: TorqueLimits + ?Sized>
    PhasePlane<'l, 'a, M, P, L>
{
    pub(super) fn bounds(&self, seg: usize, s: f64, x: f64) -> Result<AccelBounds, PlanningError> {
        self.lim.bounds(seg, s, x.max(0.0).sqrt())
    }

    /// cap(s)² of the speed cap (∞ without one), the smaller of the configured cap and the
    /// velocity rows of the limits ([`AccelerationLimits::velocity_cap2`], joint velocity
    /// limits). Errors: [`PlanningError::InvalidParameter`] (`"speed_cap"`) when the cap is
    /// NaN or negative at `s`.
    pub(super) fn cap2(&self, seg: usize, s: f64) -> Result<f64, PlanningError> {
        let rows = self.lim.velocity_cap2(seg, s)?;
        match &self.cfg.speed_cap {
            Some(c) => {
                let v = checked_speed_cap(c(s))?;
                Ok((v * v).min(rows))
            }
            None => Ok(rows),
        }
    }

    pub(super) fn admissible_b(&self, b: &AccelBounds) -> bool {
        let tol = self.cfg.admissibility_tol
            * (1.0 + b.lower.abs().min(1e300) + b.upper.abs().min(1e300));
        b.admissible(tol)
    }

    pub(super) fn admissible(&self, seg: usize, s: f64, x: f64) -> Result<bool, PlanningError> {
        let c = self.cap2(seg, s)?;
        if x > c * (1.0 + 1e-12) + 1e-300 {
            return Ok(false);
        }
        let b = self.bounds(seg, s, x)?;
        Ok(self.admissible_b(&b))
    }

    /// Admissibility of `(s, ṡ)` (exactly [`Self::admissible`] at `x = ṡ²`) and a margin that
    /// is ≥ 0 where admissible: `γ + tol − h` capped by the speed-cap slack (NaN where a
    /// zero-inertia condition fails, so the margin carries no information there). For T
    /// quadratic in ṡ the margin is piecewise linear and concave in x = ṡ².
    pub(super) fn probe(&self, seg: usize, s: f64, sd: f64) -> Result<(bool, f64), PlanningError> {
        let x = sd * sd;
        let c = self.cap2(seg, s)? * (1.0 + 1e-12) + 1e-300;
        if x > c {
            return Ok((false, c - x));
        }
        let b = self.bounds(seg, s, x)?;
        let ok = self.admissible_b(&b);
        let tol = self.cfg.admissibility_tol
            * (1.0 + b.lower.abs().min(1e300) + b.upper.abs().min(1e300));
        let g = (b.upper + tol - b.lower).min(c - x);
        Ok((ok, if b.singular_ok { g } else { f64::NAN }))
    }

    /// α(s)² on segment `seg` (−1 when even ṡ = 0 is inadmissible, +∞ when unbounded, i.e.
    /// admissible at ṡ = 2²³).
    ///
    /// The admissible speeds are assumed to be `[0, α]`. A bracket `lo < α ≤ hi` (lo
    /// admissible, hi not) is found and shrunk to `hi − lo ≤ 1e-15 hi`, as plain bisection
    /// would, but the probes are placed on the margin `m(x)` of [`Self::probe`] in x = ṡ²
    /// (piecewise linear and concave for T quadratic in ṡ and fixed limits):
    /// * bracketing: `near·(1 ± 10⁻³)` when a guess is given ([`Self::mvc_x_near`]), else
    ///   upward from ṡ = 1: the zero of the line through the last two admissible probes when
    ///   the margin decreases (at or beyond the root for a concave margin), else doubling;
    /// * shrinking: the zero of the line through the two nearest inadmissible probes (it
    ///   stays right of the root for a concave margin and is exact on a linear piece), else
    ///   regula falsi with the Illinois modification;
    /// * every probe at least `0.4e-15 hi` inside the bracket, so that a probe next to the root
    ///   closes it, and bisection when the bracket stops halving or no margin is available.
    ///
    /// About 5 evaluations of the bounds instead of 50–60 for plain bisection; the result
    /// differs from bisection's only inside the final bracket (≤ 1e-15 relative).
    pub(super) fn mvc_x(&self, seg: usize, s: f64) -> Result<f64, PlanningError> {
        self.mvc_x_near(seg, s, f64::NAN)
    }

    /// [`Self::mvc_x`] with a guess `near` of α (e.g. α at a neighbouring s; NaN for none):
    /// the bracket is first tried as `near·(1 ± 10⁻³)`. The result obeys the same bracket
    /// criterion whatever the guess.
    pub(super) fn mvc_x_near(&self, seg: usize, s: f64, near: f64) -> Result<f64, PlanningError> {
        const TOP: f64 = 8_388_608.0; // 2²³: admissible there → unbounded (α = ∞)
        const EPS: f64 = 1e-3;
        let (ok0, g0) = self.probe(seg, s, 0.0)?;
        if !ok0 {
            return Ok(-1.0);
        }
        let (mut lo, mut glo) = (0.0f64, g0);
        let mut hi = 1.0f64;
        let mut ghi = f64::NAN;
        let mut extrapolate = true;
        let mut extrapolated = false;
        let mut bracketed = false;
        if near.is_finite() && near > 0.0 && near * (1.0 + EPS) < TOP {
            let up = near * (1.0 + EPS);
            let (ok, g) = self.probe(seg, s, up)?;
            if ok {
                (lo, glo) = (up, g);
                hi = (2.0 * up).min(TOP);
            } else {
                (hi, ghi) = (up, g);
                let down = near * (1.0 - EPS);
                let (ok, g) = self.probe(seg, s, down)?;
                if ok {
                    (lo, glo) = (down, g);
                } else {
                    (hi, ghi) = (down, g);
                }
                bracketed = true;
            }
        }
        // upward until an inadmissible probe (skipped when the guess bracketed α)
        while !bracketed {
            let (ok, g) = self.probe(seg, s, hi)?;
            if !ok {
                ghi = g;
                bracketed = true;
                continue;
            }
            if hi >= TOP {
                return Ok(f64::INFINITY);
            }
            let mut next = 2.0 * hi;
            // an extrapolated probe that turned out admissible: the margin is not concave
            if extrapolated {
                extrapolate = false;
            }
            extrapolated = false;
            // the line through (lo², m(lo)) and (hi², m(hi)) meets zero at or beyond the root
            if extrapolate && g.is_finite() && glo.is_finite() && g < glo && g >= 0.0 {
                let (xl, xh) = (lo * lo, hi * hi);
                let xr = xh + g * ((xh - xl) / (glo - g));
                let r = xr.sqrt() * (1.0 + 1e-12);
                if r > hi && r.is_finite() {
                    next = r;
                    extrapolated = true;
                }
            }
            lo = hi;
            glo = g;
            hi = next.min(TOP);
        }
        // (x, m) of the second-nearest inadmissible probe (the nearest is hi)
        let mut r2: Option<(f64, f64)> = None;
        // margins at lo and hi as weighted by the Illinois rule (halved when an end is kept
        // twice); glo, ghi stay the true margins
        let (mut wlo, mut whi) = (glo, ghi);
        // +1 when lo was kept by the last probe, −1 when hi was
        let mut kept = 0i8;
        let mut stalls = 0usize;
        for _ in 0..200 {
            let width = hi - lo;
            if width <= 1e-15 * hi {
                break;
            }
            let delta = 0.4e-15 * hi;
            let (xl, xh) = (lo * lo, hi * hi);
            let mut est = f64::NAN;
            if stalls < 2 {
                if let Some((x2, g2)) = r2 {
                    // the line through the two nearest inadmissible probes
                    let slope = (ghi - g2) / (xh - x2);
                    if slope < 0.0 && slope.is_finite() {
                        est = xh - ghi / slope;
                    }
                }
                if !(est > xl && est < xh) && wlo >= 0.0 && whi < 0.0 && (wlo - whi).is_finite() {
                    // regula falsi (Illinois)
                    est = xl + wlo * ((xh - xl) / (wlo - whi));
                }
            } else {
                stalls = 0;
            }
            let m = if est.is_finite() && est >= 0.0 {
                est.sqrt().clamp(lo + delta, hi - delta)
            } else {
                0.5 * (lo + hi)
            };
            let (ok, g) = self.probe(seg, s, m)?;
            if ok {
                (lo, wlo) = (m, g);
                if kept == -1 {
                    whi *= 0.5;
                }
                kept = -1;
            } else {
                r2 = Some((xh, ghi));
                (hi, ghi, whi) = (m, g, g);
                if kept == 1 {
                    wlo *= 0.5;
                }
                kept = 1;
            }
            if hi - lo > 0.5 * width {
                stalls += 1;
            } else {
                stalls = 0;
            }
        }
        Ok(lo * lo)
    }

    /// Whether `(s, ṡ)` lies in the admissible region Ψ (4.3.50) (segment chosen from the
    /// right at breakpoints; the speed cap included) — for drawing the inadmissible region.
    pub fn is_admissible(&self, s: f64, sd: f64) -> Result<bool, PlanningError> {
        self.admissible(self.path().locate(s), s, sd * sd)
    }

    /// The maximum-velocity curve α(s) (right limit at breakpoints; +∞ where unbounded).
    ///
    /// Errors: [`PlanningError::EmptyAdmissibleRegion`] when even ṡ = 0 is inadmissible at s.
    pub fn max_velocity(&self, s: f64) -> Result<f64, PlanningError> {
        let x = self.mvc_x(self.path().locate(s), s)?;
        if x < 0.0 {
            return Err(PlanningError::EmptyAdmissibleRegion { s });
        }
        Ok(x.sqrt())
    }
}
