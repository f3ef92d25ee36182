//! Events: sign changes of user functions `g(t, y)` located on each step.
//!
//! After every accepted step `[tₙ₋₁, tₙ]` the driver compares `g(tₙ₋₁, yₙ₋₁)` with
//! `g(tₙ, yₙ)`. A crossing is *rising* when `g` goes from `< 0` to `≥ 0` and *falling* when it
//! goes from `> 0` to `≤ 0` (a value that starts at exactly zero, e.g. after a restart on the
//! event surface, does not trigger). It is located on `t ↦ g(t, ỹ(t))` with the stepper's
//! dense output `ỹ` by the Illinois variant of regula falsi ([`locate_root`]) to
//! `|Δt| ≤ rtol·max(|t|, |h|)` (default `rtol = 1e-12`); the reported time is the end of the
//! final bracket on the far side of the crossing. The tolerance is on the root of the
//! *interpolated* `g`; against the true solution the event time also carries the dense-output
//! error (exact for the falling body, whose solution is a polynomial). An even number of sign changes within one
//! step is not seen (bound the step with `set_max_step` if that matters).

use crate::error::OdeError;

/// Which crossings of zero trigger an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Direction {
    /// `g` increasing through zero.
    Rising,
    /// `g` decreasing through zero.
    Falling,
    /// Either.
    Both,
}

/// What the driver does after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventAction {
    /// Record it and go on.
    Continue,
    /// Record it and end the integration at the event time.
    Stop,
    /// Restart the stepper at the event time from the (possibly modified) state, e.g. after
    /// an impact law changed the velocities.
    Restart,
}

/// An event function `g(t, y)` with its direction filter and handler.
pub trait EventFunction {
    /// The function whose zeros are events.
    fn g(&mut self, t: f64, y: &[f64]) -> f64;
    /// Crossings that count (default: both).
    fn direction(&self) -> Direction {
        Direction::Both
    }
    /// Called at the located event with the interpolated state, which may be modified (used
    /// with [`EventAction::Restart`]). Default: stop.
    fn on_event(&mut self, _t: f64, _y: &mut [f64]) -> EventAction {
        EventAction::Stop
    }
}

/// An event from a closure `g`, a direction and a fixed action (state not modified).
#[derive(Debug, Clone)]
pub struct FnEvent<G> {
    g: G,
    direction: Direction,
    action: EventAction,
}

impl<G: FnMut(f64, &[f64]) -> f64> FnEvent<G> {
    /// `g` with direction [`Direction::Both`] and action [`EventAction::Stop`].
    pub fn new(g: G) -> Self {
        Self {
            g,
            direction: Direction::Both,
            action: EventAction::Stop,
        }
    }
    /// Sets the direction filter.
    #[must_use]
    pub fn with_direction(mut self, direction: Direction) -> Self {
        self.direction = direction;
        self
    }
    /// Sets the action.
    #[must_use]
    pub fn with_action(mut self, action: EventAction) -> Self {
        self.action = action;
        self
    }
}

impl<G: FnMut(f64, &[f64]) -> f64> EventFunction for FnEvent<G> {
    fn g(&mut self, t: f64, y: &[f64]) -> f64 {
        (self.g)(t, y)
    }
    fn direction(&self) -> Direction {
        self.direction
    }
    fn on_event(&mut self, _t: f64, _y: &mut [f64]) -> EventAction {
        self.action
    }
}

/// A located event.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EventRecord {
    /// Index of the event function in the slice passed to the driver.
    pub index: usize,
    /// Event time.
    pub t: f64,
    /// State at the event (from the dense output, before `on_event` modified it).
    pub y: Vec<f64>,
    /// Actual direction of the crossing ([`Direction::Rising`] or [`Direction::Falling`]).
    pub direction: Direction,
}

/// The crossing direction between `g0 = g(tₙ₋₁)` and `g1 = g(tₙ)` if it passes `filter`.
pub fn crossing(g0: f64, g1: f64, filter: Direction) -> Option<Direction> {
    let d = if g0 < 0.0 && g1 >= 0.0 {
        Direction::Rising
    } else if g0 > 0.0 && g1 <= 0.0 {
        Direction::Falling
    } else {
        return None;
    };
    match (filter, d) {
        (Direction::Both, _)
        | (Direction::Rising, Direction::Rising)
        | (Direction::Falling, Direction::Falling) => Some(d),
        _ => None,
    }
}

