use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use suite::{hash_rounds, parse};

fn bench_parse(c: &mut Criterion) {
    c.bench_function("parse", |b| b.iter(|| parse(black_box(1))));
}

fn bench_encode(c: &mut Criterion) {
    c.bench_function("encode", |b| b.iter(|| hash_rounds(black_box(2), black_box(15000))));
}

fn bench_sort(c: &mut Criterion) {
    let mut group = c.benchmark_group("sort");
    for size in [64u64, 512] {
        group.bench_with_input(BenchmarkId::new("sort", size), &size, |b, &size| {
            b.iter(|| hash_rounds(black_box(size), black_box(size * 20)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_parse, bench_encode, bench_sort);
criterion_main!(benches);
