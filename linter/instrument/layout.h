// A plan for changing a script by inserting lines and by wrapping runs of its lines in new blocks, kept
// as a tree of segments in document order (original lines, inserted lines, wraps holding segments). The
// tree is what lets templates nest (a `try:` inside the profiler's `with`, `record_function` blocks
// inside the `try:`) without any template computing offsets or indentation by hand. Render() turns the
// plan into tl::Edits for the one applier: inserted lines become insertions at line starts, and a wrap
// becomes one indentation unit inserted in front of each wrapped line that is not blank and does not begin
// inside a string literal. The original bytes are never deleted or rewritten, and every inserted line
// carries the marker (markers.h), which is what makes `--remove` exact.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "linter/core/diagnostic.h"
#include "linter/core/result.h"
#include "linter/core/text_range.h"
#include "linter/instrument/style.h"

namespace tl::instrument {

// One inserted line: `depth` units deeper than its base indentation; empty `code` makes a comment-only line.
struct TemplateLine {
  int depth = 0;
  std::string code;
  std::string suffix;  // after the marker: "indent=4", "dedent" or empty
};

class Layout {
 public:
  static constexpr int kRoot = 0;

  // `text` must outlive the layout; `strings` are its string literal ranges (StringRanges).
  Layout(std::string_view text, const LineTable& lines, SourceStyle style, std::vector<TextRange> strings);

  // Wraps original lines [first, last] (0-based, inclusive) in a new block: `header` goes before `first`
  // and its last line opens the block, `footer` goes after `last` (an empty footer becomes a lone dedent
  // marker line). Both are indented from `base_indent`, the original indentation of the wrapped lines. A
  // wrap made inside the range of an earlier one nests inside it. Returns the wrap's id.
  Result<int> Wrap(uint32_t first, uint32_t last, std::string base_indent, std::vector<TemplateLine> header,
                   std::vector<TemplateLine> footer);

  // Inserts lines just before, or just after, whatever holds original `line` at the level of wrap
  // `container` (kRoot for the file): after a wrap that ends on `line`, before one that starts on it.
  Status InsertBefore(int container, uint32_t line, std::string base_indent, std::vector<TemplateLine> code);
  Status InsertAfter(int container, uint32_t line, std::string base_indent, std::vector<TemplateLine> code);

  // The innermost wrap whose range holds `line`, or kRoot.
  int ContainerOf(uint32_t line) const;

  std::vector<Edit> Render() const;

 private:
  enum class Kind { kLines, kInsert, kWrap };
  struct Segment {
    Kind kind = Kind::kLines;
    uint32_t first = 0, last = 0;  // original lines covered (kLines, kWrap)
    std::string base_indent;
    std::vector<TemplateLine> header;  // kInsert keeps its lines here
    std::vector<TemplateLine> footer;
    std::vector<int> children;  // kWrap and the root
  };

  // Index in `parent`'s children of the child covering `line`, splitting a kLines child so that `line`
  // starts it (split_before) or ends it (!split_before). -1 when no child covers it.
  int ChildAt(int parent, uint32_t line, bool split_before);
  bool Covers(const Segment& s, uint32_t line) const {
    return s.kind != Kind::kInsert && s.first <= line && line <= s.last;
  }
  Status Insert(int container, uint32_t line, bool after, std::string base_indent, std::vector<TemplateLine> code);
  // One rendered insertion: an inserted line, or the indentation put in front of an original line.
  struct Item {
    uint32_t offset = 0;
    bool inserted = false;
    std::string indent;  // inserted lines: their whole indentation; else the units added
    std::string code;
    std::string suffix;
  };
  void RenderSegment(int id, int depth, uint32_t& next_line, std::vector<Item>& out) const;
  void RenderLines(const std::vector<TemplateLine>& code, const std::string& base_indent, int depth, uint32_t next_line,
                   std::vector<Item>& out) const;

  std::string_view text_;
  const LineTable& lines_;
  SourceStyle style_;
  std::vector<TextRange> strings_;
  std::vector<Segment> segments_;
};

}  // namespace tl::instrument
