#include <doubles/fake_executor.hpp>
#include <refbench/analysis/from_record.hpp>
#include <refbench/analysis/sensitivity.hpp>
#include <refbench/formats/records.hpp>
#include <refbench/runner/rounds.hpp>

#include <cmath>
#include <doctest/doctest.h>

using namespace refbench;

namespace {

constexpr double k_mib_double = 1024.0 * 1024.0;

// A family "encrypt" over 1 KiB, 1 MiB and 32 MiB whose invocations take
// `fixed` seconds plus `per_mib` seconds per MiB of payload (the candidate
// with a small deterministic wobble around it), measured through run_rounds.
std::vector<analysis::SensitivityWarning> warnings_for(double fixed, double per_mib) {
  const std::vector<std::pair<std::string, double>> sizes{
      {"1KiB", 1024.0}, {"1MiB", k_mib_double}, {"32MiB", 32 * k_mib_double}};
  std::vector<model::CellSpec> cells;
  for (const auto& [label, bytes] : sizes) {
    model::CellSpec cell;
    cell.name = "encrypt-" + label;
    cell.baseline.argv = {"encrypt", std::to_string(bytes), "a"};
    cell.candidate.argv = {"encrypt", std::to_string(bytes), "b"};
    cell.meta.family = "encrypt";
    cell.meta.payload_bytes = static_cast<std::uint64_t>(bytes);
    cells.push_back(cell);
  }
  doubles::FakeExecutor fake([&](const model::Invocation& invocation, std::size_t index) {
    model::Outcome outcome;
    const double mib = std::stod(invocation.argv[1]) / k_mib_double;
    const double wobble = invocation.argv[2] == "b" ? 0.002 * (static_cast<double>(index % 7) - 3.0) : 0.0;
    outcome.readings[model::Reading::wall] = (fixed + per_mib * mib) * (1.0 + wobble);
    outcome.readings[model::Reading::user] = outcome.readings[model::Reading::wall];
    outcome.readings[model::Reading::rss] = 64 << 20;
    return outcome;
  });
  model::RoundSettings settings{1e6, 12, 12, 1, 7};
  formats::JournalWriter journal;
  runner::RoundHooks hooks;
  hooks.clock = [&fake] { return fake.now(); };
  auto record = runner::run_rounds(cells, settings, fake, journal, hooks);
  auto results = analysis::analyze(analysis::cell_samples(record, {model::Metric::wall}, {model::Metric::wall}),
                                   {1.15, 0.05, 0.95, 10});
  return analysis::sensitivity_warnings(analysis::family_points(record, results));
}

} // namespace

TEST_CASE("analysis::fit_line") {
  SUBCASE("exact line") {
    auto line = analysis::fit_line({1, 2, 4}, {3.5, 4.0, 5.0}); // y = 3 + 0.5 x
    CHECK(line.intercept == doctest::Approx(3.0));
    CHECK(line.slope == doctest::Approx(0.5));
  }
  SUBCASE("least squares: numpy.polyfit([0, 1, 2, 3], [1, 3, 2, 5], 1) = [1.1, 1.1]") {
    auto line = analysis::fit_line({0, 1, 2, 3}, {1, 3, 2, 5});
    CHECK(line.slope == doctest::Approx(1.1));
    CHECK(line.intercept == doctest::Approx(1.1));
  }
  SUBCASE("one distinct size cannot be fitted") {
    CHECK(std::isnan(analysis::fit_line({2, 2}, {1, 3}).slope));
    CHECK(std::isnan(analysis::fit_line({}, {}).slope));
  }
}

TEST_CASE("analysis::sensitivity_warnings") {
  SUBCASE("fixed 450 ms + 2 ms/MiB: the 32 MiB cell cannot show a payload regression at 1.15") {
    auto warnings = warnings_for(0.450, 0.002);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].cell == "encrypt-32MiB");
    CHECK(warnings[0].family == "encrypt");
    // 32 MiB: 450 + 64 ms; payload part 64 / 514 = 12.45 %
    CHECK(warnings[0].fixed_share == doctest::Approx(450.0 / 514.0).epsilon(0.01));
    CHECK(warnings[0].max_ratio == doctest::Approx(1.0 + 64.0 / 514.0).epsilon(0.01));
    CHECK(warnings[0].message.find("`encrypt-32MiB`: fixed cost is 88 % of this cell") == 0);
    CHECK(warnings[0].message.find("only 1.12× here, below the 1.15× gate") != std::string::npos);
  }
  SUBCASE("payload work dominates: fixed 10 ms + 20 ms/MiB → no warning") { CHECK(warnings_for(0.010, 0.020).empty()); }
  SUBCASE("the boundary: payload part exactly (T − 1) × total does not warn") {
    // total 1.0 s at 10 bytes, payload part 0.15 s: slope 0.015/byte, intercept 0.85
    std::vector<analysis::FamilyPoint> points{{"f-1", "f", 0, 0.85, 1.15}, {"f-10", "f", 10, 1.0, 1.15}};
    CHECK(analysis::sensitivity_warnings(points).empty());
    points[1].baseline_seconds = 0.99; // payload part 0.14 < 0.1485
    CHECK(analysis::sensitivity_warnings(points).size() == 1);
  }
  SUBCASE("cells outside a family, a single size, or without a median are not judged") {
    std::vector<analysis::FamilyPoint> points{
        {"a", "", 1, 1.0, 1.15}, {"b", "g", 5, 1.0, 1.15}, {"c", "h", 1, NAN, 1.15}, {"d", "h", 9, 1.0, 1.15}};
    CHECK(analysis::sensitivity_warnings(points).empty());
  }
}
