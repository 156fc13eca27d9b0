#include <refbench/github/actions.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/fd.hpp>
#include <refbench/util/outside_text.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <sys/stat.h>

namespace refbench::github {
std::string one_line(std::string_view text) { return util::printable(text, ""); }

std::vector<std::string> regression_annotations(std::vector<Regression> regressions, std::size_t limit) {
  auto badness = [](const Regression& r) {
    if (!r.reason.empty()) {
      return std::numeric_limits<double>::infinity();
    }
    return std::isfinite(r.ratio) && r.ratio > 0 ? std::abs(std::log(r.ratio)) : 0.0;
  };
  std::ranges::stable_sort(regressions, [&](const auto& a, const auto& b) { return badness(a) > badness(b); });
  if (regressions.size() > limit) {
    regressions.resize(limit);
  }
  std::vector<std::string> lines;
  for (const auto& r : regressions) {
    // one line each, whatever a config put in them
    const std::string cell = one_line(r.cell);
    const std::string metric = one_line(r.metric);
    std::string message =
        fmt::format("{} {}: candidate/baseline {:.3f}x [{:.3f}, {:.3f}]", cell, metric, r.ratio, r.ci_low, r.ci_high);
    if (!r.reason.empty()) {
      message = fmt::format("{} {}: {}", cell, metric, one_line(r.reason));
    } else if (std::isfinite(r.threshold)) {
      message += fmt::format(", beyond the {:.2f}x threshold", r.threshold);
    }
    lines.push_back(fmt::format("::error title={}::{}", util::workflow_property("refbench: " + cell + " " + metric),
                                util::workflow_data(message)));
  }
  return lines;
}

std::string output_entry(const std::string& key, const std::string& raw_value, const std::string& delimiter) {
  const std::string value = util::printable(raw_value, "\n\t");
  if (value.find('\n') == std::string::npos) {
    return key + "=" + value + "\n";
  }
  if (("\n" + value + "\n").find("\n" + delimiter + "\n") != std::string::npos) {
    throw std::invalid_argument("output_entry: the value holds the delimiter line");
  }
  return key + "<<" + delimiter + "\n" + value + (value.ends_with('\n') ? "" : "\n") + delimiter + "\n";
}

void append_to_file(const std::string& path, const std::string& entries) {
  // never through a link planted at the path: the runner makes these files, they are never links
  util::Fd file(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644));
  struct stat info {};
  const bool regular = file.valid() && ::fstat(file.get(), &info) == 0 && S_ISREG(info.st_mode);
  if (!regular || !util::write_all(file.get(), entries.data(), entries.size())) {
    const int saved = errno;
    throw UsageError(fmt::format("cannot append to {}: {}", path,
                                 file.valid() && !regular ? "not a regular file"
                                 : saved == ELOOP         ? "it is a symbolic link"
                                                          : std::strerror(saved)),
                     "GITHUB_OUTPUT and GITHUB_STEP_SUMMARY must name writable files (GitHub Actions sets them)");
  }
}

std::string summary_text(const std::string& markdown, std::size_t already, std::size_t limit) {
  std::string text = util::printable(markdown, "\n\t") + (markdown.ends_with('\n') ? "\n" : "\n\n");
  const std::size_t room = already < limit ? limit - already - 1 : 0;
  if (text.size() <= room) {
    return text;
  }
  const std::string note = "\n_refbench: the report was cut to keep the job summary under 1 MiB; the whole report is "
                           "in report.md in the results._\n\n";
  if (room <= note.size()) {
    return {};
  }
  std::size_t cut = text.rfind('\n', room - note.size());
  return text.substr(0, cut == std::string::npos ? 0 : cut) + note;
}

} // namespace refbench::github
