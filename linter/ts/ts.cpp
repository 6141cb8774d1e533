#include "linter/ts/ts.h"

#include "linter/ts/parse_guard.h"

#include <fmt/core.h>

extern "C" const TSLanguage* tree_sitter_python();

namespace tl::ts {

const TSLanguage* PythonLanguage() { return tree_sitter_python(); }

std::vector<Node> Node::Children() const {
  std::vector<Node> out;
  if (IsNull()) return out;
  out.reserve(ChildCount());
  TSTreeCursor cursor = ts_tree_cursor_new(node_);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      out.emplace_back(ts_tree_cursor_current_node(&cursor));
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

NamedChildRange::NamedChildRange(Node parent)
    : parent_(parent), count_(parent.IsNull() ? 0 : parent.NamedChildCount()) {}

NamedChildRange::~NamedChildRange() {
  if (cursor_live_) ts_tree_cursor_delete(&cursor_);
}

NamedChildRange::NamedChildRange(NamedChildRange&& other) noexcept
    : parent_(other.parent_),
      count_(other.count_),
      next_(other.next_),
      cursor_live_(other.cursor_live_),
      cursor_(other.cursor_) {
  other.cursor_live_ = false;  // the cursor's memory is this one's now
  other.count_ = other.next_;
}

Node NamedChildRange::NextWide() {
  const bool first = !cursor_live_;
  if (first) {
    cursor_ = ts_tree_cursor_new(parent_.raw());
    cursor_live_ = true;
  }
  for (bool moved = first ? ts_tree_cursor_goto_first_child(&cursor_) : ts_tree_cursor_goto_next_sibling(&cursor_);
       moved; moved = ts_tree_cursor_goto_next_sibling(&cursor_)) {
    const Node node(ts_tree_cursor_current_node(&cursor_));
    if (node.IsNamed()) {
      ++next_;
      return node;
    }
  }
  next_ = count_;
  return Node();
}

Parser::Parser() : parser_(ts_parser_new(), &ts_parser_delete) {
  ts_parser_set_language(parser_.get(), PythonLanguage());
}

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

}  // namespace

Result<Tree> Parser::Parse(std::string_view source) { return ParseWith(source, nullptr); }

Result<Tree> Parser::Parse(std::string_view source, const Tree& old) { return ParseWith(source, old.raw()); }

Result<Tree> Parser::ParseWith(std::string_view source, const TSTree* old) {
  if (source.size() > UINT32_MAX) return Error{"file is too large to parse (over 4 GiB)"};
  if (auto reason = UnparsableReason(source)) return Error{std::move(*reason)};
  // A UTF-8 BOM is left out of the parse with an included range rather than by handing tree-sitter a
  // shifted buffer, so every node offset stays a file offset.
  if (source.starts_with(kBom)) {
    const TSRange range{TSPoint{0, static_cast<uint32_t>(kBom.size())}, TSPoint{UINT32_MAX, UINT32_MAX},
                        static_cast<uint32_t>(kBom.size()), UINT32_MAX};
    ts_parser_set_included_ranges(parser_.get(), &range, 1);
  } else {
    ts_parser_set_included_ranges(parser_.get(), nullptr, 0);
  }
  TSTree* tree = ts_parser_parse_string(parser_.get(), old, source.data(), static_cast<uint32_t>(source.size()));
  if (tree == nullptr) {
    ts_parser_reset(parser_.get());
    return Error{"the parser gave up on this file"};
  }
  return Tree(tree);
}

Node FirstSyntaxError(Node root) {
  Node found;
  if (!root.HasError()) return found;
  Walk(root, [&](Node node) {
    if (found) return false;
    if (node.IsError() || node.IsMissing()) {
      found = node;
      return false;
    }
    return node.HasError();
  });
  return found;
}

Node Match::Get(const Query& query, std::string_view name) const {
  const uint32_t index = query.CaptureIndex(name);
  for (const auto& capture : captures) {
    if (capture.index == index) return capture.node;
  }
  return Node();
}

Result<std::shared_ptr<const Query>> Query::Compile(std::string_view source) {
  uint32_t error_offset = 0;
  TSQueryError error_type = TSQueryErrorNone;
  TSQuery* query = ts_query_new(PythonLanguage(), source.data(), static_cast<uint32_t>(source.size()), &error_offset,
                                &error_type);
  if (query == nullptr) {
    static constexpr const char* kKinds[] = {"none",    "syntax",    "node type", "field",
                                             "capture", "structure", "language"};
    const auto kind = static_cast<size_t>(error_type);
    return Error{fmt::format("query error ({}) at byte {}: `{}`", kind < 7 ? kKinds[kind] : "unknown", error_offset,
                             source.substr(error_offset, 40))};
  }
  return std::make_shared<const Query>(query);
}

uint32_t Query::CaptureIndex(std::string_view name) const {
  const uint32_t count = ts_query_capture_count(query_.get());
  for (uint32_t i = 0; i < count; ++i) {
    if (CaptureName(i) == name) return i;
  }
  return UINT32_MAX;
}

std::string_view Query::CaptureName(uint32_t index) const {
  uint32_t length = 0;
  const char* name = ts_query_capture_name_for_id(query_.get(), index, &length);
  return {name, length};
}

std::vector<Match> RunQuery(const Query& query, Node root) {
  std::vector<Match> out;
  std::unique_ptr<TSQueryCursor, decltype(&ts_query_cursor_delete)> cursor(ts_query_cursor_new(),
                                                                           &ts_query_cursor_delete);
  ts_query_cursor_exec(cursor.get(), query.raw(), root.raw());
  TSQueryMatch match;
  while (ts_query_cursor_next_match(cursor.get(), &match)) {
    Match m{match.pattern_index, {}};
    m.captures.reserve(match.capture_count);
    for (uint16_t i = 0; i < match.capture_count; ++i) {
      m.captures.push_back({match.captures[i].index, Node(match.captures[i].node)});
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace tl::ts
