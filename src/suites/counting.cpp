// docs/manual/suites.md#counts-per-benchmark (docs/design.md): each harness's
// counted run's dumps attributed to its benchmarks, counts per iteration of
// each one's loop. Pure: the dumps are handed in.
#include "readers.hpp"

#include <cmath>
#include <fmt/format.h>

namespace refbench::suites::detail {
namespace {

bool triggered_by(const CallDump& dump, std::string_view function) { return dump.trigger.starts_with(function); }

// The loops of one benchmark's runs, in the order they ran: dumps before
// FinishKeepRunning, each holding what ran since the dump before
// StartKeepRunning.
using Runs = std::vector<CallDump>;

// Google Benchmark runs a benchmark's loop once for its warm-up, then 1,
// 10, 100, … iterations until one run is long enough, and reports that last
// run's iterations. So (last − the first run after the warm-up) / (N − 1)
// is one iteration's count, exactly for a loop that does the same each
// iteration: what every run does once (starting the loop, the timers)
// cancels. A benchmark the harness ran once after its warm-up (fixed
// iterations, or one iteration that took the whole minimum time) is its
// run's count / N, the loop's start included.
IterationCounts google_benchmark_counts(const Benchmark& benchmark, const Runs& runs) {
  IterationCounts counts{.name = benchmark.name};
  if (!benchmark.error.empty()) {
    counts.problem = "the harness reported it as failed: " + benchmark.error;
  } else if (benchmark.name.find("/threads:") != std::string::npos) {
    counts.problem = "its loop runs on several threads at once, whose counts callgrind cannot tell apart";
  } else if (runs.empty()) {
    counts.problem = "callgrind saw no run of its loop";
  } else if (!(benchmark.iterations >= 1)) {
    counts.problem = "the harness did not say how many iterations it ran";
  } else if (runs.size() >= 3 && benchmark.iterations > 1) {
    const auto& first = runs[1];
    const auto& last = runs.back();
    counts.instructions = (last.instructions - first.instructions) / (benchmark.iterations - 1);
    counts.allocations = (last.allocations - first.allocations) / (benchmark.iterations - 1);
  } else {
    counts.instructions = runs.back().instructions / benchmark.iterations;
    counts.allocations = runs.back().allocations / benchmark.iterations;
  }
  if (counts.problem.empty() && (counts.instructions < 0 || counts.allocations < 0)) {
    counts.problem = "its runs of more iterations counted less than its run of one: its loop does not do the same "
                     "work each iteration";
  }
  return counts;
}

// Where a harness's function between benchmarks runs: after each one's
// runs (the dumps before it end a benchmark), or before (they start one).
enum class Boundary { ends, starts };

// Each reported benchmark's counts from its runs: the dumps `is_run` takes,
// split into one benchmark's each where `is_next` is true, in the order
// the harness reported them; when the two do not line up, none is counted.
std::vector<IterationCounts> attribute_in_order(const std::vector<CallDump>& dumps, const Benchmarks& reported,
                                                bool (*is_run)(const CallDump&), bool (*is_next)(const CallDump&),
                                                IterationCounts (*count)(const Benchmark&, const Runs&),
                                                Boundary boundary = Boundary::ends) {
  std::vector<Runs> benchmarks(1);
  for (const auto& dump : dumps) {
    if (is_next(dump)) {
      benchmarks.emplace_back();
    } else if (is_run(dump)) {
      benchmarks.back().push_back(dump);
    }
  }
  if (boundary == Boundary::ends) {
    benchmarks.pop_back(); // what ran after the last benchmark
  } else {
    benchmarks.erase(benchmarks.begin()); // what ran before the first
  }
  std::vector<IterationCounts> counts;
  for (std::size_t i = 0; i < reported.size(); ++i) {
    if (benchmarks.size() != reported.size()) {
      counts.push_back({.name = reported[i].name,
                        .problem = fmt::format("the counted run reported {} benchmarks but callgrind saw {}",
                                               reported.size(), benchmarks.size())});
    } else {
      counts.push_back(count(reported[i], benchmarks[i]));
    }
  }
  return counts;
}

IterationCounts catch2_counts(const Benchmark& benchmark, const Runs& dumps) {
  IterationCounts counts{.name = benchmark.name};
  const double samples = benchmark.runs;
  const double doubling = static_cast<double>(dumps.size()) - samples; // its runs of 1, 2, 4, …
  if (!benchmark.error.empty()) {
    counts.problem = "the harness reported it as failed: " + benchmark.error;
  } else if (!(samples >= 1) || !(benchmark.iterations >= 1)) {
    counts.problem = "the harness did not say how many samples of how many iterations it ran";
  } else if (doubling >= 3) {
    counts.instructions = dumps[2].instructions - dumps[1].instructions;
    counts.allocations = dumps[2].allocations - dumps[1].allocations;
  } else if (samples >= 2 && doubling >= 1) { // a sample's run, its own start and finish spread over it
    const auto& sample = dumps[static_cast<std::size_t>(doubling) + 1];
    counts.instructions = sample.instructions / benchmark.iterations;
    counts.allocations = sample.allocations / benchmark.iterations;
  } else {
    counts.problem = "callgrind saw too few runs of it to tell one iteration from a run";
  }
  if (counts.problem.empty() && (counts.instructions < 0 || counts.allocations < 0)) {
    counts.problem = "its run of two iterations counted less than its run of one: its loop does not do the same "
                     "work each iteration";
  }
  return counts;
}

IterationCounts criterion_counts(const Benchmark& benchmark, const Runs& dumps) {
  IterationCounts counts{.name = benchmark.name};
  if (!benchmark.error.empty()) {
    counts.problem = "the harness reported it as failed: " + benchmark.error;
  } else if (dumps.size() < 4) {
    counts.problem = dumps.empty() ? "callgrind saw no run of its loop (only Bencher::iter's loop is counted)"
                                   : "callgrind saw too few runs of it to tell one iteration from a run";
  } else {
    const double one = dumps[2].instructions - dumps[1].instructions;
    const double two = dumps[3].instructions - dumps[2].instructions;
    if (!(one >= 0) || std::abs(two - 2 * one) > 1e-3 * two + 2) {
      counts.problem = fmt::format("its first runs do not grow by one iteration's count each time they double "
                                   "({} then {} more): its warm-up was too short under valgrind, or its loop does "
                                   "not do the same work each iteration",
                                   one, two);
    } else {
      counts.instructions = one;
      counts.allocations = dumps[2].allocations - dumps[1].allocations;
    }
  }
  return counts;
}

} // namespace

std::vector<IterationCounts> google_benchmark_attribution(const std::vector<CallDump>& dumps,
                                                          const Benchmarks& reported) {
  return attribute_in_order(
      dumps, reported, [](const CallDump& dump) { return triggered_by(dump, k_google_benchmark_loop_end); },
      [](const CallDump& dump) { return triggered_by(dump, k_google_benchmark_next); }, google_benchmark_counts);
}

std::vector<IterationCounts> catch2_attribution(const std::vector<CallDump>& dumps, const Benchmarks& reported) {
  return attribute_in_order(
      dumps, reported, [](const CallDump& dump) { return triggered_by(dump, k_catch2_run_prefix); },
      [](const CallDump& dump) { return triggered_by(dump, k_catch2_ended) || triggered_by(dump, k_catch2_failed); },
      catch2_counts);
}

std::vector<IterationCounts> criterion_attribution(const std::vector<CallDump>& dumps, const Benchmarks& reported) {
  return attribute_in_order(
      dumps, reported, [](const CallDump& dump) { return triggered_by(dump, k_criterion_run_prefix); },
      [](const CallDump& dump) { return triggered_by(dump, k_criterion_next); }, criterion_counts, Boundary::starts);
}

} // namespace refbench::suites::detail
