#include <refbench/model/command_output.hpp>
#include <refbench/report/csv.hpp>

#include <cmath>
#include <fmt/format.h>

namespace refbench::report {
namespace {

std::string csv_number(double value) { return std::isfinite(value) ? fmt::format("{:.9g}", value) : std::string(); }

std::string csv_optional_number(const std::optional<double>& value) {
  return value ? csv_number(*value) : std::string();
}

} // namespace

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(text);
  }
  std::string quoted = "\"";
  for (char c : text) {
    quoted += c;
    if (c == '"') {
      quoted += '"';
    }
  }
  return quoted + "\"";
}

std::string render_csv(const std::vector<analysis::MetricResult>& results) {
  std::string out = "cell,metric,unit,gated,control,n,baseline_median,candidate_median,ratio,ci_low,ci_high,p,p_bh,"
                    "verdict,censored,min_detectable_ratio,noise_floor,kind,difference,diff_ci_low,diff_ci_high,slo,"
                    "baseline_slo_share,candidate_slo_share,candidate,p_improved,p_improved_bh,p_better,p_better_bh\n";
  for (const auto& r : results) {
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},", csv_field(r.cell), csv_field(r.metric),
                       r.unit_label.empty() ? std::string(analysis::unit_name(r.unit)) : csv_field(r.unit_label),
                       r.gated, r.control, r.n, csv_number(r.baseline_median), csv_number(r.candidate_median),
                       csv_number(r.ratio), csv_number(r.ci_low), csv_number(r.ci_high), csv_optional_number(r.p),
                       csv_optional_number(r.p_bh), stats::verdict_name(r.verdict), r.censored,
                       csv_number(r.min_detectable_ratio), csv_optional_number(r.noise_floor));
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", model::metric_kind_name(r.kind),
                       csv_number(r.difference), csv_number(r.diff_low), csv_number(r.diff_high),
                       r.slo ? csv_field(model::slo_text(*r.slo)) : std::string(),
                       csv_optional_number(r.baseline_slo_share), csv_optional_number(r.candidate_slo_share),
                       csv_field(r.candidate), csv_optional_number(r.p_improved), csv_optional_number(r.p_improved_bh),
                       csv_optional_number(r.p_better), csv_optional_number(r.p_better_bh));
  }
  return out;
}

} // namespace refbench::report
