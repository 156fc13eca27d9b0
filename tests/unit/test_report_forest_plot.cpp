// The forest plot: marker columns computed by hand on a scale chosen so that
// every value falls on a whole column.
#include <doctest/doctest.h>

#include <refbench/report/forest_plot.hpp>
#include <refbench/util/strings.hpp>

#include <cmath>
#include <string>
#include <vector>

using namespace refbench;
using analysis::MetricResult;
using stats::Verdict;

namespace {

MetricResult gated(const std::string& cell, double ratio, double lo, double hi, Verdict verdict = Verdict::pass) {
  MetricResult r;
  r.cell = cell;
  r.metric = "wall";
  r.gated = true;
  r.ratio = ratio;
  r.ci_low = lo;
  r.ci_high = hi;
  r.verdict = verdict;
  return r;
}

std::string repeat(const std::string& glyph, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += glyph;
  }
  return out;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at < text.size();) {
    auto end = text.find('\n', at);
    out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

} // namespace

TEST_CASE("report::render_forest_plot marks on a hand-computed scale") {
  // Threshold 1.1² and bounds up to 1.1⁴: the scale is [1.1⁻², 1.1⁴], six
  // steps of ln 1.1 over 61 columns, so 1.1^k sits in column 10·(k + 2).
  const double t = 1.1 * 1.1;
  std::vector<MetricResult> results{gated("a", 1.0, 1 / 1.1, 1.1), gated("b", std::pow(1.1, 3), std::pow(1.1, 2.5),
                                                                         std::pow(1.1, 4), Verdict::regression)};
  for (auto& r : results) {
    r.threshold = t;
  }
  const auto plot = report::render_forest_plot(results, t, 6 + 1 + 61); // labels "a wall", "b wall"
  const auto rows = lines(plot);
  REQUIRE(rows.size() == 5);
  // a: interval 1.1⁻¹…1.1 in columns 10…30, estimate over the 1.0 mark (20), threshold mark at 40
  CHECK(rows[0] ==
        "a wall " + repeat(" ", 10) + "├" + repeat("─", 9) + "●" + repeat("─", 9) + "┤" + repeat(" ", 9) + "┆");
  // b: 1.0 mark at 20, threshold at 40, interval 1.1^2.5…1.1⁴ in columns 45…60, estimate 1.1³ at 50
  CHECK(rows[1] == "b wall " + repeat(" ", 20) + "│" + repeat(" ", 19) + "┆" + repeat(" ", 4) + "├" + repeat("─", 4) +
                       "●" + repeat("─", 9) + "┤");
  CHECK(rows[2] == repeat(" ", 7) + repeat("─", 20) + "┴" + repeat("─", 19) + "┴" + repeat("─", 20));
  // labels centred on 1.0 (18…22) and the threshold (38…42), the ends of the scale at the edges
  CHECK(rows[3] ==
        repeat(" ", 7) + "0.83x" + repeat(" ", 13) + "1.00x" + repeat(" ", 15) + "1.21x" + repeat(" ", 13) + "1.46x");
  CHECK(rows[4] == "● ratio  ├─┤ 95% interval  │ 1.00x  ┆ threshold 1.21x");

  SUBCASE("a row with its own threshold (a counted metric's) marks it; the axis keeps the run's") {
    results[1].threshold = 1.1; // column 30
    const auto own = lines(report::render_forest_plot(results, t, 6 + 1 + 61));
    REQUIRE(own.size() == 5);
    CHECK(own[0] == rows[0]);
    CHECK(own[1] == "b wall " + repeat(" ", 20) + "│" + repeat(" ", 9) + "┆" + repeat(" ", 14) + "├" + repeat("─", 4) +
                        "●" + repeat("─", 9) + "┤");
    CHECK(own[2] == rows[2]);
    CHECK(own[4] == "● ratio  ├─┤ 95% interval  │ 1.00x  ┆ threshold 1.21x (a row with its own threshold marks it)");
  }
}

