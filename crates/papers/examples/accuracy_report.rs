//! Prints the linalg accuracy report: `cargo run -p contour-papers --example accuracy_report [seed]`.

fn main() {
    let seed = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2024);
    let raw = contour_papers::linalg_accuracy::accuracy_report_raw(seed);
    let bound = contour_papers::linalg_accuracy::accuracy_report(seed);
    for ((name, r), (_, b)) in raw.iter().zip(&bound) {
        println!("{name:55} raw {r:.3e}  bound {b:.1e}");
    }
}
