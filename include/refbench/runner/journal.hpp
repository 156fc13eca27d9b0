#pragma once
// The journal: one JSON object per line, each written with a single write()
// as it is taken, so a killed run loses at most the invocation in flight
// (SPEC §5). Line types: "header", "sample", "stop", and "cell" for a cell
// added during the run (the automatic A/A control).

#include <refbench/runner/record.hpp>
#include <refbench/util/fd.hpp>

#include <nlohmann/json.hpp>
#include <string>

namespace refbench::runner {

class Journal {
public:
  // A journal that records nothing (for tests that do not need one).
  Journal() = default;
  // Creates (truncates) `path`; throws RefusedError when it cannot.
  explicit Journal(const std::string& path);

  // Appends `line` as one line; throws MeasurementError when the write fails
  // (e.g. the disk is full).
  void append(const nlohmann::json& line);
  // Forces written lines to stable storage.
  void sync();

private:
  std::string m_path;
  util::Fd m_fd;
};

// JSON forms shared by the journal and results.json.
nlohmann::json to_json(const Sample& sample, const std::vector<CellRecord>& cells);
nlohmann::json to_json(const CellRecord& cell);
nlohmann::json to_json(const CellMeta& meta);
// The inverse of to_json(CellMeta); missing keys keep their defaults.
CellMeta cell_meta_from_json(const nlohmann::json& meta);

} // namespace refbench::runner
