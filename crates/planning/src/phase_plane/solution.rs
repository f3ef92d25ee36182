//! The solution: one piece between rest points (forward curve, switching points, backward
//! curves) and the whole path, pieces joined at the path's corners.

use super::*;

/// The error where a curve stops on the MVC at `(s, x)`: at rest nothing can move (the region
/// is blocked there, as TOPP-RA reports it), above it no switching point was found.
fn stuck(s: f64, x: f64) -> PlanningError {
    if x <= 0.0 {
        PlanningError::EmptyAdmissibleRegion { s }
    } else {
        PlanningError::NoSwitchingPoint { s }
    }
}

impl<'l, 'a, M: Mechanism + ?Sized, P: JointPath + ?Sized, L: TorqueLimits + ?Sized>
    PhasePlane<'l, 'a, M, P, L>
{
    /// Joins a backward curve `bn` (integrated from its start down to `cut`, where it crossed
    /// the profile) to the profile: the profile is cut at `cut`, the intersection recorded,
    /// and the curve appended in increasing s.
    fn join_backward(prof: &mut Vec<Node>, switches: &mut Vec<Switch>, bn: &[Node], cut: Node) {
        Self::truncate(prof, switches, cut.s, cut.x);
        switches.push(Switch {
            s: cut.s,
            x: cut.x,
            kind: SwitchKind::Intersection,
        });
        prof.extend(bn.iter().rev().copied());
    }

    pub(super) fn solve_piece(&self, s_a: f64, s_b: f64) -> Result<Piece, PlanningError> {
        let path = self.path();
        let (cands, mvc, bp) = self.candidates(s_a, s_b)?;
        let span = (s_a, s_b);
        let mut prof: Vec<Node> = Vec::new();
        let mut switches: Vec<Switch> = Vec::new();
        let (mut s, mut x, mut seg) = (s_a, 0.0, path.locate(s_a));
        let mut last_c = f64::NEG_INFINITY;
        let mut iterations = 0;
        // the final maximum-deceleration curve from (s_b, 0), stopped where it crosses
        // `reference`
        let final_curve = |reference: Option<&[Node]>| {
            self.integrate(
                false,
                true,
                s_b,
                0.0,
                path.locate_left(s_b),
                span,
                &bp,
                reference,
            )
        };
        // C_f: the final maximum-deceleration curve from (s_b, 0), Huang step (2)
        let (mut cf, cf_stop) = final_curve(None)?;
        if cf_stop == Stop::Stall {
            return Err(PlanningError::EmptyAdmissibleRegion {
                s: cf.last().map_or(s_b, |p| p.s),
            });
        }
        cf.reverse();
        // where C_f met a velocity-type boundary (a slide along it joins C_f there)
        let join_at = match cf.first() {
            Some(p) if cf_stop == Stop::Mvc && cf.len() > 1 && p.x > 0.0 => Some(p.s),
            _ => None,
        };
        let mut joined = false;
        // the last boundary exit (where, the node, the profile length) and its margin
        let (mut exit_at, mut exit_margin): (Option<f64>, f64) = (None, 1e-9);
        let mut exit_node = Node {
            s,
            x,
            u: 0.0,
            seg,
            d: 0.0,
        };
        let mut exit_len = 0usize;
        'outer: loop {
            iterations += 1;
            if iterations > 10_000 {
                return Err(PlanningError::NoSwitchingPoint { s });
            }
            let (nodes, stop) = self.integrate(true, false, s, x, seg, span, &bp, Some(&cf))?;
            prof.extend(nodes);
            let mut hit = prof.last().copied().unwrap_or(Node {
                s,
                x,
                u: 0.0,
                seg,
                d: 0.0,
            });
            match stop {
                Stop::End => break,
                Stop::Stall => return Err(PlanningError::EmptyAdmissibleRegion { s: hit.s }),
                Stop::Cross => {
                    // steps (3)/(6): the accelerating curve meets C_f
                    let idx = cf.partition_point(|p| p.s <= hit.s);
                    let cseg = cf[idx.saturating_sub(1)].seg;
                    let u = self.rate(cseg, hit.s, hit.x, true)?;
                    switches.push(Switch {
                        s: hit.s,
                        x: hit.x,
                        kind: SwitchKind::Intersection,
                    });
                    prof.push(Node {
                        s: hit.s,
                        x: hit.x,
                        u,
                        seg: cseg,
                        d: 0.0,
                    });
                    prof.extend(cf[idx..].iter().copied());
                    joined = true;
                    break;
                }
                Stop::Mvc => {}
            }
            // velocity-type boundary: slide along it
            let slid = self.slide(&mut prof, hit, s_b, join_at)?;
            if let (Some((end, false)), Some(j)) = (slid, join_at) {
                if end.s >= j {
                    // slid onto the start of C_f: the profile continues along C_f
                    switches.push(Switch {
                        s: hit.s,
                        x: hit.x,
                        kind: SwitchKind::BoundaryEntry,
                    });
                    switches.push(Switch {
                        s: end.s,
                        x: end.x,
                        kind: SwitchKind::BoundaryExit,
                    });
                    prof.extend(cf.iter().copied());
                    joined = true;
                    break;
                }
            }
            if slid.is_none()
                && exit_at.is_some_and(|e| (hit.s - e).abs() <= 1e-6 * (s_b - s_a))
                && exit_margin < 1e-5
            {
                // leaving the boundary where the maximum acceleration is only just below the
                // boundary's slope (a tangential exit): the extremal from ṡ²(1 − margin) met
                // the boundary again at once; start it further below (margin 1e-9 → 1e-7 →
                // 1e-5: the time changes by about margin/2 over the few steps it takes to
                // diverge)
                exit_margin *= 100.0;
                prof.truncate(exit_len);
                s = exit_node.s;
                x = exit_node.x * (1.0 - exit_margin);
                seg = exit_node.seg;
                continue;
            }
            if let Some((end, blocked)) = slid {
                switches.push(Switch {
                    s: hit.s,
                    x: hit.x,
                    kind: SwitchKind::BoundaryEntry,
                });
                if !blocked {
                    switches.push(Switch {
                        s: end.s,
                        x: end.x,
                        kind: SwitchKind::BoundaryExit,
                    });
                    if end.s >= s_b {
                        break;
                    }
                    s = end.s;
                    exit_margin = 1e-9;
                    x = end.x * (1.0 - exit_margin);
                    seg = end.seg;
                    exit_at = Some(end.s);
                    exit_node = end;
                    exit_len = prof.len();
                    continue;
                }
                hit = end;
            }
            for c in cands
                .iter()
                .filter(|c| c.s >= hit.s - 1e-12 && c.s > last_c + 1e-12)
            {
                let (bn, bstop) =
                    self.integrate(false, true, c.s, c.x, c.seg_left, span, &bp, Some(&prof))?;
                let (Stop::Cross, Some(&cut)) = (bstop, bn.last()) else {
                    continue;
                };
                Self::join_backward(&mut prof, &mut switches, &bn, cut);
                switches.push(Switch {
                    s: c.s,
                    x: c.x,
                    kind: c.kind,
                });
                s = c.s;
                x = c.x;
                seg = c.seg_right;
                last_c = c.s;
                if s >= s_b {
                    break 'outer;
                }
                continue 'outer;
            }
            // a profile stuck at rest on the MVC (α = 0, e.g. a zero speed cap) cannot move:
            // the region is blocked there, as TOPP-RA reports it
            return Err(stuck(hit.s, hit.x));
        }
        // final maximum-deceleration curve from (s_b, 0), if C_f was not met on the way
        let (bn, bstop) = if joined {
            (Vec::new(), Stop::End)
        } else {
            final_curve(Some(&prof))?
        };
        match bstop {
            _ if joined => {}
            Stop::Cross => {
                let Some(&cut) = bn.last() else {
                    return Err(PlanningError::NoSwitchingPoint { s: s_b });
                };
                Self::join_backward(&mut prof, &mut switches, &bn, cut);
            }
            Stop::Stall => {
                return Err(PlanningError::EmptyAdmissibleRegion {
                    s: bn.last().map_or(s_b, |p| p.s),
                })
            }
            Stop::Mvc => {
                let last = bn.last().map_or((s_b, 0.0), |p| (p.s, p.x));
                // the curve meets the MVC at rest (α = 0 there): nothing can move
                return Err(stuck(last.0, last.1));
            }
            Stop::End => return Err(PlanningError::EmptyAdmissibleRegion { s: s_a }),
        }
        // remove zero-length duplicates with identical data, keep order
        // (the kept node takes the dense term of the interval that the removed one started)
        prof.dedup_by(|b, a| {
            let same = a.s == b.s && a.x == b.x && a.u == b.u;
            if same {
                a.d = b.d;
            }
            same
        });
        let _ = seg;
        Ok(Piece {
            nodes: prof,
            switches,
            mvc,
        })
    }

    /// Solves the minimum-time problem on the whole path, split at the configured rest
    /// points (Theorem 4.3.4).
    ///
    /// Errors: the configuration's ([`PhasePlaneConfig::validate`]), limits that do not fit
    /// the joint count ([`PlanningError::DimensionMismatch`]), then those of the search.
    pub fn solve(&self) -> Result<MinimumTimeSolution, PlanningError> {
        self.cfg.validate()?;
        self.lim.torque_limits().check_dof(self.dynamics().dof())?;
        if let Some(tol) = self.cfg.feasibility_tol {
            self.dynamics().check_feasible(200, tol)?;
        }
        let path = self.path();
        let (s0, s1) = (path.s_start(), path.s_end());
        let cuts = validation::rest_cuts(&self.cfg.rest_points, s0, s1)?;
        let mut samples = Vec::new();
        let mut torques = Vec::new();
        let mut switching_points = Vec::new();
        let mut piece_times = Vec::new();
        let mut mvc = Vec::new();
        let mut t0 = 0.0;
        let n = self.dynamics().dof();
        for w in cuts.windows(2) {
            let piece = self.solve_piece(w[0], w[1])?;
            mvc.extend(piece.mvc);
            let nodes = &piece.nodes;
            let mut times = vec![t0; nodes.len()];
            for k in 1..nodes.len() {
                let (a, b) = (&nodes[k - 1], &nodes[k]);
                times[k] = times[k - 1]
                    + if b.s > a.s {
                        XInterval::of_nodes(a, b).time(b.s)
                    } else {
                        0.0
                    };
            }
            let t_end = times.last().copied().unwrap_or(t0);
            piece_times.push(t_end - t0);
            for (k, nd) in nodes.iter().enumerate() {
                let mut tau = vec![0.0; n];
                self.dynamics()
                    .inverse_dynamics(nd.seg, nd.s, nd.x.sqrt(), nd.u, &mut tau)?;
                samples.push(PhaseSample {
                    t: times[k],
                    s: nd.s,
                    sd: nd.x.sqrt(),
                    sdd: nd.u,
                    dense: nd.d,
                    segment: nd.seg,
                });
                torques.push(tau);
            }
            for sw in &piece.switches {
                let idx = nodes.partition_point(|p| p.s < sw.s).min(nodes.len() - 1);
                switching_points.push(SwitchingPoint {
                    s: sw.s,
                    sd: sw.x.max(0.0).sqrt(),
                    t: times[idx],
                    kind: sw.kind,
                });
            }
            t0 = t_end;
        }
        Ok(MinimumTimeSolution {
            samples,
            torques,
            switching_points,
            total_time: t0,
            piece_times,
            mvc,
        })
    }
}
