#include <refbench/model/suite_rows.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <fnmatch.h>
#include <map>
#include <set>

namespace refbench::model {
namespace {

// The primary measure of `harness` for a row that has none (a suite that
// failed before reporting): its ERROR needs a metric to stand on.
std::string primary_of(suites::Harness harness) {
  for (const char* measure : {"real_time", "ns_per_op", "time", "mean"}) {
    if (suites::primary_measure(harness, measure)) {
      return measure;
    }
  }
  return "value";
}

CustomMetric measure_metric(const SuiteSpec& suite, const std::string& measure) {
  const auto info = suites::measure_info(suite.harness, measure);
  CustomMetric metric;
  metric.name = measure;
  metric.from = suite.from;
  metric.key = measure;
  metric.higher_is_better = info.higher_is_better;
  metric.unit = info.quantity == suites::Quantity::plain ? info.label : "";
  metric.base = info.quantity == suites::Quantity::time    ? Unit::seconds
                : info.quantity == suites::Quantity::bytes ? Unit::bytes
                                                           : Unit::plain;
  metric.counted = info.counted;
  return metric;
}

// What the samples of one suite cell say of each of its benchmarks.
struct Seen {
  std::vector<std::string> order;                                         // first reported first
  std::map<std::string, std::set<std::string>> measures;                  // by benchmark
  std::map<std::string, std::array<bool, 2>> in_arm;                      // reported by baseline, candidate
  std::map<std::string, std::pair<const Sample*, std::string>> failed;    // first failure
  std::map<std::string, std::pair<const Sample*, std::string>> uncounted; // first reason it has no counts
  std::array<bool, 2> arm_reported{false, false};                         // an arm's harness reported anything
};

Seen seen_in(const RunRecord& record, std::size_t cell) {
  Seen seen;
  const auto& meta = record.cells[cell].meta;
  for (const auto& sample : record.samples) {
    if (sample.cell != cell || sample.round == 0 || !usable(sample)) {
      continue;
    }
    const int arm = sample.arm == Arm::baseline ? 0 : 1;
    for (const auto& benchmark : sample.benchmarks) {
      if (!wanted(meta, benchmark.name)) {
        continue;
      }
      seen.arm_reported[arm] = true;
      if (!seen.in_arm.contains(benchmark.name)) {
        seen.order.push_back(benchmark.name);
      }
      seen.in_arm[benchmark.name][arm] = true;
      for (const auto& [measure, value] : benchmark.values) {
        seen.measures[benchmark.name].insert(measure);
      }
      if (!benchmark.error.empty() && !seen.failed.contains(benchmark.name)) {
        seen.failed[benchmark.name] = {&sample, benchmark.error};
      }
      if (!benchmark.uncounted.empty() && !seen.uncounted.contains(benchmark.name)) {
        seen.uncounted[benchmark.name] = {&sample, benchmark.uncounted};
      }
    }
  }
  return seen;
}

// The sweeps among `names`: a benchmark whose prefix before its last
// "/ARG" another benchmark shares is a level of "CELL/PREFIX/{PARAM}".
std::map<std::string, suites::SweepLevel> sweep_levels(const std::vector<std::string>& names) {
  std::map<std::string, int> prefixes;
  std::map<std::string, suites::SweepLevel> levels;
  for (const auto& name : names) {
    if (auto level = suites::sweep_level(name)) {
      ++prefixes[level->prefix + "\n" + level->param];
      levels[name] = *level;
    }
  }
  std::erase_if(levels,
                [&](const auto& entry) { return prefixes[entry.second.prefix + "\n" + entry.second.param] < 2; });
  return levels;
}

// The measures of a row: the harness's primary ones first, then the rest by name.
std::vector<std::string> ordered_measures(suites::Harness harness, const std::set<std::string>& measures) {
  std::vector<std::string> ordered;
  for (const auto& m : measures) {
    if (suites::primary_measure(harness, m)) {
      ordered.push_back(m);
    }
  }
  for (const auto& m : measures) {
    if (!suites::primary_measure(harness, m)) {
      ordered.push_back(m);
    }
  }
  return ordered;
}

CellMeta row_meta(const CellRecord& cell, const std::string& benchmark, const std::vector<std::string>& measures,
                  const std::map<std::string, suites::SweepLevel>& levels) {
  CellMeta meta = cell.meta;
  const auto& suite = *cell.meta.suite;
  meta.benchmark = benchmark;
  meta.rows.clear();
  meta.custom.clear();
  std::vector<std::string> shown;
  std::vector<std::string> gated;
  const auto listed = [](const std::optional<std::vector<std::string>>& names, const std::string& name) {
    return names && std::find(names->begin(), names->end(), name) != names->end();
  };
  const bool all = !cell.meta.metrics || cell.meta.metrics->empty();
  const bool default_gate = !cell.meta.gate || cell.meta.gate->empty();
  for (const auto& measure : measures) {
    if (!all && !listed(cell.meta.metrics, measure)) {
      continue;
    }
    meta.custom.push_back(measure_metric(suite, measure));
    shown.push_back(measure);
    if (default_gate ? suites::primary_measure(suite.harness, measure) : listed(cell.meta.gate, measure)) {
      gated.push_back(measure);
    }
  }
  meta.metrics = shown;
  meta.gate = gated;
  if (auto level = levels.find(benchmark); level != levels.end()) {
    meta.sweep = fmt::format("{}/{}/{{{}}}", cell.name, level->second.prefix, level->second.param);
    meta.params = {{level->second.param, level->second.value}};
  }
  return meta;
}

// The one row of a suite that reported nothing: the cell itself, its
// ERROR on the harness's primary measure.
CellRecord unreported(const CellRecord& cell) {
  CellRecord row = cell;
  const auto measure = primary_of(cell.meta.suite->harness);
  row.meta.custom = {measure_metric(*cell.meta.suite, measure)};
  row.meta.metrics = std::vector<std::string>{measure};
  row.meta.gate = std::vector<std::string>{measure};
  row.meta.rows.clear();
  return row;
}

bool is_suite_cell(const CellRecord& cell) { return cell.meta.suite && cell.meta.benchmark.empty(); }

// A row whose benchmark the harness reported as failed: its ERROR naming it.
void fail_reported_failure(CellRecord& row, const Seen& seen, const std::string& benchmark) {
  if (auto failed = seen.failed.find(benchmark); failed != seen.failed.end() && !row.failure) {
    const Sample& sample = *failed->second.first;
    row.failure = CellFailure{sample.arm,
                              sample.round,
                              fmt::format("reported benchmark `{}` as failed: {}", benchmark, failed->second.second),
                              "",
                              false,
                              ""};
    row.stop = StopReason::error;
  }
}

// docs/manual/suites.md#counts-per-benchmark: a row that lacks a counted measure
// (instructions, allocations) its suite's metrics or gate names would gate
// nothing on it: its ERROR, saying why it has no count.
void fail_uncounted(CellRecord& row, const Seen& seen, const CellRecord& cell, const std::string& benchmark) {
  if (row.failure) {
    return;
  }
  const auto& measures = seen.measures.contains(benchmark) ? seen.measures.at(benchmark) : std::set<std::string>{};
  for (const auto* names : {&cell.meta.gate, &cell.meta.metrics}) {
    if (!*names) {
      continue;
    }
    for (const auto& name : **names) {
      if (!suites::counted_measure(name) || measures.contains(name)) {
        continue;
      }
      const auto why = seen.uncounted.find(benchmark);
      row.failure =
          CellFailure{why != seen.uncounted.end() ? why->second.first->arm : Arm::baseline,
                      why != seen.uncounted.end() ? why->second.first->round : 1,
                      fmt::format("counted no {} per iteration of `{}`: {}", name, benchmark,
                                  why != seen.uncounted.end() ? why->second.second : "no counted round reported it"),
                      "",
                      false,
                      std::string(k_benchmark_count)};
      row.stop = StopReason::error;
      return;
    }
  }
}

// docs/manual/suites.md: a gate that names a measure none of the suite's
// benchmarks reports would gate nothing, so the suite's first row (of
// `rows`, its rows' indices in `out`) is an ERROR that says so, never a pass.
void fail_gate_naming_nothing(RunRecord& out, const std::map<std::string, std::size_t>& rows, const CellRecord& cell,
                              const Seen& seen) {
  if (cell.control || !cell.meta.gate || rows.empty() || seen.measures.empty()) {
    return;
  }
  std::set<std::string> reported;
  for (const auto& [benchmark, measures] : seen.measures) {
    reported.insert(measures.begin(), measures.end());
  }
  for (const auto& name : *cell.meta.gate) {
    if (reported.contains(name)) {
      continue;
    }
    std::string listed;
    for (const auto& measure : reported) {
      listed += (listed.empty() ? "" : ", ") + measure;
    }
    auto& first = out.cells[std::min_element(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
                              return a.second < b.second;
                            })->second];
    if (!first.failure) {
      first.failure = CellFailure{Arm::baseline,
                                  1,
                                  fmt::format("its gate names `{}`, which none of its benchmarks reports (they report "
                                              "{}): it would gate nothing",
                                              name, listed),
                                  "",
                                  false,
                                  ""};
      first.stop = StopReason::error;
    }
    return;
  }
}

} // namespace

