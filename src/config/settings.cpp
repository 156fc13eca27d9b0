#include <refbench/config/config.hpp>
#include <refbench/config/settings.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/quantity.hpp>
#include <refbench/util/rng.hpp>

#include <cmath>
#include <fmt/format.h>

namespace refbench::config {
namespace {

// One setting picked from the layers: the flag, the file (with the
// position its reader recorded), else `fallback`.
template <class T>
Setting<T> pick(std::string_view key, const std::optional<T>& flag, const std::optional<T>& in_file,
                const RunConfig* file, T fallback) {
  if (flag) {
    return {*flag, flag_of(key)};
  }
  if (in_file && file != nullptr) {
    auto where = file->where.find(std::string(key));
    return {*in_file, fmt::format("{}: run.{}", where == file->where.end() ? file->source : where->second, key)};
  }
  return {fallback, "default"};
}

[[noreturn]] void fail(std::string_view key, const std::string& origin, const std::string& problem) {
  throw UsageError(problem_message(key, origin, problem),
                   origin.starts_with("--") ? "see refbench --help"
                                            : "see the refbench.toml reference, docs/manual/config.md");
}

void check(std::string_view key, const Setting<double>& setting) {
  if (auto problem = number_problem(key, setting.value)) {
    fail(key, setting.origin, *problem);
  }
}

void check(std::string_view key, const Setting<int>& setting) {
  check(key, Setting<double>{static_cast<double>(setting.value), setting.origin});
}

// A duration flag's text parsed, or the file's value; above zero.
Setting<std::chrono::nanoseconds> duration(std::string_view key, const std::optional<std::string>& flag,
                                           const std::optional<std::chrono::nanoseconds>& in_file,
                                           const RunConfig* file, std::chrono::nanoseconds fallback) {
  std::optional<std::chrono::nanoseconds> parsed;
  if (flag) {
    auto value = util::parse_duration(*flag);
    if (!value) {
      throw UsageError(flag_of(key) + ": " + value.error());
    }
    parsed = *value;
    if (parsed->count() <= 0) {
      fail(key, flag_of(key), fmt::format("must be greater than 0, got '{}'", *flag));
    }
  }
  return pick(key, parsed, in_file, file, fallback);
}

} // namespace

std::string flag_of(std::string_view key) {
  std::string flag = "--" + std::string(key);
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

std::string problem_message(std::string_view key, const std::string& origin, const std::string& problem) {
  if (origin == "default" || origin == "random") {
    return fmt::format("{} {}", key, problem);
  }
  return fmt::format("{} {}", origin, problem);
}

std::optional<std::string> number_problem(std::string_view key, double value) {
  auto outside = [&](double low, double high) { return !std::isfinite(value) || value < low || value > high; };
  if (key == "budget") {
    if (!(value >= k_min_budget_seconds) || !std::isfinite(value)) {
      return fmt::format("is {}s: no round of interleaved invocations fits in less than {}s", value,
                         k_min_budget_seconds);
    }
  } else if (key == "max_rounds") {
    if (outside(1, k_max_rounds_limit)) {
      return fmt::format("must be at least 1 and at most {}, got {}", k_max_rounds_limit, value);
    }
  } else if (key == "warmup") {
    if (outside(0, k_max_warmup)) {
      return fmt::format("must be 0 or more (at most {}), got {}", k_max_warmup, value);
    }
  } else if (key == "threshold") {
    if (!(std::isfinite(value) && value > 1.0 && value < 1e9)) {
      return fmt::format("must be a ratio above 1 (e.g. {}), got {}", model::k_default_threshold, value);
    }
  } else if (key == "alpha") {
    if (!(value > 0.0 && value < 1.0)) {
      return fmt::format("must be between 0 and 1, got {}", value);
    }
  } else if (key == "precision") {
    if (!(std::isfinite(value) && value > 0.0 && value < 10.0)) {
      return fmt::format("must be above 0 (log units, e.g. {}), got {}", k_default_precision, value);
    }
  } else if (key == "replicas") {
    if (outside(1, k_max_replicas)) {
      return fmt::format("must be between 1 and {}, got {}", k_max_replicas, value);
    }
  }
  return std::nullopt;
}

MeasurementSettings resolve(const MeasurementFlags& flags, const RunConfig* file, const CommandDefaults& defaults) {
  static const RunConfig k_none;
  const RunConfig& f = file != nullptr ? *file : k_none;
  MeasurementSettings s;
  auto budget = duration("budget", flags.budget, f.budget, file, defaults.budget);
  s.budget_seconds = {util::to_seconds(budget.value), budget.origin};
  check("budget", s.budget_seconds);
  s.max_rounds = pick("max_rounds", flags.max_rounds, f.max_rounds, file, model::k_default_max_rounds);
  check("max_rounds", s.max_rounds);
  s.min_rounds = pick("min_rounds", flags.min_rounds, f.min_rounds, file, model::k_default_min_rounds);
  if (!flags.min_rounds) { // a min_rounds nobody asked for on the command line yields to a smaller max_rounds
    s.min_rounds.value = std::min(s.min_rounds.value, s.max_rounds.value);
  }
  if (s.min_rounds.value < 1 || s.min_rounds.value > s.max_rounds.value) {
    const std::string max = s.max_rounds.origin.starts_with("--") ? s.max_rounds.origin : "run.max_rounds";
    fail("min_rounds", s.min_rounds.origin,
         fmt::format("must be between 1 and {} ({}), got {}", max, s.max_rounds.value, s.min_rounds.value));
  }
  s.warmup = pick("warmup", flags.warmup, f.warmup, file, model::k_default_warmup);
  check("warmup", s.warmup);
  s.timeout = duration("timeout", flags.timeout, f.timeout, file, k_default_timeout);
  s.seed = pick("seed", flags.seed, f.seed, file, std::uint64_t{0});
  if (s.seed.origin == "default") {
    s.seed = {util::random_seed(), "random"};
  }
  s.precision = pick("precision", flags.precision, f.precision, file, k_default_precision);
  check("precision", s.precision);
  s.threshold = pick("threshold", flags.threshold, f.threshold, file, model::k_default_threshold);
  check("threshold", s.threshold);
  s.alpha = pick("alpha", flags.alpha, f.alpha, file, analysis::k_default_alpha);
  check("alpha", s.alpha);
  s.interval = pick("interval", flags.interval, std::optional<analysis::IntervalMethod>(), file,
                    analysis::IntervalMethod::signed_rank);
  s.fail_on = pick("fail_on", flags.fail_on, std::optional<FailOn>(), file, k_default_fail_on);
  s.isolate = pick("isolate", flags.isolate, f.isolate, file, std::string("auto"));
  // the list is checked against this machine's CPUs by process::plan_isolation
  s.counters = pick("counters", flags.counters, f.counters, file, k_default_counters);
  s.explain = pick("explain", flags.explain, f.explain, file, model::k_default_explain);
  s.replicas = pick("replicas", flags.replicas, f.replicas, file, defaults.replicas);
  check("replicas", s.replicas);
  s.control = pick("control", flags.no_control ? std::optional(false) : std::nullopt, f.control, file, true);
  if (flags.no_control) {
    s.control.origin = "--no-control";
  }
  return s;
}

model::RoundSettings MeasurementSettings::rounds() const {
  model::RoundSettings rounds;
  rounds.budget_seconds = budget_seconds.value;
  rounds.max_rounds = max_rounds.value;
  rounds.min_rounds = min_rounds.value;
  rounds.warmup = warmup.value;
  rounds.seed = seed.value;
  return rounds;
}

analysis::Settings MeasurementSettings::analysis() const {
  return analysis::settings_for(threshold.value, alpha.value, min_rounds.value, interval.value, seed.value);
}

} // namespace refbench::config
