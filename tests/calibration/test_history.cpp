// Calibration of `refbench history` on chained nights (docs/manual/history.md): every night a link of 20 paired
// log-ratios analysed as a run would, chained through its commits, read by history::build_series.

#include "simulate.hpp"

#include <refbench/analysis/analysis.hpp>
#include <refbench/history/series.hpp>

#include <cmath>
#include <cstdio>
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <string>
#include <vector>

using namespace calibration;
using namespace refbench;

namespace {

// The per-pair noise that gives a link of 20 pairs a ±1 % interval.
double link_pair_noise(Model model, Noise& noise) {
  return model == Model::normal ? 0.0214 * noise.normal() : 0.0163 * noise.student_t3();
}

// One night: `ratio` measured in 20 pairs, as the history line its run writes.
history::Record simulated_night(Model model, Noise& noise, int index, double ratio) {
  std::vector<double> d;
  for (int i = 0; i < 20; ++i) {
    d.push_back(std::log(ratio) + link_pair_noise(model, noise));
  }
  const auto r = analysis::analyze({cell_from("cell", d)}, {}).front();
  history::Record record;
  record.baseline = {"", fmt::format("{:040x}", index)};
  record.candidate = {"", fmt::format("{:040x}", index + 1)};
  record.cell = "cell";
  record.metric = "wall";
  record.gated = true;
  record.unit = "seconds";
  record.ratio = r.ratio;
  record.ci_low = r.ci_low;
  record.ci_high = r.ci_high;
  record.n = d.size();
  record.verdict = std::string(stats::verdict_name(r.verdict));
  return record;
}

// A chain of `links` nights at ratio `each` (1: flat), but `step_at` (if any) at 1.08.
std::vector<history::Record> simulated_chain(Model model, Noise& noise, int links, int step_at, double each = 1.0) {
  std::vector<history::Record> records;
  for (int i = 0; i < links; ++i) {
    records.push_back(simulated_night(model, noise, i, i == step_at ? 1.08 : each));
  }
  return records;
}

struct ChainRates {
  int runs = 0;
  int flat_clean = 0;         // flat chains without a change point
  int flat_false_regress = 0; // flat chains whose window verdict is a REGRESSION
  int step_named = 0;         // the 8 % link named at its commit, and nothing else
  int step_found = 0;         // the 8 % link among the change points
  int creep_found = 0;        // a chain of 1 % links: the window's verdict a creep
  double half_width = 0;      // the links' mean half-width, as a fraction
};

ChainRates chain_rates(Model model, int links, std::uint64_t seed, int runs) {
  Noise noise(seed);
  ChainRates rates;
  rates.runs = runs;
  history::SeriesSettings settings;
  for (int run = 0; run < runs; ++run) {
    const auto flat_records = simulated_chain(model, noise, links, -1); // the series point into them
    const auto flat = history::build_series(flat_records, settings).front();
    rates.flat_clean += flat.change_points.empty() ? 1 : 0;
    for (const auto& p : flat.points) {
      rates.half_width += (*p.record->ci_high - *p.record->ci_low) / 2 / static_cast<double>(links * runs);
    }
    rates.flat_false_regress += flat.window.verdict.starts_with("REGRESSION") ? 1 : 0;
    const int at = static_cast<int>(noise.uniform() * links);
    const auto stepped_records = simulated_chain(model, noise, links, at);
    const auto stepped = history::build_series(stepped_records, settings).front();
    const auto sha = fmt::format("{:040x}", at + 1);
    bool found = false;
    for (const auto& c : stepped.change_points) {
      found = found || (c.sha == sha && c.index == static_cast<std::size_t>(at));
    }
    rates.step_found += found ? 1 : 0;
    rates.step_named += found && stepped.change_points.size() == 1 ? 1 : 0;
    if (links >= 30) { // 30 links of 1.01x: 1.35x, past the 1.15x gate, with no link a regression
      const auto creeping_records = simulated_chain(model, noise, links, -1, 1.01);
      const auto creeping = history::build_series(creeping_records, settings).front();
      rates.creep_found += creeping.window.verdict == "REGRESSION (creep)" ? 1 : 0;
    }
  }
  return rates;
}

} // namespace

TEST_CASE("calibration: chained nights — no phantom change points, the 8 % link named, no false creep") {
  for (Model model : {Model::normal, Model::student_t3}) {
    for (int links : {5, 30, 100, 300}) {
      // the long chains cost links² less per run than they cost in links: fewer runs
      const int total = std::max(50, runs() / (links >= 100 ? 5 : 2));
      const auto r = chain_rates(model, links, 7300 + static_cast<std::uint64_t>(model) * 1000 + links, total);
      const double n = r.runs;
      std::printf("history %-6s links ±%.2f %% %3d links (%4d runs): flat without change point %6.2f %%, 8 %% link "
                  "named %6.2f %% (alone %6.2f %%), false window REGRESSION %5.2f %%, 1 %% creep found %6.2f %%\n",
                  model == Model::normal ? "normal" : "t3", 100 * r.half_width, links, r.runs, 100 * r.flat_clean / n,
                  100 * r.step_found / n, 100 * r.step_named / n, 100 * r.flat_false_regress / n,
                  100 * r.creep_found / n);
      CAPTURE(model_name(model));
      CAPTURE(links);
      CHECK(r.flat_clean >= 0.95 * n);
      CHECK(r.step_found >= 0.90 * n);
      CHECK(r.flat_false_regress <= 0.01 * n);
      CHECK(r.creep_found >= (links >= 30 ? 0.90 * n : 0.0));
    }
  }
}
