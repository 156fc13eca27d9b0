#include <refbench/cli/options.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/quantity.hpp>

#include <fmt/format.h>
#include <map>

namespace refbench::cli {
namespace {

// CLI11 turns the word into the enum's value through this map.
template <class Enum, class Name> std::map<std::string, Enum> names_of(std::initializer_list<Enum> values, Name name) {
  std::map<std::string, Enum> map;
  for (auto value : values) {
    map.emplace(std::string(name(value)), value);
  }
  return map;
}

} // namespace

void add_measurement_options(CLI::App& cmd, config::MeasurementFlags& f, const config::CommandDefaults& defaults) {
  cmd.add_option("--budget", f.budget,
                 fmt::format("Measurement time budget, e.g. 120s, 25m (default {}s)", defaults.budget.count()));
  cmd.add_option("--max-rounds", f.max_rounds,
                 fmt::format("Most rounds per cell (default {})", config::k_default_max_rounds));
  cmd.add_option(
      "--min-rounds", f.min_rounds,
      fmt::format("Fewest rounds before a cell may stop on precision (default {})", config::k_default_min_rounds));
  cmd.add_option("--precision", f.precision,
                 fmt::format("Target interval half-width in log units (default {})", config::k_default_precision));
  cmd.add_option("--threshold", f.threshold,
                 fmt::format("Ratio beyond which a change is a regression (default {})", config::k_default_threshold));
  cmd.add_option("--alpha", f.alpha,
                 fmt::format("False discovery rate for regressions (default {})", config::k_default_alpha));
  cmd.add_option("--seed", f.seed, "Seed of the shuffles, pads and payloads (default: random, always recorded)")
      ->check(check_seed);
  cmd.add_option("--warmup", f.warmup,
                 fmt::format("Discarded runs of each command before round 1 (default {})", config::k_default_warmup));
  cmd.add_option("--timeout", f.timeout,
                 fmt::format("Per-invocation timeout, e.g. 30s, 10m (default {}m)", config::k_default_timeout.count()));
  add_interval_option(cmd, f.interval, "Interval: signed-rank (default) or bootstrap (BCa, 10 000 resamples)");
  cmd.add_option("--fail-on", f.fail_on, "Which verdict fails: regression (default), inconclusive or never")
      ->transform(CLI::CheckedTransformer(names_of(
          {config::FailOn::regression, config::FailOn::inconclusive, config::FailOn::never}, config::fail_on_name)));
  cmd.add_option("--isolate", f.isolate, "CPU isolation: auto (default), off or a CPU list like 2-3");
  cmd.add_option(
      "--replicas", f.replicas,
      fmt::format("Byte-identical copies of each arm's program, one drawn per round (default {}, at most {})",
                  defaults.replicas, config::k_max_replicas));
}

void add_fail_on_option(CLI::App& command, config::FailOn& fail_on) {
  command.add_option("--fail-on", fail_on, "Which verdict fails: regression (default), inconclusive or never")
      ->transform(CLI::CheckedTransformer(names_of(
          {config::FailOn::regression, config::FailOn::inconclusive, config::FailOn::never}, config::fail_on_name)));
}

void add_interval_option(CLI::App& command, std::optional<analysis::IntervalMethod>& interval,
                         const std::string& help) {
  command.add_option("--interval", interval, help)
      ->transform(CLI::CheckedTransformer(names_of(
          {analysis::IntervalMethod::signed_rank, analysis::IntervalMethod::bootstrap}, analysis::interval_name)));
}

void add_format_option(CLI::App& command, OutputFormat& format) {
  const std::map<std::string, OutputFormat> names{
      {"markdown", OutputFormat::markdown}, {"json", OutputFormat::json}, {"csv", OutputFormat::csv}};
  command.add_option("--format", format, "Output: markdown (default), json or csv")
      ->transform(CLI::CheckedTransformer(names));
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
