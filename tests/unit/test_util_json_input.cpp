#include <doctest/doctest.h>

#include <refbench/analysis/inputs.hpp>
#include <refbench/formats/records.hpp>
#include <refbench/formats/results_json.hpp>
#include <refbench/report/run_document.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/json_input.hpp>
#include <refbench/util/quantity.hpp>
#include <refbench/util/strings.hpp>

#include <string>

using namespace refbench;

namespace {

const std::string k_bom = "\xEF\xBB\xBF";

// The message of the UsageError `read` throws, or "<no error>"; any other
// exception escapes and fails the test.
template <class F> std::string usage_error_of(F read) {
  try {
    read();
  } catch (const UsageError& error) {
    return error.what();
  }
  return "<no error>";
}

// A minimal results.json with one cell of one sample; `settings` and
// `sample` are spliced in as JSON text.
std::string results_text(const std::string& settings, const std::string& sample) {
  return R"({"seed": 7, "rss": {"method": "launcher", "floor_bytes": 100}, "settings": )" + settings +
         R"(, "cells": [{"name": "work", "samples": [)" + sample + R"(]}], "schema_version": 1})";
}

const std::string k_sample =
    R"({"arm": "baseline", "round": 1, "order": 0, "status": "exited", "wall": 0.5, "user": 0.1, "sys": 0.0, "rss": 1000})";

std::string read_run_error(const std::string& text) {
  return usage_error_of([&] { formats::read_document("results.json", text); });
}

} // namespace

TEST_CASE("util::without_bom") {
  CHECK(util::without_bom(k_bom + "cell,baseline") == "cell,baseline");
  CHECK(util::without_bom("cell") == "cell");
  CHECK(util::without_bom("\xEF\xBB") == "\xEF\xBB");
  CHECK(util::without_bom(k_bom + k_bom + "x") == k_bom + "x"); // only one
}

TEST_CASE("util::parse_json") {
  CHECK(util::parse_json(k_bom + R"({"a": 1})").value().at("a") == 1);
  SUBCASE("a number beyond a double is an error, not an exception") {
    auto parsed = util::parse_json(R"({"times": [1e400]})");
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().find("number overflow parsing '1e400'") != std::string::npos);
  }
  SUBCASE("syntax errors name the byte") {
    auto parsed = util::parse_json("{\"a\": }");
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().starts_with("invalid JSON at byte 7"));
  }
  SUBCASE("nesting is bounded; brackets inside strings do not count") {
    CHECK_FALSE(util::parse_json(std::string(200, '[') + std::string(200, ']')));
    CHECK(util::parse_json("[\"" + std::string(200, '[') + "\"]"));
  }
}

TEST_CASE("util json members name the key and check type and range") {
  const auto j = nlohmann::json::parse(R"({"n": -3, "big": 1e300, "s": "x", "f": 2.0, "u": 18446744073709551615})");
  CHECK(util::integer_member(j, "n", 0, 10).error() == "n must be an integer from 0 to 10, got -3");
  CHECK(util::integer_member(j, "big", 0, 10).error() == "big must be an integer from 0 to 10, got 1e+300");
  CHECK(util::integer_member(j, "s", 0, 10).error() == "s must be an integer from 0 to 10, got \"x\"");
  CHECK(util::integer_member(j, "f", 0, 10).value() == 2);
  CHECK(util::integer_member(j, "u", 0, INT64_MAX).error().starts_with("u must be an integer"));
  CHECK(util::integer_member(j, "missing", 0, 10, 4).value() == 4);
  CHECK(util::integer_member(j, "missing", 0, 10).error() == "missing is missing");
  CHECK(util::unsigned_member(j, "u").value() == UINT64_MAX);
  CHECK(util::unsigned_member(j, "n").error().starts_with("n must be an integer from 0 to 18446744073709551615"));
  CHECK(util::number_member(j, "s", 0, 1).error() == "s must be a number from 0 to 1, got \"x\"");
  CHECK(util::string_member(j, "n").error() == "n must be a string, got -3");
}

