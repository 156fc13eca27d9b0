#include <refbench/git/refs.hpp>
#include <refbench/pipeline/measure.hpp>
#include <refbench/pipeline/run_plan.hpp>
#include <refbench/pipeline/shard_run.hpp>
#include <refbench/runner/payloads.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/files.hpp>

#include <algorithm>
#include <fmt/format.h>

namespace refbench::pipeline {

namespace fs = std::filesystem;

Inputs read_inputs(const RunOptions& o) {
  Inputs in;
  in.repo = fs::absolute(o.repo).lexically_normal().string();
  if (!git::is_repository(in.repo)) {
    throw RefusedError(in.repo + " is not a git repository", "pass --repo DIR with the repository to compare");
  }
  in.config_path = o.config ? *o.config : (fs::path(in.repo) / "refbench.toml").string();
  if (!o.config && !fs::exists(in.config_path)) {
    throw UsageError("no refbench.toml in " + in.repo, "create one (see docs/manual/config.md) or pass --config FILE");
  }
  in.config = config::load_config(in.config_path);
  in.settings = config::resolve(o.measure, &in.config.run, config::k_run_defaults);
  validate_scrub_names("--scrub-env", o.scrub_env);
  validate_scrub_names(in.config_path + ": run.scrub_env", in.config.run.scrub_env);
  in.shard = o.shard ? std::optional(checked_shard(*o.shard, in.config)) : std::nullopt;
  in.cells = o.cells;
  if (!in.cells.empty()) {
    if (in.shard) { // the shards of one run must measure the same cells
      throw UsageError("--cells and --shard cannot be combined",
                       "select cells with --cells, or split all with --shard");
    }
    cells_of_run(in.config, std::nullopt, in.cells); // a glob that matches no cell stops here, before the builds
  }
  in.config_text = util::read_file(in.config_path).value_or("");
  return in;
}

std::pair<fs::path, fs::path> out_and_work(const RunOptions& o) {
  const fs::path out = fs::absolute(o.out).lexically_normal();
  const fs::path work = o.workdir ? fs::absolute(*o.workdir).lexically_normal() : out / "arms";
  for (const auto& [flag, path] : {std::pair{"--out", out}, std::pair{"--workdir", work}}) {
    if (path.string().find_first_of("{}") != std::string::npos) {
      throw UsageError(
          fmt::format("{} {} holds a brace, which the cells' placeholders are made of", flag, path.string()),
          "choose a directory without { or }");
    }
  }
  return {out, work};
}

void make_out_dirs(const fs::path& out) {
  std::error_code ec;
  fs::create_directories(out / "logs", ec);
  fs::create_directories(out / "outputs", ec);
  if (ec) {
    throw RefusedError("cannot create " + out.string() + ": " + ec.message(), "choose a writable --out directory");
  }
  for (const fs::path& dir : {out / "logs", out / "outputs"}) { // nothing is written through a planted link
    if (!util::is_real_directory(dir)) {
      throw RefusedError(dir.string() + " is not a directory of its own (a symlink?)",
                         "remove it, or choose another --out directory");
    }
  }
}

std::vector<config::PayloadFile> make_payloads(const Inputs& in, const fs::path& out, std::uint64_t seed,
                                               nlohmann::json& payloads_json) {
  std::vector<config::PayloadFile> files;
  payloads_json = nlohmann::json::array();
  for (const auto& size : in.config.payload_sizes) {
    if ((in.shard || !in.cells.empty()) && !run_uses_payload(in.config, in.shard, in.cells, size.bytes)) {
      files.push_back({size.label, "", size.bytes});
      continue;
    }
    auto payload = runner::make_payload(out.string(), size.bytes, seed);
    files.push_back({size.label, payload.path, size.bytes});
    payloads_json.push_back({{"label", size.label},
                             {"bytes", size.bytes},
                             {"path", payload.path},
                             {"sha256", payload.sha256},
                             {"reused", payload.reused}});
  }
  return files;
}

std::vector<model::CellSpec> with_control(std::vector<model::CellSpec> cells, const Inputs& in, bool& auto_control) {
  const auto& control_cell = in.config.run.control_cell;
  auto named = [&](const auto& c) { return control_cell && c.name == *control_cell; };
  const bool control_planned =
      (in.shard || !in.cells.empty()) && std::any_of(cells.begin(), cells.end(), named); // among all cells
  if (in.shard) {
    cells = model::cells_of_shard(cells, *in.shard);
  }
  cells = config::select_cells(std::move(cells), in.cells, "--cells");
  const bool control = in.settings.control.value;
  if (control && control_cell && (!control_planned || std::any_of(cells.begin(), cells.end(), named))) {
    auto it = std::find_if(cells.begin(), cells.end(), named);
    if (it == cells.end()) {
      throw UsageError(fmt::format("{}: run.control_cell '{}' is not a cell", in.config_path, *control_cell),
                       "name one of the cells (after {size} expansion)");
    }
    if (it->meta.candidate_only) { // the baseline cannot run a new cell twice: the runner picks another
      auto_control = control;
      return cells;
    }
    cells.push_back(model::control_of(*it));
  } else {
    auto_control = control;
  }
  return cells;
}

std::vector<model::CellSpec> plan_candidates(const Inputs& in, const Arms& arms, const ArmReplicas& replicas,
                                             const std::vector<config::PayloadFile>& payloads,
                                             const std::vector<std::string>& env, const model::IsolationPlan& isolation,
                                             const std::vector<std::string>& labels) {
  std::vector<std::vector<model::CellSpec>> per_candidate;
  for (std::size_t k = 0; k < arms.candidate_count(); ++k) {
    config::ArmPaths paths{arms.path(model::Arm::baseline),
                           arms.candidate_path(k),
                           replicas.dirs[0].size() > 1 ? arms.control_path() : std::string(),
                           in.config.baseline_arm,
                           in.config.candidate_arm,
                           arms.candidate_count() > 1 ? labels.at(k) : std::string()};
    per_candidate.push_back(config::plan_cells(in.config.cells, payloads, paths, env, in.settings.timeout.value,
                                               config::cpu_group_lists(in.config.cells, isolation)));
  }
  std::vector<model::CellSpec> cells;
  for (std::size_t i = 0; i < per_candidate.front().size(); ++i) {
    for (auto& planned : per_candidate) {
      cells.push_back(std::move(planned[i]));
    }
  }
  return cells;
}
} // namespace refbench::pipeline
