// The flame graph: frame trees built by hand, the SVG read back by a few
// string searches (each frame's rect found after its <title>), positions
// and colours computed by hand from the 1200 px width.
#include <doctest/doctest.h>

#include "utf8_check.hpp"

#include <refbench/report/flame_graph.hpp>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using namespace refbench;
using profile::Frame;

namespace {

Frame flame_node(std::string name, double baseline, double candidate, std::vector<Frame> children = {}) {
  return Frame{std::move(name), baseline, candidate, std::move(children)};
}

std::size_t flame_count_of(std::string_view text, std::string_view what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string_view::npos; at = text.find(what, at + what.size())) {
    ++n;
  }
  return n;
}

struct FlameRect {
  double x = -1;
  double y = -1;
  double width = -1;
  int r = -1, g = -1, b = -1;
};

// The number in attribute `name` of the tag that starts at `tag`.
double flame_attribute(const std::string& svg, std::size_t tag, const std::string& name) {
  const auto end = svg.find('>', tag);
  const auto at = svg.find(" " + name + "=\"", tag);
  REQUIRE(at < end);
  return std::stod(svg.substr(at + name.size() + 3));
}

// The rect of the frame whose tooltip starts with `name` (as escaped).
FlameRect flame_rect_of(const std::string& svg, const std::string& name) {
  const auto title = svg.find("<title>" + name + "\n");
  REQUIRE(title != std::string::npos);
  const auto rect = svg.find("<rect", title);
  REQUIRE(rect != std::string::npos);
  FlameRect out{flame_attribute(svg, rect, "x"), flame_attribute(svg, rect, "y"), flame_attribute(svg, rect, "width")};
  const auto fill = svg.find("fill=\"rgb(", rect);
  REQUIRE(fill < svg.find('>', rect));
  REQUIRE(std::sscanf(svg.c_str() + fill, "fill=\"rgb(%d,%d,%d)", &out.r, &out.g, &out.b) == 3);
  return out;
}

// Every '&' starts one of the entities util::html_text writes.
bool flame_entities_only(std::string_view svg) {
  for (auto at = svg.find('&'); at != std::string_view::npos; at = svg.find('&', at + 1)) {
    const auto rest = svg.substr(at);
    if (!rest.starts_with("&amp;") && !rest.starts_with("&lt;") && !rest.starts_with("&gt;") &&
        !rest.starts_with("&quot;") && !rest.starts_with("&#39;")) {
      return false;
    }
  }
  return true;
}

} // namespace

