#include "traceio/reader.h"

#include <simdjson.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <string_view>
#include <thread>

#include <fmt/core.h>

#include "traceio/event_parser.h"
#include "traceio/numbers.h"
#include "traceio/parse_pool.h"

namespace tl::trace {

namespace {

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

// A short, printable excerpt of the input around an error, for one-line messages: control bytes and
// invalid UTF-8 (binary input, or a multi-byte character cut at the end) become '?'.
std::string Snippet(std::string_view bytes) {
  std::string out(bytes.substr(0, 48));
  SanitizeUtf8(out.data(), out.size());
  for (auto& c : out) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    else if (c == 0x7f) c = '?';
  }
  return out;
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

// Threads that parse: as asked, or one per CPU (at most 8).
unsigned ResolveThreads(unsigned asked) {
  constexpr unsigned kMaxThreads = 8;
  return asked != 0 ? asked : std::clamp(std::thread::hardware_concurrency(), 1u, kMaxThreads);
}

class Reader {
 public:
  Reader(ByteSource& source, std::string name, const ReadOptions& options)
      : source_(source),
        name_(std::move(name)),
        options_(options),
        buf_(std::max<size_t>(options.chunk_bytes, 4096) + kPad),
        threads_(ResolveThreads(options.threads)),
        parser_(options.fast_events) {}

  ReadResult Run();

 private:
  // ---- buffer management -------------------------------------------------------------------------
  size_t capacity() const { return buf_.size() - kPad; }
  uint64_t Offset(size_t pos) const { return base_ + pos; }
  bool Refill();
  void Shift(size_t keep);  // buf_ now starts at what was `keep`: the positions follow
  bool Ensure() { return pos_ < end_ || Refill(); }
  std::string_view Around(size_t pos) const { return {buf_.data() + pos, std::min<size_t>(end_ - pos, 48)}; }

  // ---- splitter ----------------------------------------------------------------------------------
  void SkipSpace();
  bool ScanCompound();  // pos_ at '{' or '['; leaves pos_ past the matching close (see there)
  bool ScanString();    // pos_ at '"'; leaves pos_ past the closing quote
  bool ScanScalar();    // number / true / false / null / N/A
  size_t SplitRun();    // pos_ at '{': cuts every complete event in the window, no refill; how many
  bool ReadKey(std::string& key);
  bool ReadEvents();  // SplitEvents, then every batch parsed and committed
  bool SplitEvents();
  bool CaptureValue(std::string* out);
  void CheckTrailingData();  // after the trace's closing bracket: anything but whitespace is noted

  // ---- batches -----------------------------------------------------------------------------------
  // The elements split so far live in buf_ before `keep`: the buffer goes to the batch, and a fresh one
  // takes the bytes from `keep` on. The batch is then parsed here or by the pool.
  void Handoff(size_t keep);
  void Dispatch(std::unique_ptr<EventBatch> batch);
  void Drain();        // waits for, and commits, every batch in flight
  void CommitFront();  // waits for the oldest batch in flight (parsing queued ones meanwhile), commits it
  void CommitBatch(EventBatch& batch);
  void Recycle(std::unique_ptr<EventBatch> batch);
  std::unique_ptr<EventBatch> NewBatch();

  // ---- events ------------------------------------------------------------------------------------
  void Commit(const EventFields& f, const EventBatch& batch, uint64_t offset);  // offset: for messages
  void BadEvent(uint64_t offset, std::string message) {
    ++stats_.bad_events;
    if (first_bad_message_.empty()) {
      first_bad_offset_ = offset;
      first_bad_message_ = std::move(message);
    }
  }
  void ParseMetadata();
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

  TraceBuilder builder_;
  ReadStats stats_;
  uint64_t next_progress_ = ReadOptions::kProgressBytes;  // stats_.bytes at which options_.progress is called
  bool bare_list_ = false;
  bool saw_events_key_ = false;
  std::map<std::string, std::string> metadata_raw_;
  std::vector<std::string> top_keys_;
  uint64_t first_bad_offset_ = 0;
  std::string first_bad_message_;
  uint64_t sanitized_ = 0;
  uint64_t begin_end_events_ = 0;
  std::optional<uint64_t> trailing_data_at_;
  std::string trailing_snippet_;
  std::optional<uint64_t> duplicate_events_at_;
  std::vector<std::pair<std::string, std::string>> metadata_warnings_;  // English, Chinese
  uint64_t old_vocab_ = 0;
  uint64_t new_vocab_ = 0;
  std::vector<int8_t> cat_kind_;  // by category string id; -1 unknown yet
  std::string last_pid_;
  std::string last_tid_;
  uint32_t last_track_ = 0;
  bool has_last_track_ = false;
  std::string last_cat_;
  int8_t last_cat_kind_ = 0;
  bool has_last_cat_ = false;

