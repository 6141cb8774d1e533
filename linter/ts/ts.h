// RAII over tree-sitter's C API (runtime 0.20.7, grammar ABI 14). Parser and Tree own their C objects.
// A Tree's nodes are read from a flat copy of it (FlatTree), made once on the first Root(): tree-sitter
// 0.20 answers a node's i-th child, its parent or a field by walking the children from the first (and
// the parent from the root), hundreds of instructions a question, and the semantic model asks millions
// of them. The flat copy answers each from an array. Node is a borrowed value that is valid while its
// Tree (or a Copy() made before the next Edit()) lives. Walks are iterative, so a file of 100,000
// nested brackets cannot overflow the stack.
#pragma once

#include <tree_sitter/api.h>

#include <atomic>
#include <cstdint>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "linter/core/result.h"
#include "linter/core/text_range.h"

namespace tl::ts {

const TSLanguage* PythonLanguage();

class NamedChildRange;
class FlatTree;

class Node {
 public:
  Node() = default;
  Node(const FlatTree* tree, uint32_t index) : tree_(tree), index_(index) {}

  bool IsNull() const { return tree_ == nullptr; }
  explicit operator bool() const { return !IsNull(); }

  inline std::string_view Type() const;
  inline TSSymbol Symbol() const;
  bool Is(std::string_view type) const { return !IsNull() && Type() == type; }
  inline bool IsNamed() const;
  inline bool IsMissing() const;
  bool IsError() const { return Type() == "ERROR"; }
  inline bool HasError() const;

  inline uint32_t StartByte() const;
  inline uint32_t EndByte() const;
  TextRange Range() const { return {StartByte(), EndByte()}; }
  // The node's source text; `source` must be the buffer the tree was parsed from.
  std::string_view Text(std::string_view source) const { return source.substr(StartByte(), EndByte() - StartByte()); }

  inline Node Parent() const;
  inline uint32_t ChildCount() const;
  inline uint32_t NamedChildCount() const;
  inline Node Child(uint32_t i) const;
  inline Node NamedChild(uint32_t i) const;
  // The first child under a field, by name or by id (ts_language_field_id_for_name).
  Node Field(std::string_view name) const;
  inline Node FieldById(TSFieldId field) const;
  inline Node NextSibling() const;
  inline Node PrevSibling() const;
  inline Node NextNamedSibling() const;
  inline Node PrevNamedSibling() const;
  // The smallest node (named or not) under this one that spans bytes [start, end], as
  // ts_node_descendant_for_byte_range answers it.
  Node DescendantForByteRange(uint32_t start, uint32_t end) const;

  // All children, in order.
  std::vector<Node> Children() const;
  // The named children, in order: `for (ts::Node arg : args.NamedChildren())`.
  inline NamedChildRange NamedChildren() const;

  // The node's place in its tree (preorder), and the tree: with Id(), a key for caches of one tree.
  uint32_t Id() const { return index_; }
  const FlatTree* Owner() const { return tree_; }
  friend bool operator==(Node a, Node b) { return a.tree_ == b.tree_ && a.index_ == b.index_; }

 private:
  template <typename Visitor>
  friend void Walk(Node root, Visitor&& visit);
  const FlatTree* tree_ = nullptr;
  uint32_t index_ = 0;
};

// A tree-sitter tree copied into arrays, in preorder: each node's bytes, symbol, flags, parent, field
// and subtree end, and each node's children and named children as runs of a shared index array. What
// every question answers is what tree-sitter's node API answers for the same node (a unit test compares
// them node by node), with one exception: a string literal without interpolations is a leaf. Tree-sitter
// gives it children (string_start, string_content and its escape_sequence nodes, string_end) that hold
// nothing its text does not, and that nothing reads (semantic::StringContent reads the text between the
// quotes). They are a tenth of the nodes of a library with docstrings, and walking and copying them
// cost 0.8% of the instructions of a check with the project pass (bench/check_instructions.sh). An
// f-string with interpolations keeps its children: they hold code. So does a string with a syntax error
// below it.
class FlatTree {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  enum Flags : uint8_t { kNamed = 1, kMissing = 2, kHasError = 4 };
  struct Record {
    uint32_t start = 0;
    uint32_t end = 0;
    uint32_t parent = kNone;
    uint32_t subtree_end = 0;  // one past the last node of its subtree
    uint32_t kids = 0;         // its children: kids_[kids, kids + kid_count)
    uint32_t kid_count = 0;
    uint32_t named = 0;  // its named children: named_[named, named + named_count)
    uint32_t named_count = 0;
    uint32_t slot = 0;  // its place among its parent's children
    TSSymbol symbol = 0;
    uint8_t field = 0;  // the field it is under in its parent (0: none; ids fit a byte in this grammar)
    uint8_t flags = 0;
  };

