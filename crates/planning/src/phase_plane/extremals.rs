//! The extremal curves: maximum acceleration `dṡ/ds = γ/ṡ` (4.3.48) and maximum deceleration
//! `dṡ/ds = h/ṡ` (4.3.49), integrated in x = ṡ² with contour-ode's Dormand–Prince 5(4) step
//! under this module's step control, with event location on the Hermite interpolant (leaving
//! Ψ, meeting another curve, stalling).

use super::*;

impl<'l, 'a, M: Mechanism + ?Sized, P: JointPath + ?Sized, L: TorqueLimits + ?Sized>
    PhasePlane<'l, 'a, M, P, L>
{
    pub(super) fn rate(
        &self,
        seg: usize,
        s: f64,
        x: f64,
        decel: bool,
    ) -> Result<f64, PlanningError> {
        let b = self.bounds(seg, s, x)?;
        let u = if decel { b.lower } else { b.upper };
        if !u.is_finite() {
            return Err(self.lim.unbounded_error(seg, s));
        }
        Ok(u)
    }

    /// Integrates an extremal (max acceleration, or max deceleration when `decel`) forward or
    /// backward from (s0, x0) on segment `seg0` within [s_a, s_b]; stops at the end, when it
    /// leaves Ψ (MVC), stalls (x → 0) or crosses `reference`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn integrate(
        &self,
        forward: bool,
        decel: bool,
        s0: f64,
        x0: f64,
        seg0: usize,
        span: (f64, f64),
        bp_mvc: &[(f64, f64)],
        reference: Option<&[Node]>,
    ) -> Result<(Vec<Node>, Stop), PlanningError> {
        let (s_a, s_b) = span;
        let path = self.path();
        let dir = if forward { 1.0 } else { -1.0 };
        let h_max = self.cfg.max_step_fraction * (s_b - s_a);
        let mut seg = seg0;
        let (mut s, mut x) = (s0, x0);
        let mut u = self.rate(seg, s, x, decel)?;
        let mut nodes = vec![Node {
            s,
            x,
            u,
            seg,
            d: 0.0,
        }];
        // at rest the curve must move in its direction
        if x <= 0.0 && u * dir <= 0.0 && forward != decel {
            return Ok((nodes, Stop::Stall));
        }
        let eps_d = |x: f64| 1e-13 * (1.0 + x.abs());
        let mut init_sign: Option<bool> = None;
        if let Some(r) = reference {
            if let Some((xr, _)) = profile_x(r, s) {
                let d = x - xr;
                if d.abs() > eps_d(x) {
                    init_sign = Some(d > 0.0);
                }
            }
        }
        let mut h = dir * h_max * 0.05;
        let mut rejects = 0usize;
        loop {
            let limit = if forward {
                path.segments()[seg].s_end.min(s_b)
            } else {
                path.segments()[seg].s_start.max(s_a)
            };
            if (limit - s) * dir <= 0.0 {
                let at_end = if forward { limit >= s_b } else { limit <= s_a };
                if at_end {
                    return Ok((nodes, Stop::End));
                }
                // crossing an interior breakpoint
                let nseg = if forward { seg + 1 } else { seg - 1 };
                let xb = bp_mvc
                    .iter()
                    .find(|(sb, _)| (sb - s).abs() <= 1e-12 * (1.0 + s.abs()))
                    .map(|(_, v)| *v)
                    .unwrap_or(f64::INFINITY);
                if x > xb * (1.0 + 1e-9) + 1e-14 || !self.admissible(nseg, s, x)? {
                    return Ok((nodes, Stop::Mvc));
                }
                seg = nseg;
                u = self.rate(seg, s, x, decel)?;
                nodes.push(Node {
                    s,
                    x,
                    u,
                    seg,
                    d: 0.0,
                });
                continue;
            }
            let rem = limit - s;
            let mut hh = h;
            let mut snap = false;
            if hh.abs() >= rem.abs() {
                hh = rem;
                snap = true;
            }
            let mut f = |ss: f64, xx: f64| -> Result<f64, PlanningError> {
                Ok(2.0 * self.rate(seg, ss, xx, decel)?)
            };
            let r = DORMAND_PRINCE_1980.scalar_step(&mut f, s, x, 2.0 * u, hh)?;
            // accepted when the local error of x AND the interpolant's are within the
            // tolerance: the time (4.3.47), the crossings and the samples are taken between
            // nodes from the interpolant, whose error (order 4) would otherwise exceed the
            // controlled error of the nodes (order 5) on long steps — the step cap then only
            // places events, and the accuracy of the time follows rtol. |dense|/16 is the
            // distance of the cubic Hermite from the 4th-order dense output at mid-step, a
            // bound on the error of the cubic (the dense output is used where available).
            let tol = self.cfg.atol + self.cfg.rtol * x.abs().max(r.y.abs());
            let ratio = r.err.abs().max(r.dense.abs() / 16.0) / tol;
            if ratio.is_nan() || ratio > 1.0 {
                h = next_step(hh, if ratio.is_finite() { ratio } else { 1e10 });
                rejects += 1;
                if h.abs() < 1e-14 * (1.0 + s.abs()) || rejects > 100_000 {
                    return Err(PlanningError::StepSizeTooSmall { s, h });
                }
                continue;
            }
            let s_new = if snap { limit } else { s + hh };
            let x_new = r.y;
            let u_new = 0.5 * r.f;
            let (sa, xa, fa) = (s, x, 2.0 * u);
            let (sb, xb, fb) = (s_new, x_new, r.f);
            // the step's 4th-order dense output (cubic Hermite + θ²(1 − θ)² dense)
            let iv = if forward {
                XInterval {
                    s0: sa,
                    x0: xa,
                    f0: fa,
                    s1: sb,
                    x1: xb,
                    f1: fb,
                    dense: r.dense,
                }
            } else {
                XInterval {
                    s0: sb,
                    x0: xb,
                    f0: fb,
                    s1: sa,
                    x1: xa,
                    f1: fa,
                    dense: r.dense,
                }
            };
            let herm = |q: f64| if q <= iv.s0 { iv.x0 } else { iv.x(q) };
            // events: the first (in the direction of motion) wins
            let mut event: Option<(f64, Stop)> = None;
            let closer = |e: &Option<(f64, Stop)>, q: f64| match e {
                None => true,
                Some((q0, _)) => (q - q0) * dir < 0.0,
            };
            let bisect =
                |pred: &dyn Fn(f64) -> Result<bool, PlanningError>| -> Result<f64, PlanningError> {
                    // pred(sa) false, pred(sb) true → first s where it becomes true
                    let (mut lo, mut hi) = (sa, sb);
                    for _ in 0..80 {
                        let mid = 0.5 * (lo + hi);
                        if pred(mid)? {
                            hi = mid;
                        } else {
                            lo = mid;
                        }
                        if (hi - lo).abs() <= 1e-15 * (1.0 + sa.abs()) {
                            break;
                        }
                    }
                    Ok(lo)
                };
            if x_new < 0.0 {
                let q = bisect(&|q| Ok(herm(q) < 0.0))?;
                event = Some((q, Stop::Stall));
            }
            if !self.admissible(seg, s_new, x_new.max(0.0))? {
                let q = bisect(&|q| Ok(!self.admissible(seg, q, herm(q).max(0.0))?))?;
                if closer(&event, q) {
                    event = Some((q, Stop::Mvc));
                }
            }
            if let Some(rf) = reference {
                // where on the step the curve leaves the side `pos` of the reference (reaching
                // it counts when `touch`)
                let cross = |pos: bool, touch: bool| {
                    bisect(&|q| {
                        Ok(profile_x(rf, q)
                            .map(|(v, _)| {
                                let dd = herm(q) - v;
                                (dd > 0.0) != pos || (touch && dd == 0.0)
                            })
                            .unwrap_or(false))
                    })
                };
                if let Some((xr, _)) = profile_x(rf, s_new) {
                    let d = x_new - xr;
                    match init_sign {
                        None => {
                            if d.abs() > eps_d(x_new) {
                                // first comparison inside the reference: decide by the start
                                let prev = profile_x(rf, s).map(|(v, _)| x - v);
                                match prev {
                                    Some(dp) if dp.abs() > eps_d(x) && (dp > 0.0) != (d > 0.0) => {
                                        let q = cross(dp > 0.0, false)?;
                                        if closer(&event, q) {
                                            event = Some((q, Stop::Cross));
                                        }
                                    }
                                    Some(_) => init_sign = Some(d > 0.0),
                                    None => {
                                        // the step entered the reference's range: compare
                                        // with the side at its edge, or a large step would
                                        // jump over a crossing near the edge
                                        let edge = if forward {
                                            rf.first().map(|p| p.s)
                                        } else {
                                            rf.last().map(|p| p.s)
                                        };
                                        let de = edge
                                            .filter(|e| {
                                                (e - s) * dir > 0.0 && (s_new - e) * dir > 0.0
                                            })
                                            .and_then(|e| {
                                                profile_x(rf, e).map(|(v, _)| herm(e) - v)
                                            });
                                        match de {
                                            Some(de)
                                                if de.abs() > eps_d(x)
                                                    && (de > 0.0) != (d > 0.0) =>
                                            {
                                                let q = cross(de > 0.0, false)?;
                                                if closer(&event, q) {
                                                    event = Some((q, Stop::Cross));
                                                }
                                            }
                                            _ => init_sign = Some(d > 0.0),
                                        }
                                    }
                                }
                            }
                        }
                        Some(pos) => {
                            if (d > 0.0) != pos || d == 0.0 {
                                let q = cross(pos, true)?;
                                if closer(&event, q) {
                                    event = Some((q, Stop::Cross));
                                }
                            }
                        }
                    }
                }
            }
            if let Some((q, stop)) = event {
                let xq = herm(q).max(0.0);
                let uq = self.rate(seg, q, xq, decel)?;
                // a partial step: cubic Hermite on it (d = 0 on both sides)
                nodes.push(Node {
                    s: q,
                    x: xq,
                    u: uq,
                    seg,
                    d: 0.0,
                });
                return Ok((nodes, stop));
            }
            s = s_new;
            x = x_new;
            u = u_new;
            // the step's dense-output term belongs to the interval that starts, in increasing
            // s, at its left end: the previous node going forward, the new one going backward
            // (the backward lists are reversed before use)
            if forward {
                if let Some(p) = nodes.last_mut() {
                    p.d = r.dense;
                }
                nodes.push(Node {
                    s,
                    x,
                    u,
                    seg,
                    d: 0.0,
                });
            } else {
                nodes.push(Node {
                    s,
                    x,
                    u,
                    seg,
                    d: r.dense,
                });
            }
            h = next_step(hh, ratio);
            if h.abs() > h_max {
                h = dir * h_max;
            }
        }
    }
}

/// Interpolated value ([`XInterval`]) of a monotone-in-s node list at `s` (None outside its range).
pub(super) fn profile_x(nodes: &[Node], s: f64) -> Option<(f64, f64)> {
    let n = nodes.len();
    if n == 0 {
        return None;
    }
    let idx = nodes.partition_point(|p| p.s <= s);
    if idx == 0 {
        return None;
    }
    if idx >= n {
        let last = &nodes[n - 1];
        return if s == last.s {
            Some((last.x, last.u))
        } else {
            None
        };
    }
    let a = &nodes[idx - 1];
    let b = &nodes[idx];
    let iv = XInterval::of_nodes(a, b);
    if s <= a.s {
        return Some((a.x, a.u));
    }
    // s̈ at a cut: half the interpolant's slope
    Some((iv.x(s), 0.5 * iv.dx(s)))
}

/// Step-size controller of the curves: the new step from the error ratio `r = |err| / tol` of
/// the order-5 pair (elementary controller, safety 0.9, ratio clamped to [0.2, 5]).
pub(super) fn next_step(h: f64, r: f64) -> f64 {
    let fac = if r == 0.0 {
        5.0
    } else {
        (0.9 * r.powf(-0.2)).clamp(0.2, 5.0)
    };
    h * fac
}
