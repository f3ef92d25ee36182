//! Every model of the registry runs through the command line with its own defaults: the
//! scenario names the model (and the parameters it requires) and the end time, nothing else —
//! its default initial state, the model's default method
//! ([`contour_scenario::registry::ModelEntry::method`]), the default integrator and
//! tolerance, one second of simulated time.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

mod common;
use common::*;

use contour::prelude::Trajectory;
use contour_scenario::registry::MODELS;
use std::path::Path;

#[test]
fn every_registry_model_runs_one_second_with_its_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let urdf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../model/data/arm7.urdf");
    for e in MODELS {
        let params = match e.name {
            "n-four-bar" => "n = 2\n".to_string(),
            "urdf" => format!("file = {:?}\n", urdf.to_str().unwrap()),
            _ => String::new(),
        };
        let p = dir.path().join(format!("{}.toml", e.name));
        std::fs::write(
            &p,
            format!("[model.{}]\n{params}[time]\nend = 1.0\n", e.name),
        )
        .unwrap();
        let out_dir = dir.path().join(e.name);
        let out = contour(&["simulate", s(&p), "-o", s(&out_dir)]);
        assert!(
            out.status.success(),
            "{}: status {:?}\n{}",
            e.name,
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let traj =
            Trajectory::read_json(std::fs::File::open(out_dir.join("trajectory.json")).unwrap())
                .unwrap();
        assert!(
            (traj.times.last().unwrap() - 1.0).abs() < 1e-12,
            "{}: ends at {:?}",
            e.name,
            traj.times.last()
        );
        assert!(
            traj.q.iter().flatten().all(|x| x.is_finite()),
            "{}: a non-finite coordinate",
            e.name
        );
    }
}
