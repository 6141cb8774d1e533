#include "traceio/event_parser.h"

#include <algorithm>
#include <cstring>

#include "traceio/numbers.h"

namespace tl::trace {

namespace {

namespace od = simdjson::ondemand;

constexpr size_t kPad = simdjson::SIMDJSON_PADDING;

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Key comparison against a literal: a fixed-size memcmp, which the compiler inlines (a string_view
// comparison calls the library's memcmp, and keys are compared for every field of every event).
template <size_t N>
inline bool Is(std::string_view s, const char (&lit)[N]) {
  return s.size() == N - 1 && std::memcmp(s.data(), lit, N - 1) == 0;
}

bool IsGemmName(std::string_view name) {
  return Is(name, "aten::mm") || Is(name, "aten::addmm") || Is(name, "aten::bmm") || Is(name, "aten::linear") ||
         Is(name, "aten::matmul") || Is(name, "aten::baddbmm") || Is(name, "aten::addbmm");
}

// The text of a string token straight from the input when it holds no escape: the common case, and
// it spares On-Demand's copy into its string buffer. False when there is a backslash; the caller then
// unescapes, so escaped text reads exactly as simdjson decodes it.
inline bool RawText(od::raw_json_string raw, std::string_view& out) {
  const char* s = raw.raw();
  const char* p = s;
  while (*p != '"') {
    if (*p == '\\') return false;
    ++p;
  }
  out = std::string_view(s, static_cast<size_t>(p - s));
  return true;
}

// Keys are only compared, never kept, so an unescaped key may live in the parser's buffer.
inline simdjson::error_code KeyOf(od::field& field, std::string_view& key) {
  if (RawText(field.key(), key)) return simdjson::SUCCESS;
  return field.unescaped_key().get(key);
}

// Byte counts beyond a petabyte are no real profile; bounding them keeps the analyses' sums finite.
constexpr int64_t kMaxBytes = int64_t{1} << 50;
int64_t ClampBytes(int64_t v) { return std::clamp(v, -kMaxBytes, kMaxBytes); }
std::optional<int64_t> ClampBytes(std::optional<int64_t> v) {
  if (v) return ClampBytes(*v);
  return v;
}

// A value's text as On-Demand cut it: from its first byte to the next structural character, without
// the whitespace before that.
inline std::string_view Token(std::string_view raw) {
  while (!raw.empty() && IsSpace(raw.back())) raw.remove_suffix(1);
  return raw;
}
std::string_view TokenText(od::value& v) { return Token(v.raw_json_token()); }

// A value's JSON type from its first byte: what On-Demand's type() says, at a fraction of the cost.
enum class Shape : char { kString, kNumber, kObject, kNull, kOther };

inline Shape ShapeOf(std::string_view tok) {
  if (tok.empty()) return Shape::kOther;
  const char c = tok[0];
  if (c == '"') return Shape::kString;
  if (c == '-' || (c >= '0' && c <= '9')) return Shape::kNumber;
  if (c == '{') return Shape::kObject;
  if (c == 'n' && tok == "null") return Shape::kNull;
  return Shape::kOther;
}

// The `args` keys the store keeps. Both parsers look keys up here and set integer fields through
// SetIntArg, so they cannot disagree on which key sets what.
enum class Arg : uint8_t {
  kOther,
  // integers
  kExternalId,
  kCorrelation,
  kDevice,
  kStream,
  kBytes,
  kPythonId,
  kPythonParentId,
  kTotalAllocated,
  kTotalReserved,
  kMemoryBytes,
  kDeviceId,
  kDeviceType,
  // strings
  kName,
  kCallStack,
  kCallFrom,
  // arrays, kept for GEMMs only
  kInputDims,
  kInputType,
};

inline Arg ArgOf(std::string_view k) {
  if (k.empty()) return Arg::kOther;
  switch (k[0]) {
    case 'E': return Is(k, "External id") ? Arg::kExternalId : Arg::kOther;
    case 'e': return Is(k, "external id") ? Arg::kExternalId : Arg::kOther;
    case 'c': return Is(k, "correlation") ? Arg::kCorrelation : Arg::kOther;
    case 'd': return Is(k, "device") ? Arg::kDevice : Arg::kOther;
    case 's': return Is(k, "stream") ? Arg::kStream : Arg::kOther;
    case 'b': return Is(k, "bytes") ? Arg::kBytes : Arg::kOther;
    case 'n': return Is(k, "name") ? Arg::kName : Arg::kOther;
    case 'I': return Is(k, "Input Dims") ? Arg::kInputDims : Is(k, "Input type") ? Arg::kInputType : Arg::kOther;
    case 'C': return Is(k, "Call stack") ? Arg::kCallStack : Is(k, "CallFrom") ? Arg::kCallFrom : Arg::kOther;
    case 'P':
      return Is(k, "Python id") ? Arg::kPythonId : Is(k, "Python parent id") ? Arg::kPythonParentId : Arg::kOther;
    case 'T':
      return Is(k, "Total Allocated")  ? Arg::kTotalAllocated
             : Is(k, "Total Reserved") ? Arg::kTotalReserved
                                       : Arg::kOther;
    case 'B': return Is(k, "Bytes") ? Arg::kMemoryBytes : Arg::kOther;
    case 'D': return Is(k, "Device Id") ? Arg::kDeviceId : Is(k, "Device Type") ? Arg::kDeviceType : Arg::kOther;
    default: return Arg::kOther;
  }
}

inline bool IsIntArg(Arg a) { return a >= Arg::kExternalId && a <= Arg::kDeviceType; }

// Sets an integer arg; `n` is empty when the value is no integer.
void SetIntArg(Arg a, std::optional<int64_t> n, EventFields& f) {
  switch (a) {
    case Arg::kExternalId: f.external_id = n.value_or(0); break;
    case Arg::kCorrelation: f.correlation = n.value_or(0); break;
    case Arg::kDevice: f.gpu.device = static_cast<int32_t>(n.value_or(-1)); break;
    case Arg::kStream: f.gpu.stream = static_cast<int32_t>(n.value_or(-1)); break;
    case Arg::kBytes: f.gpu.bytes = ClampBytes(n.value_or(0)); break;
    case Arg::kPythonId: f.python_id = n.value_or(-1); break;
    case Arg::kPythonParentId: f.python_parent_id = n.value_or(-1); break;
    case Arg::kTotalAllocated: f.memory.total_allocated = ClampBytes(n); break;
    case Arg::kTotalReserved: f.memory.total_reserved = ClampBytes(n); break;
    case Arg::kMemoryBytes: f.memory.bytes = ClampBytes(n.value_or(0)); break;
    case Arg::kDeviceId: f.memory.device_id = static_cast<int32_t>(n.value_or(-1)); break;
    case Arg::kDeviceType: f.memory.device_type = static_cast<int8_t>(n.value_or(-1)); break;
    default: break;
  }
}

// The string an arg of kind `a` sets.
std::string_view& StringArg(Arg a, EventFields& f) {
  return a == Arg::kName ? f.meta_name : a == Arg::kCallStack ? f.call_stack : f.call_from;
}

// Shapes and dtypes are kept for GEMMs only (the one analysis that reads them); when `name` comes
// after `args` the event's name is not known yet, so they are kept.
inline bool WantsShapes(const EventFields& f) { return !f.has_name || IsGemmName(f.name); }

// ---- the fast path --------------------------------------------------------------------------------
// Events as Kineto writes them: every string unescaped, every value of the type it should have. The
// fast path reads scalars straight from their text and passes no On-Demand object to another
// function, which lets the compiler keep the iterators in registers (that is most of its speed).
// Anything else (an escape, an error, an odd type, a GEMM's shapes) sends the event to Parse, which
// alone defines the result: the fast path gives the same fields or gives up.

// A string token's content when it has no escape; false otherwise.
inline bool PlainString(std::string_view tok, std::string_view& out) {
  if (tok.size() < 2 || tok.back() != '"') return false;
  std::string_view s = tok.substr(1, tok.size() - 2);
  if (s.find('\\') != std::string_view::npos) return false;
  out = s;
  return true;
}

// An integer field as IntOf reads it; false when the fast path must give up.
inline bool FastInt(std::string_view tok, std::optional<int64_t>& out) {
  switch (ShapeOf(tok)) {
    case Shape::kNumber: out = ParseInteger(tok); return true;
    case Shape::kString: {
      std::string_view s;
      if (!PlainString(tok, s)) return false;
      out = ParseInteger(s);
      return true;
    }
    default: return false;
  }
}

}  // namespace

size_t SanitizeUtf8(char* p, size_t len) {
  size_t fixed = 0;
  size_t i = 0;
  auto u = [&](size_t k) { return static_cast<unsigned char>(p[k]); };
  while (i < len) {
    unsigned char c = u(i);
    if (c < 0x80) {
      if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') {
        p[i] = '?';
        ++fixed;
      }
      ++i;
      continue;
    }
    size_t need = 0;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c == 0xe0) {
      need = 2;
      lo = 0xa0;
    } else if (c >= 0xe1 && c <= 0xec) need = 2;
    else if (c == 0xed) {
      need = 2;
      hi = 0x9f;
    } else if (c >= 0xee && c <= 0xef) need = 2;
    else if (c == 0xf0) {
      need = 3;
      lo = 0x90;
    } else if (c >= 0xf1 && c <= 0xf3) need = 3;
    else if (c == 0xf4) {
      need = 3;
      hi = 0x8f;
    }
    bool valid = need > 0 && i + need < len;
    for (size_t k = 1; valid && k <= need; ++k) {
      unsigned char b = u(i + k);
      unsigned char l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xbf;
      valid = b >= l && b <= h;
    }
    if (valid) {
      i += need + 1;
    } else {
      p[i] = '?';
      ++fixed;
      ++i;
    }
  }
  return fixed;
}

