#include "traceio/trace_set.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <tuple>

#include <fmt/core.h>

#include "traceio/nsys_reader.h"

namespace tl::trace {

namespace fs = std::filesystem;

bool TraceSet::any_readable() const {
  return std::any_of(ranks.begin(), ranks.end(), [](const RankTrace& r) { return r.read.ok(); });
}

bool TraceSet::any_warnings() const {
  return !errors.empty() ||
         std::any_of(ranks.begin(), ranks.end(), [](const RankTrace& r) { return !r.read.warnings.empty(); });
}

size_t TraceSet::rank_count() const {
  std::set<int> seen;
  for (const auto& r : ranks) {
    if (r.read.ok()) seen.insert(r.rank);
  }
  return seen.size();
}

bool TraceSet::has_cycles() const {
  return std::any_of(ranks.begin(), ranks.end(), [](const RankTrace& r) { return r.cycles > 1; });
}

bool LooksLikeTraceFile(const std::string& name) {
  auto ends = [&](std::string_view s) { return name.size() >= s.size() && name.ends_with(s); };
  return ends(".json") || ends(".json.gz") || ends(".sqlite");
}

std::optional<int> RankFromFileName(const std::string& name) {
  static const std::regex kRank(R"((?:rank|worker)[-_]?(\d+))", std::regex::icase);
  std::smatch m;
  if (!std::regex_search(name, m, kRank)) return std::nullopt;
  // A number too large for an int is not a rank (rank99999999999999.json): the file then gets the next
  // free rank, like a name without one.
  const std::string digits = m[1].str();
  int rank = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return rank;
}

namespace {

// tensorboard_trace_handler names its files "<worker>.<epoch ms>.pt.trace.json[.gz]", one per profiling
// cycle; files without a rank that share <worker> are cycles of one process. Other names are their own key.
std::string WorkerKey(const std::string& file_name) {
  static const std::regex kCycle(R"(^(.+)\.\d+\.pt\.trace\.json(?:\.gz)?$)");
  std::smatch m;
  if (std::regex_match(file_name, m, kCycle)) return m[1].str();
  return file_name;
}

// Straggler: in a collective job the slow rank is the one the others wait for, so it shows the least
// communication time; without collectives, the longest step. Each candidate is compared with the mean of
// the other ranks (not the median, which with two ranks is the larger of the pair, so the rank with less
// communication would always be flagged), and must differ by a clear relative gap: two healthy ranks of
// one job differ by 10-15% in communication share from noise alone.
void FindStraggler(TraceSet& set) {
  std::vector<size_t> ok;
  for (size_t i = 0; i < set.ranks.size(); ++i) {
    const auto& r = set.ranks[i];
    if (r.representative() && r.analysis && r.analysis->steps.count() > 0) ok.push_back(i);
  }
  if (ok.size() < 2) return;
  auto comm = [](const TraceAnalysis& a) { return a.comm.share(); };
  auto step = [](const TraceAnalysis& a) { return a.steps.mean_ms(); };
  auto others_mean = [&](size_t candidate, auto key) {
    double sum = 0;
    for (size_t i : ok) {
      if (i != candidate) sum += key(*set.ranks[i].analysis);
    }
    return sum / static_cast<double>(ok.size() - 1);
  };
  double max_comm = 0;
  for (size_t i : ok) max_comm = std::max(max_comm, comm(*set.ranks[i].analysis));
  StragglerTest test;
  bool flagged = false;
  size_t candidate = 0;
  if (max_comm > 0.05) {
    candidate = *std::min_element(ok.begin(), ok.end(), [&](size_t a, size_t b) {
      return comm(*set.ranks[a].analysis) < comm(*set.ranks[b].analysis);
    });
    test = {"communication.share", set.ranks[candidate].rank, comm(*set.ranks[candidate].analysis),
            others_mean(candidate, comm)};
    const double gap = test.others_mean - test.value;
    flagged = gap > kStragglerCommGap && gap >= kStragglerCommRelative * test.others_mean;
  } else {
    candidate = *std::max_element(ok.begin(), ok.end(), [&](size_t a, size_t b) {
      return step(*set.ranks[a].analysis) < step(*set.ranks[b].analysis);
    });
    test = {"steps.mean_ms", set.ranks[candidate].rank, step(*set.ranks[candidate].analysis),
            others_mean(candidate, step)};
    flagged = test.value > (1.0 + kStragglerStepRelative) * test.others_mean;
  }
  set.straggler_test = test;
  if (flagged) set.straggler = static_cast<int>(candidate);
}

}  // namespace

TraceSet LoadTraceSet(const std::string& path, const ReadOptions& read_options,
                      const AnalysisOptions& analysis_options) {
  TraceSet set;
  set.path = path;
  std::error_code ec;
  std::vector<std::string> files;
  if (fs::is_directory(path, ec)) {
    set.folder = true;
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      if (entry.is_regular_file(ec) && LooksLikeTraceFile(entry.path().filename().string())) {
        files.push_back(entry.path().string());
      }
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) {
      set.errors.push_back(fmt::format("{}: no trace files (*.json, *.json.gz, *.sqlite) in this folder", path));
    }
  } else {
    files.push_back(path);
  }

