#pragma once
// The GitHub REST API client: the three required headers, the token, retries
// with backoff and rate-limit waits bounded by a total wait, pagination
// links. Requests are made one at a time (mutating ones must be serial).

#include <refbench/github/http.hpp>
#include <refbench/github/url.hpp>
#include <refbench/util/error.hpp>

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace refbench::github {

// The longest one attempt may take (when the command's time leaves more).
inline constexpr double k_request_timeout_seconds = 120;

// How long to keep trying: the first backoff doubles per attempt up to
// `max_backoff_seconds`; every request of an Api, its attempts and the
// waits between them, ends within `max_wait_seconds` of the Api's start.
struct RetryPolicy {
  double max_wait_seconds = 120;
  double first_backoff_seconds = 1;
  double max_backoff_seconds = 30;
};

// Why and how long to wait before attempt `attempt` + 1.
struct RetryWait {
  double seconds = 0;
  std::string reason; // e.g. "HTTP 502", "retry-after: 1"
};

// The wait before retrying a request that ended in `outcome` at Unix time
// `now`, after `failures` (≥ 1, counting this one) 5xx answers or network
// errors in a row, or nullopt when it must not be retried: 5xx and network
// errors back off exponentially; 403/429 honour `retry-after` (at least
// 1 s), else `x-ratelimit-reset` when `x-ratelimit-remaining` is 0, else
// wait 60 s for a rate-limit message (GitHub's advice for secondary
// limits); TLS errors and other statuses are final.
std::optional<RetryWait> retry_wait(const HttpOutcome& outcome, int failures, double now, const RetryPolicy& policy);

// The `rel="next"` URL of a `Link` header value, or "" when there is none.
std::string next_link(const std::string& link_header);

// `url` without trailing slashes; "" becomes https://api.github.com.
std::string normalize_api_url(std::string url);

// A request that failed for good: `status` is the HTTP status (0 when no
// response came), `github_message` the API's "message" field. Exit code 2.
class ApiError : public UsageError {
public:
  ApiError(long status, std::string github_message, const std::string& what, std::string hint)
      : UsageError(what, std::move(hint)), m_status(status), m_github_message(std::move(github_message)) {}
  long status() const { return m_status; }
  const std::string& github_message() const { return m_github_message; }

private:
  long m_status;
  std::string m_github_message;
};

// Where the API is and how to authenticate; `token` is never printed.
struct ApiSettings {
  std::string base_url = "https://api.github.com";
  std::string token;
  RetryPolicy retry;
};

// ApiSettings from GITHUB_TOKEN and GITHUB_API_URL (read through `getenv`)
// waiting at most `max_wait_seconds` in all; throws UsageError when
// GITHUB_TOKEN is unset or empty.
ApiSettings settings_from_environment(const std::function<const char*(const char*)>& getenv, double max_wait_seconds);

// The repository "owner/name" from `flag`, else GITHUB_REPOSITORY; throws
// UsageError when neither is set or the value is not owner/name.
std::string repository_from(const std::optional<std::string>& flag,
                            const std::function<const char*(const char*)>& getenv);

// Calls the API through `transport`; `sleep` and `now` (Unix seconds) are
// injectable so retry timing is tested without waiting. The token goes only
// to the scheme, host and port of the base URL.
class Api {
public:
  // Throws UsageError when the base URL is not an http(s) URL, carries
  // userinfo, or is plain http to a host that is not loopback.
  Api(ApiSettings settings, Transport& transport, std::function<void(double)> sleep = {},
      std::function<double()> now = {});

  // Sends `method` to `path_or_url` (a path starting with one `/`, below the
  // base URL, or an absolute URL of the base URL's origin, as pagination
  // links are) with the JSON `body`; retries as RetryPolicy says and returns
  // the 2xx response. Each attempt gets what is left of max_wait_seconds
  // (at most k_request_timeout_seconds). Throws ApiError with a message for the user for
  // anything else, and before sending anything for a URL the token must not
  // go to. Before resending after a 5xx or network error (when the request
  // may have been carried out), `recheck` may return a response that ends
  // the retries.
  HttpResponse request(const std::string& method, const std::string& path_or_url,
                       const std::optional<nlohmann::json>& body = std::nullopt,
                       const std::function<std::optional<HttpResponse>()>& recheck = {});

  // The absolute URL a request for `path_or_url` (as `request` takes it)
  // goes to; throws ApiError when it is not of the base URL's origin.
  std::string url_of(const std::string& path_or_url) const;

  // The absolute URL of the pagination `link` (a Link header target,
  // relative or absolute) named by the page at the absolute URL `page`,
  // resolved as RFC 3986 says; throws ApiError as url_of does.
  std::string link_target(const std::string& page, const std::string& link) const;

  // Seconds left of max_wait_seconds since the Api was made (≤ 0: spent).
  double time_left() const;

private:
  ApiSettings m_settings;
  Url m_origin; // the parsed base URL: where the token may go
  Transport& m_transport;
  std::function<void(double)> m_sleep;
  std::function<double()> m_now;
  double m_started = 0; // m_now() when the Api was made
};

} // namespace refbench::github
