#pragma once
// The journal's file: one JSON object per line, each written with a single
// write() as it is taken, so a killed run loses at most the invocation in
// flight (docs/manual/output-files.md). What the lines say is formats/records.hpp's.

#include <refbench/util/fd.hpp>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace refbench::formats {

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

} // namespace refbench::formats
