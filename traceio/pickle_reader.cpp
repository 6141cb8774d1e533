#include "traceio/pickle_reader.h"

#include <charconv>
#include <cstring>
#include <unordered_map>

#include <fmt/core.h>

namespace tl::trace {

const PyValue* PyValue::Get(std::string_view key) const {
  if (kind != Kind::kDict) return nullptr;
  for (const auto& [k, v] : entries) {
    if (k->kind == Kind::kStr && k->text == key) return v.get();
  }
  return nullptr;
}

namespace {

using Mutable = std::shared_ptr<PyValue>;

// The opcodes that name, build or call code, with the names `pickletools` gives them.
const char* RefusedName(uint8_t op) {
  switch (op) {
    case 'c': return "GLOBAL";
    case 0x93: return "STACK_GLOBAL";
    case 'R': return "REDUCE";
    case 'b': return "BUILD";
    case 'i': return "INST";
    case 'o': return "OBJ";
    case 0x81: return "NEWOBJ";
    case 0x92: return "NEWOBJ_EX";
    case 0x82: return "EXT1";
    case 0x83: return "EXT2";
    case 0x84: return "EXT4";
    case 'P': return "PERSID";
    case 'Q': return "BINPERSID";
    case 0x97: return "NEXT_BUFFER";
    case 0x98: return "READONLY_BUFFER";
    default: return nullptr;
  }
}

class Machine {
 public:
  Machine(std::string_view in, const PickleOptions& options) : in_(in), options_(options) {}

  PickleResult Run() {
    PickleResult result;
    while (error_.empty()) {
      if (pos_ >= in_.size()) {
        Fail(fmt::format("the pickle ends at byte {} before its STOP opcode (a truncated file?)", in_.size()));
        break;
      }
      const size_t at = pos_;
      const auto op = static_cast<uint8_t>(in_[pos_++]);
      if (op == '.') {
        if (stack_.size() != 1 || !marks_.empty()) {
          Fail(fmt::format("byte {}: STOP with {} values on the stack; the pickle is malformed", at, stack_.size()));
          break;
        }
        result.value = std::move(stack_.back());
        return result;
      }
      Step(op, at);
    }
    result.error = error_;
    return result;
  }

 private:
  void Fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
  }

  bool Need(size_t n, size_t at) {
    if (in_.size() - pos_ >= n) return true;
    Fail(fmt::format("byte {}: the pickle ends inside an opcode's argument (a truncated file?)", at));
    return false;
  }
  uint64_t Unsigned(size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t{static_cast<uint8_t>(in_[pos_ + i])} << (8 * i);
    pos_ += n;
    return v;
  }

  bool Count(uint64_t n, size_t at) {
    made_ += n;
    if (made_ <= options_.max_values) return true;
    Fail(fmt::format("byte {}: more than {} values; refused as too large for a snapshot", at, options_.max_values));
    return false;
  }

  void Push(Mutable v, size_t at) {
    if (!Count(1, at)) return;
    stack_.push_back(std::move(v));
  }
  static Mutable Scalar(PyValue::Kind kind) {
    auto v = std::make_shared<PyValue>();
    v->kind = kind;
    return v;
  }
  void PushInt(int64_t value, size_t at, PyValue::Kind kind = PyValue::Kind::kInt) {
    auto v = Scalar(kind);
    v->int_value = value;
    Push(std::move(v), at);
  }
  void PushText(PyValue::Kind kind, size_t n, size_t at) {
    if (!Need(n, at)) return;
    auto v = Scalar(kind);
    v->text.assign(in_.substr(pos_, n));
    pos_ += n;
    Push(std::move(v), at);
  }
  void PushLength(PyValue::Kind kind, size_t width, size_t at) {
    if (!Need(width, at)) return;
    const uint64_t n = Unsigned(width);
    if (n > in_.size() - pos_) {
      Fail(fmt::format("byte {}: a length of {} bytes runs past the end of the pickle", at, n));
      return;
    }
    PushText(kind, static_cast<size_t>(n), at);
  }

