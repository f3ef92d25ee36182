//! Integration to a final time with output at requested times and events.
//!
//! [`integrate`] repeatedly calls [`Advance::step`] with the stop time `t_end`, writes the
//! requested outputs from the dense output of each step (or every accepted step when no
//! output times are given), and locates events (see [`crate::events`]). On
//! [`EventAction::Restart`] the stepper is restarted from the event state returned by the
//! handler; on [`EventAction::Stop`] the integration ends at the event time.

use crate::error::{OdeError, Quantity};
use crate::events::{crossing, locate_root, EventAction, EventFunction, EventRecord};
use crate::stats::Stats;
use crate::stepper::{Advance, Stepper};

/// Options of [`integrate`].
///
/// Defaults: `max_steps = 1_000_000`, `event_rtol = 1e-12`.
#[derive(Debug, Clone, PartialEq)]
pub struct DriverOptions {
    /// Largest number of accepted steps.
    pub max_steps: usize,
    /// Relative tolerance in `t` of the event location: `|Δt| ≤ event_rtol·max(|t|, |h|)`.
    pub event_rtol: f64,
}

impl Default for DriverOptions {
    fn default() -> Self {
        Self {
            max_steps: 1_000_000,
            event_rtol: 1e-12,
        }
    }
}

/// How the integration ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Termination {
    /// `t_end` was reached.
    Reached,
    /// The event with this index asked to stop.
    StoppedByEvent(usize),
}

/// Result of [`integrate`].
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Solution {
    /// Output times.
    pub t: Vec<f64>,
    /// States at the output times.
    pub y: Vec<Vec<f64>>,
    /// Events in the order they occurred.
    pub events: Vec<EventRecord>,
    /// Work counters of the stepper at the end (cumulative over its life).
    pub stats: Stats,
    /// How the integration ended.
    pub termination: Termination,
}

/// [`integrate`] to `t_end` with the one output `t_end`, no events and the default options:
/// the solution at the final time (`sol.y[0]`) with the work counters.
pub fn integrate_to<S: Advance<F>, F: ?Sized>(
    stepper: &mut S,
    f: &mut F,
    t_end: f64,
) -> Result<Solution, OdeError> {
    integrate(
        stepper,
        f,
        t_end,
        &[t_end],
        &mut [],
        &DriverOptions::default(),
    )
}

