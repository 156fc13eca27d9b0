// The harnesses' outputs as recorded from the real harnesses
// (tests/fixtures/harness-outputs/README.md), their odd corners, and
// malformed outputs named by line and field.
#include <refbench/suites/suite.hpp>
#include <refbench/util/files.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sstream>
#include <string>
#include <string_view>

using namespace refbench;
using suites::Harness;

namespace {

std::string recorded(const std::string& name) {
  auto text = util::read_file(std::string(REFBENCH_FIXTURES_DIR) + "/harness-outputs/" + name);
  REQUIRE(text.has_value());
  return *text;
}

suites::Benchmarks read_ok(Harness harness, const std::string& text) {
  auto read = suites::read_suite(harness, text, "its stdout");
  INFO((read ? std::string() : read.error()));
  REQUIRE(read.has_value());
  return *read;
}

const suites::Benchmark& named(const suites::Benchmarks& benchmarks, const std::string& name) {
  for (const auto& b : benchmarks) {
    if (b.name == name) {
      return b;
    }
  }
  FAIL("no benchmark " << name);
  return benchmarks.front();
}

// Whether `value` is a named value of its enum: GCC and Clang write an
// unnamed one as "(Enum)7" in the function's name.
template <auto value> constexpr bool is_named_enumerator() {
  const std::string_view pretty = __PRETTY_FUNCTION__;
  return pretty.find("value = (") == std::string_view::npos;
}

std::string read_error(Harness harness, const std::string& text) {
  auto read = suites::read_suite(harness, text, "its {output} file");
  REQUIRE_FALSE(read.has_value());
  return read.error();
}

} // namespace

TEST_CASE("Google Benchmark: every plain run in order, times in seconds, counters kept") {
  const auto benchmarks = read_ok(Harness::google_benchmark, recorded("google-benchmark.json"));
  REQUIRE(benchmarks.size() == 8);
  CHECK(benchmarks[0].name == "BM_hash");
  CHECK(benchmarks[5].name == "BM_vec/256");
  CHECK(benchmarks[7].name == "BM_vec/4096");
  CHECK(benchmarks[0].values.at("real_time") == doctest::Approx(30358.464914969405e-9).epsilon(1e-12));
  CHECK(named(benchmarks, "BM_vec/1024").values.at("items_per_second") == doctest::Approx(583891820.7733353));
  CHECK_FALSE(benchmarks[0].values.contains("iterations"));
  CHECK_FALSE(benchmarks[0].values.contains("family_index"));
  // the iterations of the reported run are kept apart, for counts per iteration
  CHECK(benchmarks[0].iterations == 456);
  CHECK(named(benchmarks, "BM_fill").iterations == 11796);
}

TEST_CASE("Google Benchmark: aggregates are not samples, repetitions give their median, errors are the row's") {
  const auto benchmarks = read_ok(Harness::google_benchmark, recorded("google-benchmark-odd.json"));
  REQUIRE(benchmarks.size() == 3); // no BM_ms_mean, _median, _stddev, _cv
  const auto& ms = named(benchmarks, "BM_ms");
  // time_unit "ms": 3.2544697119462775e-07 ms is the median of the three repetitions (python's statistics.median)
  CHECK(ms.values.at("real_time") == doctest::Approx(3.2544697119462775e-10).epsilon(1e-12));
  CHECK(ms.values.at("rate") == doctest::Approx(73734.51298722846));
  CHECK(ms.values.at("widgets") == 12.0);
  const auto& broken = named(benchmarks, "BM_broken");
  CHECK(broken.error == "no input file");
  CHECK(broken.values.empty());
  CHECK(named(benchmarks, "BM_threads/n:8/threads:2").values.at("real_time") ==
        doctest::Approx(0.23492790074442302e-9));
}

TEST_CASE("Google Benchmark: malformed outputs are named by line and field") {
  auto text = recorded("google-benchmark.json");
  const std::string figure = "\"real_time\": 2.2704161761984462e+04";
  const auto at = text.find(figure);
  REQUIRE(at != std::string::npos);
  auto bad = text;
  bad.replace(at, figure.size(), "\"real_time\": \"fast\"");
  CHECK(read_error(Harness::google_benchmark, bad) ==
        "its {output} file, line 30: `benchmarks[1].real_time` is \"fast\", not a number");
  CHECK(read_error(Harness::google_benchmark, text.substr(0, text.size() / 2)).starts_with("its {output} file, line "));
  CHECK(read_error(Harness::google_benchmark, R"({"context": {}})") ==
        "its {output} file: `benchmarks` is missing, not an array of benchmarks: is this Google Benchmark JSON "
        "(--benchmark_format=json) output?");
  CHECK(read_error(Harness::google_benchmark, R"({"benchmarks": []})") ==
        "its {output} file reports no benchmark (google-benchmark output)");
  CHECK(read_error(Harness::google_benchmark, "") ==
        "its {output} file is empty: the google-benchmark harness reported nothing");
}

