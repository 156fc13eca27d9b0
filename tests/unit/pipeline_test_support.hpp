#pragma once
// Helpers for the tests of the pipeline's entry points, which print to
// std::cout and std::cerr and throw refbench::Error: what they printed, and
// the error (with its exit code) an action threw; the rows of what they
// wrote; the configuration of the one-cell repositories run and bisect
// measure.

#include <doctest/doctest.h>

#include <refbench/util/error.hpp>

#include <nlohmann/json.hpp>

#include <functional>
#include <iostream>
#include <sstream>
#include <string>

namespace refbench::test {

// For its lifetime, std::cout and std::cerr write into `out` and `err`;
// restores their buffers on destruction.
class CapturedOutput {
public:
  CapturedOutput() : m_cout(std::cout.rdbuf(out.rdbuf())), m_cerr(std::cerr.rdbuf(err.rdbuf())) {}
  CapturedOutput(const CapturedOutput&) = delete;
  CapturedOutput& operator=(const CapturedOutput&) = delete;
  ~CapturedOutput() {
    std::cout.rdbuf(m_cout);
    std::cerr.rdbuf(m_cerr);
  }

  std::ostringstream out;
  std::ostringstream err;

private:
  std::streambuf* m_cout;
  std::streambuf* m_cerr;
};

// The refbench::Error an action threw: its exit code (0 when it threw none)
// and its message.
struct Thrown {
  int code = 0;
  std::string what;
};

// Runs `action` and returns the refbench::Error it threw, if any.
inline Thrown thrown_by(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& error) {
    return {static_cast<int>(error.code()), error.what()};
  }
  return {};
}

// The analysis row of `cell` × `metric` in the results.json document
// `results`; the test fails (and it is null) when there is none.
inline nlohmann::json analysis_row(const nlohmann::json& results, const std::string& cell, const std::string& metric) {
  for (const auto& row : results.value("analysis", nlohmann::json::array())) {
    if (row.at("cell") == cell && row.at("metric") == metric) {
      return row;
    }
  }
  FAIL("no analysis row for " << cell << " " << metric);
  return nullptr;
}

// The refbench.toml of a repository whose commits each hold a `prog`: the
// build `build_command`, 12 rounds of cell `work` (wall gated), seed 11, no
// warm-up, replicas or CPU isolation.
inline std::string work_cell_config(const std::string& build_command) {
  return "[build]\ncommand = \"" + build_command + R"("

[run]
max_rounds = 12
min_rounds = 12
warmup = 0
replicas = 1
isolate = "off"
seed = 11

[[cell]]
name = "work"
command = ["{arm}/prog"]
metrics = ["wall"]
gate = ["wall"]
)";
}

} // namespace refbench::test
