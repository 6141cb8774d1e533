#include "traceio/annotate.h"

#include <unistd.h>
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>
#include <zlib.h>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "traceio/analyses/names.h"

namespace tl::trace {

namespace {

// Where the markers sit: a process id no profiler writes, moved on where the trace happens to use it.
constexpr int64_t kFirstPid = 2000000000;
constexpr int64_t kStepTid = 1;
constexpr int64_t kSyncTid = 2;
constexpr int64_t kItemTid = 3;
constexpr int64_t kDataTid = 4;
constexpr int64_t kFindingTid = 5;
// Flow ids far above the correlation ids Kineto's own ac2g flows use.
constexpr int64_t kFirstFlowId = int64_t{1} << 50;

// Names come from the trace and may hold invalid UTF-8; they are written with U+FFFD, never thrown on.
std::string Dump(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }
std::string Quote(std::string_view s) { return Dump(nlohmann::json(std::string(s))); }

// Nanoseconds as the profiler's microseconds, exactly: "<us>.<ns>" with no rounding through a double.
std::string Micros(int64_t ns) {
  if (ns < 0) return "-" + Micros(-ns);
  const int64_t us = ns / 1000;
  const int64_t rest = ns % 1000;
  return rest == 0 ? fmt::format("{}", us) : fmt::format("{}.{:03}", us, rest);
}

// A pid or tid as the file wrote it: a number, or a string.
std::string IdText(const Trace& trace, StringId id, const std::optional<int64_t>& number) {
  return number ? fmt::format("{}", *number) : Quote(trace.strings().Get(id));
}

double Ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

struct Writer {
  const Trace& trace;
  Annotations& out;
  int64_t shift = 0;

  std::string Slice(int64_t tid, std::string_view name, int64_t ts, int64_t dur, const nlohmann::json& args) const {
    return fmt::format(R"({{"ph":"X","cat":"torchlint","name":{},"pid":{},"tid":{},"ts":{},"dur":{},"args":{}}})",
                       Quote(name), out.pid, tid, Micros(ts - shift), Micros(dur), Dump(args));
  }
  void Meta(std::string_view what, int64_t tid, const nlohmann::json& args) {
    out.events.push_back(
        fmt::format(R"({{"ph":"M","name":"{}","pid":{},"tid":{},"args":{}}})", what, out.pid, tid, Dump(args)));
    ++out.counts.metadata;
  }
  // One end of a flow, bound to the slice that encloses `ts` on the track of event `i`.
  std::string FlowEnd(char ph, int64_t id, uint32_t i) const {
    const Track& t = trace.track_of(i);
    return fmt::format(R"({{"ph":"{}","id":{},"cat":"torchlint.sync","name":"sync waits for kernel","pid":{},)"
                       R"("tid":{},"ts":{},"bp":"e"}})",
                       ph, id, IdText(trace, t.pid, t.pid_number), IdText(trace, t.tid, t.tid_number),
                       Micros(trace.ts(i) - shift));
  }
};

int64_t UnusedPid(const Trace& trace) {
  int64_t pid = kFirstPid;
  for (bool used = true; used;) {
    used = std::any_of(trace.tracks().begin(), trace.tracks().end(),
                       [&](const Track& t) { return t.pid_number && *t.pid_number == pid; });
    if (used) ++pid;
  }
  return pid;
}

std::string Diagnosis(const std::vector<Bottleneck>& bottlenecks) {
  if (bottlenecks.empty()) return "no bottleneck";
  std::vector<const Bottleneck*> sorted;
  sorted.reserve(bottlenecks.size());
  for (const auto& b : bottlenecks) sorted.push_back(&b);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Bottleneck* a, const Bottleneck* b) { return a->severity > b->severity; });
  std::string name;
  for (const Bottleneck* b : sorted) {
    if (!name.empty()) name += " + ";
    name += BottleneckKindName(b->kind);
  }
  return name + " bound";
}

