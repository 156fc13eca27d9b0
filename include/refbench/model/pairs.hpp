#pragma once
// The complete pairs of a cell (same round, both arms succeeded) that
// analysis works on, and a new cell's candidate readings.

#include <refbench/model/metrics.hpp>
#include <refbench/model/record.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace refbench::model {

struct PairedValues {
  std::vector<int> rounds;
  std::vector<double> baseline;
  std::vector<double> candidate;
  // Per pair: whether each reading sits at its measurement floor (for rss:
  // within k_rss_censor_margin of the launcher's peak RSS at the time).
  std::vector<bool> baseline_at_floor;
  std::vector<bool> candidate_at_floor;
};

// The samples of each cell of a record, in the record's order, so that
// the functions below read one cell's samples without walking the whole
// run: a suite of n benchmarks is n cells, and walking every sample for
// each of them took time in the square of n.
class SampleIndex {
public:
  explicit SampleIndex(const RunRecord& record);
  // The samples of `cell`; none for a cell the record has no sample of.
  const std::vector<const Sample*>& of(std::size_t cell) const;

private:
  std::vector<std::vector<const Sample*>> m_by_cell;
};

// The complete pairs of `cell` in `record` for `metric`, in round order;
// warm-up samples and rounds with a failed or missing arm are left out.
// `index`, when given, is `record`'s.
PairedValues complete_pairs(const RunRecord& record, std::size_t cell, Metric metric,
                            const SampleIndex* index = nullptr);

// A new cell's readings (docs/manual/config.md#new-and-removed-cells): every usable
// measured candidate sample of `cell`, in the candidate fields of the
// result (its baseline fields stay empty); `custom_metric` "" for `metric`.
PairedValues candidate_values(const RunRecord& record, std::size_t cell, Metric metric,
                              const std::string& custom_metric = "", const SampleIndex* index = nullptr);

// The complete pairs of `cell` for the custom metric named `custom_metric`
// (docs/manual/config.md#custom-metrics-windows-and-requirements): rounds where both arms reported it. No reading is at
// a floor.
PairedValues complete_pairs(const RunRecord& record, std::size_t cell, const std::string& custom_metric,
                            const SampleIndex* index = nullptr);

} // namespace refbench::model
