#include "readers.hpp"

#include <refbench/util/strings.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace refbench::suites {
namespace {

// The measures each harness names (HarnessMeasure): the rest are its row's OtherMeasures.
constexpr HarnessMeasure k_google_benchmark_measures[] = {
    {.name = "real_time", .quantity = Quantity::time},
    {.name = "cpu_time", .quantity = Quantity::time},
    {.name = "bytes_per_second", .higher_is_better = true, .label = "B/s"},
    {.name = "items_per_second", .higher_is_better = true, .label = "items/s"}};
constexpr HarnessMeasure k_go_measures[] = {{.name = "ns_per_op", .quantity = Quantity::time},
                                            {.name = "bytes_per_op", .quantity = Quantity::bytes, .counted = true},
                                            {.name = "allocs_per_op", .label = "allocs/op", .counted = true}};
constexpr HarnessMeasure k_criterion_measures[] = {
    {.name = "time", .quantity = Quantity::time},
    {.name = "bytes_per_second", .higher_is_better = true, .label = "B/s"},
    {.name = "elements_per_second", .higher_is_better = true, .label = "elements/s"}};
constexpr HarnessMeasure k_pytest_benchmark_measures[] = {{.name = "mean", .quantity = Quantity::time},
                                                          {.name = "median", .quantity = Quantity::time},
                                                          {.name = "min", .quantity = Quantity::time},
                                                          {.name = "ops", .higher_is_better = true, .label = "ops/s"}};
constexpr HarnessMeasure k_catch2_measures[] = {{.name = "mean", .quantity = Quantity::time}};
constexpr HarnessMeasure k_bmf_measures[] = {{.name = "latency", .quantity = Quantity::time},
                                             {.name = "build-time", .quantity = Quantity::time},
                                             {.name = "throughput", .higher_is_better = true, .label = "ops/s"},
                                             {.name = "file-size", .quantity = Quantity::bytes}};
// user and system below the rusage resolution are 0, as refbench's own cpu
constexpr HarnessMeasure k_hyperfine_measures[] = {
    {.name = "mean", .quantity = Quantity::time},
    {.name = "median", .quantity = Quantity::time},
    {.name = "user", .quantity = Quantity::time, .zero_is_a_reading = true},
    {.name = "system", .quantity = Quantity::time, .zero_is_a_reading = true}};
constexpr HarnessMeasure k_cargo_bench_measures[] = {{.name = "ns_per_iter", .quantity = Quantity::time}};

// --- counts per benchmark (docs/manual/suites.md#counts-per-benchmark; docs/design.md)

// Google Benchmark's counted run: each benchmark alone in order (no
// interleaving, one repetition), a warm-up run of one iteration before its
// runs (so the run of one iteration that starts them is warm), and runs
// short enough for valgrind.
constexpr std::string_view k_google_benchmark_counted_arguments[] = {
    "--benchmark_min_warmup_time=0.000000001", "--benchmark_min_time=0.01", "--benchmark_repetitions=1",
    "--benchmark_enable_random_interleaving=false"};
// Every benchmark's loop, whatever its function (a function, a fixture, a
// template, a lambda), starts with State::StartKeepRunning and ends with
// State::FinishKeepRunning; ComputeStats follows each benchmark's runs.
constexpr std::string_view k_google_benchmark_dumps[] = {
    detail::k_google_benchmark_loop_start, detail::k_google_benchmark_loop_end, "benchmark::ComputeStats*"};

constexpr HarnessCounting k_google_benchmark_counting{k_google_benchmark_counted_arguments, k_google_benchmark_dumps,
                                                      detail::google_benchmark_attribution};

// Catch2 (v2, header-only): each BENCHMARK's lambda runs inside its own
// BenchmarkFunction::model<LAMBDA>::call, once per run of k iterations, and
// the XML reporter's benchmarkEnded follows each benchmark (benchmarkFailed,
// one that threw). Its runs: k = 1, 2, 4, … until the warm-up time (the
// last of them followed by the clock's warm-up), then `samples` runs of
// `iterations` each. A dump before each call holds the run before it, so
// the dumps of one benchmark are: what ran before its first run, its runs
// of 1, 2, 4, …, and its samples but the last. The runs of 1 and 2
// iterations differ by one iteration exactly, whatever the clock did after.
constexpr std::string_view k_catch2_run =
    "Catch::Benchmark::Detail::BenchmarkFunction::model<*>::call(Catch::Benchmark::Chronometer) const";
constexpr std::string_view k_catch2_dumps[] = {k_catch2_run, "Catch::XmlReporter::benchmarkEnded*",
                                               "Catch::XmlReporter::benchmarkFailed*"};

constexpr HarnessCounting k_catch2_counting{{}, k_catch2_dumps, detail::catch2_attribution};

// Criterion (0.3): each benchmark starts in criterion::analysis::common;
// its closure's loop runs in Bencher::iter, once per run of `iters`
// iterations: its warm-up runs 1, 2, 4, … until the warm-up time, then its
// samples. As with Catch2, a dump before each call holds the run before it:
// what ran before its first run, then its runs of 1, 2, 4, …. The runs of
// 1 and 2 iterations differ by one iteration; the run of 4 differing from
// that of 2 by two iterations' count confirms the three are the warm-up's.
constexpr std::string_view k_criterion_run = "criterion::bencher::Bencher<*>::iter";
constexpr std::string_view k_criterion_dumps[] = {k_criterion_run, detail::k_criterion_next};

constexpr HarnessCounting k_criterion_counting{{}, k_criterion_dumps, detail::criterion_attribution};

// Every harness, one row each, in the order of the Harness enum (checked below).
constexpr std::array<HarnessInfo, k_harness_count> k_harness_table{{
    {.harness = Harness::google_benchmark,
     .name = "google-benchmark",
     .read = detail::read_google_benchmark,
     .measures = k_google_benchmark_measures,
     .others = OtherMeasures::counters,
     .primary = "real_time",
     .filter = HarnessFilter{.prefix = "--benchmark_filter="},
     .counting = k_google_benchmark_counting},
    {.harness = Harness::go,
     .name = "go",
     .read = detail::read_go,
     .measures = k_go_measures,
     .others = OtherMeasures::counters,
     .primary = "ns_per_op",
     .filter = HarnessFilter{.prefix = "-bench=", .levels_apart = true},
     .uncounted = "benchmarks run in Go's runtime, which valgrind does not follow reliably (its threads and "
                  "signals): gate on allocs_per_op and bytes_per_op, Go's own counts per op (go test -benchmem), or "
                  "on ns_per_op"},
    {.harness = Harness::criterion,
     .name = "criterion",
     .read = detail::read_criterion,
     .measures = k_criterion_measures,
     .others = OtherMeasures::counters,
     .primary = "time",
     .filter = HarnessFilter{.prefix = ""},
     .counting = k_criterion_counting},
    {.harness = Harness::pytest_benchmark, // pytest's -k cannot take a glob: no filter
     .name = "pytest-benchmark",
     .read = detail::read_pytest_benchmark,
     .measures = k_pytest_benchmark_measures,
     .others = OtherMeasures::times,
     .primary = "mean",
     .filter = std::nullopt,
     .uncounted = "benchmarks run in a Python interpreter, where a count of instructions or allocations is the "
                  "interpreter's, not the benchmark's: gate on mean"},
    {.harness = Harness::catch2, // Catch2's filter is its test names: none
     .name = "catch2",
     .read = detail::read_catch2,
     .measures = k_catch2_measures,
     .others = OtherMeasures::times,
     .primary = "mean",
     .filter = std::nullopt,
     .counting = k_catch2_counting},
    {.harness = Harness::bmf,
     .name = "bmf",
     .read = detail::read_bmf,
     .measures = k_bmf_measures,
     .others = OtherMeasures::figures,
     .primary = k_every_measure,
     .filter = std::nullopt,
     .uncounted = "figures come from a document, with no loop refbench can run under a counter: gate on its "
                  "measures"},
    {.harness = Harness::hyperfine,
     .name = "hyperfine",
     .read = detail::read_hyperfine,
     .measures = k_hyperfine_measures,
     .others = OtherMeasures::times,
     .primary = "mean",
     .filter = std::nullopt,
     .uncounted = "benchmarks are whole commands: count each one as a [[cell]] of its own, whose instructions "
                  "refbench counts"},
    {.harness = Harness::cargo_bench, // libtest's filter is a substring, not a glob: none
     .name = "cargo-bench",
     .read = detail::read_cargo_bench,
     .measures = k_cargo_bench_measures,
     .others = OtherMeasures::times,
     .primary = "ns_per_iter",
     .filter = std::nullopt,
     .uncounted = "benchmarks are not counted per iteration (libtest's bench loop is inlined into each benchmark): "
                  "gate on ns_per_iter"},
}};

// The checks of k_harness_table: row i is Harness i; each has its own
// name, a reader, measures named once and a primary measure among them.
constexpr bool harness_names_distinct() {
  for (std::size_t i = 0; i < k_harness_table.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (k_harness_table[i].name.empty() || k_harness_table[i].name == k_harness_table[j].name) {
        return false;
      }
    }
  }
  return true;
}

