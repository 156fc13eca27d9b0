#include <doctest/doctest.h>

#include <refbench/cli/options.hpp>

#include <string>

using namespace refbench;

namespace {

// Parses `args` (after the program name) with a --fail-on and an --interval.
struct ChoiceFlags {
  config::FailOn fail_on = config::FailOn::regression;
  std::optional<analysis::IntervalMethod> interval;
  CLI::App app{"test"};
  ChoiceFlags() {
    cli::add_fail_on_option(app, fail_on);
    cli::add_interval_option(app, interval, "Interval");
  }
  void parse(std::vector<std::string> args) {
    std::reverse(args.begin(), args.end()); // CLI11 takes them last first
    app.parse(args);
  }
};

} // namespace

TEST_CASE("cli: a flag of choices takes its words") {
  ChoiceFlags flags;
  flags.parse({"--fail-on", "never", "--interval", "bootstrap"});
  CHECK(flags.fail_on == config::FailOn::never);
  CHECK(flags.interval == analysis::IntervalMethod::bootstrap);
  ChoiceFlags upper;
  upper.parse({"--fail-on", "Inconclusive"});
  CHECK(upper.fail_on == config::FailOn::inconclusive);
  CHECK_FALSE(upper.interval);
}

TEST_CASE("cli: another word is refused with the words to use") {
  ChoiceFlags flags;
  std::string message;
  try {
    flags.parse({"--fail-on", "sometimes"});
  } catch (const CLI::ParseError& e) {
    message = e.what();
  }
  CHECK(message == "--fail-on: 'sometimes' is not a choice: use regression, inconclusive or never");
  ChoiceFlags numbers; // the enum's numbers are not words
  CHECK_THROWS_AS(numbers.parse({"--fail-on", "1"}), CLI::ValidationError);
}

TEST_CASE("cli: --help shows the choices as words") {
  ChoiceFlags flags;
  const std::string help = flags.app.help();
  CHECK(help.find("--fail-on regression|inconclusive|never") != std::string::npos);
  CHECK(help.find("--interval signed-rank|bootstrap") != std::string::npos);
  CHECK(help.find("ENUM") == std::string::npos);
}
