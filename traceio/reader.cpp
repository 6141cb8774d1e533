#include "traceio/reader.h"

#include <simdjson.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <array>
#include <exception>
#include <cstring>
#include <map>
#include <string_view>

#include <fmt/core.h>

#include "traceio/numbers.h"

namespace tl::trace {

namespace {

namespace od = simdjson::ondemand;

constexpr size_t kPad = simdjson::SIMDJSON_PADDING;
constexpr size_t kMaxMetadataValue = size_t{64} << 20;

// Byte classes for the splitter: the only bytes that matter outside strings are quotes and brackets,
// and inside strings only the quote and the backslash.
constexpr std::array<bool, 256> MakeTable(std::string_view chars) {
  std::array<bool, 256> t{};
  for (char c : chars) t[static_cast<unsigned char>(c)] = true;
  return t;
}
constexpr auto kStructural = MakeTable("\"{}[]");
constexpr auto kStringStop = MakeTable("\"\\");

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// A short, printable excerpt of the input around an error, for one-line messages.
std::string Snippet(std::string_view bytes) {
  std::string out;
  for (char c : bytes.substr(0, 48)) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\n' || c == '\r' || c == '\t') out += ' ';
    else if (u < 0x20 || u == 0x7f) out += '?';
    else out += c;
  }
  return out;
}

// Replaces invalid UTF-8 sequences and raw control characters with '?', in place. Old Kineto wrote both;
// simdjson rightly rejects them, and one bad kernel name should not cost the event.
size_t Sanitize(char* p, size_t len) {
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

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

// Category, in either vocabulary, to kind. Returns false for flow/instant categories that are not
// complete events.
EventKind KindFromCategory(std::string_view cat) {
  std::string c = ToLower(cat);
  if (c == "cpu_op" || c == "operator") return EventKind::kCpuOp;
  if (c == "user_annotation") return EventKind::kUserAnnotation;
  if (c == "gpu_user_annotation") return EventKind::kGpuUserAnnotation;
  if (c == "python_function" || c == "python") return EventKind::kPythonFunction;
  if (c == "kernel") return EventKind::kKernel;
  if (c == "gpu_memcpy" || c == "memcpy") return EventKind::kMemcpy;
  if (c == "gpu_memset" || c == "memset") return EventKind::kMemset;
  if (c == "cuda_runtime" || c == "runtime" || c == "hip_runtime" || c == "xpu_runtime" || c == "mtia_runtime" ||
      c == "privateuse1_runtime") {
    return EventKind::kRuntime;
  }
  if (c == "cuda_driver" || c == "driver" || c == "xpu_driver" || c == "privateuse1_driver") return EventKind::kDriver;
  if (c == "cuda_sync") return EventKind::kCudaSync;
  return EventKind::kOther;
}

bool IsGemmName(std::string_view name) {
  return name == "aten::mm" || name == "aten::addmm" || name == "aten::bmm" || name == "aten::linear" ||
         name == "aten::matmul" || name == "aten::baddbmm" || name == "aten::addbmm";
}

// The text of a string token straight from the input when it holds no escape: the common case, and
// it spares On-Demand's copy into its string buffer. False when there is a backslash; the caller then
// unescapes as before, so escaped text reads exactly as it did.
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

inline simdjson::error_code KeyOf(od::field& field, std::string_view& key) {
  if (RawText(field.key(), key)) return simdjson::SUCCESS;
  return field.unescaped_key().get(key);
}

// A string value: false when the value is not a string (or holds a bad escape), as get_string.
inline bool StringOf(od::value& v, std::string_view& out) {
  od::raw_json_string raw;
  if (v.get_raw_json_string().get(raw)) return false;
  if (RawText(raw, out)) return true;
  return !v.get_string().get(out);
}

// The fields of one event that the store keeps, filled in whatever order the keys come.
struct Fields {
  char ph = 0;
  bool has_cat = false;
  std::string_view cat;
  bool has_name = false;
  StringId name = 0;
  std::optional<int64_t> ts;
  std::optional<int64_t> dur;
  std::string_view pid;  // into the input or the parser's string buffer, valid until Commit
  std::string_view tid;
  std::optional<int64_t> id;
  // args
  int64_t external_id = 0;
  int64_t correlation = 0;
  GpuInfo gpu;
  StringId call_stack = 0;
  StringId input_type = 0;
  bool has_dims = false;
  std::vector<int64_t> dims;
  PythonFrame python;
  MemoryEvent memory;
  std::string meta_name;
};

class Reader {
 public:
  Reader(ByteSource& source, std::string name, const ReadOptions& options)
      : source_(source), name_(std::move(name)), options_(options), buf_(std::max<size_t>(options.chunk_bytes, 4096) + kPad) {}

  ReadResult Run();

 private:
  // ---- buffer management -------------------------------------------------------------------------
  size_t capacity() const { return buf_.size() - kPad; }
  uint64_t Offset(size_t pos) const { return base_ + pos; }
  bool Refill();
  bool Ensure() { return pos_ < end_ || Refill(); }
  std::string_view Around(size_t pos) const { return {buf_.data() + pos, std::min<size_t>(end_ - pos, 48)}; }

  // ---- splitter ----------------------------------------------------------------------------------
  void SkipSpace();
  bool ScanCompound();      // pos_ at '{' or '['; leaves pos_ past the matching close
  bool ScanString();        // pos_ at '"'; leaves pos_ past the closing quote
  bool ScanScalar();        // number / true / false / null / N/A
  bool ReadKey(std::string& key);
  bool ReadEvents();
  bool CaptureValue(std::string* out);

  // ---- events ------------------------------------------------------------------------------------
  void ParseEvent(size_t begin, size_t end);
  simdjson::error_code ParseEventBytes(const char* p, size_t len, size_t alloc, Fields& f);
  simdjson::error_code ParseArgs(od::object args, Fields& f);
  void Commit(Fields& f);
  void ParseMetadata();
  std::optional<int64_t> GetInt(od::value v);
  EventKind CategoryKind(std::string_view cat);
  // builder_.Track with a one-entry memo: consecutive events are nearly always on the same thread.
  uint32_t TrackOf(std::string_view pid, std::string_view tid) {
    if (has_last_track_ && pid == last_pid_ && tid == last_tid_) return last_track_;
    last_track_ = builder_.Track(pid, tid);
    last_pid_ = pid;
    last_tid_ = tid;
    has_last_track_ = true;
    return last_track_;
  }

  void Fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
  }
  void Truncated() {
    stats_.truncated = true;
    stats_.truncated_at = Offset(end_);
  }

  ByteSource& source_;
  std::string name_;
  ReadOptions options_;
  std::vector<char> buf_;
  size_t pos_ = 0;
  size_t end_ = 0;
  size_t mark_ = std::string::npos;  // start of bytes that must survive a refill
  uint64_t base_ = 0;
  bool eof_ = false;
  std::string error_;
  std::string source_error_;

  od::parser parser_;
  std::vector<char> scratch_;
  TraceBuilder builder_;
  ReadStats stats_;
  bool bare_list_ = false;
  bool saw_events_key_ = false;
  std::map<std::string, std::string> metadata_raw_;
  std::vector<std::string> top_keys_;
  uint64_t first_bad_offset_ = 0;
  uint64_t event_offset_ = 0;
  std::string first_bad_message_;
  uint64_t sanitized_ = 0;
  uint64_t begin_end_events_ = 0;
  uint64_t old_vocab_ = 0;
  uint64_t new_vocab_ = 0;
  std::vector<int8_t> cat_kind_;    // by category string id; -1 unknown yet
  std::vector<int8_t> name_gemm_;   // by name string id; -1 unknown yet
  std::string last_pid_;
  std::string last_tid_;
  uint32_t last_track_ = 0;
  bool has_last_track_ = false;
  std::string last_cat_;
  int8_t last_cat_kind_ = 0;
  bool has_last_cat_ = false;
};

bool Reader::Refill() {
  if (eof_) return false;
  size_t keep = mark_ != std::string::npos ? std::min(mark_, pos_) : pos_;
  if (keep > 0) {
    std::memmove(buf_.data(), buf_.data() + keep, end_ - keep);
    end_ -= keep;
    pos_ -= keep;
    if (mark_ != std::string::npos) mark_ -= keep;
    base_ += keep;
  }
  if (end_ == capacity()) {
    // One element is larger than the chunk: grow rather than fail.
    buf_.resize(capacity() * 2 + kPad);
  }
  SourceRead r = source_.Read(buf_.data() + end_, capacity() - end_);
  if (!r.error.empty()) {
    source_error_ = r.error;
    eof_ = true;
    return false;
  }
  if (r.bytes == 0) {
    eof_ = true;
    return false;
  }
  end_ += r.bytes;
  stats_.bytes += r.bytes;
  return true;
}

void Reader::SkipSpace() {
  while (Ensure()) {
    while (pos_ < end_ && IsSpace(buf_[pos_])) ++pos_;
    if (pos_ < end_) return;
  }
}

bool Reader::ScanString() {
  ++pos_;  // opening quote
  while (true) {
    const char* b = buf_.data();
    const char* p = b + pos_;
    const char* e = b + end_;
    while (p < e) {
      while (p < e && !kStringStop[static_cast<unsigned char>(*p)]) ++p;
      if (p == e) break;
      if (*p == '"') {
        pos_ = static_cast<size_t>(p + 1 - b);
        return true;
      }
      if (p + 1 >= e) break;  // a backslash at the chunk end: rescan it after the refill
      p += 2;
    }
    pos_ = static_cast<size_t>(p - b);
    if (!Refill()) return false;
  }
}

#if defined(__SSE2__)
// 64 bytes at a time: bitmasks of quotes, backslashes and brackets, strings found with the carry-less
// prefix-xor trick (simdjson's stage 1 idea, in SSE2, which every x86-64 has). Returns false when the
// block cannot be handled by masks alone (a backslash outside any string), so the caller rescans it
// byte by byte and the result never differs from the scalar splitter's.
struct BlockMasks {
  uint64_t quote;
  uint64_t backslash;
  uint64_t open;
  uint64_t close;
};

inline BlockMasks LoadMasks(const char* p) {
  BlockMasks m{0, 0, 0, 0};
  const __m128i q = _mm_set1_epi8('"');
  const __m128i bs = _mm_set1_epi8('\\');
  const __m128i lower = _mm_set1_epi8(0x20);
  const __m128i ob = _mm_set1_epi8('{');
  const __m128i cb = _mm_set1_epi8('}');
  for (int k = 0; k < 4; ++k) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    __m128i folded = _mm_or_si128(v, lower);  // '[' -> '{', ']' -> '}'
    const int shift = 16 * k;
    m.quote |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, q)))) << shift;
    m.backslash |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, bs)))) << shift;
    m.open |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(folded, ob)))) << shift;
    m.close |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(folded, cb)))) << shift;
  }
  return m;
}

