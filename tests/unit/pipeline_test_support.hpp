#pragma once
// Helpers for the tests of the pipeline's entry points, which print to
// std::cout and std::cerr and throw refbench::Error: what they printed, and
// the error (with its exit code) an action threw.

#include <refbench/util/error.hpp>

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

} // namespace refbench::test
