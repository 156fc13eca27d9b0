#include <refbench/github/curl_library.hpp>
#include <refbench/github/http.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <curl/curl.h>
#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>

namespace refbench::github {
namespace {

// Bundle files of the common runner images, most common first.
constexpr std::array k_bundle_files{
    "/etc/ssl/certs/ca-certificates.crt",                // Debian, Ubuntu, Alpine, Arch
    "/etc/pki/tls/certs/ca-bundle.crt",                  // RHEL, Fedora, CentOS
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", // RHEL 7+ extracted
    "/etc/ssl/ca-bundle.pem",                            // openSUSE
    "/etc/ssl/cert.pem",                                 // Alpine, macOS
};

// Where an answer's body goes: at most k_max_answer_bytes of it.
struct BodySink {
  std::string& body;
  bool too_large = false;
};

// Appends to the sink's body; past k_max_answer_bytes, stops the transfer (a
// short count is libcurl's CURLE_WRITE_ERROR) and says why.
std::size_t write_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto& sink = *static_cast<BodySink*>(user);
  if (sink.body.size() + size * count > k_max_answer_bytes) {
    sink.too_large = true;
    return 0;
  }
  sink.body.append(data, size * count);
  return size * count;
}

// Collects header lines; a status line starts a new header block (after a
// 100 Continue, only the final response's headers remain).
std::size_t write_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto& headers = *static_cast<std::map<std::string, std::string>*>(user);
  std::string_view line(data, size * count);
  if (line.starts_with("HTTP/")) {
    headers.clear();
  } else if (auto colon = line.find(':'); colon != std::string_view::npos) {
    headers[util::ascii_lower(std::string(line.substr(0, colon)))] = std::string(util::trim(line.substr(colon + 1)));
  }
  return size * count;
}

bool is_tls_failure(CURLcode code) {
  switch (code) {
  case CURLE_PEER_FAILED_VERIFICATION:
  case CURLE_SSL_CACERT_BADFILE:
  case CURLE_SSL_CERTPROBLEM:
  case CURLE_SSL_CIPHER:
  case CURLE_SSL_ISSUER_ERROR:
  case CURLE_SSL_CRL_BADFILE:
  case CURLE_SSL_INVALIDCERTSTATUS:
  case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    return true;
  default:
    return false;
  }
}

} // namespace

std::string HttpResponse::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

std::optional<CaSource> find_ca(const std::optional<std::string>& cacert,
                                const std::function<const char*(const char*)>& getenv,
                                const std::function<bool(const std::string&)>& exists) {
  if (cacert) {
    return CaSource{false, *cacert, "--cacert"};
  }
  if (const char* file = getenv("SSL_CERT_FILE"); file && *file) {
    return CaSource{false, file, "SSL_CERT_FILE"};
  }
  if (const char* dir = getenv("SSL_CERT_DIR"); dir && *dir) {
    return CaSource{true, dir, "SSL_CERT_DIR"};
  }
  for (const char* bundle : k_bundle_files) {
    if (exists(bundle)) {
      return CaSource{false, bundle, "system bundle"};
    }
  }
  if (exists("/etc/ssl/certs")) {
    return CaSource{true, "/etc/ssl/certs", "system directory"};
  }
  return std::nullopt;
}

std::optional<CaSource> find_ca(const std::optional<std::string>& cacert) {
  return find_ca(
      cacert, [](const char* name) { return std::getenv(name); },
      [](const std::string& path) {
        std::error_code ignored;
        return std::filesystem::exists(path, ignored);
      });
}

std::string describe_ca(const std::optional<CaSource>& ca) {
  if (!ca) {
    return "libcurl's default CA bundle";
  }
  return fmt::format("CA {} {} ({})", ca->directory ? "directory" : "file", ca->path, ca->origin);
}

CurlTransport::CurlTransport(std::optional<CaSource> ca) : m_ca(std::move(ca)) {
  m_handle = curl_library().easy_init();
  if (m_handle == nullptr) {
    throw std::runtime_error("libcurl could not create a handle");
  }
}

CurlTransport::~CurlTransport() { curl_library().easy_cleanup(static_cast<CURL*>(m_handle)); }

HttpOutcome CurlTransport::perform(const HttpRequest& request) {
  const CurlLibrary& lib = curl_library();
  CURL* curl = static_cast<CURL*>(m_handle);
  lib.easy_reset(curl); // keeps the connection cache: the next request reuses the connection
  HttpResponse response;
  std::array<char, CURL_ERROR_SIZE> error{};
  curl_slist* headers = nullptr;
  for (const auto& line : request.headers) {
    headers = lib.slist_append(headers, line.c_str());
  }
  lib.easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  lib.easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  lib.easy_setopt(curl, CURLOPT_ERRORBUFFER, error.data());
  lib.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  const auto timeout_ms = static_cast<long>(std::max(1.0, request.timeout_seconds * 1000));
  lib.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, std::min(timeout_ms, 20000L));
  lib.easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
  lib.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "https,http");
  lib.easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
  lib.easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_body);
  BodySink sink{response.body};
  lib.easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  lib.easy_setopt(curl, CURLOPT_HEADERFUNCTION, write_header);
  lib.easy_setopt(curl, CURLOPT_HEADERDATA, &response.headers);
  if (m_ca) {
    lib.easy_setopt(curl, m_ca->directory ? CURLOPT_CAPATH : CURLOPT_CAINFO, m_ca->path.c_str());
    if (m_ca->directory) {
      lib.easy_setopt(curl, CURLOPT_CAINFO, nullptr); // only the directory
    }
  }
  if (request.method == "POST") {
    // on a reused connection that turns out dead, libcurl silently sends the
    // request again; a POST that did reach GitHub would then create a second
    // comment. A fresh connection lets the failure reach Api, which looks
    // before resending.
    lib.easy_setopt(curl, CURLOPT_FRESH_CONNECT, 1L);
  }
  if (request.method != "GET") {
    lib.easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    lib.easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.c_str());
    lib.easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }
  const CURLcode code = lib.easy_perform(curl);
  lib.slist_free_all(headers);
  if (sink.too_large) {
    return std::unexpected(TransportError{TransportError::Kind::too_large,
                                          fmt::format("the answer is longer than {} MiB", k_max_answer_bytes >> 20)});
  }
  if (code != CURLE_OK) {
    std::string what = error[0] != '\0' ? std::string(error.data()) : std::string(lib.easy_strerror(code));
    if (is_tls_failure(code)) {
      return std::unexpected(TransportError{TransportError::Kind::tls,
                                            fmt::format("TLS failure: {}; trusted {}", what, describe_ca(m_ca))});
    }
    return std::unexpected(TransportError{TransportError::Kind::network, what});
  }
  lib.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

} // namespace refbench::github
