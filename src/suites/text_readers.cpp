// The harnesses whose output is lines of text or XML: `go test -bench`,
// Criterion's report on stdout, Catch2's XML reporter (-r xml) and the
// lines of Rust's bench harness (`cargo bench`).

#include "readers.hpp"

#include <refbench/util/strings.hpp>

#include <charconv>
#include <cmath>
#include <fmt/format.h>

namespace refbench::suites::detail {
namespace {

std::optional<double> number(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    const auto start = line.find_first_not_of(" \t\r", i);
    if (start == std::string_view::npos) {
      break;
    }
    const auto end = std::min(line.find_first_of(" \t\r", start), line.size());
    out.push_back(line.substr(start, end - start));
    i = end;
  }
  return out;
}

// The lines of `text`, each with its 1-based number.
template <typename F> void each_line(std::string_view text, F&& visit) {
  std::size_t number = 1;
  for (std::size_t start = 0; start <= text.size(); ++number) {
    const auto end = std::min(text.find('\n', start), text.size());
    visit(text.substr(start, end - start), number);
    start = end + 1;
  }
}

// Go's name of a benchmark without the "-P" it appends for GOMAXPROCS.
std::string without_procs(std::string_view name) {
  const auto dash = name.rfind('-');
  if (dash != std::string_view::npos && dash + 1 < name.size() &&
      name.find_first_not_of("0123456789", dash + 1) == std::string_view::npos) {
    return std::string(name.substr(0, dash));
  }
  return std::string(name);
}

// Go's unit as a measure name: ns/op → ns_per_op (and seconds), B/op →
// bytes_per_op, allocs/op → allocs_per_op; any other unit (MB/s, a
// b.ReportMetric unit) as written.
std::pair<std::string, double> go_measure(std::string_view unit, double value) {
  if (unit == "ns/op") {
    return {"ns_per_op", value * 1e-9};
  }
  if (unit == "B/op") {
    return {"bytes_per_op", value};
  }
  if (unit == "allocs/op") {
    return {"allocs_per_op", value};
  }
  return {std::string(unit), value};
}

std::string line_of(std::string_view source, std::size_t line) { return fmt::format("{}, line {}", source, line); }

// The XML entities Catch2 writes in attributes, decoded.
std::string unescape_xml(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      out += text[i];
      continue;
    }
    static constexpr std::pair<std::string_view, char> k_entities[]{
        {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    bool known = false;
    for (const auto& [entity, c] : k_entities) {
      if (text.substr(i, entity.size()) == entity) {
        out += c;
        i += entity.size() - 1;
        known = true;
        break;
      }
    }
    if (!known) {
      out += '&';
    }
  }
  return out;
}

// The value of attribute `name` in the inside of a tag `<...>`, or nullopt.
std::optional<std::string> attribute(std::string_view tag, std::string_view name) {
  for (std::size_t at = tag.find(name); at != std::string_view::npos; at = tag.find(name, at + 1)) {
    const bool starts = at > 0 && (tag[at - 1] == ' ' || tag[at - 1] == '\t' || tag[at - 1] == '\n');
    const auto rest = tag.substr(at + name.size());
    if (starts && rest.starts_with("=\"")) {
      const auto end = rest.find('"', 2);
      if (end == std::string_view::npos) {
        return std::nullopt;
      }
      return unescape_xml(rest.substr(2, end - 2));
    }
  }
  return std::nullopt;
}

// The `>` that closes the tag opened at `open`: the first outside a quoted
// attribute value (XML allows a raw `>` inside one, as in name="a > b").
std::size_t tag_end(std::string_view text, std::size_t open) {
  char quote = 0;
  for (std::size_t i = open + 1; i < text.size(); ++i) {
    if (quote != 0) {
      quote = text[i] == quote ? 0 : quote;
    } else if (text[i] == '"' || text[i] == '\'') {
      quote = text[i];
    } else if (text[i] == '>') {
      return i;
    }
  }
  return std::string_view::npos;
}

} // namespace