  Mutable Pop(size_t at) {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) {
      Fail(fmt::format("byte {}: an opcode takes a value from an empty stack; the pickle is malformed", at));
      return nullptr;
    }
    Mutable v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  // The values above the topmost mark, and the mark removed.
  bool PopMark(std::vector<Mutable>& out, size_t at) {
    if (marks_.empty()) {
      Fail(fmt::format("byte {}: an opcode needs a MARK and there is none; the pickle is malformed", at));
      return false;
    }
    const size_t from = marks_.back();
    marks_.pop_back();
    out.assign(std::make_move_iterator(stack_.begin() + static_cast<std::ptrdiff_t>(from)),
               std::make_move_iterator(stack_.end()));
    stack_.resize(from);
    return true;
  }

  // Puts `child` into `container`: the container must still be open (not inside another), the child must
  // not be the container itself, and the nesting and tree size stay within bounds.
  bool Adopt(PyValue& container, const Mutable& child, size_t at) {
    if (sealed_.count(&container) > 0) {
      Fail(
          fmt::format("byte {}: the pickle changes a container after placing it in another (a recursive "
                      "structure); refused",
                      at));
      return false;
    }
    if (child.get() == &container) {
      Fail(fmt::format("byte {}: a container placed inside itself; refused", at));
      return false;
    }
    if (child->depth + 1u > kMaxPickleDepth) {
      Fail(fmt::format("byte {}: nesting deeper than {} levels; refused", at, kMaxPickleDepth));
      return false;
    }
    if (child->kind == PyValue::Kind::kList || child->kind == PyValue::Kind::kTuple ||
        child->kind == PyValue::Kind::kDict) {
      sealed_.emplace(child.get(), child);
    }
    container.depth = std::max<uint16_t>(container.depth, static_cast<uint16_t>(child->depth + 1));
    container.nodes += child->nodes;
    if (container.nodes > options_.max_values) {
      Fail(fmt::format("byte {}: the data expands to more than {} values; refused", at, options_.max_values));
      return false;
    }
    return true;
  }

  bool Container(const Mutable& v, std::initializer_list<PyValue::Kind> kinds, size_t at) {
    if (v == nullptr) return false;
    for (auto k : kinds) {
      if (v->kind == k) return true;
    }
    Fail(fmt::format("byte {}: an opcode adds to a value that is not a container of its kind", at));
    return false;
  }

  void Append(std::vector<Mutable> items, size_t at) {
    if (stack_.empty() || stack_.size() <= (marks_.empty() ? 0 : marks_.back())) {
      Fail(fmt::format("byte {}: APPEND without a list; the pickle is malformed", at));
      return;
    }
    const Mutable& target = stack_.back();
    if (!Container(target, {PyValue::Kind::kList}, at)) return;
    for (auto& item : items) {
      if (!Adopt(*target, item, at)) return;
      target->items.push_back(std::move(item));
    }
  }

  void SetItems(std::vector<Mutable> kv, size_t at) {
    if (kv.size() % 2 != 0) {
      Fail(fmt::format("byte {}: SETITEMS with an odd number of values; the pickle is malformed", at));
      return;
    }
    if (stack_.empty() || stack_.size() <= (marks_.empty() ? 0 : marks_.back())) {
      Fail(fmt::format("byte {}: SETITEM without a dict; the pickle is malformed", at));
      return;
    }
    const Mutable& target = stack_.back();
    if (!Container(target, {PyValue::Kind::kDict}, at)) return;
    for (size_t i = 0; i < kv.size(); i += 2) {
      if (!Adopt(*target, kv[i], at) || !Adopt(*target, kv[i + 1], at)) return;
      target->entries.emplace_back(std::move(kv[i]), std::move(kv[i + 1]));
    }
  }

  void MakeSequence(PyValue::Kind kind, std::vector<Mutable> items, size_t at) {
    auto v = Scalar(kind);
    for (auto& item : items) {
      if (!Adopt(*v, item, at)) return;
      v->items.push_back(std::move(item));
    }
    Push(std::move(v), at);
  }

  void Memoize(uint64_t index, size_t at) {
    if (stack_.empty()) {
      Fail(fmt::format("byte {}: a memo store with an empty stack; the pickle is malformed", at));
      return;
    }
    if (memo_.size() >= options_.max_values) {
      Fail(fmt::format("byte {}: more than {} memo entries; refused", at, options_.max_values));
      return;
    }
    memo_[index] = stack_.back();
  }
  void Recall(uint64_t index, size_t at) {
    auto it = memo_.find(index);
    if (it == memo_.end()) {
      Fail(fmt::format("byte {}: a memo reference to entry {}, which was never stored; the pickle is malformed", at,
                       index));
      return;
    }
    if (!Count(1, at)) return;
    stack_.push_back(it->second);
  }

