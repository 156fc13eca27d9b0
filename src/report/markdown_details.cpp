#include <refbench/model/command_output.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/report/markdown_details.hpp>
#include <refbench/report/units.hpp>
#include <refbench/report/verdict_table.hpp>
#include <refbench/util/outside_text.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace refbench::report {
namespace {

using analysis::MetricResult;

std::string section(std::string_view title, const std::string& body) {
  return body.empty() ? "" : fmt::format("**{}**\n\n{}", title, body);
}

std::string cpu_line(const EnvironmentInfo& env) {
  std::string line = "- CPU: " + util::markdown_text(env.cpu_model.empty() ? "unknown" : env.cpu_model);
  auto threads = env.threads_per_core;
  if (!threads && env.cores && env.cpus && *env.cores > 0) {
    threads = *env.cpus / *env.cores;
  }
  if (env.cpus) {
    line += fmt::format(" · {} logical CPU{}", *env.cpus, *env.cpus == 1 ? "" : "s");
  }
  if (env.cores && threads) {
    line += fmt::format(" · {} cores × {} thread{} per core", *env.cores, *threads, *threads == 1 ? "" : "s");
  }
  return line + " · SMT " + (threads ? (*threads > 1 ? "on" : "off") : "unknown") + "\n";
}

std::string isolation_lines(const IsolationInfo& iso) {
  std::string mode = iso.mode.empty() ? "" : " (" + util::markdown_text(iso.mode) + ")";
  std::string line;
  if (iso.pinned) {
    line = fmt::format("- CPU isolation{}: benchmarked processes on CPUs {}, refbench {}\n", mode,
                       util::markdown_text(iso.benchmark_cpus),
                       iso.refbench_cpus.empty() ? "not pinned" : "on " + util::markdown_text(iso.refbench_cpus));
  } else if (!iso.warning.empty()) {
    line = fmt::format("- CPU isolation{}: unpinned — {}\n", mode, util::markdown_text(iso.warning));
  } else {
    line = fmt::format("- CPU isolation{}: unpinned\n", mode);
  }
  for (const auto& split : iso.splits) {
    std::string groups;
    for (const auto& [name, cpus] : split.groups) {
      groups +=
          fmt::format("{}{} {}", groups.empty() ? "" : " · ", util::markdown_text(name), util::markdown_text(cpus));
    }
    if (!split.unassigned.empty()) {
      groups += " · unassigned " + util::markdown_text(split.unassigned);
    }
    line += fmt::format("  - cell {} CPUs: {}\n", util::markdown_code(split.cell), groups);
  }
  return line;
}

// Which tool counted instructions, its version, and what the hardware
// counters said when asked; what counted allocations.
std::string counters_line(const CounterInfo& counters) {
  std::string line;
  if (counters.source != k_allocation_counter_source) {
    line = "- instruction counts: " + util::markdown_text(counters.source);
    if (!counters.version.empty()) {
      line += " (" + util::markdown_text(counters.version) + ")";
    }
    if (!counters.probe.empty()) {
      line += "; hardware counters: " + util::markdown_text(counters.probe);
    }
    line += "\n";
  }
  if (!counters.allocations.empty()) {
    line += "- allocation counts: refbench's allocation counter, preloaded (LD_PRELOAD) into each process\n";
  }
  return line;
}

std::string environment_body(const RunDocument& document) {
  std::string body;
  if (const auto& env = document.header.environment) {
    body += cpu_line(*env);
    body +=
        "- CPU frequency governor: " + util::markdown_text(env->governor.empty() ? "unknown" : env->governor) + "\n";
    if (!env->kernel.empty()) {
      body += "- kernel: " + util::markdown_text(env->kernel) +
              (env->machine.empty() ? "" : " (" + util::markdown_text(env->machine) + ")") + "\n";
    }
    if (env->isolation) {
      body += isolation_lines(*env->isolation);
    }
    if (env->counters) {
      body += counters_line(*env->counters);
    }
    if (env->sandbox) {
      body += env->sandbox->mode == "none" ? "- sandbox: none (" + util::markdown_text(env->sandbox->reason) +
                                                 "); the trees' check watched the arms\n"
                                           : "- sandbox: " + util::markdown_text(env->sandbox->mode) +
                                                 " (--out, the {arm} links and refbench out of the commands' reach)\n";
    }
  }
  if (const auto& rss = document.header.rss) {
    body += "- peak RSS: measured by " + util::markdown_text(rss->method.empty() ? "an unknown method" : rss->method);
    body += rss->floor_bytes > 0
                ? ", floor " + format_bytes(static_cast<double>(rss->floor_bytes)) + " (every reading includes it)\n"
                : "\n";
    if (rss->spawn_resolution_seconds > 0) {
      body += "- spawn resolution: " + format_seconds(rss->spawn_resolution_seconds) + "\n";
    }
  }
  return body;
}

std::string build_body(const RunDocument& document) {
  std::string body;
  for (const auto& [name, arm] :
       {std::pair{"baseline", document.header.baseline}, std::pair{"candidate", document.header.candidate}}) {
    if (arm && arm->build_seconds) {
      body += fmt::format("- {} {}: {}\n", name, render_arm(*arm), format_duration(*arm->build_seconds));
    }
  }
  return body;
}

std::string stop_words(std::string_view reason) {
  static constexpr std::pair<std::string_view, std::string_view> k_words[] = {
      {"precision", "precise enough"},
      {"max-rounds", "max rounds reached"},
      {"max_rounds", "max rounds reached"},
      {"budget", "budget spent"},
      {"error", "an invocation failed"},
      {"interrupted", "interrupted"},
      {"aborted", "aborted: another cell's command could not start"},
      {"running", "still running (partial)"},
      {"", "—"}};
  for (const auto& [name, words] : k_words) {
    if (name == reason) {
      return std::string(words);
    }
  }
  return util::markdown_text(reason);
}

// Per cell, its gated rows' minimum detectable ratios ("wall 1.05x · cpu 1.04x"),
// grouped in one pass over the results.
std::unordered_map<std::string, std::string> detectable_by_cell(const RunDocument& document) {
  std::unordered_map<std::string, std::string> by_cell;
  for (const auto& r : document.results) {
    if (gated_row(r, document.results)) {
      auto& out = by_cell[model::cell_title(r.cell, r.candidate)];
      const auto detectable = r.kind != model::MetricKind::count ? format_ratio(r.min_detectable_ratio)
                              : std::isfinite(r.half_width)
                                  ? "±" + format_metric_value(r.half_width, r.unit, r.unit_label)
                                  : std::string("—");
      out += (out.empty() ? "" : " · ") + util::markdown_text(r.metric) + " " + detectable;
    }
  }
  return by_cell;
}

// One row of the cell table: a measured cell, or a cell of outside data
// (no rounds, no stop reason).
struct CellRow {
  std::string name;
  int rounds = 0;
  std::optional<model::StopReason> stop;
};

std::string cells_body(const RunDocument& document) {
  std::vector<CellRow> cells;
  for (const auto& cell : document.record.cells) {
    cells.push_back({model::cell_title(cell), cell.rounds, cell.stop});
  }
  if (cells.empty()) { // analyze of outside data: the cells of the analysis
    std::unordered_set<std::string> seen;
    for (const auto& r : document.results) {
      if (seen.insert(r.cell).second) {
        cells.push_back({r.cell, 0, std::nullopt});
      }
    }
  }
  if (cells.empty()) {
    return "";
  }
  const auto detectable = detectable_by_cell(document);
  std::string body = "| cell | rounds | stopped | minimum detectable ratio |\n|---|---|---|---|\n";
  for (const auto& cell : cells) {
    const auto found = detectable.find(cell.name);
    body += fmt::format("| {} | {} | {} | {} |\n", util::markdown_text(cell.name),
                        cell.stop ? std::to_string(cell.rounds) : "—",
                        cell.stop ? stop_words(model::stop_reason_name(*cell.stop)) : "—",
                        found == detectable.end() ? "—" : found->second);
  }
  return body;
}

// Per cell and arm, the wall median of each replica: one row per arm.
std::string replicas_body(const RunDocument& document) {
  if (document.replicas.empty()) {
    return "";
  }
  std::string body =
      "Each arm ran from byte-identical copies of its files (replicas), drawn per round; a replica far "
      "from its siblings shows a placement effect.\n\n| cell | arm | median wall per replica |\n|---|---|---|\n";
  for (std::size_t i = 0; i < document.replicas.size();) {
    const auto& first = document.replicas[i];
    std::string medians;
    for (; i < document.replicas.size() && document.replicas[i].cell == first.cell &&
           document.replicas[i].arm == first.arm;
         ++i) {
      const auto& r = document.replicas[i];
      medians += fmt::format("{}{}: {} (n={})", medians.empty() ? "" : " · ", r.replica,
                             format_metric_value(r.median_wall, analysis::Unit::seconds, ""), r.n);
    }
    body += fmt::format("| {} | {} | {} |\n", util::markdown_text(first.cell), util::markdown_text(first.arm), medians);
  }
  return body;
}

std::string warnings_body(const RunDocument& document) {
  std::string body;
  for (const auto& warning : document.warnings) {
    if (!warning.message.empty()) {
      body += "- " + prose_naming(warning.message, warning.cell) + "\n";
    }
  }
  return body;
}

// Why readings of `r` sit at the measurement floor (docs/manual/statistics.md).
std::string censored_reason(const RunDocument& document, const MetricResult& r) {
  if (!r.censor_limit.empty()) {
    return "readings at or past " + util::markdown_text(r.censor_limit);
  }
  if (r.metric == "rss") {
    return "RSS at the launcher floor" +
           (document.header.rss && document.header.rss->floor_bytes > 0
                ? " (" + format_bytes(static_cast<double>(document.header.rss->floor_bytes)) + ")"
                : std::string());
  }
  if (r.unit == analysis::Unit::seconds) {
    const bool known = document.header.rss && document.header.rss->spawn_resolution_seconds > 0;
    return "times below 10× the spawn resolution" +
           (known ? " (" + format_seconds(document.header.rss->spawn_resolution_seconds) + ")" : std::string()) +
           " or capped by the timeout";
  }
  return "readings at the measurement floor";
}

std::string censored_body(const RunDocument& document) {
  std::string body;
  for (const auto& r : document.results) {
    if (r.verdict == stats::Verdict::censored) {
      body += fmt::format("- {} {}: {} in ≥ 20 % of an arm's samples; its ratio means nothing, so it is not gated\n",
                          util::markdown_code(model::cell_title(r.cell, r.candidate)), util::markdown_text(r.metric),
                          censored_reason(document, r));
    }
  }
  return body;
}

// Per metric with an SLO, each arm's share of invocations that met it
// (docs/manual/config.md#metric-kinds-ceilings-and-slos, ceilings and SLOs).
std::string slo_body(const RunDocument& document) {
  std::string body;
  for (const auto& r : document.results) {
    if (!r.slo || !r.baseline_slo_share || !r.candidate_slo_share) {
      continue;
    }
    body += fmt::format("- {} {} `{}`: met by {:.0f} % of the baseline's and {:.0f} % of the candidate's invocations "
                        "(medians {} and {}){}\n",
                        util::markdown_code(model::cell_title(r.cell, r.candidate)), util::markdown_text(r.metric),
                        model::slo_text(*r.slo), 100 * *r.baseline_slo_share, 100 * *r.candidate_slo_share,
                        format_metric_value(r.baseline_median, r.unit, r.unit_label),
                        format_metric_value(r.candidate_median, r.unit, r.unit_label),
                        r.slo_broken ? " — **SLO broken** by the candidate" : "");
  }
  return body;
}

// `text` without control characters other than newlines and tabs; CR LF and CR become LF.
std::string printable(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\r') {
      out += i + 1 < text.size() && text[i + 1] == '\n' ? "" : "\n";
    } else if (c >= 0x20 || c == '\n' || c == '\t') {
      out += text[i];
    }
  }
  return out;
}

