#include "snapshot.hpp"

#include <doctest/doctest.h>

#include <refbench/formats/exports.hpp>
#include <refbench/formats/output_formats.hpp>
#include <refbench/formats/results_json.hpp>
#include <refbench/report/csv.hpp>
#include <refbench/report/markdown.hpp>

#include <filesystem>
#include <set>

using namespace refbench;

namespace {

// The golden results.json (test_formats_results_json.cpp) as a run document.
report::RunDocument output_formats_document() {
  const auto path = std::filesystem::path(REFBENCH_SNAPSHOT_DIR) / "results.json";
  return formats::read_document(path.string(), test::read_text(path));
}

} // namespace

TEST_CASE("formats::output_formats: one row per format, named as --format takes it, each its renderer") {
  const auto document = output_formats_document();
  std::set<std::string_view> names;
  for (const auto& row : formats::output_formats()) {
    CHECK(names.insert(row.name).second);
    CHECK(formats::k_output_format_names.parse(row.name) == row.format);
    CHECK(&formats::output_format_info(row.format) == &row);
    REQUIRE((row.render != nullptr));
    const std::string text = row.render(document, {});
    CHECK_FALSE(text.empty());
  }
  CHECK(names.size() == formats::k_output_format_count);
  CHECK(formats::k_output_format_names.list(", ", " or ") == "markdown, json, csv, bmf or github-action-benchmark");

  // each row renders what its renderer of old rendered, byte for byte
  using formats::OutputFormat;
  const auto render = [&](OutputFormat format, formats::RenderOptions options = {}) {
    return formats::output_format_info(format).render(document, options);
  };
  CHECK(render(OutputFormat::markdown) == report::render_markdown(document));
  CHECK(render(OutputFormat::markdown, {.quiet = true}) ==
        report::render_verdict_table(document.results, report::VerdictColour::plain));
  CHECK(render(OutputFormat::csv) == report::render_csv(document.results));
  CHECK(render(OutputFormat::json) == test::read_text(std::filesystem::path(REFBENCH_SNAPSHOT_DIR) / "results.json"));
  CHECK(nlohmann::json::parse(render(OutputFormat::bmf)) == formats::to_bmf(document));
  CHECK(nlohmann::json::parse(render(OutputFormat::github_action_benchmark)) ==
        formats::to_github_action_benchmark(document));
}