void EventParser::ParseBatch(EventBatch& batch) {
  batch_ = &batch;
  batch.parsed.clear();
  batch.parsed.reserve(batch.elements.size());
  for (const Element& e : batch.elements) {
    ParsedEvent& out = batch.parsed.emplace_back();
    if (!e.object) continue;
    const size_t len = e.end - e.begin;
    if (fast_ && FastParse(batch.bytes.data() + e.begin, len, batch.bytes.size() - e.begin, out.fields)) {
      ++fast_count_;
      continue;
    }
    out.fields = EventFields{};
    repaired_ = false;
    out.error = Parse(batch.bytes.data() + e.begin, len, batch.bytes.size() - e.begin, out.fields);
    if (out.error == simdjson::UTF8_ERROR || out.error == simdjson::UNESCAPED_CHARS ||
        out.error == simdjson::STRING_ERROR) {
      // Repair a copy, kept in the arena because the event's views point into it.
      std::string& copy = batch.arena.emplace_back(batch.bytes.data() + e.begin, len);
      copy.resize(len + kPad, '\0');
      if (SanitizeUtf8(copy.data(), len) > 0) {
        out.fields = EventFields{};
        out.error = Parse(copy.data(), len, copy.size(), out.fields);
        out.sanitized = out.error == simdjson::SUCCESS;
      }
    }
    if (repaired_ && out.error == simdjson::SUCCESS) out.sanitized = true;
  }
  batch_ = nullptr;
}

