#include "linter/engine/driver.h"

#include <fmt/core.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "linter/core/fix.h"
#include "linter/core/fs.h"
#include "linter/ts/parse_guard.h"

namespace tl {
namespace {

// ReadFile names the absolute path; users should see the path they passed.
std::string WithDisplayPath(const std::string& message, const FileTask& task) {
  const std::string prefix = task.path.string() + ": ";
  if (message.starts_with(prefix)) return task.display_path + ": " + message.substr(prefix.size());
  return task.display_path + ": " + message;
}

// The fixes `level` allows (kSafe: safe ones; kUnsafe: safe and unsafe), and the findings they belong to.
struct FixSet {
  std::vector<const Fix*> fixes;
  std::vector<const Diagnostic*> owners;
};

FixSet FixesUpTo(const std::vector<Diagnostic>& diagnostics, Applicability level) {
  FixSet out;
  for (const Diagnostic& diagnostic : diagnostics) {
    if (diagnostic.fix && IsApplicable(diagnostic.fix->applicability, level)) {
      out.fixes.push_back(&*diagnostic.fix);
      out.owners.push_back(&diagnostic);
    }
  }
  return out;
}

FileOutcome CheckOneFileUnguarded(const FileTask& task, FixMode fix_mode, size_t max_fix_passes,
                                  uint64_t max_file_bytes, Applicability fix_level) {
  FileOutcome out;
  out.display_path = task.display_path;
  out.path = task.path;
  std::string text;
  if (task.text) {
    text = *task.text;
  } else {
    auto read = ReadFile(task.path, max_file_bytes);
    if (!read.ok()) {
      out.error = WithDisplayPath(read.error().message, task) + "; skipped";
      if (read.error().message.find("limit") != std::string::npos) *out.error += " (raise it with --max-file-size)";
      return out;
    }
    text = std::move(*read);
  }
  // CPython refuses source with NUL bytes; such a file is binary, not Python worth analysing.
  if (text.find('\0') != std::string::npos) {
    out.error = fmt::format("{}: not Python source (it contains NUL bytes, so it looks binary); skipped",
                            task.display_path);
    return out;
  }

  if (auto reason = UnparsableReason(text)) {
    out.error = fmt::format("{}: {}; skipped", task.display_path, *reason);
    return out;
  }

  SourceFile source(task.display_path, std::move(text));
  if (source.invalid_utf8()) {
    out.notes.push_back(
        fmt::format("{}: not valid UTF-8; analysed anyway, with columns counted in bytes where "
                    "the text is invalid (save the file as UTF-8)",
                    task.display_path));
  }
  FileReport report = CheckSource(source, *task.options);
  if (fix_mode != FixMode::kNone) {
    std::optional<SourceFile> before;
    std::optional<FileReport> before_report;
    for (size_t pass = 0; pass < max_fix_passes; ++pass) {
      const FixSet fixes = FixesUpTo(report.diagnostics, fix_level);
      if (fixes.fixes.empty()) break;
      FixOutcome fixed = ApplyFixes(source.text(), fixes.fixes, fix_level);
      if (fixed.applied == 0 || fixed.text == source.text()) break;
      SourceFile next(task.display_path, std::move(fixed.text));
      FileReport next_report = CheckSource(next, *task.options);
      if (next_report.parse_error && !report.parse_error) {
        out.error = fmt::format(
            "{}: a fix would make the file unparsable, so it was not applied; "
            "please report this as a torchlint bug",
            task.display_path);
        break;
      }
      if (!before) {
        before.emplace(task.display_path, std::string(source.text()));
        before_report = report;
      }
      out.fixes_applied += fixed.applied;
      for (const size_t index : fixed.taken)
        out.applied.push_back({fixes.owners[index]->code, fixes.owners[index]->name});
      source = std::move(next);
      report = std::move(next_report);
    }
    if (out.fixes_applied > 0 && before) {
      bool keep = true;
      if (fix_mode == FixMode::kApply && task.write_back) {
        Status written = WriteFileAtomically(task.path, source.text());
        if (!written.ok()) {
          // The file is unchanged, so report what is in it.
          out.error = WithDisplayPath(written.error().message, task);
          if (out.error->find("unchanged") == std::string::npos) *out.error += "; the file is unchanged";
          out.fixes_applied = 0;
          out.applied.clear();
          source = std::move(*before);
          report = std::move(*before_report);
          keep = false;
        } else {
          out.written = true;
        }
      }
      if (keep) out.original = std::string(before->text());
    }
  }
  out.diagnostics = std::move(report.diagnostics);
  out.facts = std::move(report.facts);
  out.summary = std::move(report.summary);
  out.source.emplace(std::move(source));
  return out;
}

}  // namespace

size_t EffectiveJobs(size_t jobs, size_t tasks) {
  if (jobs == 0) jobs = std::max<size_t>(1, std::thread::hardware_concurrency());
  return std::max<size_t>(1, std::min(jobs, tasks));
}

FileOutcome CheckOneFile(const FileTask& task, FixMode fix_mode, size_t max_fix_passes, uint64_t max_file_bytes,
                         Applicability fix_level) {
  try {
    return CheckOneFileUnguarded(task, fix_mode, max_fix_passes, max_file_bytes, fix_level);
  } catch (const std::bad_alloc&) {
    FileOutcome out;
    out.display_path = task.display_path;
    out.error = fmt::format("{}: out of memory while checking this file; skipped", task.display_path);
    return out;
  } catch (const std::exception& e) {
    FileOutcome out;
    out.display_path = task.display_path;
    out.error = fmt::format("{}: internal error: {}; skipped (please report it)", task.display_path, e.what());
    return out;
  }
}

void RunChecksAlone(std::vector<FileTask> tasks, const DriverOptions& options,
                    const std::function<void(FileOutcome&&)>& report) {
  const size_t count = tasks.size();
  const size_t jobs = EffectiveJobs(options.jobs, count);
  if (jobs <= 1) {
    for (size_t i = 0; i < count; ++i) {
      FileOutcome outcome = CheckOneFile(tasks[i], options.fix_mode, options.max_fix_passes, options.max_file_bytes,
                                         options.fix_level);
      if (options.progress) options.progress(i + 1, count);
      report(std::move(outcome));
    }
    return;
  }

  // Workers claim indices in order but may finish out of order; the caller's thread reports slot by slot.
  // The window bounds how far the workers run ahead of the report: wide enough that a worker held up by
  // one large file does not leave the others idle (with 8 slots for two jobs they waited on it), and
  // bounded so that the outcomes held stay few.
  const size_t window = jobs * 32;
  std::vector<std::optional<FileOutcome>> slots(count);
  std::mutex mutex;
  std::condition_variable ready;
  std::condition_variable room;
  size_t next = 0;
  size_t reported = 0;

  auto worker = [&] {
    for (;;) {
      size_t index = 0;
      {
        std::unique_lock lock(mutex);
        room.wait(lock, [&] { return next >= count || next < reported + window; });
        if (next >= count) return;
        index = next++;
      }
      FileOutcome outcome = CheckOneFile(tasks[index], options.fix_mode, options.max_fix_passes, options.max_file_bytes,
                                         options.fix_level);
      {
        std::lock_guard lock(mutex);
        slots[index].emplace(std::move(outcome));
      }
      ready.notify_all();
    }
  };

  std::vector<std::jthread> threads;
  threads.reserve(jobs);
  for (size_t i = 0; i < jobs; ++i) threads.emplace_back(worker);

  for (size_t i = 0; i < count; ++i) {
    FileOutcome outcome;
    {
      std::unique_lock lock(mutex);
      ready.wait(lock, [&] { return slots[i].has_value(); });
      outcome = std::move(*slots[i]);
      slots[i].reset();
      reported = i + 1;
    }
    room.notify_all();
    if (options.progress) options.progress(i + 1, count);
    report(std::move(outcome));
  }
}

void RunChecks(std::vector<FileTask> tasks, const DriverOptions& options,
               const std::function<void(FileOutcome&&)>& report) {
  if (!options.project || tasks.empty()) {
    RunChecksAlone(std::move(tasks), options, report);
    return;
  }
  RunProjectChecks(std::move(tasks), options, report);
}

}  // namespace tl
