#include <refbench/analysis/from_record.hpp>
#include <refbench/history/series.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/report/verdict_table.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/outside_text.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fnmatch.h>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <span>

namespace refbench::history {
namespace {

bool usable_record(const Record& r) {
  return r.ratio && r.ci_low && r.ci_high && *r.ratio > 0 && *r.ci_low > 0 && *r.ci_high >= *r.ci_low;
}

// The records of one series, newest last in file order, one per pair of
// commits (a rerun of the same pair replaces the earlier record).
std::vector<const Record*> latest_per_pair(const std::vector<const Record*>& records) {
  std::map<std::pair<std::string, std::string>, std::size_t> last;
  for (std::size_t i = 0; i < records.size(); ++i) {
    last[{records[i]->baseline.sha, records[i]->candidate.sha}] = i;
  }
  std::vector<const Record*> kept;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (last.at({records[i]->baseline.sha, records[i]->candidate.sha}) == i) {
      kept.push_back(records[i]);
    }
  }
  return kept;
}

// Walking back from the newest record through "its baseline is an earlier
// link's candidate": the chain in commit order (never a commit twice).
std::vector<const Record*> chain_back(const std::vector<const Record*>& records) {
  std::map<std::string, const Record*> by_candidate; // the newest record per candidate commit
  for (const auto* r : records) {
    by_candidate[r->candidate.sha] = r;
  }
  std::vector<const Record*> chain{records.back()};
  std::set<std::string> seen{records.back()->candidate.sha};
  for (auto it = by_candidate.find(chain.back()->baseline.sha);
       it != by_candidate.end() && seen.insert(it->second->candidate.sha).second;
       it = by_candidate.find(chain.back()->baseline.sha)) {
    chain.push_back(it->second);
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

// A log-ratio turned so that larger is worse: as it is for lower-is-better
// metrics, negated for higher-is-better ones (a falling throughput).
double worse(double log_ratio, bool higher_is_better) { return higher_is_better ? -log_ratio : log_ratio; }

// The verdict of a (cumulative) interval [low, high] against `threshold`:
// a chain's REGRESSION is a creep when none of its `links` was one.
std::string verdict_of(double ci_low, double ci_high, double threshold, bool higher_is_better, bool chained,
                       std::span<const Point> links) {
  const double t = std::log(threshold);
  const double low = worse(std::log(higher_is_better ? ci_high : ci_low), higher_is_better);
  const double high = worse(std::log(higher_is_better ? ci_low : ci_high), higher_is_better);
  const bool link_regressed =
      std::any_of(links.begin(), links.end(), [](const Point& p) { return p.record->verdict == "REGRESSION"; });
  if (low > t) {
    return chained && !link_regressed ? "REGRESSION (creep)" : "REGRESSION";
  }
  return high < t ? "PASS" : "INCONCLUSIVE";
}

// The threshold the series' newest run judged its row at, when that was
// the row's own (a counted metric, a suite's count, a cell's override).
std::optional<double> own_threshold(const Series& s) {
  if (s.points.empty() || !s.points.back().record->threshold || !(*s.points.back().record->threshold > 1)) {
    return std::nullopt;
  }
  return s.points.back().record->threshold;
}

// The verdicts of `s`, the whole chain's and its window's, and for a creep
// the three points that moved most in the bad direction.
void decide(Series& s, std::span<const stats::Link> links, const SeriesSettings& settings, bool higher_is_better) {
  s.threshold = own_threshold(s).value_or(analysis::counted_metric(s.metric) ? model::k_default_count_threshold
                                                                             : settings.threshold);
  s.verdict = verdict_of(s.ci_low, s.ci_high, s.threshold, higher_is_better, s.chained, s.points);
  s.window = {0, s.ratio, s.ci_low, s.ci_high, s.verdict};
  if (s.chained) {
    const std::size_t n = settings.window == 0 ? links.size() : std::min(settings.window, links.size());
    const auto last = stats::chain(links.last(n));
    s.window = {n, std::exp(last.estimate), std::exp(last.low), std::exp(last.high), ""};
    s.window.verdict = verdict_of(s.window.ci_low, s.window.ci_high, s.threshold, higher_is_better, true,
                                  std::span<const Point>(s.points).last(n));
  }
  if (s.verdict == "REGRESSION (creep)") { // the links that moved most in the bad direction
    std::vector<std::size_t> order(s.points.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return worse(s.points[a].log_ratio, higher_is_better) > worse(s.points[b].log_ratio, higher_is_better);
    });
    order.resize(std::min<std::size_t>(3, order.size()));
    s.moved_most = order;
  }
}

// A change point at point `index` of `s`, from `before` to `after` (log units).
SeriesChangePoint change_at(const Series& s, std::size_t index, double before, double after, double p) {
  const auto& r = *s.points[index].record;
  return {r.candidate.sha, index, std::exp(before), std::exp(after), p, *r.ratio, *r.ci_low, *r.ci_high};
}

// The change points of `s` (docs/manual/history.md): a chain's links that
// stand out of it; a fixed baseline's E-divisive splits of its levels.
void find_change_points(Series& s, std::span<const stats::Link> links, const SeriesSettings& settings) {
  if (s.chained) {
    for (const auto& step : stats::link_steps(links, settings.alpha)) {
      const double before = step.index == 0 ? 0.0 : s.points[step.index - 1].level;
      s.change_points.push_back(change_at(s, step.index, before, s.points[step.index].level, step.p));
    }
    return;
  }
  std::vector<double> levels;
  for (const auto& p : s.points) {
    levels.push_back(p.level);
  }
  for (const auto& c : stats::e_divisive(levels, {settings.alpha, 3, settings.permutations, settings.seed})) {
    s.change_points.push_back(change_at(s, c.index, c.before, c.after, c.p));
  }
}

Series series_of(const std::vector<const Record*>& all, const SeriesSettings& settings) {
  const auto records = latest_per_pair(all);
  Series s;
  s.cell = records.back()->cell;
  s.metric = records.back()->metric;
  s.unit = records.back()->unit;
  s.gated = records.back()->gated;
  auto chain = chain_back(records);
  s.chained = chain.size() >= 2;
  if (!s.chained) { // a fixed baseline: the records measured against the newest one's
    chain.clear();
    for (const auto* r : records) {
      if (r->baseline.sha == records.back()->baseline.sha) {
        chain.push_back(r);
      }
    }
  }
  std::vector<stats::Link> links;
  double level = 0;
  for (const auto* r : chain) {
    const double log_ratio = std::log(*r->ratio);
    links.push_back({log_ratio, std::log(*r->ci_low), std::log(*r->ci_high), r->n});
    level = s.chained ? level + log_ratio : log_ratio;
    s.points.push_back({r, log_ratio, level, 0, 0});
  }
  const auto total = s.chained ? stats::chain(links) : links.back();
  s.ratio = std::exp(total.estimate);
  s.ci_low = std::exp(total.low);
  s.ci_high = std::exp(total.high);
  std::vector<double> levels;
  for (const auto& p : s.points) {
    levels.push_back(p.level);
  }
  const auto band = stats::ewma(levels, 10);
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    s.points[i].ewma = band.mean[i];
    s.points[i].sd = band.sd[i];
  }
  find_change_points(s, links, settings);
  decide(s, links, settings, chain.back()->higher_is_better);
  return s;
}

std::string short_sha(const std::string& sha) { return sha.substr(0, 7); }

// "`1a2b3c4` (v1.2.0)": a commit and the ref it was measured as.
std::string commit_text(const Record& r) {
  return util::markdown_code(short_sha(r.candidate.sha)) +
         (r.candidate.ref.empty() || r.candidate.ref == r.candidate.sha
              ? ""
              : " (" + util::markdown_text(r.candidate.ref) + ")");
}

std::string ratio_text(double ratio, double low, double high) {
  return fmt::format("{:.3f}x [{:.3f}, {:.3f}]", ratio, low, high);
}

} // namespace

