#include <refbench/github/comment.hpp>
#include <refbench/util/json_input.hpp>

#include <fmt/format.h>
#include <set>

namespace refbench::github {
namespace {

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  if (!line.empty() && line.back() == '\r') {
    line.pop_back();
  }
  return line;
}

// "<!-- refbench -->" or "<!-- refbench:NAME -->".
bool is_marker(const std::string& line) {
  return line == "<!-- refbench -->" || (line.starts_with("<!-- refbench:") && line.ends_with(" -->") &&
                                         line.size() > 18 && line.find(' ', 14) == line.size() - 4);
}

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

std::size_t code_points(const std::string& text) {
  std::size_t count = 0;
  for (unsigned char c : text) {
    count += is_continuation(c) ? 0 : 1;
  }
  return count;
}

// Byte offset just past the first `count` code points of `text`.
std::size_t offset_of(const std::string& text, std::size_t count) {
  std::size_t at = 0;
  for (std::size_t seen = 0; at < text.size(); ++at) {
    if (!is_continuation(static_cast<unsigned char>(text[at]))) {
      if (seen == count) {
        break;
      }
      ++seen;
    }
  }
  return at;
}

} // namespace

std::string marker_line(const std::string& name) {
  if (name.empty()) {
    return "<!-- refbench -->";
  }
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      throw UsageError(fmt::format("--marker '{}' has a character outside [A-Za-z0-9._-]", name),
                       "use a plain name such as nightly or pr-linux");
    }
  }
  return "<!-- refbench:" + name + " -->";
}

std::string with_marker(const std::string& body, const std::string& marker) {
  if (is_marker(first_line(body))) {
    const auto newline = body.find('\n');
    return newline == std::string::npos ? marker : marker + body.substr(newline);
  }
  return marker + "\n" + body;
}

std::string trim_body(const std::string& body, std::size_t limit) {
  const std::size_t total = code_points(body);
  if (total <= limit) {
    return body;
  }
  auto note_for = [&](std::size_t shown) {
    return fmt::format("\n\n_refbench: the report was trimmed to fit a GitHub comment ({} of {} characters "
                       "shown); the whole report is in the job summary and the results artifact._\n",
                       shown, total);
  };
  const std::size_t note_size = code_points(note_for(total)); // the longest the note can be
  if (note_size >= limit) {
    return body.substr(0, offset_of(body, limit)); // no room for a note
  }
  std::size_t cut = offset_of(body, limit - note_size);
  if (auto newline = body.rfind('\n', cut); newline != std::string::npos && newline > 0) {
    cut = newline;
  }
  const std::string kept = body.substr(0, cut);
  return kept + note_for(code_points(kept));
}

namespace {

// The id of the first comment of issue `pr` whose first line is `marker`,
// looking through every page.
std::optional<std::uint64_t> find_marker_comment(Api& api, const std::string& repo, std::uint64_t pr,
                                                 const std::string& marker) {
  std::string page = api.url_of(fmt::format("/repos/{}/issues/{}/comments?per_page=100", repo, pr));
  std::set<std::string> seen; // a `next` that leads back would go round for ever
  while (!page.empty()) {
    if (!seen.insert(page).second || seen.size() > k_max_comment_pages) {
      throw ApiError(
          0, {},
          seen.size() > k_max_comment_pages
              ? fmt::format("GitHub API: more than {} pages of comments on #{}", k_max_comment_pages, pr)
              : fmt::format("GitHub API: the pages of comments on #{} lead back to {}", pr, printable_url(page)),
          "check GITHUB_API_URL points at the REST API; its Link headers do not end");
    }
    auto response = api.request("GET", page);
    auto list = util::parse_json(response.body, k_max_answer_bytes);
    if (!list || !list->is_array()) {
      throw ApiError(response.status, {},
                     fmt::format("GitHub API GET {}: the answer is not a list of comments{}", printable_url(page),
                                 list ? "" : " (" + list.error() + ")"),
                     "check GITHUB_API_URL points at the REST API (e.g. https://HOST/api/v3 on GitHub Enterprise)");
    }
    for (const auto& comment : *list) {
      const auto* body = util::json_member(comment, "body");
      const auto* id = util::json_member(comment, "id");
      if (body && body->is_string() && first_line(body->get<std::string>()) == marker && id &&
          id->is_number_unsigned()) {
        return id->get<std::uint64_t>();
      }
    }
    const std::string link = next_link(response.header("link"));
    page = link.empty() ? std::string() : api.link_target(page, link);
  }
  return std::nullopt;
}

} // namespace

CommentResult upsert_comment(Api& api, const std::string& repo, std::uint64_t pr, const std::string& marker,
                             const std::string& body) {
  const nlohmann::json payload{{"body", body}};
  auto patch = [&](std::uint64_t id) {
    return api.request("PATCH", fmt::format("/repos/{}/issues/comments/{}", repo, id), payload);
  };
  auto found = find_marker_comment(api, repo, pr, marker);
  bool created = !found;
  HttpResponse response;
  if (found) {
    response = patch(*found);
  } else {
    // a POST that failed with a 5xx may still have created the comment:
    // look again before sending it twice
    response = api.request("POST", fmt::format("/repos/{}/issues/{}/comments", repo, pr), payload,
                           [&]() -> std::optional<HttpResponse> {
                             if (auto id = find_marker_comment(api, repo, pr, marker)) {
                               created = false;
                               found = id;
                               return patch(*id);
                             }
                             return std::nullopt;
                           });
  }
  auto comment = util::parse_json(response.body, k_max_answer_bytes);
  CommentResult result{created, found.value_or(0), {}};
  if (comment) {
    if (const auto* id = util::json_member(*comment, "id"); id && id->is_number_unsigned()) {
      result.id = id->get<std::uint64_t>();
    }
    if (const auto* url = util::json_member(*comment, "html_url"); url && url->is_string()) {
      result.url = printable_url(url->get<std::string>());
    }
  }
  return result;
}

CommentArtifact parse_comment_artifact(const std::string& text, const std::string& path) {
  const std::string hint = "comment.json must be the file `refbench run --github` wrote";
  if (text.size() > k_artifact_limit) {
    throw UsageError(
        fmt::format("{} is {} bytes, more than the {} a report can be", path, text.size(), k_artifact_limit), hint);
  }
  auto parsed = util::parse_json(text);
  if (!parsed || !parsed->is_object()) {
    throw UsageError(fmt::format("{} is not a JSON object{}", path, parsed ? "" : ": " + parsed.error()), hint);
  }
  const nlohmann::json& json = *parsed;
  const auto& pr = json.contains("pr") ? json["pr"] : nlohmann::json();
  if (!pr.is_number_unsigned() || pr.get<std::uint64_t>() == 0) {
    throw UsageError(fmt::format("{}: \"pr\" must be a positive integer, found {}", path,
                                 pr.is_null() ? std::string("nothing") : pr.dump().substr(0, 40)),
                     hint);
  }
  if (!json.contains("body") || !json["body"].is_string()) {
    throw UsageError(path + ": \"body\" must be a string", hint);
  }
  CommentArtifact artifact{pr.get<std::uint64_t>(), json["body"].get<std::string>()};
  if (!is_marker(first_line(artifact.body))) {
    throw UsageError(path + ": \"body\" does not start with a refbench marker line", hint);
  }
  return artifact;
}

std::string comment_artifact_json(const CommentArtifact& artifact) {
  return nlohmann::json{{"pr", artifact.pr}, {"body", artifact.body}}.dump(2) + "\n";
}

} // namespace refbench::github
