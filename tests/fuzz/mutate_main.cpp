// The seeded mutation driver: for each fuzz target, mutates the files of
// corpus/<target>/ with a fixed seed and runs the reader on each result.
// Prints one line per target: executions, crashes, internal errors. Built
// with the normal compiler, so CTest runs it everywhere; a crash kills the
// process after its input is written to <crashes>/crash-<target>.
//
//   refbench_fuzz_mutate --corpus DIR [--runs N] [--seed S] [--target NAME] [--crashes DIR]

#include "targets.hpp"

#include <refbench/util/rng.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using refbench::util::Rng;

namespace {

// Fragments that readers trip over: numbers at and past the limits, BOMs,
// NULs, escapes, empty and nested containers, CSV and TOML punctuation.
const std::vector<std::string> k_tokens{"1e400",
                                        "-1e400",
                                        "1e-400",
                                        "-1",
                                        "0",
                                        "-0",
                                        "18446744073709551615",
                                        "18446744073709551616",
                                        "9223372036854775808",
                                        "-9223372036854775809",
                                        "2147483648",
                                        "1.5",
                                        "NaN",
                                        "inf",
                                        "null",
                                        "true",
                                        "\"\"",
                                        "[]",
                                        "{}",
                                        "[[[[",
                                        "\xEF\xBB\xBF",
                                        std::string("\0", 1),
                                        "\\u0000",
                                        "\\ud800",
                                        "\"",
                                        ",",
                                        "\n",
                                        "\r\n",
                                        "=",
                                        "[[cell]]",
                                        "\xFF\xFE",
                                        "\"abc\"",
                                        "1e308",
                                        "4.9e-324",
                                        "{\"a\":1}"};

std::vector<std::string> read_corpus(const fs::path& dir) {
  std::vector<fs::path> files;
  if (fs::is_directory(dir)) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.is_regular_file()) {
        files.push_back(entry.path());
      }
    }
  }
  std::sort(files.begin(), files.end()); // the same order on every machine
  std::vector<std::string> inputs;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    inputs.push_back(text.str());
  }
  if (inputs.empty()) {
    inputs.emplace_back();
  }
  return inputs;
}

// One random edit of `input`: flip, overwrite, insert a token, delete,
// duplicate, or splice in part of `other`.
void mutate_once(std::string& input, const std::string& other, Rng& rng) {
  auto at = [&](std::size_t extra) { return static_cast<std::size_t>(rng.below(input.size() + extra)); };
  switch (rng.below(7)) {
  case 0:
    if (!input.empty()) {
      input[at(0)] ^= static_cast<char>(1U << rng.below(8));
    }
    break;
  case 1:
    if (!input.empty()) {
      input[at(0)] = "\0\"{}[],:\n\\-e9."[rng.below(15)];
    }
    break;
  case 2:
  case 3:
    input.insert(at(1), k_tokens[rng.below(k_tokens.size())]);
    break;
  case 4:
    if (!input.empty()) {
      const std::size_t start = at(0);
      input.erase(start, 1 + rng.below(std::min<std::size_t>(input.size() - start, 16)));
    }
    break;
  case 5:
    if (!input.empty() && input.size() < 65536) {
      const std::size_t start = at(0);
      const std::size_t length = 1 + rng.below(std::min<std::size_t>(input.size() - start, 64));
      input.insert(at(1), input.substr(start, length));
    }
    break;
  default:
    if (!other.empty()) {
      const std::size_t start = rng.below(other.size());
      input.insert(at(1), other.substr(start, 1 + rng.below(other.size() - start)));
    }
  }
}

// Where the input under test is written when a signal ends the process.
int g_crash_fd = -1;
const std::string* g_current = nullptr;

void on_crash(int signal_number) {
  if (g_crash_fd >= 0 && g_current != nullptr) {
    [[maybe_unused]] auto written = write(g_crash_fd, g_current->data(), g_current->size());
  }
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

struct Counts {
  std::uint64_t executions = 0;
  std::uint64_t read = 0; // inputs the reader took (the rest it refused)
  std::uint64_t internal_errors = 0;
};

Counts run_target(const refbench::fuzz::Target& target, const fs::path& corpus, std::uint64_t runs, std::uint64_t seed,
                  const fs::path& crashes) {
  const auto inputs = read_corpus(corpus / target.name);
  fs::create_directories(crashes);
  const std::string crash_file = (crashes / (std::string("crash-") + target.name)).string();
  g_crash_fd = open(crash_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  Rng rng(seed);
  Counts counts;
  std::string input;
  g_current = &input;
  for (std::uint64_t run = 0; run < runs; ++run) {
    input = inputs[run % inputs.size()];
    if (run >= inputs.size()) { // every seed once as it is, then mutants
      const std::uint64_t edits = 1 + rng.below(4);
      for (std::uint64_t e = 0; e < edits; ++e) {
        mutate_once(input, inputs[rng.below(inputs.size())], rng);
      }
    }
    std::string what;
    ++counts.executions;
    const auto outcome = refbench::fuzz::run(target, input, what);
    counts.read += outcome == refbench::fuzz::Outcome::read ? 1 : 0;
    if (outcome == refbench::fuzz::Outcome::internal_error) {
      if (counts.internal_errors++ == 0) {
        const std::string path = (crashes / (std::string("internal-") + target.name)).string();
        std::ofstream(path, std::ios::binary) << input;
        std::cerr << target.name << ": internal error: " << what << " (input in " << path << ")\n";
      }
    }
  }
  g_current = nullptr;
  close(g_crash_fd);
  fs::remove(crash_file); // no crash: nothing to keep
  return counts;
}

} // namespace

int main(int argc, char** argv) {
  fs::path corpus;
  fs::path crashes = fs::temp_directory_path() / "refbench-fuzz";
  std::uint64_t runs = 3000;
  std::uint64_t seed = 1;
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--corpus") {
      corpus = value;
    } else if (flag == "--runs") {
      runs = std::stoull(value);
    } else if (flag == "--seed") {
      seed = std::stoull(value);
    } else if (flag == "--target") {
      only = value;
    } else if (flag == "--crashes") {
      crashes = value;
    } else {
      std::cerr << "unknown flag " << flag << "\n";
      return 2;
    }
  }
  for (int signal_number : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) {
    std::signal(signal_number, on_crash);
  }
  bool clean = true;
  std::cout << "target executions read crashes internal_errors\n";
  for (const auto& target : refbench::fuzz::targets()) {
    if (!only.empty() && only != target.name) {
      continue;
    }
    const auto counts = run_target(target, corpus, runs, seed, crashes);
    std::cout << target.name << " " << counts.executions << " " << counts.read << " 0 " << counts.internal_errors
              << std::endl;
    clean = clean && counts.internal_errors == 0;
  }
  return clean ? 0 : 1;
}
