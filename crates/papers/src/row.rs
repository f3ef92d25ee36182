//! The one reproduction row: `{id, paper, ours, unit, note}` plus how `--check` compares a fresh
//! value with the committed one ([`Check`]) and how `ours` is judged against the paper
//! ([`Tolerance`]). Both are set where the row is made; `xtask` only renders and checks.

use serde::{Deserialize, Serialize};

/// Relative tolerance of [`Check::Relative`] rows: the committed value is stored at full
/// precision and a fresh value may differ from it by this fraction. On one machine the rows are
/// bit-identical run to run; the margin covers the last-bit differences of the SIMD kernels
/// faer selects at run time on another CPU, and is far below any drift worth reviewing.
pub const RELATIVE_CHECK: f64 = 1e-10;

/// Band of [`Check::Below`] rows around the committed value: a fresh round-off-level value must
/// lie within this factor of the committed one (as well as below the bound), so that a drift
/// shows before it breaks the bound. Round-off residuals move by small factors between CPUs
/// (other SIMD kernels, other summation orders), never by an order of magnitude.
pub const BELOW_BAND: f64 = 10.0;

/// One reproduced number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Fixed identifier `<source>/…`, e.g. `keerthi/table4.1/PERT/N_i`.
    pub id: String,
    /// The printed value, `null` where the paper prints none.
    pub paper: Option<f64>,
    /// What we compute. Always computed, never copied from the paper.
    pub ours: f64,
    /// Unit (`""` for counts and ratios).
    pub unit: String,
    /// Explains any deviation beyond the tolerance, a misprint, a choice.
    pub note: String,
    /// How `--check` compares a fresh `ours` with the committed one (not serialized).
    #[serde(skip, default)]
    pub check: Check,
    /// Acceptance of `ours` against the paper (not serialized; shown in the markdown).
    #[serde(skip, default)]
    pub tolerance: Tolerance,
}

/// How `--check` compares a fresh `ours` with the committed one.
///
/// Round-off-level results (residuals near machine epsilon) depend on the SIMD kernels faer
/// selects at run time, so they are compared against a bound and a band ([`BELOW_BAND`]);
/// counts are exact; every other value is stored at full precision and compared to
/// [`RELATIVE_CHECK`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Check {
    /// An integer count (steps, f-evaluations, switches): exactly equal.
    Exact,
    /// A measured value: equal to the committed one within [`RELATIVE_CHECK`].
    #[default]
    Relative,
    /// A round-off-level value: both the committed and the fresh value at or below the bound,
    /// and within a factor [`BELOW_BAND`] of each other.
    Below(f64),
}

/// Acceptance of `ours` against the paper's value (REPRODUCTION.md's tolerance column).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Tolerance {
    /// No paper value to compare with, or none stated.
    #[default]
    None,
    /// |ours − paper| ≤ tol.
    Abs(f64),
    /// |ours − paper| ≤ tol·|paper|.
    Rel(f64),
    /// ours ≤ bound (for `paper: null` rows with a required bound).
    AtMost(f64),
    /// Exactly equal.
    Exact,
}

impl Row {
    fn new(id: impl Into<String>, ours: f64, unit: &str, check: Check) -> Self {
        Row {
            id: id.into(),
            paper: None,
            ours,
            unit: unit.into(),
            note: String::new(),
            check,
            tolerance: Tolerance::None,
        }
    }

    /// An integer count (dimensionless): `--check` compares it exactly.
    pub fn count(id: impl Into<String>, n: f64) -> Self {
        Row::new(id, n, "", Check::Exact)
    }

    /// A measured value in `unit`, stored at full precision: `--check` compares it to
    /// [`RELATIVE_CHECK`].
    pub fn value(id: impl Into<String>, x: f64, unit: &str) -> Self {
        Row::new(id, x, unit, Check::Relative)
    }

    /// A value at round-off level (a residual, a violation of a method that keeps the
    /// constraint): `--check` only requires it to stay at or below `bound`. Stored as computed.
    pub fn roundoff(id: impl Into<String>, x: f64, unit: &str, bound: f64) -> Self {
        Row::new(id, x, unit, Check::Below(bound))
    }

    /// A measured value that may sit at round-off level (a violation, an error, a drift):
    /// a [`Row::value`] when `|x| ≥ floor`, otherwise compared only against `floor`
    /// ([`Check::Below`]); stored at full precision either way.
    pub fn value_or_roundoff(id: impl Into<String>, x: f64, unit: &str, floor: f64) -> Self {
        let check = if x.abs() < floor {
            Check::Below(floor)
        } else {
            Check::Relative
        };
        Row::new(id, x, unit, check)
    }

    /// The paper's printed value.
    pub fn paper(mut self, paper: f64) -> Self {
        self.paper = Some(paper);
        self
    }

