//! Deterministic random matrices shared by unit tests, property tests,
//! benches and the accuracy report of `contour-papers`.
//!
//! The generator is splitmix64 (Steele, Lea & Flood 2014), chosen because it is
//! tiny, portable and gives the same stream on every machine, so the numbers in
//! the accuracy report are reproducible.

use faer::Mat;

/// splitmix64 pseudo-random generator.
#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)` (53 random bits).
    pub fn uniform01(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[-1, 1)`.
    pub fn uniform(&mut self) -> f64 {
        2.0 * self.uniform01() - 1.0
    }

    /// Uniform integer in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as usize
    }
}

/// `rows × cols` matrix with entries uniform in `[-1, 1)`.
pub fn rand_mat(rng: &mut Rng, rows: usize, cols: usize) -> Mat<f64> {
    let mut a = Mat::zeros(rows, cols);
    for j in 0..cols {
        for i in 0..rows {
            a[(i, j)] = rng.uniform();
        }
    }
    a
}

/// Random SPD matrix `M = B Bᵀ + n·I` with `B` uniform in `[-1, 1)`.
pub fn spd(rng: &mut Rng, n: usize) -> Mat<f64> {
    let b = rand_mat(rng, n, n);
    let mut m = &b * b.transpose();
    for i in 0..n {
        m[(i, i)] += n as f64;
    }
    // exact symmetry
    for j in 0..n {
        for i in 0..j {
            m[(i, j)] = m[(j, i)];
        }
    }
    m
}

/// `rows × cols` matrix of rank `≤ inner`: `A = B C`, `B` is `rows × inner`, `C` is `inner × cols`.
pub fn low_rank(rng: &mut Rng, rows: usize, cols: usize, inner: usize) -> Mat<f64> {
    let b = rand_mat(rng, rows, inner);
    let c = rand_mat(rng, inner, cols);
    &b * &c
}
