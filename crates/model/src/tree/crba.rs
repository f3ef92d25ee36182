//! The composite-rigid-body algorithm on a [`KinematicTree`] (RBDA Table 6.2) in world
//! coordinates: the mass matrix `M(q)`, one column per body over its support runs.

use super::data::TreeData;
use super::kinematic_tree::{check_mat, CompositeLink};
use super::KinematicTree;
use crate::spatial::SpatialInertia;
use crate::ModelError;
use faer::MatMut;

impl KinematicTree {
    /// CRBA into `m` (RBDA Table 6.2) in world coordinates: the upper triangle and the
    /// diagonal, and the strictly lower triangle too when `fill` is [`Triangles::Both`].
    ///
    /// `H_ij = S_jᵀ X* I^c_i S_i` is frame invariant, so with the composite inertias summed in
    /// world coordinates, `I^c_i = Σ_{k ∈ subtree(i)} ⁰X_kᵀ I_k ⁰X_k`, and the world motion
    /// subspaces `⁰S_i = ⁰X_i⁻¹ S_i`, every entry is a dot product,
    /// `H_ji = ⁰S_j · (I^c_i ⁰S_i)` for `j` an ancestor of `i` (no force transform per pair,
    /// as in Pinocchio's CRBA), and `H_ji = 0` for the other `j < i`. Column `i` above the
    /// diagonal is written from the support runs of body `i` (RBDA §6.2: only the ancestors
    /// `λ(i), λ(λ(i)), …` give non-zero entries), in one contiguous pass.
    pub(super) fn crba(
        &self,
        ws: &mut TreeData,
        q: &[f64],
        mut m: MatMut<'_, f64>,
        fill: Triangles,
    ) {
        if self.multi {
            return self.crba_multi(ws, q, m, fill);
        }
        if let (Some(l), Some(d)) = (self.lumped(), ws.lumped.as_deref_mut()) {
            return l.crba(d, q, m, fill);
        }
        self.world_inertias(ws, q);
        // Every body moves (no lumped form was needed): body `i` is coordinate `i`.
        let by_column = self.dof == self.n_bodies();
        let n = self.dof;
        if !by_column {
            m.fill(0.0);
        } else if ws.h.len() != n * n {
            // the first CRBA on this workspace: `M`'s buffer, zeroed (see `TreeData::h`)
            ws.h.clear();
            ws.h.resize(n * n, 0.0);
        }
        // One backward pass: `I^c_i` is complete when body `i` is reached (its children have
        // larger indices), so column `i` of `H` follows at once. `next` carries `I^c_{i+1}` in
        // registers when `λ(i+1) = i` (a chain); other children leave theirs in `ws.ic`.
        let mut next: Option<SpatialInertia> = None;
        let support = by_column.then(|| self.support());
        for i in (0..self.n_bodies()).rev() {
            let mut ic = ws.iw[i];
            if self.branched[i] {
                ic += ws.ic[i];
            }
            if let Some(n) = next.take() {
                ic += n;
            }
            match self.composite[i] {
                CompositeLink::Base => {}
                CompositeLink::Chain => next = Some(ic),
                CompositeLink::Set(p) => ws.ic[p] = ic,
                CompositeLink::Add(p) => ws.ic[p] += ic,
            }
            let Some(k) = self.q_index[i] else { continue };
            let s = &ws.s_world[i];
            let f = ic.apply(s);
            if let Some(support) = support {
                // `ws.h` is `M` column-major; its entries off the support runs stay zero
                let h = &mut ws.h;
                h[k * n + k] = s.dot(&f);
                for &(a, b) in &support.runs[support.start[i]..support.start[i + 1]] {
                    let col = &mut h[k * n + a..k * n + b];
                    for (hj, sj) in col.iter_mut().zip(&ws.s_world[a..b]) {
                        *hj = sj.dot(&f);
                    }
                    if fill == Triangles::Both {
                        for j in a..b {
                            h[j * n + k] = h[k * n + j];
                        }
                    }
                }
                continue;
            }
            m[(k, k)] = s.dot(&f);
            let mut j = i;
            while let Some(p) = self.parent[j] {
                j = p;
                if let Some(kj) = self.q_index[j] {
                    let hij = ws.s_world[j].dot(&f);
                    m[(kj, k)] = hij;
                    if fill == Triangles::Both {
                        m[(k, kj)] = hij;
                    }
                }
            }
        }
        if by_column {
            copy_columns(&ws.h, n, m, fill);
        }
    }

    /// The mass matrix `M(q)` by the CRBA (RBDA Table 6.2) into `m`, every entry written
    /// (both triangles), on a caller-owned workspace.
    ///
    /// Errors: [`ModelError::DimensionMismatch`] and [`ModelError::NonFinite`] for `q`, `m`'s
    /// shape and `data` of another tree's sizes.
    pub fn mass_matrix_with(
        &self,
        data: &mut TreeData,
        q: &[f64],
        m: MatMut<'_, f64>,
    ) -> Result<(), ModelError> {
        self.check_q(q)?;
        check_mat("mass matrix", &m, self.dof, self.dof)?;
        self.adopt(data)?;
        self.crba(data, q, m, Triangles::Both);
        Ok(())
    }

    /// The upper triangle of the mass matrix `M(q)` (the diagonal and every entry above it)
    /// by the CRBA into `m`; the strictly lower triangle of `m` is not written, as in
    /// Pinocchio's `crba` (for a Cholesky factorization that reads one triangle, e.g.
    /// faer's `llt(Side::Upper)`). The entries written equal those of
    /// [`KinematicTree::mass_matrix_with`] bit for bit. Errors as that method's.
    pub fn mass_matrix_upper_with(
        &self,
        data: &mut TreeData,
        q: &[f64],
        m: MatMut<'_, f64>,
    ) -> Result<(), ModelError> {
        self.check_q(q)?;
        check_mat("mass matrix", &m, self.dof, self.dof)?;
        self.adopt(data)?;
        self.crba(data, q, m, Triangles::Upper);
        Ok(())
    }
}

/// `M` from the column-major `h` (`n × n`) into `m`: every entry, or the diagonal and the
/// entries above it ([`Triangles::Upper`]); one slice copy per column when `m`'s columns are
/// contiguous.
fn copy_columns(h: &[f64], n: usize, mut m: MatMut<'_, f64>, fill: Triangles) {
    let rows = |j: usize| if fill == Triangles::Both { n } else { j + 1 };
    match m.as_mut().try_as_col_major_mut() {
        Some(mut m) => {
            for (j, src) in h.chunks_exact(n).enumerate() {
                let r = rows(j);
                m.as_mut().col_mut(j).as_slice_mut()[..r].copy_from_slice(&src[..r]);
            }
        }
        None => {
            for (j, src) in h.chunks_exact(n).enumerate() {
                for i in 0..rows(j) {
                    m[(i, j)] = src[i];
                }
            }
        }
    }
}

/// Which triangles of the symmetric `M(q)` a CRBA writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Triangles {
    /// Every entry.
    Both,
    /// The diagonal and the entries above it; the strictly lower triangle is left as it was.
    Upper,
}