std::vector<Series> build_series(const std::vector<Record>& records, const SeriesSettings& settings) {
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, std::vector<const Record*>> by_key;
  for (const auto& r : records) {
    if (!usable_record(r)) {
      continue;
    }
    const std::pair key{r.cell, r.metric};
    if (!by_key.contains(key)) {
      order.push_back(key);
    }
    by_key[key].push_back(&r);
  }
  for (const auto& glob : settings.cells) {
    if (std::none_of(order.begin(), order.end(),
                     [&](const auto& key) { return ::fnmatch(glob.c_str(), key.first.c_str(), 0) == 0; })) {
      throw UsageError(fmt::format("--cells '{}' matches no cell of the history", util::printable(glob)),
                       "list the cells with `refbench history DIR --format json`");
    }
  }
  std::vector<Series> series;
  for (const auto& key : order) {
    const bool selected =
        settings.cells.empty() || std::any_of(settings.cells.begin(), settings.cells.end(), [&](const auto& glob) {
          return ::fnmatch(glob.c_str(), key.first.c_str(), 0) == 0;
        });
    if (selected) {
      series.push_back(series_of(by_key.at(key), settings));
    }
  }
  return series;
}

std::optional<BandPosition> band_position(const Series& series, double ratio, std::size_t window) {
  if (series.points.empty() || !(ratio > 0)) {
    return std::nullopt;
  }
  const std::size_t n = window == 0 ? series.points.size() : std::min(window, series.points.size());
  std::vector<double> logs;
  for (const auto& p : std::span<const Point>(series.points).last(n)) {
    logs.push_back(p.log_ratio);
  }
  const auto band = stats::ewma(logs, 10);
  const double mean = band.mean.back();
  const double sd = band.sd.back();
  return BandPosition{std::exp(mean), sd, sd > 0 ? (std::log(ratio) - mean) / sd : 0.0, logs.size()};
}

