#include <doctest/doctest.h>

#include <refbench/pipeline/terminal.hpp>
#include <refbench/report/verdict_table.hpp>

#include <cmath>
#include <sstream>

using namespace refbench;
using namespace refbench::pipeline;

TEST_CASE("pipeline::colour_enabled") {
  SUBCASE("never and always win over the terminal and NO_COLOR") {
    for (bool tty : {false, true}) {
      for (const char* no_color : {static_cast<const char*>(nullptr), "", "1"}) {
        for (const char* term : {static_cast<const char*>(nullptr), "xterm-256color", "dumb"}) {
          CHECK_FALSE(colour_enabled(ColorMode::never, tty, no_color, term));
          CHECK(colour_enabled(ColorMode::always, tty, no_color, term));
        }
      }
    }
  }
  SUBCASE("auto: only on a terminal") {
    CHECK(colour_enabled(ColorMode::automatic, true, nullptr, "xterm"));
    CHECK_FALSE(colour_enabled(ColorMode::automatic, false, nullptr, "xterm"));
  }
  SUBCASE("auto: a non-empty NO_COLOR disables, an empty one does not (no-color.org)") {
    CHECK_FALSE(colour_enabled(ColorMode::automatic, true, "1", "xterm"));
    CHECK_FALSE(colour_enabled(ColorMode::automatic, true, "0", "xterm"));
    CHECK(colour_enabled(ColorMode::automatic, true, "", "xterm"));
  }
  SUBCASE("auto: TERM=dumb disables, an unset TERM does not") {
    CHECK_FALSE(colour_enabled(ColorMode::automatic, true, nullptr, "dumb"));
    CHECK(colour_enabled(ColorMode::automatic, true, nullptr, nullptr));
    CHECK(colour_enabled(ColorMode::automatic, true, nullptr, "dumb-not"));
  }
}

TEST_CASE("pipeline::progress_mode") {
  CHECK(progress_mode(true, true, "xterm") == ProgressMode::quiet);
  CHECK(progress_mode(true, false, nullptr) == ProgressMode::quiet);
  CHECK(progress_mode(false, true, "xterm") == ProgressMode::live);
  CHECK(progress_mode(false, true, nullptr) == ProgressMode::live);
  CHECK(progress_mode(false, true, "dumb") == ProgressMode::plain);
  CHECK(progress_mode(false, false, "xterm") == ProgressMode::plain);
}

TEST_CASE("pipeline::estimate_end") {
  SUBCASE("unknown before the first round ends") { CHECK_FALSE(estimate_end({0, 0, 0, 2}, 60, 1500).has_value()); }
  SUBCASE("rounds left × the mean round, warm-up excluded") {
    // warm-up 0–4 s, rounds 1–10 took 20 s: 2 s a round, 50 rounds left
    CHECK(*estimate_end({10, 4, 24, 2}, 60, 1500) == doctest::Approx(124));
  }
  SUBCASE("capped by the budget") { CHECK(*estimate_end({10, 4, 24, 2}, 60, 100) == doctest::Approx(100)); }
  SUBCASE("the last round's end once done") {
    CHECK(*estimate_end({60, 4, 124, 0}, 60, 1500) == doctest::Approx(124));
    CHECK(*estimate_end({12, 4, 28, 0}, 60, 1500) == doctest::Approx(28)); // all stopped on precision
  }
  SUBCASE("never before the last round's end") { CHECK(*estimate_end({10, 4, 24, 2}, 60, 20) == doctest::Approx(24)); }
}

TEST_CASE("pipeline::format_clock and format_time_left") {
  CHECK(format_clock(0) == "0:00");
  CHECK(format_clock(32.9) == "0:32");
  CHECK(format_clock(1500) == "25:00");
  CHECK(format_clock(3723) == "1:02:03");
  CHECK(format_clock(-1) == "0:00");
  CHECK(format_time_left(0.2) == "1s");
  CHECK(format_time_left(45) == "45s");
  CHECK(format_time_left(191.5) == "3m12s");
  CHECK(format_time_left(3600 + 120) == "1h02m");
}

