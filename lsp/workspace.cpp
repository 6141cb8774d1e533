#include "lsp/workspace.h"

#include <fmt/core.h>
#include <tree_sitter/api.h>

#include <algorithm>
#include <system_error>

#include "linter/engine/check.h"
#include "linter/engine/project_builder.h"
#include "linter/ts/ts.h"

namespace tl::lsp {
namespace {

namespace fs = std::filesystem;

// Where a byte offset sits as tree-sitter counts it: rows by '\n', columns in bytes.
TSPoint PointAt(const SourceFile& file, uint32_t offset) {
  const uint32_t line0 = file.lines().Locate(offset).line - 1;
  return TSPoint{line0, offset - file.lines().LineStart(line0)};
}

TSPoint Advance(TSPoint start, std::string_view text) {
  const size_t last = text.rfind('\n');
  if (last == std::string_view::npos) return TSPoint{start.row, start.column + static_cast<uint32_t>(text.size())};
  return TSPoint{start.row + static_cast<uint32_t>(std::count(text.begin(), text.end(), '\n')),
                 static_cast<uint32_t>(text.size() - last - 1)};
}

}  // namespace

struct Workspace::Document {
  std::string text;
  int64_t version = 0;
  std::optional<ts::Tree> tree;                          // the last parse, with every edit since recorded
  std::shared_ptr<const SourceFile> source;              // the current text with its line index; made on demand
  std::shared_ptr<const semantic::FileSummary> summary;  // shared: checks of the others read it
  int64_t summary_version = -1;  // the version `summary` was made from (-1: none yet, or to be made again)
  // Moves on when `summary` tells the project something else (not when it is made again the same): the
  // project indexes built with it are reused while it stays.
  uint64_t summary_token = 0;
  int64_t tree_version = -1;  // the version `tree` is the parse of (before the edits since)
  // What the project said the document's star imports bind, at its last check: its summary is made
  // with it (SummarizeParsed), as the check made it.
  std::vector<semantic::ImportSummary> star;

  const std::shared_ptr<const SourceFile>& Source(const std::string& path) {
    if (!source) source = std::make_shared<const SourceFile>(path, text);
    return source;
  }
};

Workspace::Workspace(size_t jobs)
    : jobs_(std::max<size_t>(1, jobs)),
      configs_(std::make_shared<ConfigResolver>()),
      pins_(std::make_shared<TorchPinResolver>()) {}

Workspace::~Workspace() = default;

void Workspace::SetSettings(Settings settings) {
  const std::lock_guard lock(mu_);
  settings_ = std::move(settings);
}

Settings Workspace::CurrentSettings() const {
  const std::lock_guard lock(mu_);
  return settings_;
}

void Workspace::ReloadConfigs() {
  const std::lock_guard lock(mu_);
  configs_ = std::make_shared<ConfigResolver>();
  pins_ = std::make_shared<TorchPinResolver>();
  ForgetIndex();
}

void Workspace::ProjectChanged() {
  const std::lock_guard lock(mu_);
  ForgetIndex();
}

void Workspace::ForgetIndex() {
  ++generation_;  // an index a check is building now is not kept for reuse either
  last_index_.reset();
}

void Workspace::SetIndexReuse(std::chrono::milliseconds reuse) {
  const std::lock_guard lock(mu_);
  index_reuse_ = reuse;
}

Workspace::IndexCounts Workspace::IndexStats() const {
  const std::lock_guard lock(mu_);
  return index_counts_;
}

void Workspace::Open(const std::string& path, std::string text, int64_t version) {
  const std::lock_guard lock(mu_);
  auto document = std::make_unique<Document>();
  document->text = std::move(text);
  document->version = version;
  documents_[path] = std::move(document);
  ForgetIndex();  // another document under a project root: its indexes are built again
}

bool Workspace::Change(const std::string& path, int64_t version, std::optional<TextRange> range,
                       std::string_view text) {
  const std::lock_guard lock(mu_);
  auto it = documents_.find(path);
  if (it == documents_.end()) return false;
  Document& doc = *it->second;
  if (!range) {
    doc.text.assign(text);
    doc.tree.reset();  // a whole new text: nothing to reuse
  } else {
    if (range->begin > range->end || range->end > doc.text.size()) return false;
    if (doc.tree) {
      const std::shared_ptr<const SourceFile>& before = doc.Source(path);
      TSInputEdit edit{};
      edit.start_byte = range->begin;
      edit.old_end_byte = range->end;
      edit.new_end_byte = range->begin + static_cast<uint32_t>(text.size());
      edit.start_point = PointAt(*before, range->begin);
      edit.old_end_point = PointAt(*before, range->end);
      edit.new_end_point = Advance(edit.start_point, text);
      doc.tree->Edit(edit);
    }
    doc.text.replace(range->begin, range->end - range->begin, text);
  }
  doc.version = version;
  doc.source.reset();
  return true;
}

void Workspace::Close(const std::string& path) {
  const std::lock_guard lock(mu_);
  documents_.erase(path);
  ForgetIndex();
}

bool Workspace::IsOpen(const std::string& path) const {
  const std::lock_guard lock(mu_);
  return documents_.contains(path);
}

std::vector<std::string> Workspace::OpenPaths() const {
  const std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [path, doc] : documents_) out.push_back(path);
  return out;
}

