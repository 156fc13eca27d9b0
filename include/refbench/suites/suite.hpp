#pragma once
// What a benchmark harness reports (docs/manual/suites.md): the output of one
// invocation of a whole suite — Google Benchmark's JSON, `go test -bench`'s
// lines, Criterion's, pytest-benchmark's and hyperfine's JSON exports,
// Catch2's XML, a Bencher Metric Format document, the `cargo bench` lines of
// Rust's bench harness — read into one figure per
// benchmark and measure. Pure: text in, benchmarks out; a malformed output
// is an error naming the line and the field, never a silent zero.

#include <refbench/util/enum_names.hpp>

#include <cstddef>
#include <expected>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace refbench::suites {

// The harnesses refbench reads; each is one row of k_harness_table
// (suite.cpp), in this order, and k_harness_count counts them.
enum class Harness { google_benchmark, go, criterion, pytest_benchmark, catch2, bmf, hyperfine, cargo_bench };
inline constexpr std::size_t k_harness_count = 8;

// The words of refbench.toml (`suite = "google-benchmark"`) and the journal;
// and back: each row's name in k_harness_table, in its order.
extern const util::EnumNames<Harness, k_harness_count> k_harness_names;
inline std::string_view harness_name(Harness harness) { return k_harness_names.name(harness); }
inline std::optional<Harness> parse_harness(std::string_view word) { return k_harness_names.parse(word); }

// One benchmark of one invocation: its figure of each measure (times in
// seconds, sizes in bytes, everything else as the harness wrote it), or
// the harness's own word that it failed.
struct Benchmark {
  std::string name;
  std::map<std::string, double> values;
  std::string error; // "": it ran
  // the iterations of its loop the harness ran in the run it reports (the
  // last, when it repeats); 0 when the harness does not say
  double iterations = 0;
  // how many runs of `iterations` each its figure is of (Catch2's samples);
  // 0 when the harness does not say
  double runs = 0;
  // docs/manual/suites.md#counts-per-benchmark: why its counts per iteration are
  // missing from `values` when the cell counts them; "" when they are not
  std::string uncounted;
};

// The benchmarks of one invocation, in the order the harness reported them;
// each name once.
using Benchmarks = std::vector<Benchmark>;

// What a measure's values are, and which way is better.
enum class Quantity { time, bytes, plain };
struct MeasureInfo {
  Quantity quantity = Quantity::plain;
  bool higher_is_better = false;
  std::string label; // shown after plain values ("allocs/op"); "" for times and sizes
  // a count that does not drift and may be 0 (Go's B/op, allocs/op): zero
  // compares as one and its default threshold is the count threshold
  bool counted = false;
};

// A measure a harness names itself, as its row lists it: what measure_info
// says of it, and whether a 0 of it is a reading (else it is no figure, and
// its benchmark's ERROR).
struct HarnessMeasure {
  std::string_view name;
  Quantity quantity = Quantity::plain;
  bool higher_is_better = false;
  std::string_view label; // MeasureInfo::label
  bool counted = false;   // MeasureInfo::counted; a 0 of a counted measure is a reading
  bool zero_is_a_reading = false;
};

// What a harness's measures that its row does not list are: times (seconds,
// lower is better, 0 no reading); counters (plain numbers labelled with their
// name, rates higher-is-better, a 0 a reading unless a rate); or figures (as
// counters, but a 0 is never a reading: BMF's).
enum class OtherMeasures { times, counters, figures };

// A harness's primary measure that makes every one of its measures primary (BMF).
inline constexpr std::string_view k_every_measure = "*";

// How a harness is asked to run only some benchmarks: one argument appended
// to its command, `prefix` and then an anchored regular expression; Go's
// matches each '/' level apart (`levels_apart`), so it is given the top level.
struct HarnessFilter {
  std::string_view prefix; // "--benchmark_filter=", "-bench=", "" (Criterion's positional FILTER)
  bool levels_apart = false;
};

// A harness's reader: the benchmarks in `text`, its whole output (`source`
// naming it), or why it cannot be read; read_suite adds the checks all share.
using SuiteReader = std::expected<Benchmarks, std::string> (*)(std::string_view text, std::string_view source);

// docs/manual/suites.md#counts-per-benchmark (docs/design.md, Counts per
// benchmark): one dump of a suite's counted run under callgrind — the
// function whose entry made it (`trigger`: the function as callgrind names
// it) and what ran since the dump before it.
struct CallDump {
  std::string trigger;
  double instructions = 0;
  double allocations = 0; // calls of the malloc family (operator new counted once)
};

// One benchmark's counts per iteration of its loop, or why there are none.
struct IterationCounts {
  std::string name;
  double instructions = 0;
  double allocations = 0;
  std::string problem; // "": counted
};

