#pragma once
// A profile of one arm's counted invocation, read from the files
// valgrind's callgrind wrote (docs/design.md, Explanations): the
// instructions each function ran in its own code, and the calls between
// functions with the instructions each call ran in all. Pure: the text is
// handed in, so the reader is fuzzed and tested on recorded files. The
// files are written inside the candidate's process tree, so nothing in
// them is trusted: a malformed line is an error naming it, never a crash.

#include <cstddef>
#include <expected>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace refbench::profile {

// One function: the file name of the object it is in (no directory: the
// arms' trees differ in their paths) and its name as valgrind demangled it
// (C++ and Rust). Code inlined into a function is counted in it, as
// callgrind attributes it.
struct FunctionKey {
  std::string object;
  std::string function;
  auto operator<=>(const FunctionKey&) const = default;
};

// One caller → callee edge: how often it was called, and the instructions
// those calls ran in all (the callee and everything below it).
struct Call {
  double count = 0;
  double inclusive = 0;
};

struct Profile {
  double total = 0;                                          // instructions: the files' summary lines summed
  std::size_t files = 0;                                     // the callgrind files read (one per process)
  std::map<FunctionKey, double> self;                        // instructions in each function's own code
  std::map<std::pair<FunctionKey, FunctionKey>, Call> calls; // caller → callee
};

// The most a profile holds before the reader refuses the rest: functions
// and edges beyond it are no file callgrind writes for one program.
inline constexpr std::size_t k_max_profile_entries = 2'000'000;

// Reads one callgrind out file, line by line, into a profile (summing over
// files: each process of the invocation's tree writes one). Handles the
// name compression "(id) name" / "(id)", the position compression ("+n",
// "-n", "*"), fi=/fe= (inlined code: its cost stays the function's), and
// ob=/cob= objects; reads the first event (Ir) of each cost line.
class CallgrindReader {
public:
  explicit CallgrindReader(Profile& profile);

  // One line (without its newline); an error names what is wrong with it.
  std::expected<void, std::string> line(std::string_view text);

  // After the last line: an error when the file had no "events:" header
  // or no "summary:"/"totals:" line, or ended inside a call.
  std::expected<void, std::string> finish();

private:
  struct State;
  Profile& m_profile;
  std::shared_ptr<State> m_state;
};

// One whole file: the reader over its lines; the error prefixed "line N: "
// (or "at its end: " for what finish() finds missing). After an error the
// profile holds what the lines before it added.
std::expected<void, std::string> read_callgrind(Profile& profile, std::string_view text);

} // namespace refbench::profile