TEST_CASE("go test -bench: -count repetitions give their median, the -P suffix goes, units become measures") {
  const auto benchmarks = read_ok(Harness::go, recorded("go-count2.txt"));
  REQUIRE(benchmarks.size() == 5);
  CHECK(benchmarks[0].name == "BenchmarkParse");
  CHECK(benchmarks[3].name == "BenchmarkSort/size=64");
  CHECK(benchmarks[0].values.at("ns_per_op") == doctest::Approx((32699 + 30374) / 2.0 * 1e-9));
  const auto& alloc = named(benchmarks, "BenchmarkAlloc");
  CHECK(alloc.values.at("bytes_per_op") == 512);
  CHECK(alloc.values.at("allocs_per_op") == 1);
  CHECK(named(benchmarks, "BenchmarkSort/size=512").values.at("keys/op") == 512);
}

TEST_CASE("go test -bench: a FAIL is its benchmark's error, a value without a number is the line's") {
  const auto benchmarks = read_ok(Harness::go, recorded("go-fail.txt"));
  REQUIRE(benchmarks.size() == 6);
  CHECK(named(benchmarks, "BenchmarkBroken").error == "go test reports it as FAIL");
  CHECK(named(benchmarks, "BenchmarkParse").values.at("ns_per_op") == doctest::Approx(32679e-9));
  CHECK(read_error(Harness::go, "goos: linux\nBenchmarkX-2  100  fast ns/op\n") ==
        "its {output} file, line 2: `BenchmarkX` reports fast where a number for ns/op belongs");
  CHECK(read_error(Harness::go, "PASS\nok  \texample.com/suite\t0.1s\n") ==
        "its {output} file reports no benchmark (go output)");
}

TEST_CASE("cargo bench: each `test NAME ... bench:` line's ns/iter, thousands separators and decimals alike") {
  const auto debian = read_ok(Harness::cargo_bench, recorded("cargo-bench.txt")); // rustc 1.63: integers
  REQUIRE(debian.size() == 3);
  CHECK(debian[0].name == "bench_fails");
  CHECK(debian[0].error == "the bench harness reports it as FAILED");
  CHECK(named(debian, "bench_sum_large").values.at("ns_per_iter") == doctest::Approx(34179e-9));
  CHECK(named(debian, "bench_sum_small").values.at("ns_per_iter") == doctest::Approx(41e-9));
  CHECK(named(debian, "bench_sum_small").values.size() == 1); // the (+/- …) is no measure; a plain test no row

  const auto newer = read_ok(Harness::cargo_bench, recorded("cargo-bench-decimals.txt")); // rustc 1.95
  CHECK(named(newer, "bench_sum_large").values.at("ns_per_iter") == doctest::Approx(34031.03e-9));
  CHECK(named(newer, "bench_sum_small").values.at("ns_per_iter") == doctest::Approx(34.36e-9));

  // Criterion 0.3's `--output-format bencher` prints the same lines
  const auto criterion = read_ok(Harness::cargo_bench, recorded("criterion-bencher.txt"));
  REQUIRE(criterion.size() == 4);
  CHECK(criterion[2].name == "sort/sort/64");
  CHECK(criterion[0].values.at("ns_per_iter") == doctest::Approx(72791e-9));

  CHECK(read_error(Harness::cargo_bench, "running 1 test\ntest x ... bench:  fast ns/iter (+/- 1)\n") ==
        "its {output} file, line 2: `x` reports fast ns/iter (+/- 1) where a number of ns/iter belongs");
  CHECK(read_error(Harness::cargo_bench, "test x ... bench: 12 ms/iter (+/- 1)\n") ==
        "its {output} file, line 1: `x` reports 12 ms/iter (+/- 1) where a number of ns/iter belongs");
  CHECK(read_error(Harness::cargo_bench, "running 1 test\ntest t ... ok\n\ntest result: ok.\n") ==
        "its {output} file reports no benchmark (cargo-bench output)");
  CHECK(suites::primary_measure(Harness::cargo_bench, "ns_per_iter"));
  CHECK(suites::measure_info(Harness::cargo_bench, "ns_per_iter").quantity == suites::Quantity::time);
}

