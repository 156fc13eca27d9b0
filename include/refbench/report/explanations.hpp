#pragma once
// The "Where" sections of report.md and the PR comment (docs/manual/explanations.md): per explained cell, a collapsed
// section with the functions whose instructions moved most and the allocation sites whose allocations moved most;
// results.json has all of them.

#include <refbench/report/run_document.hpp>

#include <cstddef>
#include <string>

namespace refbench::report {

// How much of the explanations the Markdown shows: the cells, and per cell
// the functions and allocation sites (the rest are in results.json).
inline constexpr std::size_t k_where_cells = 10;
inline constexpr std::size_t k_where_functions = 8;
inline constexpr std::size_t k_where_sites = 5;

// The explanations of `document` as Markdown, at most `limit` bytes (whole
// sections only; a note says how many more results.json has); "" when
// there are none.
std::string render_explanations(const RunDocument& document, std::size_t limit);

// A count with thousands separated by thin spaces ("1 234 567"); signed
// with `sign` ("+1 234", "−56").
std::string format_count(double count, bool sign = false);

} // namespace refbench::report
