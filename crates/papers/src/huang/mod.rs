//! Huang's thesis, by section: source `huang`.
//!
//! * [`ch5_2_index`] — the claims of sections 5.2.3–5.2.4 about index-3/2/1 formulations on the
//!   BDF, checked numerically (rows `huang/5.2/*`), and the final-time scan of Keerthi's tables.
//! * [`ch6_2_planning`] — section 6.2: path construction, kinematic histories, minimum time
//!   (rows `huang/6.2.*`), with the figures 6.2.1–6.2.14 in [`ch6_2_figures`].
//! * [`ch6_3_contact`] — section 6.3: the contour-following simulations I–III (rows
//!   `huang/6.3.1/*`, figures 6.3.1–6.3.17), on the scenarios of [`scenario`].

pub mod ch5_2_index;
pub mod ch6_2_figures;
pub mod ch6_2_planning;
pub mod ch6_3_contact;
pub mod models;
pub mod scenario;

use crate::{SourceOutput, SourceResult};

/// Source `huang`: rows of sections 6.2, 5.2 and 6.3 (in that order) and the figures of
/// sections 6.2 and 6.3.
pub fn source() -> SourceResult {
    let mut rows = ch6_2_planning::huang_rows()?;
    rows.extend(ch5_2_index::huang52_rows()?);
    rows.extend(ch6_3_contact::huang_sim_rows()?);
    let mut figures = ch6_2_figures::figures()?;
    figures.extend(ch6_3_contact::huang_sim_figures()?);
    Ok(SourceOutput { rows, figures })
}
