//! Seeded fuzz of the deserialisers a user feeds files to: `Trajectory::read_json`
//! and the serde form of `ProjectorConfig` (and through it `ConfigurationCorrection`,
//! `CorrectionCount`, `VelocityFiltering`). 300 mutations each of a valid JSON text (bytes
//! replaced, deleted, duplicated; numbers replaced by huge, negative, NaN-like or garbage
//! tokens): never a panic; a config that parses runs to `Ok` or a typed error.

use contour_model::models::Pendulum;
use contour_model::testing::SplitMix64;
use contour_projection::{
    ErrorControl, Integrator, Method, ProjectorConfig, Simulation, Trajectory,
};

/// One random mutation of `text`.
fn mutate(text: &str, rng: &mut SplitMix64) -> String {
    let mut b: Vec<u8> = text.as_bytes().to_vec();
    let tokens: [&[u8]; 8] = [
        b"1e308",
        b"-1",
        b"0",
        b"NaN",
        b"null",
        b"\"x\"",
        b"[]",
        b"99999999999999999999",
    ];
    for _ in 0..1 + rng.next_u64() % 3 {
        if b.is_empty() {
            break;
        }
        let i = (rng.next_u64() % b.len() as u64) as usize;
        match rng.next_u64() % 4 {
            0 => b[i] = b" {}[],:0123456789.-eE\"abc"[(rng.next_u64() % 25) as usize],
            1 => {
                b.remove(i);
            }
            2 => {
                let c = b[i];
                b.insert(i, c);
            }
            _ => {
                // replace the number starting at or after i by a token
                let start = (i..b.len()).find(|&k| b[k].is_ascii_digit()).unwrap_or(i);
                let end = (start..b.len())
                    .find(|&k| !(b[k].is_ascii_digit() || b".eE-+".contains(&b[k])))
                    .unwrap_or(b.len());
                let t = tokens[(rng.next_u64() % tokens.len() as u64) as usize];
                b.splice(start..end, t.iter().copied());
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

#[test]
fn mutated_projector_configs_never_panic() {
    let p = Pendulum::default();
    let (q, qd) = p.state(0.5, 0.0);
    let text = serde_json::to_string(&ProjectorConfig::default()).unwrap();
    let mut rng = SplitMix64::new(0x17);
    let (mut parsed, mut ran, mut typed) = (0, 0, 0);
    for _ in 0..300 {
        let t = mutate(&text, &mut rng);
        let r = std::panic::catch_unwind(|| {
            let Ok(cfg) = serde_json::from_str::<ProjectorConfig>(&t) else {
                return (false, None);
            };
            let run = Simulation::new(&p, &q, &qd, 0.0, 0.05)
                .method(Method::Projector(cfg))
                .integrator(Integrator::dopri5())
                .error_control(ErrorControl::absolute(1e-6))
                .max_steps(10_000)
                .run();
            (true, Some(run.is_ok()))
        });
        let (p_ok, run) = r.unwrap_or_else(|_| panic!("panic on {t}"));
        parsed += usize::from(p_ok);
        match run {
            Some(true) => ran += 1,
            Some(false) => typed += 1,
            None => {}
        }
    }
    eprintln!("projector configs: 300 mutations, {parsed} parsed, {ran} ran, {typed} typed errors, 0 panics");
    assert!(parsed > 0);
}

#[test]
fn mutated_trajectory_files_never_panic() {
    let p = Pendulum::default();
    let (q, qd) = p.state(0.5, 0.0);
    let tr = Simulation::new(&p, &q, &qd, 0.0, 0.05)
        .method(Method::Direct)
        .integrator(Integrator::dopri5())
        .run()
        .unwrap();
    let mut text = Vec::new();
    tr.write_json(&mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    let mut rng = SplitMix64::new(0x71);
    let mut ok = 0;
    for _ in 0..300 {
        let t = mutate(&text, &mut rng);
        let r = std::panic::catch_unwind(|| Trajectory::read_json(t.as_bytes()).is_ok());
        ok += usize::from(r.unwrap_or_else(|_| panic!("panic reading a mutated trajectory")));
    }
    eprintln!("trajectory files: 300 mutations, {ok} read, the rest typed errors, 0 panics");
}