// A string value: false when the value is not a string. Escaped text is decoded into the parser's
// buffer, which the next event reuses, so it is kept in the arena. A string whose escapes are invalid
// (`\q`, a lone surrogate) is kept as written, between its quotes, and the event counts as repaired.
bool EventParser::StringOf(od::value& v, std::string_view& out) {
  od::raw_json_string raw;
  if (v.get_raw_json_string().get(raw)) return false;
  if (RawText(raw, out)) return true;
  if (!v.get_string().get(out)) {
    out = batch_->arena.emplace_back(out);
    return true;
  }
  const char* begin = raw.raw();
  const char* p = begin;
  while (*p != '"') p += *p == '\\' ? 2 : 1;  // the splitter saw this string closed, so this stops
  out = batch_->arena.emplace_back(begin, static_cast<size_t>(p - begin));
  repaired_ = true;
  return true;
}

// Numbers are read from their text, as the fast path reads them: ParseInteger gives what get_int64
// gives for every integer it accepts, and reads the others (1.5e3, uint64 ids) too.
std::optional<int64_t> EventParser::IntOf(od::value v) {
  const std::string_view tok = TokenText(v);
  switch (ShapeOf(tok)) {
    case Shape::kNumber: return ParseInteger(tok);
    case Shape::kString: {
      std::string_view s;
      if (!StringOf(v, s)) return std::nullopt;
      return ParseInteger(s);
    }
    default: return std::nullopt;
  }
}

