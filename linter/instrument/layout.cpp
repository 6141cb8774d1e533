#include "linter/instrument/layout.h"

#include <fmt/core.h>

#include "linter/instrument/markers.h"

namespace tl::instrument {

Layout::Layout(std::string_view text, const LineTable& lines, SourceStyle style, std::vector<TextRange> strings)
    : text_(text), lines_(lines), style_(std::move(style)), strings_(std::move(strings)) {
  Segment root;
  root.kind = Kind::kWrap;
  root.first = 0;
  root.last = lines.size() == 0 ? 0 : lines.size() - 1;
  segments_.push_back(root);
  if (lines.size() > 0) {
    Segment all;
    all.first = 0;
    all.last = lines.size() - 1;
    segments_.push_back(all);
    segments_[kRoot].children.push_back(1);
  }
}

int Layout::ChildAt(int parent, uint32_t line, bool split_before) {
  auto& children = segments_[parent].children;
  for (size_t i = 0; i < children.size(); ++i) {
    Segment& child = segments_[children[i]];
    if (!Covers(child, line)) continue;
    if (child.kind != Kind::kLines) return static_cast<int>(i);
    const uint32_t cut = split_before ? line : line + 1;  // first line of the second half
    if (cut <= child.first || cut > child.last) return static_cast<int>(i);
    Segment second;
    second.first = cut;
    second.last = child.last;
    child.last = cut - 1;
    const int second_id = static_cast<int>(segments_.size());
    segments_.push_back(second);  // may invalidate `child`
    auto& kids = segments_[parent].children;
    kids.insert(kids.begin() + static_cast<std::ptrdiff_t>(i) + 1, second_id);
    return static_cast<int>(split_before ? i + 1 : i);
  }
  return -1;
}

int Layout::ContainerOf(uint32_t line) const {
  int current = kRoot;
  for (;;) {
    int next = -1;
    for (int child : segments_[current].children) {
      if (segments_[child].kind == Kind::kWrap && Covers(segments_[child], line)) next = child;
    }
    if (next < 0) return current;
    current = next;
  }
}

Result<int> Layout::Wrap(uint32_t first, uint32_t last, std::string base_indent, std::vector<TemplateLine> header,
                         std::vector<TemplateLine> footer) {
  if (first > last || last >= lines_.size()) return Error{"internal: wrap outside the file"};
  // Descend into the wraps that already hold the whole range.
  int parent = kRoot;
  for (;;) {
    int next = -1;
    for (int child : segments_[parent].children) {
      const Segment& s = segments_[child];
      if (s.kind == Kind::kWrap && s.first <= first && last <= s.last) next = child;
    }
    if (next < 0) break;
    parent = next;
  }
  const int begin = ChildAt(parent, first, /*split_before=*/true);
  const int end = ChildAt(parent, last, /*split_before=*/false);
  if (begin < 0 || end < 0) return Error{"internal: wrap outside its parent"};
  const auto& kids = segments_[parent].children;
  if (segments_[kids[begin]].first != first || segments_[kids[end]].last != last) {
    return Error{fmt::format("internal: lines {}-{} cross the edge of another inserted block", first + 1, last + 1)};
  }
  if (header.empty()) return Error{"internal: a wrap needs a header"};
  header.back().suffix = IndentSuffix(style_.indent_unit);
  if (footer.empty()) footer.push_back(TemplateLine{0, "", ""});
  footer.front().suffix = std::string(kDedent);

  Segment wrap;
  wrap.kind = Kind::kWrap;
  wrap.first = first;
  wrap.last = last;
  wrap.base_indent = std::move(base_indent);
  wrap.header = std::move(header);
  wrap.footer = std::move(footer);
  wrap.children.assign(kids.begin() + begin, kids.begin() + end + 1);
  const int id = static_cast<int>(segments_.size());
  segments_.push_back(std::move(wrap));
  auto& parent_kids = segments_[parent].children;
  parent_kids.erase(parent_kids.begin() + begin, parent_kids.begin() + end + 1);
  parent_kids.insert(parent_kids.begin() + begin, id);
  return id;
}

Status Layout::Insert(int container, uint32_t line, bool after, std::string base_indent,
                      std::vector<TemplateLine> code) {
  if (container < 0 || static_cast<size_t>(container) >= segments_.size() || segments_[container].kind != Kind::kWrap) {
    return Error{"internal: no such container"};
  }
  const int at = ChildAt(container, line, /*split_before=*/!after);
  if (at < 0) return Error{fmt::format("internal: line {} is not in the container", line + 1)};
  const Segment& target = segments_[segments_[container].children[at]];
  if (target.kind == Kind::kWrap && (after ? target.last != line : target.first != line)) {
    return Error{fmt::format("internal: line {} is inside an inserted block", line + 1)};
  }
  Segment insert;
  insert.kind = Kind::kInsert;
  insert.base_indent = std::move(base_indent);
  insert.header = std::move(code);
  const int id = static_cast<int>(segments_.size());
  segments_.push_back(std::move(insert));
  auto& kids = segments_[container].children;
  kids.insert(kids.begin() + at + (after ? 1 : 0), id);
  return Ok{};
}

Status Layout::InsertBefore(int container, uint32_t line, std::string base_indent, std::vector<TemplateLine> code) {
  return Insert(container, line, false, std::move(base_indent), std::move(code));
}

Status Layout::InsertAfter(int container, uint32_t line, std::string base_indent, std::vector<TemplateLine> code) {
  return Insert(container, line, true, std::move(base_indent), std::move(code));
}

void Layout::RenderLines(const std::vector<TemplateLine>& code, const std::string& base_indent, int depth,
                         uint32_t next_line, std::vector<Item>& out) const {
  for (const auto& line : code) {
    Item item;
    item.offset = lines_.Start(next_line);
    item.inserted = true;
    for (int i = 0; i < depth; ++i) item.indent += style_.indent_unit;
    item.indent += base_indent;
    for (int i = 0; i < line.depth; ++i) item.indent += style_.indent_unit;
    item.code = line.code;
    item.suffix = line.suffix;
    out.push_back(std::move(item));
  }
}

void Layout::RenderSegment(int id, int depth, uint32_t& next_line, std::vector<Item>& out) const {
  const Segment& s = segments_[id];
  switch (s.kind) {
    case Kind::kLines:
      for (uint32_t line = s.first; line <= s.last; ++line) {
        const uint32_t start = lines_.Start(line);
        std::string_view content = text_.substr(start, lines_.ContentEnd(line) - start);
        if (depth > 0 && !IsBlank(content) && !InsideString(strings_, start)) {
          Item item;
          item.offset = start;
          for (int i = 0; i < depth; ++i) item.indent += style_.indent_unit;
          out.push_back(std::move(item));
        }
      }
      next_line = s.last + 1;
      return;
    case Kind::kInsert: RenderLines(s.header, s.base_indent, depth, next_line, out); return;
    case Kind::kWrap: {
      const bool root = id == kRoot;
      if (!root) RenderLines(s.header, s.base_indent, depth, next_line, out);
      for (int child : s.children) RenderSegment(child, root ? depth : depth + 1, next_line, out);
      if (!root) RenderLines(s.footer, s.base_indent, depth, next_line, out);
      return;
    }
  }
}

std::vector<Edit> Layout::Render() const {
  std::vector<Item> items;
  uint32_t next_line = 0;
  RenderSegment(kRoot, 0, next_line, items);

  // A lone dedent line followed directly by another inserted line is folded into that line's marker
  // ("dedent indent=4"), which keeps back-to-back blocks from costing a comment line each.
  std::vector<Item> folded;
  for (size_t i = 0; i < items.size(); ++i) {
    Item& item = items[i];
    const bool lone_dedent = item.inserted && item.code.empty() && item.suffix.starts_with(kDedent);
    if (lone_dedent && i + 1 < items.size() && items[i + 1].inserted && items[i + 1].offset == item.offset) {
      Item& next = items[i + 1];
      next.suffix = next.suffix.empty() ? item.suffix : item.suffix + " " + next.suffix;
      continue;
    }
    folded.push_back(std::move(item));
  }

  // At the end of a file with no final line break, each inserted line brings its break in front.
  const bool open_end = lines_.size() > 0 && !lines_.HasTerminator(lines_.size() - 1);
  std::vector<Edit> out;
  for (const Item& item : folded) {
    if (!item.inserted) {
      out.push_back(Edit{{item.offset, item.offset}, item.indent});
      continue;
    }
    std::string body = item.code.empty() ? std::string(kMarker) : fmt::format("{}  {}", item.code, kMarker);
    if (!item.suffix.empty()) body += " " + item.suffix;
    const bool eol_first = open_end && item.offset >= text_.size();
    out.push_back(Edit{{item.offset, item.offset},
                       eol_first ? style_.eol + item.indent + body : item.indent + body + style_.eol});
  }
  return out;
}

}  // namespace tl::instrument
