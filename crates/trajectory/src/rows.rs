//! [`Rows`]: the per-output rows of a [`crate::Trajectory`] (`q`, `q̇`, λ, `q̈`, `τ`) in one
//! flat buffer.
//!
//! A run of `N` outputs keeps each quantity as one `Vec<f64>` of `N · width` entries (row `k`
//! at `k·width .. (k+1)·width`), not as `N` small heap blocks: the memory of a long run is a
//! few large allocations that the allocator returns to the system when the trajectory is
//! dropped, and the per-block overhead (16 bytes of header and rounding per row) is gone.
//! Rows of different lengths (a trajectory read from hand-written JSON, a test) are kept too,
//! with one end offset per row; [`crate::Trajectory::write_csv`] reports them as
//! [`crate::TrajectoryIoError::RaggedRows`].

use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, Serializer};

/// How the rows are laid out in the flat buffer.
#[derive(Clone)]
enum Layout {
    /// Every row has `width` entries: row `k` is `data[k·width .. (k+1)·width]`.
    Uniform { width: usize },
    /// Row `k` is `data[ends[k−1] .. ends[k]]` (`ends[−1] = 0`).
    Ragged { ends: Vec<usize> },
}

/// A list of `f64` rows stored flat (see the module documentation).
///
/// The API of the `Vec<Vec<f64>>` it stands for, read-only per row: [`Rows::len`],
/// [`Rows::is_empty`], `rows[k]` (a `&[f64]`), [`Rows::iter`] (also `for r in &rows`),
/// [`Rows::first`], [`Rows::last`], [`Rows::get`], [`Rows::push`]; `PartialEq`, `Debug` and
/// serde as a list of lists, as for `Vec<Vec<f64>>`. Collect from an iterator of rows
/// (`Vec<f64>`, `&[f64]`, `[f64; N]`) or convert from `Vec<Vec<f64>>`.
#[derive(Clone)]
pub struct Rows {
    data: Vec<f64>,
    len: usize,
    layout: Layout,
}

impl Default for Rows {
    fn default() -> Self {
        Self::new()
    }
}

impl Rows {
    /// No rows.
    pub const fn new() -> Self {
        Self {
            data: Vec::new(),
            len: 0,
            layout: Layout::Uniform { width: 0 },
        }
    }

