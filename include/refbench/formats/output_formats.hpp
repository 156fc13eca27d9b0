#pragma once
// The formats `analyze` and `report` print a run in (docs/manual/commands.md#exports), one
// row each of one table: the word `--format` takes and the renderer. To add
// one: its value here (and k_output_format_count), its row in
// output_formats.cpp; the check there and the unit test cover the rest.

#include <refbench/report/run_document.hpp>
#include <refbench/report/verdict_table.hpp>
#include <refbench/util/enum_names.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace refbench::formats {

enum class OutputFormat { markdown, json, csv, bmf, github_action_benchmark };
inline constexpr std::size_t k_output_format_count = 5; // the OutputFormat values, one row each

// How a renderer is asked for its text: `quiet` (markdown: the verdict
// table alone) and that table's `colour`.
struct RenderOptions {
  bool quiet = false;
  report::VerdictColour colour = report::VerdictColour::plain;
};

// One output format: its word and its renderer of a whole run document
// (text that ends in a newline).
struct OutputFormatInfo {
  OutputFormat format;
  std::string_view name;
  std::string (*render)(const report::RunDocument& document, const RenderOptions& options);
};

// Every output format, in OutputFormat's order.
std::span<const OutputFormatInfo> output_formats();
const OutputFormatInfo& output_format_info(OutputFormat format);

// The words of the formats, each row's name in the table's order:
// `--format`'s choices.
extern const util::EnumNames<OutputFormat, k_output_format_count> k_output_format_names;

// results.json's text: the run document as JSON, indented, invalid UTF-8 replaced.
std::string results_text(const report::RunDocument& document);

} // namespace refbench::formats
