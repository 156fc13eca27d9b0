#include <refbench/analysis/from_record.hpp>
#include <refbench/config/cells.hpp>
#include <refbench/model/suite_rows.hpp>
#include <refbench/pipeline/explain.hpp>
#include <refbench/process/counters.hpp>
#include <refbench/report/flame_graph.hpp>
#include <refbench/util/fd.hpp>
#include <refbench/util/files.hpp>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fmt/format.h>
#include <iostream>
#include <set>

namespace refbench::pipeline {
namespace {

namespace fs = std::filesystem;

// The rows of `record` that `plan` explains, each once, in the analysis' order.
std::vector<std::string> rows_to_explain(const MeasurementPlan& plan, const model::RunRecord& record) {
  auto rows = record;
  std::vector<std::string> removed;
  model::to_rows(rows, removed);
  const auto results =
      analysis::analyze(analysis::cell_samples(rows, plan.metrics, plan.gate), plan.settings.analysis());
  const bool all = plan.settings.explain.value == model::ExplainMode::all;
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto& result : results) {
    const bool moved =
        result.gated && (result.verdict == stats::Verdict::regression || result.verdict == stats::Verdict::improved);
    if (!result.control && (all || moved) && seen.insert(result.cell).second) {
      names.push_back(result.cell);
    }
  }
  return names;
}

// `row` as a target over `record`'s cells (the rounds' own, the control
// included), or nullopt when no measured cell has it.
std::optional<model::ExplainTarget> target_of(const MeasurementPlan& plan, const model::RunRecord& record,
                                              const std::string& row) {
  for (std::size_t i = 0; i < record.cells.size() && i < plan.cells.size(); ++i) {
    const auto& spec = plan.cells[i];
    if (spec.control) {
      continue;
    }
    if (spec.name == row && !spec.meta.suite) {
      return model::ExplainTarget{i, row, spec.baseline, spec.candidate, ""};
    }
    if (spec.meta.suite && row.size() > spec.name.size() + 1 && row.starts_with(spec.name + "/")) {
      const auto benchmark = row.substr(spec.name.size() + 1);
      auto narrowed = spec;
      config::narrow_suite(narrowed, {benchmark});
      const bool filtered = narrowed.baseline.argv != spec.baseline.argv;
      const auto harness = suites::harness_name(spec.meta.suite->harness);
      return model::ExplainTarget{
          i, row, narrowed.baseline, narrowed.candidate,
          fmt::format("{}; the harness picks each arm's iterations by time, so the counts are of its whole run, not "
                      "per iteration",
                      filtered ? fmt::format("the suite narrowed to {} through {}'s filter", benchmark, harness)
                               : fmt::format("the whole suite ({} has no filter): its other benchmarks are counted too",
                                             harness))};
    }
  }
  return std::nullopt;
}

// `name` as a file name: letters, digits, '.', '-' and '_' kept, the rest '_', at most 60.
std::string file_name_of(std::string_view name) {
  std::string file;
  for (char c : name.substr(0, 60)) {
    const bool kept = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-' || c == '_';
    file += kept ? c : '_';
  }
  return file;
}

} // namespace

void plan_explanations(MeasurementPlan& plan, std::string_view path) {
  plan.explain_tool.reset();
  plan.explain_missing.clear();
  if (plan.settings.explain.value == model::ExplainMode::off) {
    return;
  }
  if (plan.counter && plan.counter->source == model::CounterSource::valgrind) {
    plan.explain_tool = plan.counter;
    return;
  }
  auto tool = process::find_counter_tool(model::CounterSource::valgrind, {}, path);
  if (tool) {
    plan.explain_tool = *tool;
  } else {
    plan.explain_missing = "not explained: valgrind is not on the PATH (apt-get install valgrind)";
  }
}

runner::ExplainChoice explain_choice(const MeasurementPlan& plan) {
  if (plan.settings.explain.value == model::ExplainMode::off) {
    return {};
  }
  return [&plan](const model::RunRecord& record) {
    std::vector<model::ExplainTarget> targets;
    for (const auto& row : rows_to_explain(plan, record)) {
      if (auto target = target_of(plan, record, row)) {
        targets.push_back(std::move(*target));
      }
    }
    return targets;
  };
}

void write_explanation_graphs(const fs::path& out, Explained& explained) {
  const fs::path dir = out / "why";
  std::error_code error;
  if (fs::is_symlink(dir, error) || (fs::exists(dir, error) && !util::is_real_directory(dir))) {
    fs::remove(dir, error); // planted: never written through
  }
  fs::create_directory(dir, error);
  for (std::size_t i = 0; i < explained.explanations.size() && i < explained.trees.size(); ++i) {
    auto& explanation = explained.explanations[i];
    if (explained.trees[i].name.empty()) {
      continue;
    }
    const auto name = fmt::format("{}-{}.svg", i + 1, file_name_of(explanation.cell));
    const auto svg = report::render_flame_graph(
        explained.trees[i], fmt::format("{}: instructions by call stack, baseline → candidate", explanation.cell));
    const util::Fd fd = util::is_real_directory(dir) ? util::create_fresh_file(dir / name) : util::Fd();
    if (!fd.valid() || !util::write_all(fd.get(), svg.data(), svg.size())) {
      std::cerr << "refbench: warning: cannot write " << (dir / name).string() << ": " << std::strerror(errno)
                << "; the explanation has no picture\n";
      continue;
    }
    explanation.graph = "why/" + name;
  }
}

} // namespace refbench::pipeline
