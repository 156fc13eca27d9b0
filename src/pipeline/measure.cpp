#include <refbench/analysis/from_record.hpp>
#include <refbench/formats/results_json.hpp>
#include <refbench/model/suite_rows.hpp>
#include <refbench/pipeline/explain.hpp>
#include <refbench/pipeline/measure.hpp>
#include <refbench/pipeline/outputs.hpp>
#include <refbench/pipeline/terminal.hpp>
#include <refbench/process/interrupt.hpp>
#include <refbench/process/spawn.hpp>
#include <refbench/report/explanations.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/report/units.hpp>
#include <refbench/report/verdict_table.hpp>
#include <refbench/runner/preflight.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/strings.hpp>
#include <refbench/version.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <iostream>

namespace refbench::pipeline {
namespace {

// Runs the rounds of `plan` with the progress on `sinks.err` and precision
// stopping on the gated metrics; the journal is synced before it returns.
model::RunRecord measure(const MeasurementPlan& plan, process::Executor& executor, formats::JournalWriter& journal,
                         const Sinks& sinks, Explained& explained) {
  const auto rounds = plan.rounds();
  auto header = plan.header;
  header.seed = rounds.seed;
  header.rss = executor.rss_probe();
  journal.header(header, plan.cells);
  const auto analysis_settings = plan.settings.analysis();
  runner::RoundHooks hooks;
  hooks.clock = sinks.clock;
  Progress progress(*sinks.err, sinks.err_fd,
                    sinks.err_fd < 0 ? (sinks.common.quiet ? ProgressMode::quiet : ProgressMode::plain)
                                     : stderr_progress_mode(sinks.common.quiet),
                    rounds, sinks.clock);
  progress.attach(hooks);
  hooks.place = sinks.place;
  hooks.check_trees = sinks.check_trees;
  hooks.check_links = sinks.check_links;
  hooks.count_memo = plan.count_memo;
  hooks.count_key = plan.count_key;
  const auto& gated = plan.gate;
  auto precision_settings = analysis_settings;
  precision_settings.confidence = plan.stop_confidence.value_or(analysis_settings.confidence);
  hooks.precise = [&](const model::RunRecord& record, std::size_t cell) {
    return analysis::precise_enough(record, cell, analysis::metrics_named(record.cells[cell].meta.gate, gated),
                                    plan.settings.precision.value, precision_settings);
  };
  hooks.explain = explain_choice(plan);
  hooks.explained = [&](model::Explanation explanation, const profile::Frame* tree) {
    explained.explanations.push_back(std::move(explanation));
    explained.trees.push_back(tree != nullptr ? *tree : profile::Frame{});
  };
  auto record = runner::run_rounds(plan.cells, rounds, executor, journal, hooks);
  progress.finish();
  if (sinks.after_rounds) {
    sinks.after_rounds();
  }
  journal.sync();
  return record;
}

// One line per explanation (docs/manual/explanations.md): the function that moved
// most and the picture, or why there is none.
void print_explanations(const report::RunDocument& document, const std::filesystem::path& out, std::ostream& os) {
  for (const auto& e : document.explanations) {
    std::string line;
    if (!e.problem.empty()) {
      line = fmt::format("where: {}: {}", e.cell, e.problem);
    } else if (e.functions.empty()) {
      line = fmt::format("where: {}: no function's instructions moved", e.cell);
    } else {
      const auto& top = e.functions.front();
      line = fmt::format("where: {}: {} {} instructions{}", e.cell, top.function, report::format_count(top.delta, true),
                         e.graph.empty() ? "" : " · " + (out / e.graph).string());
    }
    os << util::without_workflow_commands(util::printable(line)) << "\n";
  }
}

// The verdict table, the summary, the warnings and the closing line.
void print_results(const MeasurementPlan& plan, const report::RunDocument& document, const Sinks& sinks) {
  *sinks.out << util::without_workflow_commands(
      report::render_verdict_table(document.results, stdout_table_colour(sinks.common.color)));
  if (sinks.common.quiet) {
    return;
  }
  *sinks.out << util::without_workflow_commands(report::render_run_summary(document)) << "\n";
  print_warnings(document, *sinks.err);
  print_explanations(document, plan.out, *sinks.out);
  *sinks.out << fmt::format("seed {} · {} · rss floor {} (launcher) · report in {}\n", plan.settings.seed.value,
                            report::format_seconds(document.record.elapsed_seconds),
                            report::format_bytes(static_cast<double>(document.record.rss.floor_bytes)),
                            (plan.out / "report.md").string());
}

// The exit code of `record` and its `results`, after the partial results
// are written: 130/143 when interrupted, 3 when a command could not start.
int conclude(const MeasurementPlan& plan, const model::RunRecord& record,
             const std::vector<analysis::MetricResult>& results, const Sinks& sinks) {
  if (record.interrupted_by != 0) {
    throw InterruptedError(record.interrupted_by, true);
  }
  if (const int late = process::interrupt_signal(); late != 0) { // after the rounds: the results are whole
    throw InterruptedError(late, true);
  }
  for (const auto& cell : record.cells) {
    if (cell.failure && cell.failure->could_not_start) {
      const auto command =
          fmt::format("{} command {}", model::arm_label(cell, cell.failure->arm), cell.failure->description);
      throw RefusedError(plan.cell_in_refusal ? fmt::format("cell {}: the {}", model::cell_title(cell), command)
                                              : command,
                         plan.could_not_start_hint);
    }
  }
  const auto verdict = analysis::overall_verdict(results);
  if (verdict == analysis::RunVerdict::error) {
    print_failures(record, *sinks.err);
    if (runner::low_on_disk(plan.out.string())) {
      *sinks.err << "refbench: error: out of disk space during the rounds — free space on " << plan.out.string()
                 << "\n";
    }
  }
  return exit_code_for(verdict, plan.settings.fail_on.value);
}

} // namespace

model::RoundSettings MeasurementPlan::rounds() const {
  auto rounds = settings.rounds();
  rounds.output_dir = output_dir;
  rounds.replicas = replicas;
  rounds.auto_control = auto_control;
  rounds.counter = counter;
  rounds.explain_tool = explain_tool;
  rounds.explain_missing = explain_missing;
  const bool counts = std::any_of(cells.begin(), cells.end(), [](const auto& cell) { return !cell.counted.empty(); });
  if (counts || explain_tool) {
    rounds.counts_dir = (out / "counts").string();
  }
  return rounds;
}

model::CounterTool counter_here(const config::MeasurementSettings& settings,
                                const std::function<process::PerfProbe()>& probe, std::string_view path) {
  const char* here = std::getenv("PATH");
  const std::string_view searched = !path.empty() ? path : here != nullptr ? here : "/usr/local/bin:/usr/bin:/bin";
  auto tool = process::find_counter_tool(settings.counters.value, probe(), searched);
  if (!tool) {
    const auto& origin = settings.counters.origin;
    throw UsageError(origin == "default" || origin.starts_with("--") ? tool.error() : origin + ": " + tool.error());
  }
  return *tool;
}

void plan_counts(MeasurementPlan& plan) { plan_counts(plan, process::perf_probe, {}); }

void plan_counts(MeasurementPlan& plan, const std::function<process::PerfProbe()>& probe, std::string_view path) {
  bool instructions = false;
  bool allocations = false;
  for (auto& cell : plan.cells) {
    cell.counted = model::counted_readings(analysis::metrics_named(cell.meta.metrics, plan.metrics));
    for (const auto reading : cell.counted) {
      instructions = instructions || reading == model::Reading::instructions;
      allocations = allocations || reading != model::Reading::instructions;
    }
  }
  plan.counter.reset();
  std::optional<report::CounterInfo> recorded;
  if (instructions) {
    plan.counter = counter_here(plan.settings, probe, path);
    recorded = report::CounterInfo{std::string(model::counter_source_name(plan.counter->source)), plan.counter->probe,
                                   plan.counter->version, ""};
  }
  if (allocations) {
    if (!recorded) {
      recorded = report::CounterInfo{std::string(report::k_allocation_counter_source), "",
                                     fmt::format("refbench-{}", k_version), ""};
    }
    recorded->allocations = report::k_allocation_counter_source;
  }
  if (plan.header.environment && recorded) {
    plan.header.environment->counters = recorded;
  }
  const char* here = std::getenv("PATH");
  plan_explanations(plan, !path.empty() ? path : here != nullptr ? here : "/usr/local/bin:/usr/bin:/bin");
}

report::RecordedSettings recorded_settings(const MeasurementPlan& plan) {
  const auto& s = plan.settings;
  return {.budget_seconds = s.budget_seconds.value,
          .max_rounds = s.max_rounds.value,
          .min_rounds = s.min_rounds.value,
          .warmup = s.warmup.value,
          .replicas = plan.replicas,
          .metrics = plan.metrics,
          .gate = plan.gate,
          .threshold = s.threshold.value,
          .alpha = s.alpha.value,
          .precision = s.precision.value,
          .interval = s.interval.value,
          .counters = std::string(model::counter_source_name(s.counters.value)),
          .explain = std::string(model::explain_mode_name(s.explain.value))};
}

int measure_and_report(const MeasurementPlan& plan, process::Executor& executor, formats::JournalWriter& journal,
                       const Sinks& sinks) {
  auto planned = plan;
  planned.header.settings = recorded_settings(plan);
  Explained explained;
  auto record = measure(planned, executor, journal, sinks, explained);
  model::to_rows(record, planned.header.removed_cells); // docs/manual/suites.md: every benchmark a row
  auto results = analysis::analyze(analysis::cell_samples(record, plan.metrics, plan.gate), plan.settings.analysis());
  auto document = report::make_document(planned.header, std::move(record), std::move(results));
  write_explanation_graphs(plan.out, explained);
  document.explanations = std::move(explained.explanations);
  document.config = plan.config;
  document.payloads = plan.payloads;
  document.harness_peak_rss_bytes = process::own_peak_rss_bytes();
  document.total_seconds = sinks.clock() - sinks.started;
  if (sinks.amend) {
    sinks.amend(document);
  }
  write_outputs(plan.out, document);
  if (sinks.publish) {
    sinks.publish(document);
  }
  print_results(plan, document, sinks);
  return conclude(plan, document.record, document.results, sinks);
}

Bench launcher_bench(process::Launcher& launcher) {
  return {.executor = launcher,
          .keep = launcher.pid(),
          .pin = [&launcher](const model::CpuList& cpus) { return launcher.pin(cpus); },
          .box = [&launcher](const process::BoxPaths& paths) { return launcher.box(paths); }};
}

Sinks sinks_of(const Bench& bench, const CommonOptions& common) {
  return {.common = common, .out = bench.out, .err = bench.err, .err_fd = bench.err_fd};
}

void apply_isolation(model::IsolationPlan& plan, const Bench& bench, bool quiet) {
  if (plan.pinned && !(bench.pin && bench.pin(plan.benchmark))) {
    const int saved = errno;
    process::unpin(plan, fmt::format("CPU isolation: the kernel refused to pin to CPUs {} ({}); running unpinned",
                                     model::format_cpu_list(plan.benchmark), std::strerror(saved)));
  }
  if (plan.pinned && !plan.refbench.empty() && !process::set_affinity(0, plan.refbench)) {
    const int saved = errno;
    // the benchmark is still pinned; refbench stays where it is
    plan.warning = fmt::format("CPU isolation: the kernel refused to move refbench to CPUs {} ({}); it shares the "
                               "benchmark's CPUs",
                               model::format_cpu_list(plan.refbench), std::strerror(saved));
    plan.refbench.clear();
  }
  if (!plan.warning.empty() && !quiet) {
    std::cerr << "refbench: warning: " << plan.warning << "\n";
  }
  if (plan.pinned && !quiet) { // once, before round 1
    std::cerr << "refbench: CPU layout: " << model::layout_text(plan) << "\n";
  }
}

void validate_scrub_names(const std::string& flag, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    if (name.empty() || name.find_first_of(std::string_view("=\0", 2)) != std::string::npos) {
      throw UsageError(fmt::format("{} takes variable names or globs like AWS_*, got '{}'", flag, name),
                       "name the variables to keep from build and cell commands");
    }
  }
}

} // namespace refbench::pipeline
