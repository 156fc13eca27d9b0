#include <refbench/pipeline/terminal.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace refbench::pipeline {
namespace {

constexpr std::string_view k_clear_line = "\r\033[2K"; // to column 0, erase the whole line
constexpr double k_redraw_interval = 0.1;              // seconds between redraws within a round
constexpr int k_default_width = 80;

bool is_dumb(const char* term_env) { return term_env != nullptr && std::string_view(term_env) == "dumb"; }

// " · ends in ~3m12s", " · ends now", or nothing while unknown; `separator`
// goes in front.
std::string ends_text(const std::optional<double>& time_left, std::string_view separator) {
  if (!time_left) {
    return "";
  }
  if (*time_left <= 0) {
    return fmt::format("{}ends now", separator);
  }
  return fmt::format("{}ends in ~{}", separator, format_time_left(*time_left));
}

} // namespace

bool colour_enabled(ColorMode mode, bool stdout_is_tty, const char* no_color_env, const char* term_env) {
  if (mode != ColorMode::automatic) {
    return mode == ColorMode::always;
  }
  const bool no_color = no_color_env != nullptr && *no_color_env != '\0';
  return stdout_is_tty && !no_color && !is_dumb(term_env);
}

ProgressMode progress_mode(bool quiet, bool stderr_is_tty, const char* term_env) {
  if (quiet) {
    return ProgressMode::quiet;
  }
  return stderr_is_tty && !is_dumb(term_env) ? ProgressMode::live : ProgressMode::plain;
}

report::VerdictColour stdout_table_colour(ColorMode mode) {
  return colour_enabled(mode, isatty(STDOUT_FILENO) == 1, std::getenv("NO_COLOR"), std::getenv("TERM"))
             ? report::VerdictColour::ansi
             : report::VerdictColour::plain;
}

ProgressMode stderr_progress_mode(bool quiet) {
  return progress_mode(quiet, isatty(STDERR_FILENO) == 1, std::getenv("TERM"));
}

std::optional<double> estimate_end(const RoundTimes& times, int max_rounds, double budget_seconds) {
  if (times.rounds_done < 1) {
    return std::nullopt;
  }
  if (times.active_cells == 0 || times.rounds_done >= max_rounds) {
    return times.last_round_end;
  }
  const double mean_round = (times.last_round_end - times.first_round_start) / times.rounds_done;
  const double end = times.last_round_end + (max_rounds - times.rounds_done) * mean_round;
  return std::max(times.last_round_end, std::min(end, budget_seconds));
}

std::string format_clock(double seconds) {
  const auto total = static_cast<long long>(std::floor(std::max(0.0, seconds)));
  const long long hours = total / 3600;
  if (hours > 0) {
    return fmt::format("{}:{:02}:{:02}", hours, total % 3600 / 60, total % 60);
  }
  return fmt::format("{}:{:02}", total / 60, total % 60);
}

std::string format_time_left(double seconds) {
  const auto total = static_cast<long long>(std::ceil(std::max(0.0, seconds)));
  if (total < 60) {
    return fmt::format("{}s", total);
  }
  if (total < 3600) {
    return fmt::format("{}m{:02}s", total / 60, total % 60);
  }
  return fmt::format("{}h{:02}m", total / 3600, total % 3600 / 60);
}

std::string live_line(const ProgressView& v) {
  const std::string round = v.round == 0 ? "warm-up" : fmt::format("round {}/{}", v.round, v.max_rounds);
  return fmt::format("refbench: {} ({}) · {} · {} of {}{}", util::printable(v.cell), v.arm, round,
                     format_clock(v.elapsed_seconds), format_clock(v.budget_seconds), ends_text(v.time_left, " · "));
}

std::string plain_line(const ProgressView& v) {
  return fmt::format("refbench: round {}/{}: {} cell(s) active, {} of {} budget{}", v.round, v.max_rounds,
                     v.active_cells, format_clock(v.elapsed_seconds), format_clock(v.budget_seconds),
                     ends_text(v.time_left, ", "));
}

std::string fit_to_width(std::string_view line, int columns) {
  const auto room = static_cast<std::size_t>(std::max(0, columns - 1));
  auto is_lead = [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; };
  if (static_cast<std::size_t>(std::count_if(line.begin(), line.end(), is_lead)) <= room) {
    return std::string(line);
  }
  if (room == 0) {
    return "";
  }
  // keep room − 1 code points, then the ellipsis
  std::size_t kept = 0;
  std::size_t end = 0;
  for (; end < line.size(); ++end) {
    if (is_lead(line[end]) && kept++ == room - 1) {
      break;
    }
  }
  return std::string(line.substr(0, end)) + "…";
}

int terminal_width(int fd) {
  winsize size{};
  if (fd >= 0 && ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    return size.ws_col;
  }
  return k_default_width;
}

Progress::Progress(std::ostream& out, int fd, ProgressMode mode, const model::RoundSettings& settings,
                   runner::Clock clock)
    : m_out(out), m_fd(fd), m_mode(mode), m_max_rounds(settings.max_rounds), m_budget_seconds(settings.budget_seconds),
      m_clock(std::move(clock)), m_start(m_clock()) {}

Progress::~Progress() { finish(); }

void Progress::attach(runner::RoundHooks& hooks) {
  if (m_mode == ProgressMode::quiet) {
    return;
  }
  hooks.observer = [this](int round, std::size_t active, double elapsed) { round_done(round, active, elapsed); };
  hooks.before_invocation = [this](const model::CellRecord& cell, model::Arm arm, int round) {
    invocation_starts(cell, arm, round);
  };
}

void Progress::invocation_starts(const model::CellRecord& cell, model::Arm arm, int round) {
  if (round >= 1 && !m_round_one_seen) {
    m_round_one_seen = true;
    m_times.first_round_start = elapsed();
  }
  if (m_mode != ProgressMode::live) {
    return;
  }
  const double now = elapsed();
  if (round == m_drawn_round && now - m_drawn_at < k_redraw_interval) {
    return;
  }
  auto end = estimate_end(m_times, m_max_rounds, m_budget_seconds);
  draw({model::cell_title(cell), std::string(model::arm_name(arm)), round, m_max_rounds, m_times.active_cells, now,
        m_budget_seconds, end ? std::optional<double>(*end - now) : std::nullopt});
  m_drawn_round = round;
  m_drawn_at = now;
}

void Progress::round_done(int round, std::size_t active_cells, double elapsed_seconds) {
  m_times.rounds_done = round;
  m_times.last_round_end = elapsed_seconds;
  m_times.active_cells = active_cells;
  if (m_mode != ProgressMode::plain) {
    return;
  }
  auto end = estimate_end(m_times, m_max_rounds, m_budget_seconds);
  ProgressView view{"",
                    "",
                    round,
                    m_max_rounds,
                    active_cells,
                    elapsed_seconds,
                    m_budget_seconds,
                    end ? std::optional<double>(*end - elapsed_seconds) : std::nullopt};
  m_out << plain_line(view) + "\n" << std::flush;
}

void Progress::finish() {
  if (m_line_shown) {
    m_out << k_clear_line << std::flush;
    m_line_shown = false;
  }
}

double Progress::elapsed() const { return m_clock() - m_start; }

void Progress::draw(const ProgressView& view) {
  m_out << std::string(k_clear_line) + fit_to_width(live_line(view), terminal_width(m_fd)) << std::flush;
  m_line_shown = true;
}

} // namespace refbench::pipeline