TEST_CASE("util::parse_seed") {
  CHECK(util::parse_seed("0").value() == 0);
  CHECK(util::parse_seed("18446744073709551615").value() == UINT64_MAX);
  CHECK_FALSE(util::parse_seed("18446744073709551616")); // CLI11 alone gives 2^64-1
  CHECK_FALSE(util::parse_seed("-1"));                   // CLI11 alone gives 2^64-1
  CHECK_FALSE(util::parse_seed("0x10"));
  CHECK_FALSE(util::parse_seed("010")); // CLI11 would read octal 8
  CHECK_FALSE(util::parse_seed(""));
}

TEST_CASE("analysis::parse_pairs_csv skips a UTF-8 BOM") {
  // Excel's "CSV UTF-8": without skipping the BOM the header has no `cell`
  // column and both cells merge into one
  const std::string text = k_bom + "cell,round,baseline,candidate\nfast,1,1.0,1.5\nslow,1,2.0,2.0\n";
  auto cells = analysis::parse_pairs_csv(text, "pairs.csv", "pairs", analysis::Direction::lower_is_better);
  REQUIRE(cells.size() == 2);
  CHECK(cells[0].name == "fast");
  CHECK(cells[1].name == "slow");
}

TEST_CASE("analysis::parse_pairs_csv keeps cells and metrics in order of first appearance") {
  const std::string text = "cell,metric,baseline,candidate\n"
                           "b,wall,1,2\na,rss,3,4\nb,cpu,5,6\na,rss,7,8\nb,wall,9,10\nc,wall,11,12\n";
  auto cells = analysis::parse_pairs_csv(text, "pairs.csv", "pairs", analysis::Direction::lower_is_better);
  REQUIRE(cells.size() == 3);
  CHECK(cells[0].name == "b");
  CHECK(cells[1].name == "a");
  CHECK(cells[2].name == "c");
  REQUIRE(cells[0].metrics.size() == 2);
  CHECK(cells[0].metrics[0].metric == "wall");
  CHECK(cells[0].metrics[0].baseline == std::vector<double>{1, 9});
  CHECK(cells[0].metrics[1].metric == "cpu");
  REQUIRE(cells[1].metrics.size() == 1);
  CHECK(cells[1].metrics[0].candidate == std::vector<double>{4, 8});

  SUBCASE("many distinct cells") {
    // cells are found by name in constant time: 50 000 of them read at once
    std::string many = "cell,baseline,candidate\n";
    for (int i = 0; i < 50000; ++i) {
      many += "cell" + std::to_string(i) + ",1,2\n";
    }
    many += "cell17,3,4\n";
    auto read = analysis::parse_pairs_csv(many, "many.csv", "pairs", analysis::Direction::lower_is_better);
    REQUIRE(read.size() == 50000);
    CHECK(read[49999].name == "cell49999");
    CHECK(read[17].metrics.at(0).baseline == std::vector<double>{1, 3});
  }
}

TEST_CASE("analysis::parse_hyperfine_json: malformed input is a UsageError naming the file") {
  auto parse = [](const std::string& text) {
    return usage_error_of(
        [&] { analysis::parse_hyperfine_json(text, "hf.json", "hf", analysis::Direction::lower_is_better); });
  };
  CHECK(parse(R"({"results": [{"times": [1e400]}, {"times": [1]}]})").starts_with("hf.json: invalid JSON"));
  CHECK(parse("[1, 2]").starts_with("hf.json: a hyperfine export needs exactly two results"));
  CHECK(parse(R"({"results": [1, 2]})").starts_with("hf.json: results[0] has no 'times' array"));
  auto cells = analysis::parse_hyperfine_json(k_bom + R"({"results": [{"times": [1]}, {"times": [2]}]})", "hf.json",
                                              "hf", analysis::Direction::lower_is_better);
  CHECK(cells.at(0).metrics.at(0).candidate.at(0) == 2);
}