/// Integrates from the stepper's current `(t, y)` to `t_end > t`.
///
/// * `t_out`: sorted output times in `[t, t_end]`; empty means "every accepted step"
///   (including the initial point).
/// * `events`: event functions, checked after every step.
///
/// Errors: [`OdeError::InvalidInterval`] for `t_end ≤ t`, non-finite `t_end`, or unsorted /
/// out-of-range output times; [`OdeError::TooManySteps`]; any error of the stepper.
pub fn integrate<S: Advance<F>, F: ?Sized>(
    stepper: &mut S,
    f: &mut F,
    t_end: f64,
    t_out: &[f64],
    events: &mut [&mut dyn EventFunction],
    opts: &DriverOptions,
) -> Result<Solution, OdeError> {
    let t0 = stepper.t();
    if !t_end.is_finite() {
        return Err(OdeError::NonFinite {
            what: Quantity::OutputTime,
            index: 0,
        });
    }
    if t_end <= t0 {
        return Err(OdeError::InvalidInterval { t0, t_end });
    }
    for (i, &to) in t_out.iter().enumerate() {
        if !(to >= t0 && to <= t_end) || (i > 0 && to < t_out[i - 1]) {
            return Err(OdeError::InvalidInterval { t0, t_end: to });
        }
    }
    check_step_bound(stepper, t0, t_end, opts.max_steps)?;
    let n = stepper.dim();
    let every_step = t_out.is_empty();
    let mut sol = Solution {
        t: Vec::with_capacity(t_out.len()),
        y: Vec::with_capacity(t_out.len()),
        events: Vec::new(),
        stats: *stepper.stats(),
        termination: Termination::Reached,
    };
    let mut next_out = 0usize;
    if every_step {
        sol.t.push(t0);
        sol.y.push(stepper.y().to_vec());
    } else {
        while next_out < t_out.len() && t_out[next_out] <= t0 {
            sol.t.push(t0);
            sol.y.push(stepper.y().to_vec());
            next_out += 1;
        }
    }
    let mut g_prev: Vec<f64> = events.iter_mut().map(|e| e.g(t0, stepper.y())).collect();
    let mut g_new = vec![0.0; events.len()];
    let mut found: Vec<(f64, usize, crate::events::Direction)> = Vec::with_capacity(events.len());
    let mut buf = vec![0.0; n];
    stepper.set_t_stop(Some(t_end));
    let mut steps = 0usize;

    while stepper.t() < t_end {
        if steps >= opts.max_steps {
            return Err(OdeError::TooManySteps {
                t: stepper.t(),
                max_steps: opts.max_steps,
            });
        }
        let info = stepper.step(f)?;
        steps += 1;

        // Events on [t_prev, t].
        found.clear();
        for (i, ev) in events.iter_mut().enumerate() {
            g_new[i] = ev.g(info.t, stepper.y());
            if !g_new[i].is_finite() {
                return Err(OdeError::NonFinite {
                    what: Quantity::EventFunction,
                    index: i,
                });
            }
            if let Some(dir) = crossing(g_prev[i], g_new[i], ev.direction()) {
                let tol = opts.event_rtol * info.t.abs().max(info.h);
                let st = &*stepper;
                let te = locate_root(
                    |t| {
                        // `buf` has the stepper's length and `t` lies in the finite step, so
                        // `dense` cannot fail; a failure would surface as a NaN event value
                        match st.dense(t, &mut buf) {
                            Ok(()) => ev.g(t, &buf),
                            Err(_) => f64::NAN,
                        }
                    },
                    info.t_prev,
                    info.t,
                    g_prev[i],
                    g_new[i],
                    tol,
                )?;
                found.push((te, i, dir));
            }
        }
        found.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut stop_at: Option<(f64, usize, EventAction)> = None;
        for &(te, i, dir) in &found {
            emit_until(
                &*stepper,
                t_out,
                &mut next_out,
                te,
                every_step,
                &mut sol,
                &mut buf,
                false,
            )?;
            stepper.dense(te, &mut buf)?;
            sol.events.push(EventRecord {
                index: i,
                t: te,
                y: buf.clone(),
                direction: dir,
            });
            stepper.stats_mut().events += 1;
            let action = events[i].on_event(te, &mut buf);
            match action {
                EventAction::Continue => {}
                EventAction::Stop | EventAction::Restart => {
                    stop_at = Some((te, i, action));
                    break;
                }
            }
        }
        match stop_at {
            Some((te, i, EventAction::Stop)) => {
                if every_step {
                    sol.t.push(te);
                    sol.y.push(buf.clone());
                }
                sol.termination = Termination::StoppedByEvent(i);
                sol.stats = *stepper.stats();
                return Ok(sol);
            }
            Some((te, _, _)) => {
                // Restart from the (modified) event state.
                if every_step {
                    sol.t.push(te);
                    sol.y.push(buf.clone());
                }
                let y_restart = buf.clone();
                stepper.restart(f, te, &y_restart)?;
                stepper.set_t_stop(Some(t_end));
                for (k, ev) in events.iter_mut().enumerate() {
                    g_prev[k] = ev.g(te, &y_restart);
                }
            }
            None => {
                emit_until(
                    &*stepper,
                    t_out,
                    &mut next_out,
                    info.t,
                    every_step,
                    &mut sol,
                    &mut buf,
                    true,
                )?;
                g_prev.copy_from_slice(&g_new);
            }
        }
    }
    sol.stats = *stepper.stats();
    Ok(sol)
}