nlohmann::json BottleneckArgs(const std::vector<Bottleneck>& bottlenecks) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& b : bottlenecks) {
    nlohmann::json evidence = nlohmann::json::object();
    for (const auto& f : b.evidence) evidence[f.metric] = f.value;
    list.push_back(
        {{"kind", BottleneckKindName(b.kind)}, {"severity", SeverityName(b.severity)}, {"evidence", evidence}});
  }
  return list;
}

// Kernels by end time, to find the last one that ended by a given moment.
struct KernelsByEnd {
  std::vector<uint32_t> events;
  explicit KernelsByEnd(const Trace& trace) : events(trace.EventsOfKind({EventKind::kKernel})) {
    std::sort(events.begin(), events.end(), [&](uint32_t a, uint32_t b) { return trace.end(a) < trace.end(b); });
  }
  uint32_t LastEndingBy(const Trace& trace, int64_t t) const {
    auto it = std::upper_bound(events.begin(), events.end(), t,
                               [&](int64_t v, uint32_t e) { return v < trace.end(e); });
    return it == events.begin() ? kNoIndex : *std::prev(it);
  }
};

}  // namespace

Annotations BuildAnnotations(const Trace& trace, const TraceAnalysis& analysis,
                             std::span<const ScriptFinding> findings) {
  Annotations out;
  out.pid = UnusedPid(trace);
  Writer w{trace, out, trace.metadata().time_shift_ns};
  w.Meta("process_name", 0, {{"name", "torchlint"}});
  w.Meta("process_sort_index", 0, {{"sort_index", -1}});
  w.Meta("thread_name", kStepTid, {{"name", "bottleneck per step"}});
  w.Meta("thread_name", kSyncTid, {{"name", "sync calls (TL101)"}});
  w.Meta("thread_name", kItemTid, {{"name", ".item() calls (TL101)"}});
  w.Meta("thread_name", kDataTid, {{"name", "DataLoader waits (TL201)"}});

  const Steps& steps = analysis.steps;
  const SyncStats& syncs = analysis.syncs;
  std::vector<int64_t> step_syncs(steps.count(), 0);
  std::vector<int64_t> step_items(steps.count(), 0);
  for (uint32_t e : syncs.sync_events) {
    const int s = steps.FindHost(trace.ts(e));
    if (s >= 0) ++step_syncs[static_cast<size_t>(s)];
  }
  for (const auto& item : syncs.items) {
    if (item.step >= 0 && item.syncs()) ++step_items[static_cast<size_t>(item.step)];
  }

  const std::string diagnosis = Diagnosis(analysis.bottlenecks);
  const nlohmann::json bottlenecks = BottleneckArgs(analysis.bottlenecks);
  for (size_t i = 0; i < steps.count(); ++i) {
    const Step& s = steps.analysed[i];
    nlohmann::json args = {{"step", s.number},
                           {"duration_ms", Ms(s.duration())},
                           {"bottlenecks", bottlenecks},
                           {"sync_calls", step_syncs[i]},
                           {"syncing_items", step_items[i]}};
    if (i < analysis.dataloader.per_step.size()) args["dataloader_share"] = analysis.dataloader.per_step[i];
    out.events.push_back(w.Slice(kStepTid, diagnosis, s.begin, s.duration(), args));
    ++out.counts.steps;
  }

  auto step_number = [&](int s) { return s >= 0 ? steps.analysed[static_cast<size_t>(s)].number : int64_t{-1}; };
  const KernelsByEnd kernels(trace);
  for (uint32_t e : syncs.sync_events) {
    const uint32_t k = kernels.LastEndingBy(trace, trace.end(e));
    nlohmann::json args = {
        {"code", "TL101"}, {"cost_ms", Ms(trace.dur(e))}, {"step", step_number(steps.FindHost(trace.ts(e)))}};
    if (k != kNoIndex) args["waited_for"] = trace.name(k);
    out.events.push_back(w.Slice(kSyncTid, trace.name(e), trace.ts(e), trace.dur(e), args));
    ++out.counts.syncs;
    if (k == kNoIndex) continue;
    const int64_t id = kFirstFlowId + static_cast<int64_t>(out.counts.flows);
    out.events.push_back(w.FlowEnd('s', id, e));
    out.events.push_back(w.FlowEnd('f', id, k));
    ++out.counts.flows;
  }
  for (const auto& item : syncs.items) {
    if (item.step < 0) continue;
    const uint32_t e = item.event;
    nlohmann::json args = {{"code", "TL101"},
                           {"syncs", item.syncs()},
                           {"dtoh_copy", item.dtoh_copy},
                           {"cost_ms", Ms(item.blocked_ns)},
                           {"step", step_number(item.step)}};
    out.events.push_back(w.Slice(kItemTid, trace.name(e), trace.ts(e), trace.dur(e), args));
    ++out.counts.items;
  }
  for (uint32_t e : analysis.dataloader.events) {
    const int s = steps.FindHost(trace.ts(e));
    nlohmann::json args = {{"code", "TL201"}, {"cost_ms", Ms(trace.dur(e))}, {"step", step_number(s)}};
    if (s >= 0 && static_cast<size_t>(s) < analysis.dataloader.per_step.size()) {
      args["step_share"] = analysis.dataloader.per_step[static_cast<size_t>(s)];
    }
    out.events.push_back(w.Slice(kDataTid, trace.name(e), trace.ts(e), trace.dur(e), args));
    ++out.counts.dataloader;
  }
  // A finding without events of its own is about the whole loop: it spans the analysed steps (or the
  // trace without steps).
  const int64_t begin = steps.count() > 0 ? steps.analysed.front().begin : trace.min_ts();
  const int64_t end = steps.count() > 0 ? steps.analysed.back().end : trace.max_end();
  int64_t tid = kFindingTid;
  for (const ScriptFinding& f : findings) {
    const std::string name = f.location.empty() ? fmt::format("{} ({})", f.code, f.verdict)
                                                : fmt::format("{} {} ({})", f.code, f.location, f.verdict);
    nlohmann::json args = {{"code", f.code},
                           {"message", f.message},
                           {"verdict", f.verdict},
                           {"cost_ms_per_step", f.cost_ms_per_step},
                           {"saved_ms_per_step", f.saved_ms_per_step}};
    if (!f.location.empty()) args["location"] = f.location;
    std::vector<uint32_t> events;
    for (uint32_t e : f.events)
      if (e < trace.size()) events.push_back(e);
    std::sort(events.begin(), events.end(), [&](uint32_t a, uint32_t b) {
      return trace.ts(a) != trace.ts(b) ? trace.ts(a) < trace.ts(b) : trace.end(a) > trace.end(b);
    });
    events.erase(std::unique(events.begin(), events.end()), events.end());
    // Evidence events of one finding may overlap without nesting (an op and another thread's kernel):
    // each goes to the first lane of the finding whose last slice has ended, so every track nests.
    std::vector<int64_t> lane_end;
    const size_t drawn = std::min(events.size(), kMaxFindingSlices);
    for (size_t i = 0; i < drawn; ++i) {
      const uint32_t e = events[i];
      size_t lane = 0;
      while (lane < lane_end.size() && lane_end[lane] > trace.ts(e)) ++lane;
      if (lane == lane_end.size()) {
        lane_end.push_back(0);
        w.Meta("thread_name", tid + static_cast<int64_t>(lane),
               {{"name", lane == 0 ? name : fmt::format("{} ({})", name, lane + 1)}});
      }
      lane_end[lane] = trace.end(e);
      nlohmann::json slice_args = args;
      slice_args["event"] = trace.name(e);
      slice_args["event_ms"] = Ms(trace.dur(e));
      if (i == 0 && drawn < events.size()) slice_args["events_not_drawn"] = events.size() - drawn;
      out.events.push_back(w.Slice(tid + static_cast<int64_t>(lane), f.code, trace.ts(e), trace.dur(e), slice_args));
      ++out.counts.finding_slices;
    }
    if (drawn == 0) {
      w.Meta("thread_name", tid, {{"name", name}});
      out.events.push_back(w.Slice(tid, name, begin, end - begin, args));
      ++out.counts.finding_slices;
      lane_end.push_back(0);
    }
    tid += static_cast<int64_t>(lane_end.size());
    ++out.counts.findings;
  }
  return out;
}

