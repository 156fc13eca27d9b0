#include <doctest/doctest.h>

#include <doubles/fake_executor.hpp>
#include <refbench/analysis/analysis.hpp>
#include <refbench/analysis/from_record.hpp>
#include <refbench/formats/records.hpp>
#include <refbench/model/command_output.hpp>
#include <refbench/model/pairs.hpp>
#include <refbench/runner/rounds.hpp>

#include <cmath>
#include <fmt/format.h>

using namespace refbench;
using namespace refbench::runner;
using namespace refbench::model;

namespace {

CellMeta json_meta(std::vector<std::string> keys, bool higher = true) {
  CellMeta meta;
  for (const auto& key : keys) {
    meta.custom.push_back({key, ReportSource::stdout_line, ReportFormat::json, key, higher, "req/s"});
  }
  return meta;
}

} // namespace

TEST_CASE("model::read_reported reads the last JSON line of stdout") {
  auto meta = json_meta({"throughput", "p99"});
  auto read = read_reported(meta, "warming up\n{\"p99\": 0.0125, \"throughput\": 3049.5, \"other\": \"x\"}\n\n");
  REQUIRE(read);
  CHECK(read->metrics.at("throughput") == 3049.5);
  CHECK(read->metrics.at("p99") == 0.0125);
  CHECK(read->metrics.size() == 2);

  SUBCASE("a pretty-printed document is read whole") {
    auto whole = read_reported(meta, "{\n  \"throughput\": 10,\n  \"p99\": 2e-3\n}\n");
    REQUIRE(whole);
    CHECK(whole->metrics.at("p99") == 0.002);
  }
  SUBCASE("N/A is an error naming the metric and the value found, never a zero") {
    auto na = read_reported(meta, "{\"throughput\": \"N/A\", \"p99\": 1}");
    REQUIRE_FALSE(na);
    CHECK(na.error() ==
          "reported no number for metric `throughput`: `throughput` is \"N/A\" in the last line of its stdout");
  }
  SUBCASE("a missing key") {
    auto missing = read_reported(meta, "{\"throughput\": 5}");
    REQUIRE_FALSE(missing);
    CHECK(missing.error() == "reported no number for metric `p99`: `p99` is missing from the last line of its stdout");
  }
  SUBCASE("null, arrays, zero and negative values") {
    CHECK(read_reported(meta, "{\"throughput\": null, \"p99\": 1}").error().find("is null in") != std::string::npos);
    CHECK(read_reported(meta, "{\"throughput\": [1], \"p99\": 1}").error().find("is [1] in") != std::string::npos);
    CHECK(read_reported(meta, "{\"throughput\": 0, \"p99\": 1}").error() ==
          "reported metric `throughput` = 0 in the last line of its stdout; ratios need a positive value (a metric "
          "that can be 0, like an error count, is kind = \"count\")");
    CHECK_FALSE(read_reported(meta, "{\"throughput\": -3, \"p99\": 1}"));
  }
  SUBCASE("a count metric reads 0 as a value, and refuses a negative or infinite one") {
    meta.custom[0].kind = MetricKind::count;
    auto zero = read_reported(meta, "{\"throughput\": 0, \"p99\": 1}");
    REQUIRE(zero);
    CHECK(zero->metrics.at("throughput") == 0);
    CHECK(read_reported(meta, "{\"throughput\": 2.5, \"p99\": 1}")->metrics.at("throughput") == 2.5);
    CHECK(read_reported(meta, "{\"throughput\": -1, \"p99\": 1}").error() ==
          "reported metric `throughput` = -1 in the last line of its stdout; a count is a number ≥ 0");
    CHECK_FALSE(read_reported(meta, "{\"throughput\": 1e999, \"p99\": 1}"));
    CHECK(read_reported(meta, "{\"throughput\": 1, \"p99\": 0}").error().find("`p99` = 0") != std::string::npos);
  }
  SUBCASE("no JSON at all, or nothing") {
    CHECK(read_reported(meta, "starting\nDone.\n").error() ==
          "reported no JSON object: the last line of its stdout is \"Done.\"");
    CHECK(read_reported(meta, "").error() == "reported nothing: the last line of its stdout is empty");
    CHECK(read_reported(meta, "[1, 2]").error() ==
          "reported no JSON object: the last line of its stdout is \"[1, 2]\"");
  }
  SUBCASE("a long found value is shortened") {
    auto long_value = read_reported(meta, fmt::format("{{\"throughput\": \"{}\", \"p99\": 1}}", std::string(500, 'x')));
    REQUIRE_FALSE(long_value);
    CHECK(long_value.error().size() < 200);
  }
}