// The last `lines` lines of `text`, and of those at most `max_bytes`, cut between characters.
std::string_view last_lines(std::string_view text, std::size_t lines, std::size_t max_bytes) {
  while (!text.empty() && text.back() == '\n') {
    text.remove_suffix(1);
  }
  std::size_t found = 0;
  for (std::size_t i = text.size(); i-- > 0;) {
    if (text[i] == '\n' && ++found == lines) {
      text.remove_prefix(i + 1);
      break;
    }
  }
  if (text.size() > max_bytes) {
    std::size_t from = text.size() - max_bytes;
    while (from < text.size() && (static_cast<unsigned char>(text[from]) & 0xC0U) == 0x80U) {
      ++from;
    }
    text.remove_prefix(from);
  }
  return text;
}

std::string failure_text(const model::CellRecord& cell, const DetailsPlan& plan) {
  const auto& f = *cell.failure;
  const std::string who = f.hook.empty() ? "the " + model::arm_label(cell, f.arm) : model::failure_subject(cell, f);
  const std::string when = !f.hook.empty() ? model::failure_when(f)
                           : f.round == 0  ? "in the warm-up"
                                           : fmt::format("in round {}", f.round);
  std::string text =
      fmt::format("{}: {} failed {}: {}", util::markdown_code(model::cell_title(cell)), util::markdown_text(who), when,
                  util::markdown_text(f.description.empty() ? "no description" : f.description));
  const std::string tail = printable(f.stderr_tail);
  if (!plan.stderr) {
    return text + "\n";
  }
  if (util::trim(tail).empty()) {
    return text + "; no stderr output\n";
  }
  if (plan.short_stderr) {
    return text + "; the end of its stderr:\n\n" +
           util::markdown_code_block(last_lines(tail, k_short_tail_lines, k_short_tail_bytes), "text");
  }
  return text + "; its stderr ends with:\n\n" + util::markdown_code_block(tail, "text");
}

