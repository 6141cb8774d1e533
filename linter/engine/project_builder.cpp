// The project index around some files: their summaries, then the project modules they import under the
// root, level by level through the import graph, each level summarised in parallel (or taken from the
// cache when its bytes did not change). See project_builder.h.
#include "linter/engine/project_builder.h"

#include <algorithm>
#include <chrono>
#include <system_error>
#include <unordered_map>
#include <unordered_set>

#include "linter/core/fs.h"
#include "linter/core/parallel.h"

namespace tl {
namespace {

namespace fs = std::filesystem;

std::string RelativeTo(const fs::path& path, const fs::path& root) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  if (ec) return path.generic_string();
  fs::path relative = absolute.lexically_relative(root);
  if (relative.empty() || relative.begin()->string() == "..") return path.filename().generic_string();
  return relative.generic_string();
}

// Directory listings, each read once: the import search asks which of `a.py`, `a/` and `a/__init__.py`
// exist, folder by folder along every import of every file, and most names are in no folder of the
// project (the standard library, third-party packages), so one listing per folder replaces a stat per
// question.
class Listings {
 public:
  struct Folder {
    std::unordered_set<std::string> files;    // regular files (a link to one counts)
    std::unordered_set<std::string> folders;  // folders (a link to one counts)
  };
  // `dir` without a trailing slash, except the root "/". The folder returned stays where it is while
  // others are added (the map's nodes do not move).
  const Folder& Of(const std::string& dir) {
    auto [it, added] = folders_.try_emplace(dir);
    if (added) {
      std::error_code ec;
      for (fs::directory_iterator entry(dir, ec), end; !ec && entry != end; entry.increment(ec)) {
        std::error_code type_ec;
        if (entry->is_regular_file(type_ec)) {
          it->second.files.insert(entry->path().filename().string());
        } else if (entry->is_directory(type_ec)) {
          it->second.folders.insert(entry->path().filename().string());
        }
      }
    }
    return it->second;
  }

 private:
  std::unordered_map<std::string, Folder> folders_;
};

// The files under `root` that an import of `summary` may name: `a.b` as `a/b.py` or `a/b/__init__.py`,
// from the root and from the importing file's folder (scripts import their neighbours), for every prefix
// of the dotted name (`a.b.f` is `a/b.py`'s f). A prefix that names no folder ends the search: nothing
// below it exists. Paths are built as strings from normalised folders and identifier segments, so no
// normalising is needed. Most files import the same few modules from the same folders: a folder and a
// dotted name already searched (`searched`) give only paths already found, and are skipped.
void CandidateFiles(const semantic::FileSummary& summary, const std::string& file_dir, const std::string& root,
                    Listings& listings, std::unordered_set<std::string>& searched, std::vector<std::string>& out) {
  for (const semantic::ImportSummary& import : summary.imports) {
    std::string_view dotted = import.canonical;
    std::string_view base = root;
    if (dotted.starts_with('.')) {
      size_t level = 0;
      while (level < dotted.size() && dotted[level] == '.') ++level;
      base = file_dir;
      for (size_t up = 1; up < level; ++up) {
        const size_t slash = base.rfind('/');
        if (slash == std::string_view::npos || slash == 0) break;
        base = base.substr(0, slash);
      }
      dotted.remove_prefix(level);
    }
    std::string_view bases[2] = {base, {}};
    if (!import.canonical.starts_with('.') && file_dir != root) bases[1] = file_dir;
    for (std::string_view b : bases) {
      if (b.empty()) continue;
      std::string dir(b);
      if (!searched.insert(dir + '\n' + std::string(dotted)).second) continue;
      const Listings::Folder* folder = &listings.Of(dir);  // the listing of `dir`, kept as the walk descends
      for (std::string_view rest = dotted; !rest.empty();) {
        const size_t dot = rest.find('.');
        const std::string segment(rest.substr(0, dot));
        if (segment.empty() || segment.find('/') != std::string::npos) break;
        const std::string prefix = dir.back() == '/' ? dir : dir + '/';
        if (std::string module = segment + ".py"; folder->files.contains(module)) out.push_back(prefix + module);
        if (!folder->folders.contains(segment)) break;
        dir = prefix + segment;
        folder = &listings.Of(dir);
        if (folder->files.contains("__init__.py")) out.push_back(dir + "/__init__.py");
        if (dot == std::string_view::npos) break;
        rest.remove_prefix(dot + 1);
      }
    }
  }
}

// The module name of a path under the root; when a folder on the way is not a package name (a root
// above `.venv/lib/python3.11/`), the longest tail of the path that is one.
std::string ModuleFor(std::string_view relative, bool* is_package) {
  for (std::string_view rest = relative;;) {
    std::string module = semantic::ModuleName(rest, is_package);
    if (!module.empty()) return module;
    const size_t slash = rest.find('/');
    if (slash == std::string_view::npos) return {};
    rest.remove_prefix(slash + 1);
  }
}

}  // namespace