namespace {

// Finds the insertion point while the bytes stream past: the offset of the `]` that closes the
// top-level traceEvents array (or the top-level list), and whether that array had any element.
class EventsArrayScanner {
 public:
  // Feeds the next `n` bytes; returns the index in `data` of the closing `]` the first time it is seen,
  // or npos.
  size_t Feed(const char* data, size_t n) {
    size_t hit = std::string_view::npos;
    for (size_t i = 0; i < n; ++i) {
      const char c = data[i];
      if (in_string_) {
        if (escape_) {
          escape_ = false;
        } else if (c == '\\') {
          escape_ = true;
        } else if (c == '"') {
          in_string_ = false;
        } else if (capturing_ && key_.size() < 16) {
          key_ += c;
        } else if (capturing_) {
          key_long_ = true;
        }
        continue;
      }
      if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
      if (depth_ == 0 && root_ == 0) {
        if (c != '{' && c != '[') {
          bad_ = true;
          return hit;
        }
        root_ = c;
        if (c == '[') {
          in_events_ = true;
          events_depth_ = 1;
        }
      }
      if (in_events_ && depth_ == events_depth_ && c != ']' && c != ',') nonempty_ = true;
      switch (c) {
        case '"':
          in_string_ = true;
          capturing_ = depth_ == 1 && root_ == '{';
          if (capturing_) {
            key_.clear();
            key_long_ = false;
          }
          break;
        case ':':
          if (depth_ == 1) pending_ = key_ == "traceEvents" && !key_long_;
          break;
        case ',':
          if (depth_ == 1) pending_ = false;
          break;
        case '{':
        case '[':
          if (c == '[' && depth_ == 1 && root_ == '{' && pending_ && !found_) {
            in_events_ = true;
            events_depth_ = 2;
          }
          ++depth_;
          break;
        case '}':
        case ']':
          if (c == ']' && in_events_ && depth_ == events_depth_) {
            in_events_ = false;
            found_ = true;
            hit = i;
          }
          if (--depth_ < 0) {
            bad_ = true;
            return hit;
          }
          break;
        default: break;
      }
      if (depth_ == 0 && (c == '}' || c == ']')) closed_ = true;
    }
    return hit;
  }
  bool bad() const { return bad_; }
  bool found() const { return found_; }
  bool nonempty() const { return nonempty_; }
  bool complete() const { return closed_ && depth_ == 0 && !in_string_; }
  bool started() const { return root_ != 0; }

