#include "linter/ts/ts.h"

#include "linter/ts/parse_guard.h"

#include <fmt/core.h>

#include <algorithm>
#include <optional>

extern "C" const TSLanguage* tree_sitter_python();

namespace tl::ts {

const TSLanguage* PythonLanguage() { return tree_sitter_python(); }

std::vector<Node> Node::Children() const {
  std::vector<Node> out;
  const uint32_t count = ChildCount();
  out.reserve(count);
  for (uint32_t i = 0; i < count; ++i) out.push_back(Child(i));
  return out;
}

Node Node::Field(std::string_view name) const {
  if (IsNull()) return Node();
  return FieldById(ts_language_field_id_for_name(PythonLanguage(), name.data(), static_cast<uint32_t>(name.size())));
}

Node Node::DescendantForByteRange(uint32_t start, uint32_t end) const {
  // tree-sitter's own descent: into the first child that reaches past both ends of the range and
  // starts at or before its start, until no child does.
  Node node = *this;
  for (bool descended = !IsNull(); descended;) {
    descended = false;
    const uint32_t count = node.ChildCount();
    for (uint32_t i = 0; i < count; ++i) {
      const Node child = node.Child(i);
      if (child.EndByte() < end || child.EndByte() <= start) continue;
      if (start < child.StartByte()) break;
      node = child;
      descended = true;
      break;
    }
  }
  return node;
}

namespace {

// What the flat tree needs to know of each symbol, beside what it asks of each node.
enum SymbolBits : uint8_t {
  kSymbolNamed = 1,
  // A child of a node of the symbol may stand under a field. Not for the grammar's types that have no
  // fields at all (node-types.json, read into python_fieldless.inc when the project is configured):
  // tree-sitter answers a child's field by walking its parent's field map and those of the hidden nodes
  // between, a tenth of the cost of copying a node, and most nodes are children of such types
  // (`module`, `argument_list`, `expression_statement`, strings, lists and tuples).
  kSymbolFields = 2,
  // A node of the symbol may stand under a field of its parent: every named symbol, and the tokens that
  // do somewhere in the grammar (node-types.json again, read into python_field_tokens.inc). In a tree
  // without errors, the field of any other token (`(`, `:`, `def`) is none, and is not asked for.
  kSymbolUnderField = 4,
};

// By symbol, as ts_node_symbol answers (a public symbol). ERROR is past the end (named, with fields).
const std::vector<uint8_t>& SymbolTable() {
  static const std::vector<uint8_t> table = [] {
    static constexpr std::string_view kFieldless[] = {
#include "python_fieldless.inc"
    };
    static constexpr std::string_view kFieldTokens[] = {
#include "python_field_tokens.inc"
    };
    const TSLanguage* language = PythonLanguage();
    std::vector<uint8_t> bits(ts_language_symbol_count(language), kSymbolFields | kSymbolUnderField);
    for (size_t i = 0; i < bits.size(); ++i) {
      const auto symbol = static_cast<TSSymbol>(i);  // a symbol count fits TSSymbol
      const std::string_view name = ts_language_symbol_name(language, symbol);
      if (ts_language_symbol_type(language, symbol) == TSSymbolTypeAnonymous &&
          std::find(std::begin(kFieldTokens), std::end(kFieldTokens), name) == std::end(kFieldTokens)) {
        bits[i] &= static_cast<uint8_t>(~kSymbolUnderField);
      }
      if (ts_language_symbol_type(language, symbol) != TSSymbolTypeRegular) continue;
      bits[i] |= kSymbolNamed;
      if (std::find(std::begin(kFieldless), std::end(kFieldless), name) != std::end(kFieldless)) {
        bits[i] &= static_cast<uint8_t>(~kSymbolFields);
      }
    }
    return bits;
  }();
  return table;
}

// Where byte `at` of the text after `edits` was before them, or nullopt inside text an edit wrote.
std::optional<uint32_t> BeforeEdits(uint32_t at, std::span<const TSInputEdit> edits) {
  for (size_t i = edits.size(); i-- > 0;) {
    const TSInputEdit& edit = edits[i];
    if (at < edit.start_byte) continue;
    if (at < edit.new_end_byte) return std::nullopt;
    at = at - edit.new_end_byte + edit.old_end_byte;
  }
  return at;
}

}  // namespace

FlatTree::FlatTree(const TSTree* tree, const Reuse* reuse, bool keep_tree)
    : owner_(keep_tree ? ts_tree_copy(tree) : nullptr) {
  const TSNode root = ts_tree_root_node(tree);
  if (ts_node_is_null(root)) return;
  // Preorder through a cursor. A node's children get their slots when it is entered (tree-sitter keeps
  // the counts); `open` holds the nodes whose children are being visited and the next slot of each.
  struct Open {
    uint32_t index;
    uint32_t next_kid;
    uint32_t kids_end;  // one past its last child slot: kids + kid_count
    uint32_t next_named;
    uint32_t named_end;
  };
  std::vector<Open> open;
  // A tree without errors has no node with one, nor a missing one: two questions fewer a node.
  const bool errors = ts_node_has_error(root);
  const std::vector<uint8_t>& symbols = SymbolTable();
  static const TSSymbol kString = ts_language_symbol_for_name(PythonLanguage(), "string", 6, true);
  static const TSSymbol kStringContent = ts_language_symbol_for_name(PythonLanguage(), "string_content", 14, true);
  // A string literal without interpolations is a leaf (the class comment): its children are its quotes,
  // with at most one string_content between them (two contents are always split by an interpolation).
  // One with an error below it keeps them, for FirstSyntaxError.
  const auto plain_string = [&](TSNode node, uint32_t kids) {
    return (kids == 2 || (kids == 3 && ts_node_symbol(ts_node_child(node, 1)) == kStringContent)) &&
           !(errors && ts_node_has_error(node));
  };
  const auto bits = [&](TSSymbol symbol) -> uint8_t {
    return symbol < symbols.size() ? symbols[symbol] : uint8_t{kSymbolNamed | kSymbolFields | kSymbolUnderField};
  };
  const auto add = [&](TSNode node, TSSymbol symbol, TSFieldId field) {
    // Tree-sitter's answers first, then the arrays: the compiler cannot see through its calls, and
    // reads the arrays' sizes again after each one.
    Record r;
    r.start = ts_node_start_byte(node);
    r.end = ts_node_end_byte(node);
    r.symbol = symbol;
    r.kid_count = ts_node_child_count(node);
    r.named_count = r.kid_count == 0 ? 0 : ts_node_named_child_count(node);
    if (symbol == kString && plain_string(node, r.kid_count)) r.kid_count = r.named_count = 0;
    r.field = field <= UINT8_MAX ? static_cast<uint8_t>(field) : 0;
    uint8_t flags = (bits(r.symbol) & kSymbolNamed) != 0 ? kNamed : 0;
    if (errors) {
      flags |= static_cast<uint8_t>((ts_node_is_missing(node) ? kMissing : 0) |
                                    (ts_node_has_error(node) ? kHasError : 0));
    }
    r.flags = flags;
    const auto index = static_cast<uint32_t>(records_.size());
    r.kids = static_cast<uint32_t>(kids_.size());
    r.named = static_cast<uint32_t>(named_.size());
    if (r.kid_count != 0) {
      kids_.resize(r.kids + r.kid_count, kNone);
      named_.resize(r.named + r.named_count, kNone);
    }
    if (!open.empty()) {
      Open& parent = open.back();
      r.parent = parent.index;
      r.slot = parent.next_kid - records_[parent.index].kids;
      // The walk leaves a parent once its counted slots are filled, so these hold; a child past the
      // counts would take another node's slot.
      if (parent.next_kid < parent.kids_end) kids_[parent.next_kid++] = index;
      if ((flags & kNamed) != 0 && parent.next_named < parent.named_end) named_[parent.next_named++] = index;
    }
    records_.push_back(r);
    if (keep_tree) ids_.push_back(node.id);
    return index;
  };
  // A closed node keeps the children it got (the same as its counts, unless tree-sitter's counts and its
  // cursor disagreed) and learns where its subtree ends.
  const auto close = [&](const Open& node) {
    Record& r = records_[node.index];
    r.kid_count = node.next_kid - r.kids;
    r.named_count = node.next_named - r.named;
    r.subtree_end = static_cast<uint32_t>(records_.size());
  };
  // Room for all nodes at once: growing the arrays copies them, and the copies touch fresh pages, which
  // costs more than the walk itself. Python runs one node per 5 to 6 bytes in libraries, and one per 2
  // in dense model code; a page reserved and never written costs no memory.
  const size_t estimate = ts_node_end_byte(root) / 2 + 64;
  records_.reserve(estimate);
  kids_.reserve(estimate);
  named_.reserve(estimate);
  if (keep_tree) ids_.reserve(estimate);
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  TSNode node = root;
  TSSymbol symbol = ts_node_symbol(root);
  TSFieldId field = 0;
  for (;;) {
    const uint32_t current = add(node, symbol, field);
    const bool copied = reuse != nullptr && records_[current].kid_count > 0 && CopyReused(current, node, *reuse);
    // A leaf is known from its count: asking the cursor for its first child costs as much as a visit.
    if (!copied && records_[current].kid_count > 0 && ts_tree_cursor_goto_first_child(&cursor)) {
      const Record& r = records_[current];
      open.push_back({current, r.kids, r.kids + r.kid_count, r.named, r.named + r.named_count});
    } else {
      if (!copied) {
        const Record& r = records_[current];
        close({current, r.kids, r.kids, r.named, r.named});
      }
      // On to the next sibling, climbing out of the nodes whose children are all visited. The counts say
      // when a child is its parent's last: asking the cursor for a sibling that is not there costs more
      // than finding one (it climbs through the hidden nodes between), once for every parent.
      bool done = false;
      for (;;) {
        if (open.empty()) {
          done = true;
          break;
        }
        if (open.back().next_kid < open.back().kids_end && ts_tree_cursor_goto_next_sibling(&cursor)) break;
        if (!ts_tree_cursor_goto_parent(&cursor)) {
          done = true;
          break;
        }
        close(open.back());
        open.pop_back();
      }
      if (done) break;
    }
    node = ts_tree_cursor_current_node(&cursor);
    symbol = ts_node_symbol(node);
    const bool may_have_field = open.empty() || ((bits(records_[open.back().index].symbol) & kSymbolFields) != 0 &&
                                                 (errors || (bits(symbol) & kSymbolUnderField) != 0));
    field = may_have_field ? ts_tree_cursor_current_field_id(&cursor) : 0;
  }
  ts_tree_cursor_delete(&cursor);
  while (!open.empty()) {  // not reached: the cursor climbs back to the root
    close(open.back());
    open.pop_back();
  }
}

FlatTree::~FlatTree() {
  if (owner_ != nullptr) ts_tree_delete(owner_);
}

bool FlatTree::CopyReused(uint32_t index, TSNode node, const Reuse& reuse) {
  const FlatTree& before = *reuse.previous;
  const Record& mine = records_[index];
  const std::optional<uint32_t> was = BeforeEdits(mine.start, reuse.edits);
  if (!was || before.records_.empty()) return false;
  // The previous tree's nodes that started there (preorder keeps starts in order): the one with the
  // same id, the same width and the same children is this node's subtree, untouched.
  auto it = std::lower_bound(before.records_.begin(), before.records_.end(), *was,
                             [](const Record& r, uint32_t at) { return r.start < at; });
  uint32_t from = kNone;
  for (; it != before.records_.end() && it->start == *was; ++it) {
    const auto k = static_cast<uint32_t>(it - before.records_.begin());
    if (before.ids_[k] == node.id && it->end - it->start == mine.end - mine.start && it->kid_count == mine.kid_count &&
        it->named_count == mine.named_count) {
      from = k;
      break;
    }
  }
  if (from == kNone) return false;
  // Copy the subtree's records, and its slots in the child arrays (a subtree's slots are one run, in
  // preorder like its records), with every index, slot and byte moved by where it lands.
  const uint32_t to = before.records_[from].subtree_end;
  const uint32_t kids_from = before.records_[from].kids;
  const auto kids_to = static_cast<uint32_t>(to < before.records_.size() ? before.records_[to].kids
                                                                         : before.kids_.size());
  const uint32_t named_from = before.records_[from].named;
  const auto named_to = static_cast<uint32_t>(to < before.records_.size() ? before.records_[to].named
                                                                          : before.named_.size());
  const uint32_t index_shift = index - from;  // unsigned arithmetic: wraps back on the way
  const uint32_t byte_shift = mine.start - *was;
  const uint32_t kid_shift = mine.kids - kids_from;
  const uint32_t named_shift = mine.named - named_from;
  // Slots [from, to) of `source`, to where this subtree's slots start in `target`.
  const auto copy_slots = [&](std::vector<uint32_t>& target, const std::vector<uint32_t>& source, uint32_t from_slot,
                              uint32_t to_slot, uint32_t at) {
    target.resize(at + (to_slot - from_slot));
    for (uint32_t slot = from_slot; slot < to_slot; ++slot) {
      const uint32_t kid = source[slot];
      target[at + (slot - from_slot)] = kid == kNone ? kNone : kid + index_shift;
    }
  };
  copy_slots(kids_, before.kids_, kids_from, kids_to, mine.kids);
  copy_slots(named_, before.named_, named_from, named_to, mine.named);
  for (uint32_t k = from + 1; k < to; ++k) {
    Record r = before.records_[k];
    r.start += byte_shift;
    r.end += byte_shift;
    r.parent += index_shift;
    r.subtree_end += index_shift;
    r.kids += kid_shift;
    r.named += named_shift;
    records_.push_back(r);
    ids_.push_back(before.ids_[k]);
  }
  records_[index].subtree_end = static_cast<uint32_t>(records_.size());
  reused_ += to - from;
  return true;
}

std::unique_ptr<const FlatTree> FlatTree::Splice(const FlatTree& before, uint32_t first, uint32_t last,
                                                 const FlatTree& region, uint32_t at, int64_t shift) {
  // Both trees are laid out as the constructor lays them out: records in preorder, the root's child
  // slots first, then each node's slots in the order of its record, so that the slots of a run of
  // records are one run. The new tree is the old root, the old records before the stretch, the
  // region's records but its root, and the old records after the stretch, each run with its indices,
  // slots and bytes moved to where it lands.
  auto out = std::unique_ptr<FlatTree>(new FlatTree());
  const Record& old_root = before.records_[0];
  const Record& new_stretch = region.records_[0];
  const auto top = [&](uint32_t k) { return before.kids_[old_root.kids + k]; };
  const uint32_t prefix_end = top(first);  // records [1, prefix_end): the statements before the stretch
  const uint32_t suffix_begin = before.records_[top(last)].subtree_end;
  const auto region_nodes = static_cast<uint32_t>(region.records_.size() - 1);
  const uint32_t index_shift = prefix_end + region_nodes - suffix_begin;  // for the suffix; unsigned wrap
  const uint32_t region_index_shift = prefix_end - 1;
  const auto moved = [](uint32_t index, uint32_t by) { return index == kNone ? kNone : index + by; };
  const size_t size = before.records_.size() - (suffix_begin - prefix_end) + region_nodes;

  // One child array (kids_ or named_, with the records' offset into it and count): the root's run (the
  // old root's children before and after the stretch, the region root's between), then the runs of the
  // records before the stretch, of the region, and after the stretch. Returns by how much each of those
  // three runs moved, for its records' offsets.
  struct Moves {
    uint32_t prefix;
    uint32_t region;
    uint32_t suffix;
  };
  const auto lay_out = [&](std::vector<uint32_t> FlatTree::*slots, uint32_t Record::*offset, uint32_t Record::*count,
                           uint32_t before_stretch, uint32_t after_stretch) {
    const auto run_at = [&](const FlatTree& tree, size_t record) {
      return record < tree.records_.size() ? tree.records_[record].*offset
                                           : static_cast<uint32_t>((tree.*slots).size());
    };
    const std::vector<uint32_t>& old_slots = before.*slots;
    const std::vector<uint32_t>& new_slots = region.*slots;
    std::vector<uint32_t>& target = out.get()->*slots;
    target.reserve(old_slots.size() + new_slots.size());
    const uint32_t old_root_run = old_root.*offset;
    for (uint32_t k = 0; k < before_stretch; ++k) target.push_back(old_slots[old_root_run + k]);
    for (uint32_t k = 0; k < new_stretch.*count; ++k) {
      target.push_back(moved(new_slots[new_stretch.*offset + k], region_index_shift));
    }
    for (uint32_t k = old_root.*count - after_stretch; k < old_root.*count; ++k) {
      target.push_back(moved(old_slots[old_root_run + k], index_shift));
    }
    Moves moves{};
    moves.prefix = static_cast<uint32_t>(target.size()) - run_at(before, 1);
    target.insert(target.end(), old_slots.begin() + run_at(before, 1), old_slots.begin() + run_at(before, prefix_end));
    moves.region = static_cast<uint32_t>(target.size()) - run_at(region, 1);
    for (uint32_t slot = run_at(region, 1); slot < new_slots.size(); ++slot) {
      target.push_back(moved(new_slots[slot], region_index_shift));
    }
    moves.suffix = static_cast<uint32_t>(target.size()) - run_at(before, suffix_begin);
    for (uint32_t slot = run_at(before, suffix_begin); slot < old_slots.size(); ++slot) {
      target.push_back(moved(old_slots[slot], index_shift));
    }
    return moves;
  };
  // The root's named children before and after the stretch.
  const auto named_among = [&](uint32_t from_child, uint32_t to_child) {
    uint32_t named = 0;
    for (uint32_t k = from_child; k < to_child; ++k) named += (before.records_[top(k)].flags & kNamed) != 0 ? 1 : 0;
    return named;
  };
  const uint32_t named_before = named_among(0, first);
  const uint32_t named_after = named_among(last + 1, old_root.kid_count);
  const Moves kids = lay_out(&FlatTree::kids_, &Record::kids, &Record::kid_count, first, old_root.kid_count - last - 1);
  const Moves named = lay_out(&FlatTree::named_, &Record::named, &Record::named_count, named_before, named_after);

  out->records_.reserve(size);
  out->ids_.reserve(size);
  Record root = old_root;
  root.end = static_cast<uint32_t>(old_root.end + shift);
  root.kids = 0;
  root.named = 0;
  root.kid_count = first + new_stretch.kid_count + (old_root.kid_count - last - 1);
  root.named_count = named_before + new_stretch.named_count + named_after;
  root.subtree_end = static_cast<uint32_t>(size);
  out->records_.push_back(root);
  out->ids_.push_back(nullptr);
  // The statements before the stretch: where they were; their slots follow the root's.
  for (uint32_t i = 1; i < prefix_end; ++i) {
    Record r = before.records_[i];
    r.kids += kids.prefix;
    r.named += named.prefix;
    out->records_.push_back(r);
    out->ids_.push_back(before.ids_[i]);
  }
  // The new stretch.
  for (uint32_t i = 1; i < region.records_.size(); ++i) {
    Record r = region.records_[i];
    r.start += at;
    r.end += at;
    if (r.parent == 0) r.slot += first;
    r.parent = r.parent == 0 ? 0 : r.parent + region_index_shift;
    r.subtree_end += region_index_shift;
    r.kids += kids.region;
    r.named += named.region;
    out->records_.push_back(r);
    out->ids_.push_back(nullptr);
  }
  // The statements after it, moved.
  for (uint32_t i = suffix_begin; i < before.records_.size(); ++i) {
    Record r = before.records_[i];
    r.start = static_cast<uint32_t>(r.start + shift);
    r.end = static_cast<uint32_t>(r.end + shift);
    if (r.parent == 0) r.slot = r.slot - (last + 1) + first + new_stretch.kid_count;
    r.parent = r.parent == 0 ? 0 : r.parent + index_shift;
    r.subtree_end += index_shift;
    r.kids += kids.suffix;
    r.named += named.suffix;
    out->records_.push_back(r);
    out->ids_.push_back(before.ids_[i]);
  }
  out->reused_ = (prefix_end - 1) + (before.records_.size() - suffix_begin);
  if (before.owner_ != nullptr) out->owner_ = ts_tree_copy(before.owner_);
  return out;
}

size_t FlatTree::MemoryBytes() const {
  return records_.capacity() * sizeof(Record) + (kids_.capacity() + named_.capacity()) * sizeof(uint32_t) +
         ids_.capacity() * sizeof(const void*);
}

Node Tree::Root() const {
  Flat& flat = *flat_;
  std::call_once(flat.once, [&] {
    std::shared_ptr<Flat> previous;
    std::vector<TSInputEdit> edits;
    {
      const std::lock_guard lock(flat.mu);
      previous = std::move(flat.previous);
      edits = std::move(flat.edits);
    }
    FlatTree::Reuse reuse;
    if (previous && previous->built.load(std::memory_order_acquire)) reuse = {previous->tree.get(), edits};
    flat.tree = std::make_unique<const FlatTree>(tree_.get(), reuse.previous != nullptr ? &reuse : nullptr);
    flat.built.store(true, std::memory_order_release);
  });
  return flat.tree->size() == 0 ? Node() : Node(flat.tree.get(), 0);
}

void Tree::LendTo(Flat& into) const {
  // Nothing from a read-once tree: its flat tree has no node ids to find reused subtrees by, and no
  // tree-sitter tree to splice against.
  if (!tree_) return;
  // The flat tree of this state when made (in the coordinates of the text now), else what this state
  // was lent, with its edits.
  if (flat_->built.load(std::memory_order_acquire)) {
    into.previous = flat_;
    into.edits.clear();
    return;
  }
  const std::lock_guard lock(flat_->mu);
  into.previous = flat_->previous;
  into.edits = flat_->edits;
}

void Tree::Edit(const TSInputEdit& edit) {
  if (tree_) ts_tree_edit(tree_.get(), &edit);
  auto next = std::make_shared<Flat>();
  LendTo(*next);
  if (next->previous) next->edits.push_back(edit);
  flat_ = std::move(next);
}

Parser::Parser(TreeUse use) : parser_(ts_parser_new(), &ts_parser_delete), use_(use) {
  ts_parser_set_language(parser_.get(), PythonLanguage());
}

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

}  // namespace

