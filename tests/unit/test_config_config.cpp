#include <doctest/doctest.h>
#include <fmt/format.h>

#include <refbench/config/cells.hpp>
#include <refbench/config/config.hpp>
#include <refbench/runner/rounds.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/files.hpp>

#include <algorithm>

using namespace refbench;
using namespace refbench::config;

namespace {

// The message of the UsageError `text` raises.
std::string error_of(const std::string& text) {
  try {
    parse_config(text, "refbench.toml");
  } catch (const UsageError& error) {
    return error.what();
  }
  return "<no error>";
}

const char* k_full = R"(
[build]
command = "make -j2"
env = { CFLAGS = "-O2" }
timeout = "30m"
parallel = true
disk = "2GiB"

[run]
budget = "25m"
max_rounds = 60
min_rounds = 10
precision = 0.02
threshold = 1.15
alpha = 0.05
warmup = 1
timeout = "10m"
seed = 42
control = true
control_cell = "encrypt-1MiB"
isolate = "auto"
explain = "all"

[payloads]
sizes = ["1KiB", "1MiB", "32MiB"]

[[cell]]
name = "encrypt-{size}"
command = ["{arm}/bin/tool", "encrypt", "{payload}", "-o", "{output}"]
env = { TOOL_MODE = "fast" }
metrics = ["wall", "cpu", "rss"]
gate = ["wall"]
threshold = { wall = 1.15, rss = 1.10 }
check_output = true

[[cell]]
name = "startup"
command = "{arm}/bin/tool --version"
)";

} // namespace

TEST_CASE("config::parse_config reads every key of docs/manual/config.md") {
  auto c = parse_config(k_full, "refbench.toml");
  REQUIRE(c.build.command.has_value());
  CHECK(c.build.command->is_shell());
  CHECK(c.build.command->shell == "make -j2");
  CHECK(c.build.env == std::vector<std::string>{"CFLAGS=-O2"});
  CHECK(c.build.timeout == std::chrono::minutes(30));
  CHECK(c.build.parallel);
  CHECK(c.build.disk == 2ull << 30);
  CHECK(c.run.budget == std::chrono::minutes(25));
  CHECK(c.run.max_rounds == 60);
  CHECK(c.run.min_rounds == 10);
  CHECK(c.run.precision == 0.02);
  CHECK(c.run.threshold == 1.15);
  CHECK(c.run.alpha == 0.05);
  CHECK(c.run.warmup == 1);
  CHECK(c.run.timeout == std::chrono::minutes(10));
  CHECK(c.run.seed == 42u);
  CHECK(c.run.control == true);
  CHECK(c.run.control_cell == "encrypt-1MiB");
  CHECK(c.run.isolate == "auto");
  CHECK(c.run.explain == model::ExplainMode::all);
  REQUIRE(c.payload_sizes.size() == 3);
  CHECK(c.payload_sizes[2].label == "32MiB");
  CHECK(c.payload_sizes[2].bytes == 32ull << 20);
  REQUIRE(c.cells.size() == 2);
  CHECK(c.cells[0].command.argv.size() == 5);
  CHECK(c.cells[0].env == std::vector<std::string>{"TOOL_MODE=fast"});
  CHECK(c.cells[0].threshold.at("rss") == 1.10);
  CHECK(c.cells[0].check_output);
  CHECK(c.cells[1].command.shell == "{arm}/bin/tool --version");
  CHECK(c.cells[1].metrics == std::vector<std::string>{"wall", "cpu", "rss"});
  CHECK(c.cells[1].gate == std::vector<std::string>{"wall"});
  CHECK(c.cells[1].where == "refbench.toml:36:1");
}