TEST_CASE("pytest-benchmark: the per-round mean, median, min and ops of each test") {
  const auto benchmarks = read_ok(Harness::pytest_benchmark, recorded("pytest-benchmark.json"));
  REQUIRE(benchmarks.size() == 4);
  CHECK(benchmarks[2].name == "test_sort[100]");
  CHECK(benchmarks[0].values.at("mean") == doctest::Approx(0.00016413640000973828).epsilon(1e-12));
  CHECK(benchmarks[0].values.at("ops") == doctest::Approx(6092.493803572331));
  CHECK(suites::measure_info(Harness::pytest_benchmark, "ops").higher_is_better);
  CHECK(suites::primary_measure(Harness::pytest_benchmark, "mean"));
  CHECK_FALSE(suites::primary_measure(Harness::pytest_benchmark, "median"));
}

TEST_CASE("Catch2's XML: each BenchmarkResults' mean, in seconds") {
  const auto benchmarks = read_ok(Harness::catch2, recorded("catch2.xml"));
  REQUIRE(benchmarks.size() == 3);
  CHECK(benchmarks[0].name == "parse");
  CHECK(benchmarks[0].values.at("mean") == doctest::Approx(30482.2e-9));
  CHECK(benchmarks[2].values.at("mean") == doctest::Approx(12124.9e-9));
  CHECK(read_ok(Harness::catch2, "<Catch name=\"x\"><BenchmarkResults name=\"a &amp; b\" samples=\"2\">"
                                 "<mean value=\"5\"/><failed message=\"threw\"/></BenchmarkResults></Catch>")[0]
            .error == "threw");
  CHECK(read_error(Harness::catch2, "All tests passed\n") ==
        "its {output} file is not Catch2's XML report: run the tests with `-r xml`");
  CHECK(read_error(Harness::catch2, "<Catch>\n<BenchmarkResults name=\"p\">\n<mean value=\"x\"/>") ==
        "its {output} file, line 3: `p`'s mean value is x, not a number of nanoseconds");
  // a raw `>` inside a quoted attribute does not end the tag
  const auto quoted = read_ok(Harness::catch2, "<Catch name=\"x\"><BenchmarkResults name=\"a > b\" samples=\"2\">"
                                               "<mean value=\"5\" lowerBound='4>'/></BenchmarkResults></Catch>");
  REQUIRE(quoted.size() == 1);
  CHECK(quoted[0].name == "a > b");
  CHECK(quoted[0].values.at("mean") == doctest::Approx(5e-9));
}

