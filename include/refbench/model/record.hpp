#pragma once
// What a run is made of (cells and settings) and what it recorded (samples,
// stop reasons, failures). Plain data: runner fills it; analysis, report,
// formats and history read it.

#include <refbench/model/counter_tool.hpp>
#include <refbench/model/invocation.hpp>
#include <refbench/model/metrics.hpp>
#include <refbench/model/rss_probe.hpp>
#include <refbench/suites/suite.hpp>
#include <refbench/util/enum_names.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace refbench::model {

// The two positions of a pair. In the A/A control cell both run the baseline.
enum class Arm { baseline, candidate };
inline constexpr auto k_arm_names = util::enum_names<Arm>({{Arm::baseline, "baseline"}, {Arm::candidate, "candidate"}});
inline std::string_view arm_name(Arm arm) { return k_arm_names.name(arm); }

// A metric the command reports itself (docs/manual/config.md#custom-metrics-windows-and-requirements): read after each
// successful invocation from the last line of its stdout or from its
// {output} file, as a JSON object (`key` a top-level name) or in Bencher
// Metric Format (`key` = "<benchmark>/<measure>", its `value`).
// Where a command reports its custom metrics, and in which format
// (docs/manual/config.md#custom-metrics-windows-and-requirements): the last JSON line of stdout or the {output}
// file; refbench's own JSON or Bencher Metric Format.
enum class ReportSource { stdout_line, file };
enum class ReportFormat { json, bmf };

// The words of refbench.toml and the journal: "stdout", "file"; "json",
// "bmf"; and back (nullopt for any other word).
inline constexpr auto k_report_source_names =
    util::enum_names<ReportSource>({{ReportSource::stdout_line, "stdout"}, {ReportSource::file, "file"}});
inline constexpr auto k_report_format_names =
    util::enum_names<ReportFormat>({{ReportFormat::json, "json"}, {ReportFormat::bmf, "bmf"}});
inline std::string_view report_source_name(ReportSource source) { return k_report_source_names.name(source); }
inline std::optional<ReportSource> parse_report_source(std::string_view word) {
  return k_report_source_names.parse(word);
}
inline std::string_view report_format_name(ReportFormat format) { return k_report_format_names.name(format); }
inline std::optional<ReportFormat> parse_report_format(std::string_view word) {
  return k_report_format_names.parse(word);
}

// A service-level objective on a metric's readings: `reading op value`
// holds, e.g. "<= 5000" (op one of == != < <= > >=).
struct Slo {
  std::string op;
  double value = 0;
};

struct CustomMetric {
  std::string name;
  ReportSource from = ReportSource::stdout_line;
  ReportFormat format = ReportFormat::json;
  std::string key;
  bool higher_is_better = false;
  std::string unit; // shown after values, e.g. "req/s"; may be empty
  MetricKind kind = MetricKind::ratio;
  double max_increase = 0;            // count: the largest increase that is not a regression
  std::optional<double> censor_above; // readings at or above it are censored (a ceiling, e.g. a timeout)
  std::optional<double> censor_below; // readings at or below it are censored
  std::optional<Slo> slo;
  // what its values are (docs/manual/suites.md): seconds and bytes are shown as
  // such; plain values with `unit`
  Unit base = Unit::plain;
  // a count that does not drift and may be 0 (a suite's allocs/op): zero
  // compares as one, its default threshold is the count threshold
  bool counted = false;
};

// docs/manual/suites.md: a cell whose command runs a whole benchmark suite; what
// its harness reports (stdout, or its {output} file) becomes a row per
// benchmark (runner/suite_rows.hpp).
struct SuiteSpec {
  suites::Harness harness = suites::Harness::google_benchmark;
  ReportSource from = ReportSource::stdout_line;
};

// A condition on a reported value that every invocation must meet, e.g.
// `errors == 0`; `key` is read like a custom metric's key.
struct Requirement {
  std::string key;
  std::string op; // one of == != < <= > >=
  double value = 0;
};

