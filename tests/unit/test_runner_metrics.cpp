#include <doctest/doctest.h>

#include <refbench/formats/records.hpp>
#include <refbench/runner/metrics.hpp>
#include <refbench/util/clock.hpp>
#include <refbench/util/json_fields.hpp>

#include <algorithm>
#include <set>

using namespace refbench;
using process::Reading;
using runner::Metric;

namespace {

process::Outcome outcome_with(double wall, double user, double sys, double rss) {
  process::Outcome o;
  o.readings[Reading::wall] = wall;
  o.readings[Reading::user] = user;
  o.readings[Reading::sys] = sys;
  o.readings[Reading::rss] = rss;
  return o;
}

} // namespace

TEST_CASE("runner::built_in_metrics: one row per metric, named once, found by its name") {
  std::set<std::string_view> names;
  for (const auto& info : runner::built_in_metrics()) {
    CHECK(names.insert(info.name).second);
    CHECK(&runner::metric_info(info.metric) == &info);
    CHECK(runner::parse_metric(info.name) == info.metric);
    CHECK(runner::metric_name(info.metric) == info.name);
  }
  CHECK(names == std::set<std::string_view>{"wall", "cpu", "user", "sys", "rss", "instructions", "allocations",
                                            "allocated_bytes"});
  CHECK_FALSE(runner::parse_metric("Wall"));
  CHECK_FALSE(runner::parse_metric(""));
  CHECK(runner::metric_choices() == "wall, cpu, user, sys, rss, instructions, allocations or allocated_bytes");
  CHECK(runner::metric_info(Metric::rss).unit == runner::Unit::bytes);
  CHECK(runner::metric_info(Metric::rss).integral);
  CHECK(runner::metric_info(Metric::wall).unit == runner::Unit::seconds);
  CHECK_FALSE(runner::metric_info(Metric::cpu).stored); // made of user and sys
}

TEST_CASE("runner: the default metrics and gate, shown and gated") {
  CHECK(runner::metric_list_text(runner::k_default_metrics) == "wall,cpu,rss");
  CHECK(runner::metric_list_text(runner::k_default_gate) == "wall");
  for (const auto gated : runner::k_default_gate) { // a gated metric is shown
    CHECK(std::find(runner::k_default_metrics.begin(), runner::k_default_metrics.end(), gated) !=
          runner::k_default_metrics.end());
  }
  CHECK(runner::default_metrics() == std::vector{Metric::wall, Metric::cpu, Metric::rss});
}

TEST_CASE("runner::parse_metric_list") {
  CHECK(*runner::parse_metric_list("rss,wall") == std::vector{Metric::rss, Metric::wall});
  CHECK(runner::parse_metric_list("wall,ipc").error() ==
        "unknown metric 'ipc' (use wall, cpu, user, sys, rss, instructions, allocations or allocated_bytes)");
  CHECK(runner::parse_metric_list("cpu,cpu").error() == "metric 'cpu' is listed twice");
  CHECK_FALSE(runner::parse_metric_list(""));
  CHECK(*runner::parse_metric_list(runner::metric_list_text(runner::k_default_metrics)) == runner::default_metrics());
}

TEST_CASE("runner::metric_value reads each metric from the invocation's readings") {
  const auto o = outcome_with(0.5, 0.25, 0.125, 3 << 20);
  CHECK(runner::metric_value(o, Metric::wall) == 0.5);
  CHECK(runner::metric_value(o, Metric::user) == 0.25);
  CHECK(runner::metric_value(o, Metric::sys) == 0.125);
  CHECK(runner::metric_value(o, Metric::cpu) == 0.375);
  CHECK(runner::metric_value(o, Metric::rss) == 3 << 20);
}

TEST_CASE("runner::at_floor: each metric's floor rule") {
  process::RssProbe floors;
  floors.floor_bytes = 4 << 20;
  floors.spawn_resolution_seconds = 0.001; // 10x: 10 ms
  SUBCASE("wall: below 10x the spawn resolution (or the timer's, when larger)") {
    CHECK(runner::at_floor(outcome_with(0.009, 0, 0, 0), Metric::wall, floors));
    CHECK_FALSE(runner::at_floor(outcome_with(0.011, 0, 0, 0), Metric::wall, floors));
    floors.spawn_resolution_seconds = 0;
    CHECK(runner::at_floor(outcome_with(9 * util::monotonic_resolution_seconds(), 0, 0, 0), Metric::wall, floors));
  }
  SUBCASE("cpu, user, sys: a reading of 0") {
    const auto o = outcome_with(1, 0, 0.01, 0);
    CHECK(runner::at_floor(o, Metric::user, floors));
    CHECK_FALSE(runner::at_floor(o, Metric::sys, floors));
    CHECK_FALSE(runner::at_floor(o, Metric::cpu, floors));
  }
  SUBCASE("rss: within the margin of the larger of the sample's and the run's floor") {
    const double edge = static_cast<double>((4 << 20) + process::k_rss_censor_margin);
    CHECK(runner::at_floor(outcome_with(1, 0, 0, edge), Metric::rss, floors));
    CHECK_FALSE(runner::at_floor(outcome_with(1, 0, 0, edge + 1), Metric::rss, floors));
    auto o = outcome_with(1, 0, 0, edge + 4096);
    o.rss_floor_bytes = 5 << 20; // the sample's own floor is higher
    CHECK(runner::at_floor(o, Metric::rss, floors));
  }
}

TEST_CASE("runner: a sample's metrics are written under their names and read back") {
  for (const bool with_count : {false, true}) {
    CAPTURE(with_count);
    runner::RunRecord record;
    record.cells.push_back(runner::CellRecord{});
    record.cells[0].name = "c";
    runner::Sample sample;
    sample.round = 1;
    sample.outcome = outcome_with(0.1234567890123, 0.0625, 0.03125, 123456789);
    if (with_count) {
      sample.outcome.readings[process::Reading::instructions] = 362231650;
    }
    nlohmann::json line = formats::to_json(sample, record.cells);
    CHECK(line["wall"].get<double>() == 0.1234567890123);
    CHECK(line["cpu"].get<double>() == 0.09375);
    CHECK(line["rss"].is_number_integer());
    CHECK(line["rss"].get<std::int64_t>() == 123456789);
    // a counted metric is written only when the sample has a count: never a 0 or a null for none
    CHECK(line.contains("instructions") == with_count);

    line.erase("type");
    line.erase("cell");
    nlohmann::json cell = formats::to_json(record.cells[0]);
    cell["samples"] = nlohmann::json::array({line});
    const nlohmann::json document{{"cells", nlohmann::json::array({cell})}};
    runner::RunRecord back;
    formats::read_cells(util::JsonFields(document, "doc", "", ""), back);
    REQUIRE(back.samples.size() == 1);
    const auto& read = back.samples[0].outcome.readings;
    for (auto reading :
         {process::Reading::wall, process::Reading::user, process::Reading::sys, process::Reading::rss}) {
      CHECK(read[reading] == sample.outcome.readings[reading]);
    }
    CHECK(read.has(process::Reading::instructions) == with_count);
    if (with_count) {
      CHECK(read[process::Reading::instructions] == 362231650);
    }
  }
}
