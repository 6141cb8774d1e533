// The walk: one iterative preorder pass that records scopes, loops, guards, sites, bindings and imports,
// then the passes over those tables (the other files of this folder) in order.
#include "linter/semantic/builder.h"

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace tl::semantic {
namespace {

// A node's first and last children as Kids read them, or from the tree when it did not (a wide or
// broken node). A single kid is only the first: its last child is asked of the tree.
ts::Node FirstKid(std::span<const ts::Node> kids, ts::Node node) {
  return kids.empty() ? FirstChild(node) : kids.front();
}
ts::Node LastKid(std::span<const ts::Node> kids, ts::Node node) {
  return kids.size() >= 2 ? kids.back() : LastChild(node);
}

}  // namespace

void Builder::AddScope(ScopeKind kind, ts::Node node, uint32_t depth, std::span<const ts::Node> kids) {
  Push(depth);
  Scope scope;
  scope.kind = kind;
  scope.node = node;
  scope.parent = scope_;
  // A definition's name is its first named child (`async` and `def` are anonymous).
  const ts::Node name = !kids.empty() && KindOf(kids.front()) == K::kIdentifier ? kids.front() : Field(node, F::kName);
  if (!name.IsNull()) scope.name = m_.Text(name);
  if (depth > 0 && parent_kind_[depth - 1] == K::kDecorated) scope.decorated = last_decorated_;
  m_.scopes_.push_back(scope);
  scope_ = static_cast<int>(m_.scopes_.size()) - 1;
  loop_ = -1;  // a nested function's body does not run in the enclosing loop until it is called
  guard_ = -1;
  if (kind == ScopeKind::kFunction && !scope.name.empty()) {
    m_.functions_.emplace_back(scope.name, scope_);
  } else if (kind == ScopeKind::kClass && !scope.name.empty()) {
    m_.classes_.emplace_back(scope.name, scope_);
  }
}

void Builder::BindTarget(ts::Node target, ts::Node value, Model::BindingKind kind, int position, int loop,
                         uint32_t statement_end, uint32_t block_end) {
  target = Unparen(target);
  const K k = KindOf(target);
  if (k == K::kIdentifier || k == K::kAttribute) {
    m_.bindings_.push_back({m_.Text(target), scope_, kind, value, target, position, loop, 0, statement_end, block_end});
    return;
  }
  if (k == K::kPatternList || k == K::kTuplePattern || k == K::kListPattern || k == K::kTuple || k == K::kList) {
    // One level of unpacking keeps the position; deeper patterns bind names with unknown values.
    const uint32_t n = target.NamedChildCount();
    uint32_t plain = n;  // `a, b = ...`: each name can take its own element of a tuple value
    for (uint32_t i = 0; i < n; ++i) {
      if (KindOf(target.NamedChild(i)) != K::kIdentifier) plain = 0;
    }
    for (uint32_t i = 0; i < n; ++i) {
      ts::Node element = Unparen(target.NamedChild(i));
      const K ek = KindOf(element);
      if (ek == K::kIdentifier || ek == K::kAttribute) {
        m_.bindings_.push_back({m_.Text(element), scope_, kind, value, element, position < 0 ? static_cast<int>(i) : -2,
                                loop, position < 0 ? plain : 0, statement_end, block_end});
      } else if (ek == K::kPatternList || ek == K::kTuplePattern || ek == K::kListPattern || ek == K::kTuple ||
                 ek == K::kList) {
        for (ts::Node child : element.NamedChildren()) {
          ts::Node inner = Unparen(child);
          if (KindOf(inner) == K::kIdentifier) {
            // Position -2: somewhere inside element i; the loop-element logic reads `i` from the
            // enclosing pattern (enumerate's index is only ever element 0).
            m_.bindings_.push_back(
                {m_.Text(inner), scope_, kind, value, inner, position < 0 ? static_cast<int>(100 + i) : -2, loop});
          }
        }
      }
    }
    return;
  }
  if (k == K::kSubscript) {
    // `d["k"] = v` mutates a dict: a `**d` built from a literal can no longer be trusted as closed.
    ts::Node object = Unparen(Field(target, F::kValue));
    if (KindOf(object) == K::kIdentifier) {
      m_.open_dicts_.push_back(m_.Text(object));
      const bool whole = kind == Model::BindingKind::kAssign && position == -1;
      m_.item_writes_.push_back(
          {m_.Text(object), Field(target, F::kSubscript), whole ? value : ts::Node(), target, scope_});
    }
  }
}

void Builder::RecordParameters(ts::Node parameters) {
  for (ts::Node p : parameters.NamedChildren()) {
    const K k = KindOf(p);
    ts::Node name;
    ts::Node value;
    if (k == K::kIdentifier) {
      name = p;
    } else if (k == K::kDefaultParameter) {
      name = Field(p, F::kName);
      value = Field(p, F::kValue);
    } else if (k == K::kTypedParameter) {
      name = p.NamedChildCount() > 0 ? p.NamedChild(0) : ts::Node();
    } else if (p.Type() == "list_splat_pattern" || p.Type() == "dictionary_splat_pattern") {
      name = p.NamedChildCount() > 0 ? p.NamedChild(0) : ts::Node();  // *args, **kwargs
    }
    // `*args: int` and `**kwargs: Any` are typed parameters around a splat pattern.
    if (KindOf(name) != K::kIdentifier && !name.IsNull() && name.NamedChildCount() > 0) name = name.NamedChild(0);
    if (KindOf(name) == K::kIdentifier) {
      m_.bindings_.push_back({m_.Text(name), scope_, Model::BindingKind::kParameter, value, name, -1, -1});
    }
  }
}

void Builder::RecordCall(ts::Node node, std::span<const ts::Node> kids) {
  Site site;
  site.node = node;
  site.kind = SiteKind::kCall;
  site.scope = scope_;
  site.loop = loop_;
  site.guard = guard_;
  // `function` is always the first child, and `arguments` the last (a comment may sit between them); a
  // broken call whose last child is something else is asked by field.
  site.callee = Unparen(FirstKid(kids, node));
  const K last = kids.size() >= 2 ? KindOf(kids.back()) : K::kOther;
  site.arguments = last == K::kArgumentList || (last == K::kComprehension && kids.back().Is("generator_expression"))
                       ? kids.back()
                       : Field(node, F::kArguments);
  const K ck = KindOf(site.callee);
  ts::Node receiver;
  if (ck == K::kAttribute) {
    site.name = AttributeNameText(site.callee, m_.source_);  // `object . attribute`
    callee_attribute_ = site.callee;
    callee_object_ = FirstChild(site.callee);
    receiver = Unparen(callee_object_);  // Site::Receiver(), unparenthesized
    if (site.name == "update" || site.name == "setdefault" || site.name == "pop") {
      if (KindOf(receiver) == K::kIdentifier) m_.open_dicts_.push_back(m_.Text(receiver));
    }
    // argparse's options, and absl's flags (`flags.DEFINE_integer("num_workers", 4, ...)`).
    if (site.name == "add_argument" || site.name.starts_with("DEFINE_")) {
      option_calls_.push_back(static_cast<uint32_t>(m_.sites_.size()));
    }
  } else if (ck == K::kIdentifier) {
    site.name = m_.Text(site.callee);  // aliases are resolved after the walk (NameCalls)
  }
  m_.sites_.push_back(site);
  receivers_.push_back(receiver);
}

void Builder::AddSite(ts::Node node, SiteKind kind) {
  Site site;
  site.node = node;
  site.kind = kind;
  site.scope = scope_;
  site.loop = loop_;
  site.guard = guard_;
  m_.sites_.push_back(site);
  receivers_.emplace_back();
}

void Builder::NoteString(ts::Node node) {
  if (!m_.cuda_evidence_.IsNull()) return;
  // Only short literals can be a device string; this keeps the test cheap on long docstrings.
  const uint32_t size = node.EndByte() - node.StartByte();
  if (size > 24 || size < 6 || m_.Text(node).find("cuda") == std::string_view::npos) return;
  if (const auto content = StringContent(node, m_.source_)) {
    if (*content == "cuda" || (content->starts_with("cuda:") && content->size() > 5)) m_.cuda_evidence_ = node;
    return;
  }
  // `f"cuda:{rank}"`: an f-string that starts with the device prefix.
  const std::string_view text = m_.Text(node);
  const size_t quote = text.find_first_of("\"'");
  if (quote != std::string_view::npos && quote > 0 &&
      (text.substr(0, quote).find_first_of("fF") != std::string_view::npos) &&
      text.substr(quote + 1).starts_with("cuda:{")) {
    m_.cuda_evidence_ = node;
  }
}

namespace {

// The attribute names whose canonical names FindCatalogFacts asks about; a canonical name ends with
// the attribute's own name, so any other attribute cannot match.
bool PrecisionAttributeName(std::string_view name) {
  return name == "channels_last" || name == "float16" || name == "bfloat16" || name == "half";
}

// Whether a node's text can hold such a name at all: a plain search, much cheaper than reading
// fields or walking the node (most attributes and skipped subtrees have none).
bool MayHoldPrecisionName(std::string_view text) {
  return text.find("float16") != std::string_view::npos || text.find("half") != std::string_view::npos ||
         text.find("channels_last") != std::string_view::npos;
}

}  // namespace

void Builder::NoteAttribute(ts::Node node, uint32_t depth) {
  if (!MayHoldPrecisionName(m_.Text(node)) || !PrecisionAttributeName(m_.Text(Field(node, F::kAttribute)))) return;
  for (uint32_t d = 0; d < depth; ++d) {
    if (parent_kind_[d] == K::kAttribute) return;
  }
  precision_attributes_.push_back(node);
}

void Builder::NoteSkippedAttributes(ts::Node subtree, uint32_t depth) {
  if (!MayHoldPrecisionName(m_.Text(subtree))) return;
  for (uint32_t d = 0; d < depth; ++d) {
    if (parent_kind_[d] == K::kAttribute) return;  // nothing below is outermost
  }
  ts::Walk(subtree, [&](ts::Node node) {
    if (KindOf(node) != K::kAttribute) return true;
    if (PrecisionAttributeName(m_.Text(Field(node, F::kAttribute)))) precision_attributes_.push_back(node);
    return false;
  });
}

std::span<const ts::Node> Builder::Kids(ts::Node node) {
  const uint32_t count = node.NamedChildCount();
  if (count == 0 || count > kFewKids) return {};
  kids_.clear();
  for (uint32_t i = 0; i < count; ++i) kids_.push_back(node.NamedChild(i));
  return kids_;
}

bool Builder::Enter(ts::Node node, uint32_t depth) {
  const K kind = KindOf(node);
  if (parent_kind_.size() <= depth) {
    parent_kind_.resize(depth + 1);
    parent_end_.resize(depth + 1);
  }
  parent_kind_[depth] = kind;
  parent_end_[depth] = node.EndByte();
  const K parent = depth > 0 ? parent_kind_[depth - 1] : K::kOther;
  if (parent == K::kConditional && !ternary_conditions_.empty()) {
    while (!ternary_conditions_.empty() && ternary_conditions_.back().first >= depth) ternary_conditions_.pop_back();
    if (!ternary_conditions_.empty() && ternary_conditions_.back().first == depth - 1 &&
        ternary_conditions_.back().second == node) {
      AddSite(node, SiteKind::kCondition);
      ternary_conditions_.pop_back();
    }
  }

  switch (kind) {
    // Leaves: nothing below them that the model reads.
    case K::kToken:
    case K::kIdentifier:
    case K::kInteger:
    case K::kFloat:
    case K::kTrue:
    case K::kFalse:
    case K::kNone:
    case K::kComment: return false;
    case K::kFunction: {
      const std::span<const ts::Node> kids = Kids(node);
      AddScope(ScopeKind::kFunction, node, depth, kids);
      const ts::Node params = kids.size() >= 2 && KindOf(kids[1]) == K::kParameters ? kids[1]
                                                                                    : Field(node, F::kParameters);
      if (!params.IsNull()) RecordParameters(params);
      return true;
    }
    case K::kLambda: {
      AddScope(ScopeKind::kFunction, node, depth);
      if (ts::Node params = Field(node, F::kParameters); !params.IsNull()) RecordParameters(params);
      return true;
    }
    case K::kClass: AddScope(ScopeKind::kClass, node, depth, Kids(node)); return true;
    case K::kDecorated: last_decorated_ = node; return true;
    case K::kFor: {
      Loop loop;
      loop.node = node;
      loop.kind = LoopKind::kFor;
      loop.scope = scope_;
      loop.parent = loop_;
      loop.target = Field(node, F::kLeft);
      loop.iterable = Field(node, F::kRight);
      loop.body = Field(node, F::kBody);
      m_.loops_.push_back(loop);
      pending_loop_ = static_cast<int>(m_.loops_.size()) - 1;
      if (!loop.target.IsNull()) {
        BindTarget(loop.target, loop.iterable, Model::BindingKind::kLoopTarget, -1, pending_loop_);
      }
      return true;
    }
    case K::kWhile: {
      Loop loop;
      loop.node = node;
      loop.kind = LoopKind::kWhile;
      loop.scope = scope_;
      loop.parent = loop_;
      loop.iterable = Field(node, F::kCondition);
      loop.body = Field(node, F::kBody);
      m_.loops_.push_back(loop);
      // The condition runs on every iteration, so the frame starts at the statement itself.
      Push(depth);
      loop_ = static_cast<int>(m_.loops_.size()) - 1;
      if (!loop.iterable.IsNull()) {
        AddSite(loop.iterable, SiteKind::kCondition);
      }
      return true;
    }
    case K::kIf:
    case K::kElif: {
      if (kind == K::kIf) m_.if_statements_.push_back(node.Range());
      Guard guard;
      guard.condition = Field(node, F::kCondition);
      guard.block = Field(node, F::kConsequence);
      guard.parent = guard_;
      guard.scope = scope_;
      // The `if` statement this branch belongs to ends where its last branch does; an `elif` belongs to
      // the latest one that holds it (the ifs inside the branches before it end before it).
      for (auto it = m_.if_statements_.rbegin(); it != m_.if_statements_.rend(); ++it) {
        if (it->Contains(node.Range())) {
          guard.statement_end = it->end;
          break;
        }
      }
      m_.guards_.push_back(guard);
      pending_guard_ = static_cast<int>(m_.guards_.size()) - 1;
      if (!guard.condition.IsNull()) {
        AddSite(guard.condition, SiteKind::kCondition);
      }
      return true;
    }
    case K::kBlock: {
      if (pending_loop_ < 0 && pending_guard_ < 0) return true;
      // The grammar puts a block right under a for statement only as its body, and right under an if or
      // elif only as its consequence (an else's block sits under the else clause).
      if (parent == K::kFor && pending_loop_ >= 0) {
        Push(depth);
        loop_ = pending_loop_;
        pending_loop_ = -1;
      } else if ((parent == K::kIf || parent == K::kElif) && pending_guard_ >= 0) {
        Push(depth);
        guard_ = pending_guard_;
        pending_guard_ = -1;
      }
      return true;
    }
    case K::kAttribute:
      NoteAttribute(node, depth);
      // `a.b`: nothing to record below when the object is a plain name (most attributes); the
      // parent (a call or an assignment) reads the attribute itself.
      return KindOf(node == callee_attribute_ ? callee_object_ : FirstChild(node)) != K::kIdentifier;
    case K::kParameters:
    case K::kType:
      // Parameters were bound with the function; defaults and annotations run once, at definition.
      NoteSkippedAttributes(node, depth);
      return false;
    case K::kCall: RecordCall(node, Kids(node)); return true;
    case K::kInterpolation: AddSite(node, SiteKind::kInterpolation); return true;
    case K::kBinary:
      // `"%.3f" % loss`: printf-style formatting, which reads its operands as Python numbers.
      if (KindOf(FirstChild(node)) == K::kString && m_.Text(Field(node, F::kOperator)) == "%") {
        AddSite(node, SiteKind::kInterpolation);
      }
      return true;
    case K::kComprehension: {
      // The names its `for` clauses bind, for the model's questions about them (no Parent walks later).
      const TextRange range = node.Range();
      for (const ts::Node clause : node.NamedChildren()) {
        if (KindOf(clause) != K::kForInClause) continue;
        const ts::Node target = Unparen(Field(clause, F::kLeft));
        const ts::Node iterable = Field(clause, F::kRight);
        if (KindOf(target) == K::kIdentifier) {
          m_.comprehension_targets_.push_back({m_.Text(target), -1, range, iterable});
          continue;
        }
        int position = 0;
        for (const ts::Node element : target.NamedChildren()) {
          if (KindOf(element) == K::kIdentifier) {
            m_.comprehension_targets_.push_back({m_.Text(element), position, range, iterable});
          }
          ++position;
        }
      }
      return true;
    }
    case K::kIfClause:
      // A comprehension's filter: Python takes its truth once per element.
      if (node.NamedChildCount() > 0) AddSite(node.NamedChild(0), SiteKind::kCondition);
      return true;
    case K::kConditional:
      // `a if cond else b`: Python takes the truth of `cond`, as an `if` does. Its site is added when the
      // walk reaches `cond` (below), after the sites of `a`: the sites stay in document order.
      if (node.NamedChildCount() == 3) ternary_conditions_.emplace_back(depth, node.NamedChild(1));
      return true;
    case K::kSubscript: {
      // `boxes[:, 2:]`: only an array takes several indices.
      if (node.NamedChildCount() > 2 && scope_ > 0) {
        const ts::Node value = FirstChild(node);
        if (KindOf(value) == K::kIdentifier) m_.array_names_.emplace_back(scope_, m_.Text(value));
      }
      // Only an index that is an expression can be a mask: literals, slices and plain attributes of
      // configs are the vast majority of subscripts and are left out of the table.
      const K index = KindOf(Unparen(Field(node, F::kSubscript)));
      if (index == K::kIdentifier || index == K::kComparison || index == K::kUnary || index == K::kCall ||
          index == K::kBinary || index == K::kNot) {
        AddSite(node, SiteKind::kSubscript);
      }
      return true;
    }
    case K::kReturn:
      // What a function returns: a loader built by a factory function is followed to its callers.
      m_.returns_.emplace_back(scope_, node.NamedChildCount() > 0 ? node.NamedChild(0) : ts::Node());
      return true;
    case K::kYield:
      // `yield from loader`: a generator that iterates the loader (each time its own loop comes round).
      if (node.NamedChildCount() > 0 && node.ChildCount() > 2 && node.Child(1).Type() == "from") {
        m_.yield_froms_.push_back({node.NamedChild(0), scope_, loop_});
      }
      return true;
    case K::kTry: try_statements_.push_back(node.Range()); return true;
    case K::kExcept:
      // `except StopIteration:`: where an exhausted iterator is rebuilt.
      if (node.NamedChildCount() > 0 && m_.Text(node.NamedChild(0)).find("StopIteration") != std::string_view::npos) {
        m_.stop_iteration_handlers_.push_back(node.Range());
      }
      return true;
    case K::kAssert:
      // The statement, not its condition: a condition that is a call keeps its own call site for SiteOf.
      if (node.NamedChildCount() > 0) AddSite(node, SiteKind::kAssert);
      return true;
    case K::kString: {
      NoteString(node);
      // Only f-strings have children worth visiting (interpolations). Other strings hold no code and no
      // attribute to note; the flat tree gives most of them no children at all.
      const std::string_view text = m_.Text(node);
      for (char c : text) {
        if (c == 'f' || c == 'F') return true;
        if (c == '"' || c == '\'') break;
      }
      return false;
    }
    case K::kAssignment: {
      // `left = right`, `left: type = right` or `left: type` (no value: nothing to bind).
      const std::span<const ts::Node> kids = Kids(node);
      ts::Node left = FirstKid(kids, node);
      ts::Node right = LastKid(kids, node);
      if (KindOf(right) == K::kType || right == left) right = ts::Node();
      // `a = b = value`: every target gets the final value (the inner assignment binds its own).
      while (KindOf(right) == K::kAssignment) right = Field(right, F::kRight);
      // A statement of a block (or of the module): what DominatingAssignment needs, read off the walk.
      const bool statement = depth >= 2 && parent_kind_[depth - 1] == K::kExpressionStatement &&
                             (parent_kind_[depth - 2] == K::kBlock || parent_kind_[depth - 2] == K::kModule);
      if (!left.IsNull() && !right.IsNull()) {
        BindTarget(left, right, Model::BindingKind::kAssign, -1, -1, statement ? parent_end_[depth - 1] : 0,
                   statement ? parent_end_[depth - 2] : 0);
      }
      return true;
    }
    case K::kAugmented: {
      const std::span<const ts::Node> kids = Kids(node);
      ts::Node left = Unparen(FirstKid(kids, node));
      const ts::Node right = LastKid(kids, node);
      const K lk = KindOf(left);
      if (lk == K::kIdentifier || lk == K::kAttribute) {
        m_.bindings_.push_back({m_.Text(left), scope_, Model::BindingKind::kAugmented, right, left, -1, -1});
      } else if (lk == K::kSubscript) {
        BindTarget(left, right, Model::BindingKind::kAugmented, -1, -1);
      }
      return true;
    }
    case K::kImport:
    case K::kImportFrom:
      RecordImport(node, kind);
      NoteSkippedAttributes(node, depth);
      return false;
    default: return true;
  }
}

void Builder::SortBindings() {
  // A binding is a large record: the stable sort by name moves indices, and each binding is moved once,
  // into its place. Each index carries its name's head (NameHead), so the names are compared only where
  // the heads agree; the heads are kept for the lookups (Model::binding_heads_).
  std::vector<Model::Binding>& bindings = m_.bindings_;
  std::vector<std::pair<uint64_t, uint32_t>> order(bindings.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = {NameHead(bindings[i].name), i};
  std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : bindings[a.second].name < bindings[b.second].name;
  });
  std::vector<Model::Binding> sorted;
  sorted.reserve(bindings.size());
  m_.binding_heads_.clear();
  m_.binding_heads_.reserve(bindings.size());
  for (const auto& [head, i] : order) {
    sorted.push_back(std::move(bindings[i]));
    m_.binding_heads_.push_back(head);
  }
  bindings = std::move(sorted);
  // By (name, scope): the bindings are sorted by name now, so each name's run is sorted by scope alone
  // (stably: document order within a scope), with no name comparisons beyond finding the runs.
  m_.bindings_by_scope_.resize(bindings.size());
  for (uint32_t i = 0; i < m_.bindings_by_scope_.size(); ++i) m_.bindings_by_scope_[i] = i;
  for (size_t begin = 0; begin < bindings.size();) {
    size_t end = begin + 1;
    while (end < bindings.size() && bindings[end].name == bindings[begin].name) ++end;
    if (end - begin > 1) {
      std::stable_sort(m_.bindings_by_scope_.begin() + static_cast<std::ptrdiff_t>(begin),
                       m_.bindings_by_scope_.begin() + static_cast<std::ptrdiff_t>(end),
                       [&](uint32_t a, uint32_t b) { return bindings[a].scope < bindings[b].scope; });
    }
    begin = end;
  }
}

