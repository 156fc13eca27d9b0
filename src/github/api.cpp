#include <refbench/github/api.hpp>
#include <refbench/github/url.hpp>
#include <refbench/util/json_input.hpp>
#include <refbench/util/strings.hpp>
#include <refbench/version.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <thread>

namespace refbench::github {
namespace {

// What to do about a request that got no answer to read, by why.
std::string transport_hint(const TransportError& error) {
  switch (error.kind) {
  case TransportError::Kind::tls:
    return "check --cacert, SSL_CERT_FILE or SSL_CERT_DIR name the CA that signed the server";
  case TransportError::Kind::too_large:
    return "no GitHub API answer is that long: check that GITHUB_API_URL names GitHub's API";
  case TransportError::Kind::network:
    break;
  }
  return "check the network and GITHUB_API_URL, then rerun";
}

std::optional<double> number_of(const std::string& text) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

// The API's "message" of an error answer, printable; "" when it has none.
std::string message_of(const std::string& body) {
  auto parsed = util::parse_json(body, k_max_answer_bytes);
  if (!parsed || !parsed->is_object()) {
    return {};
  }
  const auto it = parsed->find("message");
  return it != parsed->end() && it->is_string() ? util::printable(it->get<std::string>()) : std::string();
}

double backoff(int attempt, const RetryPolicy& policy) {
  return std::min(policy.first_backoff_seconds * std::pow(2.0, attempt - 1), policy.max_backoff_seconds);
}

std::string describe(const HttpOutcome& outcome) {
  if (!outcome) {
    return outcome.error().message;
  }
  std::string message = message_of(outcome->body);
  return message.empty() ? fmt::format("HTTP {}", outcome->status)
                         : fmt::format("HTTP {} ({})", outcome->status, message);
}

// The hint for a final failure of `status`.
std::string hint_for(long status) {
  switch (status) {
  case 401:
    return "the token was refused: check the GITHUB_TOKEN secret is set and not expired";
  case 403:
    return "the token lacks a permission: give the job `permissions: pull-requests: write`";
  case 404:
    return "check GITHUB_REPOSITORY (or --repo) and the PR number, and that the token can see the repository";
  case 422:
    return "GitHub refused the request body; re-run with a shorter report";
  default:
    return "check GITHUB_API_URL and the network, or re-run the job later";
  }
}

// The parsed `base` URL; throws UsageError unless it is http(s) without
// userinfo, and https unless the host is loopback.
Url checked_base_url(const std::string& base) {
  const std::string hint = "set GITHUB_API_URL to the REST API's https:// URL, e.g. https://api.github.com or "
                           "https://HOST/api/v3";
  auto url = parse_url(base);
  if (!url) {
    throw UsageError(fmt::format("GITHUB_API_URL {} is not a URL: {}", printable_url(base), url.error()), hint);
  }
  if (url->has_userinfo) {
    throw UsageError(fmt::format("GITHUB_API_URL {} holds a user name before '@'", printable_url(base)), hint);
  }
  if (url->scheme == "http" && !is_loopback(url->host)) {
    throw UsageError(fmt::format("GITHUB_API_URL {} is plain http: the token would cross the network unencrypted",
                                 printable_url(base)),
                     hint + " (plain http only for a test server on localhost, 127.0.0.0/8 or [::1])");
  }
  return *url;
}

// The ApiError for a URL the token must not go to.
ApiError refused_url(const std::string& url, const std::string& why, const std::string& base) {
  return ApiError(0, {}, fmt::format("refused to send the token to {}: {}", printable_url(url), why),
                  fmt::format("the token goes only to the scheme, host and port of GITHUB_API_URL ({}); a link "
                              "elsewhere comes from a misconfigured proxy or server: check GITHUB_API_URL",
                              printable_url(base)));
}

} // namespace

std::optional<RetryWait> retry_wait(const HttpOutcome& outcome, int failures, double now, const RetryPolicy& policy) {
  if (!outcome) {
    if (outcome.error().kind != TransportError::Kind::network) {
      return std::nullopt;
    }
    return RetryWait{backoff(failures, policy), "network error"};
  }
  const long status = outcome->status;
  if (status >= 500 && status <= 599) {
    return RetryWait{backoff(failures, policy), fmt::format("HTTP {}", status)};
  }
  if (status != 403 && status != 429) {
    return std::nullopt;
  }
  if (auto after = number_of(outcome->header("retry-after")); after && *after >= 0) {
    return RetryWait{std::max(1.0, *after),
                     fmt::format("HTTP {}, retry-after: {}", status, outcome->header("retry-after"))};
  }
  if (outcome->header("x-ratelimit-remaining") == "0") {
    if (auto reset = number_of(outcome->header("x-ratelimit-reset"))) {
      return RetryWait{std::max(1.0, *reset - now),
                       fmt::format("HTTP {}, rate limit resets at {}", status, outcome->header("x-ratelimit-reset"))};
    }
  }
  const std::string message = util::ascii_lower(message_of(outcome->body));
  if (status == 429 || message.find("rate limit") != std::string::npos) {
    return RetryWait{60, fmt::format("HTTP {}, rate limited", status)};
  }
  return std::nullopt;
}

std::string next_link(const std::string& link_header) {
  // <https://…?page=2>; rel="next", <https://…?page=5>; rel="last"
  std::size_t at = 0;
  while (true) {
    const auto open = link_header.find('<', at);
    if (open == std::string::npos) {
      return {};
    }
    const auto close = link_header.find('>', open);
    if (close == std::string::npos) {
      return {};
    }
    const auto end = link_header.find('<', close);
    const std::string params = link_header.substr(close + 1, end == std::string::npos ? end : end - close - 1);
    if (params.find("rel=\"next\"") != std::string::npos || params.find("rel=next") != std::string::npos) {
      return link_header.substr(open + 1, close - open - 1);
    }
    if (end == std::string::npos) {
      return {};
    }
    at = end;
  }
}

std::string normalize_api_url(std::string url) {
  while (!url.empty() && url.back() == '/') {
    url.pop_back();
  }
  return url.empty() ? std::string("https://api.github.com") : url;
}

ApiSettings settings_from_environment(const std::function<const char*(const char*)>& getenv, double max_wait_seconds) {
  const char* token = getenv("GITHUB_TOKEN");
  if (token == nullptr || *token == '\0') {
    throw UsageError("GITHUB_TOKEN is not set", "pass the token to the step: env: GITHUB_TOKEN: ${{ github.token }}");
  }
  const char* url = getenv("GITHUB_API_URL");
  ApiSettings settings{normalize_api_url(url ? url : ""), token, {}};
  settings.retry.max_wait_seconds = max_wait_seconds;
  return settings;
}

std::string repository_from(const std::optional<std::string>& flag,
                            const std::function<const char*(const char*)>& getenv) {
  const char* env = getenv("GITHUB_REPOSITORY");
  const std::string repo = flag ? *flag : env ? env : "";
  if (repo.empty()) {
    throw UsageError("no repository: GITHUB_REPOSITORY is not set", "pass --repo OWNER/NAME");
  }
  auto valid = [](std::string_view part) {
    return !part.empty() && part != "." && part != ".." && std::ranges::all_of(part, [](unsigned char c) {
      return std::isalnum(c) || c == '-' || c == '_' || c == '.';
    });
  };
  const auto slash = repo.find('/');
  if (slash == std::string::npos || !valid(std::string_view(repo).substr(0, slash)) ||
      !valid(std::string_view(repo).substr(slash + 1))) {
    throw UsageError(fmt::format("'{}' is not a repository name of the form OWNER/NAME", repo),
                     "pass --repo OWNER/NAME");
  }
  return repo;
}

Api::Api(ApiSettings settings, Transport& transport, std::function<void(double)> sleep, std::function<double()> now)
    : m_settings(std::move(settings)), m_transport(transport), m_sleep(std::move(sleep)), m_now(std::move(now)) {
  m_settings.base_url = normalize_api_url(m_settings.base_url);
  m_origin = checked_base_url(m_settings.base_url);
  if (!m_sleep) {
    m_sleep = [](double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); };
  }
  if (!m_now) {
    m_now = [] { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); };
  }
  m_started = m_now();
}