TEST_CASE("every reader: a figure no ratio can be taken of is its benchmark's ERROR, never a silent \"—\"") {
  const auto error_of = [](Harness harness, const std::string& text, const std::string& name) {
    const auto benchmarks = read_ok(harness, text);
    return named(benchmarks, name).error;
  };
  const std::string not_positive = "not a positive number refbench can take a ratio of";
  CHECK(error_of(Harness::go, "BenchmarkA-8 100 -5 ns/op\nBenchmarkB-8 100 5 ns/op\n", "BenchmarkA")
            .ends_with(not_positive));
  CHECK(error_of(Harness::go, "BenchmarkA-8 100 -5 ns/op\nBenchmarkB-8 100 5 ns/op\n", "BenchmarkB").empty());
  CHECK(error_of(Harness::go, "BenchmarkA-8 100 5 ns/op 0 B/op 0 allocs/op\n", "BenchmarkA").empty());     // counts
  CHECK(error_of(Harness::go, "BenchmarkA-8 100 5 ns/op 0 MB/s\n", "BenchmarkA").ends_with(not_positive)); // a rate
  CHECK(error_of(Harness::criterion, "a\n  time: [-2.0 ms -1.0 ms 1.0 ms]\n", "a").ends_with(not_positive));
  CHECK(error_of(Harness::bmf, R"({"a": {"latency": {"value": 0}}, "b": {"latency": {"value": 5}}})", "a") ==
        "it reports latency = 0, not a positive number refbench can take a ratio of");
  CHECK(error_of(Harness::bmf, R"({"a": {"latency": {"value": 5}}, "b": {"latency": {"value": 5}}})", "a").empty());
  CHECK(error_of(Harness::bmf, R"({"a": {"throughput": {"value": 1e-320}}})", "a").ends_with(not_positive));
  CHECK(error_of(Harness::google_benchmark,
                 R"({"benchmarks": [{"name": "a", "real_time": 1e-320, "cpu_time": 1, "time_unit": "ns"}]})", "a")
            .ends_with(not_positive));
  CHECK(error_of(Harness::google_benchmark,
                 R"({"benchmarks": [{"name": "a", "real_time": 3, "cpu_time": 1, "time_unit": "ns", "hits": 0}]})",
                 "a")
            .empty()); // a user counter of 0 is a reading
  CHECK(error_of(Harness::google_benchmark,
                 R"({"benchmarks": [{"name": "a", "real_time": 3, "cpu_time": 1, "time_unit": "ns", "hits": -1}]})",
                 "a")
            .ends_with(not_positive));
  CHECK(error_of(Harness::catch2, "<Catch><BenchmarkResults name=\"p\"><mean value=\"-3\"/></BenchmarkResults>", "p")
            .ends_with(not_positive));
  CHECK(error_of(Harness::pytest_benchmark,
                 R"({"benchmarks": [{"name": "t", "stats": {"mean": 0, "median": 1, "min": 1, "ops": 1}}]})", "t")
            .ends_with(not_positive));
  CHECK(error_of(Harness::hyperfine,
                 R"({"results": [{"command": "c", "mean": 0.1, "median": 0.1, "user": 0, "system": 0}]})", "c")
            .empty()); // user and system below the rusage resolution
  CHECK(error_of(Harness::hyperfine,
                 R"({"results": [{"command": "c", "mean": -0.1, "median": 0.1, "user": 0, "system": 0}]})", "c")
            .ends_with(not_positive));
}

TEST_CASE("hyperfine's export: each command's mean, median, user and system") {
  const auto benchmarks = read_ok(Harness::hyperfine, recorded("hyperfine.json"));
  REQUIRE(benchmarks.size() == 2);
  CHECK(benchmarks[1].name == "sleep 0.02");
  CHECK(benchmarks[1].values.at("mean") == doctest::Approx(0.024808327666666668));
  CHECK(benchmarks[1].values.at("user") == 0.0);
}

TEST_CASE("Criterion's report: the point estimate, long names on their own line, its own change lines skipped") {
  auto benchmarks = read_ok(Harness::criterion, recorded("criterion.txt"));
  REQUIRE(benchmarks.size() == 4);
  CHECK(benchmarks[0].name == "parse");
  CHECK(benchmarks[0].values.at("time") == doctest::Approx(32.647e-6));
  CHECK(benchmarks[3].name == "sort/sort/512");
  CHECK(benchmarks[3].values.at("time") == doctest::Approx(16.110e-6));
  benchmarks = read_ok(Harness::criterion, recorded("criterion-long-name.txt"));
  REQUIRE(benchmarks.size() == 3);
  CHECK(benchmarks[1].name == "a_rather_long_benchmark_name_here");
  CHECK(benchmarks[1].values.at("time") == doctest::Approx(7.4552e-6));
  CHECK(benchmarks[2].name == "long_group_name/with_parameter/4096");
  CHECK(benchmarks[2].values.at("time") == doctest::Approx(6.2481e-6));
  benchmarks = read_ok(Harness::criterion, recorded("criterion-throughput-rerun.txt"));
  const auto& elems = named(benchmarks, "thrpt/elems/64");
  CHECK(elems.values.at("time") == doctest::Approx(1.8043e-6));
  CHECK(elems.values.at("elements_per_second") == doctest::Approx(35.470e6));
  CHECK(named(benchmarks, "thrpt/bytes").values.at("bytes_per_second") == doctest::Approx(641.27 * 1048576));
  CHECK(read_error(Harness::criterion, "parse   time:   [26.029 us 26.251 fortnights 26.505 us]\n") ==
        "its {output} file, line 1: `parse` has the time unit fortnights, not ps, ns, µs, ms or s");
}