/// The stepper's step bound ([`Stepper::step_bound`]) against the span `[t0, t_end]`: above
/// the time resolution `4u·max(|t0|, |t_end|)` and not forcing more than `max_steps` steps
/// ([`OdeError::StepBoundTooSmall`] otherwise). [`integrate`] calls it; a driver of its own
/// calls it once before its loop.
pub fn check_step_bound<S: Stepper + ?Sized>(
    stepper: &S,
    t0: f64,
    t_end: f64,
    max_steps: usize,
) -> Result<(), OdeError> {
    let Some((name, h)) = stepper.step_bound() else {
        return Ok(());
    };
    let resolution = 4.0 * f64::EPSILON * t0.abs().max(t_end.abs());
    if h.is_nan() || h <= resolution {
        return Err(OdeError::StepBoundTooSmall {
            name,
            value: h,
            floor: resolution,
            reason: "below the time resolution 4u·max(|t0|, |t_end|) of the span",
        });
    }
    let needed = (t_end - t0) / max_steps as f64;
    if h < needed {
        return Err(OdeError::StepBoundTooSmall {
            name,
            value: h,
            floor: needed,
            reason: "forces more steps than the driver's max_steps",
        });
    }
    Ok(())
}

/// Writes the requested outputs with `t_out ≤ t_until` from the dense output (the step end
/// itself is copied exactly); in every-step mode writes the step end when `at_step_end`.
#[allow(clippy::too_many_arguments)]
fn emit_until<S: Stepper>(
    stepper: &S,
    t_out: &[f64],
    next_out: &mut usize,
    t_until: f64,
    every_step: bool,
    sol: &mut Solution,
    buf: &mut [f64],
    at_step_end: bool,
) -> Result<(), OdeError> {
    if every_step {
        if at_step_end {
            sol.t.push(stepper.t());
            sol.y.push(stepper.y().to_vec());
        }
        return Ok(());
    }
    while *next_out < t_out.len() && t_out[*next_out] <= t_until {
        let to = t_out[*next_out];
        if to == stepper.t() {
            sol.y.push(stepper.y().to_vec());
        } else {
            stepper.dense(to, buf)?;
            sol.y.push(buf.to_vec());
        }
        sol.t.push(to);
        *next_out += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_models::{max_abs_diff, ExactSolution, TimeDependent};
    use crate::{AbmConfig, AdamsBashforthMoulton, Tolerances};

    /// Continuing in segments reaches the same accuracy; every-step output starts at t0 and
    /// ends exactly at t_end; bad output times are refused.
    #[test]
    fn segments_and_outputs() {
        let mut p = TimeDependent;
        let mut s = AdamsBashforthMoulton::new(
            0.0,
            &p.y0(),
            Tolerances::new(1e-10, 1e-10),
            AbmConfig::default(),
        )
        .unwrap();
        let opts = DriverOptions::default();
        let a = integrate(&mut s, &mut p, 2.0, &[], &mut [], &opts).unwrap();
        assert_eq!(a.t[0], 0.0);
        assert_eq!(*a.t.last().unwrap(), 2.0);
        assert_eq!(a.t.len(), a.stats.steps + 1);
        assert!(a.t.windows(2).all(|w| w[1] > w[0]));
        let b = integrate(&mut s, &mut p, 5.0, &[3.0, 4.0, 5.0], &mut [], &opts).unwrap();
        let mut ex = [0.0];
        for (t, y) in b.t.iter().zip(&b.y) {
            p.exact(*t, &mut ex);
            assert!(max_abs_diff(y, &ex) < 1e-8, "t = {t}");
        }
        assert!(matches!(
            integrate(&mut s, &mut p, 6.0, &[5.5, 5.2], &mut [], &opts),
            Err(OdeError::InvalidInterval { .. })
        ));
        assert!(matches!(
            integrate(&mut s, &mut p, 6.0, &[7.0], &mut [], &opts),
            Err(OdeError::InvalidInterval { .. })
        ));
        let small = DriverOptions {
            max_steps: 3,
            ..DriverOptions::default()
        };
        assert!(matches!(
            integrate(&mut s, &mut p, 100.0, &[], &mut [], &small),
            Err(OdeError::TooManySteps { .. })
        ));
    }
}