double Api::time_left() const { return m_settings.retry.max_wait_seconds - (m_now() - m_started); }

std::string Api::url_of(const std::string& path_or_url) const {
  const bool below_base = path_or_url.starts_with('/') && !path_or_url.starts_with("//");
  std::string url = below_base ? m_settings.base_url + path_or_url : path_or_url;
  auto target = parse_url(url);
  if (!target) {
    throw refused_url(url, target.error(), m_settings.base_url);
  }
  if (!same_origin(m_origin, *target)) {
    throw refused_url(url,
                      target->has_userinfo
                          ? "it names a user before '@'"
                          : fmt::format("{}://{}:{} is not the API's {}://{}:{}", target->scheme, target->host,
                                        target->port, m_origin.scheme, m_origin.host, m_origin.port),
                      m_settings.base_url);
  }
  return url;
}

std::string Api::link_target(const std::string& page, const std::string& link) const {
  auto target = resolve_reference(page, link);
  if (!target) {
    throw refused_url(link, target.error(), m_settings.base_url);
  }
  return url_of(*target);
}

HttpResponse Api::request(const std::string& method, const std::string& path_or_url,
                          const std::optional<nlohmann::json>& body,
                          const std::function<std::optional<HttpResponse>()>& recheck) {
  const std::string url = url_of(path_or_url);
  HttpRequest request{method,
                      url,
                      {"Accept: application/vnd.github+json", "X-GitHub-Api-Version: 2022-11-28",
                       std::string("User-Agent: refbench/") + k_version, "Authorization: Bearer " + m_settings.token},
                      body ? body->dump() : std::string()};
  if (body) {
    request.headers.push_back("Content-Type: application/json");
  }
  const std::string what = fmt::format(
      "{} {}", method, url.starts_with(m_settings.base_url + "/") ? url.substr(m_settings.base_url.size()) : url);
  double waited = 0;
  int failures = 0; // 5xx answers and network errors in a row: the backoff grows with them
  for (int attempt = 1;; ++attempt) {
    const double left = time_left();
    if (left <= 0) {
      throw ApiError(0, {},
                     fmt::format("GitHub API {}: --max-wait {:.0f} s was spent before attempt {}", what,
                                 m_settings.retry.max_wait_seconds, attempt),
                     "GitHub answered too slowly: check GITHUB_API_URL and the network, re-run the job later, or "
                     "raise --max-wait");
    }
    request.timeout_seconds = std::min(k_request_timeout_seconds, left);
    HttpOutcome outcome = m_transport.perform(request);
    if (outcome && outcome->status >= 200 && outcome->status <= 299) {
      return *outcome;
    }
    failures = !outcome || outcome->status >= 500 ? failures + 1 : 0;
    auto wait = retry_wait(outcome, std::max(failures, 1), m_now(), m_settings.retry);
    if (!wait) {
      const long status = outcome ? outcome->status : 0;
      throw ApiError(status, outcome ? message_of(outcome->body) : std::string(),
                     fmt::format("GitHub API {}: {}", what, describe(outcome)),
                     outcome ? hint_for(status) : transport_hint(outcome.error()));
    }
    if (wait->seconds > time_left()) {
      throw ApiError(outcome ? outcome->status : 0, outcome ? message_of(outcome->body) : std::string(),
                     fmt::format("GitHub API {}: gave up after {} attempt{} and {:.0f} s of waiting: last {}; the next "
                                 "wait ({}: {:.0f} s) would pass --max-wait {:.0f} s",
                                 what, attempt, attempt == 1 ? "" : "s", waited, describe(outcome), wait->reason,
                                 wait->seconds, m_settings.retry.max_wait_seconds),
                     "GitHub did not answer or kept refusing: check GITHUB_API_URL and the network, re-run the job "
                     "later, or raise --max-wait");
    }
    m_sleep(wait->seconds);
    waited += wait->seconds;
    const bool maybe_done = !outcome || outcome->status >= 500;
    if (recheck && maybe_done) {
      if (auto done = recheck()) {
        return *done;
      }
    }
  }
}

} // namespace refbench::github