constexpr bool harness_row_is_whole(const HarnessInfo& row) {
  bool primary_listed = row.primary == k_every_measure;
  for (std::size_t i = 0; i < row.measures.size(); ++i) {
    primary_listed = primary_listed || row.measures[i].name == row.primary;
    for (std::size_t j = 0; j < i; ++j) {
      if (row.measures[i].name.empty() || row.measures[i].name == row.measures[j].name) {
        return false;
      }
    }
  }
  // (that it has a reader is the unit test's: a function's address is no constant under the sanitizers)
  return !row.name.empty() && !row.primary.empty() && primary_listed &&
         (row.counting.has_value() != !row.uncounted.empty());
}

constexpr bool harness_rows_whole() {
  for (const auto& row : k_harness_table) {
    if (!harness_row_is_whole(row)) {
      return false;
    }
  }
  return true;
}

static_assert(util::rows_in_enum_order(k_harness_table, &HarnessInfo::harness),
              "k_harness_table: row i must be Harness i, one row per Harness");
static_assert(harness_names_distinct(), "k_harness_table: every row needs a name of its own");
static_assert(harness_rows_whole(), "k_harness_table: every row needs its measures once each, a primary measure "
                                    "among them (or k_every_measure), and either a way to count its benchmarks "
                                    "or why it has none");