namespace {

// Why the runtime must not be given `source`, if it must not (see parse_guard.h).
std::optional<std::string> Refusal(std::string_view source) {
  if (source.size() > UINT32_MAX) return "file is too large to parse (over 4 GiB)";
  return UnparsableReason(source);
}

}  // namespace

Result<Tree> Parser::Parse(std::string_view source) {
  if (auto refused = Refusal(source)) return Error{std::move(*refused)};
  return ParseWith(source, nullptr);
}

Result<Tree> Parser::Parse(std::string_view source, const Tree& old) {
  if (auto refused = Refusal(source)) return Error{std::move(*refused)};
  if (std::optional<Tree> spliced = Splice(source, old)) return std::move(*spliced);
  return ParseAfter(source, old);
}

Result<Tree> Parser::Reparse(std::string_view source, const Tree& old) {
  if (auto refused = Refusal(source)) return Error{std::move(*refused)};
  return ParseAfter(source, old);
}

Result<Tree> Parser::ParseAfter(std::string_view source, const Tree& old) {
  Result<Tree> tree = ParseWith(source, old.raw());
  // A read-once parser's tree has its flat copy made already: nothing to lend it (and nothing to keep).
  if (tree.ok() && !tree->flat_->built.load(std::memory_order_acquire)) old.LendTo(*tree->flat_);
  return tree;
}

