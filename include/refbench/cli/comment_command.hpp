#pragma once
// `refbench comment` (README: GitHub Actions): creates or updates the sticky PR comment
// from a report.md or results.json, or — fork-safe — from the comment.json
// that `run --github` wrote (`--from-artifact DIR`).

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

namespace refbench::cli {

struct CommentOptions {
  std::optional<std::uint64_t> pr;
  std::optional<std::string> repo;
  std::string file = "refbench-out/report.md";
  std::string marker;
  std::optional<std::string> cacert;
  std::string max_wait = "120s";
  std::optional<std::string> from_artifact;
};

// Registers `comment` and its flags on `app`, bound to `options`.
CLI::App* add_comment_command(CLI::App& app, CommentOptions& options);

// Posts or updates the comment; returns 0 (also when the token is
// read-only, after a `::notice`) or throws a refbench::Error (exit 2).
int run_comment(const CommentOptions& options);

} // namespace refbench::cli