TEST_CASE("model::read_reported reads Bencher Metric Format and {output} files") {
  CellMeta meta;
  meta.custom.push_back({"throughput", ReportSource::file, ReportFormat::bmf, "http/get/throughput", true, "req/s"});
  meta.custom.push_back({"latency", ReportSource::file, ReportFormat::bmf, "http/get/latency", false, "ms"});
  const std::string bmf = R"({"http/get": {"throughput": {"value": 3049.0, "lower_value": 2900, "upper_value": 3100},
                                           "latency": {"value": 12.5}}})";
  auto read = read_reported(meta, bmf);
  REQUIRE(read);
  CHECK(read->metrics.at("throughput") == 3049.0);
  CHECK(read->metrics.at("latency") == 12.5);
  CHECK(report_source(meta) == "its {output} file");
  CHECK(reads_output_file(meta));

  auto missing = read_reported(meta, R"({"http/get": {"throughput": {"value": 1}}})");
  REQUIRE_FALSE(missing);
  CHECK(missing.error() == "reported no number for metric `latency`: `http/get/latency` (Bencher Metric Format) is "
                           "missing from its {output} file");
  auto not_number = read_reported(meta, R"({"http/get": {"throughput": {"value": "N/A"}, "latency": {"value": 1}}})");
  REQUIRE_FALSE(not_number);
  CHECK(not_number.error().find("is \"N/A\"") != std::string::npos);
  // a bare number where BMF wants {"value": …}: named, not "missing", and never read as the value
  auto bare = read_reported(meta, R"({"http/get": {"throughput": 3049, "latency": {"value": 1}}})");
  REQUIRE_FALSE(bare);
  CHECK(bare.error() == "reported no number for metric `throughput`: `http/get/throughput` is 3049, not an object "
                        "with a \"value\" in its {output} file");
  auto flat = read_reported(meta, R"({"http/get": "fast"})");
  REQUIRE_FALSE(flat);
  CHECK(flat.error() == "reported no number for metric `throughput`: `http/get` is \"fast\", not an object of "
                        "measures in its {output} file");
}

TEST_CASE("model::read_reported on the tail of a longer stdout") {
  auto meta = json_meta({"ops"});
  auto read = read_reported(meta, "xxxx\nwarming up\n{\"ops\": 5}\n", true);
  REQUIRE(read);
  CHECK(read->metrics.at("ops") == 5);

  SUBCASE("a last line cut by the bound names the bound") {
    auto cut_line = read_reported(meta, "\"ops\": 5}\n", true);
    REQUIRE_FALSE(cut_line);
    CHECK(cut_line.error() == "reported a last line longer than the 4 MiB that refbench reads of its stdout: print the "
                              "values as one JSON object on the last line");
  }
  SUBCASE("a pretty-printed document cut by the bound names the bound") {
    auto document = read_reported(meta, "xx\",\n  \"ops\": 5\n}\n", true);
    REQUIRE_FALSE(document);
    CHECK(document.error() == "reported a document longer than the 4 MiB that refbench reads of its stdout: print the "
                              "values as one JSON object on the last line");
  }
  SUBCASE("so does a Bencher Metric Format document") {
    CellMeta bmf;
    bmf.custom.push_back({"ops", ReportSource::stdout_line, ReportFormat::bmf, "bench/ops", true, ""});
    auto document = read_reported(bmf, "  }\n}\n", true);
    REQUIRE_FALSE(document);
    CHECK(document.error().starts_with("reported a document longer than the 4 MiB"));
    CHECK(read_reported(bmf, "{\"bench\": {\"ops\": {\"value\": 3}}}", false)->metrics.at("ops") == 3);
  }
}