bool is_rate(std::string_view measure) { return measure.ends_with("_per_second") || measure.ends_with("/s"); }

// The entry of `measure` in `row`'s measures; nullptr when it lists none.
const HarnessMeasure* listed_measure(const HarnessInfo& row, std::string_view measure) {
  for (const auto& listed : row.measures) {
    if (listed.name == measure) {
      return &listed;
    }
  }
  return nullptr;
}

// `text` as a regular expression that matches it alone (ERE, ECMAScript
// and Rust's regex alike): every special character escaped.
std::string regex_literal(std::string_view text) {
  std::string regex;
  for (char c : text) {
    if (std::string_view("\\^$.|+()[]{}*?").find(c) != std::string_view::npos) {
      regex += '\\';
    }
    regex += c;
  }
  return regex;
}

// A glob (* and ?) as an anchored regular expression.
std::string regex_of_glob(std::string_view glob) {
  std::string regex = "^";
  for (char c : glob) {
    regex += c == '*' ? std::string(".*") : c == '?' ? std::string(".") : regex_literal(std::string_view(&c, 1));
  }
  return regex + "$";
}

// Whether a 0 of `measure` is a reading: a count (Go's allocs/op), a user
// counter that is no rate, hyperfine's user and system times (below the
// rusage resolution, as refbench's own cpu); a time, a rate, a size or a
// BMF measure of 0 is no figure.
bool zero_is_a_reading(Harness harness, std::string_view measure) {
  const auto& row = harness_info(harness);
  if (const auto* listed = listed_measure(row, measure)) {
    return listed->counted || listed->zero_is_a_reading;
  }
  return row.others == OtherMeasures::counters && !is_rate(measure);
}