simdjson::error_code EventParser::ParseArgs(od::object args, EventFields& f) {
  for (auto field_result : args) {
    od::field field;
    if (auto err = std::move(field_result).get(field)) return err;
    std::string_view key;
    if (auto err = KeyOf(field, key)) return err;
    od::value v = field.value();
    const Arg a = ArgOf(key);
    if (IsIntArg(a)) {
      SetIntArg(a, IntOf(v), f);
      continue;
    }
    switch (a) {
      case Arg::kName:
      case Arg::kCallStack:
      case Arg::kCallFrom: {
        std::string_view s;
        if (StringOf(v, s)) StringArg(a, f) = s;
        break;
      }
      case Arg::kInputDims: {
        if (!WantsShapes(f)) break;
        od::array outer;
        if (v.get_array().get(outer)) break;
        f.has_dims = true;
        auto& dims = batch_->dims;
        f.dims_begin = static_cast<uint32_t>(dims.size());
        for (auto inner_result : outer) {
          od::value inner;
          if (std::move(inner_result).get(inner)) break;
          od::array shape;
          if (inner.get_array().get(shape)) {
            dims.push_back(0);
            continue;
          }
          size_t count_at = dims.size();
          dims.push_back(0);
          for (auto d : shape) {
            od::value dv;
            if (std::move(d).get(dv)) break;
            dims.push_back(IntOf(dv).value_or(-1));
            ++dims[count_at];
          }
        }
        f.dims_end = static_cast<uint32_t>(dims.size());
        break;
      }
      case Arg::kInputType: {
        if (!WantsShapes(f)) break;
        od::array types;
        if (v.get_array().get(types)) break;
        for (auto t : types) {
          od::value tv;
          std::string_view s;
          if (!std::move(t).get(tv) && StringOf(tv, s)) f.input_type = s;
          break;
        }
        break;
      }
      default: break;
    }
  }
  return simdjson::SUCCESS;
}