TEST_CASE("config::parse_config errors name file:line:column") {
  const std::string cell = "\n[[cell]]\nname = \"a\"\ncommand = \"true\"\n";
  SUBCASE("unknown key, with its table") {
    CHECK(error_of("[run]\nbudget = \"1m\"\n  treshold = 1.2\n" + cell) ==
          "refbench.toml:3:3: unknown key 'treshold' in [run]");
    CHECK(error_of("colour = 1\n" + cell) == "refbench.toml:1:1: unknown key 'colour'");
    CHECK(error_of(cell + "gates = [\"wall\"]\n") == "refbench.toml:5:1: unknown key 'gates' in [cell]");
  }
  SUBCASE("wrong types") {
    CHECK(error_of("[run]\nmax_rounds = \"60\"\n" + cell) == "refbench.toml:2:14: run.max_rounds must be an integer");
    CHECK(error_of("[build]\nparallel = \"yes\"\n" + cell) ==
          "refbench.toml:2:12: build.parallel must be true or false");
    CHECK(error_of("[run]\nbudget = \"5 parsecs\"\n" + cell)
              .starts_with("refbench.toml:2:10: run.budget: invalid duration"));
    CHECK(error_of("[payloads]\nsizes = [\"1 MiB\"]\n" + cell)
              .starts_with("refbench.toml:2:10: payloads.sizes: invalid size"));
    CHECK(error_of("[run]\nthreshold = 0.9\n" + cell)
              .starts_with("refbench.toml:2:13: run.threshold must be a ratio above 1"));
    // integers beyond 2^53 were read as nothing (alpha became 4e-323): now each is refused
    for (const std::string key : {"alpha", "precision", "threshold"}) {
      CAPTURE(key);
      CHECK(error_of("[run]\n" + key + " = 9007199254740993\n" + cell) ==
            fmt::format("refbench.toml:2:{}: run.{} must be a number of at most 2^53 (9007199254740992) in size, got "
                        "9007199254740993",
                        key.size() + 4, key));
    }
    CHECK(error_of("[run]\nalpha = 9007199254740992\n" + cell) ==
          "refbench.toml:2:9: run.alpha must be between 0 and 1, got 9007199254740992");
    CHECK(error_of("[run]\nbudget = 9007199254740993\n" + cell)
              .starts_with("refbench.toml:2:10: run.budget must be a number of at most 2^53"));
    CHECK(error_of("[run]\nprecision = inf\n" + cell) ==
          "refbench.toml:2:13: run.precision must be a finite number, got inf");
    CHECK(error_of("[run]\n" + std::string("isolate = \"some\"\n") + cell)
              .starts_with("refbench.toml:2:11: run.isolate"));
    CHECK(error_of("run = 3\n" + cell).starts_with("refbench.toml:1:7: run must be a table"));
    CHECK(error_of("[run]\nexplain = \"some\"\n" + cell) ==
          "refbench.toml:2:11: run.explain must be regressions, all or off, got \"some\"");
  }
  SUBCASE("cells") {
    CHECK(error_of("").starts_with("refbench.toml: no [[cell]]"));
    CHECK(error_of("[[cell]]\ncommand = \"x\"\n") == "refbench.toml:1:1: a [[cell]] needs a non-empty name");
    CHECK(error_of("[[cell]]\nname = \"x\"\ncommand = []\n").find("non-empty array") != std::string::npos);
    CHECK(error_of(cell + "metrics = [\"wall\", \"speed\"]\n").find("unknown metric 'speed'") != std::string::npos);
    CHECK(error_of(cell + "metrics = [\"wall\"]\ngate = [\"rss\"]\n").find("'rss' is not among") != std::string::npos);
    CHECK(error_of(cell + cell).find("appears twice") != std::string::npos);
    // a plain cell named like a suite's row, or its control's row
    const std::string suite = "[[cell]]\nname = \"s\"\ncommand = \"./bench\"\nsuite = \"google-benchmark\"\n";
    CHECK(error_of(suite + "[[cell]]\nname = \"s/BM_x\"\ncommand = \"true\"\n") ==
          "refbench.toml:5:1: cell name 's/BM_x' is the name of a row of suite 's' (at refbench.toml:1:1): one name "
          "would mean two things in the report");
    CHECK(error_of(suite + "[[cell]]\nname = \"s-control/BM_x\"\ncommand = \"true\"\n")
              .find("is the name of a row of suite 's'") != std::string::npos);
    // docs/manual/suites.md#counts-per-benchmark: counted per benchmark where the harness has a
    // way (Google Benchmark); elsewhere, and allocated_bytes anywhere, refused at the key with what to gate on instead
    CHECK(
        error_of(suite + "metrics = [\"cpu_time\", \"instructions\", \"allocations\"]\ngate = [\"instructions\"]\n") ==
        "<no error>");
    CHECK(error_of(suite + "gate = [\"allocated_bytes\"]\n") ==
          "refbench.toml:5:8: cell.gate: 'allocated_bytes' is not counted per benchmark: callgrind counts the calls "
          "of the malloc family, not the sizes they ask for: gate on allocations");
    const auto in = [](std::string_view harness) {
      return fmt::format("[[cell]]\nname = \"s\"\ncommand = \"./bench\"\nsuite = \"{}\"\n", harness);
    };
    CHECK(error_of(in("go") + "gate = [\"instructions\"]\n") ==
          "refbench.toml:5:8: cell.gate: 'instructions' is not counted per benchmark: a go suite's benchmarks run in "
          "Go's runtime, which valgrind does not follow reliably (its threads and signals): gate on allocs_per_op and "
          "bytes_per_op, Go's own counts per op (go test -benchmem), or on ns_per_op");
    CHECK(error_of(in("pytest-benchmark") + "metrics = [\"mean\", \"allocations\"]\n") ==
          "refbench.toml:5:11: cell.metrics: 'allocations' is not counted per benchmark: a pytest-benchmark suite's "
          "benchmarks run in a Python interpreter, where a count of instructions or allocations is the "
          "interpreter's, not the benchmark's: gate on mean");
    CHECK(error_of(in("catch2") + "gate = [\"instructions\"]\n") == "<no error>");
    CHECK(error_of(in("criterion") + "gate = [\"instructions\"]\n") == "<no error>");
    for (const auto harness : {"bmf", "hyperfine", "cargo-bench"}) {
      CAPTURE(harness);
      CHECK(error_of(in(harness) + "gate = [\"instructions\"]\n")
                .starts_with(fmt::format("refbench.toml:5:8: cell.gate: 'instructions' is not counted per benchmark: "
                                         "a {} suite's ",
                                         harness)));
    }
  }
  SUBCASE("custom metrics, windows and requirements") {
    CHECK(error_of(cell + "[[cell.metric]]\nkey = \"x\"\n") ==
          "refbench.toml:5:1: a [[cell.metric]] needs a name without spaces, commas or braces, like \"throughput\"");
    CHECK(error_of(cell + "[[cell.metric]]\nname = \"wall\"\n") ==
          "refbench.toml:6:8: cell.metric.name 'wall' is a built-in metric; name yours otherwise");
    CHECK(error_of(cell + "[[cell.metric]]\nname = \"t\"\nbetter = \"more\"\n") ==
          "refbench.toml:7:10: cell.metric.better must be one of \"lower\", \"higher\", got \"more\"");
    CHECK(error_of(cell + "[[cell.metric]]\nname = \"t\"\nfrom = \"stderr\"\n") ==
          "refbench.toml:7:8: cell.metric.from must be one of \"stdout\", \"file\", got \"stderr\"");
    CHECK(error_of(cell + "[[cell.metric]]\nname = \"t\"\nformat = \"bmf\"\n").find("\"<benchmark>/<measure>\"") !=
          std::string::npos);
    CHECK(error_of(cell + "[[cell.metric]]\nname = \"t\"\nunits = \"x\"\n") ==
          "refbench.toml:7:1: unknown key 'units' in [cell.metric]");
    CHECK(error_of(cell + "[[cell.metric]]\nname = \"t\"\n[[cell.metric]]\nname = \"t\"\n")
              .find("cell.metric 't' is declared twice") != std::string::npos);
    CHECK(error_of(cell +
                   "[[cell.metric]]\nname = \"t\"\n[[cell.metric]]\nname = \"u\"\nformat = \"bmf\"\nkey = \"a/b\"\n")
              .find("from and format must match those of 't'") != std::string::npos);
    CHECK(error_of(cell + "[[cell.metric]]\nname = \"t\"\nfrom = \"file\"\n")
              .find("reads its metrics from {output} (from = \"file\"), but its command never mentions {output}") !=
          std::string::npos);
    CHECK(error_of(cell + "window = \"duration\"\n") ==
          "refbench.toml:5:10: cell.window names the reported window length; it needs a min_duration");
    CHECK(
        error_of(cell + "require = [\"errors = 0\"]\n").starts_with("refbench.toml:5:11: cell.require: 'errors = 0'"));
    CHECK(error_of(cell + "metric = 3\n") ==
          "refbench.toml:5:10: custom metrics are written as [[cell.metric]] tables");
    // shown metrics without wall and no gate: the default gate cannot apply
    CHECK(error_of(cell + "metrics = [\"t\"]\n[[cell.metric]]\nname = \"t\"\n") ==
          "refbench.toml:2:1: cell 'a' does not show wall, the default gate; add gate = [...] naming the metrics "
          "that may fail the run");
    CHECK(error_of("[[cell]]\nname = \"a\"\ncommand = \"w {output}\"\ncheck_output = true\n[[cell.metric]]\n"
                   "name = \"t\"\nfrom = \"file\"\n")
              .starts_with("refbench.toml:4:16: cell.check_output compares the arms' {output} files, but this "
                           "cell's {output} is its metric report"));
    const std::string bmf = "[[cell.metric]]\nname = \"t\"\nformat = \"bmf\"\nkey = \"load/rps\"\n";
    CHECK(error_of(cell + "min_duration = \"1s\"\nwindow = \"seconds\"\n" + bmf) ==
          "refbench.toml:6:10: cell.window: this cell's report is Bencher Metric Format, so its keys are "
          "\"<benchmark>/<measure>\" like \"load/errors\"");
    CHECK(error_of(cell + "require = [\"load/errors == 0\", \"errors == 0\"]\n" + bmf)
              .starts_with("refbench.toml:5:11: cell.require: this cell's report is Bencher Metric Format"));
    CHECK_NOTHROW(parse_config(cell + "require = [\"load/errors == 0\"]\n" + bmf, "refbench.toml"));

    auto config = parse_config(cell + "gate = [\"rps\"]\nthreshold = { rps = 1.1 }\nmin_duration = \"5s\"\n"
                                      "window = \"seconds\"\nrequire = [\"errors == 0\", \"non2xx<=0\"]\n"
                                      "[[cell.metric]]\nname = \"rps\"\nbetter = \"higher\"\nunit = \"req/s\"\n"
                                      "[[cell.metric]]\nname = \"p99\"\nkey = \"latency_p99\"\n",
                               "refbench.toml");
    const auto& c = config.cells.at(0);
    CHECK(c.metrics == std::vector<std::string>{"wall", "cpu", "rss", "rps", "p99"});
    CHECK(c.gate == std::vector<std::string>{"rps"});
    CHECK(c.threshold.at("rps") == 1.1);
    REQUIRE(c.custom.size() == 2);
    CHECK(c.custom[0].higher_is_better);
    CHECK(c.custom[0].key == "rps");
    CHECK(c.custom[0].unit == "req/s");
    CHECK(c.custom[0].from == model::ReportSource::stdout_line);
    CHECK(c.custom[0].format == model::ReportFormat::json);
    CHECK_FALSE(c.custom[1].higher_is_better);
    CHECK(c.custom[1].key == "latency_p99");
    CHECK(c.min_duration_seconds == 5);
    CHECK(c.window_key == "seconds");
    REQUIRE(c.require.size() == 2);
    CHECK(c.require[1].key == "non2xx");
    CHECK(c.require[1].op == "<=");
  }
  SUBCASE("metric kinds, ceilings and SLOs") {
    const std::string metric = cell + "[[cell.metric]]\nname = \"errors\"\n";
    CHECK(error_of(metric + "kind = \"counter\"\n") ==
          "refbench.toml:7:8: cell.metric.kind must be one of \"ratio\", \"count\", got \"counter\"");
    CHECK(error_of(metric + "max_increase = 2\n") ==
          "refbench.toml:7:16: cell.metric.max_increase gates a count metric; 'errors' is a ratio metric (add kind = "
          "\"count\", or set its ratio in cell.threshold)");
    CHECK(error_of(metric + "kind = \"count\"\nmax_increase = -1\n") ==
          "refbench.toml:8:16: cell.metric.max_increase must be 0 or more: the increase that is tolerated");
    CHECK(error_of(metric + "kind = \"count\"\nmax_increase = nan\n") ==
          "refbench.toml:8:16: cell.metric.max_increase must be a finite number, got nan");
    // an integer a double cannot hold exactly is refused, never read as nothing
    CHECK(error_of(metric + "kind = \"count\"\nmax_increase = 9007199254740993\n") ==
          "refbench.toml:8:16: cell.metric.max_increase must be a number of at most 2^53 (9007199254740992) in size, "
          "got 9007199254740993");
    CHECK(error_of(metric + "censor_above = -9007199254740993\n") ==
          "refbench.toml:7:16: cell.metric.censor_above must be a number of at most 2^53 (9007199254740992) in size, "
          "got -9007199254740993");
    CHECK(error_of(metric + "kind = \"count\"\ncensor_above = 100\n") ==
          "refbench.toml:8:16: cell.metric.censor_above: a count metric is compared by its difference, where a limit "
          "hides nothing; censor a ratio metric, or gate the count with max_increase");
    CHECK(error_of(metric + "censor_above = 10\ncensor_below = 10\n") ==
          "refbench.toml:8:16: cell.metric.censor_below must be below censor_above");
    CHECK(error_of(metric + "censor_above = \"10s\"\n") ==
          "refbench.toml:7:16: cell.metric.censor_above must be a number");
    CHECK(error_of(metric + "slo = \"fast\"\n") == "refbench.toml:7:7: cell.metric.slo: 'fast' is not an SLO like \"<= "
                                                   "5000\" (OP NUMBER, OP one of == != < <= > >=)");
    CHECK(error_of(metric + "slo = \"p99 <= 5\"\n").starts_with("refbench.toml:7:7: cell.metric.slo: 'p99 <= 5'"));
    CHECK(error_of(metric + "slo = \"<= \"\n").starts_with("refbench.toml:7:7: cell.metric.slo:"));
    CHECK(error_of(metric + "kind = \"count\"\n") == "<no error>");
    CHECK(error_of(cell + "threshold = { errors = 1.5 }\n[[cell.metric]]\nname = \"errors\"\nkind = \"count\"\n") ==
          "refbench.toml:5:24: cell.threshold.errors: 'errors' is a count metric, gated by its max_increase in "
          "[[cell.metric]], not by a ratio");

    auto config = parse_config(metric + "kind = \"count\"\nmax_increase = 0.5\nslo = \"<1\"\n"
                                        "[[cell.metric]]\nname = \"p99\"\ncensor_above = 10000\ncensor_below = 0\n"
                                        "slo = \">= 2.5\"\n",
                               "refbench.toml");
    const auto& c = config.cells.at(0).custom;
    REQUIRE(c.size() == 2);
    CHECK(c[0].kind == model::MetricKind::count);
    CHECK(c[0].max_increase == 0.5);
    REQUIRE(c[0].slo);
    CHECK(c[0].slo->op == "<");
    CHECK(c[0].slo->value == 1);
    CHECK(c[1].kind == model::MetricKind::ratio);
    CHECK(c[1].censor_above == 10000);
    CHECK(c[1].censor_below == 0);
    CHECK(c[1].slo->op == ">=");
    CHECK(c[1].slo->value == 2.5);
  }
  SUBCASE("params: a sweep of cells") {
    const std::string sweep =
        "\n[[cell]]\nname = \"load-{users}u-{mode}\"\ncommand = [\"./bench\", \"{users}\", \"{mode}\"]\n"
        "env = { MODE = \"{mode}\" }\nparams = { users = [8, 32, 128], mode = [\"fast\", \"safe\"] }\n";
    auto config = parse_config(sweep, "refbench.toml");
    REQUIRE(config.cells.size() == 6);
    std::vector<std::string> names;
    for (const auto& c : config.cells) {
      names.push_back(c.name);
      CHECK(c.sweep == "load-{users}u-{mode}");
      CHECK(c.command.argv == std::vector<std::string>{"./bench", "{users}", "{mode}"}); // filled per arm by plan_cells
    }
    CHECK(names == std::vector<std::string>{"load-8u-fast", "load-8u-safe", "load-32u-fast", "load-32u-safe",
                                            "load-128u-fast", "load-128u-safe"});
    CHECK(config.cells[3].params ==
          std::vector<std::pair<std::string, std::string>>{{"users", "32"}, {"mode", "safe"}});
    auto specs = plan_cells(config.cells, {}, {"/w/a", "/w/b", ""}, {}, std::chrono::seconds(1));
    CHECK(specs[3].baseline.argv == std::vector<std::string>{"./bench", "32", "safe"});
    CHECK(std::find(specs[3].candidate.env.begin(), specs[3].candidate.env.end(), "MODE=safe") !=
          specs[3].candidate.env.end());
    CHECK(specs[3].meta.sweep == "load-{users}u-{mode}");
    CHECK(specs[3].meta.params == config.cells[3].params);
    // with payload sizes, one sweep per size
    auto sized = parse_config("[payloads]\nsizes = [\"1KiB\", \"1MiB\"]\n[[cell]]\nname = \"w-{n}\"\n"
                              "command = [\"./w\", \"{payload}\", \"{n}\"]\nparams = { n = [1, 2] }\n",
                              "refbench.toml");
    auto per_size = plan_cells(sized.cells, {{"1KiB", "/p/1k", 1024}, {"1MiB", "/p/1m", 1 << 20}}, {"/w/a", "/w/b", ""},
                               {}, std::chrono::seconds(1));
    REQUIRE(per_size.size() == 4);
    CHECK(per_size[0].name == "w-1-1KiB");
    CHECK(per_size[0].meta.sweep == "w-{n}-1KiB");
    CHECK(per_size[1].meta.sweep == "w-{n}-1MiB");
    CHECK(per_size[2].meta.sweep == "w-{n}-1KiB");

    CHECK(error_of(cell + "params = { users = [8] }\n") ==
          "refbench.toml:5:10: cell 'a' has the parameter 'users', so its name must contain {users}: every "
          "combination needs a name of its own");
    CHECK(error_of("\n[[cell]]\nname = \"a{n}\"\ncommand = \"true\"\nparams = { n = [] }\n") ==
          "refbench.toml:5:16: cell.params.n must be a non-empty array of integers or strings");
    CHECK(error_of("\n[[cell]]\nname = \"a{n}\"\ncommand = \"true\"\nparams = { n = [1.5] }\n") ==
          "refbench.toml:5:17: cell.params.n: a value is an integer or a string of 1–64 characters without braces or "
          "control characters");
    CHECK(error_of("\n[[cell]]\nname = \"a{n}\"\ncommand = \"true\"\nparams = { n = [\"{arm}\"] }\n")
              .starts_with("refbench.toml:5:17: cell.params.n: a value is"));
    CHECK(error_of("\n[[cell]]\nname = \"a{size}\"\ncommand = \"true\"\nparams = { size = [1] }\n") ==
          "refbench.toml:5:19: cell.params.size: {size} is one of refbench's own placeholders; name the parameter "
          "otherwise");
    CHECK(error_of("\n[[cell]]\nname = \"a{n}\"\ncommand = \"true\"\nparams = [1]\n") ==
          "refbench.toml:5:10: cell.params must be a table of arrays like { users = [8, 32, 128] }");
    CHECK(error_of("\n[[cell]]\nname = \"a{n}\"\ncommand = \"true\"\nparams = { n = [1, 1] }\n")
              .find("a cell named 'a1' appears twice") != std::string::npos);
    std::string many = "\n[[cell]]\nname = \"a{x}{y}\"\ncommand = \"true\"\nparams = { x = [";
    for (int i = 0; i < 40; ++i) {
      many += std::to_string(i) + ",";
    }
    many += "], y = [";
    for (int i = 0; i < 40; ++i) {
      many += std::to_string(i) + ",";
    }
    CHECK(error_of(many + "] }\n") == "refbench.toml:5:10: cell.params of 'a{x}{y}' make more than 1000 cells");
  }
  SUBCASE("TOML syntax") { CHECK(error_of("[run\nbudget = 1").starts_with("refbench.toml:1:")); }
}

