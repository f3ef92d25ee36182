//! The animation: a trajectory decimated to the display rate and written as one
//! self-contained HTML page.

use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;

use crate::drawable::{Drawable, Pose, SegmentKind, ShapeKind};
use crate::VizError;

/// The page's viewer (Canvas 2-D, no library); `/*SCENE*/` and `<!--TITLE-->` are replaced.
const VIEWER: &str = include_str!("viewer.html");

/// A marker on the time slider: an impact, an entry, an exit, a switching point.
#[derive(Debug, Clone, PartialEq)]
pub struct EventMark {
    /// Time \[s\].
    pub t: f64,
    /// Kind, used for the colour and the legend (`"Impact"`, `"Entry"`, `"Exit"`, …).
    pub kind: String,
    /// Text shown when the marker is pointed at.
    pub label: String,
}

/// What [`Animation::write_html`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HtmlSummary {
    /// Samples of the trajectory.
    pub samples: usize,
    /// Frames kept in the page (the decimated samples).
    pub frames: usize,
    /// Size of the page \[bytes\].
    pub bytes: usize,
}

/// A trajectory of a [`Drawable`], ready to be written as a self-contained HTML page that plays
/// it (play/pause, time slider, speed, time shown; drag to orbit a 3-D scene, wheel to zoom).
///
/// **Decimation.** The page keeps, for each display instant `t₀ + j/rate`, the first sample
/// nearest to it, the last sample, and the samples nearest each event (all samples sharing
/// that time, so the states before and after an impact both stay); the viewer interpolates
/// points and poses linearly between kept frames. A 10 s trajectory sampled at 1 kHz keeps
/// 601 frames at the default 60 per second.
///
/// Positions are written with four significant digits of the scene's extent (0.1 mm on a 1 m
/// scene), rotations with four decimals, times with six.
#[derive(Clone)]
pub struct Animation<'a> {
    drawable: &'a dyn Drawable,
    times: &'a [f64],
    q: Vec<&'a [f64]>,
    rate: f64,
    title: String,
    events: Vec<EventMark>,
    phase: Option<(&'a [f64], &'a [f64])>,
    trace: Option<usize>,
}

impl<'a> Animation<'a> {
    /// Frames kept per second of motion time unless [`Animation::rate`] says otherwise.
    pub const DEFAULT_RATE: f64 = 60.0;