 private:
  bool in_string_ = false;
  bool escape_ = false;
  bool capturing_ = false;
  bool key_long_ = false;
  bool pending_ = false;
  bool in_events_ = false;
  bool found_ = false;
  bool nonempty_ = false;
  bool bad_ = false;
  bool closed_ = false;
  char root_ = 0;
  int events_depth_ = 0;
  int64_t depth_ = 0;
  std::string key_;
};

// A FILE* that deflates what is written to it into a .gz file, so that SpliceEvents streams into either.
ssize_t GzipWrite(void* cookie, const char* data, size_t n) {
  const int written = gzwrite(static_cast<gzFile>(cookie), data, static_cast<unsigned>(n));
  return written <= 0 ? -1 : written;
}
int GzipClose(void* cookie) { return gzclose(static_cast<gzFile>(cookie)) == Z_OK ? 0 : -1; }

std::FILE* OpenGzipWriter(const std::string& path) {
  gzFile gz = gzopen(path.c_str(), "wb6");
  if (gz == nullptr) return nullptr;
  cookie_io_functions_t io{};
  io.write = GzipWrite;
  io.close = GzipClose;
  std::FILE* file = fopencookie(gz, "w", io);
  if (file == nullptr) gzclose(gz);
  return file;
}

bool WriteAll(std::FILE* out, const char* data, size_t n) { return n == 0 || std::fwrite(data, 1, n, out) == n; }

}  // namespace