  // Ranks the files state (metadata, else name) first; the others then take free numbers, one per worker.
  std::set<int> used;
  std::vector<size_t> unranked;  // indices into set.ranks of readable files that state no rank
  // A readable file (or process of an export) with the rank it states, if any, joins the set analysed.
  auto add = [&](RankTrace r, std::optional<int> rank) {
    if (rank) {
      r.rank = *rank;
      used.insert(*rank);
    } else {
      unranked.push_back(set.ranks.size());
    }
    r.analysis = Analyze(*r.read.trace, analysis_options);
    set.ranks.push_back(std::move(r));
  };
  // A folder's progress counts the bytes of all its files: those of the files before, plus the current
  // one's read so far.
  auto size_of = [](const std::string& file) {
    std::error_code size_ec;
    const uintmax_t size = fs::file_size(file, size_ec);
    return size_ec ? uint64_t{0} : static_cast<uint64_t>(size);
  };
  uint64_t folder_bytes = 0;
  for (const auto& file : files) folder_bytes += size_of(file);
  uint64_t before_bytes = 0;   // of the files before the current one
  uint64_t through_bytes = 0;  // of those and the current one
  ReadOptions file_options = read_options;
  const bool folder_progress = set.folder && read_options.progress;
  if (folder_progress) {
    file_options.progress = [&](uint64_t read, uint64_t) { read_options.progress(before_bytes + read, folder_bytes); };
  }
  for (const auto& file : files) {
    before_bytes = through_bytes;
    through_bytes += size_of(file);
    if (folder_progress) read_options.progress(before_bytes, folder_bytes);
    // An Nsight Systems export holds every process of the capture: each is a rank of its own.
    if (IsSqliteFile(file)) {
      NsysRead nsys = ReadNsysFile(file);
      if (!nsys.ok()) {
        set.errors.push_back(nsys.error);
        RankTrace r;
        r.path = file;
        r.read.error = nsys.error;
        if (!set.folder) set.ranks.push_back(std::move(r));
        continue;
      }
      for (NsysProcess& process : nsys.processes) {
        RankTrace r;
        r.path = nsys.processes.size() > 1 ? fmt::format("{} (pid {})", file, process.pid) : file;
        r.read = std::move(process.read);
        const std::optional<int> rank = r.read.trace->metadata().rank;
        add(std::move(r), rank);
      }
      continue;
    }
    RankTrace r;
    r.path = file;
    r.read = ReadTraceFile(file, file_options);
    if (!r.read.ok()) {
      set.errors.push_back(r.read.error);
      if (!set.folder) set.ranks.push_back(std::move(r));
      continue;
    }
    const auto& md = r.read.trace->metadata();
    std::optional<int> rank = md.rank;
    if (!rank) rank = RankFromFileName(fs::path(file).filename().string());
    add(std::move(r), rank);
  }
  std::map<std::string, int> by_worker;
  int next_free = 0;
  for (size_t i : unranked) {
    auto& r = set.ranks[i];
    const std::string key = WorkerKey(fs::path(r.path).filename().string());
    if (auto it = by_worker.find(key); it != by_worker.end()) {
      r.rank = it->second;
      continue;
    }
    while (used.count(next_free) > 0) ++next_free;
    r.rank = next_free;
    used.insert(next_free);
    by_worker.emplace(key, next_free);
  }

  // By rank, then oldest cycle first: the trace's first timestamp (absolute in Kineto traces), then the name.
  auto start = [](const RankTrace& r) { return r.read.ok() ? r.read.trace->min_ts() : int64_t{0}; };
  std::stable_sort(set.ranks.begin(), set.ranks.end(), [&](const RankTrace& a, const RankTrace& b) {
    return std::forward_as_tuple(a.rank, start(a), a.path) < std::forward_as_tuple(b.rank, start(b), b.path);
  });
  for (size_t i = 0; i < set.ranks.size();) {
    size_t j = i;
    while (j < set.ranks.size() && set.ranks[j].rank == set.ranks[i].rank) ++j;
    for (size_t k = i; k < j; ++k) {
      set.ranks[k].cycle = k - i;
      set.ranks[k].cycles = j - i;
    }
    i = j;
  }
  FindStraggler(set);
  return set;
}

}  // namespace tl::trace
