//! [`Drawable`] for the shipped models of `contour_model::models`: each model's points from its
//! own coordinates and parameters. Where a model has more coordinates than degrees of freedom
//! (a closed loop), every chain is drawn from its own coordinates, so a constraint drift shows
//! as a gap at the closing joint.

use contour_model::models::{
    AndrewsSqueezer, CarAxis, HuangCartesianRobot, KeerthiRobot, NFourBar, Pendulum,
    RedundantFourBar, RedundantParallelogram, SliderCrank,
};

use crate::drawable::{Drawable, PointKind, Segment, Surface};
use crate::VizError;

fn polar(r: f64, angle: f64) -> [f64; 2] {
    let (s, c) = angle.sin_cos();
    [r * c, r * s]
}

fn p2(x: f64, y: f64) -> [f64; 3] {
    [x, y, 0.0]
}

/// Pivot (0) and bob (1), `q = (x, y)`.
impl Drawable for Pendulum {
    fn dof(&self) -> usize {
        2
    }
    fn n_points(&self) -> usize {
        2
    }
    fn points(&self, _t: f64, q: &[f64], out: &mut [[f64; 3]]) -> Result<(), VizError> {
        out[0] = p2(0.0, 0.0);
        out[1] = p2(q[0], q[1]);
        Ok(())
    }
    fn segments(&self) -> Vec<Segment> {
        vec![Segment::link(0, 1)]
    }
    fn point_kinds(&self) -> Vec<PointKind> {
        vec![PointKind::Ground, PointKind::Mass]
    }
}

/// Crank pivot O (0), crank tip from θ (1), slider at `s` (2), and the rod's end from θ and ψ
/// (3, on the slider when φ = 0); the guide along the x axis.
impl Drawable for SliderCrank {
    fn dof(&self) -> usize {
        3
    }
    fn n_points(&self) -> usize {
        4
    }
    fn points(&self, _t: f64, q: &[f64], out: &mut [[f64; 3]]) -> Result<(), VizError> {
        let a = polar(self.crank_length, q[0]);
        let b = polar(self.rod_length, q[1]);
        out[0] = p2(0.0, 0.0);
        out[1] = p2(a[0], a[1]);
        out[2] = p2(q[2], 0.0);
        out[3] = p2(a[0] + b[0], a[1] + b[1]);
        Ok(())
    }
    fn segments(&self) -> Vec<Segment> {
        vec![Segment::link(0, 1), Segment::link(1, 3)]
    }
    fn point_kinds(&self) -> Vec<PointKind> {
        vec![
            PointKind::Ground,
            PointKind::Joint,
            PointKind::Mass,
            PointKind::Joint,
        ]
    }
    fn surfaces(&self) -> Vec<Surface> {
        let (r, l) = (self.crank_length, self.rod_length);
        vec![Surface::line(p2(-r - 0.1 * l, 0.0), p2(r + 1.1 * l, 0.0))]
    }
}

/// O (0), crank tip (1), rocker pivot D (2), rocker tip (3), coupler end from the crank side
/// (4, on the rocker tip when φ = 0).
impl Drawable for RedundantFourBar {
    fn dof(&self) -> usize {
        3
    }
    fn n_points(&self) -> usize {
        5
    }
    fn points(&self, _t: f64, q: &[f64], out: &mut [[f64; 3]]) -> Result<(), VizError> {
        let a = polar(self.crank_length, q[0]);
        let b = polar(self.coupler_length, q[1]);
        let c = polar(self.rocker_length, q[2]);
        let d = self.ground_length;
        out[0] = p2(0.0, 0.0);
        out[1] = p2(a[0], a[1]);
        out[2] = p2(d, 0.0);
        out[3] = p2(d + c[0], c[1]);
        out[4] = p2(a[0] + b[0], a[1] + b[1]);
        Ok(())
    }
    fn segments(&self) -> Vec<Segment> {
        vec![
            Segment::line(0, 2),
            Segment::link(0, 1),
            Segment::link(1, 4),
            Segment::link(2, 3),
        ]
    }
    fn point_kinds(&self) -> Vec<PointKind> {
        use PointKind::{Ground, Joint};
        vec![Ground, Joint, Ground, Joint, Joint]
    }
}

/// The drawing of A02's `n` four-bar loops ([`NFourBar`]): the ground pivots
/// `A_i = (i·l, 0)` (points `0 … n`) and the moving points `B_i = (q[2i], q[2i+1])` (points
/// `n+1 … 2n+1`); the ground as a thin line from `A_0` to `A_n`, the `n + 1` cranks `A_i B_i`
/// and the `n` couplers `B_{i−1} B_i` as links (the 2n + 1 bars). Each bar is drawn from the
/// points it joins, so a constraint drift shows as a bar of the wrong length.
///
/// A wrapper rather than an impl on `NFourBar`: code that calls `NFourBar::dof` with both
/// `Mechanism` and `Drawable` in scope (`contour::prelude::*`) stays unambiguous.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NFourBarDrawable(pub NFourBar);