TEST_CASE("report::render_flame_graph") {
  // The root spans 1000 in both arms: 1.2 px per instruction.
  const Frame root = flame_node("all", 1000, 1000,
                                {flame_node("grown", 250, 500, {flame_node("leaf", 100, 400)}),
                                 flame_node("shrunk", 300, 150), flame_node("unchanged_function_long", 100, 100)});
  const std::string svg = report::render_flame_graph(root, "bench: fib");

  SUBCASE("a self-contained SVG document, one rect per frame") {
    CHECK(svg.find("xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
    CHECK(svg.find("width=\"1200\"") != std::string::npos);
    CHECK(svg.ends_with("</svg>\n"));
    CHECK(flame_count_of(svg, "<rect") == 5);
    CHECK(flame_count_of(svg, "<title>") == 5);
    CHECK(flame_count_of(svg, "href") == 0);
    CHECK(flame_count_of(svg, "<script") == 0);
    CHECK(svg.find(">bench: fib</text>") != std::string::npos);
    CHECK(svg.find("red: more instructions in the candidate") != std::string::npos);
    CHECK(svg.find("total: baseline 1,000 \u00b7 candidate 1,000 instructions") != std::string::npos);
  }

  SUBCASE("widths from the larger arm, children left to right above their parent") {
    const FlameRect all = flame_rect_of(svg, "all");
    const FlameRect grown = flame_rect_of(svg, "grown");
    const FlameRect leaf = flame_rect_of(svg, "leaf");
    const FlameRect shrunk = flame_rect_of(svg, "shrunk");
    const FlameRect same = flame_rect_of(svg, "unchanged_function_long");
    CHECK(all.x == doctest::Approx(0));
    CHECK(std::fabs(all.width - 1200) <= 1);
    CHECK(std::fabs(grown.width - 600) <= 1);
    CHECK(std::fabs(leaf.width - 480) <= 1);
    CHECK(std::fabs(shrunk.width - 360) <= 1);
    CHECK(std::fabs(same.width - 120) <= 1);
    CHECK(grown.x == doctest::Approx(0));
    CHECK(shrunk.x == doctest::Approx(600).epsilon(0.001));
    CHECK(same.x == doctest::Approx(960).epsilon(0.001));
    CHECK(grown.y < all.y);
    CHECK(shrunk.y == doctest::Approx(grown.y));
    CHECK(leaf.y < grown.y);
    CHECK(all.y - grown.y == doctest::Approx(17));
  }

  SUBCASE("red for more, blue for fewer, grey for the same") {
    const FlameRect grown = flame_rect_of(svg, "grown");
    const FlameRect shrunk = flame_rect_of(svg, "shrunk");
    const FlameRect same = flame_rect_of(svg, "unchanged_function_long");
    const FlameRect all = flame_rect_of(svg, "all");
    CHECK(grown.r > grown.g + 100); // a 50% change: full red
    CHECK(grown.r > grown.b + 100);
    CHECK(shrunk.b > shrunk.r + 100);
    CHECK(shrunk.b > shrunk.g + 50);
    CHECK((same.r == same.g && same.g == same.b && same.r > 180));
    CHECK((all.r == all.g && all.g == all.b));
    // A smaller change is paler: leaf grew 4x (full), a 10% growth much less.
    const std::string slight = report::render_flame_graph(flame_node("all", 100, 110), "t");
    const FlameRect pale = flame_rect_of(slight, "all");
    CHECK(pale.r > pale.b);
    CHECK(pale.r - pale.b < grown.r - grown.b);
  }

  SUBCASE("tooltips: exact counts, the change with its sign and percentage") {
    CHECK(svg.find("<title>grown\nbaseline: 250 instructions\ncandidate: 500 instructions\n\u0394 +250 (+100.0%)"
                   "</title>") != std::string::npos);
    CHECK(svg.find("<title>shrunk\nbaseline: 300 instructions\ncandidate: 150 instructions\n\u0394 -150 (-50.0%)"
                   "</title>") != std::string::npos);
    const std::string big = report::render_flame_graph(flame_node("all", 1234567890, 1234567891), "t");
    CHECK(big.find("baseline: 1,234,567,890 instructions\ncandidate: 1,234,567,891") != std::string::npos);
  }

  SUBCASE("labels fit their frame: whole, cut with '..', or none") {
    CHECK(svg.find(">grown</text>") != std::string::npos);
    // 120 px hold (120 - 6) / 7.3 = 15 characters.
    CHECK(svg.find(">unchanged_fun..</text>") != std::string::npos);
    const std::string narrow = report::render_flame_graph(
        flame_node("all", 1000, 1000, {flame_node("tiny_frame", 10, 10), flame_node("xy", 990, 990)}), "t");
    CHECK(flame_count_of(narrow, "<rect") == 3);
    CHECK(flame_count_of(narrow, "<text x=") == 2); // 12 px hold no 3 characters
    CHECK(narrow.find(">xy</text>") != std::string::npos);
  }
}

TEST_CASE("report::render_flame_graph hostile names") {
  const std::string hostile = "</svg><script>alert(1)</script>&\"'\n]]>\x1b\xff";
  const Frame root = flame_node("all", 1000, 1000, {flame_node(hostile, 800, 900)});
  const std::string svg = report::render_flame_graph(root, "<b>title</b> " + hostile);
  CHECK(flame_count_of(svg, "<script") == 0);
  CHECK(flame_count_of(svg, "</svg>") == 1);
  CHECK(svg.ends_with("</svg>\n"));
  CHECK(flame_count_of(svg, "<b>") == 0);
  CHECK(flame_count_of(svg, "]]>") == 0);
  CHECK(flame_count_of(svg, "\x1b") == 0);
  CHECK(flame_entities_only(svg));
  CHECK(test::valid_utf8(svg)); // the stray byte became U+FFFD
  const std::string escaped = "&lt;/svg&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;\\n]]&gt;\\x1b\uFFFD";
  CHECK(svg.find("<title>" + escaped + "\n") != std::string::npos); // the tooltip
  CHECK(svg.find(">" + escaped + "</text>") != std::string::npos);  // the label, whole
  CHECK(svg.find(">&lt;b&gt;title&lt;/b&gt; &lt;/svg&gt;") != std::string::npos);
}

TEST_CASE("report::render_flame_graph frames only one arm ran") {
  const Frame root = flame_node("all", 1000, 1000, {flame_node("dropped", 500, 0), flame_node("added", 0, 300)});
  const std::string svg = report::render_flame_graph(root, "t");
  const FlameRect dropped = flame_rect_of(svg, "dropped");
  const FlameRect added = flame_rect_of(svg, "added");
  CHECK(std::fabs(dropped.width - 600) <= 1);
  CHECK(std::fabs(added.width - 360) <= 1);
  CHECK(dropped.b > dropped.r + 100);
  CHECK(added.r > added.b + 100);
  CHECK(svg.find("\u0394 -500 (-100.0%)</title>") != std::string::npos);
  CHECK(svg.find("\u0394 +300 (new)</title>") != std::string::npos);

  // The two arms' larger counts add up to more than the root's: the children
  // share its width in proportion rather than overflow it.
  const std::string swapped = report::render_flame_graph(
      flame_node("all", 100, 100, {flame_node("old", 100, 0), flame_node("new", 0, 100)}), "t");
  const FlameRect old_one = flame_rect_of(swapped, "old");
  const FlameRect new_one = flame_rect_of(swapped, "new");
  CHECK(std::fabs(old_one.width - 600) <= 1);
  CHECK(std::fabs(new_one.x + new_one.width - 1200) <= 1);
}

TEST_CASE("report::render_flame_graph bounded output") {
  constexpr std::size_t k_limit = 2'000'000;
  SUBCASE("5000 children narrower than half a pixel are not drawn") {
    Frame root = flame_node("all", 5'000'000, 5'000'000);
    for (int i = 0; i < 5000; ++i) {
      root.children.push_back(flame_node("child_" + std::to_string(i), 1000, 1000));
    }
    const std::string svg = report::render_flame_graph(root, "wide");
    CHECK(svg.size() < k_limit);
    CHECK(svg.ends_with("</svg>\n"));
    CHECK(flame_count_of(svg, "<rect") == 1);
    CHECK(svg.find("not drawn (with their callees): 5000 narrower than 0.5 px") != std::string::npos);
  }
  SUBCASE("at most 64 levels") {
    Frame root = flame_node("f199", 100, 100);
    for (int i = 198; i >= 0; --i) {
      root = flame_node("f" + std::to_string(i), 100, 100, {std::move(root)});
    }
    const std::string svg = report::render_flame_graph(root, "deep");
    CHECK(flame_count_of(svg, "<rect") == 64);
    CHECK(svg.find("<title>f63\n") != std::string::npos);
    CHECK(svg.find("<title>f64\n") == std::string::npos);
    CHECK(svg.find("1 deeper than 64 levels") != std::string::npos);
    CHECK(flame_rect_of(svg, "f63").y == doctest::Approx(flame_rect_of(svg, "f0").y - 63 * 17));
  }
  SUBCASE("at most 5000 frames") {
    // 2000 children of 0.6 px, each with a child and a grandchild as wide.
    Frame root = flame_node("all", 2000, 2000);
    for (int i = 0; i < 2000; ++i) {
      root.children.push_back(flame_node("c", 1, 1, {flame_node("d", 1, 1, {flame_node("e", 1, 1)})}));
    }
    const std::string svg = report::render_flame_graph(root, "wide and deep");
    CHECK(flame_count_of(svg, "<rect") == 5000);
    CHECK(svg.find("1001 past the first 5000 frames") != std::string::npos);
    CHECK(svg.size() < k_limit);
    CHECK(svg.ends_with("</svg>\n"));
  }
}
