//! Integer statistics of every row of Keerthi's Tables 4.1 and 4.2 (insta snapshot: steps,
//! f-evaluations, rejections, restarts, re-parametrizations). Accuracy is checked elsewhere.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use contour::projection::Integrator;
use contour_papers::keerthi::{
    run_case, table_method, KEERTHI_FINAL_TIME, KEERTHI_TAU, TABLE_METHODS,
};

#[test]
fn table_counts() {
    let mut out = String::new();
    for ic in [1, 2] {
        for name in TABLE_METHODS {
            let integ = if name == "ECS" {
                Integrator::Bdf(Default::default())
            } else {
                Integrator::abm()
            };
            let s = run_case(
                ic,
                table_method(name).unwrap(),
                integ,
                KEERTHI_TAU,
                KEERTHI_FINAL_TIME,
                vec![],
            )
            .unwrap()
            .stats;
            out.push_str(&format!(
                "table4.{ic} {name:5} N_i={:4} N_f={:4} rejected={:2} restarts={:2} reparametrizations={:2} projections={:4}\n",
                s.steps, s.f_evals, s.rejected_steps, s.restarts, s.reparametrizations, s.projections
            ));
        }
    }
    insta::assert_snapshot!(out);
}
