#include "traceio/trace_set.h"

#include <algorithm>
#include <filesystem>
#include <regex>

#include <fmt/core.h>

namespace tl::trace {

namespace fs = std::filesystem;

bool TraceSet::any_readable() const {
  return std::any_of(ranks.begin(), ranks.end(), [](const RankTrace& r) { return r.read.ok(); });
}

bool TraceSet::any_warnings() const {
  return !errors.empty() ||
         std::any_of(ranks.begin(), ranks.end(), [](const RankTrace& r) { return !r.read.warnings.empty(); });
}

bool LooksLikeTraceFile(const std::string& name) {
  auto ends = [&](std::string_view s) { return name.size() >= s.size() && name.ends_with(s); };
  return ends(".json") || ends(".json.gz");
}

std::optional<int> RankFromFileName(const std::string& name) {
  static const std::regex kRank(R"((?:rank|worker)[-_]?(\d+))", std::regex::icase);
  std::smatch m;
  if (std::regex_search(name, m, kRank)) return std::stoi(m[1].str());
  return std::nullopt;
}

TraceSet LoadTraceSet(const std::string& path, const ReadOptions& read_options, const AnalysisOptions& analysis_options) {
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
    if (files.empty()) set.errors.push_back(fmt::format("{}: no trace files (*.json, *.json.gz) in this folder", path));
  } else {
    files.push_back(path);
  }
  int next_rank = 0;
  for (const auto& file : files) {
    RankTrace r;
    r.path = file;
    r.read = ReadTraceFile(file, read_options);
    if (!r.read.ok()) {
      set.errors.push_back(r.read.error);
      if (!set.folder) set.ranks.push_back(std::move(r));
      continue;
    }
    const auto& md = r.read.trace->metadata();
    if (md.rank) r.rank = *md.rank;
    else if (auto from_name = RankFromFileName(fs::path(file).filename().string())) r.rank = *from_name;
    else r.rank = next_rank;
    next_rank = std::max(next_rank, r.rank + 1);
    r.analysis = Analyze(*r.read.trace, analysis_options);
    set.ranks.push_back(std::move(r));
  }
  std::stable_sort(set.ranks.begin(), set.ranks.end(), [](const RankTrace& a, const RankTrace& b) { return a.rank < b.rank; });

  // Straggler: in a collective job the slow rank is the one the others wait for, so it shows the least
  // communication time; without collectives, the longest step.
  std::vector<size_t> ok;
  for (size_t i = 0; i < set.ranks.size(); ++i) {
    if (set.ranks[i].analysis && set.ranks[i].analysis->steps.count() > 0) ok.push_back(i);
  }
  if (ok.size() >= 2) {
    auto median = [&](auto key) {
      std::vector<double> v;
      for (size_t i : ok) v.push_back(key(*set.ranks[i].analysis));
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    auto comm = [](const TraceAnalysis& a) { return a.comm.share(); };
    auto step = [](const TraceAnalysis& a) { return a.steps.mean_ms(); };
    double max_comm = 0;
    for (size_t i : ok) max_comm = std::max(max_comm, comm(*set.ranks[i].analysis));
    if (max_comm > 0.05) {
      size_t best = *std::min_element(ok.begin(), ok.end(), [&](size_t a, size_t b) {
        return comm(*set.ranks[a].analysis) < comm(*set.ranks[b].analysis);
      });
      if (median(comm) - comm(*set.ranks[best].analysis) > 0.05) set.straggler = static_cast<int>(best);
    } else {
      size_t worst = *std::max_element(ok.begin(), ok.end(), [&](size_t a, size_t b) {
        return step(*set.ranks[a].analysis) < step(*set.ranks[b].analysis);
      });
      if (step(*set.ranks[worst].analysis) > 1.05 * median(step)) set.straggler = static_cast<int>(worst);
    }
  }
  return set;
}

}  // namespace tl::trace