    /// The motion `q[k]` at `times[k]` of `drawable`, titled "Contour animation", decimated to
    /// [`Animation::DEFAULT_RATE`] frames per second of motion time. Inputs are checked when
    /// the page is written. `q` is any list of rows (`&Vec<Vec<f64>>`, a trajectory's
    /// `&Rows`).
    pub fn new<R: AsRef<[f64]> + ?Sized + 'a>(
        drawable: &'a dyn Drawable,
        times: &'a [f64],
        q: impl IntoIterator<Item = &'a R>,
    ) -> Self {
        Animation {
            drawable,
            times,
            q: q.into_iter().map(AsRef::as_ref).collect(),
            rate: Self::DEFAULT_RATE,
            title: "Contour animation".into(),
            events: Vec::new(),
            phase: None,
            trace: None,
        }
    }

    /// The page's title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = title.into();
        self
    }

    /// Frames kept per second of motion time (positive).
    #[must_use]
    pub fn rate(mut self, frames_per_second: f64) -> Self {
        self.rate = frames_per_second;
        self
    }

    /// Marks an event at time `t` on the slider; the sample nearest `t` is kept.
    #[must_use]
    pub fn event(mut self, t: f64, kind: impl Into<String>, label: impl Into<String>) -> Self {
        self.events.push(EventMark {
            t,
            kind: kind.into(),
            label: label.into(),
        });
        self
    }

    /// Draws the phase-plane curve `(s, ṡ)` beside the animation, with a cursor at the current
    /// `s`; `s[k]`, `sd[k]` belong to `times[k]`.
    #[must_use]
    pub fn phase_plane(mut self, s: &'a [f64], sd: &'a [f64]) -> Self {
        self.phase = Some((s, sd));
        self
    }

    /// Draws the whole path of point `point` (e.g. a planned end-effector path).
    #[must_use]
    pub fn trace(mut self, point: usize) -> Self {
        self.trace = Some(point);
        self
    }

    /// Checks every input (see [`VizError`]).
    fn validate(&self) -> Result<(), VizError> {
        let n = self.times.len();
        if n == 0 {
            return Err(VizError::EmptyTrajectory);
        }
        if !(self.rate.is_finite() && self.rate > 0.0) {
            return Err(VizError::InvalidRate { value: self.rate });
        }
        check_len("q", n, self.q.len())?;
        check_finite("times", self.times)?;
        if let Some(index) = (1..n).find(|&k| self.times[k] < self.times[k - 1]) {
            return Err(VizError::DecreasingTimes { index });
        }
        let dof = self.drawable.dof();
        for row in &self.q {
            check_len("q", dof, row.len())?;
            check_finite("q", row)?;
        }
        if let Some(index) = self.events.iter().position(|e| !e.t.is_finite()) {
            return Err(VizError::NonFinite {
                argument: "event",
                index,
            });
        }
        if let Some((s, sd)) = self.phase {
            check_len("phase_plane s", n, s.len())?;
            check_len("phase_plane sd", n, sd.len())?;
            check_finite("phase_plane s", s)?;
            check_finite("phase_plane sd", sd)?;
        }
        let n_points = self.drawable.n_points();
        let check_point = |argument, index: usize| {
            if index < n_points {
                Ok(())
            } else {
                Err(VizError::PointOutOfRange {
                    argument,
                    index,
                    n_points,
                })
            }
        };
        if let Some(p) = self.trace {
            check_point("trace", p)?;
        }
        for s in self.drawable.segments() {
            check_point("segments", s.from)?;
            check_point("segments", s.to)?;
        }
        let n_frames = self.drawable.n_frames();
        for s in self.drawable.shapes() {
            if let Some(f) = s.frame.filter(|&f| f >= n_frames) {
                return Err(VizError::LengthMismatch {
                    argument: "shapes (frame index)",
                    expected: n_frames,
                    found: f + 1,
                });
            }
        }
        Ok(())
    }

    /// Indices of the samples the page keeps (see the type's doc), after checking the inputs.
    pub fn kept_samples(&self) -> Result<Vec<usize>, VizError> {
        self.validate()?;
        let t = self.times;
        let n = t.len();
        // The sample nearest `x` (the first of equal times).
        let nearest = |x: f64| {
            let after = t.partition_point(|&v| v < x).min(n - 1);
            if after > 0 && (x - t[after - 1]).abs() <= (t[after] - x).abs() {
                t.partition_point(|&v| v < t[after - 1])
            } else {
                after
            }
        };
        let instants = ((t[n - 1] - t[0]) * self.rate).floor() as usize;
        let mut keep: Vec<usize> = (0..=instants)
            .map(|j| nearest(t[0] + j as f64 / self.rate))
            .collect();
        keep.push(n - 1);
        for e in &self.events {
            let k = nearest(e.t);
            keep.extend((k..n).take_while(|&i| t[i] == t[k]));
        }
        keep.sort_unstable();
        keep.dedup();
        Ok(keep)
    }

    /// Writes the page into `path`.
    pub fn write_html_file(&self, path: impl AsRef<Path>) -> Result<HtmlSummary, VizError> {
        let file = std::fs::File::create(path)?;
        let mut w = std::io::BufWriter::new(file);
        let summary = self.write_html(&mut w)?;
        w.flush()?;
        Ok(summary)
    }

    /// Writes the page: the viewer with the scene inlined as JSON (no network at view time).
    pub fn write_html(&self, mut w: impl Write) -> Result<HtmlSummary, VizError> {
        let keep = self.kept_samples()?;
        let d = self.drawable;
        let (np, nf) = (d.n_points(), d.n_frames());
        let mut pts = vec![[0.0; 3]; np];
        let mut poses = vec![Pose::IDENTITY; nf];
        let mut all_points = Vec::with_capacity(keep.len() * np);
        let mut all_poses = Vec::with_capacity(keep.len() * nf);
        for &k in &keep {
            d.points(self.times[k], self.q[k], &mut pts)?;
            d.frames(self.times[k], self.q[k], &mut poses)?;
            if let Some(index) = pts.iter().position(|p| !p.iter().all(|x| x.is_finite())) {
                return Err(VizError::NonFinitePoint { sample: k, index });
            }
            let finite = |p: &Pose| {
                p.trans
                    .iter()
                    .chain(p.rot.iter().flatten())
                    .all(|x| x.is_finite())
            };
            if let Some(index) = poses.iter().position(|p| !finite(p)) {
                return Err(VizError::NonFinitePoint { sample: k, index });
            }
            all_points.extend_from_slice(&pts);
            all_poses.extend_from_slice(&poses);
        }
        let surfaces = d.surfaces();

        // Bounds of everything drawn, for the camera and the precision of the positions.
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        let mut grow = |p: &[f64; 3]| {
            for i in 0..3 {
                lo[i] = lo[i].min(p[i]);
                hi[i] = hi[i].max(p[i]);
            }
        };
        all_points.iter().for_each(&mut grow);
        all_poses.iter().for_each(|p| grow(&p.trans));
        surfaces.iter().flat_map(|s| &s.points).for_each(&mut grow);
        if !lo[0].is_finite() {
            (lo, hi) = ([-1.0; 3], [1.0; 3]);
        }
        let extent = (0..3).map(|i| hi[i] - lo[i]).fold(1e-6, f64::max);
        let pos_dec = decimals(extent);
        let planar = nf == 0
            && all_points.iter().all(|p| p[2] == 0.0)
            && surfaces.iter().flat_map(|s| &s.points).all(|p| p[2] == 0.0);

        let mut j = String::with_capacity(64 * keep.len() * (np + 4 * nf) + 4096);
        j.push('{');
        field_str(&mut j, "title", &self.title);
        let _ = write!(
            j,
            ",\"planar\":{planar},\"rate\":{},\"samples\":{},\"n_points\":{np},\"n_frames\":{nf}",
            self.rate,
            self.times.len()
        );
        j.push_str(",\"times\":");
        nums(&mut j, keep.iter().map(|&k| self.times[k]), 6);
        j.push_str(",\"points\":");
        nums(&mut j, all_points.iter().flatten().copied(), pos_dec);
        j.push_str(",\"poses\":[");
        for (i, p) in all_poses.iter().enumerate() {
            j.push_str(sep(i));
            pose_numbers(&mut j, p, pos_dec);
        }
        j.push_str("],\"segments\":[");
        for (i, s) in d.segments().iter().enumerate() {
            let kind = match s.kind {
                SegmentKind::Link => 0,
                SegmentKind::Line => 1,
            };
            let _ = write!(j, "{}[{},{},{kind}]", sep(i), s.from, s.to);
        }
        j.push_str("],\"kinds\":[");
        for (i, k) in d.point_kinds().iter().enumerate() {
            let k = match k {
                crate::PointKind::Joint => 0,
                crate::PointKind::Mass => 1,
                crate::PointKind::Ground => 2,
            };
            let _ = write!(j, "{}{k}", sep(i));
        }
        j.push_str("],\"surfaces\":[");
        for (i, s) in surfaces.iter().enumerate() {
            let _ = write!(j, "{}{{\"closed\":{},\"p\":", sep(i), s.closed);
            nums(&mut j, s.points.iter().flatten().copied(), pos_dec);
            j.push('}');
        }
        j.push_str("],\"shapes\":[");
        for (i, s) in d.shapes().iter().enumerate() {
            let frame = s.frame.map_or(-1, |f| f as i64);
            let _ = write!(j, "{}{{\"frame\":{frame},\"pose\":", sep(i));
            pose(&mut j, &s.pose, pos_dec);
            match s.kind {
                ShapeKind::Box { size } => {
                    j.push_str(",\"kind\":\"box\",\"v\":");
                    nums(&mut j, size.iter().copied(), pos_dec);
                }
                ShapeKind::Cylinder { radius, length } => {
                    j.push_str(",\"kind\":\"cylinder\",\"v\":");
                    nums(&mut j, [radius, length].into_iter(), pos_dec);
                }
                ShapeKind::Sphere { radius } => {
                    j.push_str(",\"kind\":\"sphere\",\"v\":");
                    nums(&mut j, [radius].into_iter(), pos_dec);
                }
                ShapeKind::Axes => j.push_str(",\"kind\":\"axes\",\"v\":[]"),
                ShapeKind::JointAxis { direction } => {
                    j.push_str(",\"kind\":\"joint_axis\",\"v\":");
                    nums(&mut j, direction.iter().copied(), 4);
                }
            }
            j.push('}');
        }
        j.push_str("],\"events\":[");
        for (i, e) in self.events.iter().enumerate() {
            let _ = write!(j, "{}{{\"t\":", sep(i));
            num(&mut j, e.t, 6);
            j.push(',');
            field_str(&mut j, "kind", &e.kind);
            j.push(',');
            field_str(&mut j, "label", &e.label);
            j.push('}');
        }
        j.push_str("],\"phase\":");
        match self.phase {
            None => j.push_str("null"),
            Some((s, sd)) => {
                let dec = decimals(s.iter().chain(sd).fold(1e-6, |m: f64, x| m.max(x.abs()))) + 1;
                j.push_str("{\"s\":");
                nums(&mut j, keep.iter().map(|&k| s[k]), dec);
                j.push_str(",\"sd\":");
                nums(&mut j, keep.iter().map(|&k| sd[k]), dec);
                // The curve itself at up to 2000 points of the full sampling.
                let step = s.len().div_ceil(2000).max(1);
                let idx: Vec<usize> = (0..s.len())
                    .step_by(step)
                    .chain(std::iter::once(s.len() - 1))
                    .collect();
                j.push_str(",\"cs\":");
                nums(&mut j, idx.iter().map(|&k| s[k]), dec);
                j.push_str(",\"csd\":");
                nums(&mut j, idx.iter().map(|&k| sd[k]), dec);
                j.push('}');
            }
        }
        j.push_str(",\"trace\":");
        match self.trace {
            None => j.push_str("null"),
            Some(p) => nums(&mut j, all_points.chunks(np).flat_map(|f| f[p]), pos_dec),
        }
        j.push_str(",\"bounds\":");
        nums(&mut j, lo.into_iter().chain(hi), pos_dec);
        j.push_str(",\"notes\":[");
        for (i, note) in d.notes().iter().enumerate() {
            j.push_str(sep(i));
            j.push_str(&json_string(note));
        }
        j.push_str("]}");

        let page = VIEWER
            .replacen("<!--TITLE-->", &html_escape(&self.title), 1)
            .replacen("/*SCENE*/", &j, 1);
        w.write_all(page.as_bytes())?;
        Ok(HtmlSummary {
            samples: self.times.len(),
            frames: keep.len(),
            bytes: page.len(),
        })
    }
}

