// RAII over tree-sitter's C API (runtime 0.20.7, grammar ABI 14). Parser and Tree own their C objects;
// Node is a borrowed value that is valid while its Tree lives. Walks are iterative (TreeCursor), so a
// file of 100,000 nested brackets cannot overflow the stack. Queries are compiled once per process and
// shared read-only; tree-sitter's C library does not evaluate #eq?/#match?, so predicates are ours.
#pragma once

#include <tree_sitter/api.h>

#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "linter/core/result.h"
#include "linter/core/text_range.h"

namespace tl::ts {

const TSLanguage* PythonLanguage();

class NamedChildRange;

class Node {
 public:
  Node() : node_{} {}
  explicit Node(TSNode node) : node_(node) {}

  bool IsNull() const { return ts_node_is_null(node_); }
  explicit operator bool() const { return !IsNull(); }

  std::string_view Type() const { return ts_node_type(node_); }
  TSSymbol Symbol() const { return ts_node_symbol(node_); }
  bool Is(std::string_view type) const { return !IsNull() && Type() == type; }
  bool IsNamed() const { return ts_node_is_named(node_); }
  bool IsMissing() const { return ts_node_is_missing(node_); }
  bool IsError() const { return Type() == "ERROR"; }
  bool HasError() const { return ts_node_has_error(node_); }

  uint32_t StartByte() const { return ts_node_start_byte(node_); }
  uint32_t EndByte() const { return ts_node_end_byte(node_); }
  TextRange Range() const { return {StartByte(), EndByte()}; }
  // The node's source text; `source` must be the buffer the tree was parsed from.
  std::string_view Text(std::string_view source) const { return source.substr(StartByte(), EndByte() - StartByte()); }

  Node Parent() const { return Node(ts_node_parent(node_)); }
  uint32_t ChildCount() const { return ts_node_child_count(node_); }
  uint32_t NamedChildCount() const { return ts_node_named_child_count(node_); }
  Node Child(uint32_t i) const { return Node(ts_node_child(node_, i)); }
  Node NamedChild(uint32_t i) const { return Node(ts_node_named_child(node_, i)); }
  Node Field(std::string_view name) const {
    return Node(ts_node_child_by_field_name(node_, name.data(), static_cast<uint32_t>(name.size())));
  }
  Node NextSibling() const { return Node(ts_node_next_sibling(node_)); }
  Node PrevSibling() const { return Node(ts_node_prev_sibling(node_)); }
  Node NextNamedSibling() const { return Node(ts_node_next_named_sibling(node_)); }
  Node PrevNamedSibling() const { return Node(ts_node_prev_named_sibling(node_)); }

  // All children, in order, through one cursor pass: O(children).
  std::vector<Node> Children() const;
  // The named children, in order, one at a time: O(children) in all (see NamedChildRange), where a loop
  // over NamedChild(i) is quadratic. `for (ts::Node arg : args.NamedChildren())`.
  NamedChildRange NamedChildren() const;

  TSNode raw() const { return node_; }
  friend bool operator==(Node a, Node b) { return ts_node_eq(a.node_, b.node_); }

 private:
  TSNode node_;
};

// The range-for iterator of a sequence of nodes handed out by `Node Next()`, which answers a null Node
// after the last.
template <typename Source>
class NextIterator {
 public:
  NextIterator(Source* source, Node node) : source_(source), node_(node) {}
  Node operator*() const { return node_; }
  NextIterator& operator++() {
    node_ = source_->Next();
    return *this;
  }
  bool operator==(std::default_sentinel_t) const { return node_.IsNull(); }

 private:
  Source* source_;
  Node node_;
};

// A node's named children, handed out in order by Next() or a range-for. In this tree-sitter (0.20)
// Child(i) and NamedChild(i) each walk the children from the first, so an indexed loop is quadratic in
// their number. A TreeCursor is linear but costs more to set up, and it steps over the anonymous tokens
// between named children (`,` in an argument list) one by one: for a few children, indexing is cheaper.
// So a node with up to kFewChildren named children is indexed and a wider one (a long block, a big
// literal) is read with a cursor; either way the children and their order are NamedChild(i)'s.
class NamedChildRange {
 public:
  static constexpr uint32_t kFewChildren = 8;

  explicit NamedChildRange(Node parent);
  ~NamedChildRange();
  NamedChildRange(NamedChildRange&& other) noexcept;
  NamedChildRange(const NamedChildRange&) = delete;
  NamedChildRange& operator=(const NamedChildRange&) = delete;
  NamedChildRange& operator=(NamedChildRange&&) = delete;