TEST_CASE("model::window_problem: a short window or a failed requirement disqualifies") {
  CellMeta meta = json_meta({"throughput"});
  meta.min_duration_seconds = 5;
  meta.window_key = "duration";
  meta.require = {*parse_requirement("errors == 0"), *parse_requirement("requests>=100")};
  auto read = read_reported(meta, R"({"throughput": 900, "duration": 5.0, "errors": 0, "requests": 4500})");
  REQUIRE(read);
  CHECK(read->keys.at("duration") == 5.0);
  CHECK_FALSE(window_problem(meta, *read, 0.1)); // the reported window counts, not the wall

  auto short_window = read_reported(meta, R"({"throughput": 900, "duration": 2.5, "errors": 0, "requests": 4500})");
  REQUIRE(short_window);
  CHECK(window_problem(meta, *short_window, 60).value() ==
        "measured for only 2.5 s (`duration` in the last line of its stdout), less than min_duration = 5 s: its "
        "figures do not cover the window they claim");

  auto errors = read_reported(meta, R"({"throughput": 900, "duration": 6, "errors": 3, "requests": 4500})");
  REQUIRE(errors);
  CHECK(window_problem(meta, *errors, 6).value() ==
        "failed the requirement `errors == 0`: `errors` = 3 in the last line of its stdout");

  auto missing = read_reported(meta, R"({"throughput": 900, "duration": 6, "requests": 4500})");
  REQUIRE_FALSE(missing);
  CHECK(missing.error() == "reported no number for `errors`: `errors` is missing from the last line of its stdout");

  SUBCASE("without a window key, the wall time is the window") {
    meta.window_key.clear();
    CHECK(window_problem(meta, *read, 4.9).value().starts_with("measured for only 4.9 s (its wall time)"));
    CHECK_FALSE(window_problem(meta, *read, 5.1));
  }
}

TEST_CASE("model::parse_requirement") {
  struct Case {
    const char* text;
    const char* key;
    const char* op;
    double value;
  };
  for (const auto& c : {Case{"errors == 0", "errors", "==", 0}, Case{"p99<=0.25", "p99", "<=", 0.25},
                        Case{" rps > 1e3 ", "rps", ">", 1000}, Case{"a != -1", "a", "!=", -1},
                        Case{"b>=2", "b", ">=", 2}, Case{"c < 3", "c", "<", 3}}) {
    CAPTURE(c.text);
    auto parsed = parse_requirement(c.text);
    REQUIRE(parsed);
    CHECK(parsed->key == c.key);
    CHECK(parsed->op == c.op);
    CHECK(parsed->value == c.value);
  }
  for (const char* bad : {"errors", "errors = 0", "== 0", "errors == ", "errors == zero", "errors == 1x"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_requirement(bad));
  }
  CHECK(requirement_text(*parse_requirement("errors==0")) == "errors == 0");
}

namespace {

// A service cell: the candidate serves 25 % fewer requests per second and
// has a 1.3x p99; its command reports JSON on stdout. `script_report`
// overrides the report of invocation `index` when it returns text.
doubles::FakeExecutor service(std::function<std::optional<std::string>(std::size_t)> script_report = nullptr) {
  return doubles::FakeExecutor([script_report](const model::Invocation& invocation, std::size_t index) {
    model::Outcome outcome;
    const bool candidate = invocation.argv[1] == "cand";
    const double jitter = 1 + 0.01 * static_cast<double>(index % 7);
    outcome.readings[model::Reading::wall] = 1;
    outcome.readings[model::Reading::user] = 0.5;
    outcome.readings[model::Reading::rss] = 10 << 20;
    CHECK(invocation.capture_stdout);
    if (auto text = script_report ? script_report(index) : std::nullopt) {
      outcome.stdout_text = *text;
    } else {
      outcome.stdout_text = fmt::format("load done\n{{\"rps\": {}, \"p99\": {}, \"errors\": 0}}\n",
                                        (candidate ? 750.0 : 1000.0) * jitter, (candidate ? 0.013 : 0.010) * jitter);
    }
    return outcome;
  });
}

CellSpec service_cell() {
  CellSpec spec{"svc", {{"svc", "base"}, {}, "", {}, ""}, {{"svc", "cand"}, {}, "", {}, ""}};
  spec.meta.custom = {{"rps", ReportSource::stdout_line, ReportFormat::json, "rps", true, "req/s"},
                      {"p99", ReportSource::stdout_line, ReportFormat::json, "p99", false, "s"}};
  spec.meta.require = {*parse_requirement("errors == 0")};
  spec.meta.metrics = std::vector<std::string>{"wall", "rps", "p99"};
  spec.meta.gate = std::vector<std::string>{"rps", "p99"};
  return spec;
}

// `rounds` rounds (and one warm-up) of the service cell on `fake`.
RunRecord run_service(doubles::FakeExecutor& fake, int rounds) {
  RoundSettings settings{1000, rounds, rounds, 1, 5};
  refbench::formats::JournalWriter journal;
  RoundHooks hooks;
  hooks.clock = [&fake] { return fake.now(); };
  return run_rounds({service_cell()}, settings, fake, journal, hooks);
}

} // namespace