SpliceResult SpliceEvents(ByteSource& source, const std::vector<std::string>& events, std::FILE* out,
                          std::string_view name) {
  SpliceResult result;
  EventsArrayScanner scanner;
  std::vector<char> buffer(size_t{256} << 10);
  auto fail = [&](std::string message) {
    result.ok = false;
    result.error = std::move(message);
    return result;
  };
  for (;;) {
    SourceRead r = source.Read(buffer.data(), buffer.size());
    if (!r.error.empty()) return fail(fmt::format("{}: {}", name, r.error));
    if (r.bytes == 0) break;
    const uint64_t offset = result.input_bytes;
    const size_t hit = scanner.Feed(buffer.data(), r.bytes);
    if (scanner.bad()) {
      return fail(
          fmt::format("{}: not a JSON trace (unexpected byte in the chunk at offset {}); give a Kineto "
                      "trace file",
                      name, offset));
    }
    result.input_bytes += r.bytes;
    if (hit == std::string_view::npos) {
      if (!WriteAll(out, buffer.data(), r.bytes)) return fail(fmt::format("write failed: {}", std::strerror(errno)));
      continue;
    }
    std::string inserted = scanner.nonempty() ? ",\n" : "\n";
    for (size_t i = 0; i < events.size(); ++i) {
      if (i > 0) inserted += ",\n";
      inserted += events[i];
    }
    inserted += "\n";
    result.inserted_at = offset + hit;
    result.inserted_bytes = inserted.size();
    if (!WriteAll(out, buffer.data(), hit) || !WriteAll(out, inserted.data(), inserted.size()) ||
        !WriteAll(out, buffer.data() + hit, r.bytes - hit)) {
      return fail(fmt::format("write failed: {}", std::strerror(errno)));
    }
  }
  if (!scanner.started() || (scanner.complete() && !scanner.found())) {
    return fail(fmt::format("{}: has no top-level traceEvents array; give a Kineto trace file", name));
  }
  if (!scanner.complete()) {
    return fail(fmt::format("{}: ends inside the JSON at byte {} (truncated?); annotate needs a complete trace", name,
                            result.input_bytes));
  }
  result.ok = true;
  return result;
}

AnnotateResult WriteAnnotatedTrace(const std::string& input, const std::string& output, const Trace& trace,
                                   const TraceAnalysis& analysis, std::span<const ScriptFinding> findings,
                                   const SourceLimits& limits) {
  namespace fs = std::filesystem;
  AnnotateResult result;
  std::error_code ec;
  if (fs::exists(output, ec) && fs::equivalent(input, output, ec)) {
    result.error = fmt::format("{}: the output is the input; write the annotated copy to another file", output);
    return result;
  }
  std::string open_error;
  std::unique_ptr<ByteSource> source = OpenSource(input, limits, open_error);
  if (!source) {
    result.error = open_error;
    return result;
  }
  const fs::path out_path(output);
  const fs::path dir = out_path.has_parent_path() ? out_path.parent_path() : fs::path(".");
  const fs::path temp = dir / fmt::format(".{}.{}.tmp", out_path.filename().string(), ::getpid());
  const bool gzip = output.ends_with(".gz");
  std::FILE* file = gzip ? OpenGzipWriter(temp.string()) : std::fopen(temp.string().c_str(), "wb");
  if (file == nullptr) {
    result.error = fmt::format("cannot write {}: {}; choose a writable folder", output, std::strerror(errno));
    return result;
  }
  Annotations annotations = BuildAnnotations(trace, analysis, findings);
  result.counts = annotations.counts;
  result.splice = SpliceEvents(*source, annotations.events, file, input);
  const bool closed = std::fclose(file) == 0;
  if (result.splice.ok && !closed) {
    result.splice.ok = false;
    result.splice.error = fmt::format("cannot write {}: {}", output, std::strerror(errno));
  }
  if (result.splice.ok) {
    fs::rename(temp, out_path, ec);
    if (ec) result.splice = {false, fmt::format("cannot write {}: {}", output, ec.message())};
  }
  if (!result.splice.ok) {
    fs::remove(temp, ec);
    result.error = result.splice.error;
    return result;
  }
  result.ok = true;
  return result;
}

}  // namespace tl::trace
