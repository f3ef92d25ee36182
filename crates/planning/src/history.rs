//! Kinematic path histories s(t), Huang 4.3.2.
//!
//! * [`ConstantSpeedHistory`] — case 1, (4.3.12)–(4.3.16): cubic from rest to speed v at
//!   the entry time, constant speed on the constraint, cubic to rest at t_f.
//! * [`RestToRestHistory`] — case 2, (4.3.17)–(4.3.21): three rest-to-rest cubics.
//!
//! Both store their coefficients exactly as the thesis names them.

use crate::error::PlanningError;

/// A path history `s(t)` with `ṡ(t)`, `s̈(t)`.
pub trait PathHistory {
    /// `(s, ṡ, s̈)` at time t (clamped to `[t0, tf]`).
    fn state(&self, t: f64) -> (f64, f64, f64);
    /// Final time t_f.
    fn final_time(&self) -> f64;
}

/// Evaluates `c3 τ³ + c2 τ² + c1 τ + c0` and its two derivatives.
fn cubic(c3: f64, c2: f64, c1: f64, c0: f64, tau: f64) -> (f64, f64, f64) {
    (
        ((c3 * tau + c2) * tau + c1) * tau + c0,
        (3.0 * c3 * tau + 2.0 * c2) * tau + c1,
        6.0 * c3 * tau + 2.0 * c2,
    )
}

fn check_times(t0: f64, t1: f64, t2: f64, tf: f64, s1: f64, s2: f64) -> Result<(), PlanningError> {
    if ![t0, t1, t2, tf, s1, s2].iter().all(|x| x.is_finite()) {
        return Err(PlanningError::NonFinite {
            what: "history times or breakpoints",
        });
    }
    if !(t0 < t1 && t1 < t2 && t2 < tf) {
        return Err(PlanningError::BadHistory {
            what: "times must satisfy t0 < t1 < t2 < tf",
        });
    }
    if !(0.0 < s1 && s1 < s2 && s2 < 1.0) {
        return Err(PlanningError::BadHistory {
            what: "breakpoints must satisfy 0 < s1 < s2 < 1",
        });
    }
    Ok(())
}

/// Constant-speed history, Huang (4.3.14)–(4.3.16) (with the names l1..l4 of (6.2.27)):
///
/// ```text
/// s = e1 (t−t1)³ + e2 (t−t1)² + v (t−t1) + s1,   t0 ≤ t ≤ t1
/// s = v (t−t1) + s1,                              t1 ≤ t ≤ t2
/// s = e3 (t−t2)³ + e4 (t−t2)² + v (t−t2) + s2,   t2 ≤ t ≤ tf
/// v = (s2−s1)/(t2−t1)                                                    (4.3.15)
/// e1 = 2 s1/(t0−t1)³ + v/(t0−t1)²,   e2 = −3 s1/(t0−t1)² − 2v/(t0−t1)
/// e3 = 2 (s2−1)/(tf−t2)³ + v/(tf−t2)², e4 = −3 (s2−1)/(tf−t2)² − 2v/(tf−t2)   (4.3.16)
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConstantSpeedHistory {
    /// Times t0 < t1 < t2 < tf \[s\].
    pub times: [f64; 4],
    /// Entry and exit parameters s1 < s2.
    pub s1: f64,
    /// Exit parameter s2.
    pub s2: f64,
    /// Speed on the constraint v (4.3.15).
    pub v: f64,
    /// e1..e4 of (4.3.16) (= l1..l4 of (6.2.28)).
    pub e: [f64; 4],
}

impl ConstantSpeedHistory {
    /// Builds the history from t0 < t1 < t2 < tf and 0 < s1 < s2 < 1 (4.3.12)–(4.3.13).
    pub fn new(
        t0: f64,
        t1: f64,
        t2: f64,
        tf: f64,
        s1: f64,
        s2: f64,
    ) -> Result<Self, PlanningError> {
        check_times(t0, t1, t2, tf, s1, s2)?;
        let v = (s2 - s1) / (t2 - t1); // (4.3.15)
        let d0 = t0 - t1;
        let df = tf - t2;
        // (4.3.16)
        let e1 = 2.0 * s1 / d0.powi(3) + v / d0.powi(2);
        let e2 = -3.0 * s1 / d0.powi(2) - 2.0 * v / d0;
        let e3 = 2.0 * (s2 - 1.0) / df.powi(3) + v / df.powi(2);
        let e4 = -3.0 * (s2 - 1.0) / df.powi(2) - 2.0 * v / df;
        Ok(Self {
            times: [t0, t1, t2, tf],
            s1,
            s2,
            v,
            e: [e1, e2, e3, e4],
        })
    }
}

impl PathHistory for ConstantSpeedHistory {
    fn state(&self, t: f64) -> (f64, f64, f64) {
        let [t0, t1, t2, tf] = self.times;
        let t = t.clamp(t0, tf);
        let [e1, e2, e3, e4] = self.e;
        if t <= t1 {
            cubic(e1, e2, self.v, self.s1, t - t1)
        } else if t <= t2 {
            (self.v * (t - t1) + self.s1, self.v, 0.0)
        } else {
            cubic(e3, e4, self.v, self.s2, t - t2)
        }
    }
    fn final_time(&self) -> f64 {
        self.times[3]
    }
}

