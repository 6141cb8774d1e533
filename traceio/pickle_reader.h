// A restricted reader of Python pickles, for the memory snapshots `torch.cuda.memory._dump_snapshot`
// writes. It runs the pickle machine only for plain data: dicts, lists, tuples, str, bytes, int (up to 64
// bits), float, bool and None, with the memo. Every opcode that names or calls code (GLOBAL,
// STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, NEWOBJ_EX, EXT*, PERSID, BINPERSID) is refused with a
// one-line error, so a hostile pickle can never run anything: it is data or it is rejected. No pickle
// reader exists among Debian's C++ libraries, hence this one; it follows the opcode table of Python's
// `pickletools` (protocols 0-5 for the data opcodes).
//
// Bounds, so that no input can exhaust the stack or memory: nesting deeper than kMaxPickleDepth, more
// than `max_values` values counted as a tree (a shared element counts at every place: "billion laughs"
// stops there), a
// length field past the end of the input (read as truncation), and memo references to entries that do
// not exist are errors. A container cannot change once it is inside another (Python's pickler never
// does that for data; it is how a recursive structure would be built), so the result has no cycles.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tl::trace {

inline constexpr uint32_t kMaxPickleDepth = 512;

struct PyValue;
using PyRef = std::shared_ptr<const PyValue>;

// One value of the pickle. Containers hold their elements by shared reference, as Python does, so a
// string the memo names a thousand times is stored once; `nodes` counts the value as a tree (a shared
// element counts every time), which bounds the work of anything that walks it.
struct PyValue {
  enum class Kind : uint8_t { kNone, kBool, kInt, kFloat, kStr, kBytes, kList, kTuple, kDict };
  Kind kind = Kind::kNone;
  uint16_t depth = 0;                            // 0 for scalars; 1 + the deepest element for containers
  uint64_t nodes = 1;                            // this value and its elements, counted as a tree
  int64_t int_value = 0;                         // kInt, kBool
  double float_value = 0;                        // kFloat
  std::string text;                              // kStr (UTF-8 as written), kBytes
  std::vector<PyRef> items;                      // kList, kTuple (sets and frozensets read as lists)
  std::vector<std::pair<PyRef, PyRef>> entries;  // kDict, in insertion order

  bool is_dict() const { return kind == Kind::kDict; }
  bool is_list() const { return kind == Kind::kList || kind == Kind::kTuple; }
  std::string_view str() const { return kind == Kind::kStr ? std::string_view(text) : std::string_view(); }
  // The value under a string key of a dict, or null.
  const PyValue* Get(std::string_view key) const;
  std::optional<int64_t> Int() const {
    return kind == Kind::kInt || kind == Kind::kBool ? std::optional<int64_t>(int_value) : std::nullopt;
  }
};

struct PickleOptions {
  uint64_t max_values = uint64_t{50} << 20;  // the result's size as a tree, and the values made in all
};

struct PickleResult {
  PyRef value;        // null when the pickle was refused
  std::string error;  // one line, with the byte offset, when value is null
  bool ok() const { return value != nullptr; }
};

PickleResult ReadPickle(std::string_view bytes, const PickleOptions& options = {});

}  // namespace tl::trace