TEST_CASE("config::parse_config: untrusted values") {
  const std::string cell = "\n[[cell]]\nname = \"a\"\ncommand = \"true\"\n";
  SUBCASE("a NUL in a string or a key is an error at its position, not a command cut short") {
    CHECK(error_of("[build]\ncommand = \"make\\u0000 clean\"\n" + cell) ==
          "refbench.toml:2:11: a string holds a NUL character (\\u0000)");
    CHECK(error_of(cell + "setup = [\"x\", \"\"\"y\\u0000\"\"\"]\n") ==
          "refbench.toml:5:15: a string holds a NUL character (\\u0000)");
    CHECK(error_of(cell + "env = { A = \"\\u0000\" }\n") ==
          "refbench.toml:5:13: a string holds a NUL character (\\u0000)");
    CHECK(error_of(cell + "env = { \"A\\u0000B\" = \"x\" }\n") ==
          "refbench.toml:5:9: a key holds a NUL character (\\u0000)");
  }
  SUBCASE("seed: within 0..2^63-1, never wrapped") {
    CHECK(error_of("[run]\nseed = 18446744073709551615\n" + cell) ==
          "refbench.toml:2:28: Error while parsing decimal integer: '18446744073709551615' is not representable in 64 "
          "bits");
    CHECK(error_of("[run]\nseed = -1\n" + cell) ==
          "refbench.toml:2:8: run.seed must be between 0 and 9223372036854775807, got -1");
    CHECK(error_of("[run]\nseed = 1e19\n" + cell) == "refbench.toml:2:8: run.seed must be an integer");
    CHECK(parse_config("[run]\nseed = 9223372036854775807\n" + cell, "refbench.toml").run.seed == INT64_MAX);
  }
  SUBCASE("a UTF-8 BOM is skipped") {
    CHECK(parse_config("\xEF\xBB\xBF[run]\nseed = 5\n" + cell, "refbench.toml").run.seed == 5);
  }
}