// Each figure no ratio can be taken of — negative, 0 where 0 is no
// reading, or below the smallest normal double (its logarithm and any
// ratio of it lose their meaning) — is its benchmark's ERROR naming it:
// never a silent "—" (docs/manual/suites.md).
void refuse_unusable_figures(Harness harness, Benchmarks& benchmarks) {
  for (auto& benchmark : benchmarks) {
    for (const auto& [measure, value] : benchmark.values) {
      if (!benchmark.error.empty()) {
        break;
      }
      const bool zero = value == 0 && zero_is_a_reading(harness, measure);
      if (!zero && !(value >= std::numeric_limits<double>::min())) {
        benchmark.error =
            fmt::format("it reports {} = {}, not a positive number refbench can take a ratio of", measure, value);
      }
    }
  }
}

} // namespace

constexpr util::EnumNames<Harness, k_harness_count> k_harness_names =
    util::names_of_rows(k_harness_table, &HarnessInfo::harness, &HarnessInfo::name);

const HarnessInfo& harness_info(Harness harness) { return k_harness_table[static_cast<std::size_t>(harness)]; }

std::span<const HarnessInfo> built_in_harnesses() { return k_harness_table; }

bool counted_measure(std::string_view measure) {
  return std::ranges::find(k_counted_measures, measure) != std::end(k_counted_measures);
}

std::string why_not_counted(Harness harness, std::string_view measure) {
  const auto& row = harness_info(harness);
  if (!row.counting) {
    return fmt::format("a {} suite's {}", row.name, row.uncounted);
  }
  if (!counted_measure(measure)) {
    return "callgrind counts the calls of the malloc family, not the sizes they ask for: gate on allocations";
  }
  return "";
}

MeasureInfo measure_info(Harness harness, std::string_view measure) {
  const auto& row = harness_info(harness);
  if (counted_measure(measure)) { // docs/manual/suites.md#counts-per-benchmark: per iteration,
                                  // whatever the harness
    return {Quantity::plain, false, std::string(measure), true};
  }
  if (const auto* listed = listed_measure(row, measure)) {
    return {listed->quantity, listed->higher_is_better, std::string(listed->label), listed->counted};
  }
  if (row.others == OtherMeasures::times) {
    return {Quantity::time, false, "", false};
  }
  return {Quantity::plain, is_rate(measure), std::string(measure), false};
}

bool primary_measure(Harness harness, std::string_view measure) {
  const auto& row = harness_info(harness);
  return row.primary == k_every_measure || row.primary == measure;
}

std::expected<Benchmarks, std::string> read_suite(Harness harness, std::string_view text, std::string_view source) {
  text = util::without_bom(text);
  if (util::trim(text).empty()) {
    return std::unexpected(fmt::format("{} is empty: the {} harness reported nothing", source, harness_name(harness)));
  }
  auto result = harness_info(harness).read(text, source);
  if (result && result->empty()) {
    return std::unexpected(fmt::format("{} reports no benchmark ({} output)", source, harness_name(harness)));
  }
  if (result) {
    refuse_unusable_figures(harness, *result);
  }
  return result;
}

