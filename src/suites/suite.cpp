#include "readers.hpp"

#include <refbench/util/json_input.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <limits>

namespace refbench::suites {
namespace {

bool is_rate(std::string_view measure) { return measure.ends_with("_per_second") || measure.ends_with("/s"); }

MeasureInfo time_measure() { return {Quantity::time, false, "", false}; }

MeasureInfo plain_measure(std::string_view measure, std::string label = "") {
  return {Quantity::plain, is_rate(measure), label.empty() ? std::string(measure) : std::move(label), false};
}

// `text` as a regular expression that matches it alone (ERE, ECMAScript
// and Rust's regex alike): every special character escaped.
std::string regex_literal(std::string_view text) {
  std::string regex;
  for (char c : text) {
    if (std::string_view("\\^$.|+()[]{}*?").find(c) != std::string_view::npos) {
      regex += '\\';
    }
    regex += c;
  }
  return regex;
}

// A glob (* and ?) as an anchored regular expression.
std::string regex_of_glob(std::string_view glob) {
  std::string regex = "^";
  for (char c : glob) {
    regex += c == '*' ? std::string(".*") : c == '?' ? std::string(".") : regex_literal(std::string_view(&c, 1));
  }
  return regex + "$";
}

// Whether a 0 of `measure` is a reading: a count (Go's allocs/op), a user
// counter that is no rate, hyperfine's user and system times (below the
// rusage resolution, as refbench's own cpu); a time, a rate, a size or a
// BMF measure of 0 is no figure.
bool zero_is_a_reading(Harness harness, std::string_view measure) {
  const auto info = measure_info(harness, measure);
  if (harness == Harness::hyperfine) {
    return measure == "user" || measure == "system";
  }
  return info.counted ||
         (harness != Harness::bmf && info.quantity == Quantity::plain && !info.higher_is_better && !is_rate(measure));
}

// Each figure no ratio can be taken of — negative, 0 where 0 is no
// reading, or below the smallest normal double (its logarithm and any
// ratio of it lose their meaning) — is its benchmark's ERROR naming it:
// never a silent "—" (README: Suites).
void refuse_unusable_figures(Harness harness, Benchmarks& benchmarks) {
  for (auto& benchmark : benchmarks) {
    for (const auto& [measure, value] : benchmark.values) {
      if (!benchmark.error.empty()) {
        break;
      }
      const bool zero = value == 0 && zero_is_a_reading(harness, measure);
      if (!zero && !(value >= std::numeric_limits<double>::min())) {
        benchmark.error =
            fmt::format("it reports {} = {}, not a positive number refbench can take a ratio of", measure, value);
      }
    }
  }
}

} // namespace

MeasureInfo measure_info(Harness harness, std::string_view measure) {
  switch (harness) {
  case Harness::google_benchmark:
    return measure == "real_time" || measure == "cpu_time" ? time_measure()
           : measure == "bytes_per_second"                 ? plain_measure(measure, "B/s")
           : measure == "items_per_second"                 ? plain_measure(measure, "items/s")
                                                           : plain_measure(measure);
  case Harness::go:
    return measure == "ns_per_op"       ? time_measure()
           : measure == "bytes_per_op"  ? MeasureInfo{Quantity::bytes, false, "", true}
           : measure == "allocs_per_op" ? MeasureInfo{Quantity::plain, false, "allocs/op", true}
                                        : plain_measure(measure);
  case Harness::criterion:
    return measure == "time"                  ? time_measure()
           : measure == "bytes_per_second"    ? plain_measure(measure, "B/s")
           : measure == "elements_per_second" ? plain_measure(measure, "elements/s")
                                              : plain_measure(measure);
  case Harness::pytest_benchmark:
    return measure == "ops" ? MeasureInfo{Quantity::plain, true, "ops/s", false} : time_measure();
  case Harness::catch2:
  case Harness::hyperfine:
    return time_measure();
  case Harness::bmf:
    return measure == "latency" || measure == "build-time" ? time_measure()
           : measure == "throughput"                       ? MeasureInfo{Quantity::plain, true, "ops/s", false}
           : measure == "file-size"                        ? MeasureInfo{Quantity::bytes, false, "", false}
                                                           : plain_measure(measure);
  }
  return plain_measure(measure);
}

bool primary_measure(Harness harness, std::string_view measure) {
  switch (harness) {
  case Harness::google_benchmark:
    return measure == "real_time";
  case Harness::go:
    return measure == "ns_per_op";
  case Harness::criterion:
    return measure == "time";
  case Harness::pytest_benchmark:
  case Harness::catch2:
  case Harness::hyperfine:
    return measure == "mean";
  case Harness::bmf:
    return true;
  }
  return false;
}

std::expected<Benchmarks, std::string> read_suite(Harness harness, std::string_view text, std::string_view source) {
  text = util::without_bom(text);
  if (util::trim(text).empty()) {
    return std::unexpected(fmt::format("{} is empty: the {} harness reported nothing", source, harness_name(harness)));
  }
  detail::Result result;
  if (harness == Harness::go || harness == Harness::criterion || harness == Harness::catch2) {
    result = harness == Harness::go          ? detail::read_go(text, source)
             : harness == Harness::criterion ? detail::read_criterion(text, source)
                                             : detail::read_catch2(text, source);
  } else {
    auto document = util::parse_json(text);
    if (!document) {
      const auto at = document.error().find("at byte ");
      const auto offset = at == std::string::npos ? std::string::npos : std::stoull(document.error().substr(at + 8));
      return std::unexpected(fmt::format("{} is not the JSON of {}: {}",
                                         offset == std::string::npos
                                             ? std::string(source)
                                             : detail::line_at(text, offset == 0 ? 0 : offset - 1, source),
                                         harness_name(harness), document.error()));
    }
    result = harness == Harness::google_benchmark   ? detail::read_google_benchmark(*document, text, source)
             : harness == Harness::pytest_benchmark ? detail::read_pytest_benchmark(*document, text, source)
             : harness == Harness::hyperfine        ? detail::read_hyperfine(*document, text, source)
                                                    : detail::read_bmf(*document, text, source);
  }
  if (result && result->empty()) {
    return std::unexpected(fmt::format("{} reports no benchmark ({} output)", source, harness_name(harness)));
  }
  if (result) {
    refuse_unusable_figures(harness, *result);
  }
  return result;
}

std::optional<std::vector<std::string>> filter_arguments(Harness harness, std::string_view pattern) {
  if (pattern.find('[') != std::string_view::npos) {
    return std::nullopt; // a bracket class: the whole suite runs, and the rows are picked afterwards
  }
  if (harness == Harness::google_benchmark) {
    return std::vector<std::string>{"--benchmark_filter=" + regex_of_glob(pattern)};
  }
  if (harness == Harness::go) { // -bench matches each '/' level apart: the top level is a superset
    return std::vector<std::string>{"-bench=" + regex_of_glob(pattern.substr(0, pattern.find('/')))};
  }
  if (harness == Harness::criterion) { // a bench executable's positional FILTER, a regex over the whole id
    return std::vector<std::string>{regex_of_glob(pattern)};
  }
  return std::nullopt;
}

std::optional<std::vector<std::string>> family_filter_arguments(Harness harness,
                                                                const std::vector<std::string>& families) {
  if (families.empty()) {
    return std::nullopt;
  }
  std::string alternatives;
  for (const auto& family : families) {
    alternatives += (alternatives.empty() ? "" : "|") + regex_literal(family);
  }
  if (harness == Harness::google_benchmark) {
    return std::vector<std::string>{"--benchmark_filter=^(" + alternatives + ")(/.*)?$"};
  }
  if (harness == Harness::go) {
    return std::vector<std::string>{"-bench=^(" + alternatives + ")$"};
  }
  if (harness == Harness::criterion) {
    return std::vector<std::string>{"^(" + alternatives + ")(/.*)?$"};
  }
  return std::nullopt;
}

std::optional<SweepLevel> sweep_level(std::string_view benchmark) {
  const auto slash = benchmark.rfind('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == benchmark.size()) {
    return std::nullopt;
  }
  SweepLevel level{std::string(benchmark.substr(0, slash)), "arg", std::string(benchmark.substr(slash + 1))};
  if (const auto named = level.value.find_first_of("=:"); named != std::string::npos && named > 0) {
    level.param = level.value.substr(0, named);
    level.value = level.value.substr(named + 1);
  }
  return level;
}

namespace detail {

std::string line_at(std::string_view text, std::size_t offset, std::string_view source) {
  offset = std::min(offset, text.size());
  const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
  return fmt::format("{}, line {}", source, line);
}

std::string where_in(std::string_view text, std::string_view needle, std::string_view source) {
  const auto at = needle.empty() ? std::string_view::npos : text.find(needle);
  return at == std::string_view::npos ? std::string(source) : line_at(text, at, source);
}

std::size_t Collector::index_of(const std::string& name) {
  auto [it, added] = m_index.try_emplace(name, m_order.size());
  if (added) {
    m_order.push_back(name);
    m_values.emplace_back();
    m_errors.emplace_back();
  }
  return it->second;
}

void Collector::add(const std::string& name, const std::string& measure, double value) {
  m_values[index_of(name)][measure].push_back(value);
}

void Collector::fail(const std::string& name, const std::string& error) {
  auto& kept = m_errors[index_of(name)];
  if (kept.empty()) {
    kept = error;
  }
}

Benchmarks Collector::benchmarks() const {
  Benchmarks benchmarks;
  for (std::size_t i = 0; i < m_order.size(); ++i) {
    Benchmark benchmark{m_order[i], {}, m_errors[i]};
    for (auto values : m_values[i]) { // a copy: sorted for its median
      auto& figures = values.second;
      std::sort(figures.begin(), figures.end());
      const std::size_t n = figures.size();
      benchmark.values[values.first] = n % 2 == 1 ? figures[n / 2] : (figures[n / 2 - 1] + figures[n / 2]) / 2;
    }
    benchmarks.push_back(std::move(benchmark));
  }
  return benchmarks;
}

std::optional<double> seconds_of(double value, std::string_view unit) {
  static const std::map<std::string_view, double, std::less<>> k_scale{
      {"ps", 1e-12}, {"ns", 1e-9}, {"us", 1e-6}, {"µs", 1e-6}, {"μs", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};
  auto it = k_scale.find(unit);
  if (it == k_scale.end()) {
    return std::nullopt;
  }
  return value * it->second;
}

} // namespace detail
} // namespace refbench::suites
