#include <refbench/model/record.hpp>
#include <refbench/report/explanations.hpp>
#include <refbench/report/forest_plot.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/report/markdown_details.hpp>
#include <refbench/report/overview.hpp>
#include <refbench/report/sweep.hpp>
#include <refbench/report/units.hpp>
#include <refbench/report/verdict_table.hpp>
#include <refbench/util/outside_text.hpp>
#include <refbench/util/shell_words.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <iterator>
#include <numeric>
#include <optional>

namespace refbench::report {
namespace {

using analysis::MetricResult;

constexpr std::size_t k_plot_width = 72;

std::string counted(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// ---- headline -------------------------------------------------------------

// The names of the cells that failed: ERROR results and cells with a failure.
std::vector<std::string> failed_cells(const RunDocument& document) {
  std::vector<std::string> names;
  auto add = [&](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(name);
    }
  };
  for (const auto& cell : document.record.cells) {
    if (cell.failure || cell.stop == model::StopReason::error) {
      add(cell.name);
    }
  }
  for (const auto& r : document.results) {
    if (r.verdict == stats::Verdict::error) {
      add(r.cell);
    }
  }
  return names;
}

std::string verdict_words(const RunDocument& document) {
  auto count = [&](stats::Verdict verdict) {
    return static_cast<std::size_t>(
        std::count_if(document.results.begin(), document.results.end(),
                      [&](const MetricResult& r) { return r.gated && !r.control && r.verdict == verdict; }));
  };
  if (document.verdict == analysis::RunVerdict::regression) {
    return "❌ " + counted(count(stats::Verdict::regression), "regression", "regressions");
  }
  if (document.verdict == analysis::RunVerdict::error) {
    return "💥 " + counted(failed_cells(document).size(), "cell", "cells") + " failed";
  }
  if (document.verdict == analysis::RunVerdict::pass) {
    return "✅ no regression";
  }
  if (analysis::every_cell_new(document.results)) {
    return "⚠️ inconclusive: nothing compared, every cell is NEW";
  }
  const std::size_t undecided = count(stats::Verdict::inconclusive);
  return undecided == 0 ? "⚠️ inconclusive: no results"
                        : "⚠️ inconclusive: " + counted(undecided, "metric", "metrics") + " undecided";
}

// ---- summary line -----------------------------------------------------------

std::string floor_text(const RunDocument& document) {
  const auto& results = document.results;
  if (std::none_of(results.begin(), results.end(), [](const MetricResult& r) { return r.control; })) {
    return "noise floor unknown (no A/A control)";
  }
  // the wall floor; a control without wall (a service cell gated on its own
  // metrics) gives the floor of its first metric, named
  auto floored = std::find_if(results.begin(), results.end(),
                              [](const MetricResult& r) { return r.control && r.metric == "wall" && r.noise_floor; });
  if (floored == results.end()) {
    floored = std::find_if(results.begin(), results.end(), [](const MetricResult& r) {
      return r.control && r.noise_floor && r.kind == model::MetricKind::ratio; // a count's floor is no ratio
    });
  }
  if (floored == results.end()) {
    return "noise floor unknown (the A/A control has no interval)";
  }
  // a suite's control has a floor per benchmark (docs/manual/suites.md): their spread
  std::vector<double> floors;
  for (const auto& r : results) {
    if (r.control && r.metric == floored->metric && r.noise_floor) {
      floors.push_back(*r.noise_floor);
    }
  }
  const double threshold = document.header.settings.threshold;
  const auto named = floored->metric == "wall" ? "" : " (" + util::markdown_text(floored->metric) + ")";
  if (floors.size() == 1) {
    return fmt::format("noise floor ±{:.1f} %{}{}", (floors[0] - 1.0) * 100.0, named,
                       floors[0] >= threshold ? " (≥ threshold: no cell can pass)" : "");
  }
  const auto [low, high] = std::minmax_element(floors.begin(), floors.end());
  const auto wide = std::count_if(floors.begin(), floors.end(), [&](double f) { return f >= threshold; });
  std::string wide_text;
  if (wide == static_cast<std::ptrdiff_t>(floors.size())) {
    wide_text = " (all ≥ threshold: no row can pass)";
  } else if (wide > 0) {
    wide_text = fmt::format(" ({} ≥ threshold: their rows cannot pass)", wide);
  }
  const auto low_text = fmt::format("{:.1f}", (*low - 1.0) * 100.0);
  const auto high_text = fmt::format("{:.1f}", (*high - 1.0) * 100.0);
  const auto spread = low_text == high_text ? "±" + high_text + " %" : "±" + low_text + "–" + high_text + " %";
  return fmt::format("noise floors {}{} over {} A/A rows{}", spread, named, floors.size(), wide_text);
}

std::string rounds_text(const RunDocument& document) {
  std::vector<int> rounds;
  for (const auto& cell : document.record.cells) {
    if (!cell.control) {
      rounds.push_back(cell.rounds);
    }
  }
  if (rounds.empty()) {
    return "";
  }
  auto [low, high] = std::minmax_element(rounds.begin(), rounds.end());
  std::string text = *low == *high ? fmt::format("{} rounds", *low) : fmt::format("rounds {}–{}", *low, *high);
  return document.header.settings.max_rounds ? text + fmt::format(" of max {}", *document.header.settings.max_rounds)
                                             : text;
}

// ---- table trimming -------------------------------------------------------------

// Rows are dropped lowest first: PASS before IMPROVED, CENSORED, INCONCLUSIVE,
// ERROR and REGRESSION; info rows before gated ones, the control's last.
int drop_order(const MetricResult& r) {
  static constexpr stats::Verdict k_order[] = {
      stats::Verdict::pass,         stats::Verdict::improved, stats::Verdict::new_cell,  stats::Verdict::censored,
      stats::Verdict::inconclusive, stats::Verdict::error,    stats::Verdict::regression};
  const int rank = static_cast<int>(std::find(std::begin(k_order), std::end(k_order), r.verdict) - std::begin(k_order));
  return rank * 3 + (r.control ? 2 : r.gated ? 1 : 0);
}

std::string rows_note(const std::vector<MetricResult>& dropped, std::size_t total, std::size_t limit) {
  std::string counts;
  for (auto verdict :
       {stats::Verdict::pass, stats::Verdict::improved, stats::Verdict::new_cell, stats::Verdict::censored,
        stats::Verdict::inconclusive, stats::Verdict::error, stats::Verdict::regression}) {
    auto n = std::count_if(dropped.begin(), dropped.end(), [&](const MetricResult& r) { return r.verdict == verdict; });
    if (n > 0) {
      counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n, stats::verdict_name(verdict));
    }
  }
  return fmt::format("_{} of {} table rows left out to stay under {} bytes ({}). results.json has every row._\n",
                     dropped.size(), total, limit, counts);
}

// The table with as many rows as fit in `room` bytes, and its note.
std::string fitted_table(const std::vector<MetricResult>& results, std::size_t room, std::size_t limit) {
  const bool several = several_candidates(results);
  auto table = [&](const std::vector<MetricResult>& rows) {
    return render_verdict_table(rows, VerdictColour::plain, several);
  };
  const std::size_t header = table({}).size();
  std::vector<std::size_t> order(results.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return drop_order(results[a]) != drop_order(results[b]) ? drop_order(results[a]) < drop_order(results[b]) : a > b;
  });
  std::vector<bool> kept(results.size(), true);
  std::size_t size = table(results).size() + rows_note(results, results.size(), limit).size() + 1;
  for (std::size_t i = 0; i < order.size() && size > room; ++i) {
    kept[order[i]] = false;
    size -= table({results[order[i]]}).size() - header;
  }
  std::vector<MetricResult> shown;
  std::vector<MetricResult> dropped;
  for (std::size_t i = 0; i < results.size(); ++i) {
    (kept[i] ? shown : dropped).push_back(results[i]);
  }
  return table(shown) + "\n" + rows_note(dropped, results.size(), limit);
}