TEST_CASE("formats::read_document: bad fields are UsageErrors naming the file and the field") {
  CHECK(read_run_error(results_text("{}", k_sample)) == "<no error>");
  CHECK(read_run_error(k_bom + results_text("{}", k_sample)) == "<no error>");
  CHECK(read_run_error(results_text(R"({"min_rounds": "ten"})", k_sample)) ==
        "results.json: settings.min_rounds must be an integer from 1 to 100000000, got \"ten\"");
  CHECK(read_run_error(results_text(R"({"threshold": "1.2"})", k_sample)) ==
        "results.json: settings.threshold must be a number from 1 to 1000000000, got \"1.2\"");
  CHECK(read_run_error(results_text(R"({"metrics": [1]})", k_sample)) ==
        "results.json: settings.metrics must hold only strings, got 1");
  CHECK(read_run_error(results_text(R"({"min_rounds": 1e300})", k_sample)) ==
        "results.json: settings.min_rounds must be an integer from 1 to 100000000, got 1e+300");
  std::string sample = k_sample;
  sample.replace(sample.find("\"round\": 1"), 10, "\"round\": -4");
  CHECK(read_run_error(results_text("{}", sample)) ==
        "results.json: cells[0].samples[0].round must be an integer from 0 to 2147483647, got -4");
  sample = k_sample;
  sample.replace(sample.find("\"wall\": 0.5"), 11, "\"wall\": \"fast\"");
  CHECK(read_run_error(results_text("{}", sample)) ==
        "results.json: cells[0].samples[0].wall must be a number from 0 to 1000000000, got \"fast\"");
  CHECK(read_run_error(results_text("{}", k_sample).replace(9, 1, "-7")) ==
        "results.json: seed must be an integer from 0 to 18446744073709551615, got -7");
  CHECK(read_run_error(R"({"seed": 1e400})").starts_with("results.json: invalid JSON"));
  CHECK(read_run_error("[1]") == "results.json: the document must be an object, got [1]");
  CHECK(read_run_error(results_text("{}", k_sample).replace(1, 0, R"("shards": [{"index": 1, "count": -2}], )")) ==
        "results.json: shards[0].count must be an integer from 1 to 100000, got -2");
  CHECK(read_run_error(results_text("{}", k_sample).replace(1, 0, R"("shard": {"index": "2", "count": 1e18}, )"))
            .starts_with("results.json: malformed \"shard\" record"));
  CHECK(read_run_error(R"({"seed": 1, "cells": []})") ==
        "results.json: schema_version is missing: this is no results.json or journal written by refbench");
  CHECK(read_run_error(results_text("{}", k_sample).replace(1, 0, R"("verdict": "green", )")) ==
        "results.json: verdict: unknown run verdict \"green\"");
}

TEST_CASE("formats::read_document of a journal: bad fields name file:line and the field") {
  const std::string header =
      R"({"type": "header", "schema_version": 1, "seed": 1, "rss": {"method": "launcher", "floor_bytes": 0}, "settings": {}})";
  auto read = [](const std::string& text) { return usage_error_of([&] { formats::read_document("j.jsonl", text); }); };
  CHECK(read(k_bom + header + "\n") == "<no error>");
  CHECK(read(header + "\n" + R"({"type": "sample", "cell": "a", "arm": "baseline", "round": 1, "order": -1})" + "\n") ==
        "j.jsonl:2: order must be an integer from 0 to 100000000, got -1");
  CHECK(read(header + "\n{\"type\": \"stop\", \"cell\": \"a\", \"reason\": 3}\n") ==
        "j.jsonl:2: reason must be a string, got 3");
  CHECK(read(R"({"type": "header", "schema_version": 2, "seed": 1})"
             "\n") == "j.jsonl:1: schema_version 2 is newer than this refbench reads (1): update refbench to read it");
  CHECK(read(header + "\n[1e400]\n{}\n").starts_with("j.jsonl:2: not a refbench journal line: invalid JSON"));
  CHECK(formats::looks_like_journal("run.log", k_bom + R"({"type": "header"})"));
}
