#pragma once
// The sticky PR comment: one comment per PR (and marker) whose first line is
// a hidden marker, found across all pages and updated in place.

#include <refbench/github/api.hpp>

#include <cstdint>
#include <string>

namespace refbench::github {

// GitHub's limit on a comment body, in characters.
inline constexpr std::size_t k_comment_limit = 65536;

// The hidden marker line: "<!-- refbench -->" for an empty `name`, else
// "<!-- refbench:NAME -->"; throws UsageError when `name` has characters
// outside [A-Za-z0-9._-].
std::string marker_line(const std::string& name);

// `body` starting with `marker`: a first line that is already a refbench
// marker is replaced, otherwise the marker is put in front.
std::string with_marker(const std::string& body, const std::string& marker);

// `body` cut to at most `limit` characters (Unicode code points) at a line
// end, with a closing note saying how much was left out; unchanged when it fits.
std::string trim_body(const std::string& body, std::size_t limit = k_comment_limit);

// What `upsert_comment` did; `url` is printable (printable_url).
struct CommentResult {
  bool created = false;
  std::uint64_t id = 0;
  std::string url;
};

// The most pages of 100 comments `upsert_comment` looks through (10 000 comments).
inline constexpr std::size_t k_max_comment_pages = 100;

// Looks through every page of the comments of issue/PR `pr` in `repo`
// ("owner/name") for one whose first line is `marker`; PATCHes the first
// such comment with `body`, or POSTs `body` as a new comment. Throws
// ApiError (see Api::request), also for more than k_max_comment_pages
// pages or a `next` link back to a page already read.
CommentResult upsert_comment(Api& api, const std::string& repo, std::uint64_t pr, const std::string& marker,
                             const std::string& body);

// The fork-safe hand-over from `run --github` to `comment --from-artifact`.
struct CommentArtifact {
  std::uint64_t pr = 0;
  std::string body;
};

// Largest comment.json accepted.
inline constexpr std::size_t k_artifact_limit = 1 << 20;

// Parses the comment.json text `text` read from `path`: a positive integer
// `pr` and a string `body` whose first line is a refbench marker, at most
// k_artifact_limit bytes; throws UsageError naming `path` and the problem.
CommentArtifact parse_comment_artifact(const std::string& text, const std::string& path);

// comment.json for `artifact`.
std::string comment_artifact_json(const CommentArtifact& artifact);

} // namespace refbench::github
