#include <doctest/doctest.h>

#include <refbench/pipeline/bisect_report.hpp>

#include <algorithm>
#include <string>

using namespace refbench;

namespace {

git::CommitInfo commit(const std::string& sha, const std::string& subject) {
  return {sha, subject, "A <a@example.invalid>", "2026-12-01T10:00:00+00:00", {}};
}

// The unescaped '|' of `line`: the cell borders of a table row.
std::size_t borders(const std::string& line) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    count += line[i] == '|' && (i == 0 || line[i - 1] != '\\') ? 1 : 0;
  }
  return count;
}

} // namespace

TEST_CASE("bisect report: a culprit, its steps, and a hostile subject kept in its cell") {
  pipeline::BisectReport r;
  r.status = "done";
  r.good = std::string(40, 'a');
  r.bad = std::string(40, 'b');
  r.metric = "wall";
  r.cell = "parse";
  r.culprit = commit(std::string(40, 'c'), "evil | subject <script>alert(1)</script>\n| injected | row |");
  r.culprit_ratio = 1.4;
  r.culprit_ci_low = 1.35;
  r.culprit_ci_high = 1.45;
  r.builds = 5;
  pipeline::BisectStep step{"step", *r.culprit, r.good, r.bad};
  step.ratio = 1.41;
  step.ci_low = 1.3;
  step.ci_high = 1.5;
  step.confidence = 0.995;
  step.bad_ratio = 1.4;
  step.control_ratio = 1.01;
  step.control_ci_low = 0.9;
  step.control_ci_high = 1.05;
  step.side = "bad";
  step.rounds = 9;
  r.steps.push_back(step);
  const auto json = pipeline::bisect_json(r);
  CHECK(json["culprit"]["sha"] == std::string(40, 'c'));
  CHECK(json["culprit"]["ratio"] == 1.4);
  CHECK(json["range"].is_null());
  CHECK(json["steps"][0]["side"] == "bad");
  CHECK(json["steps"][0]["confidence"] == 0.995);
  CHECK(json["builds"] == 5);
  CHECK(json["steps"][0]["noise_floor"].get<double>() == doctest::Approx(1 / 0.9));
  CHECK(json["gave_up"].is_null());
  const auto md = pipeline::bisect_markdown(r);
  CHECK(md.find("| ±11.1 % | bad | 9 |") != std::string::npos); // the step's A/A floor
  CHECK(md.starts_with("<!-- refbench -->\n### refbench bisect: `ccccccc`"));
  CHECK(md.find("<script>") == std::string::npos);
  CHECK(md.find("1.410x [1.300, 1.500] (99.50 %)") != std::string::npos);
  // the step row is one row of 8 cells whatever the subject holds
  const auto row_at = md.find("| step | `ccccccc`");
  REQUIRE(row_at != std::string::npos);
  const auto row = md.substr(row_at, md.find('\n', row_at) - row_at);
  CHECK(borders(row) == 9);
}

TEST_CASE("bisect report: no culprit, a range and notes") {
  pipeline::BisectReport r;
  r.status = "done";
  r.ambiguous = true;
  r.range_good = std::string(40, '1');
  r.range_bad = std::string(40, '2');
  r.notes.push_back("The budget was spent.");
  const auto json = pipeline::bisect_json(r);
  CHECK(json["culprit"].is_null());
  CHECK(json["ambiguous"] == true);
  CHECK(json["range"]["good"] == std::string(40, '1'));
  const auto md = pipeline::bisect_markdown(r);
  CHECK(md.find("ambiguous — the change is in `1111111..2222222`") != std::string::npos);
  CHECK(md.find("The budget was spent.") != std::string::npos);
}

TEST_CASE("bisect report: the check that gave up, with its figures") {
  pipeline::BisectReport r;
  r.status = "done";
  pipeline::BisectStep confirm{"confirm", {std::string(40, 'b'), "bad end", "a", "2026-01-01", {}}, "g", "b"};
  confirm.ratio = 1.1;
  confirm.ci_low = 0.8;
  confirm.ci_high = 1.5;
  confirm.control_ci_low = 0.7;
  confirm.control_ci_high = 1.3;
  confirm.move = "unclear";
  confirm.cell = "compress";
  confirm.rounds = 240;
  confirm.more_dirs = {"steps/02-confirm-more", "steps/03-confirm-more", "steps/04-confirm-more"};
  r.steps.push_back(confirm);
  r.gave_up = pipeline::GaveUp{"confirm", std::string(40, 'b'), 0, "compress wall 1.100x [0.800, 1.500]", 240};
  const auto json = pipeline::bisect_json(r);
  CHECK(json["gave_up"]["check"] == "confirm");
  CHECK(json["gave_up"]["rounds"] == 240);
  CHECK(json["steps"][0]["move"] == "unclear");
  CHECK(json["steps"][0]["cell"] == "compress");
  CHECK(json["steps"][0]["more_dirs"].size() == 3);
  CHECK(json["steps"][0]["noise_floor"].get<double>() == doctest::Approx(1 / 0.7));
  const auto md = pipeline::bisect_markdown(r);
  CHECK(md.find("| ±42.9 % | move: unclear | 240 (3 blocks more) |") != std::string::npos);
}