Result read_go(std::string_view text, std::string_view source) {
  Collector collector;
  std::optional<std::string> problem;
  each_line(text, [&](std::string_view line, std::size_t number_of_line) {
    if (problem) {
      return;
    }
    const auto fields = words(line);
    if (fields.size() >= 3 && fields[0] == "---" && fields[1] == "FAIL:" && fields[2].starts_with("Benchmark")) {
      collector.fail(without_procs(fields[2]), "go test reports it as FAIL");
      return;
    }
    if (fields.size() < 2 || !fields[0].starts_with("Benchmark") || !number(fields[1])) {
      return; // a header, a log line, PASS or ok
    }
    if (fields.size() % 2 != 0) {
      problem = fmt::format("{}: `{}` has a value without its unit (VALUE UNIT pairs after the iteration count)",
                            line_of(source, number_of_line), fields[0]);
      return;
    }
    const std::string name = without_procs(fields[0]);
    for (std::size_t i = 2; i + 1 < fields.size(); i += 2) {
      auto value = number(fields[i]);
      if (!value) {
        problem = fmt::format("{}: `{}` reports {} where a number for {} belongs", line_of(source, number_of_line),
                              name, util::printable(fields[i]), util::printable(fields[i + 1]));
        return;
      }
      auto [measure, figure] = go_measure(fields[i + 1], *value);
      collector.add(name, measure, figure);
    }
  });
  if (problem) {
    return std::unexpected(*problem);
  }
  return collector.benchmarks();
}

Result read_criterion(std::string_view text, std::string_view source) {
  Collector collector;
  std::optional<std::string> problem;
  std::string last_name; // a long name stands on a line of its own, its figures on the next
  each_line(text, [&](std::string_view line, std::size_t number_of_line) {
    if (problem) {
      return;
    }
    const auto time = line.find("time:");
    const auto thrpt = line.find("thrpt:");
    const auto at = time != std::string_view::npos ? time : thrpt;
    if (at == std::string_view::npos) {
      const auto trimmed = util::trim(line);
      if (!trimmed.empty() && line.front() != ' ' && !trimmed.starts_with("Benchmarking ") &&
          !trimmed.starts_with("Found ") && !trimmed.starts_with("Gnuplot") && !trimmed.starts_with("WARNING")) {
        last_name = std::string(trimmed);
      }
      return;
    }
    const auto named = util::trim(line.substr(0, at));
    if (!named.empty()) {
      last_name = std::string(named);
    }
    const auto open = line.find('[', at);
    const auto close = line.find(']', at);
    const auto figures = open == std::string_view::npos || close == std::string_view::npos || close < open
                             ? std::vector<std::string_view>{}
                             : words(line.substr(open + 1, close - open - 1));
    if (!figures.empty() && figures.back().ends_with('%')) {
      return; // the change against Criterion's own saved baseline, not a figure
    }
    auto estimate = figures.size() == 6 ? number(figures[2]) : std::nullopt;
    if (last_name.empty() || !estimate) {
      problem = fmt::format("{}: `{}` is not Criterion's [LOW UNIT ESTIMATE UNIT HIGH UNIT]",
                            line_of(source, number_of_line), util::printable(util::trim(line.substr(at))));
      return;
    }
    const auto unit = figures[3];
    if (time != std::string_view::npos) {
      auto seconds = seconds_of(*estimate, unit);
      if (!seconds) {
        problem = fmt::format("{}: `{}` has the time unit {}, not ps, ns, µs, ms or s", line_of(source, number_of_line),
                              last_name, util::printable(unit));
        return;
      }
      collector.add(last_name, "time", *seconds);
      return;
    }
    // throughput: elem/s or B/s with a decimal (K, M, G) or binary (Ki, Mi, Gi) prefix
    static constexpr std::pair<std::string_view, double> k_prefixes[]{
        {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"", 1.0}};
    for (const auto& [prefix, scale] : k_prefixes) {
      if (!unit.starts_with(prefix)) {
        continue;
      }
      const auto rest = unit.substr(prefix.size());
      if (rest == "elem/s" || rest == "B/s") {
        collector.add(last_name, rest == "B/s" ? "bytes_per_second" : "elements_per_second", *estimate * scale);
        return;
      }
    }
    problem = fmt::format("{}: `{}` has the throughput unit {}, not elem/s or B/s", line_of(source, number_of_line),
                          last_name, util::printable(unit));
  });
  if (problem) {
    return std::unexpected(*problem);
  }
  return collector.benchmarks();
}

