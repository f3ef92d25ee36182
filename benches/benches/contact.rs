//! criterion benches of `contact` (placeholder until the owning issue fills it).

use criterion::{criterion_group, criterion_main, Criterion};

fn placeholder(c: &mut Criterion) {
    c.bench_function("contact_placeholder", |b| b.iter(|| std::hint::black_box(1.0_f64).sqrt()));
}

criterion_group!(benches, placeholder);
criterion_main!(benches);