inline uint64_t PrefixXor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}
#endif

bool Reader::ScanCompound() {
  int64_t depth = 0;
  bool in_string = false;
  while (true) {
    const char* b = buf_.data();
    const char* p = b + pos_;
    const char* e = b + end_;
#if defined(__SSE2__)
    // Whole 64-byte blocks with masks; the tail of the chunk, and any block the masks cannot decide, go
    // through the byte loop below, which carries the same (depth, in_string) state.
    while (e - p >= 64) {
      const BlockMasks m = LoadMasks(p);
      // Backslash runs: which bytes are escaped (simdjson's odd/even series trick). A block that starts
      // inside a string never starts escaped: a block whose last byte is an escaping backslash is cut
      // before it (below), so the backslash is seen again at the start of the next block.
      constexpr uint64_t kOdd = 0xAAAAAAAAAAAAAAAAULL;
      const uint64_t bsl = m.backslash;
      uint64_t escaped = 0;
      uint64_t escape = 0;
      if (bsl != 0) {
        const uint64_t maybe_escaped = bsl << 1;
        const uint64_t code = ((maybe_escaped | kOdd) - bsl) ^ kOdd;
        escaped = code ^ bsl;
        escape = code & bsl;
      }
      const uint64_t quotes = m.quote & ~escaped;
      const uint64_t strings = PrefixXor(quotes) ^ (in_string ? ~uint64_t{0} : 0);  // opening quote .. content
      if ((bsl & ~strings) != 0) break;  // a backslash outside a string: invalid JSON, let the byte loop judge
      uint64_t brackets = (m.open | m.close) & ~strings;
      while (brackets != 0) {
        const int i = __builtin_ctzll(brackets);
        brackets &= brackets - 1;
        if ((m.open >> i) & 1) {
          ++depth;
        } else if (--depth == 0) {
          pos_ = static_cast<size_t>(p + i + 1 - b);
          return true;
        }
      }
      if ((escape >> 63) != 0) {
        // The last byte escapes the first of the next block: stop before it, inside the string.
        p += 63;
        in_string = true;
      } else {
        in_string = (strings >> 63) != 0;
        p += 64;
      }
    }
#endif
    while (p < e) {
      if (in_string) {
        while (p < e && !kStringStop[static_cast<unsigned char>(*p)]) ++p;
        if (p == e) break;
        if (*p == '"') {
          in_string = false;
          ++p;
          continue;
        }
        if (p + 1 >= e) break;
        p += 2;
        continue;
      }
      while (p < e && !kStructural[static_cast<unsigned char>(*p)]) ++p;
      if (p == e) break;
      char c = *p++;
      if (c == '"') {
        in_string = true;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if (--depth == 0) {
        pos_ = static_cast<size_t>(p - b);
        return true;
      }
    }
    pos_ = static_cast<size_t>(p - b);
    if (!Refill()) return false;
  }
}

bool Reader::ScanScalar() {
  while (true) {
    while (pos_ < end_) {
      char c = buf_[pos_];
      if (c == ',' || c == ']' || c == '}' || IsSpace(c)) return true;
      ++pos_;
    }
    if (!Refill()) return true;  // a scalar may end the stream
  }
}

bool Reader::ReadKey(std::string& key) {
  size_t start = pos_;
  mark_ = start;
  if (!ScanString()) {
    mark_ = std::string::npos;
    return false;
  }
  start = mark_;
  mark_ = std::string::npos;
  key.assign(buf_.data() + start + 1, pos_ - start - 2);
  return true;
}

bool Reader::CaptureValue(std::string* out) {
  SkipSpace();
  if (!Ensure()) return false;
  mark_ = pos_;
  char c = buf_[pos_];
  bool ok = false;
  if (c == '{' || c == '[') ok = ScanCompound();
  else if (c == '"') ok = ScanString();
  else ok = ScanScalar();
  if (ok && out != nullptr && pos_ - mark_ <= kMaxMetadataValue) out->assign(buf_.data() + mark_, pos_ - mark_);
  mark_ = std::string::npos;
  return ok;
}

bool Reader::ReadEvents() {
  while (true) {
    SkipSpace();
    if (!Ensure()) {
      Truncated();
      return false;
    }
    char c = buf_[pos_];
    if (c == ']') {
      ++pos_;
      return true;
    }
    if (c == ',') {
      ++pos_;
      continue;
    }
    if (c == '{') {
      mark_ = pos_;
      if (!ScanCompound()) {
        mark_ = std::string::npos;
        Truncated();
        return false;
      }
      size_t begin = mark_;
      mark_ = std::string::npos;
      ParseEvent(begin, pos_);
      stats_.last_complete = Offset(pos_);
      continue;
    }
    // Not an object: count it as a bad event when it is a JSON value, fail on anything else.
    size_t at = pos_;
    bool ok = false;
    if (c == '[') ok = ScanCompound();
    else if (c == '"') ok = ScanString();
    else if ((c >= '0' && c <= '9') || c == '-' || c == 't' || c == 'f' || c == 'n' || c == 'N') ok = ScanScalar();
    else {
      Fail(fmt::format("{}: invalid JSON at byte {}: expected an event object in traceEvents, found '{}' near «{}»",
                       name_, Offset(at), Snippet(std::string_view(&c, 1)), Snippet(Around(at))));
      return false;
    }
    if (!ok) {
      Truncated();
      return false;
    }
    ++stats_.bad_events;
    if (first_bad_message_.empty()) {
      first_bad_offset_ = Offset(at);
      first_bad_message_ = "an element of traceEvents is not an object";
    }
  }
}

ReadResult Reader::Run() {
  ReadResult result;
  stats_.stored_bytes = source_.StoredSize();
  if (!source_.compressed() && stats_.stored_bytes > (uint64_t{64} << 20)) {
    // Kineto spends 350-450 bytes of JSON per complete event; reserving for one per 320 bytes spares the
    // columns their growth copies (and the page faults of each new copy) on large files. Pages past the
    // events actually read are never touched, so this costs address space, not memory.
    // Capped, and best effort: a refused reservation only means the columns grow as before.
    try {
      builder_.Reserve(static_cast<size_t>(std::min<uint64_t>(stats_.stored_bytes / 320, uint64_t{32} << 20)));
    } catch (const std::exception&) {
    }
  }
  SkipSpace();
  // A UTF-8 byte order mark is not JSON but some editors add it.
  if (Ensure() && end_ - pos_ >= 3 && std::memcmp(buf_.data() + pos_, "\xEF\xBB\xBF", 3) == 0) {
    pos_ += 3;
    SkipSpace();
  }
  if (!Ensure()) {
    result.error = !source_error_.empty() ? fmt::format("{}: {}", name_, source_error_)
                                          : fmt::format("{}: the file is empty; expected a profiler trace (JSON)", name_);
    result.stats = stats_;
    return result;
  }
  char first = buf_[pos_];
  bool events_done = false;
  if (first == '[') {
    bare_list_ = true;
    saw_events_key_ = true;
    ++pos_;
    events_done = ReadEvents();
  } else if (first == '{') {
    ++pos_;
    std::string key;
    bool closed = false;
    while (error_.empty()) {
      SkipSpace();
      if (!Ensure()) break;
      char c = buf_[pos_];
      if (c == '}') {
        ++pos_;
        closed = true;
        break;
      }
      if (c == ',') {
        ++pos_;
        continue;
      }
      if (c != '"') {
        Fail(fmt::format("{}: invalid JSON at byte {}: expected a key string, found '{}' near «{}»", name_,
                         Offset(pos_), Snippet(std::string_view(&c, 1)), Snippet(Around(pos_))));
        break;
      }
      if (!ReadKey(key)) break;
      SkipSpace();
      if (!Ensure()) break;
      if (buf_[pos_] != ':') {
        Fail(fmt::format("{}: invalid JSON at byte {}: expected ':' after key \"{}\", found '{}' near «{}»", name_,
                         Offset(pos_), Snippet(key), Snippet(std::string_view(&buf_[pos_], 1)), Snippet(Around(pos_))));
        break;
      }
      ++pos_;
      top_keys_.push_back(key);
      SkipSpace();
      if (!Ensure()) break;
      if (key == "traceEvents" && buf_[pos_] == '[') {
        saw_events_key_ = true;
        ++pos_;
        events_done = ReadEvents();
        if (!events_done) break;
        continue;
      }
      std::string value;
      if (!CaptureValue(&value)) break;
      metadata_raw_[key] = std::move(value);
    }
    if (error_.empty() && !closed && saw_events_key_ && events_done) {
      // Everything of value was read; only the closing of the top-level object is missing.
      Truncated();
    }
  } else {
    result.error = fmt::format(
        "{}: not a JSON trace: expected '{{' or '[' at byte {}, found «{}»; pass a file written by "
        "torch.profiler (export_chrome_trace or tensorboard_trace_handler)",
        name_, Offset(pos_), Snippet(Around(pos_)));
    result.stats = stats_;
    return result;
  }

  if (!error_.empty()) {
    result.error = error_;
    result.stats = stats_;
    return result;
  }
  if (!source_error_.empty() && stats_.events == 0) {
    result.error = fmt::format("{}: {}", name_, source_error_);
    result.stats = stats_;
    return result;
  }
  if (!saw_events_key_) {
    std::string keys;
    for (size_t i = 0; i < top_keys_.size() && i < 8; ++i) keys += (i ? ", " : "") + top_keys_[i];
    result.error = stats_.truncated || (eof_ && top_keys_.empty())
                       ? fmt::format("{}: the file ends at byte {} before any \"traceEvents\"", name_, Offset(end_))
                       : fmt::format("{}: not a PyTorch profiler trace: no \"traceEvents\" array (top-level keys: {})",
                                     name_, keys.empty() ? "none" : keys);
    result.stats = stats_;
    return result;
  }

  ParseMetadata();
  if (!source_error_.empty()) {
    result.warnings.push_back(fmt::format("{}: {}; analysed the {} events read before it", name_, source_error_,
                                          stats_.events));
  }
  if (stats_.truncated) {
    result.warnings.push_back(fmt::format(
        "{}: truncated at byte {} (the file ends inside the trace, as when a job is killed mid-write); "
        "analysed the {} complete events before byte {}",
        name_, stats_.truncated_at, stats_.events, stats_.last_complete));
  }
  if (stats_.bad_events > 0) {
    result.warnings.push_back(fmt::format("{}: skipped {} malformed event{}; the first at byte {}: {}", name_,
                                          stats_.bad_events, stats_.bad_events == 1 ? "" : "s", first_bad_offset_,
                                          first_bad_message_));
  }
  if (sanitized_ > 0) {
    result.warnings.push_back(fmt::format(
        "{}: {} event{} held invalid UTF-8 or raw control characters; those bytes were replaced with '?'", name_,
        sanitized_, sanitized_ == 1 ? "" : "s"));
  }
  if (begin_end_events_ > 0) {
    result.warnings.push_back(fmt::format("{}: ignored {} B/E duration events (torch.profiler writes X events)",
                                          name_, begin_end_events_));
  }
  if (stats_.events == 0) {
    result.warnings.push_back(fmt::format("{}: the trace holds no events", name_));
  }
  auto& md = builder_.metadata();
  md.path = name_;
  if (bare_list_) md.format = TraceFormat::kLegacyList;
  else if (old_vocab_ > new_vocab_) md.format = TraceFormat::kKinetoOld;
  else if (new_vocab_ > 0) md.format = TraceFormat::kKineto;
  result.trace = builder_.Finish();
  result.stats = stats_;
  return result;
}

EventKind Reader::CategoryKind(std::string_view cat) {
  int8_t v = 0;
  if (has_last_cat_ && cat == last_cat_) {
    v = last_cat_kind_;  // the same category as the event before: its string is interned already
  } else {
    StringId id = builder_.strings().Intern(cat);
    if (id >= cat_kind_.size()) cat_kind_.resize(id + 64, -1);
    if (cat_kind_[id] < 0) {
      cat_kind_[id] = static_cast<int8_t>(KindFromCategory(cat));
      // The PyTorch 1.8-1.9 vocabulary is capitalised.
      if (cat == "Operator" || cat == "Runtime" || cat == "Kernel" || cat == "Memcpy" || cat == "Memset") {
        cat_kind_[id] = static_cast<int8_t>(cat_kind_[id] | 0x40);
      }
    }
    v = cat_kind_[id];
    last_cat_.assign(cat);
    last_cat_kind_ = v;
    has_last_cat_ = true;
  }
  if (v & 0x40) ++old_vocab_;
  else if (v != static_cast<int8_t>(EventKind::kOther)) ++new_vocab_;
  return static_cast<EventKind>(v & 0x3f);
}

std::optional<int64_t> Reader::GetInt(od::value v) {
  od::json_type type;
  if (v.type().get(type)) return std::nullopt;
  if (type == od::json_type::number) {
    int64_t x = 0;
    if (!v.get_int64().get(x)) return x;
    std::string_view raw = v.raw_json_token();
    return ParseInteger(raw);
  }
  if (type == od::json_type::string) {
    std::string_view s;
    if (v.get_string().get(s)) return std::nullopt;
    return ParseInteger(s);
  }
  return std::nullopt;
}

simdjson::error_code Reader::ParseArgs(od::object args, Fields& f) {
  for (auto field_result : args) {
    od::field field;
    if (auto err = std::move(field_result).get(field)) return err;
    std::string_view key;
    if (auto err = KeyOf(field, key)) return err;
    od::value v = field.value();
    if (key.empty()) continue;
    switch (key[0]) {
      case 'E':
        if (key == "External id") f.external_id = GetInt(v).value_or(0);
        break;
      case 'e':
        if (key == "external id") f.external_id = GetInt(v).value_or(0);
        break;
      case 'c':
        if (key == "correlation") f.correlation = GetInt(v).value_or(0);
        break;
      case 'd':
        if (key == "device") f.gpu.device = static_cast<int32_t>(GetInt(v).value_or(-1));
        break;
      case 's':
        if (key == "stream") f.gpu.stream = static_cast<int32_t>(GetInt(v).value_or(-1));
        break;
      case 'b':
        if (key == "bytes") f.gpu.bytes = GetInt(v).value_or(0);
        break;
      case 'n':
        if (key == "name") {
          std::string_view s;
          if (StringOf(v, s)) f.meta_name.assign(s);
        }
        break;
      case 'I':
        if (key == "Input Dims") {
          bool want = !f.has_name;
          if (f.has_name) {
            if (f.name >= name_gemm_.size()) name_gemm_.resize(f.name + 256, -1);
            if (name_gemm_[f.name] < 0) name_gemm_[f.name] = IsGemmName(builder_.strings().Get(f.name)) ? 1 : 0;
            want = name_gemm_[f.name] == 1;
          }
          if (!want) break;
          od::array outer;
          if (v.get_array().get(outer)) break;
          f.has_dims = true;
          for (auto inner_result : outer) {
            od::value inner;
            if (std::move(inner_result).get(inner)) break;
            od::array shape;
            if (inner.get_array().get(shape)) {
              f.dims.push_back(0);
              continue;
            }
            size_t count_at = f.dims.size();
            f.dims.push_back(0);
            for (auto d : shape) {
              od::value dv;
              if (std::move(d).get(dv)) break;
              f.dims.push_back(GetInt(dv).value_or(-1));
              ++f.dims[count_at];
            }
          }
        } else if (key == "Input type") {
          od::array types;
          if (v.get_array().get(types)) break;
          for (auto t : types) {
            od::value tv;
            std::string_view s;
            if (!std::move(t).get(tv) && StringOf(tv, s)) f.input_type = builder_.strings().Intern(s);
            break;
          }
        }
        break;
      case 'C':
        if (key == "Call stack") {
          std::string_view s;
          if (StringOf(v, s) && !s.empty()) f.call_stack = builder_.strings().Intern(s);
        } else if (key == "CallFrom") {
          std::string_view s;
          if (StringOf(v, s)) f.python.call_from = builder_.strings().Intern(s);
        }
        break;
      case 'P':
        if (key == "Python id") f.python.python_id = GetInt(v).value_or(-1);
        else if (key == "Python parent id") f.python.parent_id = GetInt(v).value_or(-1);
        break;
      case 'T':
        if (key == "Total Allocated") f.memory.total_allocated = GetInt(v);
        else if (key == "Total Reserved") f.memory.total_reserved = GetInt(v);
        break;
      case 'B':
        if (key == "Bytes") f.memory.bytes = GetInt(v).value_or(0);
        break;
      case 'D':
        if (key == "Device Id") f.memory.device_id = static_cast<int32_t>(GetInt(v).value_or(-1));
        else if (key == "Device Type") f.memory.device_type = static_cast<int8_t>(GetInt(v).value_or(-1));
        break;
      default:
        break;
    }
  }
  return simdjson::SUCCESS;
}

simdjson::error_code Reader::ParseEventBytes(const char* p, size_t len, size_t alloc, Fields& f) {
  od::document doc;
  if (auto err = parser_.iterate(p, len, alloc).get(doc)) return err;
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
      std::string_view s;
      od::json_type type;
      if (v.type().get(type)) continue;
      if (type == od::json_type::string) {
        if (!StringOf(v, s)) continue;
      } else {
        s = v.raw_json_token();
        while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
      }
      f.name = builder_.strings().Intern(s);
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
        std::string_view s = v.raw_json_token();
        while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
        out = s;
      }
    } else if (key == "id") {
      f.id = GetInt(v);
    } else if (key == "args") {
      od::object args;
      if (v.get_object().get(args)) continue;  // null or not an object: no args
      if (auto err = ParseArgs(args, f)) return err;
    }
  }
  return simdjson::SUCCESS;
}

