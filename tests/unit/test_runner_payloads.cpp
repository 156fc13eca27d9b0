#include <doctest/doctest.h>

#include <refbench/util/files.hpp>

#include "scratch_dir.hpp"

#include <refbench/runner/payloads.hpp>
#include <refbench/util/quantity.hpp>
#include <refbench/util/rng.hpp>
#include <refbench/util/sha256.hpp>

#include <atomic>
#include <bit>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace refbench;
using namespace refbench::runner;
using namespace refbench::model;

namespace {

using refbench::test::ScratchDir;

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The documented content, built the plain way (one buffer, no chunks).
std::string expected_content(std::uint64_t bytes, std::uint64_t seed) {
  util::Rng rng(seed ^ (bytes * 0x9e3779b97f4a7c15ULL));
  std::string content;
  content.reserve(bytes + 8);
  while (content.size() < bytes) {
    std::uint64_t word = rng.next();
    for (int i = 0; i < 8; ++i) {
      content += static_cast<char>((word >> (8 * i)) & 0xff);
    }
  }
  content.resize(bytes);
  return content;
}

struct FileIdentity {
  ino_t inode;
  std::int64_t mtime_ns;
};

FileIdentity identity(const std::string& path) {
  struct stat status {};
  REQUIRE(::stat(path.c_str(), &status) == 0);
  return {status.st_ino, std::int64_t{status.st_mtim.tv_sec} * 1'000'000'000 + status.st_mtim.tv_nsec};
}

// Peak resident set of this process in KiB (VmHWM).
std::uint64_t peak_rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("VmHWM:")) {
      return std::stoull(line.substr(6));
    }
  }
  return 0;
}

} // namespace

TEST_CASE("runner::payload size_label") {
  CHECK(size_label(0) == "0B");
  CHECK(size_label(1) == "1B");
  CHECK(size_label(512) == "512B");
  CHECK(size_label(1000) == "1000B");
  CHECK(size_label(1024) == "1KiB");
  CHECK(size_label(1536) == "1536B");
  CHECK(size_label(3072) == "3KiB");
  CHECK(size_label(std::uint64_t{1} << 20) == "1MiB");
  CHECK(size_label(std::uint64_t{32} << 20) == "32MiB");
  CHECK(size_label((std::uint64_t{1} << 20) + 1024) == "1025KiB");
  CHECK(size_label(std::uint64_t{1} << 30) == "1GiB");
  CHECK(size_label(std::uint64_t{1} << 40) == "1TiB");
  CHECK(size_label(std::uint64_t{8} << 60) == "8EiB");
  CHECK(size_label(UINT64_MAX) == "18446744073709551615B");
  SUBCASE("labels read back as the same size") {
    for (std::uint64_t bytes : {std::uint64_t{1}, std::uint64_t{1536}, std::uint64_t{3072}, std::uint64_t{32} << 20,
                                std::uint64_t{1} << 30}) {
      CHECK(util::parse_size(size_label(bytes)).value() == bytes);
    }
  }
}