impl Drawable for NFourBarDrawable {
    fn dof(&self) -> usize {
        2 * self.0.loops + 2
    }
    fn n_points(&self) -> usize {
        2 * self.0.loops + 2
    }
    fn points(&self, _t: f64, q: &[f64], out: &mut [[f64; 3]]) -> Result<(), VizError> {
        let n = self.0.loops;
        for i in 0..=n {
            out[i] = p2(i as f64 * self.0.length, 0.0);
            out[n + 1 + i] = p2(q[2 * i], q[2 * i + 1]);
        }
        Ok(())
    }
    fn segments(&self) -> Vec<Segment> {
        let n = self.0.loops;
        let mut s = Vec::with_capacity(2 * n + 2);
        s.push(Segment::line(0, n));
        s.extend((0..=n).map(|i| Segment::link(i, n + 1 + i)));
        s.extend((1..=n).map(|i| Segment::link(n + i, n + 1 + i)));
        s
    }
    fn point_kinds(&self) -> Vec<PointKind> {
        let n = self.0.loops;
        let mut k = vec![PointKind::Ground; n + 1];
        k.extend(std::iter::repeat_n(PointKind::Joint, n + 1));
        k
    }
}

/// Pivots (0–2: left, right, middle), crank tips (3–5) and the coupler's left end, right end
/// and middle from `(x, y, ψ)` (6–8).
impl Drawable for RedundantParallelogram {
    fn dof(&self) -> usize {
        6
    }
    fn n_points(&self) -> usize {
        9
    }
    fn points(&self, _t: f64, q: &[f64], out: &mut [[f64; 3]]) -> Result<(), VizError> {
        let (a, d) = (self.crank_length, self.coupler_length);
        let pivots = [0.0, d, 0.5 * d];
        for k in 0..3 {
            let c = polar(a, q[k]);
            out[k] = p2(pivots[k], 0.0);
            out[3 + k] = p2(pivots[k] + c[0], c[1]);
        }
        let h = polar(0.5 * d, q[5]);
        out[6] = p2(q[3] - h[0], q[4] - h[1]);
        out[7] = p2(q[3] + h[0], q[4] + h[1]);
        out[8] = p2(q[3], q[4]);
        Ok(())
    }
    fn segments(&self) -> Vec<Segment> {
        vec![
            Segment::line(0, 1),
            Segment::link(0, 3),
            Segment::link(1, 4),
            Segment::link(2, 5),
            Segment::link(6, 7),
        ]
    }
    fn point_kinds(&self) -> Vec<PointKind> {
        use PointKind::{Ground, Joint};
        vec![
            Ground, Ground, Ground, Joint, Joint, Joint, Joint, Joint, Joint,
        ]
    }
}