std::optional<Workspace::Snapshot> Workspace::Get(const std::string& path) const {
  const std::lock_guard lock(mu_);
  auto it = documents_.find(path);
  if (it == documents_.end()) return std::nullopt;
  return Snapshot{it->second->Source(path), it->second->version};
}

std::shared_ptr<const CheckOptions> Workspace::OptionsFor(const std::string& path, std::string& error) {
  std::shared_ptr<ConfigResolver> configs;
  std::shared_ptr<TorchPinResolver> pins;
  Settings settings;
  std::shared_ptr<const CrossCheck> trace;
  {
    const std::lock_guard lock(mu_);
    configs = configs_;
    pins = pins_;
    settings = settings_;
    trace = trace_;
  }
  auto options = std::make_shared<CheckOptions>();
  const fs::path absolute(path);
  auto config = configs->ForDirectory(absolute.parent_path());
  std::shared_ptr<const Config> defaults;
  if (!config.ok()) {
    error = config.error().message;  // checked with the defaults, and the problem is said
    defaults = std::make_shared<const Config>();
  }
  CliOverrides cli;
  cli.select = settings.select;
  cli.ignore = settings.ignore;
  cli.target_torch = settings.target_torch;
  std::optional<TorchVersion> trace_torch;
  if (trace) trace_torch = trace->TraceTorch();
  ConfigureOptions(config.ok() ? **config : *defaults, cli, absolute, trace_torch, *pins, *options);
  options->collect_facts = trace != nullptr;
  return options;
}

