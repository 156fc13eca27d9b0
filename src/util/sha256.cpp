#include <refbench/util/fd.hpp>
#include <refbench/util/sha256.hpp>

#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <openssl/evp.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace refbench::util {
namespace {

constexpr std::size_t k_file_chunk_bytes = std::size_t{1} << 20;

void check(int openssl_result, const char* operation) {
  if (openssl_result != 1) {
    throw std::runtime_error(std::string("OpenSSL SHA-256 failed in ") + operation);
  }
}

} // namespace

void Sha256::ContextDeleter::operator()(evp_md_ctx_st* context) const { EVP_MD_CTX_free(context); }

Sha256::Sha256() : m_context(EVP_MD_CTX_new()) {
  if (!m_context) {
    throw std::bad_alloc();
  }
  check(EVP_DigestInit_ex(m_context.get(), EVP_sha256(), nullptr), "EVP_DigestInit_ex");
}

void Sha256::update(std::span<const std::byte> bytes) {
  check(EVP_DigestUpdate(m_context.get(), bytes.data(), bytes.size()), "EVP_DigestUpdate");
}

void Sha256::update(std::string_view text) { update(std::as_bytes(std::span(text.data(), text.size()))); }

std::string Sha256::hex_digest() const {
  // Finish a copy, so this hasher can keep going.
  std::unique_ptr<evp_md_ctx_st, ContextDeleter> copy(EVP_MD_CTX_new());
  if (!copy) {
    throw std::bad_alloc();
  }
  check(EVP_MD_CTX_copy_ex(copy.get(), m_context.get()), "EVP_MD_CTX_copy_ex");
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  check(EVP_DigestFinal_ex(copy.get(), digest.data(), &length), "EVP_DigestFinal_ex");

  static constexpr char k_hex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    hex += k_hex[digest[i] >> 4];
    hex += k_hex[digest[i] & 0xf];
  }
  return hex;
}

std::string sha256_hex(std::string_view text) {
  Sha256 hasher;
  hasher.update(text);
  return hasher.hex_digest();
}

std::expected<std::string, std::string> sha256_file(const std::string& path) {
  // never through a link, never a pipe or device: a command under test may plant one
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (!fd.valid()) {
    return std::unexpected("cannot open " + path + ": " +
                           (errno == ELOOP ? std::string("it is a symbolic link") : std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return std::unexpected("cannot read " + path + ": it is not a regular file");
  }
  Sha256 hasher;
  std::vector<std::byte> buffer(k_file_chunk_bytes);
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return std::unexpected("cannot read " + path + ": " + std::strerror(errno));
    }
    if (n == 0) {
      break;
    }
    hasher.update(std::span(buffer.data(), static_cast<std::size_t>(n)));
  }
  return hasher.hex_digest();
}

} // namespace refbench::util