// `text` cut to at most `limit` bytes at a line end (or a character boundary).
std::string cut(std::string text, std::size_t limit) {
  if (text.size() <= limit) {
    return text;
  }
  std::string_view prefix = util::utf8_prefix(text, limit);
  auto newline = prefix.rfind('\n');
  return std::string(newline == prefix.npos ? prefix : prefix.substr(0, newline + 1));
}

// The arm's ref (or command) and commit.
std::string arm_name_text(const ArmInfo& arm) {
  // what a keyword named (the tag of latest-release) says more than the keyword
  const std::string& ref = arm.name.empty() ? arm.ref : arm.name;
  if (ref.empty() && arm.sha.empty()) {
    return util::markdown_code(arm.command);
  }
  const std::string sha = arm.sha.substr(0, 7);
  if (ref.empty() || (!sha.empty() && ref.starts_with(sha))) {
    return util::markdown_code(ref.empty() ? sha : ref);
  }
  return util::markdown_code(ref) + (sha.empty() ? "" : " (" + util::markdown_text(sha) + ")");
}

} // namespace

std::string render_arm(const ArmInfo& arm) {
  std::string text = arm_name_text(arm);
  // docs/manual/config.md#arm-settings: what tells two arms of one build apart
  if (!arm.args.empty() || !arm.env.empty()) {
    std::vector<std::string> added = arm.env;
    added.push_back(util::join_shell_words(arm.args));
    if (arm.args.empty()) {
      added.pop_back();
    }
    text += " with " + util::markdown_code(fmt::format("{}", fmt::join(added, " ")));
  }
  return text;
}