TEST_CASE("BMF: every measure of every benchmark; latency in nanoseconds becomes seconds") {
  std::string text = "{";
  for (int b = 0; b < 30; ++b) {
    text += fmt::format("{}\"bench_{}\": {{\"latency\": {{\"value\": {}, \"lower_value\": 1, \"upper_value\": 9}}, "
                        "\"throughput\": {{\"value\": {}}}, \"file-size\": {{\"value\": {}}}}}",
                        b == 0 ? "" : ",", b, 100 + b, 1000 - b, 4096 + b);
  }
  text += "}";
  const auto benchmarks = read_ok(Harness::bmf, text);
  REQUIRE(benchmarks.size() == 30);
  std::size_t measures = 0;
  for (const auto& b : benchmarks) {
    measures += b.values.size();
  }
  CHECK(measures == 90);
  CHECK(named(benchmarks, "bench_7").values.at("latency") == doctest::Approx(107e-9));
  CHECK(named(benchmarks, "bench_7").values.at("throughput") == 993);
  CHECK(suites::measure_info(Harness::bmf, "throughput").higher_is_better);
  CHECK(suites::measure_info(Harness::bmf, "file-size").quantity == suites::Quantity::bytes);
  CHECK(read_error(Harness::bmf, "{\n\"a\": {\"latency\": {\"value\": \"n/a\"}}}") ==
        "its {output} file, line 2: `a.latency.value` is \"n/a\", not a number");
}

TEST_CASE("Sweeps, filters and defaults") {
  auto level = suites::sweep_level("BM_vec/1024");
  REQUIRE(level);
  CHECK(level->prefix == "BM_vec");
  CHECK(level->param == "arg");
  CHECK(level->value == "1024");
  level = suites::sweep_level("BenchmarkSort/size=8");
  REQUIRE(level);
  CHECK(level->param == "size");
  CHECK(level->value == "8");
  CHECK_FALSE(suites::sweep_level("BM_plain"));
  CHECK(suites::filter_arguments(Harness::google_benchmark, "BM_b*").value() ==
        std::vector<std::string>{"--benchmark_filter=^BM_b.*$"});
  CHECK(suites::filter_arguments(Harness::go, "BenchmarkSort/size=8").value() ==
        std::vector<std::string>{"-bench=^BenchmarkSort$"});
  CHECK(suites::filter_arguments(Harness::criterion, "sort/sort/6?").value() ==
        std::vector<std::string>{"^sort/sort/6.$"});
  CHECK_FALSE(suites::filter_arguments(Harness::pytest_benchmark, "test_*"));
  CHECK_FALSE(suites::filter_arguments(Harness::catch2, "parse"));
  // fnmatch's bracket class picks the rows; the harnesses are not given it
  CHECK_FALSE(suites::filter_arguments(Harness::google_benchmark, "BM_[ab]*"));
  // a shard's families (docs/manual/suites.md): each literally, a family's levels after its '/'
  CHECK(suites::family_filter_arguments(Harness::google_benchmark, {"BM_a", "BM_vec"}).value() ==
        std::vector<std::string>{"--benchmark_filter=^(BM_a|BM_vec)(/.*)?$"});
  CHECK(suites::family_filter_arguments(Harness::go, {"BenchmarkSort"}).value() ==
        std::vector<std::string>{"-bench=^(BenchmarkSort)$"});
  CHECK(suites::family_filter_arguments(Harness::criterion, {"a.b", "x*y?", "(z)"}).value() ==
        std::vector<std::string>{"^(a\\.b|x\\*y\\?|\\(z\\))(/.*)?$"});
  CHECK_FALSE(suites::family_filter_arguments(Harness::pytest_benchmark, {"test_parse"}));
  CHECK_FALSE(suites::family_filter_arguments(Harness::catch2, {"parse"}));
  CHECK_FALSE(suites::family_filter_arguments(Harness::bmf, {"parse"}));
  CHECK_FALSE(suites::family_filter_arguments(Harness::google_benchmark, {}));
  CHECK(suites::primary_measure(Harness::google_benchmark, "real_time"));
  CHECK_FALSE(suites::primary_measure(Harness::google_benchmark, "cpu_time"));
  CHECK(suites::measure_info(Harness::go, "allocs_per_op").counted);
  CHECK(suites::measure_info(Harness::go, "MB/s").higher_is_better);
  CHECK(suites::parse_harness("google-benchmark") == Harness::google_benchmark);
  CHECK_FALSE(suites::parse_harness("gbench"));
}