    /// No rows, with room for `rows` rows of `width` entries before any reallocation.
    pub fn with_capacity(rows: usize, width: usize) -> Self {
        Self {
            data: Vec::with_capacity(rows.saturating_mul(width)),
            len: 0,
            layout: Layout::Uniform { width },
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The common length of the rows, `None` when they differ; `Some(0)` without rows.
    pub fn width(&self) -> Option<usize> {
        match &self.layout {
            Layout::Uniform { width } => Some(if self.len == 0 { 0 } else { *width }),
            Layout::Ragged { .. } => None,
        }
    }

    /// The entries of every row, one after the other (row-major when the rows have a common
    /// [`Rows::width`]).
    pub fn as_flat(&self) -> &[f64] {
        &self.data
    }

    /// `(start, end)` of row `k < len` in `data`.
    fn bounds(&self, k: usize) -> (usize, usize) {
        match &self.layout {
            Layout::Uniform { width } => (k * width, (k + 1) * width),
            Layout::Ragged { ends } => (if k == 0 { 0 } else { ends[k - 1] }, ends[k]),
        }
    }

    /// Row `k`, `None` when `k ≥ len`.
    pub fn get(&self, k: usize) -> Option<&[f64]> {
        if k >= self.len {
            return None;
        }
        let (a, b) = self.bounds(k);
        Some(&self.data[a..b])
    }

    /// The first row, `None` without rows.
    pub fn first(&self) -> Option<&[f64]> {
        self.get(0)
    }

    /// The last row, `None` without rows.
    pub fn last(&self) -> Option<&[f64]> {
        self.len.checked_sub(1).and_then(|k| self.get(k))
    }

    /// Appends a copy of `row` (no allocation while the capacity lasts; a row of another
    /// length than the others switches to per-row end offsets).
    pub fn push(&mut self, row: &[f64]) {
        match &mut self.layout {
            Layout::Uniform { width } if self.len == 0 => *width = row.len(),
            Layout::Uniform { width } if *width == row.len() => {}
            Layout::Uniform { width } => {
                let w = *width;
                let mut ends = Vec::with_capacity(self.len + 1);
                ends.extend((1..=self.len).map(|k| k * w));
                self.layout = Layout::Ragged { ends };
            }
            Layout::Ragged { .. } => {}
        }
        self.data.extend_from_slice(row);
        if let Layout::Ragged { ends } = &mut self.layout {
            ends.push(self.data.len());
        }
        self.len += 1;
    }

    /// Removes the last row (no effect without rows).
    pub fn pop(&mut self) {
        let Some(k) = self.len.checked_sub(1) else {
            return;
        };
        let (a, _) = self.bounds(k);
        self.data.truncate(a);
        if let Layout::Ragged { ends } = &mut self.layout {
            ends.pop();
        }
        self.len = k;
    }

    /// Removes every row, keeping the capacity.
    pub fn clear(&mut self) {
        self.data.clear();
        self.len = 0;
        self.layout = Layout::Uniform { width: 0 };
    }

    /// The rows in order.
    pub fn iter(&self) -> RowsIter<'_> {
        RowsIter {
            rows: self,
            front: 0,
            back: self.len,
        }
    }

    /// The rows as one `Vec` each.
    pub fn to_vecs(&self) -> Vec<Vec<f64>> {
        self.iter().map(<[f64]>::to_vec).collect()
    }
}

impl std::ops::Index<usize> for Rows {
    type Output = [f64];

    /// Row `k`. Panics when `k ≥ len`, as a `Vec` does.
    fn index(&self, k: usize) -> &[f64] {
        assert!(
            k < self.len,
            "row index {k} out of range for {} rows",
            self.len
        );
        let (a, b) = self.bounds(k);
        &self.data[a..b]
    }
}

impl PartialEq for Rows {
    /// Row by row (`f64` equality), whatever the layout.
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl std::fmt::Debug for Rows {
    /// A list of lists, as `Vec<Vec<f64>>` prints.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Iterator over the rows of [`Rows`] (front to back, or back to front).
#[derive(Debug, Clone)]
pub struct RowsIter<'a> {
    rows: &'a Rows,
    front: usize,
    back: usize,
}

impl<'a> Iterator for RowsIter<'a> {
    type Item = &'a [f64];

    fn next(&mut self) -> Option<&'a [f64]> {
        if self.front >= self.back {
            return None;
        }
        let (a, b) = self.rows.bounds(self.front);
        self.front += 1;
        Some(&self.rows.data[a..b])
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

impl DoubleEndedIterator for RowsIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        let (a, b) = self.rows.bounds(self.back);
        Some(&self.rows.data[a..b])
    }
}

impl ExactSizeIterator for RowsIter<'_> {}
impl std::iter::FusedIterator for RowsIter<'_> {}

impl<'a> IntoIterator for &'a Rows {
    type Item = &'a [f64];
    type IntoIter = RowsIter<'a>;

    fn into_iter(self) -> RowsIter<'a> {
        self.iter()
    }
}

impl<R: AsRef<[f64]>> FromIterator<R> for Rows {
    fn from_iter<I: IntoIterator<Item = R>>(iter: I) -> Self {
        let mut rows = Rows::new();
        rows.extend(iter);
        rows
    }
}

impl<R: AsRef<[f64]>> Extend<R> for Rows {
    fn extend<I: IntoIterator<Item = R>>(&mut self, iter: I) {
        for r in iter {
            self.push(r.as_ref());
        }
    }
}

impl From<Vec<Vec<f64>>> for Rows {
    fn from(v: Vec<Vec<f64>>) -> Self {
        v.into_iter().collect()
    }
}