  // Batches: the one being split, those in flight (in file order), and spares to reuse.
  unsigned threads_;
  size_t handoffs_ = 0;
  EventParser parser_;  // this thread's
  std::unique_ptr<EventBatch> pending_;
  std::deque<std::unique_ptr<EventBatch>> inflight_;
  std::vector<std::unique_ptr<EventBatch>> spare_batches_;
  std::vector<std::vector<char>> spare_bytes_;
  // Declared last so that it is destroyed first: its threads stop before the batches they may hold go.
  std::unique_ptr<ParsePool> pool_;
};

bool Reader::Refill() {
  if (eof_) return false;
  size_t keep = mark_ != std::string::npos ? std::min(mark_, pos_) : pos_;
  if (pending_ && !pending_->elements.empty()) {
    Handoff(keep);
  } else if (keep > 0) {
    std::memmove(buf_.data(), buf_.data() + keep, end_ - keep);
    Shift(keep);
  }
  if (end_ == capacity()) {
    // One element is larger than the chunk: grow, up to a bound no profiler comes near (a gz bomb made of
    // one endless string would otherwise take all memory).
    const size_t max_element = std::max<size_t>(options_.max_element_bytes, 4096);
    if (capacity() >= max_element) {
      Fail(
          fmt::format("{}: the element at byte {} is larger than {} KiB; no profiler writes one (a damaged file "
                      "or a gz bomb?)",
                      name_, Offset(std::min(pos_, mark_)), max_element >> 10));
      eof_ = true;
      return false;
    }
    buf_.resize(std::min(capacity() * 2, max_element) + kPad);
  }
  SourceRead r = source_.Read(buf_.data() + end_, capacity() - end_);
  if (!r.error.empty()) {
    source_error_ = r.error;
    if (r.refuse) Fail(fmt::format("{}: {}", name_, r.error));
    eof_ = true;
    return false;
  }
  if (r.bytes == 0) {
    eof_ = true;
    return false;
  }
  end_ += r.bytes;
  stats_.bytes += r.bytes;
  if (stats_.bytes >= next_progress_ && options_.progress) {
    next_progress_ = stats_.bytes + ReadOptions::kProgressBytes;
    options_.progress(source_.StoredRead(), stats_.stored_bytes);
  }
  return true;
}

void Reader::Shift(size_t keep) {
  end_ -= keep;
  pos_ -= keep;
  if (mark_ != std::string::npos) mark_ -= keep;
  base_ += keep;
}

std::unique_ptr<EventBatch> Reader::NewBatch() {
  if (spare_batches_.empty()) return std::make_unique<EventBatch>();
  auto b = std::move(spare_batches_.back());
  spare_batches_.pop_back();
  return b;
}

void Reader::Recycle(std::unique_ptr<EventBatch> batch) {
  spare_bytes_.push_back(std::move(batch->bytes));
  batch->bytes = std::vector<char>();
  batch->Clear();
  spare_batches_.push_back(std::move(batch));
}

void Reader::Handoff(size_t keep) {
  std::vector<char> next;
  if (!spare_bytes_.empty()) {
    next = std::move(spare_bytes_.back());
    spare_bytes_.pop_back();
  }
  next.resize(buf_.size());
  std::memcpy(next.data(), buf_.data() + keep, end_ - keep);
  pending_->bytes = std::move(buf_);
  buf_ = std::move(next);
  Shift(keep);
  Dispatch(std::move(pending_));
  pending_ = NewBatch();
}

void Reader::Dispatch(std::unique_ptr<EventBatch> batch) {
  // A file of one chunk is read on this thread alone; the pool starts with the second chunk.
  if (!pool_ && handoffs_++ > 0 && threads_ > 1) {
    pool_ = std::make_unique<ParsePool>(threads_ - 1, options_.fast_events);
  }
  if (!pool_) {
    parser_.ParseBatch(*batch);
    CommitBatch(*batch);
    Recycle(std::move(batch));
    return;
  }
  pool_->Submit(batch.get());
  inflight_.push_back(std::move(batch));
  // Commit what is parsed, in order; and bound the batches in flight, which bounds the memory they hold.
  const size_t max_inflight = size_t{2} * threads_;
  while (!inflight_.empty() && (inflight_.size() > max_inflight || pool_->Done(inflight_.front().get()))) {
    CommitFront();
  }
}

void Reader::Drain() {
  while (!inflight_.empty()) CommitFront();
}

void Reader::CommitFront() {
  pool_->Wait(inflight_.front().get(), parser_);
  CommitBatch(*inflight_.front());
  Recycle(std::move(inflight_.front()));
  inflight_.pop_front();
}

void Reader::CommitBatch(EventBatch& batch) {
  if (!batch.failure.empty()) {
    Fail(fmt::format("{}: could not parse the events after byte {}: {}", name_,
                     batch.elements.empty() ? 0 : batch.elements.front().offset, batch.failure));
    return;
  }
  for (size_t i = 0; i < batch.elements.size(); ++i) {
    const Element& e = batch.elements[i];
    const ParsedEvent& parsed = batch.parsed[i];
    if (!e.object) {
      BadEvent(e.offset, "an element of traceEvents is not an object");
    } else if (parsed.error) {
      const std::string_view bytes(batch.bytes.data() + e.begin, std::min<size_t>(e.end - e.begin, 48));
      BadEvent(e.offset, fmt::format("{} near «{}»", simdjson::error_message(parsed.error), Snippet(bytes)));
    } else {
      if (parsed.sanitized) ++sanitized_;
      Commit(parsed.fields, batch, e.offset);
    }
  }
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
// 64 bytes at a time: bitmasks of quotes, backslashes and one kind of bracket, strings found with the carry-less
// prefix-xor trick (simdjson's stage 1 idea, in SSE2, which every x86-64 has). Returns false when the
// block cannot be handled by masks alone (a backslash outside any string), so the caller rescans it
// byte by byte and the result never differs from the scalar splitter's.
struct BlockMasks {
  uint64_t quote;
  uint64_t backslash;
  uint64_t open;
  uint64_t close;
};

inline BlockMasks LoadMasks(const char* p, char open, char close) {
  BlockMasks m{0, 0, 0, 0};
  const __m128i q = _mm_set1_epi8('"');
  const __m128i bs = _mm_set1_epi8('\\');
  const __m128i ob = _mm_set1_epi8(open);
  const __m128i cb = _mm_set1_epi8(close);
  for (int k = 0; k < 4; ++k) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const int shift = 16 * k;
    m.quote |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, q)))) << shift;
    m.backslash |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, bs)))) << shift;
    m.open |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, ob)))) << shift;
    m.close |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, cb)))) << shift;
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

