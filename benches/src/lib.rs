//! Shared helpers for the criterion benches (see `benches/`).