  uint32_t size() const { return count_; }
  // The next named child, or a null Node after the last. Inline: most nodes are narrow.
  Node Next() {
    if (next_ >= count_) return Node();
    if (count_ <= kFewChildren) return parent_.NamedChild(next_++);
    return NextWide();
  }

  using Iterator = NextIterator<NamedChildRange>;
  Iterator begin() { return Iterator(this, Next()); }
  std::default_sentinel_t end() const { return {}; }

 private:
  Node NextWide();  // a wide node's next named child, through the cursor

  Node parent_;
  uint32_t count_ = 0;
  uint32_t next_ = 0;  // children handed out
  bool cursor_live_ = false;
  TSTreeCursor cursor_{};
};

inline NamedChildRange Node::NamedChildren() const { return NamedChildRange(*this); }

class Tree {
 public:
  explicit Tree(TSTree* tree) : tree_(tree, &ts_tree_delete) {}
  Node Root() const { return Node(ts_tree_root_node(tree_.get())); }
  TSTree* raw() const { return tree_.get(); }
  // A shallow copy (tree-sitter shares the nodes): what another thread may read or parse against.
  Tree Copy() const { return Tree(ts_tree_copy(tree_.get())); }
  // Records an edit of the text, so that the next parse with this tree as the old one reuses what
  // the edit did not touch.
  void Edit(const TSInputEdit& edit) { ts_tree_edit(tree_.get(), &edit); }

 private:
  std::unique_ptr<TSTree, decltype(&ts_tree_delete)> tree_;
};

class Parser {
 public:
  Parser();  // a parser for Python
  // Parses `source`; a leading UTF-8 BOM is skipped, node offsets stay offsets into `source`. Fails on
  // input the runtime cannot handle safely (over 4 GiB; see parse_guard.h) or when
  // tree-sitter gives up; syntax errors come back as ERROR / MISSING nodes inside the tree.
  Result<Tree> Parse(std::string_view source);
  // An incremental parse: `old` is the previous tree of this text with every edit since recorded
  // (Tree::Edit). The result is the same tree a full parse gives.
  Result<Tree> Parse(std::string_view source, const Tree& old);

 private:
  Result<Tree> ParseWith(std::string_view source, const TSTree* old);
  std::unique_ptr<TSParser, decltype(&ts_parser_delete)> parser_;
};

// Preorder walk with a TreeCursor. The visitor returns true to descend into the node's children and
// false to skip them. Never recursive.
template <typename Visitor>
void Walk(Node root, Visitor&& visit) {
  if (root.IsNull()) return;
  TSTreeCursor cursor = ts_tree_cursor_new(root.raw());
  struct Guard {
    TSTreeCursor* c;
    ~Guard() { ts_tree_cursor_delete(c); }
  } guard{&cursor};
  for (;;) {
    const bool descend = visit(Node(ts_tree_cursor_current_node(&cursor)));
    if (descend && ts_tree_cursor_goto_first_child(&cursor)) continue;
    for (;;) {
      if (ts_tree_cursor_goto_next_sibling(&cursor)) break;
      if (!ts_tree_cursor_goto_parent(&cursor)) return;
    }
  }
}

// The first ERROR or MISSING node in document order, or a null Node. Only subtrees that contain an
// error are entered, so a clean tree costs one flag test on the root.
Node FirstSyntaxError(Node root);

class Query;

// One match of a query: its pattern index and captures by capture index.
struct Capture {
  uint32_t index;
  Node node;
};
struct Match {
  uint32_t pattern;
  std::vector<Capture> captures;
  // The first node captured under `name`, or a null Node.
  Node Get(const Query& query, std::string_view name) const;
};

class Query {
 public:
  // Compiles `source` for Python. The error names the byte offset and kind of the problem.
  static Result<std::shared_ptr<const Query>> Compile(std::string_view source);

  uint32_t CaptureIndex(std::string_view name) const;  // UINT32_MAX when absent
  std::string_view CaptureName(uint32_t index) const;
  TSQuery* raw() const { return query_.get(); }

  explicit Query(TSQuery* query) : query_(query, &ts_query_delete) {}

 private:
  std::unique_ptr<TSQuery, decltype(&ts_query_delete)> query_;
};

// Runs a query over a subtree and returns every match (the cursor is per call: queries are shared).
std::vector<Match> RunQuery(const Query& query, Node root);

}  // namespace tl::ts
