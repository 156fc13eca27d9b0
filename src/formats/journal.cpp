#include <refbench/formats/journal.hpp>
#include <refbench/model/command_output.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/files.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace refbench::formats {
Journal::Journal(const std::string& path) : m_path(path), m_fd(util::create_fresh_file(path, O_APPEND)) {
  if (!m_fd.valid()) {
    throw RefusedError("cannot create the journal " + path + ": " + std::strerror(errno),
                       "choose a writable --out directory");
  }
}

void Journal::append(const nlohmann::json& line) {
  if (!m_fd.valid()) {
    return;
  }
  std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (!util::write_all(m_fd.get(), text.data(), text.size())) {
    const int saved = errno;
    // A write cut short (disk full, file-size limit) leaves half a line: cut it off.
    [[maybe_unused]] int ignored = ::ftruncate(m_fd.get(), static_cast<off_t>(m_size));
    if (util::out_of_space(saved)) {
      throw MeasurementError("cannot write the journal " + m_path + ": out of disk space (" + std::strerror(saved) +
                                 ")",
                             "free some space (or raise the file-size limit, ulimit -f) and rerun");
    }
    throw MeasurementError("cannot write the journal " + m_path + ": " + std::strerror(saved),
                           "check the --out directory");
  }
  m_size += text.size();
}

void Journal::sync() {
  if (m_fd.valid()) {
    ::fdatasync(m_fd.get());
  }
}

} // namespace refbench::formats