// One 64-byte block of the splitter: its brackets outside strings, and the state the next block starts in.
struct Block {
  uint64_t open = 0;      // opening brackets (of the kind asked for) outside strings
  uint64_t brackets = 0;  // opening and closing brackets outside strings
  bool in_string_after = false;
  int advance = 64;  // 63 when the last byte escapes the first of the next block
  bool ok = true;    // false: a backslash outside a string (invalid JSON); the byte loop judges it
};

inline Block ScanBlock(const char* p, bool in_string, char open, char close) {
  Block out;
  const BlockMasks m = LoadMasks(p, open, close);
  // Backslash runs: which bytes are escaped (simdjson's odd/even series trick). A block that starts
  // inside a string never starts escaped: a block whose last byte is an escaping backslash is cut
  // before it, so the backslash is seen again at the start of the next block.
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
  if ((bsl & ~strings) != 0) {
    out.ok = false;
    return out;
  }
  out.open = m.open & ~strings;
  out.brackets = (m.open | m.close) & ~strings;
  if ((escape >> 63) != 0) {
    out.advance = 63;
    out.in_string_after = true;
  } else {
    out.in_string_after = (strings >> 63) != 0;
  }
  return out;
}
#endif

// A compound value ends at the bracket that closes its first one; brackets of the other kind are not
// counted. Valid JSON cuts the same either way, and a damaged event (an unclosed '[' inside an object)
// ends at its own '}' rather than swallowing the events after it. The run splitter counts the same way.
bool Reader::ScanCompound() {
  const char open = buf_[pos_];
  const char close = open == '{' ? '}' : ']';
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
      const Block blk = ScanBlock(p, in_string, open, close);
      if (!blk.ok) break;
      uint64_t brackets = blk.brackets;
      while (brackets != 0) {
        const int i = __builtin_ctzll(brackets);
        brackets &= brackets - 1;
        if ((blk.open >> i) & 1) {
          ++depth;
        } else if (--depth == 0) {
          pos_ = static_cast<size_t>(p + i + 1 - b);
          return true;
        }
      }
      in_string = blk.in_string_after;
      p += blk.advance;
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
      } else if (c == open) {
        ++depth;
      } else if (c == close && --depth == 0) {
        pos_ = static_cast<size_t>(p - b);
        return true;
      }
    }
    pos_ = static_cast<size_t>(p - b);
    if (!Refill()) return false;
  }
}

