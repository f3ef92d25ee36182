//! Prints the events of Huang's simulation II under both schemes (optional args: h eps).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report
use contour::contact::{EntryLocation, HuangSchemeConfig, ModernConfig, Scheme};
use contour_papers::huang::scenario::{simulate_huang, HuangCase, HuangPlan};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let plan = HuangPlan::case1a()?;
    let args: Vec<String> = std::env::args().collect();
    let h: f64 = args.get(1).map_or(0.01, |s| s.parse().unwrap());
    let eps: f64 = args.get(2).map_or(1e-6, |s| s.parse().unwrap());
    for (name, scheme) in [
        ("modern", Scheme::Modern(ModernConfig::default())),
        (
            "huang",
            Scheme::Huang(HuangSchemeConfig {
                h_free: h,
                h_constrained: h,
                entry: EntryLocation::HuangInterpolation { eps },
                ..HuangSchemeConfig::default()
            }),
        ),
    ] {
        let t0 = std::time::Instant::now();
        let tr = simulate_huang(&plan, HuangCase::InexactRadius, scheme, None)?;
        println!(
            "{name}: {} events, {} steps, {:?}",
            tr.events.len(),
            tr.stats.steps,
            t0.elapsed()
        );
        for e in tr.events.iter().take(40) {
            println!(
                "  t={:.6} {:?} xi={:.4e} Dp-={:.3e} Dp+={:.3e} q=({:.5},{:.5}) qd=({:.4},{:.4})",
                e.t,
                e.kind,
                e.impulse.unwrap_or(0.0),
                e.normal_velocity_before.unwrap_or(0.0),
                e.normal_velocity_after.unwrap_or(0.0),
                e.q[0],
                e.q[1],
                e.qd[0],
                e.qd[1]
            );
        }
    }
    Ok(())
}
