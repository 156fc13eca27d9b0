#include <refbench/history/series.hpp>
#include <refbench/util/outside_text.hpp>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace refbench::history {
namespace {

constexpr double k_width = 720;
constexpr double k_height = 240;
constexpr double k_left = 56;
constexpr double k_right = 16;
constexpr double k_top = 16;
constexpr double k_bottom = 28;

// Maps point indices and log values onto the plot area.
struct Frame {
  std::size_t count = 1;
  double low = -0.01;
  double high = 0.01;
  double x(std::size_t i) const {
    return count <= 1 ? k_left + (k_width - k_left - k_right) / 2
                      : k_left + (k_width - k_left - k_right) * static_cast<double>(i) / static_cast<double>(count - 1);
  }
  double y(double value) const { return k_top + (k_height - k_top - k_bottom) * (high - value) / (high - low); }
};

Frame frame_of(const Series& s) {
  Frame f;
  f.count = s.points.size();
  f.low = f.high = 0;
  for (const auto& p : s.points) {
    f.low = std::min({f.low, p.level, p.ewma - 2 * p.sd});
    f.high = std::max({f.high, p.level, p.ewma + 2 * p.sd});
  }
  const double pad = std::max(0.01, (f.high - f.low) * 0.08);
  f.low -= pad;
  f.high += pad;
  return f;
}

// The closed outline of the band ewma ± k·sd.
std::string band_path(const Series& s, const Frame& f, double k) {
  std::string d;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    d += fmt::format("{}{:.1f},{:.1f} ", i == 0 ? "M" : "L", f.x(i), f.y(s.points[i].ewma + k * s.points[i].sd));
  }
  for (std::size_t i = s.points.size(); i-- > 0;) {
    d += fmt::format("L{:.1f},{:.1f} ", f.x(i), f.y(s.points[i].ewma - k * s.points[i].sd));
  }
  return d + "Z";
}

std::string chart(const Series& s, double threshold) {
  const Frame f = frame_of(s);
  std::string svg =
      fmt::format("<svg width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\">\n", k_width, k_height);
  svg += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n", k_width, k_height);
  svg += fmt::format("<path class=\"band2\" d=\"{}\" fill=\"#dbe8f6\" stroke=\"none\"/>\n", band_path(s, f, 2));
  svg += fmt::format("<path class=\"band1\" d=\"{}\" fill=\"#b3cde9\" stroke=\"none\"/>\n", band_path(s, f, 1));
  for (double value : {0.0, std::log(threshold)}) { // 1.00x and the threshold
    if (value > f.low && value < f.high) {
      svg += fmt::format("<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
                         "stroke-dasharray=\"4 3\"/><text x=\"4\" y=\"{:.1f}\" font-size=\"11\">{:.2f}x</text>\n",
                         k_left, k_width - k_right, f.y(value), f.y(value), value == 0 ? "#888888" : "#c0392b",
                         f.y(value) + 4, std::exp(value));
    }
  }
  std::string line;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    line += fmt::format("{}{:.1f},{:.1f} ", i == 0 ? "M" : "L", f.x(i), f.y(s.points[i].level));
  }
  svg += fmt::format("<path class=\"series\" d=\"{}\" fill=\"none\" stroke=\"#1f4e79\" stroke-width=\"2\"/>\n", line);
  for (const auto& c : s.change_points) {
    const double x = c.index == 0 ? f.x(0) : (f.x(c.index - 1) + f.x(c.index)) / 2;
    svg += fmt::format("<line class=\"change\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#e67e22\" "
                       "stroke-width=\"2\"><title>change point before {3}: {4:.3f}x → {5:.3f}x (p = {6:.3f})</title>"
                       "</line>\n",
                       x, k_top, k_height - k_bottom, util::html_text(c.sha.substr(0, 12)), c.before, c.after, c.p);
  }
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const auto& r = *s.points[i].record;
    svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"><title>{} {} · {} → {} · "
                       "{:.3f}x [{:.3f}, {:.3f}] {} · level {:.3f}x</title></circle>\n",
                       f.x(i), f.y(s.points[i].level), r.verdict == "REGRESSION" ? "#c0392b" : "#1f4e79",
                       util::html_text(r.candidate.sha.substr(0, 12)), util::html_text(r.candidate.ref),
                       util::html_text(r.baseline.sha.substr(0, 7)), util::html_text(r.time), *r.ratio, *r.ci_low,
                       *r.ci_high, util::html_text(r.verdict), std::exp(s.points[i].level));
  }
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\">{}</text>\n", k_left, k_height - 8,
                     util::html_text(s.points.front().record->baseline.sha.substr(0, 7)));
  svg +=
      fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">{}</text>\n", k_width - k_right,
                  k_height - 8, util::html_text(s.points.back().record->candidate.sha.substr(0, 7)));
  return svg + "</svg>\n";
}

} // namespace

std::string render_history_html(const std::vector<Series>& series, const std::vector<std::string>& warnings,
                                double threshold) {
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<title>refbench history</title>\n<style>body{font-family:sans-serif;margin:24px;color:#222}"
                     "h2{font-size:16px;margin:24px 0 4px}p{margin:4px 0}</style>\n</head>\n<body>\n"
                     "<h1>refbench history</h1>\n";
  html += fmt::format("<p>{} series · threshold {:.2f}x · shaded: EWMA (span 10) ±1σ and ±2σ of the level; "
                      "orange: change points. Hover a point for its commit.</p>\n",
                      series.size(), threshold);
  for (const auto& s : series) {
    html += fmt::format("<h2>{} {} — {}</h2>\n<p>{} {} · {:.3f}x [{:.3f}, {:.3f}]", util::html_text(s.cell),
                        util::html_text(s.metric), util::html_text(s.verdict), s.points.size(),
                        s.chained ? "chained links, cumulative" : "runs against one baseline, last", s.ratio, s.ci_low,
                        s.ci_high);
    if (s.chained) {
      html += fmt::format(" · last {} links {:.3f}x [{:.3f}, {:.3f}] {}", s.window.links, s.window.ratio,
                          s.window.ci_low, s.window.ci_high, util::html_text(s.window.verdict));
    }
    html += "</p>\n";
    html += chart(s, threshold);
  }
  for (const auto& warning : warnings) {
    html += "<p>skipped: " + util::html_text(warning) + "</p>\n";
  }
  return html + "</body>\n</html>\n";
}

} // namespace refbench::history
