//! Prints the rows of `huang_sim_rows` and the time taken.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let t0 = std::time::Instant::now();
    let rows = contour_contact::reproduction::huang_sim_rows()?;
    let t1 = t0.elapsed();
    let figs = contour_contact::reproduction::huang_sim_figures()?;
    println!(
        "rows {:?}, figures {:?} ({} figures)",
        t1,
        t0.elapsed() - t1,
        figs.len()
    );
    for r in rows {
        println!("{:<60} {:>14.6e} {:>10?} {}", r.id, r.ours, r.paper, r.unit);
    }
    Ok(())
}
