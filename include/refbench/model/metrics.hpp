#pragma once
// The built-in metrics, one row each (ARCHITECTURE.md: How to add a
// metric): the name that configs, flags and documents use, the unit, the
// direction, how the arms are compared, the floor a reading is censored at,
// and which of an invocation's readings it is. The journal, results.json and
// the analysis walk this table; the default metric list and gate are here.

#include <refbench/model/invocation.hpp>
#include <refbench/model/rss_probe.hpp>
#include <refbench/util/enum_names.hpp>

#include <array>
#include <expected>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace refbench::model {

enum class Metric { wall, cpu, user, sys, rss, instructions, allocations, allocated_bytes };
inline constexpr std::size_t k_metric_count = 8; // the Metric values, one row each

// The ratio beyond which a change is a regression unless the run says
// otherwise (docs/manual/statistics.md), and a counted metric's: counts do not
// drift, so 1 % is a change. Each metric's row names the one it takes.
inline constexpr double k_default_threshold = 1.15;
inline constexpr double k_default_count_threshold = 1.01;

// What a metric's figures are: results.json's `unit` ("seconds", "bytes",
// "plain": a custom metric's own unit label).
enum class Unit { seconds, bytes, plain };
inline constexpr auto k_unit_names =
    util::enum_names<Unit>({{Unit::seconds, "seconds"}, {Unit::bytes, "bytes"}, {Unit::plain, "plain"}});
inline std::string_view unit_name(Unit unit) { return k_unit_names.name(unit); }

enum class Direction { lower_is_better, higher_is_better };

// How a metric's arms are compared (docs/manual/config.md#metric-kinds-ceilings-and-slos): "ratio"
// (positive readings, candidate / baseline) or "count" (readings ≥ 0, the
// difference candidate − baseline; a zero is a reading like any other).
enum class MetricKind { ratio, count };
inline constexpr auto k_metric_kind_names =
    util::enum_names<MetricKind>({{MetricKind::ratio, "ratio"}, {MetricKind::count, "count"}});
inline std::string_view metric_kind_name(MetricKind kind) { return k_metric_kind_names.name(kind); }
inline std::optional<MetricKind> parse_metric_kind(std::string_view word) { return k_metric_kind_names.parse(word); }

// Where a reading stops meaning anything (docs/manual/statistics.md, censoring):
// timer: wall below 10× the timer or spawn resolution; rusage: a CPU time
// of 0 (below the rusage resolution); rss: within k_rss_censor_margin of
// the launcher's own peak RSS, which exec carries into every child; none:
// a count has no floor (a count of 0 is a reading like any other).
enum class FloorRule { timer, rusage, rss, none };

struct MetricInfo {
  Metric metric;
  std::string_view name; // in refbench.toml, flags, the journal and results.json
  Unit unit;
  Direction direction;
  MetricKind kind;
  FloorRule floor;
  // The reading it is, stored under `name` in the journal and read back
  // from it; none for a metric made of others (cpu = user + sys).
  std::optional<Reading> stored;
  bool integral; // written as an integer (bytes, counts)
  double (*value)(const Readings& readings);
  // Its threshold when nothing sets one: k_default_threshold, which the
  // run's threshold replaces, or k_default_count_threshold for a counted one.
  double default_threshold;
  std::string_view label = {}; // shown after a plain value, e.g. "instructions"
};

// Whether `info` is measured by a counted invocation beside the timed one
// (process/counters.hpp): such a metric's threshold is the count threshold,
// and a run that shows it needs a counter.
bool counted(const MetricInfo& info);
// Whether any of `metrics` is counted.
bool any_counted(std::span<const Metric> metrics);
// The readings the counted ones of `metrics` store, in their order.
std::vector<Reading> counted_readings(std::span<const Metric> metrics);

// Every built-in metric, in the order lists and documents show them.
std::span<const MetricInfo> built_in_metrics();
const MetricInfo& metric_info(Metric metric);

// What a run shows and gates on when nothing says otherwise (docs/manual/measurement.md): wall, cpu and rss shown, wall
// gated.
inline constexpr std::array k_default_metrics{Metric::wall, Metric::cpu, Metric::rss};
inline constexpr std::array k_default_gate{Metric::wall};
std::vector<Metric> default_metrics();
std::vector<Metric> default_gate();

std::string_view metric_name(Metric metric);
// The built-in metric named `name`; none for any other word.
std::optional<Metric> parse_metric(std::string_view name);
// The names, "wall, cpu, user, sys, rss, instructions, allocations or
// allocated_bytes", for messages.
std::string metric_choices();
// `metrics` as a comma-separated list like "wall,cpu,rss" (what
// parse_metric_list reads).
std::string metric_list_text(std::span<const Metric> metrics);

// Parses a comma-separated list like "wall,cpu,rss"; an unknown or repeated
// name is an error naming it.
std::expected<std::vector<Metric>, std::string> parse_metric_list(std::string_view text);

// The value of `metric` in `outcome`, in its unit (NaN: a counted metric
// the sample has no count of).
double metric_value(const Outcome& outcome, Metric metric);

// Whether `outcome`'s `metric` reading sits at its measurement floor (its
// FloorRule; for rss the larger of the sample's and the run's start-up
// floor in `floors`).
bool at_floor(const Outcome& outcome, Metric metric, const RssProbe& floors);

} // namespace refbench::model
