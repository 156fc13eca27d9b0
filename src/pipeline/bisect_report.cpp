#include <refbench/pipeline/bisect_report.hpp>
#include <refbench/report/explanations.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/util/outside_text.hpp>

#include <algorithm>
#include <fmt/format.h>

namespace refbench::pipeline {
namespace {

using nlohmann::json;

json optional_number(const std::optional<double>& value) { return value ? json(*value) : json(nullptr); }

json commit_json(const git::CommitInfo& commit) {
  return {{"sha", commit.sha}, {"subject", commit.subject}, {"author", commit.author}, {"date", commit.date}};
}

// A commit subject (anyone's text) as table-safe Markdown.
std::string subject_text(const std::string& subject) {
  return util::markdown_text(subject.size() > 72 ? subject.substr(0, 71) + "…" : subject);
}

std::string ratio_text(const std::optional<double>& ratio, const std::optional<double>& low,
                       const std::optional<double>& high) {
  if (!ratio) {
    return "—";
  }
  return low && high ? fmt::format("{:.3f}x [{:.3f}, {:.3f}]", *ratio, *low, *high) : fmt::format("{:.3f}x", *ratio);
}

// The noise floor of a step's A/A control, max(hi, 1 / lo); none without one.
std::optional<double> floor_of(const BisectStep& s) {
  if (!s.control_ci_low || !s.control_ci_high || *s.control_ci_low <= 0) {
    return std::nullopt;
  }
  return std::max(*s.control_ci_high, 1 / *s.control_ci_low);
}

std::string headline(const BisectReport& r) {
  if (r.culprit) {
    return fmt::format("### refbench bisect: `{}` {} made {} {} {}", git::short_sha(r.culprit->sha),
                       subject_text(r.culprit->subject), util::markdown_code(r.cell), util::markdown_text(r.metric),
                       ratio_text(r.culprit_ratio, r.culprit_ci_low, r.culprit_ci_high));
  }
  if (!r.range_bad.empty()) {
    return fmt::format("### refbench bisect: {} — the change is in `{}..{}`", r.ambiguous ? "ambiguous" : "a range",
                       git::short_sha(r.range_good), git::short_sha(r.range_bad));
  }
  return "### refbench bisect: " + r.status;
}

} // namespace

json bisect_json(const BisectReport& r) {
  json culprit = nullptr;
  if (r.culprit) {
    culprit = commit_json(*r.culprit);
    culprit["ratio"] = optional_number(r.culprit_ratio);
    culprit["ci_low"] = optional_number(r.culprit_ci_low);
    culprit["ci_high"] = optional_number(r.culprit_ci_high);
    if (r.culprit_where && r.culprit_where->problem.empty()) {
      json functions = json::array();
      for (const auto& f : r.culprit_where->functions) {
        functions.push_back({{"function", f.function},
                             {"object", f.object},
                             {"baseline", f.baseline},
                             {"candidate", f.candidate},
                             {"delta", f.delta}});
      }
      culprit["where"] = {{"functions", std::move(functions)}};
      if (!r.culprit_where->graph.empty()) {
        culprit["where"]["graph"] = r.culprit_where->graph;
      }
    }
  }
  json steps = json::array();
  for (const auto& s : r.steps) {
    steps.push_back({{"kind", s.kind},
                     {"commit", commit_json(s.commit)},
                     {"good", s.good},
                     {"bad", s.bad},
                     {"ratio", optional_number(s.ratio)},
                     {"ci_low", optional_number(s.ci_low)},
                     {"ci_high", optional_number(s.ci_high)},
                     {"confidence", s.confidence},
                     {"bad_ratio", optional_number(s.bad_ratio)},
                     {"bad_ci_low", optional_number(s.bad_ci_low)},
                     {"bad_ci_high", optional_number(s.bad_ci_high)},
                     {"control_ratio", optional_number(s.control_ratio)},
                     {"control_ci_low", optional_number(s.control_ci_low)},
                     {"control_ci_high", optional_number(s.control_ci_high)},
                     {"noise_floor", optional_number(floor_of(s))},
                     {"side", s.side.empty() ? json(nullptr) : json(s.side)},
                     {"move", s.move.empty() ? json(nullptr) : json(s.move)},
                     {"cell", s.cell.empty() ? json(nullptr) : json(s.cell)},
                     {"rounds", s.rounds},
                     {"dir", s.dir},
                     {"more_dirs", s.more_dirs}});
  }
  json descent = json::array();
  for (const auto& merge : r.descent) {
    descent.push_back(commit_json(merge));
  }
  json range = nullptr;
  if (!r.culprit && !r.range_bad.empty()) {
    range = {{"good", r.range_good}, {"bad", r.range_bad}};
  }
  json gave_up = nullptr;
  if (r.gave_up) {
    gave_up = {{"check", r.gave_up->check},
               {"commit", r.gave_up->commit},
               {"step", r.gave_up->step},
               {"figures", r.gave_up->figures},
               {"rounds", r.gave_up->rounds}};
  }
  return {{"schema_version", 1}, {"status", r.status},   {"good", r.good},     {"bad", r.bad},
          {"metric", r.metric},  {"cell", r.cell},       {"culprit", culprit}, {"ambiguous", r.ambiguous},
          {"range", range},      {"skipped", r.skipped}, {"builds", r.builds}, {"counted_passes", r.counted_passes},
          {"steps", steps},      {"descent", descent},   {"notes", r.notes},   {"gave_up", gave_up}};
}

// "Where": the functions whose instructions the culprit moved most, against its parent.
std::string culprit_where_text(const BisectReport& r) {
  if (!r.culprit_where) {
    return "";
  }
  const auto& e = *r.culprit_where;
  if (!e.problem.empty()) {
    return fmt::format("Where: not explained: {}.\n\n", util::markdown_text(e.problem));
  }
  if (e.functions.empty()) {
    return "Where: no function's instructions moved: look at I/O, system calls, cache misses and code layout.\n\n";
  }
  std::string text = fmt::format("Where: made {} by `{}`, in ", e.functions.front().delta > 0 ? "slower" : "faster",
                                 git::short_sha(r.culprit->sha));
  for (std::size_t i = 0; i < e.functions.size() && i < 3; ++i) {
    const auto& f = e.functions[i];
    text += fmt::format("{}{} ({} instructions)", i == 0 ? "" : ", ", util::markdown_code(f.function),
                        report::format_count(f.delta, true));
  }
  return text + (e.graph.empty() ? "" : fmt::format(" — [call stacks]({})", e.graph)) + ".\n\n";
}

std::string bisect_markdown(const BisectReport& r) {
  std::string md = "<!-- refbench -->\n" + headline(r) + "\n\n";
  if (r.culprit) {
    md += fmt::format("`{}` by {}, {} — against its parent, 95 % interval.\n\n", r.culprit->sha,
                      util::markdown_text(r.culprit->author), util::markdown_text(r.culprit->date));
    md += culprit_where_text(r);
  }
  if (!r.descent.empty()) {
    md += "Descent:";
    for (const auto& merge : r.descent) {
      md += fmt::format(" merge `{}` {} →", git::short_sha(merge.sha), subject_text(merge.subject));
    }
    md += r.culprit ? fmt::format(" `{}`\n\n", git::short_sha(r.culprit->sha)) : std::string(" …\n\n");
  }
  md += "| step | commit | subject | ratio vs good | bad vs good | A/A floor | side | rounds |\n"
        "|---|---|---|---|---|---|---|---|\n";
  for (const auto& s : r.steps) {
    const std::string level = s.confidence == 0.95 ? "" : fmt::format(" ({:.2f} %)", 100 * s.confidence);
    const auto floor = floor_of(s);
    const std::string side = !s.side.empty() ? s.side : !s.move.empty() ? "move: " + s.move : "—";
    md += fmt::format("| {} | `{}` | {} | {}{} | {} | {} | {} | {}{} |\n", s.kind, git::short_sha(s.commit.sha),
                      subject_text(s.commit.subject), ratio_text(s.ratio, s.ci_low, s.ci_high), s.ratio ? level : "",
                      s.bad_ratio ? fmt::format("{:.3f}x", *s.bad_ratio) : std::string("—"),
                      floor ? fmt::format("±{:.1f} %", 100 * (*floor - 1)) : std::string("—"), side, s.rounds,
                      s.more_dirs.empty()
                          ? std::string()
                          : fmt::format(" ({} block{} more)", s.more_dirs.size(), s.more_dirs.size() == 1 ? "" : "s"));
  }
  md += fmt::format("\n{} builds (the two ends included){}{}.\n", r.builds,
                    r.skipped.empty() ? std::string()
                                      : fmt::format("; {} did not build and were skipped", r.skipped.size()),
                    r.counted_passes > 0 ? fmt::format("; {} counted passes", r.counted_passes) : std::string());
  for (const auto& note : r.notes) {
    md += "\n" + util::markdown_text(note) + "\n";
  }
  return md;
}

} // namespace refbench::pipeline
