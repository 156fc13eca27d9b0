#pragma once
// The terminal side of a run (docs/manual/commands.md#commands): whether the table is
// coloured, and the progress on stderr — one line redrawn in place on a
// terminal, one plain line per round in logs, nothing with -q.

#include <refbench/pipeline/options.hpp>
#include <refbench/report/verdict_table.hpp>
#include <refbench/runner/rounds.hpp>

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace refbench::pipeline {

// Whether output to a terminal is coloured under `--color` `mode`. The
// explicit flag wins over NO_COLOR: never → false, always → true; auto
// → `stdout_is_tty`, `no_color_env` unset or empty (no-color.org) and
// `term_env` not "dumb" (an unset TERM does not forbid colour).
bool colour_enabled(ColorMode mode, bool stdout_is_tty, const char* no_color_env, const char* term_env);

enum class ProgressMode {
  live,  // one line on a terminal, redrawn in place and cleared at the end
  plain, // one line per round, no escape codes (CI logs, files)
  quiet, // nothing (-q)
};

// quiet with `quiet`; live when `stderr_is_tty` and `term_env` is not "dumb"
// (which cannot erase a line); else plain.
ProgressMode progress_mode(bool quiet, bool stderr_is_tty, const char* term_env);

// How the verdict table on stdout is coloured: colour_enabled() for
// `mode`, isatty(1), NO_COLOR and TERM.
report::VerdictColour stdout_table_colour(ColorMode mode);

// The progress on stderr: progress_mode() for `quiet`, isatty(2) and TERM.
ProgressMode stderr_progress_mode(bool quiet);

// The timing of the rounds so far, in seconds since the run started (warm-up
// included, as for the budget).
struct RoundTimes {
  int rounds_done = 0;
  double first_round_start = 0; // when round 1 began (warm-up excluded)
  double last_round_end = 0;
  std::size_t active_cells = 0; // cells still measuring after the last round
};

// When the run should stop measuring, in seconds since its start: the last
// round's end plus the rounds left up to `max_rounds` times the mean round
// so far, capped at `budget_seconds`. Cells stopping on precision can end it
// sooner. nullopt before round 1 ends; `last_round_end` once no cell is active.
std::optional<double> estimate_end(const RoundTimes& times, int max_rounds, double budget_seconds);

// `seconds` as a clock reading, rounded down: "0:32", "25:00", "1:02:03".
std::string format_clock(double seconds);

// A time left, rounded up: "45s", "3m12s", "1h02m".
std::string format_time_left(double seconds);

// What one progress line shows.
struct ProgressView {
  std::string cell; // the cell about to run (live line only)
  std::string arm;
  int round = 0; // 0: warm-up
  int max_rounds = 0;
  std::size_t active_cells = 0; // after the round (plain line only)
  double elapsed_seconds = 0;
  double budget_seconds = 0;
  std::optional<double> time_left; // until the estimated end; nullopt: unknown yet
};

// The live line, e.g. "refbench: compute-2MiB (candidate) · round 12/60 ·
// 0:32 of 25:00 · ends in ~3m12s" ("warm-up" for round 0).
std::string live_line(const ProgressView& view);

// The plain line after a round, e.g. "refbench: round 12/60: 2 cell(s)
// active, 0:32 of 25:00 budget, ends in ~3m12s" ("ends now" at 0).
std::string plain_line(const ProgressView& view);

// `line` cut to at most `columns` − 1 code points (so the cursor never
// reaches the last column and the line never wraps), ending in "…" if cut.
std::string fit_to_width(std::string_view line, int columns);

// The width in columns of the terminal on `fd` (TIOCGWINSZ), or 80.
int terminal_width(int fd);

// The progress of one run on `out` (stderr, whose descriptor `fd` gives the
// width) in `mode`. finish() — also called by the destructor, so errors and
// interrupts do too — leaves the terminal on a clean line.
class Progress {
public:
  Progress(std::ostream& out, int fd, ProgressMode mode, const model::RoundSettings& settings,
           runner::Clock clock = runner::monotonic_now);
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress();

  // Sets `hooks`' observer and before_invocation to this (none when quiet);
  // this Progress must outlive the run.
  void attach(runner::RoundHooks& hooks);

  // `cell`'s `arm` is about to run in `round` (0: warm-up). The live line is
  // redrawn on a new round, else at most every 100 ms.
  void invocation_starts(const model::CellRecord& cell, model::Arm arm, int round);

  // `round` ended `elapsed_seconds` into the run with `active_cells` left;
  // prints the plain line in plain mode.
  void round_done(int round, std::size_t active_cells, double elapsed_seconds);

  // Clears the live line if one is shown; idempotent.
  void finish();

private:
  double elapsed() const;
  void draw(const ProgressView& view);

  std::ostream& m_out;
  int m_fd;
  ProgressMode m_mode;
  int m_max_rounds;
  double m_budget_seconds;
  runner::Clock m_clock;
  double m_start;
  RoundTimes m_times;
  bool m_round_one_seen = false;
  int m_drawn_round = -1;
  double m_drawn_at = 0;
  bool m_line_shown = false;
};

} // namespace refbench::pipeline