TEST_CASE("config::parse_config cpus splits and {cpus.NAME}") {
  const std::string head = "[[cell]]\nname = \"svc\"\n";
  SUBCASE("groups in the order written") {
    auto c = parse_config(head + "command = [\"taskset\", \"-c\", \"{cpus.service}\", \"server\"]\n"
                                 "env = { CLIENT_CPUS = \"{cpus.client}\" }\n"
                                 "cpus = { service = 3, client = \"rest\", db = 1 }\n",
                          "refbench.toml");
    REQUIRE(c.cells[0].cpus.size() == 3);
    CHECK(c.cells[0].cpus[0].name == "service");
    CHECK(c.cells[0].cpus[0].count == 3u);
    CHECK(c.cells[0].cpus[1].name == "client");
    CHECK_FALSE(c.cells[0].cpus[1].count.has_value());
    CHECK(c.cells[0].cpus[2].name == "db");
    CHECK(c.cells[0].cpus[2].count == 1u);
  }
  SUBCASE("run.isolate lists") {
    CHECK(parse_config("[run]\nisolate = \"2-3,6\"\n" + head + "command = \"true\"\n", "refbench.toml").run.isolate ==
          "2-3,6");
    CHECK(error_of("[run]\nisolate = \"3-1\"\n" + head + "command = \"true\"\n") ==
          "refbench.toml:2:11: run.isolate must be \"auto\", \"off\" or a cpu list like \"2-3\"");
  }
  SUBCASE("errors") {
    CHECK(error_of(head + "command = \"true\"\ncpus = 3\n") ==
          "refbench.toml:4:8: cell.cpus must be a table like { service = 3, client = \"rest\" }");
    CHECK(error_of(head + "command = \"true\"\ncpus = { service = 0 }\n") ==
          "refbench.toml:4:20: cell.cpus.service must be a number of CPUs (1 or more) or \"rest\"");
    CHECK(error_of(head + "command = \"true\"\ncpus = { service = \"most\" }\n") ==
          "refbench.toml:4:20: cell.cpus.service must be a number of CPUs (1 or more) or \"rest\"");
    CHECK(error_of(head + "command = \"true\"\ncpus = { a = \"rest\", b = \"rest\" }\n") ==
          "refbench.toml:4:26: cell.cpus.b: only one group can be \"rest\"");
    CHECK(error_of(head + "command = \"taskset -c {cpus.client} x\"\ncpus = { service = 1 }\n") ==
          "refbench.toml:3:11: {cpus.client} names no group of the cell's cpus");
    CHECK(error_of(head + "command = [\"taskset\", \"-c\", \"{cpus.client}\"]\n") ==
          "refbench.toml:3:11: {cpus.client} names no group of the cell's cpus (add cpus = { client = 1, ... } to "
          "the cell)");
    CHECK(error_of(head + "command = \"x\"\nenv = { C = \"{cpus.db}\" }\ncpus = { service = 1 }\n") ==
          "refbench.toml:4:13: {cpus.db} names no group of the cell's cpus");
  }
}

