// The .gitignore matcher: the pattern forms git documents (anchoring, folder-only, negation, `**`,
// classes, escapes) and how .gitignore files stack (a deeper file overrides an outer one).
#include <doctest/doctest.h>

#include "linter/engine/path_pattern.h"

using tl::GlobSegmentMatches;
using tl::IgnoreDecision;
using tl::IgnoreFile;
using tl::PathPattern;

namespace {
bool Matches(std::string_view pattern, std::string_view path, bool is_dir = false) {
  auto parsed = PathPattern::Parse(pattern);
  REQUIRE(parsed.has_value());
  return parsed->Matches(path, is_dir);
}
}  // namespace

TEST_CASE("glob segments: stars, question marks, classes and escapes") {
  CHECK(GlobSegmentMatches("*.py", "train.py"));
  CHECK_FALSE(GlobSegmentMatches("*.py", "train.pyc"));
  CHECK(GlobSegmentMatches("t?ain.py", "train.py"));
  CHECK(GlobSegmentMatches("[a-c]at", "bat"));
  CHECK_FALSE(GlobSegmentMatches("[!a-c]at", "bat"));
  CHECK(GlobSegmentMatches("[!a-c]at", "rat"));
  CHECK(GlobSegmentMatches("\\*literal", "*literal"));
  CHECK_FALSE(GlobSegmentMatches("\\*literal", "xliteral"));
  CHECK(GlobSegmentMatches("a*b*c", "aXXbYYc"));
  CHECK_FALSE(GlobSegmentMatches("a*b*c", "aXXbYY"));
  CHECK(GlobSegmentMatches("*", ""));
  CHECK(GlobSegmentMatches("[", "["));  // an unclosed class is a literal
}

TEST_CASE("comments and blank lines are not patterns") {
  CHECK_FALSE(PathPattern::Parse("").has_value());
  CHECK_FALSE(PathPattern::Parse("   ").has_value());
  CHECK_FALSE(PathPattern::Parse("# comment").has_value());
  CHECK(Matches("\\#file", "#file"));
  CHECK(Matches("trailing   ", "trailing"));
}

TEST_CASE("a pattern without a slash matches at any depth") {
  CHECK(Matches("*.py", "a/b/c.py"));
  CHECK(Matches("generated", "src/generated", true));
  CHECK(Matches("generated", "src/generated", false));
}

TEST_CASE("a slash anchors the pattern to its folder") {
  CHECK(Matches("/build", "build", true));
  CHECK_FALSE(Matches("/build", "src/build", true));
  CHECK(Matches("src/gen", "src/gen", true));
  CHECK_FALSE(Matches("src/gen", "lib/src/gen", true));
  CHECK(Matches("src/*.py", "src/a.py"));
  CHECK_FALSE(Matches("src/*.py", "src/sub/a.py"));
}

TEST_CASE("a trailing slash matches folders only") {
  CHECK(Matches("out/", "out", true));
  CHECK_FALSE(Matches("out/", "out", false));
  CHECK(Matches("out/", "a/out", true));
}

TEST_CASE("double stars") {
  CHECK(Matches("**/logs", "logs", true));
  CHECK(Matches("**/logs", "a/b/logs", true));
  CHECK(Matches("a/**/b", "a/b", true));
  CHECK(Matches("a/**/b", "a/x/y/b", true));
  CHECK_FALSE(Matches("a/**/b", "x/a/b", true));
  CHECK(Matches("data/**", "data/x.py"));
  CHECK(Matches("data/**", "data/deep/x.py"));
  CHECK_FALSE(Matches("data/**", "data", true));  // everything inside, not the folder itself
  CHECK(Matches("**/test_*.py", "pkg/tests/test_a.py"));
}

TEST_CASE("the last matching pattern decides, and negation re-includes") {
  const IgnoreFile file = IgnoreFile::FromText("/repo", "*.py\n!keep.py\n# comment\n/scratch/\n");
  CHECK(file.Decide("/repo/a.py", false) == IgnoreDecision::kIgnored);
  CHECK(file.Decide("/repo/sub/keep.py", false) == IgnoreDecision::kIncluded);
  CHECK(file.Decide("/repo/readme.md", false) == IgnoreDecision::kNone);
  CHECK(file.Decide("/repo/scratch", true) == IgnoreDecision::kIgnored);
  CHECK(file.Decide("/elsewhere/a.py", false) == IgnoreDecision::kNone);
  CHECK(file.IgnoresPathOrParent("/repo/scratch/x/y.md", false));
  CHECK_FALSE(file.IgnoresPathOrParent("/repo/other/y.md", false));
}

TEST_CASE("deeper .gitignore files override outer ones") {
  auto outer = std::make_shared<const tl::IgnoreChain>(
      tl::IgnoreChain{nullptr, std::make_shared<const IgnoreFile>(IgnoreFile::FromText("/repo", "*.py\n"))});
  auto inner = std::make_shared<const tl::IgnoreChain>(
      tl::IgnoreChain{outer, std::make_shared<const IgnoreFile>(IgnoreFile::FromText("/repo/src", "!*.py\n"))});
  CHECK(tl::IgnoreChain::Ignored(inner, "/repo/a.py", false));
  CHECK_FALSE(tl::IgnoreChain::Ignored(inner, "/repo/src/a.py", false));
}

TEST_CASE("CRLF .gitignore files") {
  const IgnoreFile file = IgnoreFile::FromText("/r", "gen/\r\n*.tmp\r\n");
  CHECK(file.Decide("/r/gen", true) == IgnoreDecision::kIgnored);
  CHECK(file.Decide("/r/x.tmp", false) == IgnoreDecision::kIgnored);
}
