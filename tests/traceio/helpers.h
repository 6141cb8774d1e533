// Small helpers for traceio tests: reading a trace from a string, building Kineto-style events, and
// gzip-compressing bytes, so edge-case traces are generated inside the tests rather than stored.
#pragma once

#include <unistd.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>

#include <string>
#include <vector>

#include <fmt/core.h>

#include "traceio/analysis.h"
#include "traceio/reader.h"

namespace tl::trace::testing {

inline ReadResult ReadString(std::string json, const ReadOptions& options = {}) {
  auto source = MemorySource(std::move(json), options.limits);
  return ReadTraceSource(*source, "test.json", options);
}

// An X event; `ts`/`dur` in µs as written in the JSON (numbers or quoted strings), `args` raw JSON.
inline std::string X(std::string_view cat, std::string_view name, std::string_view ts, std::string_view dur,
                     std::string_view pid = "1", std::string_view tid = "1", std::string_view args = "{}") {
  return fmt::format(
      R"({{"ph": "X", "cat": "{}", "name": "{}", "pid": {}, "tid": {}, "ts": {}, "dur": {}, "args": {}}})", cat, name,
      pid, tid, ts, dur, args);
}

inline std::string TraceJson(const std::vector<std::string>& events, std::string_view extra = "") {
  std::string out = R"({"schemaVersion": 1, )";
  out += extra;
  out += R"("traceEvents": [)";
  for (size_t i = 0; i < events.size(); ++i) out += (i ? ",\n" : "\n") + events[i];
  out += "\n]}";
  return out;
}

inline std::string Gzip(const std::string& data) {
  z_stream zs{};
  deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, data.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// A folder of its own under the system's temp folder, removed with everything in it when the test ends
// (a failed check included).
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() / fmt::format("tl_traceio_{}_{}", ::getpid(), std::rand());
    std::filesystem::create_directories(path);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// Index of the first event with this name, or kNoIndex.
inline uint32_t Find(const tl::trace::Trace& t, std::string_view name) {
  for (uint32_t i = 0; i < t.size(); ++i) {
    if (t.name(i) == name) return i;
  }
  return kNoIndex;
}

}  // namespace tl::trace::testing
