// The one edit applier, tested thoroughly: ordering, insertions, overlaps, bounds, whole-fix skipping,
// applicability levels, and the unified diff --diff prints.
#include <doctest/doctest.h>

#include <string>

#include "linter/core/fix.h"

using tl::Applicability;
using tl::Edit;
using tl::Fix;

TEST_CASE("edits apply in offset order whatever order they come in") {
  auto out = tl::ApplyEdits("abcdef", {Edit{{4, 5}, "E"}, Edit{{0, 1}, "A"}, Edit{{2, 2}, "+"}});
  REQUIRE(out.ok());
  CHECK(*out == "Ab+cdEf");
}

TEST_CASE("two insertions at one offset keep the order given") {
  auto out = tl::ApplyEdits("xy", {Edit{{1, 1}, "1"}, Edit{{1, 1}, "2"}});
  REQUIRE(out.ok());
  CHECK(*out == "x12y");
}

TEST_CASE("overlapping edits and edits outside the text are errors and change nothing") {
  CHECK_FALSE(tl::ApplyEdits("abcdef", {Edit{{0, 3}, "x"}, Edit{{2, 4}, "y"}}).ok());
  CHECK_FALSE(tl::ApplyEdits("abc", {Edit{{2, 9}, "x"}}).ok());
  CHECK_FALSE(tl::ApplyEdits("abc", {Edit{{2, 1}, "x"}}).ok());
  // An insertion strictly inside a replaced range conflicts; one at its edge does not.
  CHECK_FALSE(tl::ApplyEdits("abcdef", {Edit{{1, 4}, "x"}, Edit{{2, 2}, "y"}}).ok());
  auto edge = tl::ApplyEdits("abcdef", {Edit{{1, 4}, "x"}, Edit{{4, 4}, "y"}});
  REQUIRE(edge.ok());
  CHECK(*edge == "axyef");
}

TEST_CASE("fixes are all or nothing and a fix that overlaps an earlier one is skipped") {
  Fix a{"first", Applicability::kSafe, {Edit{{0, 2}, "AA"}, Edit{{5, 6}, "F"}}};
  Fix b{"clashes with a", Applicability::kSafe, {Edit{{1, 3}, "zz"}}};
  Fix c{"independent", Applicability::kSafe, {Edit{{3, 3}, "!"}}};
  auto outcome = tl::ApplyFixes("abcdef", {&a, &b, &c});
  CHECK(outcome.text == "AAc!deF");
  CHECK(outcome.applied == 2);
  CHECK(outcome.skipped == 1);
}

TEST_CASE("applicability decides which fixes apply") {
  Fix safe{"safe", Applicability::kSafe, {Edit{{0, 0}, "s"}}};
  Fix unsafe{"unsafe", Applicability::kUnsafe, {Edit{{1, 1}, "u"}}};
  Fix display{"display", Applicability::kDisplayOnly, {Edit{{2, 2}, "d"}}};
  CHECK(tl::ApplyFixes("abc", {&safe, &unsafe, &display}).text == "sabc");
  CHECK(tl::ApplyFixes("abc", {&safe, &unsafe, &display}, Applicability::kUnsafe).text == "saubc");
  CHECK(tl::ApplyFixes("abc", {&display}, Applicability::kDisplayOnly).text == "abc");
}

TEST_CASE("a fix with an edit out of bounds is skipped, not applied in part") {
  Fix bad{"bad", Applicability::kSafe, {Edit{{0, 0}, "x"}, Edit{{10, 12}, "y"}}};
  auto outcome = tl::ApplyFixes("abc", {&bad});
  CHECK(outcome.text == "abc");
  CHECK(outcome.skipped == 1);
}

TEST_CASE("unified diff has headers, hunk ranges and context") {
  const std::string before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
  const std::string after = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n";
  CHECK(tl::UnifiedDiff("x.py", before, after) ==
        "--- a/x.py\n+++ b/x.py\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
  CHECK(tl::UnifiedDiff("x.py", before, before).empty());
}

TEST_CASE("unified diff of an insertion into an empty file and a missing final newline") {
  CHECK(tl::UnifiedDiff("e.py", "", "a\n") == "--- a/e.py\n+++ b/e.py\n@@ -0,0 +1,1 @@\n+a\n");
  CHECK(
      tl::UnifiedDiff("n.py", "a", "b") ==
      "--- a/n.py\n+++ b/n.py\n@@ -1,1 +1,1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n");
}

TEST_CASE("distant changes make separate hunks") {
  std::string before;
  for (int i = 1; i <= 20; ++i) before += std::to_string(i) + "\n";
  std::string after = before;
  after.replace(after.find("2\n"), 2, "two\n");
  after.replace(after.find("19\n"), 3, "nineteen\n");
  const auto diff = tl::UnifiedDiff("d.py", before, after);
  CHECK(diff.find("@@ -1,5 +1,5 @@") != std::string::npos);
  CHECK(diff.find("@@ -16,5 +16,5 @@") != std::string::npos);
}

TEST_CASE("IndentOf: the line's start and its indent, only when nothing but blanks precedes the offset") {
  const std::string text = "x = 1\n    model = Net()\nif c: model = Net()\n\tdef f():\n";
  const auto indented = tl::IndentOf(text, static_cast<uint32_t>(text.find("model")));
  REQUIRE(indented.has_value());
  CHECK(indented->line_start == 6);
  CHECK(indented->indent == "    ");
  const auto first = tl::IndentOf(text, 0);
  REQUIRE(first.has_value());
  CHECK(first->line_start == 0);
  CHECK(first->indent.empty());
  // `if c: model = Net()`: code precedes the statement on its line.
  CHECK_FALSE(tl::IndentOf(text, static_cast<uint32_t>(text.rfind("model"))).has_value());
  const auto tab = tl::IndentOf(text, static_cast<uint32_t>(text.find("def")));
  REQUIRE(tab.has_value());
  CHECK(tab->indent == "\t");
  CHECK_FALSE(tl::IndentOf(text, static_cast<uint32_t>(text.size() + 1)).has_value());
}