// What analysis and the report know about a cell besides its samples; the
// runner only carries it into the record and the journal. The custom
// metrics, window and requirements also tell the runner what to read.
struct CellMeta {
  std::optional<std::vector<std::string>> metrics; // shown metrics; none: the run's
  std::optional<std::vector<std::string>> gate;    // metrics that can fail the run; none: the run's
  std::map<std::string, double> threshold;         // per metric, over the run's threshold
  std::string family;                              // the [[cell]] a payload expansion came from; "" if none
  std::uint64_t payload_bytes = 0;                 // that expansion's payload size; 0 if none
  std::vector<CustomMetric> custom;                // all read from one report (same from/format)
  double min_duration_seconds = 0;                 // an invocation's window must be at least this long
  std::string window_key;                          // reported window length (seconds); "": the wall time
  std::vector<Requirement> require;                // every invocation must meet all of these
  // docs/manual/config.md#parameter-sweeps: the [[cell]] name with its {param}s, and this
  // cell's value of each, in the order written; "" and none outside a sweep
  std::string sweep;
  std::vector<std::pair<std::string, std::string>> params;
  // docs/manual/config.md#new-and-removed-cells: absent from the baseline's config, so
  // measured on the candidate only and reported as NEW
  bool candidate_only = false;
  // docs/manual/commands.md#more-candidates: which candidate the cell's candidate arm runs,
  // when a run has several; "" when it has one
  std::string candidate;
  // docs/manual/suites.md: the harness of a suite cell, and of each of its rows;
  // a row also names its benchmark as the harness does ("" in the suite
  // cell itself, which the rounds run)
  std::optional<SuiteSpec> suite;
  std::string benchmark;
  // a suite cell's: the benchmarks --cells asked for (globs over the
  // benchmark names); none: all of them
  std::vector<std::string> rows;
};

// The commands around a cell's measurements, per arm (docs/manual/config.md#hooks): `setup`
// once before warm-up, `prepare` before every invocation (untimed),
// `cleanup` once at the end — also after an error or an interrupt.
struct HookCommand {
  Invocation invocation;
  bool shell = false; // argv is {"/bin/sh", "-c", SCRIPT}: {round} is filled in shell-quoted
};

struct ArmHooks {
  std::optional<HookCommand> setup;
  std::optional<HookCommand> prepare;
  std::optional<HookCommand> cleanup;
};

// The hooks' names as in refbench.toml and messages: "setup", "prepare", "cleanup".
enum class Hook { setup, prepare, cleanup };
inline constexpr auto k_hook_names =
    util::enum_names<Hook>({{Hook::setup, "setup"}, {Hook::prepare, "prepare"}, {Hook::cleanup, "cleanup"}});
inline std::string_view hook_name(Hook hook) { return k_hook_names.name(hook); }

// The CellFailure::hook of a failure found by the trees' check, not by a
// command: the arms' trees changed during the rounds (docs/manual/security.md).
inline constexpr std::string_view k_tree_check = "tree check";
// CellFailure::hook of a counted invocation that failed or gave no count:
// under the instruction counter, with the allocation counter preloaded.
inline constexpr std::string_view k_counted_run = "count";
inline constexpr std::string_view k_allocation_run = "allocation count";
// CellFailure::hook of a suite's row whose benchmark the counted run could
// not count per iteration (docs/manual/suites.md#counts-per-benchmark).
inline constexpr std::string_view k_benchmark_count = "benchmark count";

