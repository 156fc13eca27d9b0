#include <refbench/analysis/analysis.hpp>
#include <refbench/cli/options.hpp>
#include <refbench/model/counter_tool.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/quantity.hpp>

#include <fmt/format.h>

namespace refbench::cli {
void add_measurement_options(CLI::App& cmd, config::MeasurementFlags& f, const config::CommandDefaults& defaults) {
  cmd.add_option("--budget", f.budget,
                 fmt::format("Measurement time budget, e.g. 120s, 25m (default {}s)", defaults.budget.count()));
  cmd.add_option("--max-rounds", f.max_rounds,
                 fmt::format("Most rounds per cell (default {})", model::k_default_max_rounds));
  cmd.add_option(
      "--min-rounds", f.min_rounds,
      fmt::format("Fewest rounds before a cell may stop on precision (default {})", model::k_default_min_rounds));
  cmd.add_option("--precision", f.precision,
                 fmt::format("Target interval half-width in log units (default {})", config::k_default_precision));
  cmd.add_option("--threshold", f.threshold,
                 fmt::format("Ratio beyond which a change is a regression (default {})", model::k_default_threshold));
  cmd.add_option("--alpha", f.alpha,
                 fmt::format("False discovery rate for regressions (default {})", analysis::k_default_alpha));
  cmd.add_option("--seed", f.seed, "Seed of the shuffles, pads and payloads (default: random, always recorded)")
      ->check(check_seed);
  cmd.add_option("--warmup", f.warmup,
                 fmt::format("Discarded runs of each command before round 1 (default {})", model::k_default_warmup));
  cmd.add_option("--timeout", f.timeout,
                 fmt::format("Per-invocation timeout, e.g. 30s, 10m (default {}m)", config::k_default_timeout.count()));
  add_interval_option(cmd, f.interval, "Interval (default signed-rank; bootstrap: BCa, 10 000 resamples)");
  add_choice_option(cmd, "--fail-on", f.fail_on, config::k_fail_on_names, "Which verdict fails (default regression)");
  cmd.add_option("--isolate", f.isolate, "CPU isolation: auto (default), off or a CPU list like 2-3");
  add_choice_option(cmd, "--counters", f.counters, model::k_counter_source_names,
                    fmt::format("Where instruction counts come from (default {})",
                                model::counter_source_name(config::k_default_counters)));
  add_choice_option(cmd, "--explain", f.explain, model::k_explain_mode_names,
                    fmt::format("Which cells get the functions and allocation sites behind their change (default {})",
                                model::explain_mode_name(model::k_default_explain)));
  cmd.add_option(
      "--replicas", f.replicas,
      fmt::format("Byte-identical copies of each arm's program, one drawn per round (default {}, at most {})",
                  defaults.replicas, config::k_max_replicas));
}

void add_fail_on_option(CLI::App& command, config::FailOn& fail_on) {
  add_choice_option(command, "--fail-on", fail_on, config::k_fail_on_names, "Which verdict fails (default regression)");
}

void add_interval_option(CLI::App& command, std::optional<analysis::IntervalMethod>& interval,
                         const std::string& help) {
  add_choice_option(command, "--interval", interval, analysis::k_interval_names, help);
}

void add_format_option(CLI::App& command, formats::OutputFormat& format) {
  add_choice_option(command, "--format", format, formats::k_output_format_names, "Output (default markdown)");
}

std::chrono::nanoseconds duration_flag(const std::string& flag, const std::string& text) {
  auto parsed = util::parse_duration(text);
  if (!parsed) {
    throw UsageError(flag + ": " + parsed.error());
  }
  if (parsed->count() <= 0) {
    throw UsageError(flag + " must be greater than 0, got '" + text + "'");
  }
  return *parsed;
}

std::string check_seed(const std::string& text) {
  auto seed = util::parse_seed(text);
  return seed ? std::string() : seed.error();
}

} // namespace refbench::cli
