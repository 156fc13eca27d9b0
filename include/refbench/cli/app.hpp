#pragma once
// The command line: subcommands, flags and the one catch that turns typed
// errors into the exit codes of docs/manual/commands.md#exit-codes.

#include <refbench/cli/commands.hpp>
#include <refbench/pipeline/options.hpp>

#include <CLI/CLI.hpp>
#include <vector>

namespace refbench::cli {

// refbench's whole CLI11 definition: the app with its common flags bound to
// `common` and every subcommand's flags bound to `options`; what main() parses
// and man_page() describes. Neither copied nor moved: the flags point into it.
struct CommandLine {
  CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  CLI::App app;
  pipeline::CommonOptions common;
  SubcommandOptions options;
  std::vector<Subcommand> subcommands; // add_subcommands' table
};

// refbench's command line: argument parsing, dispatch, errors (main.cpp
// hands the launcher's own command line to process::launcher_main first).
int main(int argc, char** argv);

} // namespace refbench::cli