// One benchmarked cell: the same work done by each arm.
struct CellSpec {
  std::string name;
  Invocation baseline;
  Invocation candidate;
  bool control = false;
  // Replace {round} and {output} in argv and env values per invocation;
  // {output} is a fresh path under RoundSettings::output_dir, deleted after.
  bool placeholders = false;
  // argv is {"/bin/sh", "-c", SCRIPT}: values filled into SCRIPT are shell-quoted.
  bool shell = false;
  // The baseline run through the A/A control's own {arm} link (another
  // replica of the baseline): a control cell's second arm; none: the
  // control runs `baseline` on both arms.
  std::optional<Invocation> control_twin;
  // docs/manual/commands.md#refbench-run: in round 1 both arms' {output} files must be byte-identical.
  bool check_output = false;
  CellMeta meta;
  // Per arm; the A/A control runs the baseline's on both of its arms, its
  // second arm in the directory of `control_twin` when it has one.
  ArmHooks baseline_hooks;
  ArmHooks candidate_hooks;
  std::optional<ArmHooks> control_twin_hooks;
  // The counted readings it shows (counted metrics): each round
  // also runs counted invocations of each arm, until its counts settle
  // (k_settled_counts): one under the instruction counter for
  // instructions, one with the allocation counter preloaded for
  // allocations and allocated_bytes.
  std::vector<Reading> counted;
};

// The end of every A/A control cell's name; no other cell's name may end in it.
inline constexpr std::string_view k_control_suffix = "-control";

// The A/A control replica of `cell` (docs/manual/measurement.md): named "<cell>-control",
// baseline on both arms, no output check, outside any payload family.
CellSpec control_of(const CellSpec& cell);

// The round settings' defaults (docs/manual/commands.md#refbench-compare), written once: the flags'
// help, refbench.toml and the readers of a run use these.
inline constexpr int k_default_max_rounds = 60;
inline constexpr int k_default_min_rounds = 10;
inline constexpr int k_default_warmup = 1;

struct RoundSettings {
  double budget_seconds = 0; // the command's (config::k_run_defaults, k_compare_defaults), as resolved
  int max_rounds = k_default_max_rounds;
  int min_rounds = k_default_min_rounds;
  int warmup = k_default_warmup;
  std::uint64_t seed = 0;
  std::string output_dir;    // where {output} files live (placeholders only)
  bool auto_control = false; // after warm-up, add an A/A control of the cheapest cell
  int replicas = 1;          // byte-identical copies per arm; > 1: RoundHooks::place moves the links
  bool warm_up_only = false; // the warm-up and no round: what a suite reports before a shard splits it
  // The counter of the cells that are counted (CellSpec::counted), and the
  // directory its counted invocations write their counts in; none: no cell is.
  std::optional<CounterTool> counter;
  std::string counts_dir;
  // What explanations count under (valgrind; docs/manual/explanations.md) and, when
  // there is none, why not; they write in counts_dir too.
  std::optional<CounterTool> explain_tool;
  std::string explain_missing;
};

// After how many counted rounds a cell's counts are fixed (docs/design.md,
// Counters): each arm read the same in every one of them, so no more are
// taken and the analysis reads the ratio exactly (fixed_counts). A count
// that varies (a clock, an address, a seed, a thread schedule) repeats with
// some chance p; it passes as fixed with chance p^(2(k-1)), p^4 here: 6 % for a
// count that is one of two values evenly, 1e-4 for one of ten; measured
// counts that vary repeated far less often (bench/count-variation.sh).
inline constexpr int k_fixed_counts = 3;

// After how many rounds in which each arm's count came out the same a
// cell's counts that once varied are settled and no longer taken, once it
// has min_rounds counted rounds (docs/design.md, Counters):
// were the counts of a change still varying, 8 equal ones in a row would
// happen by chance at most 2^-8 ≈ 0.4 % of the time.
inline constexpr int k_settled_counts = 8;

// Whether one metric's paired counted readings are fixed: at least
// k_fixed_counts pairs, every baseline reading the same and every
// candidate reading the same. The ratio of such readings is exact.
bool fixed_counts(const std::vector<double>& baseline, const std::vector<double>& candidate);

// One invocation as measured. `round` 0 is warm-up (discarded by analysis);
// `order` is its position within the round's shuffled list.
struct Sample {
  std::size_t cell = 0;
  Arm arm = Arm::baseline;
  int round = 0;
  std::size_t order = 0;
  Outcome outcome;
  std::map<std::string, double> values; // the custom metrics it reported, by name
  std::string problem;                  // why what it reported disqualifies it
                       // (docs/manual/config.md#custom-metrics-windows-and-requirements); "" if nothing
  int replica = 0;               // which byte-identical copy of its arm ran (0-based)
  suites::Benchmarks benchmarks; // a suite cell's: what its harness reported
};