std::optional<std::vector<std::string>> filter_arguments(Harness harness, std::string_view pattern) {
  const auto& filter = harness_info(harness).filter;
  if (!filter || pattern.find('[') != std::string_view::npos) {
    return std::nullopt; // a bracket class: the whole suite runs, and the rows are picked afterwards
  }
  // Go's -bench matches each '/' level apart: the top level is a superset
  const auto glob = filter->levels_apart ? pattern.substr(0, pattern.find('/')) : pattern;
  return std::vector<std::string>{std::string(filter->prefix) + regex_of_glob(glob)};
}

std::optional<std::vector<std::string>> family_filter_arguments(Harness harness,
                                                                const std::vector<std::string>& families) {
  const auto& filter = harness_info(harness).filter;
  if (!filter || families.empty()) {
    return std::nullopt;
  }
  std::string alternatives;
  for (const auto& family : families) {
    alternatives += (alternatives.empty() ? "" : "|") + regex_literal(family);
  }
  // a family and whatever follows its '/'; Go's -bench matches its top level alone
  return std::vector<std::string>{std::string(filter->prefix) + "^(" + alternatives + ")" +
                                  (filter->levels_apart ? "" : "(/.*)?") + "$"};
}

std::optional<SweepLevel> sweep_level(std::string_view benchmark) {
  const auto slash = benchmark.rfind('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == benchmark.size()) {
    return std::nullopt;
  }
  SweepLevel level{std::string(benchmark.substr(0, slash)), "arg", std::string(benchmark.substr(slash + 1))};
  if (const auto named = level.value.find_first_of("=:"); named != std::string::npos && named > 0) {
    level.param = level.value.substr(0, named);
    level.value = level.value.substr(named + 1);
  }
  return level;
}

namespace detail {

std::string line_at(std::string_view text, std::size_t offset, std::string_view source) {
  offset = std::min(offset, text.size());
  const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
  return fmt::format("{}, line {}", source, line);
}

std::string where_in(std::string_view text, std::string_view needle, std::string_view source) {
  const auto at = needle.empty() ? std::string_view::npos : text.find(needle);
  return at == std::string_view::npos ? std::string(source) : line_at(text, at, source);
}

std::size_t Collector::index_of(const std::string& name) {
  auto [it, added] = m_index.try_emplace(name, m_order.size());
  if (added) {
    m_order.push_back(name);
    m_values.emplace_back();
    m_errors.emplace_back();
    m_iterations.emplace_back(0, 0);
  }
  return it->second;
}

void Collector::add(const std::string& name, const std::string& measure, double value) {
  m_values[index_of(name)][measure].push_back(value);
}

void Collector::iterations(const std::string& name, double iterations, double runs) {
  m_iterations[index_of(name)] = {iterations, runs};
}

void Collector::fail(const std::string& name, const std::string& error) {
  auto& kept = m_errors[index_of(name)];
  if (kept.empty()) {
    kept = error;
  }
}

Benchmarks Collector::benchmarks() const {
  Benchmarks benchmarks;
  for (std::size_t i = 0; i < m_order.size(); ++i) {
    Benchmark benchmark{m_order[i], {}, m_errors[i], m_iterations[i].first, m_iterations[i].second, ""};
    for (auto values : m_values[i]) { // a copy: sorted for its median
      auto& figures = values.second;
      std::sort(figures.begin(), figures.end());
      const std::size_t n = figures.size();
      benchmark.values[values.first] = n % 2 == 1 ? figures[n / 2] : (figures[n / 2 - 1] + figures[n / 2]) / 2;
    }
    benchmarks.push_back(std::move(benchmark));
  }
  return benchmarks;
}

std::optional<double> seconds_of(double value, std::string_view unit) {
  static const std::map<std::string_view, double, std::less<>> k_scale{
      {"ps", 1e-12}, {"ns", 1e-9}, {"us", 1e-6}, {"µs", 1e-6}, {"μs", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};
  auto it = k_scale.find(unit);
  if (it == k_scale.end()) {
    return std::nullopt;
  }
  return value * it->second;
}

} // namespace detail
} // namespace refbench::suites
