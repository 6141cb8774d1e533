// Reads a PyTorch profiler trace (Chrome trace JSON from export_chrome_trace / tensorboard_trace_handler,
// plain or gzip, Kineto or the bare-list legacy export) into a Trace. The file is streamed in chunks:
// a structural splitter cuts out each element of `traceEvents`, and simdjson's On-Demand API parses
// it (the splitter only finds element boundaries; JSON values are never parsed by hand). Chunks of
// elements are parsed by worker threads while the next chunk is read and split, and committed to the
// store in file order. Memory holds the columnar store and a few chunks, never a DOM of the file. Bad
// input never aborts: malformed events are counted and skipped, a truncated file keeps every event
// before the cut, and only an unreadable file or one that is not a trace is an error.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "traceio/byte_source.h"
#include "traceio/store.h"

namespace tl::trace {

struct ReadOptions {
  SourceLimits limits;
  // python_function events dominate large with_stack traces; they are needed only for source attribution.
  bool keep_python_functions = true;
  // Bytes read per refill, and so per batch of events handed to a worker. 256 KiB measured as fast as
  // 1 MiB or faster on the 94 MB trace with two threads (0.088 against 0.099 s, medians of 9), and
  // clearly faster while other work shared the machine's caches (0.107 against 0.125 s); the batches in
  // flight hold less memory too. An event larger than this grows the buffer.
  size_t chunk_bytes = size_t{256} << 10;
  // Threads that parse events: 0 is one per CPU (at most 8), 1 reads on the calling thread alone. A file
  // of one chunk is always read on the calling thread. The trace read is the same with any number.
  unsigned threads = 0;
  // Cut runs of complete events 64 bytes at a time (the fast path). Off, every event goes through the
  // general splitter; tests compare the two.
  bool split_runs = true;
  // Read the fields of events in Kineto's usual shape straight from their text (the fast path); an
  // event with an escape, an odd type or a GEMM's shapes takes the general parser. Off, every event
  // does; tests compare the two.
  bool fast_events = true;
  // The largest single element (an event, or a metadata value) the reader will hold. No profiler comes
  // near it; a gz bomb made of one endless string would otherwise take all memory.
  size_t max_element_bytes = size_t{256} << 20;
  // Called on the reading thread with the bytes of the file read so far and its size (compressed bytes
  // for gzip; size 0 when unknown), after each kProgressBytes of decompressed input, for a progress bar.
  // May be empty. The hot loop pays one comparison per chunk read for it.
  std::function<void(uint64_t read, uint64_t size)> progress;
  static constexpr uint64_t kProgressBytes = uint64_t{4} << 20;
};

struct ReadStats {
  uint64_t bytes = 0;           // decompressed bytes read
  uint64_t stored_bytes = 0;    // bytes on disk
  uint64_t events = 0;          // complete events stored
  uint64_t bad_events = 0;      // skipped as malformed
  uint64_t skipped_events = 0;  // skipped on purpose (options)
  bool truncated = false;
  uint64_t truncated_at = 0;   // byte offset where the input stopped
  uint64_t last_complete = 0;  // byte offset just past the last complete event
};

struct ReadResult {
  std::optional<Trace> trace;         // absent when the file is unreadable or not a trace
  std::string error;                  // one line, set when `trace` is absent
  std::vector<std::string> warnings;  // one line each, in English; the trace is usable
  // The same warnings in Chinese, index for index (AddWarning keeps the two in step); a reader's own
  // words in them (a zlib or JSON parser message) stay as the library wrote them.
  std::vector<std::string> warnings_zh;
  ReadStats stats;
  bool ok() const { return trace.has_value(); }
};

// Adds one warning in both languages.
void AddWarning(ReadResult& result, std::string en, std::string zh);
// Warning `i` in Chinese when `zh` (English where a reader gave no Chinese), else in English.
const std::string& WarningIn(const ReadResult& result, size_t i, bool zh);

ReadResult ReadTraceFile(const std::string& path, const ReadOptions& options = {});
ReadResult ReadTraceSource(ByteSource& source, const std::string& display_name, const ReadOptions& options = {});

}  // namespace tl::trace