// How a harness's benchmarks are counted one by one: its suite runs once
// under callgrind with `arguments` appended and a dump before each of
// `dumps` (callgrind function patterns), and `attribute` turns the dumps
// and what that run reported into counts per iteration of each benchmark.
struct HarnessCounting {
  std::span<const std::string_view> arguments;
  std::span<const std::string_view> dumps;
  std::vector<IterationCounts> (*attribute)(const std::vector<CallDump>& dumps, const Benchmarks& reported);
};

// Everything refbench knows of one harness, one row of k_harness_table:
// its word, its reader, the measures it names, its primary measure (one of
// them, or k_every_measure), its filter (none: the rows are picked after),
// and how its benchmarks are counted — or, when they are not, why and
// what to gate on instead (`uncounted`, after "a <harness> suite's ").
struct HarnessInfo {
  Harness harness;
  std::string_view name;
  SuiteReader read;
  std::span<const HarnessMeasure> measures;
  OtherMeasures others;
  std::string_view primary;
  std::optional<HarnessFilter> filter;
  std::optional<HarnessCounting> counting = std::nullopt;
  std::string_view uncounted = {};
};

// The row of `harness` (one of the enum's values) in k_harness_table.
const HarnessInfo& harness_info(Harness harness);

// Every row of k_harness_table, one per Harness, in the enum's order.
std::span<const HarnessInfo> built_in_harnesses();

// The measure `measure` of `harness`: a time, a size or a plain number;
// rates (names ending in "_per_second" or "/s", BMF's "throughput") are
// higher-is-better, everything else lower.
MeasureInfo measure_info(Harness harness, std::string_view measure);

// Whether `measure` is `harness`'s primary figure, the one a suite gates on
// unless its `gate` says otherwise: Google Benchmark's real_time, Go's
// ns_per_op, Criterion's time, pytest-benchmark's mean, Catch2's mean,
// hyperfine's mean; every measure of a BMF document.
bool primary_measure(Harness harness, std::string_view measure);

// The most benchmarks of one invocation of a suite a run judges, after
// --cells picked them (docs/manual/suites.md, Many rows): every benchmark is a row
// of results.json, report.csv and the analysis, about 57 KB of refbench's
// memory each over a run, and far past what a report or a comment can show
// (its table is cut at 64 KiB). More is the suite's ERROR after its warm-up,
// which names --cells SUITE/PATTERN to narrow it.
inline constexpr std::size_t k_max_benchmarks = 20000;

// The benchmarks in `text`, the whole output of one invocation (stdout or
// the {output} file, `source` naming which for messages), or why it cannot
// be read: "its {output} file, line 12: `benchmarks[3].real_time` is
// "fast", not a number". An output that reports no benchmark is an error too.
std::expected<Benchmarks, std::string> read_suite(Harness harness, std::string_view text, std::string_view source);

// The arguments that ask `harness` to run only the benchmarks whose names
// match `pattern` (a glob over benchmark names, * and ?), appended to its
// command: Google Benchmark's --benchmark_filter, Go's -bench (the last of
// its -bench flags wins), Criterion's FILTER (a bench executable's last
// positional argument; after `cargo bench ... --` too); pytest's -k cannot
// take a glob and Catch2's filter is its test names, so those and the rest
// take none (refbench drops the rows afterwards). nullopt: the harness has
// no filter, or `pattern` has a bracket class ([ab]), which none of them
// is given.
std::optional<std::vector<std::string>> filter_arguments(Harness harness, std::string_view pattern);

// The arguments that ask `harness` to run only the benchmarks of
// `families` (names up to their first '/', docs/manual/commands.md#shards), appended
// to its command: Google Benchmark's --benchmark_filter and Criterion's
// FILTER match a family and whatever follows its '/', Go's -bench its top
// level; nullopt for the harnesses with no filter (all run whole, and the
// rows are picked afterwards) and for no family.
std::optional<std::vector<std::string>> family_filter_arguments(Harness harness,
                                                                const std::vector<std::string>& families);

// docs/manual/suites.md#counts-per-benchmark: the counted measures a suite row
// can carry beside its harness's ("instructions", "allocations"), per
// iteration of the benchmark's loop; and whether `measure` is one of them.
inline constexpr std::string_view k_counted_measures[] = {"instructions", "allocations"};
bool counted_measure(std::string_view measure);

// Why `measure` (a counted built-in metric's name) cannot be counted per
// benchmark of a `harness` suite, and what to gate on instead; "" when it
// can.
std::string why_not_counted(Harness harness, std::string_view measure);

// The benchmark name's last "/ARG" split off for sweeps: Google Benchmark's
// "BM_vec/1024" → {"BM_vec", "arg", "1024"}, named args "BM_vec/n:8" and
// Go's "BenchmarkSort/size=8" → {prefix, "n"/"size", "8"}; nullopt when
// the name has no '/'.
struct SweepLevel {
  std::string prefix;
  std::string param;
  std::string value;
};
std::optional<SweepLevel> sweep_level(std::string_view benchmark);

} // namespace refbench::suites