TEST_CASE("runner::payload content") {
  ScratchDir first_dir;
  ScratchDir second_dir;
  SUBCASE("path and label") {
    Payload payload = make_payload(first_dir.str(), 1024, 42);
    CHECK(payload.label == "1KiB");
    CHECK(payload.bytes == 1024);
    CHECK(payload.path == first_dir.str() + "/payloads/1KiB-42.bin");
    CHECK_FALSE(payload.reused);
  }
  SUBCASE("the documented generator, little-endian words, last one cut") {
    for (std::uint64_t bytes : {std::uint64_t{5}, std::uint64_t{64}, std::uint64_t{1000}}) {
      Payload payload = make_payload(first_dir.str(), bytes, 7);
      CHECK(read_bytes(payload.path) == expected_content(bytes, 7));
    }
  }
  SUBCASE("same seed and size: same bytes and hash; another seed: different") {
    Payload a = make_payload(first_dir.str(), 4096, 1);
    Payload b = make_payload(second_dir.str(), 4096, 1);
    Payload c = make_payload(second_dir.str(), 4096, 2);
    CHECK(read_bytes(a.path) == read_bytes(b.path));
    CHECK(a.sha256 == b.sha256);
    CHECK(read_bytes(a.path) != read_bytes(c.path));
    CHECK(a.sha256 != c.sha256);
    CHECK(c.path == second_dir.str() + "/payloads/4KiB-2.bin");
  }
  SUBCASE("exact sizes, hashes that match the files, sidecars") {
    for (std::uint64_t bytes : {std::uint64_t{1}, std::uint64_t{1023}, k_payload_chunk_bytes + 1}) {
      CAPTURE(bytes);
      Payload payload = make_payload(first_dir.str(), bytes, 99);
      CHECK(std::filesystem::file_size(payload.path) == bytes);
      CHECK(payload.sha256 == util::sha256_file(payload.path).value());
      CHECK(read_bytes(payload.path + ".sha256") ==
            payload.sha256 + "  " + std::filesystem::path(payload.path).filename().string() + "\n");
    }
  }
  SUBCASE("chunks join without a seam") {
    const std::uint64_t bytes = k_payload_chunk_bytes + 13;
    Payload payload = make_payload(first_dir.str(), bytes, 5);
    std::string expected = expected_content(bytes, 5);
    CHECK(read_bytes(payload.path) == expected);
    CHECK(payload.sha256 == util::sha256_hex(expected));
  }
  SUBCASE("no temporary file is left behind") {
    make_payload(first_dir.str(), 100, 3);
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(first_dir.str() + "/payloads")) {
      CHECK(entry.path().string().find(".tmp") == std::string::npos);
      ++files;
    }
    CHECK(files == 2); // the payload and its sidecar
  }
}

