//! The result type of every simulation, [`Trajectory`], from `contour-trajectory` (the crate
//! below projection and contact, so both return it), re-exported under its path in this crate.

pub use contour_trajectory::{
    Event, EventKind, Rows, RowsIter, SimulationStats, Trajectory, TrajectoryIoError,
};