void Reader::ParseEvent(size_t begin, size_t end) {
  Fields f;
  const size_t len = end - begin;
  event_offset_ = Offset(begin);
  auto err = ParseEventBytes(buf_.data() + begin, len, buf_.size() - begin, f);
  if (err == simdjson::UTF8_ERROR || err == simdjson::UNESCAPED_CHARS || err == simdjson::STRING_ERROR) {
    scratch_.assign(buf_.data() + begin, buf_.data() + end);
    scratch_.resize(len + kPad, '\0');
    if (Sanitize(scratch_.data(), len) > 0) {
      f = Fields{};
      err = ParseEventBytes(scratch_.data(), len, scratch_.size(), f);
      if (!err) ++sanitized_;
    }
  }
  if (err) {
    ++stats_.bad_events;
    if (first_bad_message_.empty()) {
      first_bad_offset_ = Offset(begin);
      first_bad_message_ = fmt::format("{} near «{}»", simdjson::error_message(err),
                                       Snippet(std::string_view(buf_.data() + begin, std::min<size_t>(len, 48))));
    }
    return;
  }
  Commit(f);
}

void Reader::Commit(Fields& f) {
  char ph = f.ph;
  if (ph == 0 && f.dur) ph = 'X';
  switch (ph) {
    case 'X': {
      if (!f.ts) {
        ++stats_.bad_events;
        if (first_bad_message_.empty()) {
          first_bad_offset_ = event_offset_;
          first_bad_message_ = "a complete event has no readable \"ts\"";
        }
        return;
      }
      // Times outside these bounds are no real profile (2^61 ns is 73 years; 2^48 ns is 3.3 days), and
      // refusing them here keeps every sum of durations in the analyses far from int64 overflow.
      constexpr int64_t kMaxAbsTs = int64_t{1} << 61;
      constexpr int64_t kMaxDur = int64_t{1} << 48;
      if (*f.ts > kMaxAbsTs || *f.ts < -kMaxAbsTs || f.dur.value_or(0) < 0 || f.dur.value_or(0) > kMaxDur) {
        ++stats_.bad_events;
        if (first_bad_message_.empty()) {
          first_bad_offset_ = event_offset_;
          first_bad_message_ = "a complete event has a \"ts\" or \"dur\" outside any real profile";
        }
        return;
      }
      EventKind kind = EventKind::kCpuOp;
      if (f.has_cat) {
        kind = CategoryKind(f.cat);
      } else {
        std::string_view n = builder_.strings().Get(f.name);
        if (n.starts_with("ProfilerStep#") || n.starts_with("enumerate(DataLoader)") || n.starts_with("Optimizer.")) {
          kind = EventKind::kUserAnnotation;
        }
      }
      if (kind == EventKind::kPythonFunction && !options_.keep_python_functions) {
        ++stats_.skipped_events;
        return;
      }
      TraceBuilder::Complete c;
      c.ts = *f.ts;
      c.dur = f.dur.value_or(0);
      c.name = f.name;
      c.kind = kind;
      c.track = TrackOf(f.pid, f.tid);
      c.correlation = f.correlation;
      c.external_id = f.external_id;
      uint32_t index = builder_.Add(c);
      ++stats_.events;
      if (IsGpuWork(kind)) {
        builder_.AttachGpu(index, f.gpu);
      } else if (kind == EventKind::kPythonFunction) {
        builder_.AttachPython(index, f.python);
      } else if ((kind == EventKind::kCpuOp || kind == EventKind::kUserAnnotation) &&
                 (f.call_stack != 0 || f.has_dims || f.input_type != 0)) {
        builder_.AttachOp(index, f.call_stack, f.input_type, f.dims);
      }
      return;
    }
    case 'i':
    case 'I': {
      ++stats_.events;
      if (f.has_name && builder_.strings().Get(f.name) == "[memory]" && f.ts) {
        f.memory.ts = *f.ts;
        builder_.AddMemory(f.memory);
      }
      return;
    }
    case 's':
    case 'f': {
      ++stats_.events;
      if (!f.ts || !f.id) return;
      FlowPoint flow;
      flow.id = *f.id;
      flow.ts = *f.ts;
      flow.track = TrackOf(f.pid, f.tid);
      flow.start = ph == 's';
      std::string c = ToLower(f.cat);
      flow.ac2g = c == "ac2g" || c == "async" || c == "async_cpu_to_gpu";
      builder_.AddFlow(flow);
      return;
    }
    case 'M': {
      ++stats_.events;
      if (f.has_name && builder_.strings().Get(f.name) == "thread_name" && !f.meta_name.empty()) {
        builder_.SetThreadName(builder_.Track(f.pid, f.tid), f.meta_name);
      }
      return;
    }
    case 'B':
    case 'E':
      ++begin_end_events_;
      return;
    default:
      ++stats_.events;  // counters and other phases carry nothing the analyses use
      return;
  }
}