/// Illinois regula falsi on `[a, b]` with `g(a) = ga`, `g(b) = gb` of opposite signs (or
/// `gb = 0`): returns `t` on the `b` side of the root (`sign g(t) = sign gb` or `g(t) = 0`)
/// with `t − (left end of the final bracket) ≤ tol`.
///
/// Illinois: when the same end is kept twice in a row, its function value is halved, which
/// restores superlinear convergence (order ≈ 1.44). Every third iteration that fails to halve
/// the bracket is replaced by bisection, bounding the work by that of bisection.
///
/// Errors: [`OdeError::NoConvergence`] after 200 iterations (only with a non-finite `g`).
pub fn locate_root(
    mut g: impl FnMut(f64) -> f64,
    a: f64,
    b: f64,
    ga: f64,
    gb: f64,
    tol: f64,
) -> Result<f64, OdeError> {
    let (mut lo, mut glo, mut hi, mut ghi) = (a, ga, b, gb);
    let after = |v: f64, gb: f64| v == 0.0 || (v > 0.0) == (gb > 0.0);
    let gb_sign = if gb == 0.0 { -ga } else { gb };
    let mut side = 0i8;
    let mut width_before = hi - lo;
    for it in 0..200 {
        if hi - lo <= tol {
            return Ok(hi);
        }
        let mut c = if it % 3 == 2 && (hi - lo) > 0.5 * width_before {
            0.5 * (lo + hi)
        } else {
            hi - ghi * (hi - lo) / (ghi - glo)
        };
        if it % 3 == 2 {
            width_before = hi - lo;
        }
        if !(c > lo && c < hi) {
            c = 0.5 * (lo + hi);
        }
        let gc = g(c);
        if !gc.is_finite() {
            return Err(OdeError::NoConvergence {
                t: c,
                iterations: it + 1,
                residual: gc,
            });
        }
        if after(gc, gb_sign) {
            hi = c;
            ghi = gc;
            if side == -1 {
                glo *= 0.5;
            }
            side = -1;
            if gc == 0.0 {
                return Ok(c);
            }
        } else {
            lo = c;
            glo = gc;
            if side == 1 {
                ghi *= 0.5;
            }
            side = 1;
        }
    }
    Err(OdeError::NoConvergence {
        t: hi,
        iterations: 200,
        residual: ghi,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn illinois_finds_roots() {
        for (root, p) in [(0.3, 1), (0.7, 3), (0.123456789, 5)] {
            let g = |t: f64| (t - root) * (1.0 + (t - root).powi(p - 1).abs() * 10.0);
            let t = locate_root(g, 0.0, 1.0, g(0.0), g(1.0), 1e-13).unwrap();
            assert!((t - root).abs() <= 1e-13, "root {root}: {t}");
            assert!(t >= root);
        }
        // Falling crossing.
        let g = |t: f64| (1.0 - t * t).max(-10.0);
        let t = locate_root(g, 0.0, 2.0, 1.0, -3.0, 1e-14).unwrap();
        assert!((t - 1.0).abs() < 1e-14 && g(t) <= 0.0);
    }

    /// Random monotone functions with a root in (0, 1): the located time is within the
    /// tolerance and on the far side of the root (deterministic ChaCha seed, 64 cases).
    #[test]
    fn illinois_property() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
        let cfg = Config {
            cases: 64,
            rng_algorithm: RngAlgorithm::ChaCha,
            failure_persistence: None,
            ..Config::default()
        };
        let mut runner =
            TestRunner::new_with_rng(cfg, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
        runner
            .run(
                &(0.01f64..0.99, 0.0f64..50.0, 0.1f64..10.0, any::<bool>()),
                |(r, a, s, falling)| {
                    let sign = if falling { -1.0 } else { 1.0 };
                    let g = |t: f64| sign * s * (t - r) * (1.0 + a * (t - r) * (t - r));
                    let tol = 1e-12;
                    let t = locate_root(g, 0.0, 1.0, g(0.0), g(1.0), tol).unwrap();
                    prop_assert!(
                        (t - r).abs() <= tol + 4.0 * f64::EPSILON,
                        "r = {r}, t = {t}"
                    );
                    prop_assert!(t >= r - 4.0 * f64::EPSILON);
                    Ok(())
                },
            )
            .unwrap();
    }

    #[test]
    fn crossing_filter() {
        assert_eq!(
            crossing(-1.0, 1.0, Direction::Both),
            Some(Direction::Rising)
        );
        assert_eq!(crossing(-1.0, 1.0, Direction::Falling), None);
        assert_eq!(
            crossing(1.0, 0.0, Direction::Falling),
            Some(Direction::Falling)
        );
        assert_eq!(crossing(0.0, 1.0, Direction::Both), None);
    }
}
