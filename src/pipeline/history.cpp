#include <refbench/config/config.hpp>
#include <refbench/git/refs.hpp>
#include <refbench/history/history.hpp>
#include <refbench/history/series.hpp>
#include <refbench/pipeline/history.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <iostream>
#include <map>

namespace refbench::pipeline {

namespace fs = std::filesystem;

namespace {

// [history] window of the config at `path`; none without a path or a window.
std::optional<std::size_t> config_window(const std::string& path) {
  if (path.empty()) {
    return std::nullopt;
  }
  return config::load_config(path).history_window;
}

} // namespace

int run_history(const HistoryOptions& o, const CommonOptions& common) {
  if (!fs::is_directory(o.dir)) {
    throw UsageError(o.dir + " is not a directory", "pass the directory that holds history.jsonl");
  }
  const auto history = history::read_history(o.dir);
  if (!common.quiet) {
    for (const auto& warning : history.warnings) {
      std::cerr << "refbench: warning: " << util::printable(warning) << "\n";
    }
  }
  const auto skipped = history.warnings.empty() ? std::string()
                                                : fmt::format(" ({} {} skipped{})", history.warnings.size(),
                                                              history.warnings.size() == 1 ? "line" : "lines",
                                                              common.quiet ? "" : ", above");
  if (history.records.empty()) {
    throw RefusedError(fmt::format("the history in {} has no records{}", o.dir, skipped),
                       "append runs with `refbench run --history DIR` first");
  }
  auto settings = o.settings;
  settings.window = o.window ? *o.window : config_window(o.config).value_or(history::k_default_window);
  const auto series = history::build_series(history.records, settings);
  if (series.empty()) { // nothing judged is not "no regression"
    throw RefusedError(fmt::format("the history in {} has {} records and no series with a ratio to judge{}", o.dir,
                                   history.records.size(), skipped),
                       "append runs whose cells measured a ratio with `refbench run --history DIR`");
  }
  switch (o.format) {
  case HistoryFormat::json:
    history::write_history_json(std::cout, series, history.warnings);
    break;
  case HistoryFormat::html:
    std::cout << history::render_history_html(series, history.warnings, settings.threshold);
    break;
  case HistoryFormat::markdown:
    std::cout << history::render_history_markdown(series, history.warnings, settings.threshold);
    break;
  }
  const bool regressed = std::any_of(series.begin(), series.end(), [](const history::Series& s) {
    return s.gated && s.window.verdict.starts_with("REGRESSION");
  });
  return regressed ? 1 : 0;
}

std::string repository_id(const std::string& repo, const std::string& sha) {
  const std::string listed = git::run_git(repo, {"rev-list", "--max-parents=0", sha});
  auto roots = util::split(util::trim(listed), '\n');
  std::sort(roots.begin(), roots.end());
  return roots.empty() ? std::string() : std::string(roots.front());
}

std::string history_last(const std::optional<fs::path>& dir, const std::string& repo) {
  if (!dir) {
    throw UsageError("history-last names the last candidate of a history, and no history is given",
                     "pass --history DIR (or set [history] dir in refbench.toml)");
  }
  const auto history = history::read_history(*dir, repository_id(repo, "HEAD"));
  if (history.records.empty()) {
    throw RefusedError(fmt::format("history-last: the history in {} has no records yet", dir->string()),
                       "start the chain with a run of two named refs, e.g. --baseline latest-release");
  }
  const auto& last = history.records.back();
  try {
    git::run_git(repo, {"cat-file", "-e", last.candidate.sha + "^{commit}"});
  } catch (const git::GitError&) {
    throw RefusedError(fmt::format("history-last: commit {} (line {} of the history) is not in {}",
                                   util::printable(last.candidate.sha.substr(0, 12)), last.line, repo),
                       "fetch it (git fetch origin <sha>, or a full clone with fetch-depth: 0)");
  }
  return last.candidate.sha;
}

void append_to_history(const fs::path& dir, const report::RunDocument& document, const std::string& repo, bool quiet) {
  if (document.partial) {
    if (!quiet) {
      std::cerr << "refbench: the run was interrupted: nothing appended to the history in " << dir.string() << "\n";
    }
    return;
  }
  const auto sha = document.header.baseline ? document.header.baseline->sha : std::string("HEAD");
  const auto records = history::records_of(document, history::utc_now(), repository_id(repo, sha));
  const bool appended = history::append(dir, records);
  if (!quiet) {
    std::cerr << fmt::format("refbench: history: {} {} record(s) to {}\n", appended ? "appended" : "already holds",
                             records.size(), (dir / history::k_history_file).string());
  }
}

std::vector<report::DocumentWarning> band_notes(const fs::path& dir, const report::RunDocument& document,
                                                std::size_t window) {
  const auto history = history::read_history(dir);
  if (history.records.empty()) {
    return {};
  }
  history::SeriesSettings settings;
  settings.window = window;
  const auto series = history::build_series(history.records, settings);
  std::vector<report::DocumentWarning> notes;
  for (const auto& r : document.results) {
    if (!r.gated || r.control || !(r.ratio > 0)) {
      continue;
    }
    const auto found = std::find_if(series.begin(), series.end(),
                                    [&](const history::Series& s) { return s.cell == r.cell && s.metric == r.metric; });
    if (found == series.end()) {
      continue;
    }
    if (const auto at = history::band_position(*found, r.ratio, window)) {
      notes.push_back(
          {r.cell,
           fmt::format("history: {} {} {:.3f}x sits {:+.1f}σ from the band of the history's last {} ratios "
                       "(EWMA {:.3f}x, σ {:.1f} %)",
                       r.cell, r.metric, r.ratio, at->z, at->points, at->ewma, 100 * at->sd),
           {{"history",
             {{"metric", r.metric}, {"ewma", at->ewma}, {"sd", at->sd}, {"z", at->z}, {"points", at->points}}}}});
    }
  }
  return notes;
}

// Wires the history in `dir` into `sinks`: a pull request's run notes in its
// report where it sits in the history's band; any other run appends its
// records once its files are written, before anything is published.
void add_history(Sinks& sinks, const std::optional<fs::path>& dir, bool pull_request, const std::string& repo,
                 bool quiet, std::size_t window) {
  if (!dir) {
    return;
  }
  if (pull_request) {
    sinks.amend = [amend = sinks.amend, dir = *dir, window](report::RunDocument& document) {
      if (amend) {
        amend(document);
      }
      for (auto& note : band_notes(dir, document, window)) {
        document.warnings.push_back(std::move(note));
      }
    };
    return;
  }
  sinks.publish = [publish = sinks.publish, dir = *dir, repo, quiet](const report::RunDocument& document) {
    append_to_history(dir, document, repo, quiet);
    if (publish) {
      publish(document);
    }
  };
}

} // namespace refbench::pipeline