std::filesystem::path FindProjectRoot(const std::filesystem::path& checked) {
  std::error_code ec;
  fs::path start = fs::absolute(checked, ec).lexically_normal();
  if (!fs::is_directory(start, ec)) start = start.parent_path();
  static constexpr std::string_view kMarkers[] = {"pyproject.toml", "setup.py", "setup.cfg", "torchlint.toml", ".git"};
  const auto package = [&](const fs::path& dir) { return fs::exists(dir / "__init__.py", ec); };
  for (fs::path dir = start; !dir.empty(); dir = dir.parent_path()) {
    const bool marked = std::any_of(std::begin(kMarkers), std::end(kMarkers),
                                    [&](std::string_view m) { return fs::exists(dir / m, ec); });
    if (marked && !package(dir)) return dir;
    if (marked) {
      // A marker inside a package is one of its modules (`dinov2/eval/setup.py`): the project's modules are
      // named from the folder that holds the package's top.
      fs::path top = dir;
      while (top != top.parent_path() && package(top.parent_path())) top = top.parent_path();
      return top.has_parent_path() && top != top.parent_path() ? top.parent_path() : top;
    }
    if (dir == dir.parent_path()) break;
  }
  return start;
}

std::filesystem::path NormalizedRoot(const std::filesystem::path& root) {
  std::error_code ec;
  fs::path out = fs::absolute(root, ec).lexically_normal();
  if (!out.has_filename() && out.has_parent_path() && out != out.root_path()) out = out.parent_path();
  return out;
}

std::string ModuleNameUnder(const std::filesystem::path& path, const std::filesystem::path& root, bool* is_package) {
  return ModuleFor(RelativeTo(path, root), is_package);
}

BuiltIndex BuildProjectIndex(std::vector<IndexSeed> seeds, const ProjectIndexOptions& options) {
  BuiltIndex out;
  out.index = std::make_shared<semantic::ProjectIndex>();
  semantic::ProjectIndex& index = *out.index;
  out.modules.resize(seeds.size());
  const fs::path root = NormalizedRoot(options.root);
  const std::string root_string = root.string();
  std::error_code ec;
  std::unordered_set<std::string> seen;
  std::vector<std::pair<const semantic::FileSummary*, std::string>> pending;
  std::vector<fs::path> absolute;  // each seed's, made once (lexically_normal is not cheap)
  absolute.reserve(seeds.size());
  for (IndexSeed& seed : seeds) {
    absolute.push_back(fs::absolute(seed.path, ec).lexically_normal());
    seen.insert(absolute.back().string());
  }
  for (size_t i = 0; i < seeds.size(); ++i) {
    const fs::path& path = absolute[i];
    bool package = false;
    std::string module = ModuleNameUnder(seeds[i].path, root, &package);
    semantic::FileSummary& summary = seeds[i].summary;
    const std::string display = summary.path;
    summary.module = module;
    summary.is_package = package;
    index.Add(std::move(summary));
    if (const semantic::FileSummary* added = index.Find(module); added != nullptr && added->path == display) {
      pending.emplace_back(added, path.parent_path().string());
      out.modules[i] = std::move(module);
    }  // else a second file of the same module name: it is checked alone
  }
  Listings listings;
  std::unordered_set<std::string> searched;
  size_t context = 0;
  while (!pending.empty() && context < options.max_context_files) {
    struct Candidate {
      fs::path path;
      std::string relative;
      std::optional<semantic::FileSummary> summary;
    };
    std::vector<Candidate> level;
    std::vector<std::string> candidates;
    for (const auto& [summary, dir] : pending) {
      candidates.clear();
      CandidateFiles(*summary, dir, root_string, listings, searched, candidates);
      for (std::string& candidate : candidates) {
        if (context + level.size() >= options.max_context_files) break;
        if (!seen.insert(candidate).second) continue;
        fs::path path(std::move(candidate));
        std::string relative = RelativeTo(path, root);
        if (relative.starts_with("..")) continue;
        level.push_back({std::move(path), std::move(relative), std::nullopt});
      }
    }
    pending.clear();
    context += level.size();
    ParallelFor(level.size(), options.jobs, [&](size_t i) {
      Candidate& c = level[i];
      std::optional<semantic::SummaryCache::Stamp> stamp;
      if (options.cache != nullptr && options.trust_file_stamps) {
        std::error_code stat_ec;
        const auto mtime = fs::last_write_time(c.path, stat_ec);
        const auto size = stat_ec ? 0 : fs::file_size(c.path, stat_ec);
        if (!stat_ec) {
          stamp = semantic::SummaryCache::Stamp{
              std::chrono::duration_cast<std::chrono::nanoseconds>(mtime.time_since_epoch()).count(), size};
          if (auto cached = options.cache->FindStamped(c.relative, *stamp)) {
            c.summary = std::move(cached);
            return;
          }
        }
      }
      auto text = ReadFile(c.path, options.max_file_bytes);
      if (!text.ok() || text->find('\0') != std::string::npos) return;
      if (options.cache != nullptr && !stamp) {
        if (auto cached = options.cache->Find(c.relative, semantic::ContentHash(*text))) {
          c.summary = std::move(cached);
          return;
        }
      }
      const SourceFile source(c.relative, std::move(*text));
      c.summary = SummarizeSource(source);
      if (c.summary && options.cache != nullptr) {
        if (stamp) {
          options.cache->Put(*c.summary, *stamp);
        } else {
          options.cache->Put(*c.summary);
        }
      }
    });
    for (Candidate& c : level) {
      if (!c.summary) continue;
      bool package = false;
      c.summary->module = ModuleFor(c.relative, &package);
      c.summary->is_package = package;
      const std::string module = c.summary->module;
      index.Add(std::move(*c.summary));
      if (const semantic::FileSummary* added = index.Find(module); added != nullptr && added->path == c.relative) {
        pending.emplace_back(added, c.path.parent_path().string());
      }
    }
  }
  out.context_files = context;
  index.Finish();
  return out;
}

}  // namespace tl
