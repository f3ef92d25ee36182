//! # contour-scenario
//!
//! The options language of Contour's two doors, the `contour` command line and the Python
//! module: what a scenario and a sweep say, how each word becomes a library value, what is
//! checked before a run, and the engine that runs them. Both doors are thin layers over this
//! crate and the facade `contour`; neither holds a mirror of these types.
//!
//! * [`scenario`] — the TOML schema ([`scenario::Scenario`], serde) and errors naming key and
//!   line ([`ScenarioError`]);
//! * [`model`] — the model a scenario names, built with its initial state ([`model::build`]);
//! * [`registry`] — the model registry: every built-in model by name, its parameters with
//!   units and ranges, its default initial state ([`registry::MODELS`]);
//! * [`run`] — one simulation of a scenario, and every check short of running it;
//! * [`words`] — one spelling per word: names (TOML and Python) → library values, the
//!   defaults the library leaves to its callers, [`words::validate_dynamics_options`];
//! * [`sweep`] — sweeps: loading and checking, fingerprints, the run of one sweep point
//!   ([`sweep::run_one`]) and the worker-thread engine ([`sweep::run_rows`]).

pub mod error;
pub mod model;
pub mod registry;
pub mod run;
pub mod scenario;
pub mod sweep;
pub mod words;

pub use error::{Error, Result, ScenarioError};
