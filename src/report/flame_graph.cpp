#include <refbench/report/flame_graph.hpp>
#include <refbench/util/outside_text.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fmt/format.h>
#include <string>
#include <string_view>
#include <vector>

// The picture is bounded whatever the tree: at most k_flame_max_depth levels
// and k_flame_max_frames frames are drawn (breadth first, so a cap drops the
// deepest frames), frames narrower than k_flame_min_width pixels are not
// drawn (nor what they call), names in tooltips are elided to
// k_flame_tooltip_name code points and labels to their frame's width; the
// header counts what was left out.

namespace refbench::report {
namespace {

constexpr double k_flame_width = 1200;
constexpr double k_flame_level = 17;  // a frame's row, its rect one pixel less
constexpr double k_flame_header = 76; // title, legend, totals
constexpr double k_flame_bottom = 4;  // under the root
constexpr double k_flame_min_width = 0.5;
constexpr double k_flame_char_width = 7.3; // monospace at 12 px
constexpr double k_flame_label_pad = 3;
constexpr double k_flame_gap = 0.5; // white between frames wider than 4 gaps
constexpr int k_flame_max_depth = 64;
constexpr std::size_t k_flame_max_frames = 5000;
constexpr std::size_t k_flame_tooltip_name = 300;
constexpr std::size_t k_flame_title_limit = 150;
// A change of this share of the larger arm (or more) is drawn at full colour.
constexpr double k_flame_full_change = 0.5;

struct FlameRgb {
  double r, g, b;
};
constexpr FlameRgb k_flame_grey{221, 221, 221};
constexpr FlameRgb k_flame_red{238, 86, 70};
constexpr FlameRgb k_flame_blue{86, 140, 238};

// A count as drawn: not negative, finite, within what a long long holds.
double flame_count(double x) { return std::isfinite(x) && x > 0 ? std::min(x, 9e18) : 0.0; }

double flame_span(const profile::Frame& f) { return std::max(flame_count(f.baseline), flame_count(f.candidate)); }

// The length of the well-formed UTF-8 sequence at `at` that XML admits (no
// surrogate, no U+FFFE or U+FFFF), or 0.
std::size_t flame_sequence(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char c = byte(at);
  const std::size_t length = c < 0x80                 ? 1
                             : c >= 0xc2 && c <= 0xdf ? 2
                             : (c & 0xf0) == 0xe0     ? 3
                             : c >= 0xf0 && c <= 0xf4 ? 4
                                                      : 0;
  if (length == 0 || at + length > text.size()) {
    return 0;
  }
  std::uint32_t point = length == 1 ? c : c & (0xffU >> (length + 1));
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(at + k) & 0xc0U) != 0x80U) {
      return 0;
    }
    point = point << 6 | (byte(at + k) & 0x3fU);
  }
  const std::uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  const bool allowed = point >= least[length] && point <= 0x10ffff && (point < 0xd800 || point > 0xdfff) &&
                       point != 0xfffe && point != 0xffff;
  return allowed ? length : 0;
}

// `text` with every byte that is not part of a sequence XML admits replaced
// by U+FFFD, so a name in any encoding cannot make the document unreadable.
std::string flame_valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    if (const std::size_t length = flame_sequence(text, at)) {
      out += text.substr(at, length);
      at += length;
    } else {
      out += "\xEF\xBF\xBD";
      ++at;
    }
  }
  return out;
}

// `x` rounded, with ',' between groups of three digits.
std::string flame_grouped(double x) {
  const std::string digits = fmt::format("{}", std::llround(std::fabs(x)));
  std::string out = x <= -0.5 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) {
      out += ',';
    }
    out += digits[i];
  }
  return out;
}

// "+1,234 (+5.6%)": the candidate's change from the baseline.
std::string flame_change(double baseline, double candidate) {
  const double delta = candidate - baseline;
  const std::string sign = delta >= 0.5 ? "+" : "";
  if (baseline <= 0) {
    return fmt::format("{}{} ({})", sign, flame_grouped(delta), candidate > 0 ? "new" : "0.0%");
  }
  return fmt::format("{}{} ({:+.1f}%)", sign, flame_grouped(delta), delta / baseline * 100);
}

// Grey for no change, towards red (more in the candidate) or blue (fewer)
// as the change grows relative to the larger arm; the square root makes a
// change of a few percent visible, and dark text stays legible on all.
std::string flame_fill(double baseline, double candidate) {
  const double larger = std::max(baseline, candidate);
  const double share = larger > 0 ? std::fabs(candidate - baseline) / larger : 0.0;
  const double depth = std::sqrt(std::min(1.0, share / k_flame_full_change));
  const FlameRgb& to = candidate > baseline ? k_flame_red : k_flame_blue;
  const auto mix = [&](double from, double target) { return std::lround(from + (target - from) * depth); };
  return fmt::format("rgb({},{},{})", mix(k_flame_grey.r, to.r), mix(k_flame_grey.g, to.g), mix(k_flame_grey.b, to.b));
}

// What `width` pixels show of `name`: all of it, its start and "..", or
// nothing when fewer than 3 characters fit.
std::string flame_label(std::string_view name, double width) {
  const double room = (width - 2 * k_flame_label_pad) / k_flame_char_width;
  if (room < 3) {
    return "";
  }
  const auto fit = static_cast<std::size_t>(room);
  const std::string shown = util::printable(flame_valid_utf8(name));
  if (util::code_points(shown) <= fit) {
    return util::html_text(shown);
  }
  return util::html_text(std::string(util::first_code_points(shown, fit - 2)) + "..");
}

struct FlamePlaced {
  const profile::Frame* frame = nullptr;
  double x = 0;
  double width = 0;
  int depth = 0;
};