std::optional<Workspace::Checked> Workspace::Check(const std::string& path, bool defer_summary) {
  Checked out;
  std::optional<ts::Tree> old;
  std::shared_ptr<const CrossCheck> trace;
  // The summary the index is built with when it is not made by this check: the document's last one, as
  // made from the version it names (none the first time, and none when asked for the current one).
  std::shared_ptr<const semantic::FileSummary> last;
  uint64_t last_token = 0;
  // The other open documents with a summary: path, summary, and its token (what it tells the project).
  struct Other {
    std::string path;
    std::shared_ptr<const semantic::FileSummary> summary;
    uint64_t token;
  };
  std::vector<Other> others;
  uint64_t generation = 0;
  {
    const std::lock_guard lock(mu_);
    auto it = documents_.find(path);
    if (it == documents_.end()) return std::nullopt;
    Document& doc = *it->second;
    out.snapshot = {doc.Source(path), doc.version};
    if (doc.tree) old = doc.tree->Copy();
    if (doc.summary && (defer_summary || doc.summary_version == doc.version)) {
      last = doc.summary;
      last_token = doc.summary_token;
      out.summary_pending = doc.summary_version != doc.version;
    }
    for (const auto& [other_path, other] : documents_) {
      if (other_path != path && other->summary) others.push_back({other_path, other->summary, other->summary_token});
    }
    generation = generation_;
    trace = trace_;
  }
  std::shared_ptr<const CheckOptions> base = OptionsFor(path, out.error);
  auto options = std::make_shared<CheckOptions>(*base);
  options->collect_summary = !last;
  options->own_summary = last.get();
  const fs::path root = FindProjectRoot(path);
  options->project_for = [&](const semantic::FileSummary& own) {
    IndexKey key;
    key.root = root.string();
    key.own = last ? static_cast<int64_t>(last_token) : -1;  // one this check makes is not one a later check has
    key.generation = generation;
    std::vector<const Other*> under_root;
    for (const Other& other : others) {
      const std::string relative = fs::path(other.path).lexically_relative(root).generic_string();
      if (relative.empty() || relative.starts_with("..")) continue;
      under_root.push_back(&other);
      key.others.emplace_back(other.path, static_cast<int64_t>(other.token));
    }
    const auto now = std::chrono::steady_clock::now();
    if (last) {
      const std::lock_guard lock(mu_);
      if (last_index_ && last_index_->path == path && last_index_->key == key &&
          now - last_index_->built < index_reuse_) {
        ++index_counts_.reused;
        return last_index_->view;
      }
    }
    std::vector<IndexSeed> seeds;
    seeds.push_back({own, path});
    for (const Other* other : under_root) seeds.push_back({*other->summary, other->path});
    ProjectIndexOptions index_options;
    index_options.root = root;
    index_options.jobs = jobs_;
    index_options.cache = &cache_;
    index_options.trust_file_stamps = true;
    BuiltIndex built = BuildProjectIndex(std::move(seeds), index_options);
    ProjectView view{built.index, built.modules.empty() ? std::string() : built.modules.front()};
    const std::lock_guard lock(mu_);
    ++index_counts_.built;
    if (last && documents_.contains(path)) {
      last_index_ = BuiltView{path, std::move(key), view, now};
    } else if (last_index_ && last_index_->path == path) {
      last_index_.reset();
    }
    return view;
  };

  const SourceFile& file = *out.snapshot.source;
  thread_local ts::Parser parser;
  Result<ts::Tree> parsed = old ? parser.Parse(file.text(), *old) : parser.Parse(file.text());
  // Tree-sitter recovers from a syntax error by the path its parse took: reusing the last tree can put
  // the error somewhere else than a parse of the text alone (and shape the broken region differently).
  // The diagnostics must not depend on the edits that led to a text, so a broken text is parsed afresh.
  out.incremental = old.has_value() && parsed.ok();
  if (out.incremental && parsed->HasError()) {
    parsed = parser.Parse(file.text());
    out.incremental = false;
  }
  out.spliced = parsed.ok() && !parsed->Exact();
  FileReport report;
  if (parsed.ok()) {
    report = CheckParsed(file, *parsed, *options);
  } else {
    report = CheckSource(file, *options);  // the one-line parse-error notice
  }
  if (trace) trace->Annotate(file, report.facts, report.diagnostics);
  out.diagnostics = std::move(report.diagnostics);

  const std::lock_guard lock(mu_);
  auto it = documents_.find(path);
  if (it != documents_.end() && it->second->version == out.snapshot.version &&
      it->second->source == out.snapshot.source) {
    Document& doc = *it->second;
    if (parsed.ok()) {
      doc.tree = std::move(*parsed);
      doc.tree_version = doc.version;
    }
    // A summary made with what the star imports bound before is made again when the project now says
    // otherwise (a module they import changed).
    if (last && report.star != doc.star) {
      doc.summary_version = -1;
      out.summary_pending = true;
    }
    doc.star = std::move(report.star);
    if (report.summary) {
      // Against the summary the other documents were last checked with (not copied at the start: a
      // summary of a large file is not small, and only this thread replaces it).
      out.summary_changed = !doc.summary || !SameForProject(*doc.summary, *report.summary);
      if (out.summary_changed) ++doc.summary_token;
      doc.summary = std::make_shared<const semantic::FileSummary>(std::move(*report.summary));
      doc.summary_version = doc.version;
    } else if (!last && parsed.ok()) {
      // Nothing to tell the project (a file-wide `# noqa`): what it told it is gone.
      out.summary_changed = doc.summary != nullptr;
      if (out.summary_changed) ++doc.summary_token;
      doc.summary.reset();
      doc.summary_version = doc.version;
    }
  }
  return out;
}

struct Workspace::CurrentParse {
  std::shared_ptr<const SourceFile> source;
  int64_t version = 0;
  ts::Tree tree;
  std::vector<semantic::ImportSummary> star;  // what its star imports bound when it was checked
};