namespace {

nlohmann::json points_json(const Series& s) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : s.points) {
    const auto& r = *p.record;
    points.push_back({{"baseline", {{"ref", r.baseline.ref}, {"sha", r.baseline.sha}}},
                      {"candidate", {{"ref", r.candidate.ref}, {"sha", r.candidate.sha}}},
                      {"time", r.time},
                      {"ratio", *r.ratio},
                      {"ci_low", *r.ci_low},
                      {"ci_high", *r.ci_high},
                      {"verdict", r.verdict},
                      {"level", std::exp(p.level)},
                      {"ewma", std::exp(p.ewma)},
                      {"ewma_sd", p.sd},
                      {"line", r.line}});
  }
  return points;
}

nlohmann::json series_json(const Series& s) {
  nlohmann::json changes = nlohmann::json::array();
  for (const auto& c : s.change_points) {
    changes.push_back({{"sha", c.sha},
                       {"index", c.index},
                       {"before", c.before},
                       {"after", c.after},
                       {"p", c.p},
                       {"ratio", c.ratio},
                       {"ci_low", c.ci_low},
                       {"ci_high", c.ci_high}});
  }
  std::vector<std::string> moved;
  for (std::size_t i : s.moved_most) {
    moved.push_back(s.points[i].record->candidate.sha);
  }
  return {{"cell", s.cell},
          {"metric", s.metric},
          {"gated", s.gated},
          {"chained", s.chained},
          {"links", s.chained ? s.points.size() : 0},
          {"cumulative_ratio", s.ratio},
          {"cumulative_ci_low", s.ci_low},
          {"cumulative_ci_high", s.ci_high},
          {"verdict", s.verdict},
          {"threshold", s.threshold},
          {"window",
           {{"links", s.window.links},
            {"cumulative_ratio", s.window.ratio},
            {"cumulative_ci_low", s.window.ci_low},
            {"cumulative_ci_high", s.window.ci_high},
            {"verdict", s.window.verdict}}},
          {"moved_most", moved},
          {"change_points", changes},
          {"points", points_json(s)}};
}

// `value` dumped to `out` with an indent of two, every line after the first indented by `by` more.
void write_indented(std::ostream& out, const nlohmann::json& value, std::size_t by) {
  const std::string text = value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::string indent(by, ' ');
  std::size_t from = 0;
  for (std::size_t at = text.find('\n'); at != std::string::npos; from = at + 1, at = text.find('\n', from)) {
    out.write(text.data() + from, static_cast<std::streamsize>(at + 1 - from));
    out << indent;
  }
  out.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
}

} // namespace

void write_history_json(std::ostream& out, const std::vector<Series>& series,
                        const std::vector<std::string>& warnings) {
  out << "{\n  \"series\": [";
  for (std::size_t i = 0; i < series.size(); ++i) {
    out << (i == 0 ? "\n    " : ",\n    ");
    write_indented(out, series_json(series[i]), 4);
  }
  out << (series.empty() ? "],\n" : "\n  ],\n") << "  \"warnings\": ";
  write_indented(out, nlohmann::json(warnings), 2);
  out << "\n}\n";
}

