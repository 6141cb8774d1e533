// One element of `traceEvents` parsed with simdjson's On-Demand API into the fields the store keeps.
// Parsing touches nothing shared: text is kept as views into the batch's own bytes (or, for the rare
// escaped or repaired string, into the batch's arena), and the reader interns it when it commits the
// event. That is what lets worker threads parse batches while the reader splits the next ones.
#pragma once

#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "traceio/store.h"

namespace tl::trace {

// The fields of one event, filled in whatever order the keys come.
struct EventFields {
  char ph = 0;
  bool has_cat = false;
  bool has_name = false;
  bool has_dims = false;
  std::string_view cat;
  std::string_view name;
  std::optional<int64_t> ts;   // ns
  std::optional<int64_t> dur;  // ns
  std::string_view pid;        // as written: a number's text or a string's content
  std::string_view tid;
  std::optional<int64_t> id;
  // args
  int64_t external_id = 0;
  int64_t correlation = 0;
  GpuInfo gpu;
  std::string_view call_stack;  // 1.8-1.9 `Call stack`
  std::string_view input_type;  // first entry of `Input type`, GEMMs only
  std::string_view call_from;   // python_function `CallFrom`
  int64_t python_id = -1;
  int64_t python_parent_id = -1;
  uint32_t dims_begin = 0;  // [dims_begin, dims_end) into EventBatch::dims, in OpInfo's layout
  uint32_t dims_end = 0;
  MemoryEvent memory;
  std::string_view meta_name;  // `args.name` of metadata events
};

// One element of `traceEvents` as the splitter cut it. Small on purpose: the splitter writes one per
// event on the reader's thread, and the parse results go in a separate array, filled by the parser.
struct Element {
  size_t begin = 0;  // [begin, end) in EventBatch::bytes
  size_t end = 0;
  uint64_t offset = 0;  // byte offset of the element in the decompressed input
  bool object = true;   // false: a JSON value that is not an object (counted as malformed, never parsed)
};

// What parsing one element gave.
struct ParsedEvent {
  simdjson::error_code error = simdjson::SUCCESS;
  bool sanitized = false;  // parsed after invalid UTF-8 or control bytes were replaced with '?', or a
                           // string with invalid escapes was kept as written
  EventFields fields;
};

// A run of consecutive elements cut from one chunk of input. The batch owns the chunk, so it can be
// parsed on another thread while the reader reads on; recycled batches keep their capacity.
struct EventBatch {
  std::vector<char> bytes;  // the chunk, with simdjson's padding after its end
  std::vector<Element> elements;
  std::vector<ParsedEvent> parsed;  // parsed[i] is elements[i]'s, for objects
  std::vector<int64_t> dims;
  std::deque<std::string> arena;  // escaped strings and repaired copies of events; deque: never moves them
  std::string failure;            // set when parsing could not run at all (out of memory)

  void Clear() {
    elements.clear();
    parsed.clear();
    dims.clear();
    arena.clear();
    failure.clear();
  }
};

// Replaces invalid UTF-8 sequences and raw control characters with '?', in place; returns how many
// bytes it replaced. Old Kineto wrote both; simdjson rightly rejects them, and one bad kernel name
// should not cost the event.
size_t SanitizeUtf8(char* p, size_t len);

// Parses every object element of a batch. One parser per thread; it holds simdjson's buffers.
class EventParser {
 public:
  // `fast`: read events of the usual shape through FastParse; off, every event takes the general path
  // (tests compare the two).
  explicit EventParser(bool fast = true) : fast_(fast) {}
  void ParseBatch(EventBatch& batch);
  // Events this parser read through the fast path (the others took the general one).
  uint64_t fast_count() const { return fast_count_; }

 private:
  // The usual shape, read straight from the values' text; false sends the event to Parse instead.
  bool FastParse(const char* p, size_t len, size_t allocated, EventFields& f);
  simdjson::error_code Parse(const char* p, size_t len, size_t allocated, EventFields& f);
  simdjson::error_code ParseArgs(simdjson::ondemand::object args, EventFields& f);
  bool StringOf(simdjson::ondemand::value& v, std::string_view& out);
  std::optional<int64_t> IntOf(simdjson::ondemand::value v);

  simdjson::ondemand::parser parser_;
  EventBatch* batch_ = nullptr;
  bool fast_ = true;
  uint64_t fast_count_ = 0;
  bool repaired_ = false;  // the event being parsed had a string with invalid escapes
};

}  // namespace tl::trace