/// Keerthi's cylindrical robot in 3-D (z up, the height `q2`): base (0), the column at height
/// `q2` (1) and the end effector at radius `q3 + l3` and angle `q1` (2); the constraint
/// circle `x² + z² = r²` in the plane `y = y0`.
impl Drawable for KeerthiRobot {
    fn dof(&self) -> usize {
        3
    }
    fn n_points(&self) -> usize {
        3
    }
    fn points(&self, _t: f64, q: &[f64], out: &mut [[f64; 3]]) -> Result<(), VizError> {
        let e = polar(q[2] + self.l3, q[0]);
        out[0] = [0.0; 3];
        out[1] = [0.0, 0.0, q[1]];
        out[2] = [e[0], e[1], q[1]];
        Ok(())
    }
    fn segments(&self) -> Vec<Segment> {
        vec![Segment::link(0, 1), Segment::link(1, 2)]
    }
    fn point_kinds(&self) -> Vec<PointKind> {
        vec![PointKind::Ground, PointKind::Joint, PointKind::Mass]
    }
    fn surfaces(&self) -> Vec<Surface> {
        vec![Surface::circle(
            [0.0, self.plane, 0.0],
            self.radius_squared.max(0.0).sqrt(),
            [1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
        )]
    }
}

/// Huang's Cartesian robot: the x carriage on its rail (0) and the end effector (1); the
/// circular contour it must stay outside of (Huang (6.1.2)).
impl Drawable for HuangCartesianRobot {
    fn dof(&self) -> usize {
        2
    }
    fn n_points(&self) -> usize {
        2
    }
    fn points(&self, _t: f64, q: &[f64], out: &mut [[f64; 3]]) -> Result<(), VizError> {
        out[0] = p2(q[0], 0.0);
        out[1] = p2(q[0], q[1]);
        Ok(())
    }
    fn segments(&self) -> Vec<Segment> {
        vec![Segment::link(0, 1)]
    }
    fn point_kinds(&self) -> Vec<PointKind> {
        vec![PointKind::Joint, PointKind::Mass]
    }
    fn surfaces(&self) -> Vec<Surface> {
        let [cx, cy] = self.center;
        let r = self.radius;
        vec![
            Surface::circle(p2(cx, cy), r, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
            Surface::line(p2(cx - 2.0 * r, 0.0), p2(cx + 2.0 * r, 0.0)),
        ]
    }
}

/// The car axis: the origin (0, left spring's anchor), left wheel (1), right wheel (2) and the
/// bump point `(√(L² − y_b²), r sin ωt)` (3) the right spring hangs on; the ground.
impl Drawable for CarAxis {
    fn dof(&self) -> usize {
        4
    }
    fn n_points(&self) -> usize {
        4
    }
    fn points(&self, t: f64, q: &[f64], out: &mut [[f64; 3]]) -> Result<(), VizError> {
        let yb = self.bump * (self.omega * t).sin();
        let xb = (self.axle * self.axle - yb * yb).max(0.0).sqrt();
        out[0] = p2(0.0, 0.0);
        out[1] = p2(q[0], q[1]);
        out[2] = p2(q[2], q[3]);
        out[3] = p2(xb, yb);
        Ok(())
    }
    fn segments(&self) -> Vec<Segment> {
        vec![
            Segment::line(0, 1),
            Segment::link(1, 2),
            Segment::line(2, 3),
        ]
    }
    fn point_kinds(&self) -> Vec<PointKind> {
        use PointKind::{Ground, Joint, Mass};
        vec![Ground, Mass, Mass, Joint]
    }
    fn surfaces(&self) -> Vec<Surface> {
        vec![Surface::line(
            p2(-0.2 * self.axle, 0.0),
            p2(1.2 * self.axle, 0.0),
        )]
    }
}

/// Andrews' squeezer (Hairer & Wanner (7.9)), `q = (β, Θ, γ, Φ, δ, Ω, ε)`: O (0), the crank
/// tip F (1), the common point E from β, Θ (2); B (3) and E from γ (4); A (5), G (6) and E from
/// δ, Φ (7); H (8) and E from ε, Ω (9); the spring's anchor C (10) and its end D (11) on the
/// body at B.
impl Drawable for AndrewsSqueezer {
    fn dof(&self) -> usize {
        7
    }
    fn n_points(&self) -> usize {
        12
    }
    fn points(&self, _t: f64, q: &[f64], out: &mut [[f64; 3]]) -> Result<(), VizError> {
        use contour_model::models::andrews_geometry as A;
        let (be, th, ga, ph, de, om, ep) = (q[0], q[1], q[2], q[3], q[4], q[5], q[6]);
        let f = polar(A::RR, be);
        let fe = polar(A::D, be + th);
        let (sg, cg) = ga.sin_cos();
        let g = polar(A::ZT, de);
        let (spd, cpd) = (ph + de).sin_cos();
        let (se, ce) = ep.sin_cos();
        let h = [A::XA + A::U * se, A::YA - A::U * ce];
        let hz = polar(A::ZF, om + ep);
        out[0] = p2(0.0, 0.0);
        out[1] = p2(f[0], f[1]);
        out[2] = p2(f[0] - fe[0], f[1] - fe[1]);
        out[3] = p2(A::XB, A::YB);
        out[4] = p2(A::XB + A::SS * sg, A::YB - A::SS * cg);
        out[5] = p2(A::XA, A::YA);
        out[6] = p2(A::XA + g[0], A::YA + g[1]);
        out[7] = p2(A::XA + g[0] + A::E * spd, A::YA + g[1] - A::E * cpd);
        out[8] = p2(h[0], h[1]);
        out[9] = p2(h[0] + hz[0], h[1] + hz[1]);
        out[10] = p2(A::XC, A::YC);
        out[11] = p2(
            A::SD * cg + A::SC * sg + A::XB,
            A::SD * sg - A::SC * cg + A::YB,
        );
        Ok(())
    }
    fn segments(&self) -> Vec<Segment> {
        vec![
            Segment::link(0, 1),
            Segment::link(1, 2),
            Segment::link(3, 4),
            Segment::link(3, 11),
            Segment::link(4, 11),
            Segment::link(5, 6),
            Segment::link(6, 7),
            Segment::link(5, 8),
            Segment::link(8, 9),
            Segment::line(11, 10),
        ]
    }
    fn point_kinds(&self) -> Vec<PointKind> {
        use PointKind::{Ground, Joint};
        let mut k = vec![Joint; 12];
        for g in [0, 3, 5, 10] {
            k[g] = Ground;
        }
        k
    }
}