    /// The paper's printed value, if it prints one.
    pub fn paper_opt(mut self, paper: Option<f64>) -> Self {
        self.paper = paper;
        self
    }

    /// Attach a note.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.note = note.into();
        self
    }

    /// Set the acceptance tolerance against the paper.
    pub fn tolerance(mut self, tolerance: Tolerance) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Store `ours` with 6 significant digits (for a [`Row::roundoff`] row whose committed
    /// value is rounded).
    pub fn rounded(mut self) -> Self {
        self.ours = round_sig(self.ours, 6);
        self
    }

    /// Whether `ours` meets the tolerance (`None` when there is nothing to judge).
    pub fn within_tolerance(&self) -> Option<bool> {
        match (self.tolerance, self.paper) {
            (Tolerance::None, _) => None,
            (Tolerance::AtMost(b), _) => Some(self.ours <= b),
            (Tolerance::Abs(t), Some(p)) => Some((self.ours - p).abs() <= t),
            (Tolerance::Rel(t), Some(p)) => Some((self.ours - p).abs() <= t * p.abs()),
            (Tolerance::Exact, Some(p)) => Some(self.ours == p),
            (_, None) => None,
        }
    }

    /// Whether a fresh value of this row passes `--check` against the committed `old` value.
    pub fn check_against(&self, old: f64) -> bool {
        let (a, b) = (old, self.ours);
        match self.check {
            Check::Exact => a == b,
            Check::Relative => (a - b).abs() <= RELATIVE_CHECK * a.abs().max(b.abs()),
            Check::Below(bound) => {
                let (lo, hi) = (a.abs().min(b.abs()), a.abs().max(b.abs()));
                // Exact zeros stay exact; otherwise within the band (NaN fails every test).
                a <= bound && b <= bound && (hi == 0.0 || hi <= BELOW_BAND * lo)
            }
        }
    }
}

/// Round to `digits` significant digits (0 and non-finite values unchanged).
pub fn round_sig(x: f64, digits: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let e = x.abs().log10().floor() as i32;
    let scale = 10f64.powi(digits - 1 - e);
    let r = (x * scale).round() / scale;
    // Re-parse the shortest decimal so JSON shows e.g. 0.1 and not 0.10000000000000002.
    format!("{:.*e}", (digits - 1) as usize, r)
        .parse()
        .unwrap_or(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_keeps_six_digits() {
        assert_eq!(round_sig(1.23456789, 6), 1.23457);
        assert_eq!(round_sig(-0.000123456789, 6), -0.000123457);
        assert_eq!(round_sig(0.1 + 0.2, 6), 0.3);
        assert_eq!(round_sig(0.0, 6), 0.0);
    }

    #[test]
    fn tolerance_is_judged() {
        let r = Row::count("x", 70.0)
            .paper(66.0)
            .tolerance(Tolerance::Rel(0.25));
        assert_eq!(r.within_tolerance(), Some(true));
        let r = Row::count("x", 90.0)
            .paper(66.0)
            .tolerance(Tolerance::Rel(0.25));
        assert_eq!(r.within_tolerance(), Some(false));
        let r = Row::roundoff("x", 2e-12, "", 1e-12).tolerance(Tolerance::AtMost(1e-12));
        assert_eq!(r.within_tolerance(), Some(false));
    }

    #[test]
    fn check_follows_the_kind() {
        assert!(Row::roundoff("x", 3e-15, "", 1e-12).check_against(1e-15));
        assert!(!Row::roundoff("x", 3e-11, "", 1e-12).check_against(1e-15));
        assert!(!Row::count("x", 34.0).check_against(33.0));
        assert!(Row::count("x", 33.0).check_against(33.0));
        // Relative rows see a drift of 1e-9 and pass a last-bit difference.
        assert!(Row::value("x", 1.0 + 1e-13, "").check_against(1.0));
        assert!(!Row::value("x", 1.0 + 1e-9, "").check_against(1.0));
        assert!(!Row::value("x", 1.000001, "").check_against(1.0));
        // Below rows: a drift by more than the band fails before the bound is reached.
        assert!(!Row::roundoff("x", 1e-15 + 1e-13, "", 1e-10).check_against(1e-15));
        assert!(!Row::roundoff("x", f64::NAN, "", 1e-10).check_against(1e-15));
        assert!(Row::roundoff("x", 0.0, "", 1e-10).check_against(0.0));
        assert!(!Row::roundoff("x", 1e-16, "", 1e-10).check_against(0.0));
        assert_eq!(
            Row::value_or_roundoff("x", 1e-16, "", 1e-12).check,
            Check::Below(1e-12)
        );
        assert_eq!(
            Row::value_or_roundoff("x", 1e-6, "", 1e-12).check,
            Check::Relative
        );
    }
}