TEST_CASE("k_harness_table: every Harness is one row, in enum order, with a name, a reader and a primary measure") {
  // k_harness_count counts the enum's values: the one past it is none
  CHECK(is_named_enumerator<static_cast<Harness>(suites::k_harness_count - 1)>());
  CHECK_FALSE(is_named_enumerator<static_cast<Harness>(suites::k_harness_count)>());
  const auto rows = suites::built_in_harnesses();
  REQUIRE(rows.size() == suites::k_harness_count);
  REQUIRE(suites::k_harness_names.entries().size() == suites::k_harness_count);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    INFO(row.name);
    CHECK(row.harness == static_cast<Harness>(i));
    CHECK(&suites::harness_info(row.harness) == &row);
    CHECK(suites::k_harness_names.entries()[i] == std::pair{row.harness, row.name});
    CHECK(suites::parse_harness(row.name) == row.harness);
    CHECK((row.read != nullptr));
    CHECK(suites::primary_measure(row.harness, row.primary));
    bool listed = row.primary == suites::k_every_measure;
    for (const auto& measure : row.measures) {
      listed = listed || measure.name == row.primary;
      const auto info = suites::measure_info(row.harness, measure.name);
      CHECK(info.quantity == measure.quantity);
      CHECK(info.higher_is_better == measure.higher_is_better);
      CHECK(info.label == measure.label);
      CHECK(info.counted == measure.counted);
    }
    CHECK(listed);
    CHECK(suites::filter_arguments(row.harness, "x*").has_value() == row.filter.has_value());
    CHECK(suites::family_filter_arguments(row.harness, {"x"}).has_value() == row.filter.has_value());
  }
}

TEST_CASE("k_harness_table: a measure a row does not list is a time, a counter or a figure") {
  // times: pytest-benchmark's, Catch2's and hyperfine's other statistics
  for (const auto harness : {Harness::pytest_benchmark, Harness::catch2, Harness::hyperfine}) {
    const auto info = suites::measure_info(harness, "stddev");
    CHECK(info.quantity == suites::Quantity::time);
    CHECK_FALSE(info.higher_is_better);
    CHECK(info.label.empty());
  }
  // counters and figures: plain, labelled with their name, rates higher-is-better
  for (const auto harness : {Harness::google_benchmark, Harness::go, Harness::criterion, Harness::bmf}) {
    auto info = suites::measure_info(harness, "widgets");
    CHECK(info.quantity == suites::Quantity::plain);
    CHECK(info.label == "widgets");
    CHECK_FALSE(info.higher_is_better);
    CHECK_FALSE(info.counted);
    CHECK(suites::measure_info(harness, "widgets_per_second").higher_is_better);
    CHECK(suites::primary_measure(harness, "widgets") == (harness == Harness::bmf));
  }
  // a counter's 0 is a reading, a figure's (BMF) is not
  CHECK(read_ok(Harness::go, "BenchmarkA-8 100 5 ns/op 0 keys/op\n")[0].error.empty());
  CHECK_FALSE(read_ok(Harness::bmf, R"({"a": {"widgets": {"value": 0}}})")[0].error.empty());
  CHECK_FALSE(read_ok(Harness::pytest_benchmark,
                      R"({"benchmarks": [{"name": "t", "stats": {"mean": 1, "median": 1, "min": 0, "ops": 1}}]})")[0]
                  .error.empty());
}

// docs/manual/suites.md#counts-per-benchmark: Google Benchmark's runs of each
// benchmark's loop, as callgrind dumps them before FinishKeepRunning, split
// at each ComputeStats; one iteration's count is (last − the first run after
// the warm-up) / (N − 1). The dumps here are made by hand from a loop of
// `per` instructions and `allocs` allocations per iteration and a run's own
// `start` instructions, so the closed form is known.
namespace {

suites::CallDump loop_run(double iterations, double per, double start, double allocs = 0, double allocs_start = 0) {
  return {"benchmark::State::FinishKeepRunning()", start + iterations * per, allocs_start + iterations * allocs};
}

suites::CallDump dump_at(std::string trigger, double instructions = 0) { return {std::move(trigger), instructions, 0}; }

const suites::CallDump k_next{"benchmark::ComputeStats(std::vector<benchmark::BenchmarkReporter::Run, "
                              "std::allocator<benchmark::BenchmarkReporter::Run> > const&)",
                              0, 0};

suites::Benchmark reported(std::string name, double iterations, std::string error = "") {
  suites::Benchmark benchmark{std::move(name), {{"real_time", 1e-6}}, std::move(error), iterations, 0, ""};
  return benchmark;
}

std::vector<suites::IterationCounts> attribute(const std::vector<suites::CallDump>& dumps,
                                               const suites::Benchmarks& benchmarks) {
  const auto& counting = suites::harness_info(Harness::google_benchmark).counting;
  REQUIRE(counting.has_value());
  return counting->attribute(dumps, benchmarks);
}

} // namespace

