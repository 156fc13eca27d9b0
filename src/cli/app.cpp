#include <refbench/cli/analyze_command.hpp>
#include <refbench/cli/app.hpp>
#include <refbench/cli/bisect_command.hpp>
#include <refbench/cli/comment_command.hpp>
#include <refbench/cli/compare_command.hpp>
#include <refbench/cli/history_command.hpp>
#include <refbench/cli/report_command.hpp>
#include <refbench/cli/run_command.hpp>

#include <refbench/process/launcher.hpp>
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

} // namespace

int main(int argc, char** argv) {
  if (argc == 2 && argv[1] == process::k_launcher_argument) {
    return process::launcher_main(process::k_launcher_fd);
  }
  CLI::App app{"refbench: did the candidate get slower or fatter than the baseline, and can this run tell?",
               "refbench"};
  app.set_version_flag("--version", std::string("refbench ") + k_version);
  app.require_subcommand(1);
  app.fallthrough(); // common flags may follow the subcommand
  CommonOptions common;
  app.add_flag("-q,--quiet", common.quiet, "Print only the final table");
  app.add_flag("-v,--verbose", common.verbose, "Print one line per invocation");
  app.add_option("--color", common.color, "Colour: auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  CompareOptions compare;
  CLI::App* compare_command = add_compare_command(app, compare);
  AnalyzeOptions analyze;
  CLI::App* analyze_command = add_analyze_command(app, analyze);
  RunOptions run;
  CLI::App* run_command = add_run_command(app, run);
  ReportOptions report;
  CLI::App* report_command = add_report_command(app, report);
  CommentOptions comment;
  CLI::App* comment_command = add_comment_command(app, comment);
  ResolveOptions resolve;
  CLI::App* resolve_command = add_resolve_command(app, resolve);
  HistoryOptions history;
  CLI::App* history_command = add_history_command(app, history);
  BisectOptions bisect;
  CLI::App* bisect_command = add_bisect_command(app, bisect);

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
    if (compare_command->parsed()) {
      return run_compare(compare, common);
    }
    if (analyze_command->parsed()) {
      return run_analyze(analyze, common);
    }
    if (history_command->parsed()) {
      return run_history(history, common);
    }
    if (run_command->parsed()) {
      return run_run(run, common);
    }
    if (bisect_command->parsed()) {
      return run_bisect(bisect, common);
    }
    if (report_command->parsed()) {
      return run_report(report, common);
    }
    if (comment_command->parsed()) {
      return run_comment(comment);
    }
    if (resolve_command->parsed()) {
      return run_resolve(resolve);
    }
    return static_cast<int>(ExitCode::usage);
  } catch (const Error& error) {
    std::cerr << format_error_line(error) << "\n";
    return static_cast<int>(error.code());
  } catch (const nlohmann::json::exception& error) {
    return json_error_exit(error, report_command->parsed() || analyze_command->parsed() || comment_command->parsed());
  } catch (const std::system_error& error) {
    std::cerr << "refbench: error: " << error.what()
              << " — the machine refused a system call refbench needs (Linux 5.3 or newer with /proc)\n";
    return static_cast<int>(ExitCode::measurement);
  } catch (const std::exception& error) {
    const bool measured =
        compare_command->parsed() || run_command->parsed() || bisect_command->parsed(); // only these write a journal
    std::cerr << "refbench: error: internal error: " << error.what() << " — please report it with the command line"
              << (measured ? "; the journal in the output directory has the samples" : "") << "\n";
    return static_cast<int>(ExitCode::measurement);
  }
}

} // namespace refbench::cli
