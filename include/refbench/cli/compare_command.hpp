#pragma once
// `refbench compare BASELINE_CMD CANDIDATE_CMD` (README: the commands): options as parsed
// from the command line, validated into a run, and the run itself.

#include <refbench/runner/pairs.hpp>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace refbench::cli {

struct CommonOptions {
  bool quiet = false;
  bool verbose = false;
  std::string color = "auto";
};

// The flags exactly as given (durations and lists still text).
struct CompareOptions {
  std::string baseline;
  std::string candidate;
  std::string budget = "120s";
  int max_rounds = 60;
  std::optional<int> min_rounds; // default: 10, or --max-rounds when smaller
  double precision = 0.02;
  double threshold = 1.15;
  double alpha = 0.05;
  std::optional<std::uint64_t> seed;
  int warmup = 1;
  std::string timeout = "10m";
  std::string out = "refbench-out";
  std::string name = "compare";
  bool shell = false;
  bool no_control = false;
  std::string metrics = "wall,cpu,rss";
  std::string gate = "wall";
  std::string interval = "signed-rank";
  std::string fail_on = "regression";
  std::string isolate = "auto";       // "auto", "off" or a CPU list (README: What is measured)
  std::vector<std::string> scrub_env; // kept from the commands besides the credential variables
  int replicas = 1;                   // copies of each command's program, drawn per round
};

// Registers the `compare` subcommand and its flags on `app`, bound to `options`.
CLI::App* add_compare_command(CLI::App& app, CompareOptions& options);

// Runs the comparison described by `options`; returns the exit code or
// throws a refbench::Error.
int run_compare(const CompareOptions& options, const CommonOptions& common);

} // namespace refbench::cli
