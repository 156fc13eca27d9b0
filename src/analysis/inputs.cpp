#include <refbench/analysis/inputs.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/json_input.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

namespace refbench::analysis {
namespace {

[[noreturn]] void bad_input(const std::string& where, const std::string& problem, const std::string& hint) {
  throw UsageError(where + ": " + problem, hint);
}

// A positive finite number, or a UsageError naming the column and the text.
double positive_number(const std::string& text, const std::string& where, const std::string& column) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) {
    bad_input(where, fmt::format("{} '{}' is not a number", column, text), "fix the value or drop the row");
  }
  if (value <= 0) {
    bad_input(where, fmt::format("{} {} is not positive (ratios need positive values)", column, text),
              "drop the row or shift the metric so it is positive");
  }
  return value;
}

// The cells of a CSV in order of first appearance, with their metrics found
// by name in constant expected time (a scan per row would make reading
// many cells quadratic).
class CellIndex {
public:
  explicit CellIndex(std::vector<CellSamples>& cells) : m_cells(cells) {}

  // The samples of `metric` in `cell`, appended (cell or metric) on first use.
  MetricSamples& metric(const std::string& cell, const std::string& metric, Direction direction) {
    auto [c, new_cell] = m_cell_index.try_emplace(cell, m_cells.size());
    if (new_cell) {
      m_cells.push_back({cell, false, std::nullopt, {}});
      m_metric_index.emplace_back();
    }
    auto& samples = m_cells[c->second].metrics;
    auto [m, new_metric] = m_metric_index[c->second].try_emplace(metric, samples.size());
    if (new_metric) {
      samples.push_back(empty_metric(metric, direction));
    }
    return samples[m->second];
  }

private:
  static MetricSamples empty_metric(const std::string& metric, Direction direction) {
    MetricSamples samples;
    samples.metric = metric;
    samples.unit = metric == "wall" || metric == "cpu" ? Unit::seconds : Unit::plain;
    samples.direction = direction;
    samples.gated = true;
    return samples;
  }

  std::vector<CellSamples>& m_cells;
  std::unordered_map<std::string, std::size_t> m_cell_index;                // name → index in m_cells
  std::vector<std::unordered_map<std::string, std::size_t>> m_metric_index; // per cell: metric → index
};

} // namespace

bool split_csv_line(const std::string& line, std::vector<std::string>& fields) {
  fields.clear();
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back(util::trim(field));
      field.clear();
    } else {
      field += c;
    }
  }
  fields.emplace_back(util::trim(field));
  return !quoted;
}

std::vector<CellSamples> parse_pairs_csv(const std::string& input, const std::string& source,
                                         const std::string& default_cell, Direction direction) {
  const std::string_view text = util::without_bom(input);
  std::vector<CellSamples> cells;
  CellIndex index(cells);
  std::map<std::string, std::size_t> column;
  std::vector<std::string> fields;
  std::size_t line_number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = std::min(text.find('\n', start), text.size());
    std::string line(text.substr(start, end - start));
    start = end + 1;
    ++line_number;
    const std::string where = fmt::format("{}:{}", source, line_number);
    if (util::trim(line).empty()) {
      continue;
    }
    if (!split_csv_line(line, fields)) {
      bad_input(where, "unterminated quote", "close the quote");
    }
    if (column.empty()) {
      for (std::size_t i = 0; i < fields.size(); ++i) {
        if (!column.emplace(fields[i], i).second) {
          bad_input(where, fmt::format("column '{}' appears twice in the header", fields[i]), "rename one of them");
        }
      }
      for (const char* required : {"baseline", "candidate"}) {
        if (!column.contains(required)) {
          bad_input(where, fmt::format("the header has no '{}' column", required),
                    "the first line must name the columns, e.g. round,baseline,candidate");
        }
      }
      continue;
    }
    if (fields.size() != column.size()) {
      bad_input(where, fmt::format("{} fields, the header has {}", fields.size(), column.size()),
                "give every row the header's columns");
    }
    auto get = [&](const char* name, const std::string& fallback) {
      auto it = column.find(name);
      return it == column.end() ? fallback : fields[it->second];
    };
    auto& metric = index.metric(get("cell", default_cell), get("metric", "value"), direction);
    metric.baseline.push_back(positive_number(fields[column["baseline"]], where, "baseline"));
    metric.candidate.push_back(positive_number(fields[column["candidate"]], where, "candidate"));
  }
  if (column.empty()) {
    bad_input(source, "empty file", "pass a CSV with a header line and one pair a row");
  }
  return cells;
}

std::vector<CellSamples> parse_hyperfine_json(const std::string& text, const std::string& source,
                                              const std::string& cell, Direction direction) {
  auto parsed = util::parse_json(text);
  if (!parsed) {
    bad_input(source, parsed.error(), "pass the file hyperfine --export-json wrote");
  }
  const nlohmann::json& document = *parsed;
  if (!document.is_object() || !document.contains("results") || !document["results"].is_array() ||
      document["results"].size() != 2) {
    bad_input(source, "a hyperfine export needs exactly two results (baseline first, then candidate)",
              "run hyperfine with the two commands to compare");
  }
  auto times = [&](std::size_t index) {
    std::vector<double> values;
    const auto& result = document["results"][index];
    if (!result.is_object() || !result.contains("times") || !result["times"].is_array()) {
      bad_input(source, fmt::format("results[{}] has no 'times' array", index), "use hyperfine 1.12 or newer");
    }
    for (const auto& t : result["times"]) {
      if (!t.is_number() || t.get<double>() <= 0) {
        bad_input(source, fmt::format("results[{}].times holds a non-positive or non-numeric value", index),
                  "pass the file hyperfine --export-json wrote");
      }
      values.push_back(t.get<double>());
    }
    return values;
  };
  MetricSamples wall;
  wall.metric = "wall";
  wall.unit = Unit::seconds;
  wall.direction = direction;
  wall.gated = true;
  wall.paired = false;
  wall.baseline = times(0);
  wall.candidate = times(1);
  return {{cell, false, std::nullopt, {std::move(wall)}}};
}

} // namespace refbench::analysis