void Builder::FindMainBlocks() {
  for (const Guard& guard : m_.guards_) {
    const ts::Node condition = Unparen(guard.condition);
    if (guard.scope != 0 || KindOf(condition) != K::kComparison || condition.NamedChildCount() != 2 ||
        condition.ChildCount() != 3 || m_.Text(condition.Child(1)) != "==") {
      continue;
    }
    for (uint32_t i = 0; i < 2; ++i) {
      const auto text = StringContent(Unparen(condition.NamedChild(i)), m_.source_);
      if (text && *text == "__main__" && m_.Text(Unparen(condition.NamedChild(1 - i))) == "__name__") {
        m_.main_blocks_.push_back(guard.block.Range());
      }
    }
  }
}

void Builder::Run() {
  Scope module;
  module.kind = ScopeKind::kModule;
  module.node = tree_->Root();
  m_.scopes_.push_back(module);

  // Named nodes only, in preorder: the anonymous tokens between them are leaves the model never reads.
  // `levels` holds, at each depth, the children still to visit, so the walk is iterative; the frames a
  // node pushed are popped when its subtree is done.
  std::vector<ts::NamedChildRange> levels;
  if (Enter(tree_->Root(), 0)) levels.emplace_back(tree_->Root());
  while (!levels.empty()) {
    const auto depth = static_cast<uint32_t>(levels.size());
    const ts::Node node = levels.back().Next();
    if (node.IsNull()) {
      levels.pop_back();
      PopTo(depth - 1);
      continue;
    }
    if (Enter(node, depth)) {
      levels.emplace_back(node);
    } else {
      PopTo(depth);
    }
  }

  SortBindings();
  std::stable_sort(m_.functions_.begin(), m_.functions_.end(), NameLess{});
  m_.function_heads_.reserve(m_.functions_.size());
  for (const auto& [name, scope] : m_.functions_) {
    const uint32_t bit = NameBit(name);
    m_.function_name_bits_[bit / 64] |= uint64_t{1} << (bit % 64);
    m_.function_heads_.push_back(NameHead(name));
  }
  std::stable_sort(m_.classes_.begin(), m_.classes_.end(), NameLess{});
  std::stable_sort(m_.item_writes_.begin(), m_.item_writes_.end(), NameLess{});
  std::stable_sort(
      m_.comprehension_targets_.begin(), m_.comprehension_targets_.end(),
      [](const Model::ComprehensionTarget& a, const Model::ComprehensionTarget& b) { return a.name < b.name; });
  for (const ImportSummary& brought : star_) {
    if (m_.FindImport(brought.local) != nullptr) continue;
    m_.star_names_.push_back(brought.local);
    m_.imports_.push_back({m_.star_names_.back(), brought.canonical});
  }
  for (size_t i = 0; i < m_.imports_.size(); ++i) m_.import_last_[m_.imports_[i].local] = static_cast<int>(i);
  m_.import_last_ready_ = true;
  NameCalls();
  NameCanonicalCallees();
  for (const Site& site : m_.sites_) {
    if (site.kind != SiteKind::kCall || site.name != "register_buffer") continue;
    const ts::Node receiver = Unparen(site.Receiver());
    const ts::Node args = site.Arguments();
    const int cls = m_.scopes_[static_cast<size_t>(site.scope)].parent;
    if (cls < 0 || m_.scopes_[static_cast<size_t>(cls)].kind != ScopeKind::kClass || m_.Text(receiver) != "self" ||
        args.IsNull() || args.NamedChildCount() < 2) {
      continue;
    }
    if (const auto name = StringContent(args.NamedChild(0), m_.source_)) {
      m_.buffers_.push_back({cls, *name, args.NamedChild(1)});
    }
  }
  append_calls_ = m_.CallsNamed("append");  // what lists of objects are given (ConstructedClasses)
  for (uint32_t i = 0; i < m_.sites_.size(); ++i) {
    std::vector<int> callees = LocalCallees(m_.sites_[i]);
    if (!callees.empty()) m_.local_calls_.emplace_back(i, std::move(callees));
  }
  ReadArgparse();
  CollectConfigs();
  FindCudaEvidence();
  FindMainBlocks();
  EvaluateGuards();
  FindHooks();
  ReviewCallbacks(false);  // the file's own: before the loops are classified, which reads the calls
  ClassifyLoops();
  MarkHostBatches();
  PropagatePerStep();
  FindCatalogFacts();
}

// ---------------------------------------------------------------------------------------------------
// Model queries.

std::unique_ptr<Model> Model::Build(const SourceFile& file, const ts::Tree& tree, std::span<const ImportSummary> star) {
  std::unique_ptr<Model> model(new Model());  // NOLINT: private constructor, owned at once
  model->source_ = file.text();
  Builder(*model, tree, star).Run();
  return model;
}

int Model::ScopeAt(uint32_t offset) const {
  int best = 0;
  for (size_t i = 1; i < scopes_.size(); ++i) {
    const TextRange range = scopes_[i].node.Range();
    if (range.begin > offset) break;  // scopes are in preorder
    if (range.Contains(offset)) best = static_cast<int>(i);
  }
  return best;
}

}  // namespace tl::semantic
