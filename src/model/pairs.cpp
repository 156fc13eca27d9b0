#include <refbench/model/pairs.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

namespace refbench::model {
namespace {

// The rounds of `cell` in which both arms gave a usable sample that `has`
// accepts, each with its two samples, in round order.
// Calls `visit` with every sample of `cell`, through `index` when given.
template <typename Visit>
void for_each_sample(const RunRecord& record, std::size_t cell, const SampleIndex* index, Visit visit) {
  if (index != nullptr) {
    for (const Sample* sample : index->of(cell)) {
      visit(*sample);
    }
    return;
  }
  for (const auto& sample : record.samples) {
    if (sample.cell == cell) {
      visit(sample);
    }
  }
}

template <typename Has>
std::map<int, std::array<const Sample*, 2>> paired_samples(const RunRecord& record, std::size_t cell,
                                                           const SampleIndex* index, Has has) {
  std::map<int, std::array<const Sample*, 2>> by_round;
  for_each_sample(record, cell, index, [&](const Sample& sample) {
    if (sample.round > 0 && usable(sample) && has(sample)) {
      by_round[sample.round][sample.arm == Arm::baseline ? 0 : 1] = &sample;
    }
  });
  std::erase_if(by_round, [](const auto& entry) { return entry.second[0] == nullptr || entry.second[1] == nullptr; });
  return by_round;
}

} // namespace

SampleIndex::SampleIndex(const RunRecord& record) : m_by_cell(record.cells.size()) {
  for (const auto& sample : record.samples) {
    if (sample.cell >= m_by_cell.size()) {
      m_by_cell.resize(sample.cell + 1);
    }
    m_by_cell[sample.cell].push_back(&sample);
  }
}

const std::vector<const Sample*>& SampleIndex::of(std::size_t cell) const {
  static const std::vector<const Sample*> k_none;
  return cell < m_by_cell.size() ? m_by_cell[cell] : k_none;
}

PairedValues candidate_values(const RunRecord& record, std::size_t cell, Metric metric,
                              const std::string& custom_metric, const SampleIndex* index) {
  PairedValues values;
  for_each_sample(record, cell, index, [&](const Sample& sample) {
    if (sample.arm != Arm::candidate || sample.round == 0 || !usable(sample)) {
      return;
    }
    if (custom_metric.empty()) {
      const double value = metric_value(sample.outcome, metric);
      if (std::isnan(value)) {
        return; // a counted metric this sample has no count of
      }
      values.candidate.push_back(value);
    } else if (auto found = sample.values.find(custom_metric); found != sample.values.end()) {
      values.candidate.push_back(found->second);
    } else {
      return;
    }
    values.rounds.push_back(sample.round);
  });
  return values;
}

PairedValues complete_pairs(const RunRecord& record, std::size_t cell, Metric metric, const SampleIndex* index) {
  PairedValues pairs;
  auto has = [&](const Sample& sample) { return !std::isnan(metric_value(sample.outcome, metric)); };
  for (const auto& [round, arms] : paired_samples(record, cell, index, has)) {
    pairs.rounds.push_back(round);
    pairs.baseline.push_back(metric_value(arms[0]->outcome, metric));
    pairs.candidate.push_back(metric_value(arms[1]->outcome, metric));
    pairs.baseline_at_floor.push_back(at_floor(arms[0]->outcome, metric, record.rss));
    pairs.candidate_at_floor.push_back(at_floor(arms[1]->outcome, metric, record.rss));
  }
  return pairs;
}

PairedValues complete_pairs(const RunRecord& record, std::size_t cell, const std::string& custom_metric,
                            const SampleIndex* index) {
  PairedValues pairs;
  auto has = [&](const Sample& sample) { return sample.values.contains(custom_metric); };
  for (const auto& [round, arms] : paired_samples(record, cell, index, has)) {
    pairs.rounds.push_back(round);
    pairs.baseline.push_back(arms[0]->values.at(custom_metric));
    pairs.candidate.push_back(arms[1]->values.at(custom_metric));
    pairs.baseline_at_floor.push_back(false);
    pairs.candidate_at_floor.push_back(false);
  }
  return pairs;
}

} // namespace refbench::model