// The fast path of SplitEvents: from an event's '{', cut every complete event that lies wholly in the
// window, 64 bytes at a time without stopping between events, and leave pos_ just past the last one.
// It stops (and leaves the rest to the general path, which judges every case) at the end of the
// window, at a '}' at array level, at anything but whitespace and one comma between events (which
// includes the ']' that ends traceEvents), and at any block the masks cannot decide. Like ScanCompound
// it counts braces only. It cuts exactly what the general path cuts.
size_t Reader::SplitRun() {
  size_t count = 0;
#if defined(__SSE2__)
  const char* b = buf_.data();
  const char* p = b + pos_;
  const char* e = b + end_;
  size_t done = pos_;  // just past the last complete event
  size_t begin = pos_;
  int64_t depth = 0;
  bool in_string = false;
  // Between two events: whitespace and exactly one comma (the general path judges anything else).
  auto gap_ok = [&](size_t from, size_t to) {
    int commas = 0;
    for (size_t k = from; k < to; ++k) {
      if (b[k] == ',') ++commas;
      else if (!IsSpace(b[k])) return false;
    }
    return commas == (count > 0 ? 1 : 0);
  };
  while (e - p >= 64) {
    const Block blk = ScanBlock(p, in_string, '{', '}');
    if (!blk.ok) break;
    uint64_t brackets = blk.brackets;
    bool stop = false;
    while (brackets != 0 && !stop) {
      const int i = __builtin_ctzll(brackets);
      brackets &= brackets - 1;
      const auto at = static_cast<size_t>(p + i - b);
      if ((blk.open >> i) & 1) {
        if (depth == 0) {
          if (!gap_ok(done, at)) {  // the gap holds a non-object element, the ']' of traceEvents, ...
            stop = true;
            break;
          }
          begin = at;
        }
        ++depth;
      } else if (depth == 0) {
        stop = true;  // the root's '}', or a stray one: the general path decides
      } else if (--depth == 0) {
        Element& el = pending_->elements.emplace_back();
        el.begin = begin;
        el.end = at + 1;
        el.offset = Offset(begin);
        done = at + 1;
        ++count;
      }
    }
    if (stop) break;
    in_string = blk.in_string_after;
    p += blk.advance;
  }
  pos_ = done;
  if (count > 0) stats_.last_complete = Offset(done);
#endif
  return count;
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
  if (!pending_) pending_ = NewBatch();
  const bool complete = SplitEvents();
  // The last elements are parsed like the others, and the reader keeps the bytes after them.
  if (!pending_->elements.empty()) Handoff(pos_);
  Drain();
  return complete;
}

