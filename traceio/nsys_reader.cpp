#include "traceio/nsys_reader.h"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

#include <fmt/core.h>

namespace tl::trace {
namespace {

struct DbClose {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct StmtFinalize {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Db = std::unique_ptr<sqlite3, DbClose>;
using Stmt = std::unique_ptr<sqlite3_stmt, StmtFinalize>;

// The longest string or blob SQLite will hand back: far above any kernel name or NVTX text, and a bound
// on what a hostile row can make the reader hold.
constexpr int kMaxValueBytes = 16 << 20;

// A `file:` URI with every byte outside the unreserved set percent-encoded, so that `?` or `#` in a
// path cannot become URI parameters.
std::string FileUri(const std::string& path) {
  std::string out = "file:";
  for (unsigned char c : path) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' ||
                       c == '.' || c == '-' || c == '_' || c == '~';
    if (plain) out += static_cast<char>(c);
    else out += fmt::format("%{:02X}", c);
  }
  // immutable: the file is read as it is, with no lock, journal or -wal/-shm file created beside it.
  return out + "?immutable=1";
}

int64_t ProcessOf(int64_t global_tid) { return (global_tid >> 24) & 0xFFFFFF; }
int64_t ThreadOf(int64_t global_tid) { return global_tid & 0xFFFFFF; }

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": nsys appends the API version, Kineto does not.
std::string_view WithoutApiVersion(std::string_view name) {
  const size_t at = name.rfind("_v");
  if (at == std::string_view::npos || at + 2 >= name.size()) return name;
  for (size_t i = at + 2; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  return name.substr(0, at);
}

std::string_view MemKindName(int64_t kind) {
  switch (kind) {
    case 0: return "Pageable";
    case 1: return "Pinned";
    case 2:
    case 5: return "Device";
    case 3: return "Array";
    case 4:
    case 6: return "Managed";
    default: return "Unknown";
  }
}

std::string_view CopyKindName(int64_t kind) {
  switch (kind) {
    case 1:
    case 11: return "HtoD";
    case 2:
    case 12: return "DtoH";
    case 8:
    case 13: return "DtoD";
    case 9: return "HtoH";
    case 10: return "PtoP";
    case 3: return "HtoA";
    case 4: return "AtoH";
    case 5: return "AtoA";
    case 6: return "AtoD";
    case 7: return "DtoA";
    default: return "Unknown";
  }
}

std::string_view SyncName(int64_t type) {
  switch (type) {
    case 1: return "Event Sync";
    case 2: return "Stream Wait Event";
    case 3: return "Stream Sync";
    case 4: return "Context Sync";
    default: return "Unknown Sync";
  }
}

// "aten::mm, seq = 3, op_id = 7" (emit_nvtx, and the NVTX ranges PyTorch writes under nsys): the op name,
// or empty when the text is not one.
std::string_view AtenOpName(std::string_view text) {
  const size_t colons = text.find("::");
  if (colons == std::string_view::npos || colons == 0) return {};
  for (size_t i = 0; i < colons; ++i) {
    const char c = text[i];
    if (!((c >= 'a' && c <= 'z') || c == '_' || (c >= '0' && c <= '9'))) return {};
  }
  const size_t comma = text.find(", ");
  if (comma == std::string_view::npos) return {};
  std::string_view rest = text.substr(comma + 2);
  if (!rest.starts_with("seq = ") && !rest.starts_with("op_id = ") && !rest.starts_with("sizes = ")) return {};
  return text.substr(0, comma);
}

class NsysReader {
 public:
  explicit NsysReader(std::string path) : path_(std::move(path)) {}

  NsysRead Read() {
    NsysRead out;
    if (!Open(out)) return out;
    if (!ListTables(out)) return out;
    const bool has_cuda = Has("CUPTI_ACTIVITY_KIND_KERNEL") || Has("CUPTI_ACTIVITY_KIND_RUNTIME") ||
                          Has("CUPTI_ACTIVITY_KIND_MEMCPY");
    const bool nsys = has_cuda || Has("NVTX_EVENTS") || Has("TARGET_INFO_SESSION_START_TIME") ||
                      Has("META_DATA_EXPORT");
    if (!nsys) {
      out.error = fmt::format(
          "{}: a SQLite database, but not an Nsight Systems export (none of its tables are nsys's); export "
          "one with `nsys export --type sqlite REPORT.nsys-rep`",
          path_);
      return out;
    }
    if (!has_cuda && !Has("NVTX_EVENTS")) {
      out.error = fmt::format(
          "{}: an Nsight Systems export without CUDA or NVTX tables: the capture recorded no GPU activity; "
          "profile with `nsys profile --trace=cuda,nvtx,osrt,cudnn,cublas`",
          path_);
      return out;
    }
    out.schema_version = MetaValue("EXPORT_SCHEMA_VERSION");
    const bool ok = LoadStrings() && LoadProcesses() && ReadKernels() && ReadCopies() && ReadMemsets() &&
                    ReadRuntime() && ReadSyncs() && ReadNvtx() && ReadThreadNames() && ReadGpus();
    if (!ok) {
      out.error = error_;
      return out;
    }
    Finish(out);
    return out;
  }

 private:
  struct Process {
    int64_t pid = 0;
    TraceBuilder builder;
    std::unordered_map<int64_t, StringId> names;  // StringIds id -> this builder's interned id
    uint64_t bad = 0;
    uint64_t kernels = 0;
    uint64_t runtime = 0;
    uint64_t ranges = 0;
    int32_t min_device = INT32_MAX;
  };

  bool Open(NsysRead& out) {
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(FileUri(path_).c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
    db_.reset(raw);
    if (rc != SQLITE_OK) {
      out.error = fmt::format("{}: cannot open the SQLite file: {}", path_,
                              raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc));
      return false;
    }
    // The file is untrusted: no schema-defined functions, triggers or views run, and nothing can write.
    sqlite3_db_config(db_.get(), SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(db_.get(), SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    sqlite3_db_config(db_.get(), SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
    sqlite3_db_config(db_.get(), SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
    sqlite3_limit(db_.get(), SQLITE_LIMIT_LENGTH, kMaxValueBytes);
    return true;
  }

  std::string Failure(std::string_view what) const {
    return fmt::format("{}: cannot read {}: {} (a truncated or corrupt database?)", path_, what,
                       sqlite3_errmsg(db_.get()));
  }

  Stmt Prepare(const std::string& sql, std::string_view what) {
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(db_.get(), sql.c_str(), static_cast<int>(sql.size()), &raw, nullptr) != SQLITE_OK) {
      error_ = Failure(what);
      return nullptr;
    }
    return Stmt(raw);
  }

  // Steps every row through `row`; false (with error_ set) when SQLite fails part way.
  template <typename Fn>
  bool Each(const std::string& sql, std::string_view what, Fn&& row) {
    Stmt stmt = Prepare(sql, what);
    if (!stmt) return false;
    for (;;) {
      const int rc = sqlite3_step(stmt.get());
      if (rc == SQLITE_ROW) {
        row(stmt.get());
        continue;
      }
      if (rc == SQLITE_DONE) return true;
      error_ = Failure(what);
      return false;
    }
  }

  bool ListTables(NsysRead& out) {
    std::string failure;
    const bool ok = Each("SELECT name FROM sqlite_master WHERE type = 'table'", "the list of tables",
                         [&](sqlite3_stmt* s) {
                           if (const unsigned char* name = sqlite3_column_text(s, 0))
                             tables_.emplace(reinterpret_cast<const char*>(name));
                         });
    if (!ok) {
      out.error = error_;
      return false;
    }
    return true;
  }

  bool Has(std::string_view table) const { return tables_.count(std::string(table)) > 0; }

  std::set<std::string> Columns(const std::string& table) {
    std::set<std::string> cols;
    Each(fmt::format("PRAGMA table_info(\"{}\")", table), "a table's columns", [&](sqlite3_stmt* s) {
      if (const unsigned char* name = sqlite3_column_text(s, 1)) cols.emplace(reinterpret_cast<const char*>(name));
    });
    return cols;
  }

  // "col" when the table has it, else the first of the fallbacks it has, else NULL (so that the query's
  // shape stays the same across export schemas).
  static std::string Pick(const std::set<std::string>& cols, std::initializer_list<std::string_view> names) {
    for (std::string_view n : names) {
      if (cols.count(std::string(n)) > 0) return fmt::format("\"{}\"", n);
    }
    return "NULL";
  }

  std::string MetaValue(std::string_view key) {
    if (!Has("META_DATA_EXPORT")) return {};
    std::string value;
    Each(fmt::format("SELECT value FROM META_DATA_EXPORT WHERE name = '{}'", key), "the export's metadata",
         [&](sqlite3_stmt* s) {
           if (const unsigned char* v = sqlite3_column_text(s, 0)) value = reinterpret_cast<const char*>(v);
         });
    error_.clear();  // metadata is optional
    return value;
  }

  bool LoadStrings() {
    if (!Has("StringIds")) return true;
    return Each("SELECT id, value FROM StringIds", "StringIds", [&](sqlite3_stmt* s) {
      const unsigned char* v = sqlite3_column_text(s, 1);
      if (v == nullptr) return;
      strings_.emplace(sqlite3_column_int64(s, 0),
                       std::string(reinterpret_cast<const char*>(v), static_cast<size_t>(sqlite3_column_bytes(s, 1))));
    });
  }

  bool LoadProcesses() {
    if (!Has("PROCESSES")) return true;
    const auto cols = Columns("PROCESSES");
    if (cols.count("globalPid") == 0 || cols.count("name") == 0) return true;
    return Each("SELECT globalPid, name FROM PROCESSES", "PROCESSES", [&](sqlite3_stmt* s) {
      if (const unsigned char* v = sqlite3_column_text(s, 1)) {
        process_names_[ProcessOf(sqlite3_column_int64(s, 0))] = reinterpret_cast<const char*>(v);
      }
    });
  }

  Process& ProcessFor(int64_t pid) {
    auto it = processes_.find(pid);
    if (it == processes_.end()) {
      it = processes_.emplace(pid, std::make_unique<Process>()).first;
      it->second->pid = pid;
      it->second->builder.metadata().path = path_;
    }
    return *it->second;
  }

  // A name column's value: an id into StringIds (most schemas), or the text itself.
  StringId NameOf(Process& p, sqlite3_stmt* s, int col) {
    const int type = sqlite3_column_type(s, col);
    if (type == SQLITE_INTEGER) {
      const int64_t id = sqlite3_column_int64(s, col);
      auto known = p.names.find(id);
      if (known != p.names.end()) return known->second;
      auto text = strings_.find(id);
      const StringId interned = p.builder.strings().Intern(text != strings_.end() ? std::string_view(text->second)
                                                                                  : std::string_view("<unknown>"));
      p.names.emplace(id, interned);
      return interned;
    }
    if (type == SQLITE_TEXT) {
      return p.builder.strings().Intern(std::string_view(reinterpret_cast<const char*>(sqlite3_column_text(s, col)),
                                                         static_cast<size_t>(sqlite3_column_bytes(s, col))));
    }
    return p.builder.strings().Intern("<unknown>");
  }

  std::string_view TextOf(sqlite3_stmt* s, int text_col, int id_col) {
    if (sqlite3_column_type(s, text_col) == SQLITE_TEXT) {
      return {reinterpret_cast<const char*>(sqlite3_column_text(s, text_col)),
              static_cast<size_t>(sqlite3_column_bytes(s, text_col))};
    }
    if (sqlite3_column_type(s, id_col) == SQLITE_INTEGER) {
      auto it = strings_.find(sqlite3_column_int64(s, id_col));
      if (it != strings_.end()) return it->second;
    }
    return {};
  }

  // start/end in columns 0 and 1; false for a row with a missing or backwards time.
  static bool Times(sqlite3_stmt* s, int64_t& ts, int64_t& dur) {
    if (sqlite3_column_type(s, 0) != SQLITE_INTEGER || sqlite3_column_type(s, 1) != SQLITE_INTEGER) return false;
    ts = sqlite3_column_int64(s, 0);
    const int64_t end = sqlite3_column_int64(s, 1);
    if (end < ts || ts < 0) return false;
    dur = end - ts;
    return true;
  }

  uint32_t GpuTrack(Process& p, int64_t device, int64_t stream) {
    return p.builder.Track(fmt::format("{}", device), fmt::format("stream {}", stream));
  }

  // Columns 0-5 of every GPU-work query: start, end, deviceId, streamId, correlationId, globalPid.
  static std::string GpuColumns(const std::set<std::string>& cols) {
    return fmt::format("start, end, {}, {}, {}, {}", Pick(cols, {"deviceId"}), Pick(cols, {"streamId"}),
                       Pick(cols, {"correlationId"}), Pick(cols, {"globalPid"}));
  }

  // Adds one GPU-work row (columns 0-5) with its name; returns the process it went to.
  Process* AddGpu(sqlite3_stmt* s, EventKind kind, const std::function<StringId(Process&)>& name, int64_t bytes) {
    Process& p = ProcessFor(ProcessOf(sqlite3_column_int64(s, 5)));
    int64_t ts = 0, dur = 0;
    if (!Times(s, ts, dur)) {
      ++p.bad;
      return nullptr;
    }
    const auto device = static_cast<int32_t>(sqlite3_column_int64(s, 2));
    const auto stream = static_cast<int32_t>(sqlite3_column_int64(s, 3));
    TraceBuilder::Complete e;
    e.ts = ts;
    e.dur = dur;
    e.kind = kind;
    e.name = name(p);
    e.track = GpuTrack(p, device, stream);
    e.correlation = sqlite3_column_int64(s, 4);
    const uint32_t index = p.builder.Add(e);
    p.builder.AttachGpu(index, GpuInfo{device, stream, bytes});
    p.min_device = std::min(p.min_device, device);
    return &p;
  }

  bool ReadKernels() {
    if (!Has("CUPTI_ACTIVITY_KIND_KERNEL")) return true;
    const auto cols = Columns("CUPTI_ACTIVITY_KIND_KERNEL");
    const std::string sql = fmt::format("SELECT {}, {} FROM CUPTI_ACTIVITY_KIND_KERNEL", GpuColumns(cols),
                                        Pick(cols, {"demangledName", "shortName", "name"}));
    return Each(sql, "CUPTI_ACTIVITY_KIND_KERNEL", [&](sqlite3_stmt* s) {
      if (Process* p = AddGpu(
              s, EventKind::kKernel, [&](Process& q) { return NameOf(q, s, 6); }, 0))
        ++p->kernels;
    });
  }

  bool ReadCopies() {
    if (!Has("CUPTI_ACTIVITY_KIND_MEMCPY")) return true;
    const auto cols = Columns("CUPTI_ACTIVITY_KIND_MEMCPY");
    const std::string sql = fmt::format("SELECT {}, {}, {}, {}, {} FROM CUPTI_ACTIVITY_KIND_MEMCPY", GpuColumns(cols),
                                        Pick(cols, {"bytes"}), Pick(cols, {"copyKind"}), Pick(cols, {"srcKind"}),
                                        Pick(cols, {"dstKind"}));
    return Each(sql, "CUPTI_ACTIVITY_KIND_MEMCPY", [&](sqlite3_stmt* s) {
      // Kineto's spelling, which ParseCopyKind reads: "Memcpy HtoD (Pageable -> Device)".
      const std::string name = fmt::format(
          "Memcpy {} ({} -> {})", CopyKindName(sqlite3_column_int64(s, 7)),
          MemKindName(sqlite3_column_type(s, 8) == SQLITE_NULL ? 7 : sqlite3_column_int64(s, 8)),
          MemKindName(sqlite3_column_type(s, 9) == SQLITE_NULL ? 7 : sqlite3_column_int64(s, 9)));
      AddGpu(
          s, EventKind::kMemcpy, [&](Process& q) { return q.builder.strings().Intern(name); },
          sqlite3_column_int64(s, 6));
    });
  }

  bool ReadMemsets() {
    if (!Has("CUPTI_ACTIVITY_KIND_MEMSET")) return true;
    const auto cols = Columns("CUPTI_ACTIVITY_KIND_MEMSET");
    const std::string sql = fmt::format("SELECT {}, {}, {} FROM CUPTI_ACTIVITY_KIND_MEMSET", GpuColumns(cols),
                                        Pick(cols, {"bytes"}), Pick(cols, {"memKind"}));
    return Each(sql, "CUPTI_ACTIVITY_KIND_MEMSET", [&](sqlite3_stmt* s) {
      const std::string name = fmt::format(
          "Memset ({})", MemKindName(sqlite3_column_type(s, 7) == SQLITE_NULL ? 2 : sqlite3_column_int64(s, 7)));
      AddGpu(
          s, EventKind::kMemset, [&](Process& q) { return q.builder.strings().Intern(name); },
          sqlite3_column_int64(s, 6));
    });
  }

  uint32_t ThreadTrack(Process& p, int64_t global_tid) {
    return p.builder.Track(fmt::format("{}", p.pid), fmt::format("{}", ThreadOf(global_tid)));
  }

  bool ReadRuntime() {
    if (!Has("CUPTI_ACTIVITY_KIND_RUNTIME")) return true;
    const auto cols = Columns("CUPTI_ACTIVITY_KIND_RUNTIME");
    const std::string sql = fmt::format("SELECT start, end, {}, {}, {} FROM CUPTI_ACTIVITY_KIND_RUNTIME",
                                        Pick(cols, {"globalTid"}), Pick(cols, {"correlationId"}),
                                        Pick(cols, {"nameId", "name"}));
    return Each(sql, "CUPTI_ACTIVITY_KIND_RUNTIME", [&](sqlite3_stmt* s) {
      const int64_t gtid = sqlite3_column_int64(s, 2);
      Process& p = ProcessFor(ProcessOf(gtid));
      int64_t ts = 0, dur = 0;
      if (!Times(s, ts, dur)) {
        ++p.bad;
        return;
      }
      const std::string_view full = p.builder.strings().Get(NameOf(p, s, 4));
      const std::string_view name = WithoutApiVersion(full);
      TraceBuilder::Complete e;
      e.ts = ts;
      e.dur = dur;
      e.name = p.builder.strings().Intern(name);
      e.kind = name.starts_with("cu") && !name.starts_with("cuda") ? EventKind::kDriver : EventKind::kRuntime;
      e.track = ThreadTrack(p, gtid);
      e.correlation = sqlite3_column_int64(s, 3);
      p.builder.Add(e);
      ++p.runtime;
    });
  }

  bool ReadSyncs() {
    if (!Has("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")) return true;
    const auto cols = Columns("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
    const std::string sql = fmt::format("SELECT {}, {} FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", GpuColumns(cols),
                                        Pick(cols, {"syncType"}));
    return Each(sql, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", [&](sqlite3_stmt* s) {
      Process& p = ProcessFor(ProcessOf(sqlite3_column_int64(s, 5)));
      int64_t ts = 0, dur = 0;
      if (!Times(s, ts, dur)) {
        ++p.bad;
        return;
      }
      TraceBuilder::Complete e;
      e.ts = ts;
      e.dur = dur;
      e.kind = EventKind::kCudaSync;
      e.name = p.builder.strings().Intern(SyncName(sqlite3_column_int64(s, 6)));
      // A device-wide sync has no stream (4294967295 in the export): it gets a track of its own.
      e.track = GpuTrack(p, sqlite3_column_int64(s, 2), sqlite3_column_int64(s, 3));
      e.correlation = sqlite3_column_int64(s, 4);
      p.builder.Add(e);
    });
  }

  bool ReadNvtx() {
    if (!Has("NVTX_EVENTS")) return true;
    const auto cols = Columns("NVTX_EVENTS");
    // 59: push/pop, 60: start/end ranges; marks (34) and payload-only records are not ranges.
    const std::string sql = fmt::format("SELECT start, end, {}, {}, {}, {} FROM NVTX_EVENTS WHERE {} IN (59, 60)",
                                        Pick(cols, {"globalTid"}), Pick(cols, {"text"}), Pick(cols, {"textId"}),
                                        Pick(cols, {"domainId"}), Pick(cols, {"eventType"}));
    return Each(sql, "NVTX_EVENTS", [&](sqlite3_stmt* s) {
      const int64_t gtid = sqlite3_column_int64(s, 2);
      Process& p = ProcessFor(ProcessOf(gtid));
      int64_t ts = 0, dur = 0;
      if (!Times(s, ts, dur)) {
        ++p.bad;  // an unclosed range (end NULL) or a backwards one
        return;
      }
      const std::string_view text = TextOf(s, 3, 4);
      if (text.empty()) {
        ++p.bad;
        return;
      }
      const std::string_view op = AtenOpName(text);
      TraceBuilder::Complete e;
      e.ts = ts;
      e.dur = dur;
      e.kind = op.empty() ? EventKind::kUserAnnotation : EventKind::kCpuOp;
      e.name = p.builder.strings().Intern(op.empty() ? text : op);
      e.track = ThreadTrack(p, gtid);
      p.builder.Add(e);
      ++p.ranges;
    });
  }

  bool ReadThreadNames() {
    if (!Has("ThreadNames")) return true;
    const auto cols = Columns("ThreadNames");
    if (cols.count("nameId") == 0 || cols.count("globalTid") == 0) return true;
    return Each("SELECT nameId, globalTid FROM ThreadNames", "ThreadNames", [&](sqlite3_stmt* s) {
      const int64_t gtid = sqlite3_column_int64(s, 1);
      auto it = processes_.find(ProcessOf(gtid));
      if (it == processes_.end()) return;
      auto text = strings_.find(sqlite3_column_int64(s, 0));
      if (text == strings_.end()) return;
      Process& p = *it->second;
      p.builder.SetThreadName(ThreadTrack(p, gtid), text->second);
    });
  }

  bool ReadGpus() {
    if (!Has("TARGET_INFO_GPU")) return true;
    const auto cols = Columns("TARGET_INFO_GPU");
    const std::string sql = fmt::format("SELECT {}, {}, {}, {}, {}, {} FROM TARGET_INFO_GPU", Pick(cols, {"id"}),
                                        Pick(cols, {"name"}), Pick(cols, {"totalMemory"}), Pick(cols, {"computeMajor"}),
                                        Pick(cols, {"computeMinor"}), Pick(cols, {"smCount"}));
    return Each(sql, "TARGET_INFO_GPU", [&](sqlite3_stmt* s) {
      DeviceProperties d;
      d.id = static_cast<int>(sqlite3_column_int64(s, 0));
      if (const unsigned char* n = sqlite3_column_text(s, 1)) d.name = reinterpret_cast<const char*>(n);
      d.total_global_mem = sqlite3_column_int64(s, 2);
      d.compute_major = static_cast<int>(sqlite3_column_int64(s, 3));
      d.compute_minor = static_cast<int>(sqlite3_column_int64(s, 4));
      d.num_sms = static_cast<int>(sqlite3_column_int64(s, 5));
      gpus_.push_back(std::move(d));
    });
  }

  void Finish(NsysRead& out) {
    // The processes that did GPU work are the ranks; without any, those with NVTX ranges are kept (a
    // capture of CPU phases only). Launchers and helpers with neither are left out.
    std::vector<Process*> kept;
    for (auto& [pid, p] : processes_) {
      if (p->kernels > 0 || p->runtime > 0) kept.push_back(p.get());
    }
    if (kept.empty()) {
      for (auto& [pid, p] : processes_) {
        if (p->ranges > 0) kept.push_back(p.get());
      }
    }
    if (kept.empty()) {
      out.error = fmt::format("{}: the Nsight Systems export holds no kernels, CUDA calls or NVTX ranges", path_);
      return;
    }
    // Rank order: by the first GPU the process used (torchrun's rank r normally drives GPU r), then pid.
    std::sort(kept.begin(), kept.end(), [](const Process* a, const Process* b) {
      return std::make_pair(a->min_device, a->pid) < std::make_pair(b->min_device, b->pid);
    });
    for (size_t r = 0; r < kept.size(); ++r) {
      Process& p = *kept[r];
      TraceMetadata& md = p.builder.metadata();
      md.format = TraceFormat::kNsys;
      md.devices = gpus_;
      if (kept.size() > 1) {
        md.rank = static_cast<int>(r);
        md.world_size = static_cast<int>(kept.size());
      }
      NsysProcess proc;
      proc.pid = p.pid;
      if (auto it = process_names_.find(p.pid); it != process_names_.end()) proc.name = it->second;
      proc.read.stats.bad_events = p.bad;
      proc.read.stats.events = p.builder.event_count();
      if (p.bad > 0) {
        AddWarning(
            proc.read,
            fmt::format("{}: process {}: {} rows skipped (missing or backwards times, unclosed or unnamed NVTX "
                        "ranges)",
                        path_, p.pid, p.bad),
            fmt::format("{}：进程 {}：跳过了 {} 行（时间缺失或倒退、NVTX 区间未闭合或无名）", path_, p.pid, p.bad));
      }
      proc.read.trace = p.builder.Finish();
      out.processes.push_back(std::move(proc));
    }
  }

  std::string path_;
  Db db_;
  std::string error_;
  std::set<std::string> tables_;
  std::unordered_map<int64_t, std::string> strings_;
  std::map<int64_t, std::string> process_names_;
  std::map<int64_t, std::unique_ptr<Process>> processes_;
  std::vector<DeviceProperties> gpus_;
};

}  // namespace

bool IsSqliteFile(const std::string& path) {
  static constexpr std::string_view kMagic("SQLite format 3\0", 16);
  std::ifstream in(path, std::ios::binary);
  std::array<char, 16> head{};
  if (!in.read(head.data(), head.size())) return false;
  return std::string_view(head.data(), head.size()) == kMagic;
}

NsysRead ReadNsysFile(const std::string& path) { return NsysReader(path).Read(); }

}  // namespace tl::trace