std::string failures_body(const RunDocument& document, const DetailsPlan& plan) {
  std::vector<std::string> parts;
  std::vector<std::string> described;
  for (const auto& cell : document.record.cells) {
    if (cell.failure) {
      parts.push_back(failure_text(cell, plan));
      described.push_back(model::cell_title(cell));
    }
  }
  for (const auto& r : document.results) { // ERROR without a recorded failure: a metric missing, outputs differing
    if (r.verdict == stats::Verdict::error &&
        std::find(described.begin(), described.end(), model::cell_title(r.cell, r.candidate)) == described.end()) {
      const auto title = model::cell_title(r.cell, r.candidate);
      parts.push_back(
          fmt::format("{}: {}\n", util::markdown_code(title), util::markdown_text(r.error.value_or("ERROR"))));
      described.push_back(title);
    }
  }
  std::string body;
  for (const auto& part : parts) {
    body += (body.empty() ? "" : "\n") + part;
  }
  return body;
}

std::string reproduce_section(const RunDocument& document) {
  if (document.header.reproduce.empty()) {
    return fmt::format("**Seed** {}\n", document.header.seed);
  }
  return fmt::format("**Reproduce** (seed {})\n\n", document.header.seed) +
         util::markdown_code_block(document.header.reproduce, "sh");
}

} // namespace