TEST_CASE("pipeline::live_line and plain_line") {
  ProgressView view{"compute-2MiB", "candidate", 12, 60, 2, 32.4, 1500, 192};
  CHECK(live_line(view) == "refbench: compute-2MiB (candidate) · round 12/60 · 0:32 of 25:00 · ends in ~3m12s");
  CHECK(plain_line(view) == "refbench: round 12/60: 2 cell(s) active, 0:32 of 25:00 budget, ends in ~3m12s");
  SUBCASE("warm-up, no estimate yet") {
    view.round = 0;
    view.time_left.reset();
    CHECK(live_line(view) == "refbench: compute-2MiB (candidate) · warm-up · 0:32 of 25:00");
  }
  SUBCASE("done") {
    view.round = 60;
    view.active_cells = 0;
    view.time_left = 0.0;
    CHECK(plain_line(view) == "refbench: round 60/60: 0 cell(s) active, 0:32 of 25:00 budget, ends now");
  }
}

TEST_CASE("pipeline::fit_to_width") {
  const std::string line = "refbench: a · round 1/6"; // 23 code points, "·" is two bytes
  CHECK(fit_to_width(line, 80) == line);
  CHECK(fit_to_width(line, 24) == line); // the last column stays free
  CHECK(fit_to_width(line, 23) == "refbench: a · round 1…");
  CHECK(fit_to_width(line, 15) == "refbench: a ·…"); // a cut never splits "·"
  CHECK(fit_to_width(line, 14) == "refbench: a …");
  CHECK(fit_to_width(line, 2) == "…");
  CHECK(fit_to_width(line, 1) == "");
  CHECK(fit_to_width(line, 0) == "");
}

TEST_CASE("pipeline::terminal_width falls back to 80") { CHECK(terminal_width(-1) == 80); }