fn check_len(argument: &'static str, expected: usize, found: usize) -> Result<(), VizError> {
    if expected == found {
        Ok(())
    } else {
        Err(VizError::LengthMismatch {
            argument,
            expected,
            found,
        })
    }
}

fn check_finite(argument: &'static str, x: &[f64]) -> Result<(), VizError> {
    match x.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(index) => Err(VizError::NonFinite { argument, index }),
    }
}

/// Decimals that keep four significant digits of `extent`.
fn decimals(extent: f64) -> usize {
    (4 - extent.log10().floor() as i64).clamp(1, 9) as usize
}

fn sep(i: usize) -> &'static str {
    if i == 0 {
        ""
    } else {
        ","
    }
}

/// `x` with `dec` decimals, trailing zeros dropped, `-0` written as `0`.
fn num(out: &mut String, x: f64, dec: usize) {
    let start = out.len();
    let _ = write!(out, "{x:.dec$}");
    if out[start..].contains('.') {
        let trimmed = out[start..]
            .trim_end_matches('0')
            .trim_end_matches('.')
            .len();
        out.truncate(start + trimmed);
    }
    if &out[start..] == "-0" {
        out.truncate(start);
        out.push('0');
    }
}

fn nums(out: &mut String, xs: impl Iterator<Item = f64>, dec: usize) {
    out.push('[');
    for (i, x) in xs.enumerate() {
        out.push_str(sep(i));
        num(out, x, dec);
    }
    out.push(']');
}

/// A pose as 12 numbers: the rotation row by row, then the origin.
fn pose_numbers(out: &mut String, p: &Pose, pos_dec: usize) {
    for (i, x) in p.rot.iter().flatten().enumerate() {
        out.push_str(sep(i));
        num(out, *x, 4);
    }
    for x in p.trans {
        out.push(',');
        num(out, x, pos_dec);
    }
}

/// A pose as a JSON array of 12 numbers.
fn pose(out: &mut String, p: &Pose, pos_dec: usize) {
    out.push('[');
    pose_numbers(out, p, pos_dec);
    out.push(']');
}

/// A JSON string literal safe inside `<script>` (`</` written as `<\/`).
fn json_string(s: &str) -> String {
    serde_json::Value::from(s).to_string().replace("</", "<\\/")
}

fn field_str(out: &mut String, key: &str, value: &str) {
    let _ = write!(out, "\"{key}\":{}", json_string(value));
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
