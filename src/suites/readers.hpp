#pragma once
// The reader of each harness's output (its row's SuiteReader, suite.hpp) and what
// they share: where a field sits, for messages, and how benchmarks that a
// harness reports more than once (repetitions, Go's -count) become one
// figure per invocation.

#include <refbench/suites/suite.hpp>

#include <expected>
#include <string>
#include <string_view>

namespace refbench::suites::detail {

using Result = std::expected<Benchmarks, std::string>;

// JSON documents: Google Benchmark, pytest-benchmark, hyperfine, BMF; text
// that is no JSON is an error naming its line.
Result read_google_benchmark(std::string_view text, std::string_view source);
Result read_pytest_benchmark(std::string_view text, std::string_view source);
Result read_hyperfine(std::string_view text, std::string_view source);
Result read_bmf(std::string_view text, std::string_view source);

// Text and XML: `go test -bench`, Criterion's lines, Catch2's XML reporter,
// the `test NAME ... bench: N ns/iter` lines of Rust's bench harness.
Result read_go(std::string_view text, std::string_view source);
Result read_criterion(std::string_view text, std::string_view source);
Result read_catch2(std::string_view text, std::string_view source);
Result read_cargo_bench(std::string_view text, std::string_view source);

// "SOURCE, line N" for the line of `text` that holds `needle` first (the
// quoted name of a benchmark, say), or just SOURCE when it holds none.
std::string where_in(std::string_view text, std::string_view needle, std::string_view source);

// "SOURCE, line N" for byte `offset` of `text`.
std::string line_at(std::string_view text, std::size_t offset, std::string_view source);

// Collects the figures of benchmarks that may come more than once: each
// name's figures of each measure are kept, and `benchmarks()` gives one
// per measure — the median of its repetitions — in first-seen order; an
// error reported for any repetition is the benchmark's.
class Collector {
public:
  void add(const std::string& name, const std::string& measure, double value);
  void fail(const std::string& name, const std::string& error);
  // the iterations of the benchmark's loop in the run reported last
  void iterations(const std::string& name, double iterations, double runs = 0);
  bool empty() const { return m_order.empty(); }
  Benchmarks benchmarks() const;

private:
  std::size_t index_of(const std::string& name);
  std::vector<std::string> m_order;
  std::map<std::string, std::size_t> m_index;
  std::vector<std::map<std::string, std::vector<double>>> m_values;
  std::vector<std::string> m_errors;
  std::vector<std::pair<double, double>> m_iterations; // and runs
};

// docs/manual/suites.md#counts-per-benchmark (counting.cpp): the functions at
// each harness's loop boundaries, as callgrind names them in a dump's
// trigger, and each harness's attribution of its counted run's dumps
// (HarnessCounting::attribute).
inline constexpr std::string_view k_google_benchmark_loop_start = "benchmark::State::StartKeepRunning()";
inline constexpr std::string_view k_google_benchmark_loop_end = "benchmark::State::FinishKeepRunning()";
inline constexpr std::string_view k_google_benchmark_next = "benchmark::ComputeStats";
inline constexpr std::string_view k_catch2_run_prefix = "Catch::Benchmark::Detail::BenchmarkFunction::model<";
inline constexpr std::string_view k_catch2_ended = "Catch::XmlReporter::benchmarkEnded";
inline constexpr std::string_view k_catch2_failed = "Catch::XmlReporter::benchmarkFailed";
inline constexpr std::string_view k_criterion_run_prefix = "criterion::bencher::Bencher<";
inline constexpr std::string_view k_criterion_next = "criterion::analysis::common";
std::vector<IterationCounts> google_benchmark_attribution(const std::vector<CallDump>& dumps,
                                                          const Benchmarks& reported);
std::vector<IterationCounts> catch2_attribution(const std::vector<CallDump>& dumps, const Benchmarks& reported);
std::vector<IterationCounts> criterion_attribution(const std::vector<CallDump>& dumps, const Benchmarks& reported);

// A time of `unit` ("ns", "us", "µs", "ms", "s", "ps") in seconds; nullopt for another unit.
std::optional<double> seconds_of(double value, std::string_view unit);

} // namespace refbench::suites::detail