/// Rest-to-rest cubic history, Huang (4.3.20)–(4.3.21) (names b1..b6 of (6.2.14)):
///
/// ```text
/// s = c1 (t−t1)³ + c2 (t−t1)² + s1,  t0 ≤ t ≤ t1
/// s = c3 (t−t1)³ + c4 (t−t1)² + s1,  t1 ≤ t ≤ t2
/// s = c5 (t−t2)³ + c6 (t−t2)² + s2,  t2 ≤ t ≤ tf
/// c1 = 2 s1/(t0−t1)³, c2 = −3 s1/(t0−t1)², c3 = 2(s1−s2)/(t2−t1)³,
/// c4 = −3(s1−s2)/(t2−t1)², c5 = 2(s2−1)/(tf−t2)³, c6 = −3(s2−1)/(tf−t2)²       (4.3.21)
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RestToRestHistory {
    /// Times t0 < t1 < t2 < tf \[s\].
    pub times: [f64; 4],
    /// Entry parameter s1.
    pub s1: f64,
    /// Exit parameter s2.
    pub s2: f64,
    /// c1..c6 of (4.3.21) (= b1..b6 of (6.2.15)).
    pub c: [f64; 6],
}

impl RestToRestHistory {
    /// Builds the history from t0 < t1 < t2 < tf and 0 < s1 < s2 < 1 (4.3.17)–(4.3.19).
    pub fn new(
        t0: f64,
        t1: f64,
        t2: f64,
        tf: f64,
        s1: f64,
        s2: f64,
    ) -> Result<Self, PlanningError> {
        check_times(t0, t1, t2, tf, s1, s2)?;
        let d0 = t0 - t1;
        let d1 = t2 - t1;
        let df = tf - t2;
        // (4.3.21)
        let c = [
            2.0 * s1 / d0.powi(3),
            -3.0 * s1 / d0.powi(2),
            2.0 * (s1 - s2) / d1.powi(3),
            -3.0 * (s1 - s2) / d1.powi(2),
            2.0 * (s2 - 1.0) / df.powi(3),
            -3.0 * (s2 - 1.0) / df.powi(2),
        ];
        Ok(Self {
            times: [t0, t1, t2, tf],
            s1,
            s2,
            c,
        })
    }
}

impl PathHistory for RestToRestHistory {
    fn state(&self, t: f64) -> (f64, f64, f64) {
        let [t0, t1, t2, tf] = self.times;
        let t = t.clamp(t0, tf);
        let c = self.c;
        if t <= t1 {
            cubic(c[0], c[1], 0.0, self.s1, t - t1)
        } else if t <= t2 {
            cubic(c[2], c[3], 0.0, self.s1, t - t1)
        } else {
            cubic(c[4], c[5], 0.0, self.s2, t - t2)
        }
    }
    fn final_time(&self) -> f64 {
        self.times[3]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_bc(h: &dyn PathHistory, t: [f64; 4], s: [f64; 4], sd: [f64; 4]) {
        for k in 0..4 {
            let (sk, sdk, _) = h.state(t[k]);
            assert!(
                (sk - s[k]).abs() < 1e-13,
                "s({}) = {sk}, want {}",
                t[k],
                s[k]
            );
            assert!(
                (sdk - sd[k]).abs() < 1e-13,
                "sd({}) = {sdk}, want {}",
                t[k],
                sd[k]
            );
        }
        // continuity of s and ṡ across t1, t2
        for &tk in &t[1..3] {
            let a = h.state(tk - 1e-9);
            let b = h.state(tk + 1e-9);
            assert!((a.0 - b.0).abs() < 1e-8 && (a.1 - b.1).abs() < 1e-7);
        }
    }

    #[test]
    fn rest_to_rest_meets_4_3_17_to_4_3_19() {
        let h = RestToRestHistory::new(0.0, 1.56, 5.21, 7.0, 0.3464, 0.6335).unwrap();
        check_bc(&h, h.times, [0.0, 0.3464, 0.6335, 1.0], [0.0; 4]);
        // s̈ linear in t on each piece: third derivative constant → check s̈ at 3 points collinear
        let (_, _, a0) = h.state(0.2);
        let (_, _, a1) = h.state(0.6);
        let (_, _, a2) = h.state(1.0);
        assert!(((a2 - a1) - (a1 - a0)).abs() < 1e-12);
    }

    #[test]
    fn constant_speed_meets_4_3_12_to_4_3_13() {
        let h = ConstantSpeedHistory::new(0.0, 1.42, 4.25, 5.67, 0.3464, 0.6335).unwrap();
        let v = h.v;
        check_bc(&h, h.times, [0.0, 0.3464, 0.6335, 1.0], [0.0, v, v, 0.0]);
        assert_eq!(h.state(3.0).2, 0.0);
    }

    #[test]
    fn bad_times_are_rejected() {
        assert!(matches!(
            RestToRestHistory::new(0.0, 2.0, 1.0, 3.0, 0.3, 0.6),
            Err(PlanningError::BadHistory { .. })
        ));
        assert!(matches!(
            ConstantSpeedHistory::new(0.0, 1.0, 2.0, 3.0, 0.7, 0.6),
            Err(PlanningError::BadHistory { .. })
        ));
        assert!(matches!(
            ConstantSpeedHistory::new(0.0, f64::NAN, 2.0, 3.0, 0.3, 0.6),
            Err(PlanningError::NonFinite { .. })
        ));
    }
}
