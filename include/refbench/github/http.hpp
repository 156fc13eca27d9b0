#pragma once
// HTTPS requests for the GitHub REST API: a `Transport` interface (so the
// retry and comment logic are tested without a network), its libcurl +
// OpenSSL implementation, and where the CA certificates come from.

#include <expected>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace refbench::github {

// One request; `headers` are full "Name: value" lines; the whole exchange
// (connecting included) ends after `timeout_seconds`.
struct HttpRequest {
  std::string method;
  std::string url;
  std::vector<std::string> headers;
  std::string body;
  double timeout_seconds = 120;
};

// The largest answer a request reads (32 MiB: a page of 100 comments of
// GitHub's 65 536 characters is under 26 MiB); a longer one is refused.
inline constexpr std::size_t k_max_answer_bytes = std::size_t{32} << 20;

// A response of any status; header names are lower case, a repeated
// header keeps its last value.
struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;
  std::string body;

  // The value of header `name` (lower case) or "" when absent.
  std::string header(const std::string& name) const;
};

// A request that got no HTTP response. `tls` failures (certificates,
// handshake) and `too_large` answers (past k_max_answer_bytes) are not
// worth retrying; `network` ones are.
struct TransportError {
  enum class Kind { network, tls, too_large };
  Kind kind = Kind::network;
  std::string message;
};

using HttpOutcome = std::expected<HttpResponse, TransportError>;

// Sends requests; implementations must never write a header value into an
// error message (the Authorization header carries the token).
class Transport {
public:
  virtual ~Transport() = default;
  virtual HttpOutcome perform(const HttpRequest& request) = 0;
};

// Where the trusted CA certificates come from: a bundle file or a hashed
// directory, and which setting named it ("--cacert", "SSL_CERT_FILE", …).
struct CaSource {
  bool directory = false;
  std::string path;
  std::string origin;
};

// The CA source to use, in order: `cacert` (the --cacert flag), the
// SSL_CERT_FILE and SSL_CERT_DIR variables (read through `getenv`), then
// the first bundle of Debian/Ubuntu, RHEL/Fedora, openSUSE and Alpine that
// `exists`. nullopt when none is found (libcurl's built-in default is used).
std::optional<CaSource> find_ca(const std::optional<std::string>& cacert,
                                const std::function<const char*(const char*)>& getenv,
                                const std::function<bool(const std::string&)>& exists);

// find_ca over this process's environment and file system.
std::optional<CaSource> find_ca(const std::optional<std::string>& cacert);

// "CA file /etc/ssl/certs/ca-certificates.crt (system bundle)": how an
// error names `ca` (or "libcurl's default CA bundle" for nullopt).
std::string describe_ca(const std::optional<CaSource>& ca);

// A Transport over libcurl with OpenSSL, verifying peers against `ca`,
// reusing one connection across requests (keep-alive).
class CurlTransport : public Transport {
public:
  explicit CurlTransport(std::optional<CaSource> ca);
  ~CurlTransport() override;
  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;

  HttpOutcome perform(const HttpRequest& request) override;

private:
  std::optional<CaSource> m_ca;
  void* m_handle = nullptr;
};

} // namespace refbench::github