  // A decimal argument ended by a newline (protocol 0's INT, LONG, GET, PUT).
  std::optional<std::string_view> Line(size_t at) {
    const size_t end = in_.find('\n', pos_);
    if (end == std::string_view::npos) {
      Fail(fmt::format("byte {}: a text argument without its newline (a truncated file?)", at));
      return std::nullopt;
    }
    std::string_view line = in_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return line;
  }
  std::optional<int64_t> Decimal(std::string_view text, size_t at) {
    if (!text.empty() && text.back() == 'L') text.remove_suffix(1);
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) {
      Fail(fmt::format("byte {}: `{}` is not an integer this reader takes (64 bits at most)", at, text.substr(0, 40)));
      return std::nullopt;
    }
    return v;
  }

  void Step(uint8_t op, size_t at) {
    using K = PyValue::Kind;
    if (const char* refused = RefusedName(op)) {
      Fail(
          fmt::format("byte {}: opcode {} names or calls code; a snapshot is plain data, so this pickle is "
                      "refused and nothing in it was run",
                      at, refused));
      return;
    }
    switch (op) {
      case 0x80:  // PROTO
        if (Need(1, at)) ++pos_;
        return;
      case 0x95:  // FRAME: a length hint only
        if (Need(8, at)) pos_ += 8;
        return;
      case '(': marks_.push_back(stack_.size()); return;
      case '0': Pop(at); return;
      case '1': {
        std::vector<Mutable> dropped;
        PopMark(dropped, at);
        return;
      }
      case '2':
        if (stack_.empty()) Fail(fmt::format("byte {}: DUP with an empty stack", at));
        else Push(stack_.back(), at);
        return;
      case 'N': Push(Scalar(K::kNone), at); return;
      case 0x88: PushInt(1, at, K::kBool); return;
      case 0x89: PushInt(0, at, K::kBool); return;
      case 'K':
        if (Need(1, at)) PushInt(static_cast<int64_t>(Unsigned(1)), at);
        return;
      case 'M':
        if (Need(2, at)) PushInt(static_cast<int64_t>(Unsigned(2)), at);
        return;
      case 'J':
        if (Need(4, at)) PushInt(static_cast<int32_t>(static_cast<uint32_t>(Unsigned(4))), at);
        return;
      case 0x8a:    // LONG1
      case 0x8b: {  // LONG4
        const size_t width = op == 0x8a ? 1 : 4;
        if (!Need(width, at)) return;
        const uint64_t n = Unsigned(width);
        if (n > 8) {
          Fail(fmt::format("byte {}: an integer of {} bytes; this reader takes 64 bits at most", at, n));
          return;
        }
        if (!Need(static_cast<size_t>(n), at)) return;
        uint64_t raw = Unsigned(static_cast<size_t>(n));
        if (n > 0 && n < 8 && (raw >> (8 * n - 1)) != 0) raw |= ~uint64_t{0} << (8 * n);  // sign-extend
        PushInt(static_cast<int64_t>(raw), at);
        return;
      }
      case 'G': {  // BINFLOAT, big-endian
        if (!Need(8, at)) return;
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | static_cast<uint8_t>(in_[pos_ + static_cast<size_t>(i)]);
        pos_ += 8;
        auto v = Scalar(K::kFloat);
        std::memcpy(&v->float_value, &bits, sizeof(double));
        Push(std::move(v), at);
        return;
      }
      case 'I':
      case 'L': {  // protocol 0 INT / LONG: "01\n" and "00\n" are True and False
        auto line = Line(at);
        if (!line) return;
        if (op == 'I' && (*line == "01" || *line == "00")) {
          PushInt(*line == "01" ? 1 : 0, at, K::kBool);
          return;
        }
        if (auto v = Decimal(*line, at)) PushInt(*v, at);
        return;
      }
      case 0x8c: PushLength(K::kStr, 1, at); return;    // SHORT_BINUNICODE
      case 'X': PushLength(K::kStr, 4, at); return;     // BINUNICODE
      case 0x8d: PushLength(K::kStr, 8, at); return;    // BINUNICODE8
      case 'C': PushLength(K::kBytes, 1, at); return;   // SHORT_BINBYTES
      case 'B': PushLength(K::kBytes, 4, at); return;   // BINBYTES
      case 0x8e: PushLength(K::kBytes, 8, at); return;  // BINBYTES8
      case 0x96: PushLength(K::kBytes, 8, at); return;  // BYTEARRAY8
      case 'U': PushLength(K::kBytes, 1, at); return;   // SHORT_BINSTRING (Python 2 str)
      case 'T': PushLength(K::kBytes, 4, at); return;   // BINSTRING
      case '}': Push(Scalar(K::kDict), at); return;
      case ']': Push(Scalar(K::kList), at); return;
      case ')': Push(Scalar(K::kTuple), at); return;
      case 0x8f: Push(Scalar(K::kList), at); return;  // EMPTY_SET, read as a list
      case 'a': {
        Mutable v = Pop(at);
        if (v != nullptr) Append({std::move(v)}, at);
        return;
      }
      case 'e':
      case 0x90: {  // APPENDS, ADDITEMS
        std::vector<Mutable> items;
        if (PopMark(items, at)) Append(std::move(items), at);
        return;
      }
      case 's': {
        Mutable value = Pop(at);
        Mutable key = value ? Pop(at) : nullptr;
        if (key != nullptr) SetItems({std::move(key), std::move(value)}, at);
        return;
      }
      case 'u': {
        std::vector<Mutable> kv;
        if (PopMark(kv, at)) SetItems(std::move(kv), at);
        return;
      }
      case 'l':
      case 't':
      case 0x91: {  // LIST, TUPLE, FROZENSET from the values above the mark
        std::vector<Mutable> items;
        if (PopMark(items, at)) MakeSequence(op == 't' ? K::kTuple : K::kList, std::move(items), at);
        return;
      }
      case 'd': {
        std::vector<Mutable> kv;
        if (!PopMark(kv, at)) return;
        Push(Scalar(K::kDict), at);
        if (error_.empty()) SetItems(std::move(kv), at);
        return;
      }
      case 0x85:
      case 0x86:
      case 0x87: {  // TUPLE1..3
        const size_t n = op - 0x84u;
        std::vector<Mutable> items(n);
        for (size_t i = n; i-- > 0;) {
          items[i] = Pop(at);
          if (items[i] == nullptr) return;
        }
        MakeSequence(K::kTuple, std::move(items), at);
        return;
      }
      case 0x94: Memoize(memo_.size(), at); return;
      case 'q':
        if (Need(1, at)) Memoize(Unsigned(1), at);
        return;
      case 'r':
        if (Need(4, at)) Memoize(Unsigned(4), at);
        return;
      case 'h':
        if (Need(1, at)) Recall(Unsigned(1), at);
        return;
      case 'j':
        if (Need(4, at)) Recall(Unsigned(4), at);
        return;
      case 'p':
      case 'g': {  // protocol 0 PUT / GET
        auto line = Line(at);
        if (!line) return;
        auto index = Decimal(*line, at);
        if (!index || *index < 0) return Fail(fmt::format("byte {}: a negative memo index", at));
        if (op == 'p') Memoize(static_cast<uint64_t>(*index), at);
        else Recall(static_cast<uint64_t>(*index), at);
        return;
      }
      case 'F':
      case 'S':
      case 'V':
        Fail(
            fmt::format("byte {}: a protocol 0 text value (opcode `{}`); snapshots are written with protocol 2 or "
                        "later, and this reader does not decode text escapes",
                        at, static_cast<char>(op)));
        return;
      default:
        Fail(
            fmt::format("byte {}: 0x{:02x} is not a pickle opcode this reader knows; the file is not a pickle of "
                        "plain data",
                        at, op));
        return;
    }
  }

  std::string_view in_;
  const PickleOptions& options_;
  size_t pos_ = 0;
  uint64_t made_ = 0;
  std::string error_;
  std::vector<Mutable> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, Mutable> memo_;
  // Containers placed inside another, which may no longer change (kept alive by the map too).
  std::unordered_map<const PyValue*, Mutable> sealed_;
};

}  // namespace

PickleResult ReadPickle(std::string_view bytes, const PickleOptions& options) { return Machine(bytes, options).Run(); }

}  // namespace tl::trace