TEST_CASE("runner::payload cache") {
  ScratchDir dir;
  SUBCASE("a second call reuses the file untouched") {
    Payload first = make_payload(dir.str(), 10'000, 8);
    FileIdentity before = identity(first.path);
    Payload second = make_payload(dir.str(), 10'000, 8);
    FileIdentity after = identity(second.path);
    CHECK(second.reused);
    CHECK(second.path == first.path);
    CHECK(second.sha256 == first.sha256);
    CHECK(after.inode == before.inode);
    CHECK(after.mtime_ns == before.mtime_ns);
  }
  SUBCASE("a stale file of the wrong size is rewritten, sidecar too") {
    Payload fresh = make_payload(dir.str(), 10'000, 8);
    {
      std::ofstream stale(fresh.path, std::ios::binary | std::ios::trunc);
      stale << "stale";
    }
    Payload rewritten = make_payload(dir.str(), 10'000, 8);
    CHECK_FALSE(rewritten.reused);
    CHECK(std::filesystem::file_size(rewritten.path) == 10'000);
    CHECK(rewritten.sha256 == fresh.sha256);
    CHECK(util::sha256_file(rewritten.path).value() == fresh.sha256);
  }
  SUBCASE("a file without its sidecar is rewritten") {
    Payload fresh = make_payload(dir.str(), 2048, 8);
    std::filesystem::remove(fresh.path + ".sha256");
    Payload rewritten = make_payload(dir.str(), 2048, 8);
    CHECK_FALSE(rewritten.reused);
    CHECK(rewritten.sha256 == fresh.sha256);
    CHECK(std::filesystem::exists(rewritten.path + ".sha256"));
  }
  SUBCASE("a planted link of the right size is replaced, never read or written through") {
    Payload fresh = make_payload(dir.str(), 2048, 8);
    const std::string victim = dir.str() + "/victim";
    std::filesystem::rename(fresh.path, victim);
    { std::ofstream(victim, std::ios::binary | std::ios::trunc) << std::string(2048, 'x'); }
    std::filesystem::create_symlink(victim, fresh.path);
    Payload rewritten = make_payload(dir.str(), 2048, 8);
    CHECK_FALSE(rewritten.reused);
    CHECK_FALSE(std::filesystem::is_symlink(rewritten.path));
    CHECK(util::sha256_file(rewritten.path).value() == fresh.sha256);
    CHECK(util::read_file(victim).value() == std::string(2048, 'x'));
  }
  SUBCASE("bytes changed under an unchanged sidecar are rewritten, and the fresh hash recorded") {
    Payload fresh = make_payload(dir.str(), 4096, 8);
    {
      std::fstream edit(fresh.path, std::ios::binary | std::ios::in | std::ios::out);
      edit.seekp(100);
      edit.put('\x42'); // same size, same sidecar, other bytes
    }
    REQUIRE(util::sha256_file(fresh.path).value() != fresh.sha256);
    Payload rewritten = make_payload(dir.str(), 4096, 8);
    CHECK_FALSE(rewritten.reused);
    CHECK(rewritten.sha256 == fresh.sha256);
    CHECK(util::sha256_file(rewritten.path).value() == fresh.sha256);
  }
  SUBCASE("a malformed sidecar is not trusted") {
    Payload fresh = make_payload(dir.str(), 2048, 8);
    {
      std::ofstream sidecar(fresh.path + ".sha256", std::ios::trunc);
      sidecar << "not-a-hash\n";
    }
    Payload rewritten = make_payload(dir.str(), 2048, 8);
    CHECK_FALSE(rewritten.reused);
    CHECK(rewritten.sha256 == fresh.sha256);
  }
}

TEST_CASE("runner::payload errors") {
  SUBCASE("a missing out directory is refused") {
    ScratchDir dir;
    const std::string missing = dir.str() + "/does-not-exist";
    try {
      make_payload(missing, 16, 1);
      FAIL("expected RefusedError");
    } catch (const RefusedError& error) {
      CHECK(std::string(error.what()).find(missing + "/payloads") != std::string::npos);
      CHECK(error.code() == ExitCode::refused);
    }
  }
  SUBCASE("a failed write names the file and leaves nothing behind") {
    // RLIMIT_FSIZE with SIGXFSZ ignored makes write() fail with EFBIG after
    // 1 MiB: the same path as a full disk.
    ScratchDir dir;
    struct rlimit saved_limit {};
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved_limit) == 0);
    auto saved_handler = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = saved_limit;
    small.rlim_cur = 1 << 20;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    std::string what;
    try {
      make_payload(dir.str(), 2 << 20, 1);
    } catch (const RefusedError& error) {
      what = error.what();
    }
    ::setrlimit(RLIMIT_FSIZE, &saved_limit);
    std::signal(SIGXFSZ, saved_handler);
    // a file-size limit is a full disk for this run: named so, as ENOSPC is
    CHECK(what == "cannot write payload " + dir.str() + "/payloads/2MiB-1.bin: out of disk space (" +
                      std::strerror(EFBIG) + ")");
    CHECK(std::filesystem::is_empty(dir.str() + "/payloads"));
  }
  SUBCASE("ENOSPC says out of disk space, with a hint") {
    RefusedError error = payload_write_error("/out/payloads/1GiB-1.bin", ENOSPC);
    CHECK(std::string(error.what()).starts_with("cannot write payload /out/payloads/1GiB-1.bin: out of disk space"));
    CHECK(error.hint().find("free space") != std::string::npos);
    CHECK(std::string(payload_write_error("/x", EDQUOT).what()).find("out of disk space") != std::string::npos);
    CHECK(std::string(payload_write_error("/x", EACCES).what()).find("out of disk space") == std::string::npos);
  }
}

TEST_CASE("runner::payload memory stays bounded") {
  // Reset the peak to the current RSS (Linux ≥ 4.0), so the assertion sees
  // this payload and not whatever ran before.
  bool reset = static_cast<bool>(std::ofstream("/proc/self/clear_refs") << "5");
  if (!reset) {
    WARN_MESSAGE(false, "cannot reset VmHWM; the bound below may be loose");
  }
  ScratchDir dir;
  const std::uint64_t before = peak_rss_kib();
  REQUIRE(before > 0);
  Payload payload = make_payload(dir.str(), std::uint64_t{64} << 20, 11);
  const std::uint64_t after = peak_rss_kib();
  CHECK(std::filesystem::file_size(payload.path) == std::uint64_t{64} << 20);
  CAPTURE(before);
  CAPTURE(after);
  CHECK(after - before < 24 * 1024); // a 64 MiB buffer would add ≥ 64 MiB
}
