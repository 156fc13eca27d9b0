#pragma once
// What a history says per (cell, metric) (docs/manual/history.md): the
// chain of same-machine links and its cumulative ratio, creep, the EWMA
// band and change points; rendered as Markdown, JSON and a self-contained
// HTML page.

#include <refbench/analysis/analysis.hpp>
#include <refbench/history/history.hpp>
#include <refbench/stats/trend.hpp>

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace refbench::history {

// One point of a series: a record, and where the series stood after it.
struct Point {
  const Record* record = nullptr;
  double log_ratio = 0; // the record's own candidate/baseline
  double level = 0;     // a chain: the cumulative log-ratio so far; else log_ratio
  double ewma = 0;      // of the levels, with its standard deviation
  double sd = 0;
};

// A change point. Of a chain: a link that stands out (its candidate
// commit; `before` and `after` the cumulative ratio on either side of it;
// `p` its Benjamini–Hochberg adjusted p). Of a fixed baseline: an
// E-divisive split (the commit of the first point after it; the level's
// mean on either side; its permutation p). `ratio`, `ci_low`, `ci_high`:
// that point's own ratio and interval.
struct SeriesChangePoint {
  std::string sha;
  std::size_t index = 0;
  double before = 1;
  double after = 1;
  double p = 1;
  double ratio = 1;
  double ci_low = 1;
  double ci_high = 1;
};

// The creep verdict over a chain's last links (all of them when it has no
// more), as the whole chain's is made; of a fixed baseline, links = 0 and
// the last record's ratio and verdict.
struct Window {
  std::size_t links = 0;
  double ratio = 1;
  double ci_low = 1;
  double ci_high = 1;
  std::string verdict;
};

struct Series {
  std::string cell;
  std::string metric;
  std::string unit;
  bool gated = false;
  bool chained = false; // each link's baseline is the previous link's candidate
  std::vector<Point> points;
  // a chain: the cumulative ratio from the first baseline to the last
  // candidate with its 95 % interval; a fixed baseline: the last record's
  double ratio = 1;
  double ci_low = 1;
  double ci_high = 1;
  std::string verdict; // PASS, INCONCLUSIVE, REGRESSION, REGRESSION (creep)
  // What its verdicts were judged against: the settings' threshold, or for
  // a counted metric (instructions, allocations) the count threshold.
  double threshold = model::k_default_threshold;
  std::vector<std::size_t> moved_most; // a creep's points that moved most, most first
  std::vector<SeriesChangePoint> change_points;
  Window window; // what exit 1 follows
};

// The links the creep window reads unless told otherwise (`--window`,
// [history] window); 0 means the whole chain.
inline constexpr std::size_t k_default_window = 30;

struct SeriesSettings {
  double threshold = model::k_default_threshold;
  double alpha = analysis::k_default_alpha; // of the change points, links and E-divisive splits alike
  std::size_t window = k_default_window;
  std::size_t permutations = stats::k_default_permutations; // per E-divisive test
  std::vector<std::string> cells;                           // globs; empty: every cell
  std::uint64_t seed = 1;                                   // of the change points' permutation tests
};

// The series of `records` (records without a ratio and interval left out),
// one per (cell, metric) in the order first seen. A series chains when
// walking back from its newest record through "this baseline was the
// previous candidate" gives two or more links (the order is the commits',
// whatever the records' times say); otherwise its records that share the
// newest one's baseline form a fixed-baseline series in file order.
// Change points: a chain's links that stand out of it (stats::link_steps
// at `alpha`), a fixed baseline's E-divisive splits of its levels.
// Throws UsageError when a glob of `settings.cells` matches no series.
std::vector<Series> build_series(const std::vector<Record>& records, const SeriesSettings& settings);

// Where a pull request's `ratio` sits among the series' own ratios of its
// last `window` points (each point's candidate/baseline, a night's change
// for a chain; 0: all of them): the EWMA (span 10) of their logs at the
// newest point with its standard deviation (log units), and the ratio's
// distance from it in deviations (0 when the deviation is 0). None for a
// series without points.
struct BandPosition {
  double ewma = 1; // as a ratio
  double sd = 0;
  double z = 0;
  std::size_t points = 0;
};
std::optional<BandPosition> band_position(const Series& series, double ratio, std::size_t window = k_default_window);

// "### refbench history: …", a table of every series and a Mermaid
// xychart-beta per gated series; `warnings` (skipped lines) are listed.
std::string render_history_markdown(const std::vector<Series>& series, const std::vector<std::string>& warnings,
                                    double threshold);

// {"series": [{cell, metric, links, cumulative_ratio, cumulative_ci_low,
// cumulative_ci_high, verdict, window: {links, cumulative_ratio,
// cumulative_ci_low, cumulative_ci_high, verdict}, moved_most,
// change_points, points}], "warnings": […]}
// Written to `out` a series at a time (a history of years is never one
// document in memory), indented as nlohmann::json's dump(2).
void write_history_json(std::ostream& out, const std::vector<Series>& series, const std::vector<std::string>& warnings);

// One self-contained HTML page (inline SVG, no script, no network): per
// series a chart of the levels with the EWMA ±1σ/±2σ band, the change
// points marked and each point's commit in an SVG <title>.
std::string render_history_html(const std::vector<Series>& series, const std::vector<std::string>& warnings,
                                double threshold);

} // namespace refbench::history
