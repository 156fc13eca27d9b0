#include <doctest/doctest.h>

#include <refbench/github/http.hpp>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

using namespace refbench::github;

namespace {

constexpr const char* k_debian = "/etc/ssl/certs/ca-certificates.crt";
constexpr const char* k_rhel = "/etc/pki/tls/certs/ca-bundle.crt";
constexpr const char* k_rhel_extracted = "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem";
constexpr const char* k_opensuse = "/etc/ssl/ca-bundle.pem";
constexpr const char* k_alpine = "/etc/ssl/cert.pem";

// A fake environment and file system for find_ca.
struct Machine {
  std::map<std::string, std::string> env;
  std::set<std::string> files;

  std::function<const char*(const char*)> getenv() const {
    return [this](const char* name) -> const char* {
      auto it = env.find(name);
      return it == env.end() ? nullptr : it->second.c_str();
    };
  }
  std::function<bool(const std::string&)> exists() const {
    return [this](const std::string& path) { return files.contains(path); };
  }
  std::optional<CaSource> find(const std::optional<std::string>& cacert = std::nullopt) const {
    return find_ca(cacert, getenv(), exists());
  }
};

void check_source(const std::optional<CaSource>& ca, bool directory, const std::string& path,
                  const std::string& origin) {
  REQUIRE(ca.has_value());
  CHECK(ca->directory == directory);
  CHECK(ca->path == path);
  CHECK(ca->origin == origin);
}

} // namespace

TEST_CASE("github::find_ca") {
  Machine machine;
  machine.files = {k_debian, k_rhel, k_rhel_extracted, k_opensuse, k_alpine};

  SUBCASE("--cacert wins over everything") {
    machine.env = {{"SSL_CERT_FILE", "/opt/env.pem"}, {"SSL_CERT_DIR", "/opt/certs"}};
    check_source(machine.find("/home/me/corp-ca.pem"), false, "/home/me/corp-ca.pem", "--cacert");
  }
  SUBCASE("SSL_CERT_FILE wins over SSL_CERT_DIR and the bundles") {
    machine.env = {{"SSL_CERT_FILE", "/opt/env.pem"}, {"SSL_CERT_DIR", "/opt/certs"}};
    check_source(machine.find(), false, "/opt/env.pem", "SSL_CERT_FILE");
  }
  SUBCASE("SSL_CERT_DIR is a directory and wins over the bundles") {
    machine.env = {{"SSL_CERT_DIR", "/opt/certs"}};
    check_source(machine.find(), true, "/opt/certs", "SSL_CERT_DIR");
  }
  SUBCASE("empty variables are ignored") {
    machine.env = {{"SSL_CERT_FILE", ""}, {"SSL_CERT_DIR", ""}};
    check_source(machine.find(), false, k_debian, "system bundle");
  }
  SUBCASE("the Debian/Ubuntu bundle comes first") { check_source(machine.find(), false, k_debian, "system bundle"); }
  SUBCASE("only the RHEL/Fedora bundle") {
    machine.files = {k_rhel};
    check_source(machine.find(), false, k_rhel, "system bundle");
  }
  SUBCASE("RHEL's bundle before its extracted copy") {
    machine.files = {k_rhel_extracted, k_rhel, k_alpine};
    check_source(machine.find(), false, k_rhel, "system bundle");
  }
  SUBCASE("only the extracted RHEL bundle") {
    machine.files = {k_rhel_extracted, k_alpine};
    check_source(machine.find(), false, k_rhel_extracted, "system bundle");
  }
  SUBCASE("only the openSUSE bundle") {
    machine.files = {k_opensuse, k_alpine};
    check_source(machine.find(), false, k_opensuse, "system bundle");
  }
  SUBCASE("only /etc/ssl/cert.pem (Alpine, macOS)") {
    machine.files = {k_alpine};
    check_source(machine.find(), false, k_alpine, "system bundle");
  }
  SUBCASE("no bundle but the hashed directory /etc/ssl/certs") {
    machine.files = {"/etc/ssl/certs"};
    check_source(machine.find(), true, "/etc/ssl/certs", "system directory");
  }
  SUBCASE("nothing found") {
    machine.files = {};
    CHECK_FALSE(machine.find().has_value());
  }
  SUBCASE("the variables are read by name") {
    std::vector<std::string> asked;
    machine.files = {};
    auto ca = find_ca(
        std::nullopt,
        [&](const char* name) -> const char* {
          asked.emplace_back(name);
          return nullptr;
        },
        machine.exists());
    CHECK_FALSE(ca.has_value());
    CHECK(asked == std::vector<std::string>{"SSL_CERT_FILE", "SSL_CERT_DIR"});
  }
}

TEST_CASE("github::describe_ca") {
  CHECK(describe_ca(CaSource{false, k_debian, "system bundle"}) ==
        "CA file /etc/ssl/certs/ca-certificates.crt (system bundle)");
  CHECK(describe_ca(CaSource{true, "/opt/certs", "SSL_CERT_DIR"}) == "CA directory /opt/certs (SSL_CERT_DIR)");
  CHECK(describe_ca(CaSource{false, "corp.pem", "--cacert"}) == "CA file corp.pem (--cacert)");
  CHECK(describe_ca(std::nullopt) == "libcurl's default CA bundle");
}

TEST_CASE("github::HttpResponse::header") {
  HttpResponse response{200, {{"link", "<https://x/2>; rel=\"next\""}, {"retry-after", "3"}}, "[]"};
  CHECK(response.header("retry-after") == "3");
  CHECK(response.header("link") == "<https://x/2>; rel=\"next\"");
  CHECK(response.header("x-ratelimit-reset") == "");
}
