// LineIndex: byte offsets to lines and columns for humans, and to LSP positions in each encoding.
#include <doctest/doctest.h>

#include "linter/core/line_index.h"
#include "linter/core/source_file.h"

#include <string>
#include <string_view>
#include <type_traits>

using tl::LineIndex;
using tl::PositionEncoding;

TEST_CASE("lines end at LF, CRLF and a lone CR") {
  LineIndex index("a\nbb\r\nccc\rd");
  CHECK(index.LineCount() == 4);
  CHECK(index.LineText(0) == "a");
  CHECK(index.LineText(1) == "bb");
  CHECK(index.LineText(2) == "ccc");
  CHECK(index.LineText(3) == "d");
  CHECK(index.Locate(0).line == 1);
  CHECK(index.Locate(3).line == 2);
  CHECK(index.Locate(3).column == 2);
  CHECK(index.Locate(10).line == 4);
}

TEST_CASE("columns count code points; LSP counts UTF-16 units") {
  // "é" is 2 bytes and 1 UTF-16 unit; "😀" is 4 bytes and 2 UTF-16 units.
  const std::string text = "x = \"é😀\" + y\n";
  LineIndex index(text);
  const auto y = static_cast<uint32_t>(text.find('y'));
  CHECK(index.Locate(y).column == 12);
  CHECK(index.ToLsp(y, PositionEncoding::kUtf16).character == 12);
  CHECK(index.ToLsp(y, PositionEncoding::kUtf8).character == 15);
  CHECK(index.ToLsp(y, PositionEncoding::kUtf32).character == 11);
  CHECK(index.FromLsp({0, 12}, PositionEncoding::kUtf16) == y);
  CHECK(index.FromLsp({0, 99}, PositionEncoding::kUtf16) == text.size() - 1);
  CHECK(index.FromLsp({7, 0}, PositionEncoding::kUtf16) == text.size());
}

TEST_CASE("invalid UTF-8 counts a byte per column and never fails") {
  const std::string text = "a\xff\xfe b";
  LineIndex index(text);
  CHECK(index.Locate(4).column == 5);
  CHECK_FALSE(tl::IsValidUtf8(text));
  CHECK(tl::IsValidUtf8("plain ascii, é, 😀"));
  CHECK_FALSE(tl::IsValidUtf8("\xC0\x80"));      // overlong
  CHECK_FALSE(tl::IsValidUtf8("\xED\xA0\x80"));  // surrogate
  CHECK_FALSE(tl::IsValidUtf8("\xE2\x82"));      // truncated
}

TEST_CASE("long ASCII runs are read a word at a time; what follows them is still checked") {
  const std::string run(37, 'a');  // not a multiple of eight: the tail is read a byte at a time
  CHECK(tl::IsValidUtf8(run));
  CHECK(tl::IsValidUtf8(run + "é" + run + "😀" + run));
  CHECK_FALSE(tl::IsValidUtf8(run + "\xC0\x80" + run));
  CHECK_FALSE(tl::IsValidUtf8(run + run + "\xE2\x82"));
  CHECK_FALSE(tl::IsValidUtf8(std::string(16, 'b') + "\xff"));
  CHECK(tl::IsValidUtf8(""));
  // Lines of a text with no CR, and one whose only CR is at its very end.
  const std::string lf_text = run + "\n" + run + "\n\n" + run;
  const LineIndex lf(lf_text);  // a LineIndex views its text: the text outlives it
  CHECK(lf.LineCount() == 4);
  CHECK(lf.LineText(2).empty());
  CHECK(lf.LineStart(3) == 2 * 38 + 1);
  const std::string cr_text = run + "\n" + run + "\r";
  const LineIndex cr(cr_text);
  CHECK(cr.LineCount() == 3);
  CHECK(cr.LineText(1) == run);
}

// A LineIndex views its text, so one of a temporary string would read freed memory: that does not compile.
static_assert(!std::is_constructible_v<LineIndex, std::string&&>);
static_assert(std::is_constructible_v<LineIndex, const std::string&>);
static_assert(std::is_constructible_v<LineIndex, std::string_view>);
static_assert(std::is_constructible_v<LineIndex, const char*>);

TEST_CASE("offsets past the end clamp to the last position") {
  LineIndex index("ab\n");
  CHECK(index.Locate(100).line == 2);
  CHECK(index.Locate(100).column == 1);
  LineIndex empty("");
  CHECK(empty.LineCount() == 1);
  CHECK(empty.Locate(0).line == 1);
}

TEST_CASE("SourceFile keeps the bytes and notices a BOM") {
  tl::SourceFile file("x.py", "\xEF\xBB\xBFimport torch\r\n");
  CHECK(file.has_bom());
  CHECK(file.text().size() == 17);
  CHECK(file.lines().LineText(0) == "\xEF\xBB\xBFimport torch");
  tl::SourceFile moved = std::move(file);
  CHECK(moved.lines().LineText(0).size() == 15);
}
