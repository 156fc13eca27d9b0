#pragma once
// The flags the subcommands share, parsed at the edge into typed values:
// flags of choices (words in --help, the words named when one is refused),
// the measurement flags of `run`, `compare` and `bisect` (help strings made
// from the defaults of config/settings), `--fail-on`, `--interval`,
// `--format`, `--seed` and durations.

#include <refbench/config/settings.hpp>
#include <refbench/pipeline/options.hpp>
#include <refbench/util/enum_names.hpp>

#include <CLI/CLI.hpp>
#include <cctype>
#include <chrono>
#include <optional>
#include <string>

namespace refbench::cli {

// The CLI11 transform of a flag that takes one of `names`' words (any
// case): the word becomes the enum's value; any other word is refused with
// the words to use.
template <typename Enum, std::size_t N> CLI::Validator choice_of(const util::EnumNames<Enum, N>& names) {
  return CLI::Validator(
      [names](std::string& word) {
        std::string lower = word;
        for (char& c : lower) {
          c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        const auto value = names.parse(lower);
        if (!value) {
          return "'" + word + "' is not a choice: use " + names.list();
        }
        word = std::to_string(static_cast<int>(*value));
        return std::string();
      },
      "");
}

// Adds `flag` to `command`, bound to `target` (an Enum or an optional one),
// taking one of `names`' words; --help shows them as `a|b|c`.
template <typename Target, typename Enum, std::size_t N>
CLI::Option* add_choice_option(CLI::App& command, const std::string& flag, Target& target,
                               const util::EnumNames<Enum, N>& names, const std::string& help) {
  return command.add_option(flag, target, help)->type_name(names.list("|", "|"))->transform(choice_of(names));
}

// Adds the measurement flags (--budget … --replicas, --fail-on, --interval,
// --isolate) to `command`, bound to `flags`; help strings show `defaults`.
void add_measurement_options(CLI::App& command, config::MeasurementFlags& flags,
                             const config::CommandDefaults& defaults);

// Adds `--fail-on regression|inconclusive|never` to `command`, bound to `fail_on`.
void add_fail_on_option(CLI::App& command, config::FailOn& fail_on);

// Adds `--interval signed-rank|bootstrap` to `command`, bound to `interval`,
// with `help`.
void add_interval_option(CLI::App& command, std::optional<analysis::IntervalMethod>& interval, const std::string& help);

// Adds `--format markdown|json|csv` to `command`, bound to `format`.
void add_format_option(CLI::App& command, formats::OutputFormat& format);

// CLI11 check of a --seed value: "" when `text` is a seed, else why not
// (CLI11 alone reads "-1" and values past 2^64-1 as 2^64-1).
std::string check_seed(const std::string& text);

// Parses the duration `text` of `flag`; throws UsageError naming the flag
// when it is malformed or not above zero.
std::chrono::nanoseconds duration_flag(const std::string& flag, const std::string& text);

} // namespace refbench::cli
