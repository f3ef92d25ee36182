//! Bit-level fingerprint of every whole run of `whole_runs`: for each
//! system × method × integrator, the step count, `N_f` and an FNV-1a hash of the bits of every
//! step time, violation, output time, q, q̇ and λ. Two builds agree bit for bit when their
//! outputs are equal: `cargo run --release -p contour-benches --example whole_runs_bits`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use contour::model::models::{AndrewsSqueezer, ANDREWS_Q0};
use contour::prelude::*;

fn fnv(h: &mut u64, v: &[f64]) {
    for x in v {
        for b in x.to_bits().to_le_bytes() {
            *h ^= u64::from(b);
            *h = h.wrapping_mul(0x100_0000_01b3);
        }
    }
}

fn rows(
    name: &str,
    mech: &dyn Mechanism,
    q0: &[f64],
    qd0: &[f64],
    t_end: f64,
    ec: ErrorControl,
    delta: f64,
) {
    for m in &contour_benches::every_method(delta).unwrap() {
        for i in &contour_benches::every_integrator() {
            for outputs in [vec![t_end], vec![]] {
                let every = outputs.is_empty();
                let r = Simulation::new(&mech, q0, qd0, 0.0, t_end)
                    .method(m.clone())
                    .integrator(i.clone())
                    .error_control(ec)
                    .output_times(outputs)
                    .run();
                let line = match r {
                    Ok(tr) => {
                        let mut h = 0xcbf2_9ce4_8422_2325u64;
                        fnv(&mut h, &tr.step_times);
                        fnv(&mut h, &tr.step_phi);
                        fnv(&mut h, &tr.step_phidot);
                        fnv(&mut h, &tr.times);
                        for v in tr.q.iter().chain(&tr.qd).chain(&tr.lambda) {
                            fnv(&mut h, v);
                        }
                        format!("{} {} {:016x}", tr.stats.steps, tr.stats.f_evals, h)
                    }
                    Err(e) => format!("error {e}"),
                };
                println!(
                    "{name}/{}/{}/{} {line}",
                    m.name(),
                    i.name(),
                    if every { "every" } else { "end" }
                );
            }
        }
    }
}

fn main() {
    let (keerthi, k0) = contour_benches::keerthi_ic2_start().unwrap();
    rows(
        "keerthi_ic2",
        &keerthi,
        &k0.q,
        &k0.qd,
        5.0,
        ErrorControl::absolute(1e-4),
        2.0,
    );
    let andrews = AndrewsSqueezer::default();
    rows(
        "andrews",
        &andrews,
        &ANDREWS_Q0,
        &[0.0; 7],
        0.03,
        ErrorControl::mixed(1e-6),
        100.0,
    );
}
