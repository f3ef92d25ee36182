//! [`MimicReduction`]: URDF `<mimic>` couplings as the explicit constraint `q = γ(y)` of
//! [`crate::explicit`] (Featherstone's gamma_q): the independent coordinates `y` are the
//! coordinates that follow no other, and every following coordinate is `q_m = k q_a + c`.
//!
//! ```text
//! γ(y) = (y on the independent coordinates, k y_a + c on the following ones),
//! G = ∂γ/∂y  (constant: 1 and k entries),  g = Ġ ẏ = 0
//! ```
//!
//! The same couplings as bilateral rows are [`crate::tree::Closure::Coupling`]; both give the
//! same motion (the rows are linear, `J G = 0`).

use crate::explicit::{stabilization, ExplicitConstraint};
use crate::ModelError;
use faer::MatMut;

/// A `<mimic>` coupling `q[coord] = multiplier · q[master_coord] + offset`, resolved to a
/// joint that mimics no other (chains of mimics are composed).
#[derive(Clone, Debug, PartialEq)]
pub struct MimicCoupling {
    /// The mimicking joint.
    pub joint: String,
    /// Its coordinate index.
    pub coord: usize,
    /// The joint it follows.
    pub master: String,
    /// The master's coordinate index.
    pub master_coord: usize,
    /// `k` in `q_m = k q_a + c`.
    pub multiplier: f64,
    /// `c` in `q_m = k q_a + c` \[rad or m\].
    pub offset: f64,
}

/// The explicit form of a tree's mimic couplings (see the module doc).
#[derive(Debug, Clone, PartialEq)]
pub struct MimicReduction {
    n: usize,
    /// Per coordinate: `Ok(j)` it is `y_j`; `Err((j, k, c))` it is `k y_j + c`.
    map: Vec<Result<usize, (usize, f64, f64)>>,
    m: usize,
    /// The coordinate of each `y_j`.
    ycoord: Vec<usize>,
    /// Stabilization time constant `T_stab` \[s\] of the drift correction (RBDA §8.3).
    pub tstab: f64,
}

impl MimicReduction {
    /// The reduction of `n` coordinates by `mimic` (as imported:
    /// [`crate::urdf::UrdfImport::mimic`], each following a coordinate that follows no
    /// other), with stabilization time constant `tstab` \[s\].
    ///
    /// Errors: [`ModelError::DimensionMismatch`] for a coordinate `≥ n`,
    /// [`ModelError::InvalidParameter`] for a coordinate coupled twice or one that both
    /// follows and is followed, a non-finite multiplier or offset, or `tstab ≤ 0`.
    pub fn new(n: usize, mimic: &[MimicCoupling], tstab: f64) -> Result<Self, ModelError> {
        if !(tstab > 0.0 && tstab.is_finite()) {
            return Err(ModelError::InvalidParameter {
                what: "tstab",
                value: tstab,
            });
        }
        let mut follows: Vec<Option<(usize, f64, f64)>> = vec![None; n];
        for mm in mimic {
            for k in [mm.coord, mm.master_coord] {
                if k >= n {
                    return Err(ModelError::DimensionMismatch {
                        what: "mimic coordinate",
                        expected: n,
                        found: k,
                    });
                }
            }
            if !(mm.multiplier.is_finite() && mm.offset.is_finite()) {
                return Err(ModelError::InvalidParameter {
                    what: "mimic multiplier or offset",
                    value: mm.multiplier + mm.offset,
                });
            }
            if follows[mm.coord]
                .replace((mm.master_coord, mm.multiplier, mm.offset))
                .is_some()
            {
                return Err(ModelError::InvalidParameter {
                    what: "coordinate coupled twice",
                    value: mm.coord as f64,
                });
            }
        }
        let mut y_of = vec![usize::MAX; n];
        let mut m = 0;
        for (k, f) in follows.iter().enumerate() {
            if f.is_none() {
                y_of[k] = m;
                m += 1;
            }
        }
        let mut map = Vec::with_capacity(n);
        for (k, f) in follows.iter().enumerate() {
            map.push(match *f {
                None => Ok(y_of[k]),
                Some((a, mult, off)) => {
                    if follows[a].is_some() {
                        return Err(ModelError::InvalidParameter {
                            what: "mimic of a following coordinate",
                            value: k as f64,
                        });
                    }
                    Err((y_of[a], mult, off))
                }
            });
        }
        let ycoord = (0..n).filter(|&k| follows[k].is_none()).collect();
        Ok(Self {
            n,
            map,
            m,
            ycoord,
            tstab,
        })
    }

    /// The coordinate of `q` that is `y_j`, for every `j` (length m).
    pub fn independent(&self) -> &[usize] {
        &self.ycoord
    }

    /// `q = γ(y)` (length N) from `y` (length m).
    pub fn expand(&self, y: &[f64], q: &mut [f64]) {
        for (qk, e) in q.iter_mut().zip(&self.map) {
            *qk = match *e {
                Ok(j) => y[j],
                Err((j, k, c)) => k * y[j] + c,
            };
        }
    }

    /// `q̇ = G ẏ` (length N) from `ẏ` (length m): [`MimicReduction::expand`] without offsets.
    pub fn expand_rate(&self, yd: &[f64], qd: &mut [f64]) {
        for (qk, e) in qd.iter_mut().zip(&self.map) {
            *qk = match *e {
                Ok(j) => yd[j],
                Err((j, k, _)) => k * yd[j],
            };
        }
    }

    /// `G = ∂γ/∂y` (N×m) into `g`, every entry written.
    pub fn gamma_matrix(&self, mut g: MatMut<'_, f64>) {
        g.fill(0.0);
        for (r, e) in self.map.iter().enumerate() {
            match *e {
                Ok(j) => g[(r, j)] = 1.0,
                Err((j, k, _)) => g[(r, j)] = k,
            }
        }
    }
}

impl ExplicitConstraint for MimicReduction {
    fn n_coordinates(&self) -> usize {
        self.n
    }
    fn n_independent(&self) -> usize {
        self.m
    }
    fn gamma_q(
        &self,
        qo: &[f64],
        qdo: &[f64],
        q: &mut [f64],
        qd: &mut [f64],
        g: MatMut<'_, f64>,
        gs: &mut [f64],
    ) {
        // y = the independent coordinates of q_o: followers are recomputed from them
        for (k, e) in self.map.iter().enumerate() {
            (q[k], qd[k]) = match *e {
                Ok(_) => (qo[k], qdo[k]),
                Err(_) => (0.0, 0.0),
            };
        }
        for (k, e) in self.map.iter().enumerate() {
            if let Err((j, mult, off)) = *e {
                let a = self.ycoord[j];
                q[k] = mult * qo[a] + off;
                qd[k] = mult * qdo[a];
            }
        }
        self.gamma_matrix(g);
        gs.fill(0.0);
        stabilization(self.tstab, q, qd, qo, qdo, gs);
    }
}
