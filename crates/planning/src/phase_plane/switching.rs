//! Switching points on the maximum-velocity curve (Shin–McKay; Huang Theorem 4.3.4):
//! tangent, zero-inertia and discontinuity candidates, and the trimming of a profile where a
//! backward curve meets it.

use super::*;

/// Points per segment of the coarse pass of the adaptive MVC scan (the fine grid has
/// [`PhasePlaneConfig::mvc_grid`] intervals per segment).
const COARSE_POINTS: usize = 50;

impl<'l, 'a, M: Mechanism + ?Sized, P: JointPath + ?Sized, L: TorqueLimits + ?Sized>
    PhasePlane<'l, 'a, M, P, L>
{
    /// A switching-point candidate just below the MVC at `s` on segment `seg` (none where
    /// the MVC is unbounded).
    fn mvc_candidate(
        &self,
        cands: &mut Vec<Candidate>,
        seg: usize,
        s: f64,
        kind: SwitchKind,
    ) -> Result<(), PlanningError> {
        let x = self.mvc_x(seg, s)?;
        if x.is_finite() {
            cands.push(Candidate {
                s,
                x: x * (1.0 - 1e-7),
                kind,
                seg_left: seg,
                seg_right: seg,
            });
        }
        Ok(())
    }

    /// Candidate switching points on the MVC of [s_a, s_b] and the MVC samples.
    #[allow(clippy::type_complexity)]
    pub(super) fn candidates(
        &self,
        s_a: f64,
        s_b: f64,
    ) -> Result<(Vec<Candidate>, Vec<(f64, f64)>, Vec<(f64, f64)>), PlanningError> {
        let path = self.path();
        let n = self.cfg.mvc_grid.max(10);
        let mut cands = Vec::new();
        let mut samples = Vec::new();
        let dof = self.dynamics().dof();
        let mut a = vec![0.0; dof];
        let mut a_prev = vec![0.0; dof];
        for (si, seg) in path.segments().iter().enumerate() {
            let lo = seg.s_start.max(s_a);
            let hi = seg.s_end.min(s_b);
            if hi <= lo {
                continue;
            }
            let len = hi - lo;
            // The scan is adaptive: the MVC, h(s, α) and the s̈ coefficients
            // are first taken on every `stride`-th point of the fine grid lo + len·k/n, and the
            // fine points are added only in the coarse intervals where the structure demands
            // them: σ (below) or an s̈ coefficient changes sign there or has a turning point
            // next to it (a pair of sign changes could hide inside), or α′ changes sign (a
            // local minimum or maximum of the MVC), or α stops being finite. Everything after
            // the scan (σ's sign changes, zero-inertia flips, their bisections) runs on the
            // points taken, so where the structure is, the search is the former fixed-grid
            // search; elsewhere σ and the coefficients are smooth and of one sign and the
            // fine points would find nothing.
            let fine = |k: usize| lo + len * k as f64 / n as f64;
            let stride = (n / COARSE_POINTS).max(1);
            let torque = !self.lim.torque_limits().is_unlimited();
            let nr = self.lim.rows_at(si, lo, |ra, _, _| ra.len())?;
            let mut taken = vec![false; n + 1];
            let mut xs_f = vec![f64::NAN; n + 1];
            // h(s, α) just below the MVC, evaluated while the dynamics at s are cached (an error
            // is kept, and raised only where the σ below needs the value)
            let mut h_f: Vec<Result<f64, PlanningError>> = vec![Ok(f64::NAN); n + 1];
            // a = M B and the added rows' s̈ coefficients, taken while M(Q(s)) and the rows at s
            // are cached (one mass matrix per point)
            let mut a_f = vec![0.0; if torque { (n + 1) * dof } else { 0 }];
            let mut ra_f = vec![0.0; (n + 1) * nr];
            let mut take = |k: usize,
                            near: f64,
                            xs_f: &mut [f64],
                            h_f: &mut [Result<f64, PlanningError>],
                            a_f: &mut [f64],
                            ra_f: &mut [f64]|
             -> Result<f64, PlanningError> {
                let s = fine(k);
                let x = self.mvc_x_near(si, s, near)?;
                if x < 0.0 {
                    return Err(PlanningError::EmptyAdmissibleRegion { s });
                }
                xs_f[k] = x;
                h_f[k] = if x.is_finite() {
                    self.bounds(si, s, x * (1.0 - 1e-9)).map(|b| b.lower)
                } else {
                    Ok(f64::NAN)
                };
                if torque {
                    self.dynamics().inertia_coefficients(
                        si,
                        s,
                        &mut a_f[k * dof..(k + 1) * dof],
                    )?;
                }
                self.lim.rows_at(si, s, |v, _, _| {
                    ra_f[k * nr..(k + 1) * nr].copy_from_slice(v)
                })?;
                taken[k] = true;
                Ok(x)
            };
            let mut coarse: Vec<usize> = (0..=n).step_by(stride).collect();
            if coarse.last() != Some(&n) {
                coarse.push(n);
            }
            let mut near = f64::NAN;
            for &k in &coarse {
                near = take(k, near, &mut xs_f, &mut h_f, &mut a_f, &mut ra_f)?.sqrt();
            }
            // which coarse intervals to refine
            let nc = coarse.len();
            let mut refine = vec![false; nc.saturating_sub(1)];
            {
                let gk = |j: usize| fine(coarse[j]);
                let xk = |j: usize| xs_f[coarse[j]];
                // σ on the coarse points (central differences of α² on the coarse grid)
                let sig_c: Vec<f64> = (0..nc)
                    .map(|j| {
                        let (jm, jp) = (j.saturating_sub(1), (j + 1).min(nc - 1));
                        let h = h_f[coarse[j]].as_ref().copied().unwrap_or(f64::NAN);
                        h - 0.5 * (xk(jp) - xk(jm)) / (gk(jp) - gk(jm))
                    })
                    .collect();
                // a series turns (or changes sign, or stops being finite) between j and j + 1,
                // or at j: mark the intervals on both sides
                let mut mark = |v: &dyn Fn(usize) -> f64| {
                    for j in 0..nc - 1 {
                        let (a, b) = (v(j), v(j + 1));
                        // a change of sign, from or to zero, or of finiteness (two zeros, two
                        // NaNs: nothing happens)
                        let sign = a.is_finite() != b.is_finite()
                            || (a > 0.0 && b <= 0.0)
                            || (a < 0.0 && b >= 0.0)
                            || (a == 0.0 && b != 0.0);
                        // a turning point at j, above round-off (a constant series, e.g. a
                        // constant speed cap, wiggles in its last bits)
                        let turn = j > 0 && {
                            let p = v(j - 1);
                            let (d1, d2) = (a - p, b - a);
                            let noise = 1e-12 * p.abs().max(a.abs()).max(b.abs());
                            d1 * d2 < 0.0 && d1.abs().min(d2.abs()) > noise
                        };
                        if sign {
                            refine[j] = true;
                        }
                        if turn {
                            refine[j] = true;
                            refine[j - 1] = true;
                        }
                    }
                };
                mark(&|j| sig_c[j]);
                mark(&|j| xk(j));
                for i in 0..if torque { dof } else { 0 } {
                    mark(&|j| a_f[coarse[j] * dof + i]);
                }
                for i in 0..nr {
                    mark(&|j| ra_f[coarse[j] * nr + i]);
                }
            }
            for j in 0..nc - 1 {
                if refine[j] {
                    let mut near = xs_f[coarse[j]].sqrt();
                    for k in coarse[j] + 1..coarse[j + 1] {
                        near = take(k, near, &mut xs_f, &mut h_f, &mut a_f, &mut ra_f)?.sqrt();
                    }
                }
            }
            let pts: Vec<usize> = (0..=n).filter(|&k| taken[k]).collect();
            let g: Vec<f64> = pts.iter().map(|&k| fine(k)).collect();
            let xs: Vec<f64> = pts.iter().map(|&k| xs_f[k]).collect();
            let mut h_mvc: Vec<Result<f64, PlanningError>> = pts
                .iter()
                .map(|&k| std::mem::replace(&mut h_f[k], Ok(f64::NAN)))
                .collect();
            let a_grid: Vec<f64> = if torque {
                pts.iter()
                    .flat_map(|&k| a_f[k * dof..(k + 1) * dof].iter().copied())
                    .collect()
            } else {
                Vec::new()
            };
            let ra_grid: Vec<f64> = pts
                .iter()
                .flat_map(|&k| ra_f[k * nr..(k + 1) * nr].iter().copied())
                .collect();
            for (&s, &x) in g.iter().zip(&xs) {
                samples.push((s, x.sqrt()));
            }
            let n = pts.len() - 1;
            // β-type function σ(s) = h(s, α) − α α′ (u of the extremal minus the MVC's s̈)
            let sigma_at = |s: f64| -> Result<f64, PlanningError> {
                let d = 1e-6 * len;
                let sp = (s + d).min(hi);
                let sm = (s - d).max(lo);
                // x0 last: the bounds at (s, x0) below reuse the dynamics cached at s
                let xp = self.mvc_x(si, sp)?;
                let xm = self.mvc_x_near(si, sm, xp.sqrt())?;
                let x0 = self.mvc_x_near(si, s, xp.sqrt())?;
                if !(xp.is_finite() && xm.is_finite() && x0.is_finite()) {
                    return Ok(f64::NAN);
                }
                let umvc = 0.5 * (xp - xm) / (sp - sm);
                let b = self.bounds(si, s, x0 * (1.0 - 1e-9))?;
                Ok(b.lower - umvc)
            };
            let mut sig = Vec::with_capacity(n + 1);
            for k in 0..=n {
                let (km, kp) = (k.saturating_sub(1), (k + 1).min(n));
                if !(xs[km].is_finite() && xs[kp].is_finite() && xs[k].is_finite()) {
                    sig.push(f64::NAN);
                    continue;
                }
                let umvc = 0.5 * (xs[kp] - xs[km]) / (g[kp] - g[km]);
                let lower = std::mem::replace(&mut h_mvc[k], Ok(f64::NAN))?;
                sig.push(lower - umvc);
            }
            for k in 0..n {
                if sig[k] > 0.0 && sig[k + 1] <= 0.0 {
                    let h = bisect(g[k], g[k + 1], 50, |m| Ok(sigma_at(m)? > 0.0))?;
                    self.mvc_candidate(&mut cands, si, h, SwitchKind::Tangent)?;
                }
            }
            // zero-inertia points: a_i = Σ_j M_ij B_j changes sign (torque rows), or the s̈
            // coefficient of an added row a s̈ + b ṡ² + c ≤ 0 does (e.g. B_i of a joint
            // acceleration row where joint i reverses)
            let mut ra_prev = vec![0.0; nr];
            let mut ra = vec![0.0; nr];
            let mut flips: Vec<(usize, bool)> = Vec::with_capacity(dof + nr);
            for (k, &s) in g.iter().enumerate() {
                flips.clear();
                if torque {
                    a.copy_from_slice(&a_grid[k * dof..(k + 1) * dof]);
                }
                ra.copy_from_slice(&ra_grid[k * nr..(k + 1) * nr]);
                if k > 0 {
                    for i in 0..if torque { dof } else { 0 } {
                        if a_prev[i] != 0.0 && (a[i] == 0.0 || (a[i] > 0.0) != (a_prev[i] > 0.0)) {
                            flips.push((i, true));
                        }
                    }
                    for i in 0..nr {
                        if ra_prev[i] != 0.0
                            && (ra[i] == 0.0 || (ra[i] > 0.0) != (ra_prev[i] > 0.0))
                        {
                            flips.push((i, false));
                        }
                    }
                }
                for &(i, is_torque) in &flips {
                    let sl = if is_torque {
                        a_prev[i] > 0.0
                    } else {
                        ra_prev[i] > 0.0
                    };
                    let h = bisect(g[k - 1], s, 60, |m| {
                        let v = if is_torque {
                            self.dynamics().inertia_coefficients(si, m, &mut a)?;
                            a[i]
                        } else {
                            self.lim.rows_at(si, m, |v, _, _| v[i])?
                        };
                        Ok((v > 0.0) == sl && v != 0.0)
                    })?;
                    self.mvc_candidate(&mut cands, si, h, SwitchKind::ZeroInertia)?;
                }
                if torque {
                    a_prev.copy_from_slice(&a_grid[k * dof..(k + 1) * dof]);
                }
                ra_prev.copy_from_slice(&ra);
            }
        }
        // breakpoints: MVC limits from both sides, zero at a corner of the joint path
        let mut bp = Vec::new();
        let jp = self.dynamics().joint_path();
        let nq = dof;
        let (mut q, mut bl, mut br, mut bb) =
            (vec![0.0; nq], vec![0.0; nq], vec![0.0; nq], vec![0.0; nq]);
        for (si, seg) in path.segments().iter().enumerate().skip(1) {
            let sd = seg.s_start;
            if sd <= s_a || sd >= s_b {
                continue;
            }
            jp.eval(si - 1, sd, &mut q, &mut bl, &mut bb)?;
            jp.eval(si, sd, &mut q, &mut br, &mut bb)?;
            let nb = bl.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
            let jump = bl
                .iter()
                .zip(&br)
                .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            let xl = self.mvc_x(si - 1, sd)?;
            let xr = self.mvc_x(si, sd)?;
            if xl < 0.0 || xr < 0.0 {
                return Err(PlanningError::EmptyAdmissibleRegion { s: sd });
            }
            let xd = if jump > 1e-8 * nb { 0.0 } else { xl.min(xr) };
            bp.push((sd, xd));
            if xd.is_finite() {
                cands.push(Candidate {
                    s: sd,
                    x: xd * (1.0 - 1e-7),
                    kind: SwitchKind::Discontinuity,
                    seg_left: si - 1,
                    seg_right: si,
                });
            }
        }
        cands.sort_by(|p, q| p.s.total_cmp(&q.s));
        // a sign change of β at a zero-inertia point (a cusp of the MVC) is that point
        let zi: Vec<f64> = cands
            .iter()
            .filter(|c| c.kind == SwitchKind::ZeroInertia)
            .map(|c| c.s)
            .collect();
        let near = |s: f64| zi.iter().any(|z| (z - s).abs() <= 1e-5 * (s_b - s_a));
        cands.retain(|c| !(c.kind == SwitchKind::Tangent && near(c.s)));
        Ok((cands, samples, bp))
    }

    pub(super) fn truncate(prof: &mut Vec<Node>, switches: &mut Vec<Switch>, s: f64, x: f64) {
        let (_, u) = profile_x(prof, s).unwrap_or((x, 0.0));
        let seg = prof[prof.partition_point(|p| p.s <= s).saturating_sub(1)].seg;
        let keep = prof.partition_point(|p| p.s < s);
        prof.truncate(keep);
        // the interval that now ends at the cut is part of a step: cubic Hermite on it
        if let Some(p) = prof.last_mut() {
            p.d = 0.0;
        }
        prof.push(Node {
            s,
            x,
            u,
            seg,
            d: 0.0,
        });
        switches.retain(|w| w.s <= s);
    }

    /// Slides along a velocity-type stretch of the MVC from `hit`; returns the last node and
    /// whether the profile must decelerate harder than possible there (a new hit).
    pub(super) fn slide(
        &self,
        prof: &mut Vec<Node>,
        hit: Node,
        s_b: f64,
        join_at: Option<f64>,
    ) -> Result<Option<(Node, bool)>, PlanningError> {
        let path = self.path();
        let seg = hit.seg;
        // the slide also ends where the final deceleration curve C_f left the boundary
        let end = path.segments()[seg]
            .s_end
            .min(s_b)
            .min(join_at.filter(|j| *j > hit.s).unwrap_or(f64::INFINITY));
        let ds = (s_b - prof[0].s) / (4.0 * self.cfg.mvc_grid.max(10) as f64);
        let h_max = (self.cfg.max_step_fraction * (s_b - prof[0].s)).max(ds);
        let mut cur = hit;
        let mut moved = false;
        let mut blocked = false;
        let mut first = true;
        // the step is halved where the boundary stops being slideable (ureq leaves [h, γ]),
        // so that the exit is located to 1e-9 of the step instead of one step early
        let mut dsl = ds;
        // once halved, the step stays small (the exit is being located)
        let mut locating = false;
        // the last boundary nodes (s, x) of this slide, for the step control below
        let mut last = [
            (f64::NAN, f64::NAN),
            (f64::NAN, f64::NAN),
            (f64::NAN, f64::NAN),
            (hit.s, hit.x),
        ];
        let mut count = 1usize;
        while cur.s < end {
            let sn = (cur.s + dsl).min(end);
            let xn = self.mvc_x_near(seg, sn, cur.x.sqrt())?;
            if !xn.is_finite() {
                break;
            }
            let xn = xn * (1.0 - 1e-10);
            let ureq = 0.5 * (xn - cur.x) / (sn - cur.s);
            let b = self.bounds(seg, sn, xn)?;
            let tol = 1e-7 * (1.0 + b.lower.abs() + b.upper.abs());
            let leaves = !b.singular_ok || ureq > b.upper + tol;
            let stops = ureq < b.lower - tol;
            if (leaves || stops) && dsl > 1e-9 * ds {
                dsl *= 0.5;
                locating = true;
                continue;
            }
            if leaves {
                break;
            }
            if stops {
                blocked = true;
                break;
            }
            if first {
                // a duplicate of the hit node starts the sliding piece
                prof.push(Node {
                    u: ureq,
                    d: 0.0,
                    ..hit
                });
                first = false;
            }
            cur = Node {
                s: sn,
                x: xn,
                u: ureq,
                seg,
                d: 0.0,
            };
            prof.push(cur);
            moved = true;
            // step control: the nodes' s̈ are central differences (error x‴ Δ²/6), so the
            // Hermite interpolant of x between nodes is off by about |x[s0, s1, s2, s3]| Δ³
            // (the third divided difference ≈ x‴/6 of the last four boundary nodes); the
            // step grows (at most ×2, up to the curves' step cap) while that stays below
            // atol + rtol·x, and never falls below the former fixed spacing (piece length /
            // (4 mvc_grid)). On a constant cap (a joint-space line under joint velocity
            // limits) the slide takes step-cap steps instead of 4 mvc_grid of them.
            last = [last[1], last[2], last[3], (sn, xn)];
            count += 1;
            if !locating && count >= 4 {
                let dd = |a: (f64, f64), b: (f64, f64)| (b.1 - a.1) / (b.0 - a.0);
                let [p0, p1, p2, p3] = last;
                let d2a = (dd(p1, p2) - dd(p0, p1)) / (p2.0 - p0.0);
                let d2b = (dd(p2, p3) - dd(p1, p2)) / (p3.0 - p1.0);
                let d3 = ((d2b - d2a) / (p3.0 - p0.0)).abs();
                let tol = self.cfg.atol + self.cfg.rtol * cur.x.abs();
                let next = if d3 == 0.0 {
                    f64::INFINITY
                } else if d3.is_finite() {
                    (tol / d3).cbrt()
                } else {
                    dsl
                };
                dsl = next.min(2.0 * dsl).min(h_max).max(ds);
            }
        }
        if moved {
            // the nodes' s̈ as central differences of the boundary (second order; the secants
            // above are first order), so that the Hermite interpolant of x = ṡ² between the
            // nodes, from which the sampled trajectory takes ṡ and s̈, follows the boundary
            let n = prof.len();
            let first_k = n - 1 - prof.iter().rev().take_while(|p| p.s > hit.s).count();
            for k in (first_k + 1)..n.saturating_sub(1) {
                let (a, b) = (prof[k - 1], prof[k + 1]);
                if b.s > a.s {
                    prof[k].u = 0.5 * (b.x - a.x) / (b.s - a.s);
                }
            }
        }
        Ok(if moved { Some((cur, blocked)) } else { None })
    }
}

/// Bisects `[l, h]` `iters` times, keeping `left(l)` true and `left(h)` false; returns `h`.
fn bisect(
    mut l: f64,
    mut h: f64,
    iters: usize,
    mut left: impl FnMut(f64) -> Result<bool, PlanningError>,
) -> Result<f64, PlanningError> {
    for _ in 0..iters {
        let m = 0.5 * (l + h);
        if left(m)? {
            l = m;
        } else {
            h = m;
        }
    }
    Ok(h)
}