  // What an earlier flat tree of the same tree's history lends to the next: tree-sitter's incremental
  // parse reuses every subtree an edit did not touch (the same subtree, so the same node id), and such a
  // subtree's nodes are copied from `previous`, their bytes shifted, instead of walked again. `edits`
  // are the edits since `previous` was made, in the order they were made (Tree::Edit).
  struct Reuse {
    const FlatTree* previous = nullptr;
    std::span<const TSInputEdit> edits;
  };

  // The flat copy of `tree` (which it keeps a reference to: the node ids stay valid while it lives).
  // With `keep_tree` false, it keeps neither the tree nor its node ids, so that the tree's memory goes
  // when its Tree lets it go (Parser's TreeUse); such a flat tree is never lent (Tree::LendTo).
  explicit FlatTree(const TSTree* tree, const Reuse* reuse = nullptr, bool keep_tree = true);
  ~FlatTree();
  FlatTree(const FlatTree&) = delete;
  FlatTree& operator=(const FlatTree&) = delete;

  const Record& At(uint32_t index) const { return records_[index]; }
  uint32_t Kid(uint32_t slot) const { return kids_[slot]; }
  uint32_t NamedKid(uint32_t slot) const { return named_[slot]; }
  const uint32_t* NamedKids(uint32_t first) const { return named_.data() + first; }
  size_t size() const { return records_.size(); }
  size_t MemoryBytes() const;
  // How many nodes were copied from the previous flat tree rather than walked.
  size_t Reused() const { return reused_; }

  // The flat tree of a text made from `before`'s by rewriting its top-level statements `first` to
  // `last` (places among its root's children), a clean stretch: `region` is the flat tree of the new
  // stretch parsed alone, which starts at byte `at` of the new text, and every node after the stretch
  // has moved by `shift` bytes. The copied nodes keep their ids and the region's nodes get none (a
  // later incremental parse can only reuse nodes of `before`'s tree, which this one keeps).
  static std::unique_ptr<const FlatTree> Splice(const FlatTree& before, uint32_t first, uint32_t last,
                                                const FlatTree& region, uint32_t at, int64_t shift);

 private:
  FlatTree() = default;
  // Copies the subtree of `previous` that tree-sitter reused for the node just added at `index`, if it
  // is one; false when it is not (the node is then walked).
  bool CopyReused(uint32_t index, TSNode node, const Reuse& reuse);