std::string render_history_markdown(const std::vector<Series>& series, const std::vector<std::string>& warnings,
                                    double threshold) {
  const auto creeps = std::count_if(series.begin(), series.end(),
                                    [](const Series& s) { return s.window.verdict == "REGRESSION (creep)"; });
  const auto regressions =
      std::count_if(series.begin(), series.end(), [](const Series& s) { return s.window.verdict == "REGRESSION"; });
  std::string out =
      fmt::format("### refbench history: {} · {} series · threshold {:.2f}x\n\n",
                  creeps + regressions == 0
                      ? std::string("✅ no regression")
                      : fmt::format("❌ {} regression{}{}", creeps + regressions, creeps + regressions == 1 ? "" : "s",
                                    creeps > 0 ? fmt::format(" ({} creep)", creeps) : ""),
                  series.size(), threshold);
  out += "| cell | metric | points | from → to | ratio (95% CI) | verdict | last links: ratio (95% CI) | verdict "
         "| moved most | change points |\n"
         "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& s : series) {
    std::string moved;
    for (std::size_t i : s.moved_most) {
      const auto& p = s.points[i];
      moved += fmt::format("{}{} {:.3f}x", moved.empty() ? "" : ", ", commit_text(*p.record), std::exp(p.log_ratio));
    }
    std::string changes;
    for (const auto& c : s.change_points) { // a chain: the link's own ratio; a fixed baseline: the level's shift
      changes += fmt::format("{}{} {}", changes.empty() ? "" : ", ", commit_text(*s.points[c.index].record),
                             s.chained ? ratio_text(c.ratio, c.ci_low, c.ci_high)
                                       : fmt::format("{:.3f}x → {:.3f}x", c.before, c.after));
    }
    const std::string window = s.chained ? fmt::format("{} links: {}", s.window.links,
                                                       ratio_text(s.window.ratio, s.window.ci_low, s.window.ci_high))
                                         : "—";
    out += fmt::format("| {} | {} | {}{} | {} → {} | {} | {} | {} | {} | {} | {} |\n", util::markdown_text(s.cell),
                       util::markdown_text(s.metric), s.points.size(), s.chained ? " links" : "",
                       util::markdown_code(short_sha(s.points.front().record->baseline.sha)),
                       util::markdown_code(short_sha(s.points.back().record->candidate.sha)),
                       ratio_text(s.ratio, s.ci_low, s.ci_high), s.verdict, window, s.window.verdict,
                       moved.empty() ? "—" : moved, changes.empty() ? "—" : changes);
  }
  for (const auto& s : series) {
    if (!s.gated || s.points.size() < 2) {
      continue;
    }
    std::string labels;
    std::string level;
    std::string ewma;
    std::string upper;
    std::string lower;
    for (const auto& p : s.points) {
      labels += fmt::format("{}\"{}\"", labels.empty() ? "" : ", ", short_sha(p.record->candidate.sha));
      const auto number = [](double log_value) { return fmt::format("{:.4f}", std::exp(log_value)); };
      level += (level.empty() ? "" : ", ") + number(p.level);
      ewma += (ewma.empty() ? "" : ", ") + number(p.ewma);
      upper += (upper.empty() ? "" : ", ") + number(p.ewma + 2 * p.sd);
      lower += (lower.empty() ? "" : ", ") + number(p.ewma - 2 * p.sd);
    }
    const std::string title =
        util::replace_all(util::printable(s.cell + " " + s.metric + (s.chained ? " (cumulative)" : "")), "\"", "'");
    out +=
        fmt::format("\n**{} {}**{}\n\n", util::markdown_code(s.cell), util::markdown_text(s.metric),
                    s.chained ? " — cumulative ratio since the first night; EWMA and ±2σ" : " — ratio; EWMA and ±2σ");
    out += util::markdown_code_block(fmt::format("xychart-beta\n  title \"{}\"\n  x-axis [{}]\n  y-axis \"ratio\"\n"
                                                 "  line [{}]\n  line [{}]\n  line [{}]\n  line [{}]\n",
                                                 title, labels, level, ewma, upper, lower),
                                     "mermaid");
  }
  if (!warnings.empty()) {
    out += "\n**Skipped lines**\n\n";
    for (const auto& warning : warnings) {
      out += "- " + util::markdown_text(warning) + "\n";
    }
  }
  return out;
}

} // namespace refbench::history