void Reader::ParseMetadata() {
  auto& md = builder_.metadata();
  od::parser parser;
  auto with = [&](const char* key, auto&& fn) {
    auto it = metadata_raw_.find(key);
    if (it == metadata_raw_.end()) return;
    simdjson::padded_string json(it->second);
    od::document doc;
    if (parser.iterate(json).get(doc)) return;
    fn(doc);
  };
  auto int_of = [](od::value v) -> std::optional<int64_t> {
    int64_t x = 0;
    if (!v.get_int64().get(x)) return x;
    double d = 0;
    if (!v.get_double().get(d)) return static_cast<int64_t>(d);
    std::string_view s;
    if (!v.get_string().get(s)) return ParseInteger(s);
    return std::nullopt;
  };
  // Scalars are read from their text: On-Demand does not hand out a scalar document as a value.
  auto scalar = [&](const char* key) -> std::optional<std::string_view> {
    auto it = metadata_raw_.find(key);
    if (it == metadata_raw_.end()) return std::nullopt;
    std::string_view v = it->second;
    while (!v.empty() && IsSpace(v.back())) v.remove_suffix(1);
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    return v;
  };
  if (auto v = scalar("baseTimeNanoseconds")) md.base_time_ns = ParseInteger(*v);
  with("deviceProperties", [&](od::document& doc) {
    od::array arr;
    if (doc.get_array().get(arr)) return;
    for (auto item : arr) {
      od::object obj;
      if (item.get_object().get(obj)) continue;
      DeviceProperties dp;
      for (auto field : obj) {
        std::string_view key;
        if (field.unescaped_key().get(key)) break;
        od::value v = field.value();
        if (key == "id") dp.id = static_cast<int>(int_of(v).value_or(-1));
        else if (key == "name") {
          std::string_view s;
          if (!v.get_string().get(s)) dp.name.assign(s);
        } else if (key == "totalGlobalMem") dp.total_global_mem = int_of(v).value_or(0);
        else if (key == "computeMajor") dp.compute_major = static_cast<int>(int_of(v).value_or(0));
        else if (key == "computeMinor") dp.compute_minor = static_cast<int>(int_of(v).value_or(0));
        else if (key == "numSms") dp.num_sms = static_cast<int>(int_of(v).value_or(0));
      }
      md.devices.push_back(std::move(dp));
    }
  });
  with("distributedInfo", [&](od::document& doc) {
    od::object obj;
    if (doc.get_object().get(obj)) return;
    for (auto field : obj) {
      std::string_view key;
      if (field.unescaped_key().get(key)) break;
      od::value v = field.value();
      if (key == "rank") {
        if (auto r = int_of(v)) md.rank = static_cast<int>(*r);
      } else if (key == "world_size") {
        if (auto w = int_of(v)) md.world_size = static_cast<int>(*w);
      } else if (key == "backend") {
        std::string_view s;
        if (!v.get_string().get(s)) md.backend.assign(s);
      }
    }
  });
  auto version = [&](const char* key, std::string& out) {
    auto v = scalar(key);
    if (!v) return;
    if (auto n = ParseInteger(*v)) {
      // CUDA encodes 12.8 as 12080; HIP as 70253211 (major*1e7 + minor*1e5 + patch).
      if (*n >= 10000000) out = fmt::format("{}.{}", *n / 10000000, (*n / 100000) % 100);
      else if (*n >= 1000) out = fmt::format("{}.{}", *n / 1000, (*n % 1000) / 10);
      else out = fmt::format("{}", *n);
    } else {
      out.assign(*v);
    }
  };
  version("cuda_runtime_version", md.cuda_runtime_version);
  version("cuda_driver_version", md.cuda_driver_version);
  version("hip_runtime_version", md.hip_runtime_version);
  auto flag = [&](const char* key, bool& out) {
    auto v = scalar(key);
    if (!v) return;
    out = *v == "true" || ParseInteger(*v).value_or(0) != 0;
  };
  flag("record_shapes", md.record_shapes);
  flag("profile_memory", md.profile_memory);
  flag("with_stack", md.with_stack);
  flag("with_flops", md.with_flops);
  for (const char* key : {"pytorch_version", "torch_version"}) {
    if (auto v = scalar(key)) md.pytorch_version.assign(*v);
  }
}
}  // namespace

ReadResult ReadTraceSource(ByteSource& source, const std::string& display_name, const ReadOptions& options) {
  Reader reader(source, display_name, options);
  return reader.Run();
}

ReadResult ReadTraceFile(const std::string& path, const ReadOptions& options) {
  std::string error;
  auto source = OpenSource(path, options.limits, error);
  if (!source) {
    ReadResult r;
    r.error = error;
    return r;
  }
  return ReadTraceSource(*source, path, options);
}

}  // namespace tl::trace
