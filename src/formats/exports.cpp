#include <refbench/formats/exports.hpp>
#include <refbench/model/record.hpp>

#include <cmath>
#include <fmt/format.h>

namespace refbench::formats {
namespace {

using analysis::MetricResult;

// What an export holds of `r`: a measured, non-control result with a median.
bool exported(const MetricResult& r) { return !r.control && !r.error && std::isfinite(r.candidate_median) && r.n > 0; }

std::string name_of(const MetricResult& r) { return model::cell_title(r.cell, r.candidate); }

// The candidate's plausible range from the ratio's interval, when it has one.
std::optional<std::pair<double, double>> value_range(const MetricResult& r) {
  if (r.candidate_only || r.kind != model::MetricKind::ratio || !std::isfinite(r.ci_low) || !std::isfinite(r.ci_high) ||
      !(r.baseline_median > 0)) {
    return std::nullopt;
  }
  return std::pair{r.baseline_median * r.ci_low, r.baseline_median * r.ci_high};
}

std::string unit_of(const MetricResult& r) {
  return r.unit == analysis::Unit::seconds ? "s" : r.unit == analysis::Unit::bytes ? "B" : r.unit_label;
}

} // namespace

nlohmann::json to_bmf(const report::RunDocument& document) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& r : document.results) {
    if (!exported(r)) {
      continue;
    }
    nlohmann::json measure{{"value", r.candidate_median}};
    if (auto range = value_range(r)) {
      measure["lower_value"] = range->first;
      measure["upper_value"] = range->second;
    }
    out[name_of(r)][r.metric] = std::move(measure);
  }
  return out;
}

nlohmann::json to_github_action_benchmark(const report::RunDocument& document) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : document.results) {
    if (!exported(r) || r.direction != analysis::Direction::lower_is_better) {
      continue;
    }
    nlohmann::json entry{
        {"name", fmt::format("{} ({})", name_of(r), r.metric)}, {"unit", unit_of(r)}, {"value", r.candidate_median}};
    if (auto range = value_range(r)) {
      entry["range"] = fmt::format("± {:.6g}", (range->second - range->first) / 2);
    }
    out.push_back(std::move(entry));
  }
  return out;
}

} // namespace refbench::formats
