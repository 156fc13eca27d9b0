// The harnesses whose output is one JSON document: Google Benchmark
// (--benchmark_format=json or --benchmark_out), pytest-benchmark
// (--benchmark-json), hyperfine (--export-json) and Bencher Metric Format.

#include "readers.hpp"

#include <refbench/util/json_input.hpp>

#include <cmath>
#include <fmt/format.h>
#include <set>

namespace refbench::suites::detail {
namespace {

using nlohmann::json;

// Where benchmark `name` is reported in `text` — "SOURCE, line N", the
// line of its quoted name — found only when a message needs it: a search
// of the text for every benchmark took time in the square of their number.
struct Where {
  std::string_view text;
  const std::string& name;
  std::string_view source;
  std::string operator()() const {
    return where_in(text, json(name).dump(-1, ' ', false, json::error_handler_t::replace), source);
  }
};

std::string field_problem(const std::string& where, const std::string& path, const json& value,
                          std::string_view wanted) {
  return fmt::format("{}: `{}` is {}, not {}", where, path, util::json_excerpt(value), wanted);
}

// `text` as a JSON document, or why it is none: "SOURCE, line N is not
// the JSON of HARNESS: …".
std::expected<json, std::string> harness_json_document(std::string_view text, std::string_view source,
                                                       Harness harness) {
  auto document = util::parse_json(text);
  if (!document) {
    const auto at = document.error().find("at byte ");
    const auto offset = at == std::string::npos ? std::string::npos : std::stoull(document.error().substr(at + 8));
    return std::unexpected(fmt::format(
        "{} is not the JSON of {}: {}",
        offset == std::string::npos ? std::string(source) : line_at(text, offset == 0 ? 0 : offset - 1, source),
        harness_name(harness), document.error()));
  }
  return std::move(*document);
}

// The array `key` of `document`, or why there is none.
std::expected<const json*, std::string> entries(const json& document, std::string_view key, std::string_view source,
                                                std::string_view harness) {
  const json* list = util::json_member(document, key);
  if (list == nullptr || !list->is_array()) {
    return std::unexpected(fmt::format("{}: `{}` is {}, not an array of benchmarks: is this {} output?", source, key,
                                       list == nullptr ? std::string("missing") : util::json_excerpt(*list), harness));
  }
  return list;
}

// The string `key` of entry `index`, or why it is none.
std::expected<std::string, std::string> name_of(const json& entry, std::string_view key, const std::string& path,
                                                std::string_view source) {
  const json* name = util::json_member(entry, key);
  if (name == nullptr || !name->is_string() || name->get<std::string>().empty()) {
    return std::unexpected(field_problem(std::string(source), fmt::format("{}.{}", path, key),
                                         name == nullptr ? json() : *name, "a benchmark's name"));
  }
  return name->get<std::string>();
}

// Member `key` of `entry` as a finite number (one no ratio can be taken of
// is its benchmark's ERROR, after: read_suite).
std::expected<double, std::string> figure(const json& entry, std::string_view key, const std::string& path,
                                          const Where& where) {
  const json* value = util::json_member(entry, key);
  if (value == nullptr || !value->is_number() || !std::isfinite(value->get<double>())) {
    return std::unexpected(
        field_problem(where(), fmt::format("{}.{}", path, key), value == nullptr ? json() : *value, "a number"));
  }
  return value->get<double>();
}

// The members of a Google Benchmark entry that are not user counters.
const std::set<std::string, std::less<>>& google_fields() {
  static const std::set<std::string, std::less<>> k_fields{"name",
                                                           "family_index",
                                                           "per_family_instance_index",
                                                           "run_name",
                                                           "run_type",
                                                           "repetitions",
                                                           "repetition_index",
                                                           "threads",
                                                           "iterations",
                                                           "real_time",
                                                           "cpu_time",
                                                           "time_unit",
                                                           "aggregate_name",
                                                           "aggregate_unit",
                                                           "label",
                                                           "error_occurred",
                                                           "error_message",
                                                           "big_o",
                                                           "rms",
                                                           "complexity_n"};
  return k_fields;
}

} // namespace

Result read_google_benchmark(std::string_view text, std::string_view source) {
  const auto parsed = harness_json_document(text, source, Harness::google_benchmark);
  if (!parsed) {
    return std::unexpected(parsed.error());
  }
  const json& document = *parsed;
  auto list = entries(document, "benchmarks", source, "Google Benchmark JSON (--benchmark_format=json)");
  if (!list) {
    return std::unexpected(list.error());
  }
  Collector collector;
  for (std::size_t i = 0; i < (*list)->size(); ++i) {
    const json& entry = (**list)[i];
    const std::string path = fmt::format("benchmarks[{}]", i);
    // the plain runs only: the harness's own mean, median, stddev and BigO rows are aggregates, not samples
    if (const json* type = util::json_member(entry, "run_type"); type != nullptr && *type == "aggregate") {
      continue;
    }
    auto name = name_of(entry, util::json_member(entry, "run_name") != nullptr ? "run_name" : "name", path, source);
    if (!name) {
      return std::unexpected(name.error());
    }
    const Where where{text, *name, source};
    if (const json* failed = util::json_member(entry, "error_occurred"); failed != nullptr && *failed == true) {
      const json* message = util::json_member(entry, "error_message");
      collector.fail(*name, message != nullptr && message->is_string() ? message->get<std::string>() : "failed");
      continue;
    }
    if (const json* iterations = util::json_member(entry, "iterations");
        iterations != nullptr && iterations->is_number() && iterations->get<double>() >= 1) {
      collector.iterations(*name, iterations->get<double>());
    }
    const json* unit = util::json_member(entry, "time_unit");
    const std::string unit_word = unit != nullptr && unit->is_string() ? unit->get<std::string>() : "ns";
    for (const char* key : {"real_time", "cpu_time"}) {
      auto value = figure(entry, key, path, where);
      if (!value) {
        return std::unexpected(value.error());
      }
      auto seconds = seconds_of(*value, unit_word);
      if (!seconds) {
        return std::unexpected(field_problem(where(), path + ".time_unit", *unit, "a time unit (ns, us, ms, s)"));
      }
      collector.add(*name, key, *seconds);
    }
    for (const auto& [key, value] : entry.items()) {
      if (!google_fields().contains(key) && value.is_number()) {
        auto counter = figure(entry, key, path, where);
        if (!counter) {
          return std::unexpected(counter.error());
        }
        collector.add(*name, key, *counter);
      }
    }
  }
  return collector.benchmarks();
}

Result read_pytest_benchmark(std::string_view text, std::string_view source) {
  const auto parsed = harness_json_document(text, source, Harness::pytest_benchmark);
  if (!parsed) {
    return std::unexpected(parsed.error());
  }
  const json& document = *parsed;
  auto list = entries(document, "benchmarks", source, "pytest-benchmark JSON (--benchmark-json)");
  if (!list) {
    return std::unexpected(list.error());
  }
  std::set<std::string> names; // a name used twice (two files' test_x) is told apart by its fullname
  bool twice = false;
  for (const auto& entry : **list) {
    const json* name = util::json_member(entry, "name");
    twice = twice || (name != nullptr && name->is_string() && !names.insert(name->get<std::string>()).second);
  }
  Collector collector;
  for (std::size_t i = 0; i < (*list)->size(); ++i) {
    const json& entry = (**list)[i];
    const std::string path = fmt::format("benchmarks[{}]", i);
    auto name = name_of(entry, twice ? "fullname" : "name", path, source);
    if (!name) {
      return std::unexpected(name.error());
    }
    const Where where{text, *name, source};
    const json* stats = util::json_member(entry, "stats");
    if (stats == nullptr || !stats->is_object()) {
      return std::unexpected(
          field_problem(where(), path + ".stats", stats == nullptr ? json() : *stats, "an object of statistics"));
    }
    for (const char* key : {"mean", "median", "min", "ops"}) {
      auto value = figure(*stats, key, path + ".stats", where);
      if (!value) {
        return std::unexpected(value.error());
      }
      collector.add(*name, key, *value);
    }
  }
  return collector.benchmarks();
}

Result read_hyperfine(std::string_view text, std::string_view source) {
  const auto parsed = harness_json_document(text, source, Harness::hyperfine);
  if (!parsed) {
    return std::unexpected(parsed.error());
  }
  const json& document = *parsed;
  auto list = entries(document, "results", source, "a hyperfine export (--export-json)");
  if (!list) {
    return std::unexpected(list.error());
  }
  Collector collector;
  for (std::size_t i = 0; i < (*list)->size(); ++i) {
    const json& entry = (**list)[i];
    const std::string path = fmt::format("results[{}]", i);
    auto name = name_of(entry, "command", path, source);
    if (!name) {
      return std::unexpected(name.error());
    }
    const Where where{text, *name, source};
    for (const char* key : {"mean", "median", "user", "system"}) {
      auto value = figure(entry, key, path, where);
      if (!value) {
        return std::unexpected(value.error());
      }
      collector.add(*name, key, *value);
    }
  }
  return collector.benchmarks();
}

Result read_bmf(std::string_view text, std::string_view source) {
  const auto parsed = harness_json_document(text, source, Harness::bmf);
  if (!parsed) {
    return std::unexpected(parsed.error());
  }
  const json& document = *parsed;
  if (!document.is_object()) {
    return std::unexpected(fmt::format("{} is {}, not a Bencher Metric Format object of benchmarks", source,
                                       util::json_excerpt(document)));
  }
  Collector collector;
  for (const auto& [name, measures] : document.items()) {
    const Where where{text, name, source};
    if (name.empty() || !measures.is_object()) {
      return std::unexpected(field_problem(where(), name, measures, "an object of measures"));
    }
    for (const auto& [measure, metric] : measures.items()) {
      auto value = figure(metric, "value", fmt::format("{}.{}", name, measure), where);
      if (!value) {
        return std::unexpected(value.error());
      }
      // Bencher's latency is in nanoseconds; refbench keeps times in seconds
      collector.add(name, measure, measure == "latency" ? *value * 1e-9 : *value);
    }
  }
  return collector.benchmarks();
}

} // namespace refbench::suites::detail