TEST_CASE("config::plan_cells fills {cpus.NAME}") {
  auto c = parse_config("[[cell]]\nname = \"svc\"\n"
                        "command = [\"taskset\", \"-c\", \"{cpus.service}\", \"{arm}/server\"]\n"
                        "env = { CLIENT = \"taskset -c {cpus.client}\" }\n"
                        "cpus = { service = 3, client = \"rest\" }\n",
                        "refbench.toml");
  auto requests = cpu_split_requests(c.cells);
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].owner == "svc");
  process::Topology pairs;
  for (unsigned cpu = 0; cpu < 16; ++cpu) {
    pairs.siblings[cpu] = {cpu & ~1u, cpu | 1u};
  }
  model::CpuList usable;
  for (unsigned cpu = 0; cpu < 16; ++cpu) {
    usable.push_back(cpu);
  }
  SUBCASE("pinned") {
    auto plan = process::plan_isolation("auto", usable, pairs, requests);
    auto cells = plan_cells(c.cells, {}, {"/w/a", "/w/b"}, {}, std::chrono::seconds(1), cpu_group_lists(c.cells, plan));
    REQUIRE(cells.size() == 1);
    CHECK(cells[0].baseline.argv == std::vector<std::string>{"taskset", "-c", "2-4", "/w/a/server"});
    CHECK(cells[0].candidate.argv == std::vector<std::string>{"taskset", "-c", "2-4", "/w/b/server"});
    CHECK(cells[0].baseline.env == std::vector<std::string>{"CLIENT=taskset -c 6-15"});
  }
  SUBCASE("unpinned: every group is the whole usable list") {
    auto plan = process::plan_isolation("off", usable, pairs, requests);
    auto cells = plan_cells(c.cells, {}, {"/w/a", "/w/b"}, {}, std::chrono::seconds(1), cpu_group_lists(c.cells, plan));
    CHECK(cells[0].baseline.argv[2] == "0-15");
    CHECK(cells[0].candidate.env == std::vector<std::string>{"CLIENT=taskset -c 0-15"});
  }
}