std::string prose_naming(std::string_view text, std::string_view name) {
  std::string out;
  std::size_t at = 0;
  for (auto found = name.empty() ? text.npos : text.find(name); found != text.npos; found = text.find(name, at)) {
    std::size_t start = found;
    std::size_t end = found + name.size();
    if (start > at && text[start - 1] == '`' && end < text.size() && text[end] == '`') {
      --start;
      ++end;
    }
    out += util::markdown_text(text.substr(at, start - at)) + util::markdown_code(name);
    at = end;
  }
  return out + util::markdown_text(text.substr(at));
}

std::string render_headline(const RunDocument& document) {
  std::string line = "### refbench: " + verdict_words(document);
  if (document.header.baseline && document.header.candidates.size() > 1) {
    std::string names;
    for (const auto& arm : document.header.candidates) {
      names += (names.empty() ? "" : ", ") + render_arm(arm);
    }
    line += " · baseline " + render_arm(*document.header.baseline) + " vs candidates " + names;
  } else if (document.header.baseline && document.header.candidate) {
    line += " · baseline " + render_arm(*document.header.baseline) + " vs candidate " +
            render_arm(*document.header.candidate);
  }
  return document.partial ? line + " · ⏸ partial (interrupted)" : line;
}

namespace {

// docs/manual/commands.md#shards: which shards the report covers, and the ones a merge lacks.
std::string shards_text(const ShardsInfo& shards) {
  auto list = [](const std::vector<std::size_t>& indices) {
    std::string out;
    for (std::size_t index : indices) {
      out += (out.empty() ? "" : ", ") + std::to_string(index);
    }
    return out;
  };
  if (!shards.merged) {
    return fmt::format("shard {}/{}: the verdict covers this shard's cells only",
                       shards.indices.empty() ? 0 : shards.indices.front(), shards.count);
  }
  std::vector<std::size_t> missing;
  for (std::size_t index = 1; index <= shards.count; ++index) {
    if (std::find(shards.indices.begin(), shards.indices.end(), index) == shards.indices.end()) {
      missing.push_back(index);
    }
  }
  std::string text = fmt::format("merged shards {} of {}", list(shards.indices), shards.count);
  if (!missing.empty()) {
    text += fmt::format(" · shard{} {} missing: {} cells are not in this report", missing.size() == 1 ? "" : "s",
                        list(missing), missing.size() == 1 ? "its" : "their");
  }
  return text;
}

} // namespace

