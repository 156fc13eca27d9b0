#pragma once
// SHA-256 through OpenSSL's EVP interface: payload hashes (docs/manual/commands.md#refbench-run) and
// output comparison (docs/manual/commands.md#refbench-run).

#include <cstddef>
#include <expected>
#include <memory>
#include <span>
#include <string>
#include <string_view>

struct evp_md_ctx_st; // OpenSSL's EVP_MD_CTX, kept out of this header.

namespace refbench::util {

// An incremental SHA-256 hasher; feed it with `update`, read it with
// `hex_digest` as often as needed. Move-only.
class Sha256 {
public:
  // Starts an empty hash; throws std::bad_alloc / std::runtime_error when
  // OpenSSL cannot provide SHA-256.
  Sha256();

  // Appends `bytes` to the hashed message.
  void update(std::span<const std::byte> bytes);
  // Appends the bytes of `text` to the hashed message.
  void update(std::string_view text);

  // The digest of everything appended so far, as 64 lowercase hex digits;
  // does not end the hash, so more `update`s may follow.
  std::string hex_digest() const;

private:
  struct ContextDeleter {
    void operator()(evp_md_ctx_st* context) const;
  };
  std::unique_ptr<evp_md_ctx_st, ContextDeleter> m_context;
};

// The SHA-256 of `text` as 64 lowercase hex digits.
std::string sha256_hex(std::string_view text);

// The SHA-256 of the regular file at `path` (not a symlink, a pipe or a
// device), read in 1 MiB chunks; on failure a message naming `path` and the
// reason.
std::expected<std::string, std::string> sha256_file(const std::string& path);

} // namespace refbench::util
