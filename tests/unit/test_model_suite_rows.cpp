#include <doctest/doctest.h>

#include <refbench/model/suite_rows.hpp>

#include <string>
#include <vector>

using namespace refbench;

namespace {

// A suite cell `micro` gated on `gate`, whose harness reported BM_a and BM_b
// with real_time and cpu_time in two rounds of each arm.
model::RunRecord suite_rows_record(std::vector<std::string> gate) {
  model::RunRecord record;
  model::CellRecord cell{"micro", false, model::StopReason::max_rounds, 2, std::nullopt, {}};
  cell.meta.suite = model::SuiteSpec{suites::Harness::google_benchmark, model::ReportSource::stdout_line};
  cell.meta.gate = std::move(gate);
  record.cells.push_back(cell);
  for (int round = 1; round <= 2; ++round) {
    for (auto arm : {model::Arm::baseline, model::Arm::candidate}) {
      model::Sample sample{0, arm, round, 0, {}, {}, {}, 0};
      sample.outcome.readings[model::Reading::wall] = 1.0;
      for (const char* name : {"BM_a", "BM_b"}) {
        sample.benchmarks.push_back({name, {{"real_time", 10.0}, {"cpu_time", 9.0}}, ""});
      }
      record.samples.push_back(sample);
    }
  }
  return record;
}

} // namespace

TEST_CASE("model::to_rows: a suite's gate that names a measure no benchmark reports is its ERROR, never a pass") {
  std::vector<std::string> removed;
  auto gated = suite_rows_record({"cpu_time"});
  model::to_rows(gated, removed);
  REQUIRE(gated.cells.size() == 2);
  CHECK_FALSE(gated.cells[0].failure);
  CHECK_FALSE(gated.cells[1].failure);
  CHECK(gated.cells[0].meta.gate == std::vector<std::string>{"cpu_time"});

  auto nothing = suite_rows_record({"cpu_time", "items_per_second"});
  model::to_rows(nothing, removed);
  REQUIRE(nothing.cells.size() == 2);
  REQUIRE(nothing.cells[0].failure);
  CHECK(nothing.cells[0].name == "micro/BM_a");
  CHECK(nothing.cells[0].failure->description ==
        "its gate names `items_per_second`, which none of its benchmarks reports (they report cpu_time, real_time): "
        "it would gate nothing");
  CHECK(nothing.cells[0].stop == model::StopReason::error);
  CHECK_FALSE(nothing.cells[1].failure);
}

TEST_CASE("model::to_rows: a row without the count its suite gates on is its ERROR, saying why it has none") {
  // docs/manual/suites.md#counts-per-benchmark: BM_a counted in every round, BM_b never (its
  // loop on two threads)
  auto record = suite_rows_record({"instructions"});
  record.cells[0].meta.metrics = std::vector<std::string>{"cpu_time", "instructions"};
  for (auto& sample : record.samples) {
    sample.benchmarks[0].values["instructions"] = 707;
    sample.benchmarks[1].uncounted = "its loop runs on several threads at once";
  }
  std::vector<std::string> removed;
  model::to_rows(record, removed);
  REQUIRE(record.cells.size() == 2);
  CHECK_FALSE(record.cells[0].failure);
  CHECK(record.cells[0].meta.gate == std::vector<std::string>{"instructions"});
  CHECK(record.cells[0].meta.custom.at(1).name == "instructions");
  CHECK(record.cells[0].meta.custom.at(1).counted);
  REQUIRE(record.cells[1].failure);
  CHECK(record.cells[1].failure->description ==
        "counted no instructions per iteration of `BM_b`: its loop runs on several threads at once");
  CHECK(model::failure_subject(record.cells[1], *record.cells[1].failure) ==
        "the baseline command, run under the instruction counter,");
  CHECK(record.cells[1].stop == model::StopReason::error);

  // shown but not gated, a missing count is an ERROR too: the row would show nothing for it
  auto shown = suite_rows_record({"cpu_time"});
  shown.cells[0].meta.metrics = std::vector<std::string>{"cpu_time", "allocations"};
  model::to_rows(shown, removed);
  REQUIRE(shown.cells[0].failure);
  CHECK(shown.cells[0].failure->description ==
        "counted no allocations per iteration of `BM_a`: no counted round reported it");
}