  std::vector<Record> records_;
  std::vector<uint32_t> kids_;
  std::vector<uint32_t> named_;
  std::vector<const void*> ids_;  // tree-sitter's id of each node; none when made without the tree
  TSTree* owner_ = nullptr;       // a copy of the tree the ids belong to
  size_t reused_ = 0;
};

inline std::string_view Node::Type() const { return ts_language_symbol_name(PythonLanguage(), Symbol()); }
inline TSSymbol Node::Symbol() const { return tree_->At(index_).symbol; }
inline bool Node::IsNamed() const { return (tree_->At(index_).flags & FlatTree::kNamed) != 0; }
inline bool Node::IsMissing() const { return (tree_->At(index_).flags & FlatTree::kMissing) != 0; }
inline bool Node::HasError() const { return (tree_->At(index_).flags & FlatTree::kHasError) != 0; }
inline uint32_t Node::StartByte() const { return tree_->At(index_).start; }
inline uint32_t Node::EndByte() const { return tree_->At(index_).end; }
inline Node Node::Parent() const {
  if (IsNull()) return Node();
  const uint32_t parent = tree_->At(index_).parent;
  return parent == FlatTree::kNone ? Node() : Node(tree_, parent);
}
inline uint32_t Node::ChildCount() const { return IsNull() ? 0 : tree_->At(index_).kid_count; }
inline uint32_t Node::NamedChildCount() const { return IsNull() ? 0 : tree_->At(index_).named_count; }
inline Node Node::Child(uint32_t i) const {
  if (IsNull()) return Node();
  const FlatTree::Record& r = tree_->At(index_);
  return i < r.kid_count ? Node(tree_, tree_->Kid(r.kids + i)) : Node();
}
inline Node Node::NamedChild(uint32_t i) const {
  if (IsNull()) return Node();
  const FlatTree::Record& r = tree_->At(index_);
  return i < r.named_count ? Node(tree_, tree_->NamedKid(r.named + i)) : Node();
}
inline Node Node::FieldById(TSFieldId field) const {
  if (IsNull() || field == 0) return Node();
  const FlatTree::Record& r = tree_->At(index_);
  for (uint32_t i = 0; i < r.kid_count; ++i) {
    const uint32_t kid = tree_->Kid(r.kids + i);
    if (tree_->At(kid).field == field) return Node(tree_, kid);
  }
  return Node();
}
inline Node Node::NextSibling() const {
  const Node parent = Parent();
  if (parent.IsNull()) return Node();
  return parent.Child(tree_->At(index_).slot + 1);
}
inline Node Node::PrevSibling() const {
  const Node parent = Parent();
  const uint32_t slot = IsNull() ? 0 : tree_->At(index_).slot;
  if (parent.IsNull() || slot == 0) return Node();
  return parent.Child(slot - 1);
}
inline Node Node::NextNamedSibling() const {
  const Node parent = Parent();
  if (parent.IsNull()) return Node();
  const FlatTree::Record& p = tree_->At(parent.index_);
  for (uint32_t slot = tree_->At(index_).slot + 1; slot < p.kid_count; ++slot) {
    const uint32_t kid = tree_->Kid(p.kids + slot);
    if ((tree_->At(kid).flags & FlatTree::kNamed) != 0) return Node(tree_, kid);
  }
  return Node();
}
inline Node Node::PrevNamedSibling() const {
  const Node parent = Parent();
  if (parent.IsNull()) return Node();
  const FlatTree::Record& p = tree_->At(parent.index_);
  for (uint32_t slot = tree_->At(index_).slot; slot-- > 0;) {
    const uint32_t kid = tree_->Kid(p.kids + slot);
    if ((tree_->At(kid).flags & FlatTree::kNamed) != 0) return Node(tree_, kid);
  }
  return Node();
}

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

// A node's named children, handed out in order by Next() or a range-for, from the flat tree's array.
class NamedChildRange {
 public:
  explicit NamedChildRange(Node parent);

  uint32_t size() const { return count_; }
  // The next named child, or a null Node after the last.
  Node Next() { return next_ < count_ ? Node(tree_, kids_[next_++]) : Node(); }

  using Iterator = NextIterator<NamedChildRange>;
  Iterator begin() { return Iterator(this, Next()); }
  std::default_sentinel_t end() const { return {}; }

 private:
  const FlatTree* tree_ = nullptr;
  const uint32_t* kids_ = nullptr;
  uint32_t count_ = 0;
  uint32_t next_ = 0;  // children handed out
};

inline NamedChildRange::NamedChildRange(Node parent) {
  if (parent.IsNull()) return;
  tree_ = parent.Owner();
  const FlatTree::Record& r = tree_->At(parent.Id());
  kids_ = tree_->NamedKids(r.named);
  count_ = r.named_count;
}

inline NamedChildRange Node::NamedChildren() const { return NamedChildRange(*this); }

class Tree {
 public:
  explicit Tree(TSTree* tree) : tree_(tree, &ts_tree_delete), flat_(std::make_shared<Flat>()) {}
  // The root, from the flat copy (made on the first call, once, whichever thread asks).
  Node Root() const;
  // Tree-sitter's tree; null for a tree of a read-once parser (TreeUse::kReadOnce).
  TSTree* raw() const { return tree_.get(); }
  // Whether the tree holds an ERROR or MISSING node, from tree-sitter (no flat copy is made), or from
  // the flat tree of a spliced tree.
  bool HasError() const { return exact_ ? ts_node_has_error(ts_tree_root_node(tree_.get())) : Root().HasError(); }
  // Whether raw() is tree-sitter's parse of this very text. Not for a tree an incremental parse made by
  // parsing only the top-level statements its edits touched (Parser::Parse with an old tree): its flat
  // tree is the whole text's, and raw() is the last parse with every edit since, for a later parse.
  bool Exact() const { return exact_; }
  // A shallow copy (tree-sitter shares the nodes, and the copy shares the flat tree): what another
  // thread may read or parse against.
  Tree Copy() const {
    Tree copy(tree_ ? ts_tree_copy(tree_.get()) : nullptr, flat_);
    copy.exact_ = exact_;
    return copy;
  }
  // Records an edit of the text, so that the next parse with this tree as the old one reuses what
  // the edit did not touch, and the flat copy of that parse reuses this one's. Nodes read before the
  // edit stay valid in the copies that share them.
  void Edit(const TSInputEdit& edit);

