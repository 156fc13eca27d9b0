#include <refbench/model/record.hpp>
#include <refbench/report/overview.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace refbench::report {
namespace {

using analysis::MetricResult;

constexpr std::size_t k_inner_bins = 7;          // across [1/T, T], the middle one centred on 1
constexpr std::size_t k_bins = k_inner_bins + 2; // and one beyond each end
constexpr std::size_t k_bar_width = 30;          // the widest bar, in blocks
constexpr std::size_t k_name_width = 40;         // a named row's label, elided in the middle
constexpr std::string_view k_block = "█";

bool on_chart(const MetricResult& r) { return std::isfinite(r.ratio) && r.ratio > 0; }

// The bin of log-ratio `x`: 0 below −e, k_bins − 1 above e, else one of the
// inner bins of width 2e / k_inner_bins (edges fall to the outer side).
std::size_t bin_of(double x, double e) {
  if (x < -e) {
    return 0;
  }
  if (x > e) {
    return k_bins - 1;
  }
  const double at = (x + e) / (2 * e) * static_cast<double>(k_inner_bins);
  return 1 + std::min(k_inner_bins - 1, static_cast<std::size_t>(std::floor(at)));
}

// The ratio at inner edge `i` (0 … k_inner_bins): exp(−e + i · 2e / k_inner_bins).
double edge(std::size_t i, double e) {
  return std::exp(-e + static_cast<double>(i) * 2 * e / static_cast<double>(k_inner_bins));
}

std::string bin_label(std::size_t bin, double e, double threshold) {
  if (bin == 0) {
    return fmt::format("below {:.3f}x (1/T)", 1 / threshold);
  }
  if (bin == k_bins - 1) {
    return fmt::format("above {:.3f}x (T)", threshold);
  }
  return fmt::format("{:.3f}x – {:.3f}x", edge(bin - 1, e), edge(bin, e));
}

// Blocks for `count` rows of `most` in the fullest bin: at least one for any.
std::string bar(std::size_t count, std::size_t most) {
  if (count == 0 || most == 0) {
    return "";
  }
  const std::size_t blocks = std::max<std::size_t>(1, count * k_bar_width / most);
  std::string out;
  for (std::size_t i = 0; i < blocks; ++i) {
    out += k_block;
  }
  return out;
}

// `text` in at most `width` code points, whole words dropped from the
// middle for one "…" (a word ends after '/', '_', '-', '.', ':' or ' '), the
// end kept first so that "…_ms_100" and "…_ms_1000" stay apart; a single
// word too long for that is cut in the middle as util::elide_middle cuts.
std::string elide_words(std::string_view text, std::size_t width) {
  if (util::code_points(text) <= width) {
    return std::string(text);
  }
  std::vector<std::string_view> words;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = text.find_first_of("/_-.: ", start);
    const std::size_t stop = end == std::string_view::npos ? text.size() : end + 1;
    words.push_back(text.substr(start, stop - start));
    start = stop;
  }
  std::size_t front = 0; // words kept from the start
  std::size_t back = 0;  // words kept from the end
  std::size_t front_points = 0;
  std::size_t back_points = 0;
  const std::size_t room = width - 1; // the "…"
  for (bool grew = true; grew && front + back < words.size();) {
    grew = false;
    const bool end_first = back_points <= front_points;
    for (const bool from_end : {end_first, !end_first}) {
      const std::string_view word = from_end ? words[words.size() - 1 - back] : words[front];
      if (front + back < words.size() && front_points + back_points + util::code_points(word) <= room) {
        (from_end ? back_points : front_points) += util::code_points(word);
        ++(from_end ? back : front);
        grew = true;
        break;
      }
    }
  }
  if (back == 0) {
    return util::elide_middle(text, width);
  }
  std::string out;
  for (std::size_t i = 0; i < front; ++i) {
    out += words[i];
  }
  out += "…";
  for (std::size_t i = words.size() - back; i < words.size(); ++i) {
    out += words[i];
  }
  return out;
}

// The outer bin's rows, furthest from 1 first, as "name metric 1.400x", the
// first k_overview_named of them and a count of the rest.
std::string named(std::vector<const MetricResult*> rows) {
  std::sort(rows.begin(), rows.end(), [](const MetricResult* a, const MetricResult* b) {
    return std::fabs(std::log(a->ratio)) > std::fabs(std::log(b->ratio));
  });
  std::string out;
  for (std::size_t i = 0; i < rows.size() && i < k_overview_named; ++i) {
    std::string label = model::cell_title(rows[i]->cell, rows[i]->candidate) + " " + rows[i]->metric;
    std::replace_if(
        label.begin(), label.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }, ' ');
    out += fmt::format("{}{} {:.3f}x", i == 0 ? "" : ", ", elide_words(label, k_name_width), rows[i]->ratio);
  }
  if (rows.size() > k_overview_named) {
    out += fmt::format(", {} more", rows.size() - k_overview_named);
  }
  return out;
}

std::string padded(std::string text, std::size_t width) {
  const std::size_t points = util::code_points(text);
  return text + std::string(width > points ? width - points : 0, ' ');
}

} // namespace

std::string render_overview(const std::vector<MetricResult>& results, double threshold) {
  const double e = std::log(threshold);
  std::array<std::vector<const MetricResult*>, k_bins> rows;
  std::array<std::size_t, k_bins> control{};
  std::size_t off_chart = 0;
  std::size_t plotted = 0;
  std::set<std::string> gated_metrics; // the control's rows of these are its share of the chart
  for (const auto& r : results) {
    if (r.gated) {
      gated_metrics.insert(r.metric);
    }
  }
  for (const auto& r : results) {
    if (!r.gated && !(r.control && gated_metrics.contains(r.metric))) {
      continue;
    }
    if (!on_chart(r) || r.error) {
      off_chart += r.control ? 0 : 1;
      continue;
    }
    const std::size_t bin = bin_of(std::log(r.ratio), e);
    if (r.control) {
      ++control[bin];
    } else {
      rows[bin].push_back(&r);
      ++plotted;
    }
  }
  if (plotted == 0 || !(e > 0)) {
    return "";
  }
  std::size_t most = 0;
  for (const auto& bin : rows) {
    most = std::max(most, bin.size());
  }
  constexpr std::string_view k_header = "gated rows, ratio to baseline";
  std::size_t label_width = util::code_points(k_header);
  for (std::size_t bin = 0; bin < k_bins; ++bin) {
    label_width = std::max(label_width, util::code_points(bin_label(bin, e, threshold)));
  }
  std::string out = fmt::format("{}  {:>5}  {:>5}\n", padded(std::string(k_header), label_width), "rows", "A/A");
  for (std::size_t bin = 0; bin < k_bins; ++bin) {
    std::string line = fmt::format("{}  {:>5}  {:>5}  {}", padded(bin_label(bin, e, threshold), label_width),
                                   rows[bin].size(), control[bin], bar(rows[bin].size(), most));
    if ((bin == 0 || bin == k_bins - 1) && !rows[bin].empty()) {
      line += "  " + named(rows[bin]);
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    out += line + "\n";
  }
  if (off_chart > 0) {
    out += fmt::format("not on the chart: {} gated row{} without a ratio (ERROR, a count's difference)\n", off_chart,
                       off_chart == 1 ? "" : "s");
  }
  return out;
}

} // namespace refbench::report
