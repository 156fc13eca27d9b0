#include <doctest/doctest.h>

#include <refbench/formats/records.hpp>
#include <refbench/model/metrics.hpp>
#include <refbench/util/clock.hpp>
#include <refbench/util/json_fields.hpp>

#include <algorithm>
#include <set>

using namespace refbench;
using model::Metric;
using model::Reading;

namespace {

model::Outcome outcome_with(double wall, double user, double sys, double rss) {
  model::Outcome o;
  o.readings[Reading::wall] = wall;
  o.readings[Reading::user] = user;
  o.readings[Reading::sys] = sys;
  o.readings[Reading::rss] = rss;
  return o;
}

} // namespace

TEST_CASE("model::built_in_metrics: one row per metric, named once, found by its name") {
  std::set<std::string_view> names;
  for (const auto& info : model::built_in_metrics()) {
    CHECK(names.insert(info.name).second);
    CHECK(&model::metric_info(info.metric) == &info);
    CHECK(model::parse_metric(info.name) == info.metric);
    CHECK(model::metric_name(info.metric) == info.name);
    CHECK((info.value != nullptr));
  }
  CHECK(names == std::set<std::string_view>{"wall", "cpu", "user", "sys", "rss", "instructions", "allocations",
                                            "allocated_bytes"});
  CHECK_FALSE(model::parse_metric("Wall"));
  CHECK_FALSE(model::parse_metric(""));
  CHECK(model::metric_choices() == "wall, cpu, user, sys, rss, instructions, allocations or allocated_bytes");
  CHECK(model::metric_info(Metric::rss).unit == model::Unit::bytes);
  CHECK(model::metric_info(Metric::rss).integral);
  CHECK(model::metric_info(Metric::wall).unit == model::Unit::seconds);
  CHECK_FALSE(model::metric_info(Metric::cpu).stored); // made of user and sys
}

TEST_CASE("runner: the default metrics and gate, shown and gated") {
  CHECK(model::metric_list_text(model::k_default_metrics) == "wall,cpu,rss");
  CHECK(model::metric_list_text(model::k_default_gate) == "wall");
  for (const auto gated : model::k_default_gate) { // a gated metric is shown
    CHECK(std::find(model::k_default_metrics.begin(), model::k_default_metrics.end(), gated) !=
          model::k_default_metrics.end());
  }
  CHECK(model::default_metrics() == std::vector{Metric::wall, Metric::cpu, Metric::rss});
}

TEST_CASE("model::parse_metric_list") {
  CHECK(*model::parse_metric_list("rss,wall") == std::vector{Metric::rss, Metric::wall});
  CHECK(model::parse_metric_list("wall,ipc").error() ==
        "unknown metric 'ipc' (use wall, cpu, user, sys, rss, instructions, allocations or allocated_bytes)");
  CHECK(model::parse_metric_list("cpu,cpu").error() == "metric 'cpu' is listed twice");
  CHECK_FALSE(model::parse_metric_list(""));
  CHECK(*model::parse_metric_list(model::metric_list_text(model::k_default_metrics)) == model::default_metrics());
}

TEST_CASE("model::metric_value reads each metric from the invocation's readings") {
  const auto o = outcome_with(0.5, 0.25, 0.125, 3 << 20);
  CHECK(model::metric_value(o, Metric::wall) == 0.5);
  CHECK(model::metric_value(o, Metric::user) == 0.25);
  CHECK(model::metric_value(o, Metric::sys) == 0.125);
  CHECK(model::metric_value(o, Metric::cpu) == 0.375);
  CHECK(model::metric_value(o, Metric::rss) == 3 << 20);
}

TEST_CASE("model::at_floor: each metric's floor rule") {
  model::RssProbe floors;
  floors.floor_bytes = 4 << 20;
  floors.spawn_resolution_seconds = 0.001; // 10x: 10 ms
  SUBCASE("wall: below 10x the spawn resolution (or the timer's, when larger)") {
    CHECK(model::at_floor(outcome_with(0.009, 0, 0, 0), Metric::wall, floors));
    CHECK_FALSE(model::at_floor(outcome_with(0.011, 0, 0, 0), Metric::wall, floors));
    floors.spawn_resolution_seconds = 0;
    CHECK(model::at_floor(outcome_with(9 * util::monotonic_resolution_seconds(), 0, 0, 0), Metric::wall, floors));
  }
  SUBCASE("cpu, user, sys: a reading of 0") {
    const auto o = outcome_with(1, 0, 0.01, 0);
    CHECK(model::at_floor(o, Metric::user, floors));
    CHECK_FALSE(model::at_floor(o, Metric::sys, floors));
    CHECK_FALSE(model::at_floor(o, Metric::cpu, floors));
  }
  SUBCASE("rss: within the margin of the larger of the sample's and the run's floor") {
    const double edge = static_cast<double>((4 << 20) + model::k_rss_censor_margin);
    CHECK(model::at_floor(outcome_with(1, 0, 0, edge), Metric::rss, floors));
    CHECK_FALSE(model::at_floor(outcome_with(1, 0, 0, edge + 1), Metric::rss, floors));
    auto o = outcome_with(1, 0, 0, edge + 4096);
    o.rss_floor_bytes = 5 << 20; // the sample's own floor is higher
    CHECK(model::at_floor(o, Metric::rss, floors));
  }
}

TEST_CASE("runner: a sample's metrics are written under their names and read back") {
  for (const bool with_count : {false, true}) {
    CAPTURE(with_count);
    model::RunRecord record;
    record.cells.push_back(model::CellRecord{});
    record.cells[0].name = "c";
    model::Sample sample;
    sample.round = 1;
    sample.outcome = outcome_with(0.1234567890123, 0.0625, 0.03125, 123456789);
    if (with_count) {
      sample.outcome.readings[model::Reading::instructions] = 362231650;
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
    model::RunRecord back;
    formats::read_cells(util::JsonFields(document, "doc", "", ""), back);
    REQUIRE(back.samples.size() == 1);
    const auto& read = back.samples[0].outcome.readings;
    for (auto reading : {model::Reading::wall, model::Reading::user, model::Reading::sys, model::Reading::rss}) {
      CHECK(read[reading] == sample.outcome.readings[reading]);
    }
    CHECK(read.has(model::Reading::instructions) == with_count);
    if (with_count) {
      CHECK(read[model::Reading::instructions] == 362231650);
    }
  }
}
