#pragma once
// The measurement settings of `run` and `compare` (docs/manual/commands.md#refbench-compare, and
// refbench.toml [run]): every default written once, here, and `resolve`,
// which takes each value from the first layer that sets it — the flags,
// then refbench.toml's [run], then the defaults — checks it with one rule
// per setting and records where it came from, so that a message names
// `--threshold` or `refbench.toml:3:13: run.threshold`, whichever set it.

#include <refbench/analysis/analysis.hpp>
#include <refbench/model/explanation.hpp>
#include <refbench/model/record.hpp>
#include <refbench/util/enum_names.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace refbench::config {

struct RunConfig;

// Which run verdicts fail the command (`--fail-on`).
enum class FailOn { regression, inconclusive, never };

// The defaults that only the configuration has (ARCHITECTURE.md: Defaults:
// the others are beside the data they are defaults of).
inline constexpr FailOn k_default_fail_on = FailOn::regression;
inline constexpr model::CounterSource k_default_counters = model::CounterSource::automatic;
inline constexpr double k_default_precision = 0.02;
inline constexpr std::chrono::minutes k_default_timeout{10};
// The shortest measurement budget accepted: a round of whole-process
// invocations on both arms and the control does not fit in less.
inline constexpr double k_min_budget_seconds = 1.0;
// The most rounds a cell may be given.
inline constexpr int k_max_rounds_limit = 1000000;
// The most warm-up runs per cell and arm: warm-up fills caches and wakes
// the CPU up; past a hundred runs it is only a budget spent unmeasured.
inline constexpr int k_max_warmup = 100;
// The most replicas per arm (run.replicas, --replicas).
inline constexpr int k_max_replicas = 64;

// What differs between `run` and `compare` when nothing is given.
struct CommandDefaults {
  std::chrono::seconds budget;
  int replicas; // byte-identical copies of each arm; 1: the arm itself
};
inline constexpr CommandDefaults k_run_defaults{std::chrono::seconds(1500), 3};
inline constexpr CommandDefaults k_compare_defaults{std::chrono::seconds(120), 1};

// A setting's value and where it came from: the flag ("--threshold"), the
// config file ("refbench.toml:3:13: run.threshold"), "default" or, for the
// seed, "random".
template <class T> struct Setting {
  T value{};
  std::string origin = "default";
};

// The measurement flags as given on the command line; nullopt: not given.
// Durations stay text until `resolve` parses them, naming the flag.
struct MeasurementFlags {
  std::optional<std::string> budget;
  std::optional<int> max_rounds;
  std::optional<int> min_rounds;
  std::optional<int> warmup;
  std::optional<std::string> timeout;
  std::optional<std::uint64_t> seed;
  std::optional<double> precision;
  std::optional<double> threshold;
  std::optional<double> alpha;
  std::optional<analysis::IntervalMethod> interval;
  std::optional<FailOn> fail_on;
  std::optional<std::string> isolate; // "auto", "off" or a CPU list
  std::optional<model::CounterSource> counters;
  std::optional<model::ExplainMode> explain;
  std::optional<int> replicas;
  bool no_control = false;
};

// Every setting of one measurement, resolved.
struct MeasurementSettings {
  Setting<double> budget_seconds;
  Setting<int> max_rounds;
  Setting<int> min_rounds;
  Setting<int> warmup;
  Setting<std::chrono::nanoseconds> timeout;
  Setting<std::uint64_t> seed;
  Setting<double> precision;
  Setting<double> threshold;
  Setting<double> alpha;
  Setting<analysis::IntervalMethod> interval;
  Setting<FailOn> fail_on;
  Setting<std::string> isolate;
  Setting<model::CounterSource> counters; // where counted metrics come from (docs/manual/counters.md)
  Setting<model::ExplainMode> explain;    // which cells are explained (docs/manual/explanations.md)
  Setting<int> replicas;
  Setting<bool> control; // whether the run has an A/A control cell

  // The rounds' budget, limits, warm-up and seed.
  model::RoundSettings rounds() const;
  // The analysis' threshold, alpha, min rounds, interval and bootstrap seed.
  analysis::Settings analysis() const;
};

// Resolves every setting from `flags`, then `file` (refbench.toml's [run];
// null for `compare`), then `defaults`; a seed nobody gives is drawn at
// random. A min_rounds that `flags` do not give yields to a smaller
// max_rounds. Throws UsageError naming the setting's origin for the first
// value that breaks its rule.
MeasurementSettings resolve(const MeasurementFlags& flags, const RunConfig* file, const CommandDefaults& defaults);

// The problem with `value` as the setting `key` ("threshold", "max_rounds",
// …), e.g. "must be between 0 and 1, got 1.5"; nullopt when it
// is fine. The one rule per setting, used for flags, the file and results.json.
std::optional<std::string> number_problem(std::string_view key, double value);

// The message for a value of `key` that broke its rule: "--max-rounds …",
// "refbench.toml:2:14: run.max_rounds …" or "max_rounds …" by `origin`.
std::string problem_message(std::string_view key, const std::string& origin, const std::string& problem);

// The flag of setting `key`: "max_rounds" → "--max-rounds".
std::string flag_of(std::string_view key);

// `fail_on` as a word: "regression", "inconclusive", "never"; and back
// (nullopt for any other word).
inline constexpr auto k_fail_on_names = util::enum_names<FailOn>(
    {{FailOn::regression, "regression"}, {FailOn::inconclusive, "inconclusive"}, {FailOn::never, "never"}});
inline std::string_view fail_on_name(FailOn fail_on) { return k_fail_on_names.name(fail_on); }
inline std::optional<FailOn> parse_fail_on(std::string_view text) { return k_fail_on_names.parse(text); }

} // namespace refbench::config
