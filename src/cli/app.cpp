#include <refbench/cli/app.hpp>
#include <refbench/cli/commands.hpp>
#include <refbench/cli/options.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/strings.hpp>
#include <refbench/version.hpp>

#include <CLI/CLI.hpp>
#include <cstring>
#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <system_error>

namespace refbench::cli {
namespace {

// The first word of `left_over`, the arguments no subcommand or option took,
// that is not a flag: what the user meant as the command.
std::optional<std::string> unknown_command(const std::vector<std::string>& left_over) {
  for (const auto& argument : left_over) {
    if (!argument.starts_with('-')) {
      return argument;
    }
  }
  return std::nullopt;
}

// Says what a JSON error means and returns the exit code: bad input (2)
// for a command that reads JSON `from_files` only (report, analyze and
// comment: what their checked readers let through is still bad input),
// else an internal error (4).
int json_error_exit(const nlohmann::json::exception& error, bool from_files) {
  if (!from_files) {
    std::cerr << "refbench: error: internal error: " << error.what()
              << " — please report it with the command line; the journal in the output directory has the samples\n";
    return static_cast<int>(ExitCode::measurement);
  }
  std::cerr << format_error_line(UsageError(fmt::format("a file given is not a well-formed refbench document: {}",
                                                        util::printable(error.what())),
                                            "pass results.json or journal.jsonl files as refbench wrote them"))
            << "\n";
  return static_cast<int>(ExitCode::usage);
}

// The footer of `refbench --help`: every exit code and its meaning.
std::string exit_codes_footer() {
  std::string footer = "Exit codes:";
  for (const auto& [code, meaning] : k_exit_code_meanings) {
    footer += fmt::format("\n  {:<5}{}", static_cast<int>(code), meaning);
  }
  return footer;
}

} // namespace

CommandLine::CommandLine()
    : app("refbench: did the candidate get slower or fatter than the baseline, and can this run tell?", "refbench") {
  app.set_version_flag("--version", std::string("refbench ") + k_version);
  app.require_subcommand(1);
  app.fallthrough(); // common flags may follow the subcommand
  app.add_flag("-q,--quiet", common.quiet, "Print only the final table");
  app.add_flag("-v,--verbose", common.verbose, "Print one line per invocation");
  add_choice_option(app, "--color", common.color, pipeline::k_color_mode_names, "Colour (default auto)");
  subcommands = add_subcommands(app, options);
  app.footer(exit_codes_footer()); // after the subcommands, which would inherit it
}

int main(int argc, char** argv) {
  CommandLine command_line;
  CLI::App& app = command_line.app;
  const pipeline::CommonOptions& common = command_line.common;
  const std::vector<Subcommand>& subcommands = command_line.subcommands;
  const auto parsed = [&subcommands]() -> const Subcommand* {
    for (const auto& subcommand : subcommands) {
      if (subcommand.command->parsed()) {
        return &subcommand;
      }
    }
    return nullptr;
  };

  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
      std::cout << app.help();
      return 0;
    } catch (const CLI::CallForAllHelp&) {
      std::cout << app.help("", CLI::AppFormatMode::All);
      return 0;
    } catch (const CLI::CallForVersion&) {
      std::cout << "refbench " << k_version << "\n";
      return 0;
    } catch (const CLI::ParseError& error) {
      if (auto word = app.get_subcommands().empty() ? unknown_command(app.remaining()) : std::nullopt) {
        throw UsageError(fmt::format("unknown command '{}'", *word), "run refbench --help for the commands");
      }
      std::string where =
          app.get_subcommands().empty() ? "refbench" : "refbench " + app.get_subcommands()[0]->get_name();
      throw UsageError(error.what(), "see `" + where + " --help`");
    }
    if (const Subcommand* subcommand = parsed()) {
      return subcommand->run(common);
    }
    return static_cast<int>(ExitCode::usage);
  } catch (const Error& error) {
    std::cerr << format_error_line(error) << "\n";
    return static_cast<int>(error.code());
  } catch (const nlohmann::json::exception& error) {
    return json_error_exit(error, parsed() != nullptr && parsed()->reads == Reads::documents);
  } catch (const std::system_error& error) {
    std::cerr << "refbench: error: " << error.what()
              << " — the machine refused a system call refbench needs (Linux 5.3 or newer with /proc)\n";
    return static_cast<int>(ExitCode::measurement);
  } catch (const std::exception& error) {
    const bool measured = parsed() != nullptr && parsed()->reads == Reads::commands; // only these write a journal
    std::cerr << "refbench: error: internal error: " << error.what() << " — please report it with the command line"
              << (measured ? "; the journal in the output directory has the samples" : "") << "\n";
    return static_cast<int>(ExitCode::measurement);
  }
}

} // namespace refbench::cli
