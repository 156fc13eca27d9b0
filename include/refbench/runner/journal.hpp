#pragma once
// The journal: one JSON object per line, each written with a single write()
// as it is taken, so a killed run loses at most the invocation in flight
// (README: Output files). Line types: "header", "sample", "stop", and "cell" for a cell
// added during the run (the automatic A/A control).

#include <refbench/runner/record.hpp>
#include <refbench/util/fd.hpp>

#include <cstdint>
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
  // ("out of disk space" for a full disk or a file-size limit), after cutting
  // off what part of the line was written: the journal keeps whole lines.
  void append(const nlohmann::json& line);
  // Forces written lines to stable storage.
  void sync();

private:
  std::string m_path;
  util::Fd m_fd;
  std::uint64_t m_size = 0; // bytes of whole lines written
};

// JSON forms shared by the journal and results.json.
nlohmann::json to_json(const Sample& sample, const std::vector<CellRecord>& cells);
nlohmann::json to_json(const CellRecord& cell);
nlohmann::json to_json(const CellMeta& meta);
// Names `cell` in a journal line about it: "cell" and, in a run of several
// candidates (README: More candidates), "candidate" — together they tell
// the cells apart.
void name_cell(nlohmann::json& line, const CellRecord& cell);
// The inverse of to_json(CellMeta); missing keys keep their defaults.
CellMeta cell_meta_from_json(const nlohmann::json& meta);

} // namespace refbench::runner