bool has_suite_cells(const RunRecord& record) {
  return std::any_of(record.cells.begin(), record.cells.end(), is_suite_cell);
}

SuiteRows suite_rows(const RunRecord& record) {
  SuiteRows rows;
  RunRecord& out = rows.record;
  out.seed = record.seed;
  out.rss = record.rss;
  out.elapsed_seconds = record.elapsed_seconds;
  out.interrupted_by = record.interrupted_by;
  // per input cell: its rows' indices in `out`, by benchmark ("" for a plain cell)
  std::vector<std::map<std::string, std::size_t>> index(record.cells.size());
  for (std::size_t c = 0; c < record.cells.size(); ++c) {
    const auto& cell = record.cells[c];
    if (!is_suite_cell(cell)) {
      index[c][""] = out.cells.size();
      out.cells.push_back(cell);
      continue;
    }
    const Seen seen = seen_in(record, c);
    if (seen.order.empty()) {
      index[c][""] = out.cells.size();
      out.cells.push_back(unreported(cell));
      continue;
    }
    const auto levels = sweep_levels(seen.order);
    const bool both_reported = seen.arm_reported[0] && seen.arm_reported[1];
    for (const auto& benchmark : seen.order) {
      const auto arms = seen.in_arm.at(benchmark);
      if (!cell.control && !cell.meta.candidate_only && both_reported && arms[0] && !arms[1]) {
        rows.removed.push_back(cell_title(cell.name + "/" + benchmark, cell.meta.candidate));
        continue;
      }
      CellRecord row = cell;
      row.name = cell.name + "/" + benchmark;
      const auto measures = seen.measures.contains(benchmark) ? seen.measures.at(benchmark) : std::set<std::string>{};
      row.meta = row_meta(cell, benchmark, ordered_measures(cell.meta.suite->harness, measures), levels);
      row.meta.candidate_only = cell.meta.candidate_only || (!cell.control && both_reported && !arms[0] && arms[1]);
      if (row.meta.custom.empty()) { // reported only as failed
        row.meta = unreported(row).meta;
        row.meta.benchmark = benchmark;
      }
      fail_reported_failure(row, seen, benchmark);
      fail_uncounted(row, seen, cell, benchmark);
      index[c][benchmark] = out.cells.size();
      out.cells.push_back(std::move(row));
    }
    fail_gate_naming_nothing(out, index[c], cell, seen);
  }
  for (const auto& sample : record.samples) {
    const auto& rows_of = index[sample.cell];
    if (!is_suite_cell(record.cells[sample.cell])) {
      Sample copy = sample;
      copy.cell = rows_of.at("");
      out.samples.push_back(std::move(copy));
      continue;
    }
    for (const auto& benchmark : sample.benchmarks) {
      auto row = rows_of.find(benchmark.name);
      if (row == rows_of.end() || !benchmark.error.empty() || !usable(sample)) {
        continue;
      }
      Sample copy;
      copy.cell = row->second;
      copy.arm = sample.arm;
      copy.round = sample.round;
      copy.order = sample.order;
      copy.outcome = sample.outcome;
      copy.values = benchmark.values;
      copy.replica = sample.replica;
      out.samples.push_back(std::move(copy));
    }
  }
  return rows;
}

void to_rows(RunRecord& record, std::vector<std::string>& removed) {
  if (!has_suite_cells(record)) {
    return;
  }
  auto rows = suite_rows(record);
  record = std::move(rows.record);
  for (auto& name : rows.removed) {
    if (std::find(removed.begin(), removed.end(), name) == removed.end()) {
      removed.push_back(std::move(name));
    }
  }
}

std::string suite_of_row(const CellRecord& row) {
  std::string name = row.name;
  if (!row.meta.benchmark.empty() && name.size() > row.meta.benchmark.size() &&
      name.ends_with("/" + row.meta.benchmark)) {
    name.resize(name.size() - row.meta.benchmark.size() - 1);
  }
  if (row.control && name.ends_with(k_control_suffix)) {
    name.resize(name.size() - k_control_suffix.size());
  }
  return name;
}

bool wanted(const CellMeta& meta, const std::string& benchmark) {
  return meta.rows.empty() || std::any_of(meta.rows.begin(), meta.rows.end(), [&](const std::string& glob) {
           return ::fnmatch(glob.c_str(), benchmark.c_str(), 0) == 0;
         });
}

} // namespace refbench::model