TEST_CASE("Google Benchmark's counts per iteration: the runs' difference, whatever ran once per run") {
  const suites::CallDump start_dump = dump_at("benchmark::State::StartKeepRunning()", 5000); // setup: never counted
  std::vector<suites::CallDump> dumps;
  // BM_a: warm-up (1, a colder start), then 1, 10, 100 and the reported 4321
  dumps.push_back(start_dump);
  dumps.push_back(loop_run(1, 707, 400, 1, 3));
  for (double n : {1.0, 10.0, 100.0, 4321.0}) {
    dumps.push_back(start_dump);
    dumps.push_back(loop_run(n, 707, 245, 1, 2));
  }
  dumps.push_back(k_next);
  // BM_fixed: ->Iterations(7), a warm-up and one run of 7
  dumps.push_back(loop_run(7, 3000, 245));
  dumps.push_back(loop_run(7, 3000, 245));
  dumps.push_back(k_next);
  // BM_threads/threads:2 and a benchmark the harness says failed
  dumps.push_back(loop_run(1, 10, 245));
  dumps.push_back(k_next);
  dumps.push_back(k_next);
  dumps.push_back(dump_at("Program termination"));
  const auto counts = attribute(dumps, {reported("BM_a", 4321), reported("BM_fixed/iterations:7", 7),
                                        reported("BM_threads/threads:2", 100), reported("BM_broken", 0, "no file")});
  REQUIRE(counts.size() == 4);
  CHECK(counts[0].name == "BM_a");
  CHECK(counts[0].problem.empty());
  CHECK(counts[0].instructions == 707); // exactly: the start (245) cancels, the warm-up is not used
  CHECK(counts[0].allocations == 1);
  // one run after the warm-up: its count / N, the loop's start spread over its iterations
  CHECK(counts[1].instructions == doctest::Approx(3000 + 245.0 / 7));
  CHECK(counts[2].problem == "its loop runs on several threads at once, whose counts callgrind cannot tell apart");
  CHECK(counts[3].problem == "the harness reported it as failed: no file");
}

TEST_CASE("Google Benchmark's counts per iteration: what cannot be attributed says why") {
  // callgrind saw no loop of a benchmark (ComputeStats right away)
  auto counts = attribute({k_next}, {reported("BM_a", 10)});
  CHECK(counts.at(0).problem == "callgrind saw no run of its loop");
  // the runs do not line up with the benchmarks reported: none is attributed
  counts = attribute({loop_run(1, 5, 1), k_next}, {reported("BM_a", 10), reported("BM_b", 10)});
  CHECK(counts.at(0).problem == "the counted run reported 2 benchmarks but callgrind saw 1");
  CHECK(counts.at(1).problem == counts.at(0).problem);
  // no iterations reported
  counts = attribute({loop_run(1, 5, 1), k_next}, {reported("BM_a", 0)});
  CHECK(counts.at(0).problem == "the harness did not say how many iterations it ran");
  // a loop whose longer runs counted less
  counts = attribute({loop_run(1, 5, 1), loop_run(1, 5, 900), loop_run(10, 5, 1), k_next}, {reported("BM_a", 10)});
  CHECK(counts.at(0).problem.starts_with("its runs of more iterations counted less"));
}

TEST_CASE("Counts per benchmark: which harnesses count, and the measures they add") {
  for (const auto& row : suites::built_in_harnesses()) {
    CAPTURE(row.name);
    CHECK(row.counting.has_value() == row.uncounted.empty());
    CHECK(suites::why_not_counted(row.harness, "instructions").empty() == row.counting.has_value());
    CHECK_FALSE(suites::why_not_counted(row.harness, "allocated_bytes").empty());
  }
  CHECK(suites::harness_info(Harness::google_benchmark).counting.has_value());
  const auto info = suites::measure_info(Harness::google_benchmark, "instructions");
  CHECK(info.counted);
  CHECK_FALSE(info.higher_is_better);
  CHECK(info.label == "instructions");
  CHECK(suites::counted_measure("allocations"));
  CHECK_FALSE(suites::counted_measure("allocated_bytes"));
}