// True when `sample` ran to exit 0 and what it reported is fine: only such
// samples form pairs.
bool usable(const Sample& sample);

// aborted: another cell's command could not be started, so the run stopped.
enum class StopReason { running, precision, max_rounds, budget, error, interrupted, aborted };
// The journal's words, "max-rounds" and the like; and back (nullopt for any other word).
inline constexpr auto k_stop_reason_names = util::enum_names<StopReason>({{StopReason::running, "running"},
                                                                          {StopReason::precision, "precision"},
                                                                          {StopReason::max_rounds, "max-rounds"},
                                                                          {StopReason::budget, "budget"},
                                                                          {StopReason::error, "error"},
                                                                          {StopReason::interrupted, "interrupted"},
                                                                          {StopReason::aborted, "aborted"}});
inline std::string_view stop_reason_name(StopReason reason) { return k_stop_reason_names.name(reason); }
inline std::optional<StopReason> parse_stop_reason(std::string_view word) { return k_stop_reason_names.parse(word); }

// How an invocation ended, as the journal says it: "exited", "timed-out", …
inline constexpr auto k_termination_names = util::enum_names<Termination>({{Termination::exited, "exited"},
                                                                           {Termination::signaled, "signaled"},
                                                                           {Termination::timed_out, "timed-out"},
                                                                           {Termination::spawn_failed, "spawn-failed"},
                                                                           {Termination::cancelled, "cancelled"}});

// The first failed invocation of a cell.
struct CellFailure {
  Arm arm = Arm::baseline;
  int round = 0; // 0: warm-up
  std::string description;
  std::string stderr_tail;
  bool could_not_start = false; // spawn failed: the command is wrong, not slow
  std::string hook;             // the hook that failed ("setup", …), k_tree_check; "": the cell's command
};

struct CellRecord {
  std::string name;
  bool control = false;
  StopReason stop = StopReason::running;
  int rounds = 0; // rounds in which the cell ran
  std::optional<CellFailure> failure;
  CellMeta meta;
};

// docs/manual/commands.md#more-candidates: how reports name a cell of a run with several
// candidates, "parse (feat-a)"; just `name` when `candidate` is "".
std::string cell_title(const std::string& name, const std::string& candidate);
std::string cell_title(const CellRecord& cell);

// Who ran in `arm` of `cell`, for messages: "baseline", "candidate" ("candidate
// feat-a" when the run has several), or "baseline (A/A control)" in the
// control cell, where both arms run it.
std::string arm_label(const CellRecord& cell, Arm arm);

// "the baseline command", "the candidate setup hook", "the baseline (A/A
// control) prepare hook": who failed, for messages.
std::string failure_subject(const CellRecord& cell, const CellFailure& failure);

// When it failed: "in warm-up", "in round 3"; for hooks "before warm-up"
// (setup), "before its run in round 3" (prepare), "after the last round" (cleanup).
std::string failure_when(const CellFailure& failure);

struct RunRecord {
  std::uint64_t seed = 0;
  RssProbe rss;
  std::vector<CellRecord> cells;
  std::vector<Sample> samples;
  double elapsed_seconds = 0; // warm-up + rounds
  int interrupted_by = 0;     // the signal that stopped the run, or 0
};

// Appends the cells and samples of `run` to `into` (its samples' cell
// indices moved past `into`'s cells); the longer elapsed time stays.
void append_record(RunRecord& into, const RunRecord& run);

// Adds the rounds of `more` — the same cells measured again — to `into`:
// each sample goes to `into`'s cell of the same name, candidate and control
// flag (a cell `into` lacks is appended), its round numbered after `into`'s
// last, so pairs stay pairs; rounds and elapsed times add up.
void merge_rounds(RunRecord& into, const RunRecord& more);

} // namespace refbench::model