namespace {

struct FakeRun {
  double now = 100; // the clock does not start at 0
  std::ostringstream out;
  model::RoundSettings settings{30, 6, 6, 1, 1};
  model::CellRecord cell{"compare", false, model::StopReason::running, 0, std::nullopt};
};

std::size_t count(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

} // namespace

TEST_CASE("pipeline::Progress live") {
  FakeRun run;
  {
    Progress progress(run.out, -1, ProgressMode::live, run.settings, [&] { return run.now; });
    run.now += 0.5;
    progress.invocation_starts(run.cell, model::Arm::baseline, 0);
    CHECK(run.out.str() == "\r\033[2Krefbench: compare (baseline) · warm-up · 0:00 of 0:30");

    run.now += 0.05; // same round, within 100 ms: not redrawn
    progress.invocation_starts(run.cell, model::Arm::candidate, 0);
    CHECK(count(run.out.str(), "\r\033[2K") == 1);

    run.now += 0.5; // a new round always redraws
    progress.invocation_starts(run.cell, model::Arm::candidate, 1);
    CHECK(count(run.out.str(), "\r\033[2K") == 2);
    run.now += 1.0;
    progress.round_done(1, 2, 2.05);
    CHECK(count(run.out.str(), "\n") == 0); // nothing printed after a round

    run.now += 0.2; // round 2: 1 s a round so far, 5 rounds left from 2.05 s, so ends at 7.05 s
    progress.invocation_starts(run.cell, model::Arm::baseline, 2);
    CHECK(run.out.str().ends_with("\r\033[2Krefbench: compare (baseline) · round 2/6 · 0:02 of 0:30 · ends in ~5s"));
    run.now += 0.15; // same round, after 100 ms: redrawn
    progress.invocation_starts(run.cell, model::Arm::candidate, 2);
    CHECK(count(run.out.str(), "\r\033[2K") == 4);
  } // the destructor clears the line
  CHECK(run.out.str().ends_with("ends in ~5s\r\033[2K"));
  CHECK(count(run.out.str(), "\n") == 0);
}

TEST_CASE("pipeline::Progress finish clears once, and only a shown line") {
  FakeRun run;
  Progress progress(run.out, -1, ProgressMode::live, run.settings, [&] { return run.now; });
  progress.finish();
  CHECK(run.out.str().empty());
  progress.invocation_starts(run.cell, model::Arm::baseline, 1);
  progress.finish();
  progress.finish();
  CHECK(count(run.out.str(), "\r\033[2K") == 2); // drawn once, cleared once
  CHECK(run.out.str().ends_with("\r\033[2K"));
}

TEST_CASE("pipeline::Progress plain: one line per round, no escape codes") {
  FakeRun run;
  {
    Progress progress(run.out, -1, ProgressMode::plain, run.settings, [&] { return run.now; });
    runner::RoundHooks hooks;
    progress.attach(hooks);
    REQUIRE(hooks.observer);
    REQUIRE(hooks.before_invocation);
    run.now += 1;
    hooks.before_invocation(run.cell, model::Arm::baseline, 0);
    run.now += 1;
    hooks.before_invocation(run.cell, model::Arm::baseline, 1); // round 1 starts at 2 s
    hooks.observer(1, 2, 4);
    hooks.observer(2, 2, 6);
    hooks.observer(6, 0, 14);
  }
  CHECK(run.out.str() == "refbench: round 1/6: 2 cell(s) active, 0:04 of 0:30 budget, ends in ~10s\n"
                         "refbench: round 2/6: 2 cell(s) active, 0:06 of 0:30 budget, ends in ~8s\n"
                         "refbench: round 6/6: 0 cell(s) active, 0:14 of 0:30 budget, ends now\n");
}

TEST_CASE("pipeline::Progress quiet attaches nothing and prints nothing") {
  FakeRun run;
  {
    Progress progress(run.out, -1, ProgressMode::quiet, run.settings, [&] { return run.now; });
    runner::RoundHooks hooks;
    progress.attach(hooks);
    CHECK_FALSE(hooks.observer);
    CHECK_FALSE(hooks.before_invocation);
    progress.invocation_starts(run.cell, model::Arm::baseline, 1);
    progress.round_done(1, 2, 1);
  }
  CHECK(run.out.str().empty());
}

TEST_CASE("report::render_verdict_table with ANSI colours") {
  using stats::Verdict;
  std::vector<analysis::MetricResult> rows;
  auto row = [&](std::string cell, Verdict verdict, bool gated = true) {
    analysis::MetricResult r;
    r.cell = std::move(cell);
    r.metric = "wall";
    r.gated = gated;
    r.verdict = verdict;
    r.n = 3;
    r.baseline_median = r.candidate_median = r.ratio = std::nan(""); // "—": the verdict column is what is tested
    rows.push_back(r);
  };
  row("r", Verdict::regression);
  row("e", Verdict::error);
  row("i", Verdict::improved);
  row("p", Verdict::pass);
  row("q", Verdict::inconclusive);
  row("c", Verdict::censored);
  row("x", Verdict::regression, false);
  const std::string head = "| cell | metric | baseline | candidate | ratio (95% CI) | p (BH) | n | verdict |\n"
                           "|---|---|---|---|---|---|---|---|\n";
  CHECK(report::render_verdict_table(rows, report::VerdictColour::ansi) ==
        head + "| r | wall | — | — | — | — | 3 | \033[31mREGRESSION\033[0m |\n"
               "| e | wall | — | — | — | — | 3 | \033[31mERROR\033[0m |\n"
               "| i | wall | — | — | — | — | 3 | \033[32mIMPROVED\033[0m |\n"
               "| p | wall | — | — | — | — | 3 | \033[32mPASS\033[0m |\n"
               "| q | wall | — | — | — | — | 3 | \033[33mINCONCLUSIVE\033[0m |\n"
               "| c | wall | — | — | — | — | 3 | \033[2mCENSORED\033[0m |\n"
               "| x | wall | — | — | — | — | 3 | \033[2mREGRESSION (info)\033[0m |\n");
  SUBCASE("plain is the Markdown table, without a single escape") {
    const auto plain = report::render_verdict_table(rows, report::VerdictColour::plain);
    CHECK(plain == report::render_verdict_table(rows));
    CHECK(plain.find('\033') == std::string::npos);
    CHECK(plain == head + "| r | wall | — | — | — | — | 3 | REGRESSION |\n"
                          "| e | wall | — | — | — | — | 3 | ERROR |\n"
                          "| i | wall | — | — | — | — | 3 | IMPROVED |\n"
                          "| p | wall | — | — | — | — | 3 | PASS |\n"
                          "| q | wall | — | — | — | — | 3 | INCONCLUSIVE |\n"
                          "| c | wall | — | — | — | — | 3 | CENSORED |\n"
                          "| x | wall | — | — | — | — | 3 | REGRESSION (info) |\n");
  }
}