TEST_CASE("Catch2's counts per iteration, on a recorded counted run: its runs of 1 and 2 iterations apart") {
  // tests/fixtures/harness-outputs/catch2-counted.{xml,tsv}: the example's XML and each callgrind dump of the
  // same run (its trigger, instructions and calls of the malloc family); hash_rounds is 6 instructions a round
  // here, so parse (20000 rounds), encode (15000) and checksum (8000) are 120007, 90007 and 48007 an iteration
  const auto benchmarks = read_ok(Harness::catch2, recorded("catch2-counted.xml"));
  REQUIRE(benchmarks.size() == 3);
  CHECK(benchmarks[0].iterations == 6);
  CHECK(benchmarks[0].runs == 20);
  std::vector<suites::CallDump> dumps;
  std::istringstream lines(recorded("catch2-counted.tsv"));
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with('#')) {
      continue;
    }
    std::istringstream fields(line);
    std::string part, trigger, instructions, allocations;
    std::getline(fields, part, '\t');
    std::getline(fields, trigger, '\t');
    std::getline(fields, instructions, '\t');
    std::getline(fields, allocations, '\t');
    dumps.push_back({trigger, std::stod(instructions), std::stod(allocations)});
  }
  REQUIRE(dumps.size() == 82);
  const auto& counting = suites::harness_info(Harness::catch2).counting;
  REQUIRE(counting.has_value());
  const auto counts = counting->attribute(dumps, benchmarks);
  REQUIRE(counts.size() == 3);
  CHECK(counts[0].name == "parse");
  CHECK(counts[0].problem.empty());
  CHECK(counts[0].instructions == 120007);
  CHECK(counts[1].instructions == 90007);
  CHECK(counts[2].instructions == 48007);
  CHECK(counts[0].allocations == 0);
  // a benchmark with too few runs: the sample's run, spread over its iterations
  suites::Benchmark one{"slow", {{"mean", 1e-3}}, "", 4, 2, ""};
  const std::vector<suites::CallDump> few{
      {"Catch::Benchmark::Detail::BenchmarkFunction::model<L>::call(x) const", 9, 0},
      {"Catch::Benchmark::Detail::BenchmarkFunction::model<L>::call(x) const", 50, 0},
      {"Catch::Benchmark::Detail::BenchmarkFunction::model<L>::call(x) const", 402, 1},
      {"Catch::XmlReporter::benchmarkEnded(x)", 0, 0}};
  const auto slow = counting->attribute(few, {one});
  CHECK(slow.at(0).instructions == doctest::Approx(402.0 / 4));
  CHECK(slow.at(0).allocations == doctest::Approx(0.25));
}

TEST_CASE("Criterion's counts per iteration: its warm-up's runs of 1 and 2 iterations apart, confirmed by the 4") {
  // the figures of a real counted run of examples/suites/criterion's `parse` and `encode` (valgrind 3.19): a dump
  // before analysis::common starts each benchmark, one before each Bencher::iter holds the run before it
  const auto& counting = suites::harness_info(Harness::criterion).counting;
  REQUIRE(counting.has_value());
  const auto start = [](double instructions) {
    return suites::CallDump{"criterion::analysis::common", instructions, 0};
  };
  const auto run = [](double instructions) {
    return suites::CallDump{"criterion::bencher::Bencher<M>::iter", instructions, 0};
  };
  const std::vector<suites::CallDump> dumps{start(2253145), run(6302),     run(880648),  run(1760787),     run(3521065),
                                            run(7041621),   run(14092567), run(1760734), start(129857961), run(6414),
                                            run(660670),    run(1320831),  run(2641153), run(5281797)};
  const auto counts = counting->attribute(dumps, {reported("parse", 0), reported("encode", 0)});
  REQUIRE(counts.size() == 2);
  CHECK(counts[0].problem.empty());
  CHECK(counts[0].instructions == 880139); // 1760787 − 880648, and 3521065 − 1760787 is twice that
  CHECK(counts[1].instructions == 660161);
  // a warm-up too short to confirm: the third run is no run of 4
  const auto short_warm_up =
      counting->attribute({start(1), run(6302), run(880648), run(1760787), run(1760734)}, {reported("parse", 0)});
  CHECK(short_warm_up.at(0).problem.starts_with("its first runs do not grow by one iteration's count"));
  CHECK(counting->attribute({start(1), run(1), run(2)}, {reported("parse", 0)}).at(0).problem ==
        "callgrind saw too few runs of it to tell one iteration from a run");
  CHECK(counting->attribute({start(1)}, {reported("parse", 0)}).at(0).problem ==
        "callgrind saw no run of its loop (only Bencher::iter's loop is counted)");
}