impl From<&[Vec<f64>]> for Rows {
    fn from(v: &[Vec<f64>]) -> Self {
        v.iter().collect()
    }
}

impl From<&Rows> for Vec<Vec<f64>> {
    fn from(r: &Rows) -> Self {
        r.to_vecs()
    }
}

impl Serialize for Rows {
    /// A sequence of sequences, the bytes of `Vec<Vec<f64>>`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Rows {
    /// A sequence of sequences of numbers, as `Vec<Vec<f64>>` reads.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct RowsVisitor;
        impl<'de> Visitor<'de> for RowsVisitor {
            type Value = Rows;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a list of lists of numbers")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Rows, A::Error> {
                let mut rows = Rows::new();
                while let Some(row) = seq.next_element::<Vec<f64>>()? {
                    rows.push(&row);
                }
                Ok(rows)
            }
        }
        d.deserialize_seq(RowsVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::Rows;

    #[test]
    fn uniform_rows_index_iterate_and_pop_like_a_vec_of_vecs() {
        let v = vec![vec![1.0, 2.0], vec![3.0, 4.0], vec![5.0, 6.0]];
        let mut r = Rows::from(v.clone());
        assert_eq!((r.len(), r.width()), (3, Some(2)));
        assert_eq!(&r[1], &[3.0, 4.0]);
        assert_eq!(r.first(), Some(&[1.0, 2.0][..]));
        assert_eq!(r.last(), Some(&[5.0, 6.0][..]));
        assert_eq!(r.get(3), None);
        assert_eq!(r.iter().next_back(), Some(&[5.0, 6.0][..]));
        assert_eq!(r.iter().len(), 3);
        assert_eq!(r.to_vecs(), v);
        assert_eq!(r.as_flat(), &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(format!("{r:?}"), format!("{v:?}"));
        r.pop();
        assert_eq!(r.to_vecs(), v[..2].to_vec());
        r.clear();
        assert!(r.is_empty() && r.first().is_none() && r.last().is_none());
    }

    #[test]
    fn empty_rows_are_counted() {
        let mut r = Rows::new();
        for _ in 0..4 {
            r.push(&[]);
        }
        assert_eq!((r.len(), r.width()), (4, Some(0)));
        assert!(r.iter().all(<[f64]>::is_empty));
        assert_eq!(
            serde_json::to_string(&r).ok().as_deref(),
            Some("[[],[],[],[]]")
        );
    }

    #[test]
    fn a_row_of_another_length_keeps_every_row() {
        let v = vec![vec![1.0], vec![2.0], vec![3.0, 4.0], vec![], vec![5.0]];
        let r: Rows = v.iter().collect();
        assert_eq!(r.width(), None);
        assert_eq!(r.to_vecs(), v);
        assert_eq!(&r[2], &[3.0, 4.0]);
        assert_eq!(
            r.iter().rev().map(<[f64]>::len).collect::<Vec<_>>(),
            [1, 0, 2, 1, 1]
        );
        let uniform = Rows::from(vec![vec![1.0], vec![2.0]]);
        let mut ragged = Rows::from(vec![vec![1.0], vec![2.0], vec![3.0, 4.0]]);
        ragged.pop();
        assert_eq!(
            ragged, uniform,
            "equality is row by row, whatever the layout"
        );
    }

    #[test]
    fn serde_writes_and_reads_the_bytes_of_a_vec_of_vecs() {
        for v in [
            vec![vec![0.1, -2.5e-300], vec![f64::MAX, 3.0]],
            vec![vec![1.0], vec![2.0, 3.0]],
            vec![],
        ] {
            let want = serde_json::to_string(&v).ok();
            let r = Rows::from(v.clone());
            let got = serde_json::to_string(&r).ok();
            assert_eq!(got, want);
            let back: Option<Rows> = got.as_deref().and_then(|s| serde_json::from_str(s).ok());
            assert_eq!(back.map(|b| b.to_vecs()), Some(v));
        }
    }
}
