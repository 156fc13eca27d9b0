#include <refbench/runner/payloads.hpp>
#include <refbench/util/fd.hpp>
#include <refbench/util/files.hpp>
#include <refbench/util/rng.hpp>
#include <refbench/util/sha256.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <span>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace refbench::runner {
namespace {

constexpr std::uint64_t k_seed_mix = 0x9e3779b97f4a7c15ULL;
constexpr std::string_view k_sidecar_suffix = ".sha256";

// The hash recorded next to a cached payload, or "" when there is none
// (missing, unreadable or malformed sidecar).
std::string read_sidecar(const std::string& sidecar) {
  std::ifstream in(sidecar);
  std::string digest;
  if (!(in >> digest) || digest.size() != 64 || !std::all_of(digest.begin(), digest.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
      })) {
    return {};
  }
  return digest;
}

// True when `path` is a regular file of exactly `bytes` bytes (a symlink
// is not: a link planted in --out is never read as a cached payload).
bool has_size(const std::string& path, std::uint64_t bytes) {
  struct stat status {};
  return ::lstat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode) &&
         static_cast<std::uint64_t>(status.st_size) == bytes;
}

// Writes the payload to the open `fd` chunk by chunk, hashing it into
// `digest`; returns 0, or the errno of the write that failed.
int write_content(int fd, std::uint64_t bytes, std::uint64_t seed, std::string& digest) {
  util::Rng rng(seed ^ (bytes * k_seed_mix));
  util::Sha256 hasher;
  std::vector<std::uint64_t> words(static_cast<std::size_t>((std::min(bytes, k_payload_chunk_bytes) + 7) / 8));
  std::uint64_t remaining = bytes;
  while (remaining > 0) {
    const auto chunk = static_cast<std::size_t>(std::min(remaining, k_payload_chunk_bytes));
    const std::size_t word_count = (chunk + 7) / 8;
    for (std::size_t i = 0; i < word_count; ++i) {
      std::uint64_t word = rng.next();
      if constexpr (std::endian::native == std::endian::big) {
        word = std::byteswap(word);
      }
      words[i] = word;
    }
    auto piece = std::as_bytes(std::span(words)).first(chunk);
    if (!util::write_all(fd, piece.data(), piece.size())) {
      return errno;
    }
    hasher.update(piece);
    remaining -= chunk;
  }
  digest = hasher.hex_digest();
  return 0;
}

} // namespace

std::string size_label(std::uint64_t bytes) {
  static constexpr std::array<const char*, 6> k_units{"EiB", "PiB", "TiB", "GiB", "MiB", "KiB"};
  for (std::size_t i = 0; i < k_units.size(); ++i) {
    const std::uint64_t unit = std::uint64_t{1} << (10 * (k_units.size() - i));
    if (bytes != 0 && bytes % unit == 0) {
      return std::to_string(bytes / unit) + k_units[i];
    }
  }
  return std::to_string(bytes) + "B";
}

std::string payload_path(const std::string& dir, std::uint64_t bytes, std::uint64_t seed) {
  return dir + "/payloads/" + size_label(bytes) + "-" + std::to_string(seed) + ".bin";
}

RefusedError payload_write_error(const std::string& path, int error_number) {
  if (util::out_of_space(error_number)) {
    return RefusedError("cannot write payload " + path + ": out of disk space (" + std::strerror(error_number) + ")",
                        "free space there, choose smaller [payloads] sizes or another --out");
  }
  return RefusedError("cannot write payload " + path + ": " + std::strerror(error_number),
                      "check that the --out directory is writable");
}

Payload make_payload(const std::string& dir, std::uint64_t bytes, std::uint64_t seed) {
  Payload payload{size_label(bytes), bytes, payload_path(dir, bytes, seed), {}, false};
  const std::string sidecar = payload.path + std::string(k_sidecar_suffix);

  if (has_size(payload.path, bytes)) {
    payload.sha256 = read_sidecar(sidecar);
    // the bytes, not only the sidecar: a cached file edited since is written anew
    if (!payload.sha256.empty() && util::sha256_file(payload.path) == payload.sha256) {
      payload.reused = true;
      return payload;
    }
    payload.sha256.clear();
  }

  const std::string directory = dir + "/payloads";
  if (::mkdir(directory.c_str(), 0755) != 0 && errno != EEXIST) {
    int saved = errno;
    throw RefusedError("cannot create " + directory + ": " + std::strerror(saved),
                       "check that the --out directory exists and is writable");
  }
  if (!util::is_real_directory(directory)) {
    throw RefusedError(directory + " is not a directory of its own (a symlink?): payloads are not written through it",
                       "remove it, or choose another --out directory");
  }
  // A sidecar must never outlive the file it describes, even if we die below.
  ::unlink(sidecar.c_str());

  const std::string temporary = payload.path + ".tmp-" + std::to_string(::getpid());
  util::Fd fd = util::create_fresh_file(temporary);
  if (!fd.valid()) {
    throw payload_write_error(payload.path, errno);
  }
  auto fail = [&](int error_number) {
    fd.reset();
    ::unlink(temporary.c_str());
    return payload_write_error(payload.path, error_number);
  };

  if (int error_number = write_content(fd.get(), bytes, seed, payload.sha256); error_number != 0) {
    throw fail(error_number);
  }
  // Flushing here keeps the writeback of a large payload out of the rounds.
  if (::fdatasync(fd.get()) != 0) {
    throw fail(errno);
  }
  if (::close(fd.release()) != 0) {
    throw fail(errno);
  }
  if (::rename(temporary.c_str(), payload.path.c_str()) != 0) {
    throw fail(errno);
  }
  // sha256sum format, so `sha256sum -c` can check the cache by hand.
  std::string filename = payload.path.substr(payload.path.rfind('/') + 1);
  if (!util::write_file_atomically(sidecar, payload.sha256 + "  " + filename + "\n")) {
    throw payload_write_error(sidecar, errno);
  }
  return payload;
}

} // namespace refbench::runner