 private:
  friend class Parser;
  struct Flat {
    std::once_flag once;
    std::unique_ptr<const FlatTree> tree;
    std::atomic<bool> built{false};
    // A made flat tree of an earlier state of this tree and the edits since, for the making of this
    // one (FlatTree::Reuse); let go once it is made.
    std::mutex mu;
    std::shared_ptr<Flat> previous;
    std::vector<TSInputEdit> edits;
  };
  Tree(TSTree* tree, std::shared_ptr<Flat> flat) : tree_(tree, &ts_tree_delete), flat_(std::move(flat)) {}
  // What the flat tree of a tree parsed from this one (after its edits) may reuse, into `into`.
  void LendTo(Flat& into) const;
  std::unique_ptr<TSTree, decltype(&ts_tree_delete)> tree_;
  std::shared_ptr<Flat> flat_;
  bool exact_ = true;
};

// What the trees of a parser are for. kEditable: they may be edited and parsed again (Tree::Edit), and
// keep tree-sitter's tree for that, with a flat copy made when first read. kReadOnce: parsed, read and
// dropped, as the command line's check does with each file. The flat copy is made at once, and
// tree-sitter's tree is deleted right after, while the walk has left it in the caches. Kept until the
// file's check was done, the parse inside the check took longer than the bare parse, and no longer
// does (bench/bench_check; about 3% of a one-job check with the project pass of the standard library;
// docs/semantic-model.md). Its raw() is then null and its HasError() is read from the flat tree. It can
// still be edited and parsed against: the next parse is a whole one.
enum class TreeUse : uint8_t { kEditable, kReadOnce };

class Parser {
 public:
  explicit Parser(TreeUse use = TreeUse::kEditable);  // a parser for Python
  // Parses `source`; a leading UTF-8 BOM is skipped, node offsets stay offsets into `source`. Fails on
  // input the runtime cannot handle safely (over 4 GiB; see parse_guard.h) or when
  // tree-sitter gives up; syntax errors come back as ERROR / MISSING nodes inside the tree.
  Result<Tree> Parse(std::string_view source);
  // An incremental parse: `old` is the previous tree of this text with every edit since recorded
  // (Tree::Edit). The result's flat tree is the one a full parse gives. When the edits stay inside a
  // few top-level statements of a clean tree that parse cleanly alone, only those are parsed and
  // spliced into the old flat tree (Tree::Exact is then false): tree-sitter's own incremental parse
  // can reparse the rest of the file after a change of a line's indentation.
  Result<Tree> Parse(std::string_view source, const Tree& old);
  // Tree-sitter's own incremental parse, never a splice: what makes a spliced tree's raw() the parse
  // of its text again, off the keystroke's path (a later edit that cannot be spliced would otherwise
  // pay for the edits the splices left to tree-sitter).
  Result<Tree> Reparse(std::string_view source, const Tree& old);

 private:
  // Source the runtime may be given (Refusal in ts.cpp said nothing against it).
  Result<Tree> ParseWith(std::string_view source, const TSTree* old);
  // Tree-sitter's incremental parse of source the runtime may be given, with the flat tree lent.
  Result<Tree> ParseAfter(std::string_view source, const Tree& old);
  // The spliced tree of Parse(source, old), or nullopt where the edits do not allow one.
  std::optional<Tree> Splice(std::string_view source, const Tree& old);
  // A new external scanner, before each parse.
  void FreshScanner();
  std::unique_ptr<TSParser, decltype(&ts_parser_delete)> parser_;
  TreeUse use_;
};

// Preorder walk. The visitor returns true to descend into the node's children and false to skip them.
// Never recursive.
template <typename Visitor>
void Walk(Node root, Visitor&& visit) {
  if (root.IsNull()) return;
  const FlatTree& tree = *root.tree_;
  const uint32_t end = tree.At(root.index_).subtree_end;
  for (uint32_t i = root.index_; i < end;) {
    i = visit(Node(&tree, i)) ? i + 1 : tree.At(i).subtree_end;
  }
}

// The first ERROR or MISSING node in document order, or a null Node. Only subtrees that contain an
// error are entered, so a clean tree costs one flag test on the root.
Node FirstSyntaxError(Node root);

}  // namespace tl::ts