bool Reader::SplitEvents() {
  // JSON wants exactly one comma between elements. A trailing comma before ']' is tolerated (hand-written
  // exporters leave one, and nothing is lost); a missing or doubled comma means damaged data: an error.
  bool need_comma = false;  // an element was just read
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
      if (!need_comma) {
        Fail(fmt::format("{}: invalid JSON at byte {}: expected an event in traceEvents, found ',' near «{}»", name_,
                         Offset(pos_), Snippet(Around(pos_))));
        return false;
      }
      need_comma = false;
      ++pos_;
      continue;
    }
    if (need_comma) {
      Fail(fmt::format("{}: invalid JSON at byte {}: expected ',' or ']' after an event, found '{}' near «{}»", name_,
                       Offset(pos_), Snippet(std::string_view(&c, 1)), Snippet(Around(pos_))));
      return false;
    }
    need_comma = true;
    if (c == '{') {
      if (options_.split_runs && SplitRun() > 0) continue;
      mark_ = pos_;
      if (!ScanCompound()) {
        mark_ = std::string::npos;
        Truncated();
        return false;
      }
      Element& e = pending_->elements.emplace_back();
      e.begin = mark_;
      e.end = pos_;
      e.offset = Offset(mark_);
      mark_ = std::string::npos;
      stats_.last_complete = Offset(pos_);
      continue;
    }
    // Not an object: count it as a bad event when it is a JSON value, fail on anything else.
    const uint64_t at = Offset(pos_);
    bool ok = false;
    if (c == '[') ok = ScanCompound();
    else if (c == '"') ok = ScanString();
    else if ((c >= '0' && c <= '9') || c == '-' || c == 't' || c == 'f' || c == 'n' || c == 'N') ok = ScanScalar();
    else {
      Fail(fmt::format("{}: invalid JSON at byte {}: expected an event object in traceEvents, found '{}' near «{}»",
                       name_, at, Snippet(std::string_view(&c, 1)), Snippet(Around(pos_))));
      return false;
    }
    if (!ok) {
      Truncated();
      return false;
    }
    Element& e = pending_->elements.emplace_back();
    e.object = false;
    e.offset = at;
  }
}

void Reader::CheckTrailingData() {
  SkipSpace();
  if (!Ensure()) return;
  trailing_data_at_ = Offset(pos_);
  trailing_snippet_ = Snippet(Around(pos_));
}

