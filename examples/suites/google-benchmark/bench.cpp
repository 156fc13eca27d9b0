// A Google Benchmark suite of eight benchmarks, one of them a sweep over
// three sizes (->Arg). The candidate ref (candidate.patch) makes BM_hash
// 1.4x slower, removes BM_old and adds BM_new.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace {

// `n` rounds of a multiply-xorshift hash: the unit of work of every benchmark.
std::uint64_t hash_rounds(std::uint64_t seed, long n) {
  std::uint64_t x = seed;
  for (long i = 0; i < n; ++i) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    benchmark::DoNotOptimize(x);
  }
  return x;
}

void BM_hash(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(hash_rounds(1, 20000));
  }
}

void BM_mix(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(hash_rounds(2, 15000));
  }
}

void BM_fill(benchmark::State& state) {
  std::vector<std::uint32_t> v(8192);
  for (auto _ : state) {
    std::iota(v.begin(), v.end(), 7u);
    benchmark::DoNotOptimize(v.data());
    benchmark::ClobberMemory();
  }
}

void BM_sum(benchmark::State& state) {
  std::vector<std::uint64_t> v(8192, 3);
  for (auto _ : state) {
    benchmark::DoNotOptimize(std::accumulate(v.begin(), v.end(), std::uint64_t{0}));
  }
}

void BM_old(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(hash_rounds(3, 10000));
  }
}

void BM_vec(benchmark::State& state) {
  const auto n = state.range(0);
  for (auto _ : state) {
    std::vector<std::uint64_t> v(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < v.size(); ++i) {
      v[i] = hash_rounds(i, 4);
    }
    benchmark::DoNotOptimize(v.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

} // namespace

BENCHMARK(BM_hash);
BENCHMARK(BM_mix);
BENCHMARK(BM_fill);
BENCHMARK(BM_sum);
BENCHMARK(BM_old);
BENCHMARK(BM_vec)->Arg(256)->Arg(1024)->Arg(4096);

BENCHMARK_MAIN();
