//! Switching points on the maximum-velocity curve (Shin–McKay; Huang Theorem 4.3.4):
//! tangent, zero-inertia and discontinuity candidates, and the trimming of a profile where a
//! backward curve meets it.

use super::*;

impl<'l, 'a, M: Mechanism + ?Sized, P: JointPath + ?Sized, L: TorqueLimits + ?Sized>
    PhasePlane<'l, 'a, M, P, L>
{
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
            let g: Vec<f64> = (0..=n).map(|k| lo + len * k as f64 / n as f64).collect();
            let mut xs = Vec::with_capacity(n + 1);
            // h(s, α) just below the MVC, evaluated while the dynamics at s are cached (an error
            // is kept, and raised only where the σ below needs the value)
            let mut h_mvc = Vec::with_capacity(n + 1);
            // a = M B and the added rows' s̈ coefficients on the grid for the zero-inertia
            // scan below, taken while M(Q(s)) and the rows at s are cached (one mass matrix
            // per grid point)
            let torque = !self.lim.torque_limits().is_unlimited();
            let nr = self.lim.rows_at(si, lo, |ra, _, _| ra.len())?;
            let mut a_grid = vec![0.0; if torque { (n + 1) * dof } else { 0 }];
            let mut ra_grid = vec![0.0; (n + 1) * nr];
            for (k, &s) in g.iter().enumerate() {
                let near = xs.last().map_or(f64::NAN, |x: &f64| x.sqrt());
                let x = self.mvc_x_near(si, s, near)?;
                if x < 0.0 {
                    return Err(PlanningError::EmptyAdmissibleRegion { s });
                }
                xs.push(x);
                samples.push((s, x.sqrt()));
                h_mvc.push(if x.is_finite() {
                    self.bounds(si, s, x * (1.0 - 1e-9)).map(|b| b.lower)
                } else {
                    Ok(f64::NAN)
                });
                if torque {
                    self.dynamics().inertia_coefficients(
                        si,
                        s,
                        &mut a_grid[k * dof..(k + 1) * dof],
                    )?;
                }
                self.lim.rows_at(si, s, |v, _, _| {
                    ra_grid[k * nr..(k + 1) * nr].copy_from_slice(v)
                })?;
            }
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
                    let (mut l, mut h) = (g[k], g[k + 1]);
                    for _ in 0..50 {
                        let m = 0.5 * (l + h);
                        let v = sigma_at(m)?;
                        if v > 0.0 {
                            l = m;
                        } else {
                            h = m;
                        }
                    }
                    let x = self.mvc_x(si, h)?;
                    if x.is_finite() {
                        cands.push(Candidate {
                            s: h,
                            x: x * (1.0 - 1e-7),
                            kind: SwitchKind::Tangent,
                            seg_left: si,
                            seg_right: si,
                        });
                    }
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
                    let (mut l, mut h) = (g[k - 1], s);
                    let sl = if is_torque {
                        a_prev[i] > 0.0
                    } else {
                        ra_prev[i] > 0.0
                    };
                    for _ in 0..60 {
                        let m = 0.5 * (l + h);
                        let v = if is_torque {
                            self.dynamics().inertia_coefficients(si, m, &mut a)?;
                            a[i]
                        } else {
                            self.lim.rows_at(si, m, |v, _, _| v[i])?
                        };
                        if (v > 0.0) == sl && v != 0.0 {
                            l = m;
                        } else {
                            h = m;
                        }
                    }
                    let x = self.mvc_x(si, h)?;
                    if x.is_finite() {
                        cands.push(Candidate {
                            s: h,
                            x: x * (1.0 - 1e-7),
                            kind: SwitchKind::ZeroInertia,
                            seg_left: si,
                            seg_right: si,
                        });
                    }
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
        let mut cur = hit;
        let mut moved = false;
        let mut blocked = false;
        let mut first = true;
        // the step is halved where the boundary stops being slideable (ureq leaves [h, γ]),
        // so that the exit is located to 1e-9 of the step instead of one step early
        let mut dsl = ds;
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