TEST_CASE("runner::run_rounds reads custom metrics and analysis applies their direction") {
  auto fake = service();
  auto record = run_service(fake, 12);
  REQUIRE_FALSE(record.cells[0].failure);
  auto rps = complete_pairs(record, 0, std::string("rps"));
  REQUIRE(rps.baseline.size() == 12);
  for (std::size_t i = 0; i < 12; ++i) {
    CHECK(rps.candidate[i] / rps.baseline[i] == doctest::Approx(0.75).epsilon(0.1));
  }
  for (const auto& sample : record.samples) {
    CHECK(sample.outcome.stdout_text.empty()); // read, not kept
  }

  auto results = analysis::analyze(analysis::cell_samples(record, {model::Metric::wall}, {}),
                                   {1.15, 0.05, 0.95, 10, analysis::IntervalMethod::signed_rank, 5});
  REQUIRE(results.size() == 3);
  CHECK(results[1].metric == "rps");
  CHECK(results[1].unit_label == "req/s");
  CHECK(results[1].direction == analysis::Direction::higher_is_better);
  CHECK(results[1].gated);
  CHECK(results[1].verdict == stats::Verdict::regression); // 25 % fewer requests is worse
  CHECK(results[2].metric == "p99");
  CHECK(results[2].verdict == stats::Verdict::regression);
  CHECK(results[0].metric == "wall");
  CHECK_FALSE(results[0].gated);
  CHECK(results[0].verdict != stats::Verdict::regression);
}

TEST_CASE("runner::run_rounds: an unusable report makes the cell ERROR, kept in the journal") {
  auto fake = service([](std::size_t index) -> std::optional<std::string> {
    if (index == 5) {
      return "{\"rps\": \"N/A\", \"p99\": 0.01, \"errors\": 0}";
    }
    return std::nullopt;
  });
  auto record = run_service(fake, 6);
  REQUIRE(record.cells[0].failure);
  CHECK(record.cells[0].stop == StopReason::error);
  CHECK(record.cells[0].failure->description ==
        "reported no number for metric `rps`: `rps` is \"N/A\" in the last line of its stdout");
  CHECK(fake.calls().size() == 6); // stopped at once

  auto results = analysis::analyze(analysis::cell_samples(record, {model::Metric::wall}, {}), {});
  for (const auto& r : results) {
    CHECK(r.verdict == stats::Verdict::error);
    REQUIRE(r.error);
    CHECK(r.error->find("`rps` is \"N/A\"") != std::string::npos);
  }

  SUBCASE("a journal of the run gives the same failure and values back") {
    nlohmann::json header{{"type", "header"},
                          {"seed", 5},
                          {"rss", {{"method", "fake"}, {"floor_bytes", 1}}},
                          {"settings", nlohmann::json::object()},
                          {"cells", {{{"name", "svc"}, {"meta", refbench::formats::to_json(record.cells[0].meta)}}}}};
    std::string text = header.dump() + "\n";
    for (const auto& sample : record.samples) {
      text += refbench::formats::to_json(sample, record.cells).dump() + "\n";
    }
    auto read = refbench::formats::read_journal(text, "journal.jsonl");
    REQUIRE(read.record.cells[0].failure);
    CHECK(read.record.cells[0].failure->description == record.cells[0].failure->description);
    CHECK(read.record.samples[0].values == record.samples[0].values);
    CHECK(read.record.cells[0].meta.custom.size() == 2);
    CHECK(read.record.cells[0].meta.require.size() == 1);
    CHECK(read.record.cells[0].meta.custom[0].higher_is_better);
  }
}