TEST_CASE("config: cell names are unique after expansion and never end in -control") {
  const std::string cell = "[[cell]]\nname = \"x\"\ncommand = \"w\"\n";
  CHECK(error_of("[[cell]]\nname = \"x-control\"\ncommand = \"w\"\n") ==
        "refbench.toml:1:1: cell name 'x-control' ends in '-control', which names the A/A control cells");
  CHECK(error_of(
            "[payloads]\nsizes = [\"1KiB\", \"1KiB\"]\n[[cell]]\nname = \"c-{size}\"\ncommand = \"w {payload}\"\n") ==
        "refbench.toml:3:1: cell 'c-{size}' expands to 'c-1KiB' twice: [payloads] sizes repeats a size");
  CHECK(error_of("[payloads]\nsizes = [\"1KiB\"]\n[[cell]]\nname = \"c\"\ncommand = \"w {payload}\"\n" +
                 std::string("[[cell]]\nname = \"c-1KiB\"\ncommand = \"w\"\n")) ==
        "refbench.toml:6:1: a cell named 'c-1KiB' appears twice (also at refbench.toml:3:1)");
  CHECK(error_of("[[cell]]\nname = \"c\"\ncommand = \"w {payload}\"\n") ==
        "refbench.toml:1:1: cell 'c' uses {payload}, but the config has no [payloads] sizes");
  CHECK(error_of("[[cell]]\nname = \"c\"\ncommand = \"w\"\ncheck_output = true\n")
            .starts_with("refbench.toml:4:16: cell.check_output compares the arms' {output} files, but the command "
                         "never mentions {output}"));
  CHECK(error_of(cell + "[run]\n") == "<no error>");
}

TEST_CASE("config::plan_cells quotes the values it fills into sh -c scripts") {
  auto c = parse_config("[payloads]\nsizes = [\"1KiB\"]\n[[cell]]\nname = \"c\"\n"
                        "command = \"cat {payload} > {output}; {arm}/x\"\n"
                        "[[cell]]\nname = \"argv\"\ncommand = [\"{arm}/x\", \"{payload}\"]\n",
                        "refbench.toml");
  const std::string hostile = "/o$(touch X) 'q'";
  auto cells = plan_cells(c.cells, {{"1KiB", hostile + "/p.bin", 1024}}, {hostile + "/a", hostile + "/b"}, {},
                          std::chrono::seconds(1));
  REQUIRE(cells.size() == 2);
  CHECK(cells[0].shell);
  CHECK(cells[0].baseline.argv[2] == "cat '/o$(touch X) '\\''q'\\''/p.bin' > {output}; '/o$(touch X) '\\''q'\\''/a'/x");
  runner::substitute_placeholders(cells[0].baseline, 3, hostile + "/out", cells[0].shell);
  CHECK(cells[0].baseline.argv[2] ==
        "cat '/o$(touch X) '\\''q'\\''/p.bin' > '/o$(touch X) '\\''q'\\''/out'; '/o$(touch X) '\\''q'\\''/a'/x");
  // argv words are never quoted: no shell reads them
  CHECK_FALSE(cells[1].shell);
  CHECK(cells[1].baseline.argv == std::vector<std::string>{hostile + "/a/x", hostile + "/p.bin"});
}

