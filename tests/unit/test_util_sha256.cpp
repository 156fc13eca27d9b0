#include <doctest/doctest.h>

#include <refbench/util/sha256.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <unistd.h>

using namespace refbench::util;

namespace {

// Known answers from FIPS 180-2 appendix B (also NIST's SHA-256 examples).
constexpr const char* k_empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
constexpr const char* k_abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
constexpr const char* k_two_blocks = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
constexpr const char* k_million_a = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";

std::filesystem::path scratch_file(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("refbench-unit-sha256-" + std::to_string(::getpid()) + "-" + name);
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

} // namespace

TEST_CASE("util::sha256_hex known answers") {
  CHECK(sha256_hex("") == k_empty);
  CHECK(sha256_hex("abc") == k_abc);
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") == k_two_blocks);
  CHECK(sha256_hex(std::string(1'000'000, 'a')) == k_million_a);
}

TEST_CASE("util::sha256 incremental hasher") {
  SUBCASE("every split of a two-block message equals the one-shot hash") {
    const std::string message = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    for (std::size_t split = 0; split <= message.size(); ++split) {
      Sha256 hasher;
      hasher.update(std::string_view(message).substr(0, split));
      hasher.update(std::string_view(message).substr(split));
      CHECK(hasher.hex_digest() == k_two_blocks);
    }
  }
  SUBCASE("a million 'a' fed in uneven byte spans") {
    const std::string chunk(999, 'a');
    Sha256 hasher;
    std::size_t fed = 0;
    while (fed < 1'000'000) {
      std::size_t n = std::min(chunk.size(), 1'000'000 - fed);
      hasher.update(std::as_bytes(std::span(chunk.data(), n)));
      fed += n;
    }
    CHECK(hasher.hex_digest() == k_million_a);
  }
  SUBCASE("hex_digest does not end the hash") {
    Sha256 hasher;
    CHECK(hasher.hex_digest() == k_empty);
    hasher.update("ab");
    hasher.update("c");
    CHECK(hasher.hex_digest() == k_abc);
    CHECK(hasher.hex_digest() == k_abc);
  }
  SUBCASE("a moved hasher keeps its state") {
    Sha256 first;
    first.update("ab");
    Sha256 second = std::move(first);
    second.update("c");
    CHECK(second.hex_digest() == k_abc);
  }
}

TEST_CASE("util::sha256_file") {
  SUBCASE("small and empty files") {
    auto path = scratch_file("abc");
    write_text(path, "abc");
    CHECK(sha256_file(path.string()).value() == k_abc);
    write_text(path, "");
    CHECK(sha256_file(path.string()).value() == k_empty);
    std::filesystem::remove(path);
  }
  SUBCASE("a file of several 1 MiB chunks and a partial one") {
    auto path = scratch_file("big");
    std::string text((3u << 20) + 5, 'x');
    for (std::size_t i = 0; i < text.size(); i += 4093) {
      text[i] = static_cast<char>('a' + i % 26);
    }
    write_text(path, text);
    CHECK(sha256_file(path.string()).value() == sha256_hex(text));
    std::filesystem::remove(path);
  }
  SUBCASE("a missing file names itself and the reason") {
    auto path = scratch_file("missing").string();
    auto result = sha256_file(path);
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error().find(path) != std::string::npos);
    CHECK(result.error().find("No such file or directory") != std::string::npos);
  }
  SUBCASE("a directory cannot be read") {
    auto result = sha256_file(std::filesystem::temp_directory_path().string());
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error().find("not a regular file") != std::string::npos);
  }
  SUBCASE("never through a link, never a device") {
    const auto dir = std::filesystem::temp_directory_path() / ("refbench-sha-link-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::filesystem::create_symlink("/dev/zero", dir / "output");
    auto linked = sha256_file((dir / "output").string());
    REQUIRE_FALSE(linked.has_value());
    CHECK(linked.error().find("symbolic link") != std::string::npos);
    auto device = sha256_file("/dev/zero");
    REQUIRE_FALSE(device.has_value());
    CHECK(device.error().find("not a regular file") != std::string::npos);
    std::filesystem::remove_all(dir);
  }
}