std::optional<Workspace::CurrentParse> Workspace::ParseOfCurrentVersion(const std::string& path,
                                                                        bool (*wanted)(const Document&)) const {
  const std::lock_guard lock(mu_);
  auto it = documents_.find(path);
  if (it == documents_.end()) return std::nullopt;
  const Document& doc = *it->second;
  if (!doc.tree || doc.tree_version != doc.version || !doc.source || !wanted(doc)) return std::nullopt;
  return CurrentParse{doc.source, doc.version, doc.tree->Copy(), doc.star};
}

bool Workspace::Refresh(const std::string& path) {
  std::optional<CurrentParse> current = ParseOfCurrentVersion(path,
                                                              [](const Document& doc) { return !doc.tree->Exact(); });
  if (!current) return false;
  thread_local ts::Parser parser;
  Result<ts::Tree> parsed = parser.Reparse(current->source->text(), current->tree);
  // Kept only with no error (a broken text is parsed afresh by the check anyway), and only for the
  // version it is of.
  if (!parsed.ok() || parsed->HasError()) return false;
  const std::lock_guard lock(mu_);
  auto it = documents_.find(path);
  if (it == documents_.end()) return false;
  Document& doc = *it->second;
  if (doc.version != current->version || doc.tree_version != current->version || doc.source != current->source) {
    return false;
  }
  doc.tree = std::move(*parsed);
  return true;
}

bool Workspace::Summarize(const std::string& path) {
  // Current already, or no tree of the current text to make it from (an edit since the last check:
  // that check's own summary, or this call after it, makes it).
  std::optional<CurrentParse> current = ParseOfCurrentVersion(
      path, [](const Document& doc) { return doc.summary_version != doc.version; });
  if (!current) return false;
  const int64_t version = current->version;
  std::optional<semantic::FileSummary> summary = SummarizeParsed(*current->source, current->tree, current->star);
  const std::lock_guard lock(mu_);
  auto it = documents_.find(path);
  if (it == documents_.end()) return false;
  Document& doc = *it->second;
  // Kept when the document changed since (it is still newer than the one its next check would use),
  // unless a summary of this version or a later one is there already.
  if (doc.summary_version >= version) return false;
  const bool changed = summary.has_value() != (doc.summary != nullptr) ||
                       (summary && !SameForProject(*doc.summary, *summary));
  doc.summary_version = version;
  if (!changed) return false;  // the same for the project: the one kept, and the indexes built with it
  ++doc.summary_token;
  doc.summary = summary ? std::make_shared<const semantic::FileSummary>(std::move(*summary)) : nullptr;
  return true;
}

Status Workspace::LoadTrace(const std::string& path) {
  auto loaded = CrossCheck::Load(path);
  if (!loaded.ok()) return loaded.error();
  auto trace = std::make_shared<const CrossCheck>(std::move(*loaded));
  const std::lock_guard lock(mu_);
  trace_ = std::move(trace);
  trace_path_ = path;
  return Ok{};
}

void Workspace::DropTrace() {
  const std::lock_guard lock(mu_);
  trace_.reset();
  trace_path_.clear();
}

bool Workspace::HasTrace() const {
  const std::lock_guard lock(mu_);
  return trace_ != nullptr;
}

std::string Workspace::TracePath() const {
  const std::lock_guard lock(mu_);
  return trace_path_;
}

std::optional<std::string> Workspace::FindTrace(const fs::path& script) {
  // `instrument`'s default trace folder (tensorboard_trace_handler's), beside the script or at the
  // project root, when it holds a trace.
  std::error_code ec;
  for (const fs::path& dir : {script.parent_path() / "profiler_logs", FindProjectRoot(script) / "profiler_logs"}) {
    if (!fs::is_directory(dir, ec)) continue;
    for (fs::directory_iterator entry(dir, ec), end; !ec && entry != end; entry.increment(ec)) {
      const std::string name = entry->path().filename().string();
      if (name.ends_with(".pt.trace.json") || name.ends_with(".pt.trace.json.gz") || name.ends_with(".json") ||
          name.ends_with(".json.gz")) {
        return dir.string();
      }
    }
  }
  return std::nullopt;
}

}  // namespace tl::lsp