TEST_CASE("report::render_forest_plot rows") {
  SUBCASE("gated metrics and the control's rows of them; no ERROR, CENSORED, info or NaN") {
    MetricResult control = gated("c-control", 1.0, 0.98, 1.02);
    control.control = true;
    control.gated = false;
    MetricResult control_info = control;
    control_info.metric = "rss";
    MetricResult info = gated("c", 1.0, 0.99, 1.01);
    info.metric = "cpu";
    info.gated = false;
    MetricResult error = gated("broken", NAN, NAN, NAN, Verdict::error);
    MetricResult censored = gated("floor", 1.0, 1.0, 1.0, Verdict::censored);
    censored.censored = true;
    MetricResult no_interval = gated("short", 1.05, NAN, NAN, Verdict::inconclusive);
    const std::vector<MetricResult> results{control,  control_info, gated("c", 1.02, 0.99, 1.05), info, error,
                                            censored, no_interval};
    const auto rows = lines(report::render_forest_plot(results, 1.15, 72));
    REQUIRE(rows.size() == 3 + 3);
    CHECK(rows[0].starts_with("c-control wall "));
    CHECK(rows[1].starts_with("c wall "));
    CHECK(rows[2].starts_with("short wall "));
    CHECK(rows[2].find("├") == std::string::npos); // the estimate alone
    CHECK(rows[2].find("●") != std::string::npos);
    CHECK(report::plotted(control, results));
    CHECK_FALSE(report::plotted(control_info, results));
    CHECK_FALSE(report::plotted(info, results));
  }
  SUBCASE("long labels are elided in the middle, counted in code points, and levels stay distinct") {
    const std::string cell = "ünïcödé-payload-family-with-a-very-long-name";
    const std::vector<MetricResult> results{gated(cell, 1.0, 0.9, 1.1), gated("x", 1.1, 1.0, 1.2)};
    const auto rows = lines(report::render_forest_plot(results, 1.15, 60));
    // 32 code points: the first 16, "…", the last 15 of "<cell> wall"
    CHECK(rows[0].starts_with("ünïcödé-payload-…-long-name wall "));
    const auto levels = lines(report::render_forest_plot({gated("service-load-latency-sig_ms_100", 1.0, 0.9, 1.1),
                                                          gated("service-load-latency-sig_ms_1000", 1.0, 0.9, 1.1)},
                                                         1.15, 40));
    CHECK(levels[0].substr(0, 32) != levels[1].substr(0, 32));
    CHECK(levels[0].starts_with("service-load-lat…sig_ms_100 wall "));
    CHECK(levels[1].starts_with("service-load-lat…ig_ms_1000 wall "));
    CHECK(rows[1].starts_with("x wall" + repeat(" ", 32 - 6) + " "));
    for (std::size_t i = 0; i + 1 < rows.size(); ++i) { // every line but the legend fits the width
      CHECK(util::code_points(rows[i]) <= 60);
    }
    CHECK(util::code_points(rows[2]) == 60); // the axis spans the whole width
  }
  SUBCASE("a narrow width still gets the fewest plot columns") {
    const auto rows = lines(report::render_forest_plot({gated("x", 1.0, 0.9, 1.1)}, 1.15, 10));
    CHECK(util::code_points(rows[1]) == 7 + report::k_plot_min_columns);
  }
  SUBCASE("nothing to plot") {
    CHECK(report::render_forest_plot({}, 1.15, 72).empty());
    CHECK(report::render_forest_plot({gated("e", NAN, NAN, NAN, Verdict::error)}, 1.15, 72).empty());
  }
}

TEST_CASE("util::code_points, utf8_prefix, first_code_points") {
  CHECK(util::code_points("abc") == 3);
  CHECK(util::code_points("ü─●") == 3);
  CHECK(util::utf8_prefix("aü", 2) == "a"); // ü is two bytes: never half of it
  CHECK(util::utf8_prefix("aü", 3) == "aü");
  CHECK(util::utf8_prefix("─", 2).empty());
  CHECK(util::first_code_points("ü─●x", 2) == "ü─");
  CHECK(util::first_code_points("ab", 5) == "ab");
  CHECK(util::last_code_points("xü─●", 2) == "─●");
  CHECK(util::last_code_points("ab", 5) == "ab");
  CHECK(util::elide_middle("abcdefghij", 10) == "abcdefghij");
  CHECK(util::elide_middle("abcdefghij", 5) == "ab…ij");
  CHECK(util::elide_middle("abcdefghij", 6) == "abc…ij");
  CHECK(util::elide_middle("ü─●ü─●", 4) == "ü─…●");
  CHECK(util::elide_middle("abc", 1) == "…");
}
