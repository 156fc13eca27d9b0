use std::time::Duration;
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

// Short measurements: refbench repeats the whole executable in interleaved
// rounds, so one invocation need not be long (Criterion's command line takes
// whole seconds only, hence the configuration here). 2 000 resamples keep
// Criterion's own interval cheap; refbench takes its point estimate.
criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_millis(300))
        .sample_size(10)
        .nresamples(2000);
    targets = bench_parse, bench_encode, bench_sort
}
criterion_main!(benches);
