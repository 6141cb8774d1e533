// The parallel driver: runs CheckSource over many files on N worker threads and hands each file's
// outcome to the caller in input order, whatever order the workers finish in, so output is the same
// with --jobs 1 and --jobs 16. Workers run at most a small window ahead of the file being reported,
// which keeps memory flat on large trees (a finished file's text is freed once it is reported).
// --fix and --diff run here too: safe fixes (and unsafe ones with --unsafe-fixes) are applied with the one applier, the
// result is checked again (a fix may enable or expose another), and --fix writes it with WriteFileAtomically. A fix
// that would turn a parsable file into an unparsable one is refused rather than written.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "linter/core/diagnostic.h"
#include "linter/core/source_file.h"
#include "linter/engine/check.h"

namespace tl {

enum class FixMode {
  kNone,
  kApply,  // --fix: write the fixed text back
  kDiff,   // --diff: compute the fixed text, write nothing
};

struct FileTask {
  std::string display_path;
  std::filesystem::path path;                   // read from here unless `text` is set
  std::optional<std::string> text;              // stdin's bytes (or bytes already read)
  bool write_back = true;                       // --fix may write `path` (false for stdin)
  std::shared_ptr<const CheckOptions> options;  // never null
};

// A fix that --fix applied (or --diff would), for `--show-fixes`.
struct AppliedFix {
  std::string code;
  std::string name;
};

struct FileOutcome {
  std::string display_path;
  std::optional<SourceFile> source;  // the text the diagnostics refer to (after fixes); empty on error
  std::vector<Diagnostic> diagnostics;
  FileFacts facts;                               // when the task's options ask for them
  std::optional<semantic::FileSummary> summary;  // when the task's options ask for it
  std::optional<std::string> error;              // a one-line message when the file could not be analysed (fully)
  std::vector<std::string> notes;                // one-line warnings about a file that was analysed (e.g. not UTF-8)
  std::string original;                          // the text before fixes, kept only when fixes changed it
  size_t fixes_applied = 0;                      // fixes applied (--fix) or that would be (--diff)
  std::vector<AppliedFix> applied;               // which ones, in the order they were applied
  std::filesystem::path path;                    // the task's path (where --add-noqa writes)
  bool written = false;                          // --fix wrote the file
};

// Files over this size are skipped with a one-line message: tree-sitter needs about 50 bytes of memory
// per byte of source (a 50 MB file takes 2.5 GB), the flat copy of its tree (ts::FlatTree) 10 to 30
// more, and a Python file that large is generated data.
inline constexpr uint64_t kDefaultMaxFileBytes = 10'000'000;

struct DriverOptions {
  size_t jobs = 1;  // 0 means one per hardware thread
  uint64_t max_file_bytes = kDefaultMaxFileBytes;
  FixMode fix_mode = FixMode::kNone;
  Applicability fix_level = Applicability::kSafe;  // kUnsafe with --unsafe-fixes
  size_t max_fix_passes = 10;
  // The project pass: every file's summary goes into one index, and the files whose
  // findings the project can change (a device set in another file, per-step calls of other modules'
  // helpers) are checked again against it. `project_root` names modules ("util/misc.py" is
  // `util.misc`); the modules the checked files import from under it are summarised too. With --fix or
  // --diff the first check only looks, and the fixes are made in the second (project_pass.cpp).
  bool project = false;
  std::filesystem::path project_root;
  // Summaries kept across runs by path and content (the editor server holds one); may be null.
  semantic::SummaryCache* summary_cache = nullptr;
  // Called on the calling thread after each file's (first) check with the files checked and their number,
  // for a progress bar; may be empty. The project pass calls it as its first pass goes.
  std::function<void(size_t checked, size_t total)> progress;
};

// The number of worker threads `jobs` means on this machine.
size_t EffectiveJobs(size_t jobs, size_t tasks);

// Checks one file, applying fixes as `fix_mode` says. Never throws for bad input.
FileOutcome CheckOneFile(const FileTask& task, FixMode fix_mode, size_t max_fix_passes = 10,
                         uint64_t max_file_bytes = kDefaultMaxFileBytes,
                         Applicability fix_level = Applicability::kSafe);

// Each file checked alone, streamed (what RunChecks does without the project pass).
void RunChecksAlone(std::vector<FileTask> tasks, const DriverOptions& options,
                    const std::function<void(FileOutcome&&)>& report);
// The project pass (project.cpp): all files first, then the ones the project changes, then `report`.
void RunProjectChecks(std::vector<FileTask> tasks, const DriverOptions& options,
                      const std::function<void(FileOutcome&&)>& report);

// Checks every task and calls `report` on the calling thread once per task, in input order.
void RunChecks(std::vector<FileTask> tasks, const DriverOptions& options,
               const std::function<void(FileOutcome&&)>& report);

}  // namespace tl