Result read_catch2(std::string_view text, std::string_view source) {
  if (text.find("<Catch") == std::string_view::npos) {
    return std::unexpected(fmt::format("{} is not Catch2's XML report: run the tests with `-r xml`", source));
  }
  Collector collector;
  std::string current; // the BenchmarkResults element being read
  for (std::size_t open = text.find('<'); open != std::string_view::npos; open = text.find('<', open + 1)) {
    const auto close = tag_end(text, open);
    if (close == std::string_view::npos) {
      return std::unexpected(fmt::format("{}: a tag is not closed", line_at(text, open, source)));
    }
    const auto tag = text.substr(open + 1, close - open - 1);
    if (tag.starts_with("BenchmarkResults ")) {
      auto name = attribute(tag, "name");
      if (!name || name->empty()) {
        return std::unexpected(fmt::format("{}: `BenchmarkResults` has no name", line_at(text, open, source)));
      }
      current = *name;
      const auto iterations = attribute(tag, "iterations");
      const auto samples = attribute(tag, "samples");
      const auto each = iterations ? number(*iterations) : std::nullopt;
      const auto runs = samples ? number(*samples) : std::nullopt;
      if (each && runs && *each >= 1 && *runs >= 1) {
        collector.iterations(current, *each, *runs);
      }
    } else if (tag.starts_with("/BenchmarkResults")) {
      current.clear();
    } else if (!current.empty() && tag.starts_with("mean ")) {
      auto value = attribute(tag, "value");
      auto figure = value ? number(*value) : std::nullopt;
      if (!figure) {
        return std::unexpected(fmt::format("{}: `{}`'s mean value is {}, not a number of nanoseconds",
                                           line_at(text, open, source), current,
                                           value ? util::printable(*value) : std::string("missing")));
      }
      collector.add(current, "mean", *figure * 1e-9);
    } else if (!current.empty() && tag.starts_with("failed ")) {
      collector.fail(current, attribute(tag, "message").value_or("Catch2 reports it as failed"));
    }
    open = close;
  }
  return collector.benchmarks();
}

Result read_cargo_bench(std::string_view text, std::string_view source) {
  Collector collector;
  std::optional<std::string> problem;
  each_line(text, [&](std::string_view line, std::size_t number_of_line) {
    const auto dots = line.find(" ... ");
    if (problem || !line.starts_with("test ") || dots == std::string_view::npos) {
      return; // "running N tests", a failure's output, "test result: …"
    }
    const std::string name(util::trim(line.substr(5, dots - 5)));
    const auto outcome = words(line.substr(dots + 5));
    if (!outcome.empty() && outcome[0] == "FAILED") {
      collector.fail(name, "the bench harness reports it as FAILED");
      return;
    }
    if (outcome.empty() || outcome[0] != "bench:") {
      return; // a plain test: ok, ignored
    }
    std::string figure = outcome.size() >= 2 ? std::string(outcome[1]) : std::string();
    std::erase(figure, ','); // 34,179 (and 34,031.03 from newer Rust)
    const auto value = number(figure);
    if (!value || outcome.size() < 3 || outcome[2] != "ns/iter") {
      problem =
          fmt::format("{}: `{}` reports {} where a number of ns/iter belongs", line_of(source, number_of_line),
                      util::printable(name), util::printable(util::trim(line.substr(line.find("bench:", dots) + 6))));
      return;
    }
    collector.add(name, "ns_per_iter", *seconds_of(*value, "ns"));
  });
  if (problem) {
    return std::unexpected(*problem);
  }
  return collector.benchmarks();
}

} // namespace refbench::suites::detail
