// The workspace of `torchlint server`, over the engine and without LSP types: the open documents (text,
// version, and a tree kept up to date with every edit so that the next parse is incremental), the
// settings, the configs of their folders, the project index around the open documents (with a
// summary cache, so that files that did not change are not read again), and a profiler trace to
// cross-check against. Thread-safe: the server's reading thread edits documents while its checking
// thread checks snapshots of them.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "crosscheck/crosscheck.h"
#include "linter/core/diagnostic.h"
#include "linter/core/result.h"
#include "linter/core/source_file.h"
#include "linter/engine/check.h"
#include "linter/engine/config.h"
#include "linter/engine/torch_pin.h"
#include "linter/semantic/project.h"

namespace tl::lsp {

struct Settings {
  std::optional<std::vector<std::string>> select;  // normalised selectors; nullopt: the config's
  std::vector<std::string> ignore;
  std::optional<TorchVersion> target_torch;
  bool unsafe_fixes = false;
  std::string trace;  // a trace file or folder; empty: the one `instrument` writes, when there is one
};

class Workspace {
 public:
  explicit Workspace(size_t jobs = 1);
  ~Workspace();

  void SetSettings(Settings settings);
  Settings CurrentSettings() const;
  // Forgets the configs and pins read so far (a pyproject.toml or torchlint.toml changed).
  void ReloadConfigs();
  // Files of the project may have changed on disk (a save, a watched file): the project index of the
  // next check is built again, not reused.
  void ProjectChanged();

  // Documents, by absolute path. Change applies one edit (a byte range of the current text, or the
  // whole text when `range` is empty); false when the document is not open or the range is outside it.
  void Open(const std::string& path, std::string text, int64_t version);
  bool Change(const std::string& path, int64_t version, std::optional<TextRange> range, std::string_view text);
  void Close(const std::string& path);
  bool IsOpen(const std::string& path) const;
  std::vector<std::string> OpenPaths() const;
  // A snapshot of a document's text and version; null when it is not open.
  struct Snapshot {
    std::shared_ptr<const SourceFile> source;
    int64_t version = 0;
  };
  std::optional<Snapshot> Get(const std::string& path) const;

  // Checks the current version of a document. `summary_changed` says that what the document tells the
  // rest of the project changed, so that the other open documents should be checked again.
  //
  // The document's own summary (what it tells the project) is made from the same parse before the rules
  // run, because the project index the rules read is built with it. With `defer_summary`, a document that
  // has a summary is checked with that one instead (of an earlier version: the summary of a large file
  // costs a quarter of its check), and `summary_pending` says so: Summarize then makes the current one,
  // after the diagnostics are out, and says whether the check should run again.
  struct Checked {
    Snapshot snapshot;
    std::vector<Diagnostic> diagnostics;
    bool summary_changed = false;
    bool summary_pending = false;
    bool incremental = false;  // the parse reused the previous tree
    bool spliced = false;      // it parsed a few statements alone (Refresh makes tree-sitter's tree)
    std::string error;         // a one-line problem (a config that cannot be read); the check still ran
  };
  std::optional<Checked> Check(const std::string& path, bool defer_summary = false);
  // Makes the summary of the document's current version when its last check used an earlier one (the
  // summary that check would have made, from its tree). True when it tells the project something else
  // than the one the check used: the document, and the other open documents, should be checked again.
  bool Summarize(const std::string& path);
  // After a check that spliced (Checked::spliced), tree-sitter's own parse of the document's current
  // version, from the tree before: kept as the document's tree when no edit came meanwhile, so that the
  // next edit that cannot be spliced does not pay for the ones that were. Off the keystroke's path.
  // True when the document's tree is tree-sitter's parse now.
  bool Refresh(const std::string& path);

  // The trace: loaded with the streaming reader (call it off the reading thread). An error leaves the
  // trace that was loaded before, so that the caller can say why before its findings lose their
  // verdicts (`DropTrace`). `FindTrace` is where `instrument` writes its trace beside a script, when it exists.
  Status LoadTrace(const std::string& path);
  void DropTrace();
  bool HasTrace() const;
  std::string TracePath() const;
  static std::optional<std::string> FindTrace(const std::filesystem::path& script);

  const semantic::SummaryCache& Cache() const { return cache_; }
  // How many checks built their project index, and how many reused the one before (tests and the bench).
  struct IndexCounts {
    size_t built = 0;
    size_t reused = 0;
  };
  IndexCounts IndexStats() const;
  // How long a document's project index is reused while nothing it was built from changed: modules on
  // disk that no save or watched-file event reported are read again after this (a second by default;
  // zero: never reused).
  void SetIndexReuse(std::chrono::milliseconds reuse);

 private:
  struct Document;
  // The document's parse of its current version, copied under the lock for work outside it (Refresh,
  // Summarize): none when an edit came since the last check, or when `wanted` says no.
  struct CurrentParse;
  std::optional<CurrentParse> ParseOfCurrentVersion(const std::string& path, bool (*wanted)(const Document&)) const;
  std::shared_ptr<const CheckOptions> OptionsFor(const std::string& path, std::string& error);
  // With mu_ held: no project index built before now is reused (moves generation_ on, drops last_index_).
  void ForgetIndex();

  size_t jobs_;
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Document>> documents_;
  Settings settings_;
  // Shared, so that a check holding them survives a reload on the reading thread.
  std::shared_ptr<ConfigResolver> configs_;
  std::shared_ptr<TorchPinResolver> pins_;
  semantic::SummaryCache cache_;
  // The project index of the last check that could keep one, with the document it was for and what it
  // was built from: the summaries (the document's own and the other open documents' under the project
  // root, each by its token: what it tells the project), and `generation_`, which opening, closing and
  // ProjectChanged move on. While they are the same, within index_reuse_, the next check of the document
  // reuses it (typing in one file changes none of them until its own summary tells something new). One
  // only: an index holds every open document's summary, and one kept per document would hold them all
  // again for each.
  struct IndexKey {
    std::string root;
    int64_t own = -1;
    std::vector<std::pair<std::string, int64_t>> others;
    uint64_t generation = 0;
    friend bool operator==(const IndexKey&, const IndexKey&) = default;
  };
  struct BuiltView {
    std::string path;
    IndexKey key;
    ProjectView view;
    std::chrono::steady_clock::time_point built;
  };
  std::optional<BuiltView> last_index_;
  uint64_t generation_ = 0;
  IndexCounts index_counts_;
  std::chrono::milliseconds index_reuse_{1000};
  std::shared_ptr<const CrossCheck> trace_;
  std::string trace_path_;
};

}  // namespace tl::lsp
