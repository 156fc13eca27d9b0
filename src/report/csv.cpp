#include <refbench/report/csv.hpp>

#include <cmath>
#include <fmt/format.h>

namespace refbench::report {
namespace {

std::string number(double value) { return std::isfinite(value) ? fmt::format("{:.9g}", value) : std::string(); }

std::string optional_number(const std::optional<double>& value) { return value ? number(*value) : std::string(); }

std::string_view unit_name(analysis::Unit unit) {
  switch (unit) {
  case analysis::Unit::seconds:
    return "seconds";
  case analysis::Unit::bytes:
    return "bytes";
  case analysis::Unit::plain:
    break;
  }
  return "plain";
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
                    "verdict,censored,min_detectable_ratio,noise_floor\n";
  for (const auto& r : results) {
    out +=
        fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(r.cell), csv_field(r.metric),
                    r.unit_label.empty() ? std::string(unit_name(r.unit)) : csv_field(r.unit_label), r.gated, r.control,
                    r.n, number(r.baseline_median), number(r.candidate_median), number(r.ratio), number(r.ci_low),
                    number(r.ci_high), optional_number(r.p), optional_number(r.p_bh), stats::verdict_name(r.verdict),
                    r.censored, number(r.min_detectable_ratio), optional_number(r.noise_floor));
  }
  return out;
}

} // namespace refbench::report