TEST_CASE("config::select_cells keeps the cells a glob matches, in order, and names a glob that matches none") {
  auto c = parse_config("[payloads]\nsizes = [\"64KiB\", \"2MiB\"]\n"
                        "[[cell]]\nname = \"compute\"\ncommand = \"w\"\n"
                        "[[cell]]\nname = \"checksum-{size}\"\ncommand = [\"w\", \"{payload}\"]\n"
                        "[[cell]]\nname = \"copy\"\ncommand = \"w\"\n",
                        "refbench.toml");
  const std::vector<PayloadFile> payloads{{"64KiB", "/p/1", 65536}, {"2MiB", "/p/2", 2097152}};
  const auto all = plan_cells(c.cells, payloads, {"/w/a", "/w/b"}, {}, std::chrono::seconds(1));
  REQUIRE(all.size() == 4);
  auto names = [](const std::vector<model::CellSpec>& cells) {
    std::vector<std::string> out;
    for (const auto& cell : cells) {
      out.push_back(cell.name);
    }
    return out;
  };
  using Names = std::vector<std::string>;
  CHECK(names(select_cells(all, {}, "--cells")) == Names{"compute", "checksum-64KiB", "checksum-2MiB", "copy"});
  CHECK(names(select_cells(all, {"checksum-*"}, "--cells")) == Names{"checksum-64KiB", "checksum-2MiB"});
  // the config's order, whatever the order of the globs; a cell two globs match once
  CHECK(names(select_cells(all, {"copy", "c*", "compute"}, "--cells")) ==
        Names{"compute", "checksum-64KiB", "checksum-2MiB", "copy"});
  CHECK(names(select_cells(all, {"co?y", "*-2MiB"}, "--cells")) == Names{"checksum-2MiB", "copy"});
  CHECK(names(select_cells(all, {"checksum-[0-9][0-9]KiB"}, "--cells")) == Names{"checksum-64KiB"});
  // a whole-name match, not a substring
  auto message = [&](const std::vector<std::string>& globs) -> std::pair<std::string, std::string> {
    try {
      select_cells(all, globs, "--cells");
    } catch (const UsageError& error) {
      return {error.what(), error.hint()};
    }
    return {"<no error>", ""};
  };
  CHECK(message({"checksum"}).first == "--cells 'checksum' matches no cell");
  CHECK(message({"compute", "nothing*"}).first == "--cells 'nothing*' matches no cell");
  CHECK(message({"nothing*"}).second == "the cells are: compute, checksum-64KiB, checksum-2MiB, copy");
  CHECK(message({""}).first == "--cells '' matches no cell");
}

TEST_CASE("config: [arms.baseline] / [arms.candidate] env and args reach each arm's command, env its hooks") {
  auto c =
      parse_config("[run]\ncandidates = [\"feat-a\", \"feat-b\"]\n"
                   "[arms.baseline]\nenv = { MODE = \"off\" }\n"
                   "[arms.candidate]\nenv = { MODE = \"on\" }\nargs = [\"--fast\", \"{arm}/cache dir\"]\n"
                   "[[cell]]\nname = \"argv\"\ncommand = [\"{arm}/x\", \"-v\"]\nenv = { MODE = \"cell\", K = \"1\" }\n"
                   "setup = [\"{arm}/prep\"]\n"
                   "[[cell]]\nname = \"sh\"\ncommand = \"{arm}/x | tee log\"\n",
                   "refbench.toml");
  CHECK(c.run.candidates == std::vector<std::string>{"feat-a", "feat-b"});
  CHECK(c.baseline_arm.env == std::vector<std::string>{"MODE=off"});
  CHECK(c.candidate_arm.args == std::vector<std::string>{"--fast", "{arm}/cache dir"});
  ArmPaths arms{"/w/a", "/w/b", "/w/c", c.baseline_arm, c.candidate_arm, "feat-a"};
  auto cells = plan_cells(c.cells, {}, arms, {"PATH=/bin"}, std::chrono::seconds(1));
  REQUIRE(cells.size() == 2);
  auto env_has = [](const model::Invocation& i, const std::string& entry) {
    return std::find(i.env.begin(), i.env.end(), entry) != i.env.end();
  };
  CHECK(cells[0].baseline.argv == std::vector<std::string>{"/w/a/x", "-v"});
  CHECK(cells[0].candidate.argv == std::vector<std::string>{"/w/b/x", "-v", "--fast", "/w/b/cache dir"});
  CHECK(cells[0].control_twin->argv == std::vector<std::string>{"/w/c/x", "-v"});
  CHECK(env_has(cells[0].baseline, "MODE=off"));
  CHECK(env_has(cells[0].candidate, "MODE=on")); // the arm's over the cell's
  CHECK_FALSE(env_has(cells[0].candidate, "MODE=cell"));
  CHECK(env_has(cells[0].candidate, "K=1"));
  CHECK(env_has(*cells[0].control_twin, "MODE=off"));
  // hooks: the env, not the args
  CHECK(cells[0].candidate_hooks.setup->invocation.argv == std::vector<std::string>{"/w/b/prep"});
  CHECK(env_has(cells[0].candidate_hooks.setup->invocation, "MODE=on"));
  CHECK(env_has(cells[0].baseline_hooks.setup->invocation, "MODE=off"));
  // a string command: the args appended to the script as shell words, {arm} filled quoted
  CHECK(cells[1].candidate.argv[2] == "/w/b/x | tee log --fast '/w/b/cache dir'");
  CHECK(cells[1].baseline.argv[2] == "/w/a/x | tee log");
  CHECK(cells[0].meta.candidate == "feat-a");
  CHECK(model::control_of(cells[0]).meta.candidate.empty());

  CHECK(error_of("[arms.other]\nargs = [\"x\"]\n[[cell]]\nname = \"a\"\ncommand = \"true\"\n") ==
        "refbench.toml:1:1: [arms.other]: the arms are baseline and candidate");
  CHECK(error_of("[arms.candidate]\nflags = [\"x\"]\n[[cell]]\nname = \"a\"\ncommand = \"true\"\n") ==
        "refbench.toml:2:1: unknown key 'flags' in [arms.candidate]");
  CHECK(error_of("[arms.candidate]\nargs = \"--fast\"\n[[cell]]\nname = \"a\"\ncommand = \"true\"\n") ==
        "refbench.toml:2:8: arms.candidate.args must be an array of strings");
  CHECK(error_of("[arms.baseline]\nenv = [\"A=1\"]\n[[cell]]\nname = \"a\"\ncommand = \"true\"\n") ==
        "refbench.toml:2:7: arms.baseline.env must be a table like { NAME = \"value\" }");
  CHECK(error_of("arms = 3\n[[cell]]\nname = \"a\"\ncommand = \"true\"\n") ==
        "refbench.toml:1:8: arms must be a table ([arms])");
  CHECK(error_of("[run]\ncandidates = [\"\"]\n[[cell]]\nname = \"a\"\ncommand = \"true\"\n") ==
        "refbench.toml:2:14: run.candidates: a ref must not be empty");
  CHECK(error_of("[run]\nsandbox = \"yes\"\n[[cell]]\nname = \"a\"\ncommand = \"true\"\n") ==
        "refbench.toml:2:11: run.sandbox must be auto, required or off, got \"yes\"");
}

