#include <refbench/formats/exports.hpp>
#include <refbench/formats/output_formats.hpp>
#include <refbench/formats/results_json.hpp>
#include <refbench/report/csv.hpp>
#include <refbench/report/markdown.hpp>

#include <array>

namespace refbench::formats {
namespace {

std::string dumped(const nlohmann::json& json) {
  return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

constexpr std::array<OutputFormatInfo, k_output_format_count> k_output_format_table{{
    {OutputFormat::markdown, "markdown",
     [](const report::RunDocument& document, const RenderOptions& options) {
       return options.quiet ? report::render_verdict_table(document.results, options.colour)
                            : report::render_markdown(document);
     }},
    {OutputFormat::json, "json",
     [](const report::RunDocument& document, const RenderOptions&) { return results_text(document); }},
    {OutputFormat::csv, "csv",
     [](const report::RunDocument& document, const RenderOptions&) { return report::render_csv(document.results); }},
    {OutputFormat::bmf, "bmf",
     [](const report::RunDocument& document, const RenderOptions&) { return dumped(to_bmf(document)); }},
    {OutputFormat::github_action_benchmark, "github-action-benchmark",
     [](const report::RunDocument& document, const RenderOptions&) {
       return dumped(to_github_action_benchmark(document));
     }},
}};

// Row i is OutputFormat i (its renderer: the unit test's).
static_assert(util::rows_in_enum_order(k_output_format_table, &OutputFormatInfo::format),
              "k_output_format_table: row i must be OutputFormat i");

} // namespace

constexpr util::EnumNames<OutputFormat, k_output_format_count> k_output_format_names =
    util::names_of_rows(k_output_format_table, &OutputFormatInfo::format, &OutputFormatInfo::name);

std::span<const OutputFormatInfo> output_formats() { return k_output_format_table; }

const OutputFormatInfo& output_format_info(OutputFormat format) {
  return k_output_format_table[static_cast<std::size_t>(format)];
}

std::string results_text(const report::RunDocument& document) { return dumped(to_json(document)); }

} // namespace refbench::formats