// Where each drawn frame goes, breadth first, and what was left out.
struct FlameLayout {
  std::vector<FlamePlaced> placed;
  int levels = 1;
  std::size_t narrow = 0;
  std::size_t deep = 0;
  std::size_t over_cap = 0;
};

// Lays out `parent`'s children left to right from its left edge at `scale`
// pixels per instruction, shrunk together when they would overflow it (the
// two arms' larger counts of the children can add up to more than the
// parent's).
void flame_place_children(const FlamePlaced& parent, double scale, FlameLayout& layout) {
  double natural = 0;
  for (const auto& child : parent.frame->children) {
    natural += flame_span(child) * scale;
  }
  const double shrink = natural > parent.width ? parent.width / natural : 1.0;
  double x = parent.x;
  for (const auto& child : parent.frame->children) {
    const double width = flame_span(child) * scale * shrink;
    if (width < k_flame_min_width) {
      ++layout.narrow;
    } else if (parent.depth + 1 >= k_flame_max_depth) {
      ++layout.deep;
    } else if (layout.placed.size() >= k_flame_max_frames) {
      ++layout.over_cap;
    } else {
      layout.placed.push_back({&child, x, width, parent.depth + 1});
      layout.levels = std::max(layout.levels, parent.depth + 2);
    }
    x += width;
  }
}

FlameLayout flame_layout(const profile::Frame& root) {
  FlameLayout layout;
  const double total = flame_span(root);
  const double scale = k_flame_width / (total > 0 ? total : 1.0);
  layout.placed.push_back({&root, 0, k_flame_width, 0});
  for (std::size_t i = 0; i < layout.placed.size(); ++i) {
    const FlamePlaced parent = layout.placed[i]; // a copy: placing appends
    flame_place_children(parent, scale, layout);
  }
  return layout;
}

std::string flame_frame(const FlamePlaced& p, double y) {
  const profile::Frame& f = *p.frame;
  const double baseline = flame_count(f.baseline);
  const double candidate = flame_count(f.candidate);
  const std::string name = util::elide_middle(util::printable(flame_valid_utf8(f.name)), k_flame_tooltip_name);
  std::string out = fmt::format("<g class=\"f\"><title>{}\nbaseline: {} instructions\ncandidate: {} instructions\n"
                                "\u0394 {}</title>",
                                util::html_text(name), flame_grouped(baseline), flame_grouped(candidate),
                                flame_change(baseline, candidate));
  const double width = p.width > 4 * k_flame_gap ? p.width - k_flame_gap : p.width;
  out += fmt::format("<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" fill=\"{}\"/>", p.x, y, width,
                     k_flame_level - 1, flame_fill(baseline, candidate));
  const std::string label = flame_label(f.name, p.width);
  if (!label.empty()) {
    out += fmt::format("<text x=\"{:.2f}\" y=\"{:.1f}\">{}</text>", p.x + k_flame_label_pad, y + 12, label);
  }
  return out + "</g>\n";
}

// "; 12 frames not drawn: …" for what the layout left out, else "".
std::string flame_left_out(const FlameLayout& layout) {
  std::vector<std::string> parts;
  if (layout.narrow > 0) {
    parts.push_back(fmt::format("{} narrower than {} px", layout.narrow, k_flame_min_width));
  }
  if (layout.deep > 0) {
    parts.push_back(fmt::format("{} deeper than {} levels", layout.deep, k_flame_max_depth));
  }
  if (layout.over_cap > 0) {
    parts.push_back(fmt::format("{} past the first {} frames", layout.over_cap, k_flame_max_frames));
  }
  if (parts.empty()) {
    return "";
  }
  return fmt::format(" · not drawn (with their callees): {}", fmt::join(parts, ", "));
}

std::string flame_header(const profile::Frame& root, std::string_view title, const FlameLayout& layout) {
  const std::string shown = util::elide_middle(util::printable(flame_valid_utf8(title)), k_flame_title_limit);
  const double baseline = flame_count(root.baseline);
  const double candidate = flame_count(root.candidate);
  std::string out = fmt::format("<text class=\"h\" x=\"10\" y=\"24\" font-size=\"17\" font-weight=\"bold\">{}</text>\n",
                                util::html_text(shown));
  out += "<text class=\"h\" x=\"10\" y=\"43\">red: more instructions in the candidate \u00b7 blue: fewer \u00b7 "
         "width: the larger arm's instructions</text>\n";
  out += fmt::format("<text class=\"h\" x=\"10\" y=\"60\">total: baseline {} \u00b7 candidate {} instructions "
                     "\u00b7 \u0394 {}{}</text>\n",
                     flame_grouped(baseline), flame_grouped(candidate), flame_change(baseline, candidate),
                     flame_left_out(layout));
  return out;
}

} // namespace

std::string render_flame_graph(const profile::Frame& root, std::string_view title) {
  const FlameLayout layout = flame_layout(root);
  const double height = k_flame_header + layout.levels * k_flame_level + k_flame_bottom;
  std::string out = fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
                                "viewBox=\"0 0 {0} {1}\">\n",
                                k_flame_width, height);
  out += "<style>svg{background:#ffffff}text{font-family:monospace;font-size:12px;fill:#1a1a1a}.h{font-family:sans-"
         "serif;font-size:13px}"
         "g.f:hover rect{stroke:#000000;stroke-width:1}</style>\n";
  out += flame_header(root, title, layout);
  for (const auto& placed : layout.placed) {
    out += flame_frame(placed, k_flame_header + (layout.levels - 1 - placed.depth) * k_flame_level);
  }
  return out + "</svg>\n";
}

} // namespace refbench::report
