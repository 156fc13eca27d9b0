#include <refbench/analysis/from_record.hpp>
#include <refbench/bisect/search.hpp>
#include <refbench/build/build.hpp>
#include <refbench/formats/records.hpp>
#include <refbench/git/commits.hpp>
#include <refbench/git/refs.hpp>
#include <refbench/git/worktree.hpp>
#include <refbench/model/pairs.hpp>
#include <refbench/pipeline/bisect_report.hpp>
#include <refbench/pipeline/bisect_steps.hpp>

#include <refbench/model/suite_rows.hpp>
#include <refbench/pipeline/github_run.hpp>
#include <refbench/pipeline/measure.hpp>
#include <refbench/pipeline/run_plan.hpp>
#include <refbench/pipeline/run_refs.hpp>
#include <refbench/process/cpus.hpp>
#include <refbench/process/environment.hpp>
#include <refbench/process/interrupt.hpp>
#include <refbench/process/launcher.hpp>
#include <refbench/process/machine.hpp>
#include <refbench/report/run_document.hpp>
#include <refbench/runner/preflight.hpp>
#include <refbench/runner/rounds.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/files.hpp>
#include <refbench/util/shell_words.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <unistd.h>

namespace refbench::pipeline {

namespace fs = std::filesystem;

namespace {
// How many alike counted passes a counted bisect takes of the good end of
// its range (its A/A) before reusing them; any other commit's one pass is
// reused (docs/design.md, Counted bisect).
constexpr int k_good_end_passes = 2;
} // namespace

BisectSteps::BisectSteps(Inputs& in, const BisectOptions& o, fs::path out, fs::path work, const Bench& bench,
                         model::IsolationPlan& isolation, BisectReport& report, bool quiet)
    : m_in(in), m_o(o), m_out(std::move(out)), m_work(std::move(work)), m_bench(bench), m_isolation(isolation),
      m_report(report), m_quiet(quiet), m_deadline(runner::monotonic_now() + in.settings.budget_seconds.value) {
  auto scrub = in.config.run.scrub_env;
  scrub.insert(scrub.end(), o.run.scrub_env.begin(), o.run.scrub_env.end());
  m_env = process::without_secrets(process::current_environment(), scrub);
  m_payloads = make_payloads(in, m_out, in.settings.seed.value, m_payloads_json);
  const auto metric = model::parse_metric(o.metric);
  m_counted = metric && model::counted(model::metric_info(*metric));
}

bool BisectSteps::budget_left() const { return runner::monotonic_now() < m_deadline; }

std::size_t BisectSteps::needed_pairs() const {
  return static_cast<std::size_t>(m_counted ? model::k_fixed_counts : std::max(1, m_in.settings.min_rounds.value));
}

std::string BisectSteps::short_budget(std::size_t commits) const {
  const double left = m_deadline - runner::monotonic_now();
  const double wanted = m_commit_round_seconds * static_cast<double>(commits * needed_pairs());
  if (left > 0 && left >= wanted) {
    return "";
  }
  return fmt::format("The budget was spent before the range was narrowed to one commit: {:.0f} s were left, and a "
                     "step needs {} rounds of {} commits (about {:.0f} s, as the steps before took); pass a larger "
                     "--budget.",
                     std::max(0.0, left), needed_pairs(), commits, wanted);
}

void BisectSteps::save() const {
  util::write_file_atomically(m_out / "bisect.json", bisect_json(m_report).dump(2) + "\n");
  util::write_file_atomically(m_out / "report.md", bisect_markdown(m_report));
}

const std::string* BisectSteps::built(const std::string& sha) {
  if (auto it = m_trees.find(sha); it != m_trees.end()) {
    return it->second ? &it->second->path() : nullptr;
  }
  // each commit is one more checkout and build on the work filesystem (docs/manual/bisect.md)
  runner::check_disk(m_out.string(), m_work.string(),
                     {{"checkout of " + git::short_sha(sha), git::checkout_size_bytes(m_in.repo, sha)},
                      {"build of " + git::short_sha(sha), m_in.config.build.disk.value_or(k_default_build_disk)}});
  auto tree = git::Worktree::add(m_in.repo, sha, (m_work / git::short_sha(sha)).string(), process::interrupt_fd());
  if (m_o.run.keep_worktrees) {
    tree.keep();
  }
  ++m_report.builds;
  if (m_in.config.build.command) {
    if (m_pinned && !m_isolation.refbench.empty()) { // a build may use every CPU again
      process::set_affinity(0, m_isolation.usable);
    }
    if (!m_quiet) {
      std::cerr << "refbench: bisect: building " << git::short_sha(sha) << "\n";
    }
    try {
      build::build_arms({{"commit " + git::short_sha(sha), tree.path(),
                          (m_out / "logs" / ("build-" + git::short_sha(sha) + ".log")).string()}},
                        *m_in.config.build.command, m_in.config.build.env, m_env,
                        m_in.config.build.timeout.value_or(std::chrono::minutes(30)), false);
    } catch (const RefusedError&) { // it does not build: skipped, as `git bisect skip` does
      m_report.skipped.push_back(sha);
      m_trees.emplace(sha, std::nullopt);
      return nullptr;
    }
    if (m_pinned && !m_isolation.refbench.empty()) {
      process::set_affinity(0, m_isolation.refbench);
    }
  }
  return &m_trees.emplace(sha, std::move(tree)).first->second->path();
}

MeasurementPlan BisectSteps::plan_step(const std::vector<std::string>& shas, Arms& arms, const std::string& dir,
                                       std::optional<double> precision, std::uint64_t seed_offset) {
  auto settings = m_in.settings;
  settings.budget_seconds.value = std::max(1.0, m_deadline - runner::monotonic_now());
  settings.seed.value += seed_offset * 0x9e3779b97f4a7c15ULL; // a block measured more shuffles anew
  if (precision) {
    settings.precision.value = *precision;
  }
  if (m_counted) { // fixed counts decide in k_fixed_counts rounds; counts that vary, in as many as they need
    settings.min_rounds.value = model::k_fixed_counts;
  }
  Inputs in = m_in;
  in.settings = settings;
  MeasurementPlan plan{.settings = settings,
                       .output_dir = (m_out / dir / "outputs").string(),
                       .out = m_out / dir,
                       .could_not_start_hint =
                           "check the cell's command in " + in.config_path + " and that the build produced it"};
  RunOptions o = m_o.run;
  o.baseline = git::short_sha(shas[0]);
  o.candidates.clear();
  std::vector<git::ResolvedRef> refs;
  std::vector<std::string> labels;
  for (const auto& sha : shas) {
    refs.push_back({git::short_sha(sha), sha, git::short_sha(sha), git::short_sha(sha)});
    if (&sha != &shas[0]) {
      o.candidates.push_back(git::short_sha(sha));
      labels.push_back(git::short_sha(sha));
    }
  }
  record_arms(plan.header, arms, refs[0], {refs.begin() + 1, refs.end()}, o, in.config,
              {std::vector<double>(shas.size(), 0.0)});
  const ArmReplicas replicas{
      {}, {std::vector{arms.tree(model::Arm::baseline)}, std::vector{arms.tree(model::Arm::candidate)}}};
  plan.cells =
      with_control(plan_candidates(in, arms, replicas, m_payloads, m_env, m_isolation, labels), in, plan.auto_control);
  plan.header.command = "bisect";
  plan.header.reproduce =
      fmt::format("refbench report {}", util::quote_shell_word((plan.out / "journal.jsonl").string()));
  if (const auto metric = model::parse_metric(m_o.metric)) {
    plan.gate = {*metric}; // precision stopping looks at the metric bisected
    if (std::ranges::find(plan.metrics, *metric) == plan.metrics.end()) {
      plan.metrics.push_back(*metric); // the cells show it (show_metric): instructions, say
    }
  }
  plan.header.environment = report::environment_info(process::machine_facts(), &m_isolation);
  plan.header.environment->sandbox = m_sandbox;
  plan.payloads = m_payloads_json;
  plan.config = in.config_path;
  return plan;
}

std::vector<std::string> BisectSteps::trees_of(const std::vector<std::string>& shas) {
  std::vector<std::string> trees;
  for (const auto& sha : shas) {
    const auto* tree = built(sha);
    if (!tree) { // a search never measures a skipped commit: this is an end of the range
      throw RefusedError(fmt::format("{} does not build, and an end of a range must: see {}", git::short_sha(sha),
                                     (m_out / "logs" / ("build-" + git::short_sha(sha) + ".log")).string()),
                         "pass ends that build as --good and --bad");
    }
    trees.push_back(*tree);
  }
  return trees;
}

model::RunRecord BisectSteps::measure_block(const std::vector<std::string>& shas, const std::string& dir,
                                            std::optional<double> precision, double confidence,
                                            std::uint64_t seed_offset, bool print, MeasurementPlan* planned) {
  const auto trees = trees_of(shas);
  if (!m_pinned) { // after the first builds, which use every CPU
    apply_isolation(m_isolation, m_bench, m_quiet);
    m_pinned = true;
    const auto mode = m_o.run.sandbox.value_or(m_in.config.run.sandbox.value_or(model::SandboxMode::automatic));
    m_sandbox = box_commands(m_bench.box, mode, box_paths_of_bisect(m_out, m_work, m_in.config.run.writable),
                             *m_bench.err, m_quiet);
  }
  make_out_dirs(m_out / dir);
  Arms arms(m_work, trees);
  auto plan = plan_step(shas, arms, dir, precision, seed_offset);
  if (precision) { // the step's rounds stop on intervals of the confidence it decides at
    plan.stop_confidence = confidence;
  }
  if (!std::exchange(m_explain_next, false)) {
    plan.settings.explain.value = model::ExplainMode::off;
  }
  plan_counts(plan);
  if (m_counted) {
    // a commit's counts by cell and commit: the control's arms and the good end's are the cell's baseline's
    plan.count_memo = &m_counts;
    // a cell of one candidate carries no label: its candidate is the step's one other commit
    const std::string only = shas.size() == 2 ? git::short_sha(shas[1]) : std::string();
    plan.count_key = [this, good = git::short_sha(shas[0]), only](const model::CellSpec& cell, model::Arm arm) {
      std::string key =
          cell.control ? cell.name.substr(0, cell.name.size() - model::k_control_suffix.size()) : cell.name;
      const std::string commit = arm == model::Arm::baseline || cell.control ? good
                                 : cell.meta.candidate.empty()               ? only
                                                                             : cell.meta.candidate;
      if (commit.empty()) {
        return std::string(); // not known: counted afresh
      }
      key += "\n" + commit;
      for (const auto reading : cell.counted) {
        key += fmt::format("\n{}", static_cast<int>(reading));
      }
      if (commit == git::short_sha(m_report.good)) { // the range's good end: the A/A of the counts
        m_counts.require(key, k_good_end_passes);
      }
      return key;
    };
  }
  formats::JournalWriter journal((plan.out / "journal.jsonl").string());
  std::ostringstream hidden;
  CommonOptions common;
  common.quiet = true;
  Sinks sinks{.common = common, .out = print ? m_bench.out : &hidden, .err = m_quiet ? &hidden : m_bench.err};
  sinks.started = runner::monotonic_now();
  sinks.check_links = [&] { return arms.moved_links(); };
  const double started = runner::monotonic_now();
  measure_and_report(plan, m_bench.executor, journal, sinks);
  const double took = runner::monotonic_now() - started;
  const auto path = plan.out / "journal.jsonl";
  auto read = formats::read_journal(util::read_file(path.string()).value_or(""), path.string());
  int rounds = 0;
  for (const auto& cell : read.record.cells) {
    rounds = std::max(rounds, cell.rounds);
  }
  if (rounds > 0) { // what the next step's rounds will cost, per commit
    m_commit_round_seconds = took / (rounds * static_cast<double>(shas.size()));
  }
  if (planned) {
    *planned = std::move(plan);
  }
  return std::move(read.record);
}

namespace {

// `run`'s rows from its merged record, at its confidence.
void analyse_run(BisectSteps::Run& run, const config::MeasurementSettings& settings) {
  auto analysis_settings = settings.analysis();
  analysis_settings.confidence = run.confidence;
  // a suite's rows (docs/manual/suites.md): its benchmarks are what a step reads, as a run's report does
  model::RunRecord rows = run.record;
  std::vector<std::string> removed;
  model::to_rows(rows, removed);
  run.rows = analysis::analyze(analysis::cell_samples(rows, run.metrics, run.gate), analysis_settings);
  run.rounds = 0;
  for (const auto& cell : run.record.cells) {
    run.rounds = std::max(run.rounds, cell.rounds);
  }
}

} // namespace

BisectSteps::Run BisectSteps::measure(const std::string& good, const std::vector<std::string>& others,
                                      const std::string& kind, double confidence, std::optional<double> precision,
                                      bool print) {
  Run run;
  run.shas = {good};
  run.shas.insert(run.shas.end(), others.begin(), others.end());
  run.kind = kind;
  run.confidence = confidence;
  run.dir = fmt::format("steps/{:02}-{}", ++m_steps, kind);
  MeasurementPlan plan;
  const int passes = m_counts.passes();
  // the step's readings again, at the step's own confidence
  run.record = measure_block(run.shas, run.dir, precision, confidence, 0, print, &plan);
  m_report.counted_passes += m_counts.passes() - passes;
  run.metrics = plan.metrics;
  run.gate = plan.gate;
  analyse_run(run, m_in.settings);
  return run;
}

std::optional<BisectSteps::Run> BisectSteps::measure_more(const Run& run) {
  if (!budget_left() || static_cast<int>(run.more_dirs.size()) >= k_max_more_blocks) {
    return std::nullopt;
  }
  Run more = run;
  const auto block = more.more_dirs.size() + 1;
  more.more_dirs.push_back(fmt::format("steps/{:02}-{}-more", ++m_steps, run.kind));
  if (!m_quiet) {
    std::cerr << fmt::format("refbench: bisect: {} cannot tell yet after {} rounds: measuring {} more\n", run.kind,
                             run.rounds, m_in.settings.max_rounds.value);
  }
  // every round of the block: no precision stop, the width is the merged blocks'
  const int passes = m_counts.passes();
  const auto record = measure_block(run.shas, more.more_dirs.back(), 0.0, run.confidence, block, false, nullptr);
  m_report.counted_passes += m_counts.passes() - passes;
  model::merge_rounds(more.record, record);
  analyse_run(more, m_in.settings);
  return more;
}

bisect::Reading reading_of(const BisectSteps::Run& run, const std::string& cell, const std::string& metric,
                           const std::string& label) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  for (const auto& r : run.rows) {
    if (r.cell == cell && r.metric == metric && !r.control && (r.candidate == label || r.candidate.empty()) &&
        !r.error && r.ratio > 0 && r.ci_low > 0 && std::isfinite(r.ci_high)) {
      return {std::log(r.ratio), std::log(r.ci_low), std::log(r.ci_high), r.n};
    }
  }
  return {0, -inf, inf, 0};
}

std::optional<std::string> failure_of(const BisectSteps::Run& run, const std::string& cell, const std::string& metric) {
  for (const auto& r : run.rows) {
    if (r.error && (r.cell == cell || (r.control && r.metric == metric))) {
      return fmt::format("{} {}: {}", r.cell, r.metric, *r.error);
    }
  }
  return std::nullopt;
}

std::optional<bisect::Reading> control_reading_of(const BisectSteps::Run& run, const std::string& metric) {
  for (const auto& r : run.rows) {
    if (r.control && r.metric == metric && !r.error && r.ci_low > 0 && std::isfinite(r.ci_high) && r.ratio > 0) {
      return bisect::Reading{std::log(r.ratio), std::log(r.ci_low), std::log(r.ci_high), r.n};
    }
  }
  return std::nullopt;
}

} // namespace refbench::pipeline
