#pragma once
// The instruction counter a run uses, as data (docs/manual/counters.md): where
// counts come from and the tool that counts, as results.json records it.
// process/counters.hpp finds the tool and runs commands under it.

#include <refbench/util/enum_names.hpp>

#include <string>
#include <string_view>

namespace refbench::model {

// Where counts come from: `run.counters` / `--counters`.
enum class CounterSource { automatic, perf, valgrind };
inline constexpr auto k_counter_source_names = util::enum_names<CounterSource>(
    {{CounterSource::automatic, "auto"}, {CounterSource::perf, "perf"}, {CounterSource::valgrind, "valgrind"}});
inline std::string_view counter_source_name(CounterSource source) { return k_counter_source_names.name(source); }

// The counter a run uses, as results.json records it (environment.counters).
struct CounterTool {
  CounterSource source = CounterSource::valgrind; // never automatic: what auto chose
  std::string probe;                              // the perf probe's answer
  std::string version;                            // e.g. "valgrind-3.19.0"
  std::string program;                            // the tool's absolute path
};

} // namespace refbench::model