std::vector<std::string> left_out(const DetailsPlan& plan) {
  std::vector<std::string> items;
  if (!plan.plot) {
    items.emplace_back("the forest plot");
  }
  if (plan.short_stderr && plan.stderr) {
    items.push_back(fmt::format("stderr tails beyond their last {} lines", k_short_tail_lines));
  }
  const std::pair<bool, const char*> parts[] = {{plan.cell_table, "the per-cell table"},
                                                {plan.stderr, "the stderr tails"},
                                                {plan.warnings, "the warnings"},
                                                {plan.censored, "the censored metrics and SLOs"},
                                                {plan.environment, "the environment and build times"},
                                                {plan.failures, "the failures"}};
  for (const auto& [shown, what] : parts) {
    if (!shown) {
      items.emplace_back(what);
    }
  }
  return items;
}

std::string trim_note(const std::vector<std::string>& items, std::size_t limit) {
  std::string list;
  for (const auto& item : items) {
    list += (list.empty() ? "" : ", ") + item;
  }
  return fmt::format("_Left out to stay under {} bytes: {}. results.json has everything._\n", limit, list);
}

std::string render_details(const RunDocument& document, const DetailsPlan& plan, std::size_t limit) {
  std::vector<std::string> sections;
  if (auto items = left_out(plan); !items.empty()) {
    sections.push_back(trim_note(items, limit));
  }
  if (plan.environment) {
    sections.push_back(section("Environment", environment_body(document)));
    sections.push_back(section("Build times", build_body(document)));
  }
  sections.push_back(plan.cell_table ? section("Cells", cells_body(document)) : "");
  sections.push_back(plan.cell_table ? section("Replicas", replicas_body(document)) : "");
  sections.push_back(plan.warnings ? section("Warnings", warnings_body(document)) : "");
  sections.push_back(plan.censored ? section("Censored metrics", censored_body(document)) : "");
  sections.push_back(plan.censored ? section("SLOs", slo_body(document)) : "");
  sections.push_back(plan.failures ? section("Failures", failures_body(document, plan)) : "");
  sections.push_back(reproduce_section(document));
  std::string out = "<details><summary>Details</summary>\n\n";
  for (const auto& s : sections) {
    out += s.empty() ? "" : s + "\n";
  }
  return out + "</details>\n";
}

bool trim_details(DetailsPlan& plan, const RunDocument& document) {
  const bool stderr =
      std::any_of(document.record.cells.begin(), document.record.cells.end(),
                  [](const model::CellRecord& c) { return c.failure && !c.failure->stderr_tail.empty(); });
  if (!plan.short_stderr && plan.stderr && stderr) {
    plan.short_stderr = true;
    return true;
  }
  const std::pair<bool*, bool> steps[] = {
      {&plan.cell_table, !cells_body(document).empty()},
      {&plan.stderr, stderr},
      {&plan.warnings, !warnings_body(document).empty()},
      {&plan.censored, !(censored_body(document) + slo_body(document)).empty()},
      {&plan.environment, !(environment_body(document) + build_body(document)).empty()},
      {&plan.failures, !failures_body(document, plan).empty()}};
  for (const auto& [shown, present] : steps) {
    if (*shown && present) {
      *shown = false;
      return true;
    }
  }
  return false;
}

} // namespace refbench::report