std::optional<Tree> Parser::Splice(std::string_view source, const Tree& old) {
  // Tree-sitter reuses what an edit left alone by walking the old tree beside the new text, and a
  // top-level statement starts a run of the module's statements (a node that holds the rest of the
  // file, or a large part of it). When the tokens at the start of a line change (a line indented,
  // the first character typed on a new line) after a block ends, the external scanner's state before
  // such a run no longer matches, and the whole run is parsed again: 15 ms for 5,000 lines. A Python
  // module's top-level statements parse alone, each from the state a statement at column 0 starts in,
  // so the statements around the edits are parsed alone instead and put into the old flat tree, when
  // the old tree was clean, the stretch starts and ends with statements at column 0, and it parses
  // cleanly (an unclosed bracket or string, or a block left without a body, goes to tree-sitter).
  Tree::Flat lent;
  old.LendTo(lent);
  if (!lent.previous || !lent.previous->built.load(std::memory_order_acquire) || lent.edits.empty()) {
    return std::nullopt;
  }
  const FlatTree& before = *lent.previous->tree;
  if (before.size() == 0) return std::nullopt;
  const FlatTree::Record& root = before.At(0);
  static const TSSymbol kModule = ts_language_symbol_for_name(PythonLanguage(), "module", 6, true);
  static const TSSymbol kComment = ts_language_symbol_for_name(PythonLanguage(), "comment", 7, true);
  if (root.symbol != kModule || (root.flags & FlatTree::kHasError) != 0 || root.kid_count < 3) return std::nullopt;
  // The bytes the edits rewrote, [from, to] of the old text, and how far what follows them moved.
  int64_t from = 0;
  int64_t to = 0;
  int64_t shift = 0;
  for (size_t i = 0; i < lent.edits.size(); ++i) {
    const TSInputEdit& edit = lent.edits[i];
    const int64_t start = edit.start_byte;
    const int64_t end = edit.old_end_byte;
    if (i == 0) {
      from = start;
      to = end;
    } else {
      // The edit's bytes in the old text: before the stretch they are where they were, after it they
      // moved by `shift`, and inside it they are inside.
      const int64_t stretch_end = to + shift;
      if (end >= stretch_end) {
        to = std::max(to, end - shift);
      } else if (end < from) {
        to = std::max(to, end);
      }
      from = std::min(from, start);
    }
    shift += static_cast<int64_t>(edit.new_end_byte) - end;
  }
  const uint32_t count = root.kid_count;
  const auto top = [&](uint32_t k) -> const FlatTree::Record& { return before.At(before.Kid(root.kids + k)); };
  for (uint32_t k = 0; k < count; ++k) {
    if (before.Kid(root.kids + k) == FlatTree::kNone) return std::nullopt;
  }
  // The top-level statements the edits touch, and one more on each side, untouched (an indented first
  // line joins the block before it, a line continuation the statement after); with none touched, the
  // two around the edits.
  int64_t first = -1;
  int64_t last = -1;
  for (uint32_t k = 0; k < count; ++k) {
    if (top(k).end >= from && top(k).start <= to) {
      if (first < 0) first = k;
      last = k;
    }
  }
  if (first >= 0) {
    --first;
    ++last;
  } else {
    first = 0;
    while (first < count && top(static_cast<uint32_t>(first)).end < from) ++first;
    last = first;
    --first;
  }
  // The stretch starts with a statement at the start of a line, not a comment, after another
  // statement (the module's start stays where it was), and the statement after it, if any, starts a
  // line of the new text and is not a comment either.
  const auto starts_line = [&](int64_t k) {
    const uint32_t at = top(static_cast<uint32_t>(k)).start;
    return at > 0 && at <= source.size() && source[at - 1] == '\n';
  };
  while (first >= 1 && (!starts_line(first) || top(static_cast<uint32_t>(first)).symbol == kComment)) --first;
  if (first < 1) return std::nullopt;
  const auto next_starts_line = [&](int64_t k) {
    const int64_t at = top(static_cast<uint32_t>(k)).start + shift;
    return at > 0 && at <= static_cast<int64_t>(source.size()) && source[static_cast<size_t>(at - 1)] == '\n' &&
           top(static_cast<uint32_t>(k)).symbol != kComment;
  };
  // With no such statement after it, the stretch runs to the end of the file (the module ends where
  // the text does, its trailing lines included, as the stretch parsed alone does).
  last = std::min<int64_t>(last, count - 1);
  while (last + 1 < count && !next_starts_line(last + 1)) ++last;
  const bool to_end = last + 1 == count;
  if (last < first) return std::nullopt;
  const uint32_t stretch_start = top(static_cast<uint32_t>(first)).start;
  const int64_t stretch_end = to_end ? static_cast<int64_t>(source.size())
                                     : top(static_cast<uint32_t>(last)).end + shift;
  if (stretch_start > from || (!to_end && top(static_cast<uint32_t>(last)).end < to) || stretch_end <= stretch_start ||
      stretch_end > static_cast<int64_t>(source.size())) {
    return std::nullopt;
  }
  // Worth it only for a stretch well short of the file (tree-sitter's parse is then as good).
  if (2 * (stretch_end - stretch_start) > static_cast<int64_t>(source.size())) return std::nullopt;
  FreshScanner();
  ts_parser_set_included_ranges(parser_.get(), nullptr, 0);
  TSTree* piece = ts_parser_parse_string(parser_.get(), nullptr, source.data() + stretch_start,
                                         static_cast<uint32_t>(stretch_end - stretch_start));
  if (piece == nullptr) {
    ts_parser_reset(parser_.get());
    return std::nullopt;
  }
  const bool clean = !ts_node_has_error(ts_tree_root_node(piece));
  std::optional<FlatTree> region;
  if (clean) region.emplace(piece);
  ts_tree_delete(piece);
  if (!clean || region->size() < 2 || region->At(0).symbol != kModule) return std::nullopt;
  Tree out(ts_tree_copy(old.raw()));
  out.exact_ = false;
  std::unique_ptr<const FlatTree> spliced = FlatTree::Splice(
      before, static_cast<uint32_t>(first), static_cast<uint32_t>(last), *region, stretch_start, shift);
  std::call_once(out.flat_->once, [&] {
    out.flat_->tree = std::move(spliced);
    out.flat_->built.store(true, std::memory_order_release);
  });
  return out;
}

void Parser::FreshScanner() {
  // The grammar's external scanner starts each parse from an empty state, but an empty state leaves its
  // "inside an f-string" flag as the last parse left it: after text that ends inside an f-string (a
  // stretch parsed alone, broken text), the next parse would lex its strings as the inside of one.
  // Setting the language again makes the scanner anew.
  ts_parser_set_language(parser_.get(), PythonLanguage());
}

Result<Tree> Parser::ParseWith(std::string_view source, const TSTree* old) {
  FreshScanner();
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
  Tree out(tree);
  if (use_ == TreeUse::kReadOnce) {
    std::call_once(out.flat_->once, [&] {
      out.flat_->tree = std::make_unique<const FlatTree>(tree, nullptr, /*keep_tree=*/false);
      out.flat_->built.store(true, std::memory_order_release);
    });
    out.tree_.reset();
    out.exact_ = false;
  }
  return out;
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

}  // namespace tl::ts
