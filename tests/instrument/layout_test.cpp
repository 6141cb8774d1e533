// The layout planner on small texts: nesting, insert placement at wrap edges, lines inside strings, the
// end of a file without a final line break, and the style detection it relies on.
#include "linter/instrument/layout.h"

#include <doctest/doctest.h>

#include <string>

#include "linter/core/fix.h"
#include "linter/instrument/markers.h"
#include "linter/instrument/style.h"

namespace {

using tl::instrument::Layout;
using tl::instrument::LineTable;
using tl::instrument::SourceStyle;

struct Fixture {
  std::string text;
  LineTable lines;
  tl::ts::Tree tree;
  SourceStyle style;
  Layout layout;
  explicit Fixture(std::string t)
      : text(std::move(t)),
        lines(text),
        tree(tl::instrument::ParsePython(text).value()),
        style(tl::instrument::DetectStyle(text, lines, tree.Root())),
        layout(text, lines, style, tl::instrument::StringRanges(tree.Root())) {}
  std::string Apply() {
    auto out = tl::ApplyEdits(text, layout.Render());
    REQUIRE(out.ok());
    // And back again, through the marker scheme alone.
    auto edits = tl::instrument::PlanRemoval(*out);
    REQUIRE(edits.ok());
    auto back = tl::ApplyEdits(*out, *edits);
    REQUIRE(back.ok());
    CHECK(*back == text);
    return *out;
  }
};

}  // namespace

TEST_CASE("style: line endings and indentation units are measured") {
  Fixture crlf("if a:\r\n  b()\r\nif c:\r\n  d()\r\n");
  CHECK(crlf.style.eol == "\r\n");
  CHECK(crlf.style.indent_unit == "  ");
  Fixture tabs("def f():\n\tif x:\n\t\treturn 1\n");
  CHECK(tabs.style.indent_unit == "\t");
  Fixture none("x = 1\n");
  CHECK(none.style.eol == "\n");
  CHECK(none.style.indent_unit == "    ");
}

TEST_CASE("nested wraps and inserts land at the right level") {
  Fixture f("for x in y:\n    a(x)\n    b(x)\nz()\n");
  auto outer = f.layout.Wrap(0, 2, "", {{0, "with p() as prof:", ""}}, {});
  REQUIRE(outer.ok());
  REQUIRE(f.layout.InsertAfter(*outer, 2, "    ", {{0, "prof.step()", ""}}).ok());
  REQUIRE(f.layout.Wrap(1, 1, "    ", {{0, "with r(\"a\"):", ""}}, {}).ok());
  REQUIRE(f.layout.InsertBefore(f.layout.ContainerOf(1), 1, "    ", {{0, "pass", ""}}).ok());
  CHECK(f.Apply() ==
        "with p() as prof:  # torchlint: instrument indent=4\n"
        "    for x in y:\n"
        "        with r(\"a\"):  # torchlint: instrument indent=4\n"
        "            pass  # torchlint: instrument\n"
        "            a(x)\n"
        "        # torchlint: instrument dedent\n"
        "        b(x)\n"
        "        prof.step()  # torchlint: instrument\n"
        "# torchlint: instrument dedent\n"
        "z()\n");
}

TEST_CASE("lines inside a multi-line string and blank lines are never re-indented") {
  Fixture f("for x in y:\n    s = \"\"\"a\n  b\n\"\"\"\n\n    f(s)\n");
  REQUIRE(f.layout.Wrap(0, 5, "", {{0, "with p():", ""}}, {}).ok());
  CHECK(f.Apply() ==
        "with p():  # torchlint: instrument indent=4\n"
        "    for x in y:\n"
        "        s = \"\"\"a\n"
        "  b\n"
        "\"\"\"\n"
        "\n"
        "        f(s)\n"
        "# torchlint: instrument dedent\n");
}

TEST_CASE("at the end of a file with no final line break, inserted lines bring their own") {
  Fixture f("for x in y:\n\tf(x)");
  REQUIRE(f.layout.Wrap(0, 1, "", {{0, "with p():", ""}}, {{0, "done()", ""}}).ok());
  CHECK(f.Apply() ==
        "with p():  # torchlint: instrument indent=tab\n"
        "\tfor x in y:\n"
        "\t\tf(x)\n"
        "done()  # torchlint: instrument dedent");
}

TEST_CASE("back-to-back wraps fold the dedent into the next inserted line") {
  Fixture f("a()\nb()\n");
  REQUIRE(f.layout.Wrap(0, 0, "", {{0, "with r(1):", ""}}, {}).ok());
  REQUIRE(f.layout.Wrap(1, 1, "", {{0, "with r(2):", ""}}, {}).ok());
  CHECK(f.Apply() ==
        "with r(1):  # torchlint: instrument indent=4\n"
        "    a()\n"
        "with r(2):  # torchlint: instrument dedent indent=4\n"
        "    b()\n"
        "# torchlint: instrument dedent\n");
}

TEST_CASE("a wrap that crosses another block's edge is refused") {
  Fixture f("a()\nb()\nc()\n");
  REQUIRE(f.layout.Wrap(0, 1, "", {{0, "with r(1):", ""}}, {}).ok());
  CHECK_FALSE(f.layout.Wrap(1, 2, "", {{0, "with r(2):", ""}}, {}).ok());
}

TEST_CASE("indentation CPython would reject is found even where tree-sitter parses cleanly") {
  auto misindented = [](const std::string& text) {
    LineTable lines(text);
    auto tree = tl::instrument::ParsePython(text);
    REQUIRE(tree.ok());
    tl::ts::Node bad = tl::instrument::FirstMisindentedStatement(text, lines, tree->Root());
    return bad ? static_cast<int>(lines.LineOf(bad.StartByte())) + 1 : 0;
  };
  CHECK(misindented("for x in y:\n    a()\n        # note\n        b()\n") == 4);
  CHECK(misindented("for x in y:\n    a()\n    # note\n    b()\n") == 0);
  CHECK(misindented("if a:\n\tb()\nelse:\n  c()\n") == 0);  // each block may pick its own
  CHECK(misindented("x = 1\n  y = 2\n") != 0);
  CHECK(misindented("\xEF\xBB\xBFimport os\nif os:\n    pass\n") == 0);
}
