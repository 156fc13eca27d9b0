#pragma once
// `refbench comment` (docs/manual/github-actions.md): creates or updates the sticky PR comment
// from a report.md or results.json, or — fork-safe — from the comment.json
// that `run --github` wrote (`--from-artifact DIR`).

#include <refbench/pipeline/options.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace refbench::pipeline {

// Posts or updates the comment; returns 0 (also when the token is
// read-only, after a `::notice`) or throws a refbench::Error (exit 2).
int run_comment(const CommentOptions& options);

} // namespace refbench::pipeline