std::string render_run_summary(const RunDocument& document) {
  std::vector<std::string> parts{floor_text(document),
                                 fmt::format("threshold {:.2f}x", document.header.settings.threshold),
                                 rounds_text(document)};
  if (document.elapsed_seconds) {
    parts.push_back(document.header.settings.budget_seconds
                        ? fmt::format("budget used {} of {}", format_duration(*document.elapsed_seconds),
                                      format_duration(*document.header.settings.budget_seconds))
                        : "measured for " + format_duration(*document.elapsed_seconds));
  }
  if (document.total_seconds) {
    parts.push_back("wall time " + format_duration(*document.total_seconds));
  }
  if (std::any_of(document.results.begin(), document.results.end(), [](const MetricResult& r) { return !r.paired; })) {
    parts.push_back("unpaired data: the samples were not interleaved");
  }
  if (document.partial) {
    parts.push_back("partial: interrupted, the results cover the rounds completed");
  }
  if (const auto shards = shards_of(document)) {
    parts.push_back(shards_text(*shards));
  }
  std::string line;
  for (const auto& part : parts) {
    line += part.empty() ? "" : (line.empty() ? "" : " · ") + part;
  }
  return line;
}

namespace {

// docs/manual/config.md#new-and-removed-cells: the baseline's cells this run's config lacks, under the table.
std::string removed_text(const RunDocument& document) {
  const auto& removed = document.header.removed_cells;
  if (removed.empty()) {
    return "";
  }
  constexpr std::size_t k_named = 50;
  std::string names;
  for (std::size_t i = 0; i < removed.size() && i < k_named; ++i) {
    names += (i == 0 ? "" : ", ") + util::markdown_code(removed[i]);
  }
  return fmt::format("\n**Removed** since the baseline (not measured): {}{}\n", names,
                     removed.size() > k_named ? fmt::format(" and {} more", removed.size() - k_named) : "");
}

// Whether `result` says its metric moved: REGRESSION or IMPROVED.
bool moved(const MetricResult& result) {
  return result.verdict == stats::Verdict::regression || result.verdict == stats::Verdict::improved;
}

// A cell's result for `metric`, if it has one.
const MetricResult* result_for(const RunDocument& document, const MetricResult& of, std::string_view metric) {
  const auto found = std::find_if(document.results.begin(), document.results.end(), [&](const MetricResult& r) {
    return r.cell == of.cell && r.candidate == of.candidate && r.metric == metric;
  });
  return found == document.results.end() ? nullptr : &*found;
}

// Why a cell's wall and instructions disagree, if they do (docs/manual/counters.md): one moved while the other is a
// PASS, or they moved apart.
std::optional<std::string> disagreement(const MetricResult& wall, const MetricResult& counts) {
  if (moved(wall) && counts.verdict == stats::Verdict::pass) {
    return "the change is outside the counted instruction stream — system calls, I/O, cache misses, code layout";
  }
  if (moved(counts) && wall.verdict == stats::Verdict::pass) {
    return "the counted work does not bind the time — it waits on memory, I/O or other processes";
  }
  if (moved(wall) && moved(counts) && wall.verdict != counts.verdict) {
    return "the time follows memory, I/O or instructions per cycle, not the instruction count";
  }
  return std::nullopt;
}

// One line per cell whose wall and instruction counts disagree.
std::string disagreement_text(const RunDocument& document) {
  std::string text;
  for (const auto& counts : document.results) {
    const MetricResult* wall = counts.metric == "instructions" ? result_for(document, counts, "wall") : nullptr;
    const auto why = wall != nullptr && !counts.control ? disagreement(*wall, counts) : std::nullopt;
    if (!why) {
      continue;
    }
    const bool wall_first = moved(*wall);
    const bool explained = std::ranges::any_of(
        document.explanations, [&](const model::Explanation& e) { return e.cell == counts.cell && e.problem.empty(); });
    const MetricResult& first = wall_first ? *wall : counts;
    const MetricResult& second = wall_first ? counts : *wall;
    text += fmt::format(
        "\n**Counts and wall disagree** in {}: {} {} ({}) but {} {} ({}): {}.{}\n",
        util::markdown_code(counts.candidate.empty() ? counts.cell : counts.cell + " · " + counts.candidate),
        util::markdown_text(first.metric), stats::verdict_name(first.verdict), format_ratio(first.ratio),
        util::markdown_text(second.metric), stats::verdict_name(second.verdict), format_ratio(second.ratio), *why,
        explained ? " Which functions moved: **Where** below." : "");
  }
  return text;
}

// A long run's pictures (docs/manual/suites.md, Many rows): the overview of every
// gated row, then the forest plot of the gated rows that did not pass.
std::string render_long_run_plots(const std::vector<MetricResult>& results, double threshold) {
  const std::string overview = render_overview(results, threshold);
  std::vector<MetricResult> moved;
  std::copy_if(results.begin(), results.end(), std::back_inserter(moved),
               [](const MetricResult& r) { return r.gated && r.verdict != stats::Verdict::pass; });
  const std::string forest = render_forest_plot(moved, threshold, k_plot_width);
  return overview + (overview.empty() || forest.empty() ? "" : "\n") + forest;
}

} // namespace

