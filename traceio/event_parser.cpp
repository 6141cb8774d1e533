#include "traceio/event_parser.h"

#include <algorithm>

#include "traceio/numbers.h"

namespace tl::trace {

namespace {

namespace od = simdjson::ondemand;

constexpr size_t kPad = simdjson::SIMDJSON_PADDING;

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

bool IsGemmName(std::string_view name) {
  return name == "aten::mm" || name == "aten::addmm" || name == "aten::bmm" || name == "aten::linear" ||
         name == "aten::matmul" || name == "aten::baddbmm" || name == "aten::addbmm";
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

// The value's own text (a number, true, null, ...) without the whitespace On-Demand leaves after it.
std::string_view TokenText(od::value& v) {
  std::string_view s = v.raw_json_token();
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
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
    else if (c == 0xe0) { need = 2; lo = 0xa0; }
    else if (c >= 0xe1 && c <= 0xec) need = 2;
    else if (c == 0xed) { need = 2; hi = 0x9f; }
    else if (c >= 0xee && c <= 0xef) need = 2;
    else if (c == 0xf0) { need = 3; lo = 0x90; }
    else if (c >= 0xf1 && c <= 0xf3) need = 3;
    else if (c == 0xf4) { need = 3; hi = 0x8f; }
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

std::optional<int64_t> EventParser::IntOf(od::value v) {
  od::json_type type;
  if (v.type().get(type)) return std::nullopt;
  if (type == od::json_type::number) {
    int64_t x = 0;
    if (!v.get_int64().get(x)) return x;
    return ParseInteger(TokenText(v));
  }
  if (type == od::json_type::string) {
    std::string_view s;
    if (!StringOf(v, s)) return std::nullopt;
    return ParseInteger(s);
  }
  return std::nullopt;
}

simdjson::error_code EventParser::ParseArgs(od::object args, EventFields& f) {
  // Shapes and dtypes are kept for GEMMs only (the one analysis that reads them); when `name` comes
  // after `args` the event's name is not known yet, so they are kept.
  auto wants_shapes = [&] { return !f.has_name || IsGemmName(f.name); };
  for (auto field_result : args) {
    od::field field;
    if (auto err = std::move(field_result).get(field)) return err;
    std::string_view key;
    if (auto err = KeyOf(field, key)) return err;
    od::value v = field.value();
    if (key.empty()) continue;
    switch (key[0]) {
      case 'E':
        if (key == "External id") f.external_id = IntOf(v).value_or(0);
        break;
      case 'e':
        if (key == "external id") f.external_id = IntOf(v).value_or(0);
        break;
      case 'c':
        if (key == "correlation") f.correlation = IntOf(v).value_or(0);
        break;
      case 'd':
        if (key == "device") f.gpu.device = static_cast<int32_t>(IntOf(v).value_or(-1));
        break;
      case 's':
        if (key == "stream") f.gpu.stream = static_cast<int32_t>(IntOf(v).value_or(-1));
        break;
      case 'b':
        if (key == "bytes") f.gpu.bytes = ClampBytes(IntOf(v).value_or(0));
        break;
      case 'n':
        if (key == "name") {
          std::string_view s;
          if (StringOf(v, s)) f.meta_name = s;
        }
        break;
      case 'I':
        if (key == "Input Dims") {
          if (!wants_shapes()) break;
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
        } else if (key == "Input type") {
          if (!wants_shapes()) break;
          od::array types;
          if (v.get_array().get(types)) break;
          for (auto t : types) {
            od::value tv;
            std::string_view s;
            if (!std::move(t).get(tv) && StringOf(tv, s)) f.input_type = s;
            break;
          }
        }
        break;
      case 'C':
        if (key == "Call stack") {
          std::string_view s;
          if (StringOf(v, s)) f.call_stack = s;
        } else if (key == "CallFrom") {
          std::string_view s;
          if (StringOf(v, s)) f.call_from = s;
        }
        break;
      case 'P':
        if (key == "Python id") f.python_id = IntOf(v).value_or(-1);
        else if (key == "Python parent id") f.python_parent_id = IntOf(v).value_or(-1);
        break;
      case 'T':
        if (key == "Total Allocated") f.memory.total_allocated = ClampBytes(IntOf(v));
        else if (key == "Total Reserved") f.memory.total_reserved = ClampBytes(IntOf(v));
        break;
      case 'B':
        if (key == "Bytes") f.memory.bytes = ClampBytes(IntOf(v).value_or(0));
        break;
      case 'D':
        if (key == "Device Id") f.memory.device_id = static_cast<int32_t>(IntOf(v).value_or(-1));
        else if (key == "Device Type") f.memory.device_type = static_cast<int8_t>(IntOf(v).value_or(-1));
        break;
      default:
        break;
    }
  }
  return simdjson::SUCCESS;
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