TEST_CASE("config::parse_config: run.sandbox") {
  for (const auto& [word, mode] :
       {std::pair{"auto", model::SandboxMode::automatic}, std::pair{"required", model::SandboxMode::required},
        std::pair{"off", model::SandboxMode::off}}) {
    const auto c = parse_config(
        fmt::format("[run]\nsandbox = \"{}\"\n[[cell]]\nname = \"a\"\ncommand = \"true\"\n", word), "refbench.toml");
    CHECK(c.run.sandbox == mode);
  }
  CHECK_FALSE(parse_config("[[cell]]\nname = \"a\"\ncommand = \"true\"\n", "refbench.toml").run.sandbox);
}

TEST_CASE("config::parse_config: characters toml++ cannot classify never reach it where it would ask") {
  // toml++ 3 reaches __builtin_unreachable asking whether U+00A1…U+0499, U+2C5E…U+3057 or
  // U+FB26…U+FEFE is whitespace: outside strings (where TOML allows none) and after a
  // line-ending backslash of a multi-line string
  CHECK(error_of("a = 1 \xc3\xa9\n") ==
        "refbench.toml:1:7: the character U+00E9 may stand only in a string or a comment");
  CHECK(error_of("[run]\n\xef\xac\xb0"
                 "a = 1\n") == "refbench.toml:2:1: the character U+FB30 may stand only in a string or a comment");
  CHECK(error_of("a = 1'\xd0\x96'\n") ==
        "refbench.toml:1:7: the character U+0416 may stand only in a string or a comment");
  // a quote right after a bare value's characters opens no string: toml++ scans it as that value
  CHECK(error_of("a = 1.'\xc3\xa9'\n") ==
        "refbench.toml:1:8: the character U+00E9 may stand only in a string or a comment");
  CHECK(error_of("a = 1['\xc3\xa9'\n") ==
        "refbench.toml:1:8: the character U+00E9 may stand only in a string or a comment");
  CHECK(error_of("a = [1, { b = 2.'\xc3\xa9' }]\n") ==
        "refbench.toml:1:18: the character U+00E9 may stand only in a string or a comment");
  const std::string cell = "[[cell]]\ncommand = [\"true\"]\n";
  auto name_of = [&](const std::string& line) { return parse_config(cell + line, "refbench.toml").cells.at(0).name; };
  // in strings of every kind, quoted keys and comments they are text like any other
  CHECK(name_of("name = \"caf\xc3\xa9 \\\" \xef\xac\xb0\" # \xd0\x96\n") == "caf\xc3\xa9 \" \xef\xac\xb0");
  CHECK(name_of("name = 'caf\xc3\xa9'\n") == "caf\xc3\xa9");
  CHECK(name_of("name = '''\ncaf\xc3\xa9 ''\n'''\n") == "caf\xc3\xa9 ''\n");
  CHECK(name_of("name = \"\"\"\ncaf\xc3\xa9 \"\" # x\n\"\"\"\n") == "caf\xc3\xa9 \"\" # x\n");
  CHECK(name_of("env = { \"K\xc3\xa9\" = \"v\" }\nname = \"x\"\n") == "x");
  // quotes open strings in dotted keys, headers, arrays and inline tables
  CHECK(name_of("env.'K\xc3\xa9' = 'v'\nname = 'x'\n") == "x");
  CHECK(name_of("env = { 'K\xc3\xa9' = '\xd0\x96', L = 'v' }\nname = 'x'\n") == "x");
  const auto quoted = parse_config("[[ 'cell' ]]\ncommand = [ 'true', \"\xc3\xa9\" ]\nname = 'n'\n", "refbench.toml");
  CHECK(quoted.cells.at(0).command.argv == std::vector<std::string>{"true", "\xc3\xa9"});

  // after a line-ending backslash the same character, as an escape, gives the same string
  CHECK(name_of("name = \"\"\"x\\\n   \xc3\xa9t\xc3\xa9\"\"\"\n") == "x\xc3\xa9t\xc3\xa9");
  CHECK(name_of("name = \"\"\"x\\  \n\n \xd0\x96\"\"\"\n") == "x\xd0\x96");
}

TEST_CASE("config: the examples' counted suites parse, their counts named") {
  // docs/manual/suites.md#counts-per-benchmark: the configs a user copies are never ones
  // refbench refuses
  for (const char* example : {"google-benchmark", "catch2", "criterion"}) {
    CAPTURE(example);
    const std::string path =
        std::string(REFBENCH_FIXTURES_DIR) + "/../../examples/suites/" + example + "/refbench-counts.toml";
    auto text = refbench::util::read_file(path);
    REQUIRE(text.has_value());
    const auto config = parse_config(*text, path);
    REQUIRE(config.cells.size() == 1);
    CHECK(config.cells[0].gate == std::vector<std::string>{"instructions"});
    CHECK(std::ranges::count(config.cells[0].metrics, "allocations") == 1);
  }
}