bool EventParser::FastParse(const char* p, size_t len, size_t allocated, EventFields& f) {
  od::document doc;
  if (parser_.iterate(p, len, allocated).get(doc)) return false;
  od::object obj;
  if (doc.get_object().get(obj)) return false;
  for (auto field_result : obj) {
    od::field field;
    if (std::move(field_result).get(field)) return false;
    std::string_view key;
    if (!RawText(field.key(), key)) return false;
    od::value v = field.value();
    if (Is(key, "args")) {
      const std::string_view open = Token(v.raw_json_token());
      if (ShapeOf(open) == Shape::kNull) continue;
      if (ShapeOf(open) != Shape::kObject) return false;
      od::object args;
      if (v.get_object().get(args)) return false;
      for (auto arg_result : args) {
        od::field arg;
        if (std::move(arg_result).get(arg)) return false;
        std::string_view k;
        if (!RawText(arg.key(), k)) return false;
        const Arg a = ArgOf(k);
        if (a == Arg::kOther) continue;
        const std::string_view tok = Token(arg.value().raw_json_token());
        if (IsIntArg(a)) {
          std::optional<int64_t> n;
          if (!FastInt(tok, n)) return false;
          SetIntArg(a, n, f);
        } else if (a == Arg::kInputDims || a == Arg::kInputType) {
          if (WantsShapes(f)) return false;
        } else if (ShapeOf(tok) == Shape::kString) {
          std::string_view s;
          if (!PlainString(tok, s)) return false;
          StringArg(a, f) = s;
        }
      }
      continue;
    }
    const std::string_view tok = Token(v.raw_json_token());
    const Shape shape = ShapeOf(tok);
    std::string_view s;
    if (Is(key, "ph")) {
      if (shape == Shape::kString) {
        if (!PlainString(tok, s)) return false;
        if (!s.empty()) f.ph = s[0];
      }
    } else if (Is(key, "name")) {
      if (shape == Shape::kString) {
        if (!PlainString(tok, s)) return false;
      } else if (shape == Shape::kNumber) {
        s = tok;
      } else {
        return false;
      }
      f.name = s;
      f.has_name = true;
    } else if (Is(key, "cat")) {
      if (shape == Shape::kString) {
        if (!PlainString(tok, s)) return false;
        f.cat = s;
        f.has_cat = true;
      }
    } else if (Is(key, "ts") || Is(key, "dur")) {
      std::optional<int64_t> ns;
      if (shape == Shape::kNumber) {
        ns = ParseMicrosToNanos(tok);
      } else if (shape == Shape::kString) {
        if (!PlainString(tok, s)) return false;
        ns = ParseMicrosToNanos(s);
      } else {
        return false;
      }
      (Is(key, "ts") ? f.ts : f.dur) = ns;
    } else if (Is(key, "pid") || Is(key, "tid")) {
      std::string_view& out = Is(key, "pid") ? f.pid : f.tid;
      if (shape == Shape::kString) {
        if (!PlainString(tok, s)) return false;
        out = s;
      } else if (shape == Shape::kNumber) {
        out = tok;
      } else {
        return false;
      }
    } else if (Is(key, "id")) {
      std::optional<int64_t> n;
      if (!FastInt(tok, n)) return false;
      f.id = n;
    }
  }
  return true;
}

simdjson::error_code EventParser::Parse(const char* p, size_t len, size_t allocated, EventFields& f) {
  od::document doc;
  if (auto err = parser_.iterate(p, len, allocated).get(doc)) return err;
  od::object obj;
  if (auto err = doc.get_object().get(obj)) return err;
  for (auto field_result : obj) {
    od::field field;
    if (auto err = std::move(field_result).get(field)) return err;
    std::string_view key;
    if (auto err = KeyOf(field, key)) return err;
    od::value v = field.value();
    if (key == "ph") {
      std::string_view s;
      if (StringOf(v, s) && !s.empty()) f.ph = s[0];
    } else if (key == "name") {
      od::json_type type;
      if (v.type().get(type)) continue;
      std::string_view s;
      if (type == od::json_type::string) {
        if (!StringOf(v, s)) continue;
      } else {
        s = TokenText(v);
      }
      f.name = s;
      f.has_name = true;
    } else if (key == "cat") {
      std::string_view s;
      if (StringOf(v, s)) {
        f.cat = s;
        f.has_cat = true;
      }
    } else if (key == "ts" || key == "dur") {
      od::json_type type;
      if (v.type().get(type)) continue;
      std::optional<int64_t> ns;
      if (type == od::json_type::number) {
        ns = ParseMicrosToNanos(v.raw_json_token());
      } else if (type == od::json_type::string) {
        std::string_view s;
        if (StringOf(v, s)) ns = ParseMicrosToNanos(s);
      }
      (key == "ts" ? f.ts : f.dur) = ns;
    } else if (key == "pid" || key == "tid") {
      od::json_type type;
      if (v.type().get(type)) continue;
      std::string_view& out = key == "pid" ? f.pid : f.tid;
      if (type == od::json_type::string) {
        std::string_view s;
        if (StringOf(v, s)) out = s;
      } else {
        out = TokenText(v);
      }
    } else if (key == "id") {
      f.id = IntOf(v);
    } else if (key == "args") {
      od::object args;
      if (v.get_object().get(args)) continue;  // null or not an object: no args
      if (auto err = ParseArgs(args, f)) return err;
    }
  }
  return simdjson::SUCCESS;
}

}  // namespace tl::trace
