#include <doctest/doctest.h>

#include <refbench/formats/journal.hpp>
#include <refbench/util/error.hpp>

#include "scratch_dir.hpp"

#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/resource.h>

using namespace refbench;
using namespace refbench::runner;
using namespace refbench::model;

namespace {

// Lowers RLIMIT_FSIZE to `bytes` with SIGXFSZ ignored, as `ulimit -f` does
// to refbench; both are restored at the end of the scope.
class FileSizeLimit {
public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &m_saved);
    m_old_handler = ::signal(SIGXFSZ, SIG_IGN);
    rlimit limit{bytes, m_saved.rlim_max};
    ::setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &m_saved);
    ::signal(SIGXFSZ, m_old_handler);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

private:
  rlimit m_saved{};
  sighandler_t m_old_handler{};
};

} // namespace

TEST_CASE("formats::Journal: a write cut short by a file-size limit leaves whole lines and says out of disk space") {
  test::ScratchDir dir;
  const std::string path = dir / "journal.jsonl";
  std::string message;
  {
    formats::Journal journal(path);
    journal.append({{"type", "header"}, {"seed", 1}});
    FileSizeLimit limit(100);
    try {
      journal.append({{"type", "sample"}, {"note", std::string(200, 'x')}});
    } catch (const MeasurementError& error) {
      message = std::string(error.what()) + " — " + error.hint();
    }
  }
  CHECK(message.find("File too large") != std::string::npos);
  CHECK(message.find("out of disk space") != std::string::npos);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == "{\"seed\":1,\"type\":\"header\"}\n");
}