std::string render_markdown(const RunDocument& document, std::size_t limit) {
  const std::string top = "<!-- refbench -->\n" + render_headline(document) + "\n\n";
  const std::string where = render_explanations(document, limit / 3);
  const std::string summary =
      "\n" + render_run_summary(document) + "\n" + removed_text(document) + disagreement_text(document) + where;
  const bool lead = document.results.size() >= k_lead_from_results;
  const std::string head =
      top + (lead ? render_lead_table(document.results) : render_verdict_table(document.results)) + summary;
  const std::string every = lead ? render_all_results(document.results) : "";
  const std::string plot_text =
      lead ? render_long_run_plots(document.results, document.header.settings.threshold)
           : render_forest_plot(document.results, document.header.settings.threshold, k_plot_width);
  const std::string sweeps = render_sweeps(document);
  // the pictures: the forest plot and the sweeps' tables and charts, trimmed together
  const std::string plot = (plot_text.empty() ? "" : "\n" + util::markdown_code_block(plot_text, "text")) + sweeps;

  // the details trimmed step by step, with the plot and then without it;
  // a leading table's collapsed whole table first of all
  for (bool with_every : {true, false}) {
    for (bool with_plot : {true, false}) {
      DetailsPlan plan;
      plan.plot = with_plot || plot.empty();
      do {
        std::string out =
            head + (plan.plot ? plot : "") + (with_every ? every : "") + "\n" + render_details(document, plan, limit);
        if (out.size() <= limit) {
          return out;
        }
      } while (trim_details(plan, document));
      if (every.empty()) {
        break;
      }
    }
    if (every.empty()) {
      break;
    }
  }
  std::vector<std::string> items{"the details"};
  if (!plot_text.empty()) {
    items.insert(items.begin(), lead ? "the overview chart and forest plot" : "the forest plot");
  }
  if (!sweeps.empty()) {
    items.insert(items.begin(), "the sweep tables");
  }
  const std::string note = "\n" + trim_note(items, limit);
  if (head.size() + note.size() <= limit) {
    return head + note;
  }
  const std::size_t fixed = top.size() + summary.size() + note.size();
  const std::string table = fitted_table(document.results, limit > fixed ? limit - fixed : 0, limit);
  return cut(top + table + summary + note, limit);
}

} // namespace refbench::report
