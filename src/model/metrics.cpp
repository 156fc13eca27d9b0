#include <refbench/model/metrics.hpp>
#include <refbench/util/clock.hpp>

#include <algorithm>

namespace refbench::model {
namespace {

constexpr std::array<MetricInfo, k_metric_count> k_metric_table{{
    {Metric::wall, "wall", Unit::seconds, Direction::lower_is_better, MetricKind::ratio, FloorRule::timer,
     Reading::wall, false, [](const Readings& r) { return r[Reading::wall]; }, k_default_threshold},
    {Metric::cpu, "cpu", Unit::seconds, Direction::lower_is_better, MetricKind::ratio, FloorRule::rusage, std::nullopt,
     false, [](const Readings& r) { return r[Reading::user] + r[Reading::sys]; }, k_default_threshold},
    {Metric::user, "user", Unit::seconds, Direction::lower_is_better, MetricKind::ratio, FloorRule::rusage,
     Reading::user, false, [](const Readings& r) { return r[Reading::user]; }, k_default_threshold},
    {Metric::sys, "sys", Unit::seconds, Direction::lower_is_better, MetricKind::ratio, FloorRule::rusage, Reading::sys,
     false, [](const Readings& r) { return r[Reading::sys]; }, k_default_threshold},
    {Metric::rss, "rss", Unit::bytes, Direction::lower_is_better, MetricKind::ratio, FloorRule::rss, Reading::rss, true,
     [](const Readings& r) { return r[Reading::rss]; }, k_default_threshold},
    {Metric::instructions, "instructions", Unit::plain, Direction::lower_is_better, MetricKind::ratio, FloorRule::none,
     Reading::instructions, true, [](const Readings& r) { return r[Reading::instructions]; }, k_default_count_threshold,
     "instructions"},
    {Metric::allocations, "allocations", Unit::plain, Direction::lower_is_better, MetricKind::ratio, FloorRule::none,
     Reading::allocations, true, [](const Readings& r) { return r[Reading::allocations]; }, k_default_count_threshold,
     "allocations"},
    {Metric::allocated_bytes, "allocated_bytes", Unit::bytes, Direction::lower_is_better, MetricKind::ratio,
     FloorRule::none, Reading::allocated_bytes, true, [](const Readings& r) { return r[Reading::allocated_bytes]; },
     k_default_count_threshold},
}};

// Row i is Metric i, named, and takes the count threshold exactly when it
// is counted (analysis gives counted metrics Settings::count_threshold);
// that each row has a value is the unit test's (a function's address is
// no constant under the sanitizers).
constexpr bool metric_rows_whole() {
  for (const auto& row : k_metric_table) {
    const bool counts = row.stored && counted(*row.stored);
    if (row.name.empty() || (row.default_threshold == k_default_count_threshold) != counts) {
      return false;
    }
  }
  return util::rows_in_enum_order(k_metric_table, &MetricInfo::metric);
}
static_assert(metric_rows_whole(), "k_metric_table: row i must be Metric i, with a name and the count "
                                   "threshold exactly when it is counted");

} // namespace

std::span<const MetricInfo> built_in_metrics() { return k_metric_table; }

const MetricInfo& metric_info(Metric metric) { return k_metric_table[static_cast<std::size_t>(metric)]; }

bool counted(const MetricInfo& info) { return info.stored && counted(*info.stored); }

bool any_counted(std::span<const Metric> metrics) {
  return std::any_of(metrics.begin(), metrics.end(), [](Metric metric) { return counted(metric_info(metric)); });
}

std::vector<Reading> counted_readings(std::span<const Metric> metrics) {
  std::vector<Reading> readings;
  for (Metric metric : metrics) {
    if (counted(metric_info(metric))) {
      readings.push_back(*metric_info(metric).stored);
    }
  }
  return readings;
}

std::vector<Metric> default_metrics() { return {k_default_metrics.begin(), k_default_metrics.end()}; }
std::vector<Metric> default_gate() { return {k_default_gate.begin(), k_default_gate.end()}; }

std::string_view metric_name(Metric metric) { return metric_info(metric).name; }

std::optional<Metric> parse_metric(std::string_view name) {
  const auto* found = std::find_if(k_metric_table.begin(), k_metric_table.end(),
                                   [&](const MetricInfo& info) { return info.name == name; });
  return found == k_metric_table.end() ? std::nullopt : std::optional(found->metric);
}

std::string metric_choices() {
  std::string text;
  for (std::size_t i = 0; i < k_metric_table.size(); ++i) {
    text += i == 0 ? "" : i + 1 == k_metric_table.size() ? " or " : ", ";
    text += k_metric_table[i].name;
  }
  return text;
}

std::string metric_list_text(std::span<const Metric> metrics) {
  std::string text;
  for (Metric metric : metrics) {
    text += (text.empty() ? "" : ",") + std::string(metric_name(metric));
  }
  return text;
}

std::expected<std::vector<Metric>, std::string> parse_metric_list(std::string_view text) {
  std::vector<Metric> metrics;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = std::min(text.find(',', start), text.size());
    std::string_view name = text.substr(start, end - start);
    const auto metric = parse_metric(name);
    if (!metric) {
      return std::unexpected("unknown metric '" + std::string(name) + "' (use " + metric_choices() + ")");
    }
    if (std::find(metrics.begin(), metrics.end(), *metric) != metrics.end()) {
      return std::unexpected("metric '" + std::string(name) + "' is listed twice");
    }
    metrics.push_back(*metric);
    start = end + 1;
  }
  return metrics;
}

double metric_value(const Outcome& outcome, Metric metric) { return metric_info(metric).value(outcome.readings); }

bool at_floor(const Outcome& outcome, Metric metric, const RssProbe& floors) {
  const double value = metric_value(outcome, metric);
  switch (metric_info(metric).floor) {
  case FloorRule::rss:
    return value <= static_cast<double>(std::max(outcome.rss_floor_bytes, floors.floor_bytes) + k_rss_censor_margin);
  case FloorRule::timer:
    return value < 10 * std::max(util::monotonic_resolution_seconds(), floors.spawn_resolution_seconds);
  case FloorRule::rusage:
    return value <= 0;
  case FloorRule::none:
    return false;
  }
  return false;
}

} // namespace refbench::model
