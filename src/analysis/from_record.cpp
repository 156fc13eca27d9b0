#include <refbench/analysis/from_record.hpp>
#include <refbench/model/suite_rows.hpp>
#include <refbench/stats/bootstrap.hpp>
#include <refbench/stats/signed_rank.hpp>

#include <algorithm>
#include <fmt/format.h>

namespace refbench::analysis {
namespace {

std::string failure_text(const model::CellRecord& cell, const model::CellFailure& failure) {
  return fmt::format("{} {} {}", model::failure_subject(cell, failure), failure.description,
                     model::failure_when(failure));
}

// Per reading, whether it is at or past `metric`'s censor_above or
// censor_below; empty when it has neither.
std::vector<bool> past_limit(const model::CustomMetric& metric, const std::vector<double>& values) {
  if (!metric.censor_above && !metric.censor_below) {
    return {};
  }
  std::vector<bool> flags;
  for (double v : values) {
    flags.push_back((metric.censor_above && v >= *metric.censor_above) ||
                    (metric.censor_below && v <= *metric.censor_below));
  }
  return flags;
}

// "censor_above = 10000", "censor_below = 1", both joined by " or ", or "".
std::string censor_limit_text(const model::CustomMetric& metric) {
  std::string text;
  if (metric.censor_above) {
    text = fmt::format("censor_above = {}", *metric.censor_above);
  }
  if (metric.censor_below) {
    text += fmt::format("{}censor_below = {}", text.empty() ? "" : " or ", *metric.censor_below);
  }
  return text;
}

// Whether a gated count metric's difference interval is narrow enough to
// fall on one side of max_increase: half-width ≤ max_increase / 2 (a
// max_increase of 0 asks for an interval of one point, such as a count that
// stays 0). Like the ratio's rule, it looks at the width, never the place.
bool count_precise(const model::PairedValues& values, const model::CustomMetric& metric, const Settings& settings) {
  std::vector<double> d;
  for (std::size_t i = 0; i < std::min(values.baseline.size(), values.candidate.size()); ++i) {
    d.push_back(values.candidate[i] - values.baseline[i]);
  }
  if (d.size() < settings.min_rounds) {
    return false;
  }
  auto interval = stats::signed_rank_interval_inverted(d, settings.confidence);
  return interval.reaches_confidence && interval.half_width() <= metric.max_increase / 2;
}

} // namespace

namespace {

// A suite cell is precise when each of its rows is, on the measures it gates.
bool suite_precise(const model::RunRecord& record, std::size_t cell, double precision, const Settings& settings) {
  model::RunRecord one;
  one.cells = {record.cells[cell]};
  for (const auto& sample : record.samples) {
    if (sample.cell == cell) {
      one.samples.push_back(sample);
      one.samples.back().cell = 0;
    }
  }
  const auto rows = model::suite_rows(one).record;
  for (std::size_t r = 0; r < rows.cells.size(); ++r) {
    if (!rows.cells[r].meta.candidate_only && !rows.cells[r].failure &&
        !precise_enough(rows, r, {}, precision, settings)) {
      return false;
    }
  }
  return true;
}

} // namespace

CellSamples cell_samples_of(const model::RunRecord& record, std::size_t c, const std::vector<model::Metric>& metrics,
                            const std::vector<model::Metric>& gated, const std::map<std::string, double>& thresholds,
                            const model::SampleIndex* index) {
  const auto& cell = record.cells[c];
  CellSamples samples{cell.name, cell.control, std::nullopt, {}};
  samples.candidate_only = cell.meta.candidate_only;
  samples.candidate = cell.meta.candidate;
  if (!cell.meta.benchmark.empty()) { // a suite's row: the control's row of the same benchmark is its floor
    samples.floor_key = model::suite_of_row(cell) + "/" + cell.meta.benchmark;
  }
  if (cell.failure) {
    samples.error = failure_text(cell, *cell.failure);
  }
  for (model::Metric metric : metrics) {
    auto pairs = samples.candidate_only ? model::candidate_values(record, c, metric, "", index)
                                        : model::complete_pairs(record, c, metric, index);
    MetricSamples m;
    const auto& info = model::metric_info(metric);
    m.metric = std::string(info.name);
    m.unit = info.unit;
    m.direction = info.direction;
    m.kind = info.kind;
    m.counted = model::counted(info);
    m.unit_label = std::string(info.label);
    m.gated = std::find(gated.begin(), gated.end(), metric) != gated.end();
    m.baseline = std::move(pairs.baseline);
    m.candidate = std::move(pairs.candidate);
    m.baseline_at_floor = std::move(pairs.baseline_at_floor);
    m.candidate_at_floor = std::move(pairs.candidate_at_floor);
    if (auto it = thresholds.find(m.metric); it != thresholds.end()) {
      m.threshold = it->second;
    }
    samples.metrics.push_back(std::move(m));
  }
  const auto& meta = cell.meta;
  auto listed = [](const std::optional<std::vector<std::string>>& names, const std::string& name) {
    return names && std::find(names->begin(), names->end(), name) != names->end();
  };
  for (const auto& custom : meta.custom) {
    if (meta.metrics && !listed(meta.metrics, custom.name)) {
      continue;
    }
    auto pairs = samples.candidate_only ? model::candidate_values(record, c, {}, custom.name, index)
                                        : model::complete_pairs(record, c, custom.name, index);
    MetricSamples m;
    m.metric = custom.name;
    m.unit = custom.base;
    m.counted = custom.counted;
    m.unit_label = custom.unit;
    m.direction = custom.higher_is_better ? Direction::higher_is_better : Direction::lower_is_better;
    m.gated = listed(meta.gate, custom.name);
    m.kind = custom.kind;
    m.max_increase = custom.max_increase;
    m.slo = custom.slo;
    m.censor_limit = censor_limit_text(custom);
    m.baseline_at_floor = past_limit(custom, pairs.baseline);
    m.candidate_at_floor = past_limit(custom, pairs.candidate);
    m.baseline = std::move(pairs.baseline);
    m.candidate = std::move(pairs.candidate);
    if (auto it = thresholds.find(m.metric); it != thresholds.end()) {
      m.threshold = it->second;
    }
    samples.metrics.push_back(std::move(m));
  }
  return samples;
}

std::vector<CellSamples> cell_samples(const model::RunRecord& record, const std::vector<model::Metric>& metrics,
                                      const std::vector<model::Metric>& gated) {
  std::vector<CellSamples> cells;
  const model::SampleIndex index(record);
  for (std::size_t c = 0; c < record.cells.size(); ++c) {
    const auto& meta = record.cells[c].meta;
    if (!meta.benchmark.empty()) { // a suite's row: its metrics are the harness's measures, whatever their names
      cells.push_back(cell_samples_of(record, c, {}, {}, meta.threshold, &index));
      continue;
    }
    cells.push_back(cell_samples_of(record, c, metrics_named(meta.metrics, metrics), metrics_named(meta.gate, gated),
                                    meta.threshold, &index));
  }
  return cells;
}

std::vector<model::Metric> metrics_named(const std::optional<std::vector<std::string>>& names,
                                         const std::vector<model::Metric>& fallback) {
  if (!names) {
    return fallback;
  }
  std::vector<model::Metric> metrics;
  for (const auto& name : *names) {
    if (auto metric = model::parse_metric(name)) {
      metrics.push_back(*metric);
    }
  }
  return metrics;
}

bool counted_metric(std::string_view name) {
  const auto metric = model::parse_metric(name);
  return metric && model::counted(model::metric_info(*metric));
}

bool precise_enough(const model::RunRecord& record, std::size_t cell, const std::vector<model::Metric>& gated,
                    double precision, const Settings& settings) {
  if (record.cells[cell].meta.suite && record.cells[cell].meta.benchmark.empty()) {
    return suite_precise(record, cell, precision, settings);
  }
  std::vector<model::PairedValues> metrics;
  for (model::Metric metric : gated) {
    auto pairs = model::complete_pairs(record, cell, metric);
    if (!model::counted(model::metric_info(metric)) || !model::fixed_counts(pairs.baseline, pairs.candidate)) {
      metrics.push_back(std::move(pairs)); // fixed counts are exact: precise as they are
    }
  }
  const auto& meta = record.cells[cell].meta;
  for (const auto& custom : meta.custom) {
    if (meta.gate && std::find(meta.gate->begin(), meta.gate->end(), custom.name) != meta.gate->end()) {
      if (custom.counted) {
        if (auto pairs = model::complete_pairs(record, cell, custom.name);
            model::fixed_counts(pairs.baseline, pairs.candidate)) {
          continue;
        }
      }
      if (custom.kind == model::MetricKind::count) {
        if (!count_precise(model::complete_pairs(record, cell, custom.name), custom, settings)) {
          return false;
        }
        continue;
      }
      metrics.push_back(model::complete_pairs(record, cell, custom.name));
    }
  }
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    // the half-width of an interval of d does not depend on its direction
    auto d = log_ratios(metrics[m].baseline, metrics[m].candidate, Direction::lower_is_better);
    if (d.size() < settings.min_rounds) {
      return false;
    }
    auto interval = settings.interval == IntervalMethod::bootstrap
                        ? stats::bca_bootstrap_interval(d, settings.confidence, interval_seed(settings.seed, cell, m))
                        : stats::signed_rank_interval(d, settings.confidence);
    if (!interval.reaches_confidence || interval.half_width() > precision) {
      return false;
    }
  }
  return true;
}

} // namespace refbench::analysis