ReadResult Reader::Run() {
  ReadResult result;
  auto fail = [&](std::string error) {
    result.error = std::move(error);
    result.stats = stats_;
    return std::move(result);
  };
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
  // A UTF-8 byte order mark is not JSON but some editors add it. (The first read may hold only the two
  // bytes the source sniffed for gzip's magic.)
  while (Ensure() && end_ - pos_ < 3 && Refill()) {
  }
  if (Ensure() && end_ - pos_ >= 3 && std::memcmp(buf_.data() + pos_, "\xEF\xBB\xBF", 3) == 0) {
    pos_ += 3;
    SkipSpace();
  }
  if (!Ensure()) {
    return fail(!source_error_.empty() ? fmt::format("{}: {}", name_, source_error_)
                                       : fmt::format("{}: the file is empty; expected a profiler trace (JSON)", name_));
  }
  char first = buf_[pos_];
  bool events_done = false;
  if (first == '[') {
    bare_list_ = true;
    saw_events_key_ = true;
    ++pos_;
    events_done = ReadEvents();
    if (events_done && error_.empty()) CheckTrailingData();
  } else if (first == '{') {
    ++pos_;
    std::string key;
    bool closed = false;
    // The input ending anywhere in the top-level object is a truncation (the events read are kept).
    auto ended = [&] {
      if (!Ensure()) {
        Truncated();
        return true;
      }
      return false;
    };
    while (error_.empty()) {
      SkipSpace();
      if (ended()) break;
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
      if (!ReadKey(key)) {
        Truncated();
        break;
      }
      SkipSpace();
      if (ended()) break;
      if (buf_[pos_] != ':') {
        Fail(fmt::format("{}: invalid JSON at byte {}: expected ':' after key \"{}\", found '{}' near «{}»", name_,
                         Offset(pos_), Snippet(key), Snippet(std::string_view(&buf_[pos_], 1)), Snippet(Around(pos_))));
        break;
      }
      ++pos_;
      top_keys_.push_back(key);
      SkipSpace();
      if (ended()) break;
      if (key == "traceEvents") {
        const char v = buf_[pos_];
        if (v != '[') {
          const char* what = v == '{'   ? "an object"
                             : v == '"' ? "a string"
                             : v == 'n' ? "null"
                                        : "a number or a literal";
          Fail(
              fmt::format("{}: not a PyTorch profiler trace: \"traceEvents\" at byte {} holds {}, not an array of "
                          "events",
                          name_, Offset(pos_), what));
          break;
        }
        if (saw_events_key_) {
          // JSON leaves a repeated key to the reader; the first array is the profiler's.
          duplicate_events_at_ = Offset(pos_);
          if (!CaptureValue(nullptr)) {
            Truncated();
            break;
          }
          continue;
        }
        saw_events_key_ = true;
        ++pos_;
        events_done = ReadEvents();
        if (!events_done) break;
        continue;
      }
      std::string value;
      if (!CaptureValue(&value)) {
        Truncated();
        break;
      }
      metadata_raw_[key] = std::move(value);
    }
    if (closed) CheckTrailingData();
  } else {
    return fail(
        fmt::format("{}: not a JSON trace: expected '{{' or '[' at byte {}, found «{}»; pass a file written by "
                    "torch.profiler (export_chrome_trace or tensorboard_trace_handler)",
                    name_, Offset(pos_), Snippet(Around(pos_))));
  }

  if (!error_.empty()) return fail(error_);
  if (!source_error_.empty() && stats_.events == 0) return fail(fmt::format("{}: {}", name_, source_error_));
  if (!saw_events_key_) {
    std::string keys;
    for (size_t i = 0; i < top_keys_.size() && i < 8; ++i) keys += (i ? ", " : "") + top_keys_[i];
    return fail(stats_.truncated || (eof_ && top_keys_.empty())
                    ? fmt::format("{}: the file ends at byte {} before any \"traceEvents\"", name_, Offset(end_))
                    : fmt::format("{}: not a PyTorch profiler trace: no \"traceEvents\" array (top-level keys: {})",
                                  name_, keys.empty() ? "none" : keys));
  }

  if (stats_.events == 0 && stats_.bad_events > 0) {
    return fail(fmt::format("{}: none of the {} elements of traceEvents could be read; the first at byte {}: {}", name_,
                            stats_.bad_events, first_bad_offset_, first_bad_message_));
  }

  ParseMetadata();
  for (auto& [en, zh] : metadata_warnings_) AddWarning(result, std::move(en), std::move(zh));
  if (!source_error_.empty()) {
    AddWarning(result,
               fmt::format("{}: {}; analysed the {} events read before it", name_, source_error_, stats_.events),
               fmt::format("{}：{}；已分析此前读到的 {} 个事件", name_, source_error_, stats_.events));
  }
  if (stats_.truncated) {
    AddWarning(result,
               fmt::format("{}: truncated at byte {} (the file ends inside the trace, as when a job is killed "
                           "mid-write); analysed the {} complete events before byte {}",
                           name_, stats_.truncated_at, stats_.events, stats_.last_complete),
               fmt::format("{}：在第 {} 字节处被截断（文件在 trace 中途结束，如任务在写入时被终止）；已分析第 {} "
                           "字节之前的 {} 个完整事件",
                           name_, stats_.truncated_at, stats_.last_complete, stats_.events));
  }
  if (stats_.bad_events > 0) {
    AddWarning(result,
               fmt::format("{}: skipped {} malformed event{}; the first at byte {}: {}", name_, stats_.bad_events,
                           stats_.bad_events == 1 ? "" : "s", first_bad_offset_, first_bad_message_),
               fmt::format("{}：跳过了 {} 个格式错误的事件；第一个在第 {} 字节：{}", name_, stats_.bad_events,
                           first_bad_offset_, first_bad_message_));
  }
  if (sanitized_ > 0) {
    AddWarning(result,
               fmt::format("{}: {} event{} held invalid UTF-8, raw control characters or invalid escapes; those "
                           "bytes were replaced with '?' or kept as written",
                           name_, sanitized_, sanitized_ == 1 ? "" : "s"),
               fmt::format("{}：{} 个事件含有无效的 UTF-8、原始控制字符或无效转义；这些字节已替换为 '?' 或按原样保留",
                           name_, sanitized_));
  }
  if (trailing_data_at_) {
    AddWarning(result,
               fmt::format("{}: data after the end of the trace at byte {} was ignored («{}»)", name_,
                           *trailing_data_at_, trailing_snippet_),
               fmt::format("{}：第 {} 字节处 trace 结束之后的数据已被忽略（«{}»）", name_, *trailing_data_at_,
                           trailing_snippet_));
  }
  if (duplicate_events_at_) {
    AddWarning(result,
               fmt::format("{}: a second \"traceEvents\" array at byte {} was ignored", name_, *duplicate_events_at_),
               fmt::format("{}：第 {} 字节处的第二个 \"traceEvents\" 数组已被忽略", name_, *duplicate_events_at_));
  }
  if (begin_end_events_ > 0) {
    AddWarning(
        result,
        fmt::format("{}: ignored {} B/E duration events (torch.profiler writes X events)", name_, begin_end_events_),
        fmt::format("{}：忽略了 {} 个 B/E 时长事件（torch.profiler 写的是 X 事件）", name_, begin_end_events_));
  }
  if (stats_.events == 0) {
    AddWarning(result, fmt::format("{}: the trace holds no events", name_), fmt::format("{}：trace 中没有事件", name_));
  } else if (builder_.event_count() == 0 && stats_.skipped_events == 0) {
    AddWarning(
        result,
        fmt::format("{}: the trace holds no complete (\"ph\": \"X\") events, so there is no time to measure", name_),
        fmt::format("{}：trace 中没有完整的（\"ph\": \"X\"）事件，因此没有可测量的时间", name_));
  }
  auto& md = builder_.metadata();
  md.path = name_;
  if (bare_list_) md.format = TraceFormat::kLegacyList;
  else if (old_vocab_ > new_vocab_) md.format = TraceFormat::kKinetoOld;
  else if (new_vocab_ > 0) md.format = TraceFormat::kKineto;
  result.trace = builder_.Finish();
  if (uint64_t capped = result.trace->nesting_capped(); capped > 0) {
    AddWarning(result,
               fmt::format("{}: {} event{} nested more than {} levels deep; they are kept one level up (no profiler "
                           "nests so deep: the file is likely damaged or generated)",
                           name_, capped, capped == 1 ? "" : "s", kMaxNestingDepth),
               fmt::format("{}：{} 个事件的嵌套深度超过 {} 层；它们被上移一层保留（没有分析器会嵌套这么深：文件"
                           "可能已损坏或是生成的）",
                           name_, capped, kMaxNestingDepth));
  }
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

void Reader::Commit(const EventFields& f, const EventBatch& batch, uint64_t offset) {
  char ph = f.ph;
  if (ph == 0 && f.dur) ph = 'X';
  switch (ph) {
    case 'X': {
      if (!f.ts) {
        BadEvent(offset, "a complete event has no readable \"ts\"");
        return;
      }
      // Times outside these bounds are no real profile (2^61 ns is 73 years; 2^48 ns is 3.3 days). This
      // bounds each value; the analyses' sums saturate (traceio/analyses/saturating.h).
      constexpr int64_t kMaxAbsTs = int64_t{1} << 61;
      constexpr int64_t kMaxDur = int64_t{1} << 48;
      if (*f.ts > kMaxAbsTs || *f.ts < -kMaxAbsTs || f.dur.value_or(0) < 0 || f.dur.value_or(0) > kMaxDur) {
        BadEvent(offset, "a complete event has a \"ts\" or \"dur\" outside any real profile");
        return;
      }
      EventKind kind = EventKind::kCpuOp;
      if (f.has_cat) {
        kind = CategoryKind(f.cat);
      } else if (f.name.starts_with("ProfilerStep#") || f.name.starts_with("enumerate(DataLoader)") ||
                 f.name.starts_with("Optimizer.")) {
        kind = EventKind::kUserAnnotation;
      }
      if (kind == EventKind::kPythonFunction && !options_.keep_python_functions) {
        ++stats_.skipped_events;
        return;
      }
      StringPool& strings = builder_.strings();
      TraceBuilder::Complete c;
      c.ts = *f.ts;
      c.dur = f.dur.value_or(0);
      c.name = strings.Intern(f.name);
      c.kind = kind;
      c.track = TrackOf(f.pid, f.tid);
      c.correlation = f.correlation;
      c.external_id = f.external_id;
      uint32_t index = builder_.Add(c);
      ++stats_.events;
      if (IsGpuWork(kind)) {
        builder_.AttachGpu(index, f.gpu);
      } else if (kind == EventKind::kPythonFunction) {
        PythonFrame frame;
        frame.python_id = f.python_id;
        frame.parent_id = f.python_parent_id;
        frame.call_from = strings.Intern(f.call_from);
        builder_.AttachPython(index, frame);
      } else if ((kind == EventKind::kCpuOp || kind == EventKind::kUserAnnotation) &&
                 (!f.call_stack.empty() || f.has_dims || !f.input_type.empty())) {
        builder_.AttachOp(index, strings.Intern(f.call_stack), strings.Intern(f.input_type),
                          std::span<const int64_t>(batch.dims.data() + f.dims_begin, f.dims_end - f.dims_begin));
      }
      return;
    }
    case 'i':
    case 'I': {
      ++stats_.events;
      if (f.has_name && f.name == "[memory]" && f.ts) {
        MemoryEvent m = f.memory;
        m.ts = *f.ts;
        builder_.AddMemory(m);
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
      if (f.has_name && f.name == "thread_name" && !f.meta_name.empty()) {
        builder_.SetThreadName(builder_.Track(f.pid, f.tid), f.meta_name);
      }
      return;
    }
    case 'B':
    case 'E': ++begin_end_events_; return;
    default:
      ++stats_.events;  // counters and other phases carry nothing the analyses use
      return;
  }
}

void Reader::ParseMetadata() {
  namespace dom = simdjson::dom;
  auto& md = builder_.metadata();
  dom::parser parser;  // metadata values are small: parsed (and so validated) whole
  auto with = [&](const char* key, auto&& fn) {
    auto it = metadata_raw_.find(key);
    if (it == metadata_raw_.end()) return;
    dom::element root;
    if (auto err = parser.parse(it->second).get(root)) {
      metadata_warnings_.emplace_back(
          fmt::format("{}: \"{}\" is not valid JSON ({}); it was ignored", name_, key, simdjson::error_message(err)),
          fmt::format("{}：\"{}\" 不是有效的 JSON（{}）；已忽略", name_, key, simdjson::error_message(err)));
      return;
    }
    fn(root);
  };
  auto int_of = [](dom::element v) -> std::optional<int64_t> {
    int64_t x = 0;
    if (!v.get_int64().get(x)) return x;
    double d = 0;
    if (!v.get_double().get(d)) return static_cast<int64_t>(std::clamp(d, -9.2e18, 9.2e18));
    std::string_view s;
    if (!v.get_string().get(s)) return ParseInteger(s);
    return std::nullopt;
  };
  // Scalars are read from their text: their raw form keeps what a number type would lose (versions).
  auto scalar = [&](const char* key) -> std::optional<std::string_view> {
    auto it = metadata_raw_.find(key);
    if (it == metadata_raw_.end()) return std::nullopt;
    std::string_view v = it->second;
    while (!v.empty() && IsSpace(v.back())) v.remove_suffix(1);
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    return v;
  };
  if (auto v = scalar("baseTimeNanoseconds")) md.base_time_ns = ParseInteger(*v);
  with("deviceProperties", [&](dom::element root) {
    dom::array arr;
    if (root.get_array().get(arr)) return;
    for (dom::element item : arr) {
      dom::object obj;
      if (item.get_object().get(obj)) continue;
      DeviceProperties dp;
      for (dom::key_value_pair field : obj) {
        const std::string_view key = field.key;
        const dom::element v = field.value;
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
  with("distributedInfo", [&](dom::element root) {
    dom::object obj;
    if (root.get_object().get(obj)) return;
    for (dom::key_value_pair field : obj) {
      const std::string_view key = field.key;
      const dom::element v = field.value;
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
      SanitizeUtf8(out.data(), out.size());  // raw text from the file: it must not carry invalid UTF-8 on
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
    if (auto v = scalar(key)) {
      md.pytorch_version.assign(*v);
      SanitizeUtf8(md.pytorch_version.data(), md.pytorch_version.size());
    }
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

void AddWarning(ReadResult& result, std::string en, std::string zh) {
  result.warnings_zh.resize(result.warnings.size());  // a warning pushed in English alone has no Chinese
  result.warnings.push_back(std::move(en));
  result.warnings_zh.push_back(std::move(zh));
}

const std::string& WarningIn(const ReadResult& result, size_t i, bool zh) {
  if (zh && i < result.warnings_zh.size() && !result.warnings_zh[i].empty()) return result.warnings_zh[i];
  return result.warnings[i];
}

}  // namespace tl::trace
