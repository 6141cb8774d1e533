#include "lsp/server.h"

#include <unistd.h>
#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "linter/core/fix.h"
#include "linter/core/fs.h"
#include "linter/core/thread.h"
#include "linter/engine/config.h"
#include "linter/engine/project_builder.h"
#include "linter/engine/rule.h"
#include "linter/instrument/instrument.h"
#include "linter/output/evidence.h"
#include "lsp/protocol.h"
#include "lsp/workspace.h"

namespace tl::lsp {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kVersion = "0.1.0";
constexpr std::string_view kFixAllKind = "source.fixAll.torchlint";
// Documents over this size are kept but not analysed, as `check` skips such files.
constexpr size_t kMaxAnalysedBytes = 10'000'000;

enum MessageType { kLogError = 1, kLogWarning = 2, kLogInfo = 3 };

// Where the rules' docs are: a `docsBaseUrl` setting, else the docs/rules folder of the source tree
// or the installed share/doc folder beside the executable.
std::string DefaultDocsBase() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  for (const fs::path& candidate : {exe.parent_path().parent_path() / "docs" / "rules",
                                    exe.parent_path().parent_path() / "share" / "doc" / "torchlint" / "rules"}) {
    if (fs::is_directory(candidate, ec)) return UriFromPath(candidate.lexically_normal().string()) + "/";
  }
  return {};
}

// Reads the settings object (`initializationOptions`, or `settings.torchlint` of a configuration
// change) over `settings`; a bad value is named in `problems` and leaves that setting as it was.
void ReadSettings(const Json& json, Settings& settings, std::string& docs_base, std::vector<std::string>& problems) {
  if (!json.is_object()) return;
  auto strings = [&](const char* key, auto&& store) {
    auto it = json.find(key);
    if (it == json.end() || it->is_null()) return;
    if (!it->is_array()) {
      problems.push_back(fmt::format("setting `{}`: expected a list of rule codes", key));
      return;
    }
    std::vector<std::string> out;
    for (const Json& item : *it) {
      if (!item.is_string()) {
        problems.push_back(fmt::format("setting `{}`: expected a list of rule codes", key));
        return;
      }
      auto normalized = NormalizeSelector(item.get<std::string>());
      if (!normalized.ok()) {
        problems.push_back(fmt::format("setting `{}`: {}", key, normalized.error().message));
        return;
      }
      out.push_back(std::move(*normalized));
    }
    store(std::move(out));
  };
  strings("select", [&](std::vector<std::string> v) { settings.select = std::move(v); });
  strings("ignore", [&](std::vector<std::string> v) { settings.ignore = std::move(v); });
  if (auto it = json.find("targetTorch"); it != json.end() && !it->is_null()) {
    std::optional<TorchVersion> version;
    if (it->is_string()) version = TorchVersion::Parse(it->get<std::string>());
    if (version) {
      settings.target_torch = version;
    } else {
      problems.push_back("setting `targetTorch`: expected a PyTorch version such as \"2.4\"");
    }
  }
  if (auto it = json.find("unsafeFixes"); it != json.end() && !it->is_null()) {
    if (it->is_boolean()) {
      settings.unsafe_fixes = it->get<bool>();
    } else {
      problems.push_back("setting `unsafeFixes`: expected true or false");
    }
  }
  if (auto it = json.find("trace"); it != json.end() && !it->is_null()) {
    if (it->is_string()) {
      settings.trace = it->get<std::string>();
    } else {
      problems.push_back("setting `trace`: expected the path of a profiler trace file or folder");
    }
  }
  if (auto it = json.find("docsBaseUrl"); it != json.end() && it->is_string()) docs_base = it->get<std::string>();
}

const Json* Find(const Json& json, std::initializer_list<std::string_view> path) {
  const Json* at = &json;
  for (std::string_view key : path) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

std::string StringAt(const Json& json, std::initializer_list<std::string_view> path) {
  const Json* at = Find(json, path);
  return at != nullptr && at->is_string() ? at->get<std::string>() : std::string();
}

// What a document's last published check left, for code actions and hover.
struct Published {
  int64_t version = 0;
  std::shared_ptr<const SourceFile> source;
  std::vector<Diagnostic> diagnostics;
};

class Server {
 public:
  Server(FrameReader& reader, FrameWriter& writer, const ServerOptions& options)
      : reader_(reader), writer_(writer), workspace_(options.jobs), docs_base_(DefaultDocsBase()) {}

  int Run() {
    worker_ = std::jthread([this](const std::stop_token& stop) {
      NameThisThread("tl-check");
      Work(stop);
    });
    summarizer_ = std::jthread([this](const std::stop_token& stop) { SummarizeLoop(stop); });
    int status = 1;
    for (;;) {
      ReadResult next = reader_.Next();
      if (std::holds_alternative<EndOfInput>(next)) break;
      if (auto* error = std::get_if<FrameError>(&next)) {
        Log(kLogError, "torchlint: a message could not be read: " + error->message);
        continue;
      }
      int code = 0;
      Json id;
      auto message = ParseMessage(std::get<Frame>(next).body, code, id);
      if (!message.ok()) {
        Send(ErrorText(id, code, message.error().message));
        continue;
      }
      if (message->kind == Message::Kind::kNotification && message->method == "exit") {
        status = shutdown_ ? 0 : 1;
        break;
      }
      Dispatch(std::move(*message));
    }
    {
      const std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    summarize_cv_.notify_all();
    worker_.request_stop();
    summarizer_.request_stop();
    worker_.join();
    summarizer_.join();
    if (trace_loader_.joinable()) trace_loader_.join();
    return status;
  }

 private:
  // ---------------------------------------------------------------------------------------------
  // Output.

  void Send(const std::string& text) { writer_.Write(text); }
  void Notify(std::string_view method, const Json& params) { Send(NotificationText(method, params)); }
  void Log(MessageType type, const std::string& message) {
    Notify("window/logMessage", Json{{"type", static_cast<int>(type)}, {"message", message}});
  }
  void Reply(const Json& id, const Json& result) { Send(ResultText(id, result)); }
  void Fail(const Json& id, int code, std::string_view message) { Send(ErrorText(id, code, message)); }

  // ---------------------------------------------------------------------------------------------
  // The reading thread: lifecycle and documents at once, requests to the worker.

  void Dispatch(Message message) {
    const bool request = message.kind == Message::Kind::kRequest;
    if (message.kind == Message::Kind::kResponse) return;  // answers to our registrations
    if (message.method == "initialize") {
      if (!request) return;
      if (initialized_) {
        Fail(message.id, kInvalidRequest, "initialize was already received");
        return;
      }
      Initialize(message);
      return;
    }
    if (!initialized_) {
      if (request) Fail(message.id, kServerNotInitialized, "the server is not initialized yet");
      return;
    }
    if (message.method == "shutdown") {
      if (!request) return;
      shutdown_ = true;
      Enqueue([this, id = message.id] { Reply(id, nullptr); });  // after the work queued before it
      return;
    }
    if (shutdown_) {
      if (request) Fail(message.id, kInvalidRequest, "the server is shutting down");
      return;
    }
    if (message.method == "$/cancelRequest") {
      const Json* id = Find(message.params, {"id"});
      if (id != nullptr && (id->is_number_integer() || id->is_string())) {
        const std::lock_guard lock(mu_);
        cancelled_.insert(id->dump());
      }
      return;
    }
    if (!request) {
      Notification(message);
      return;
    }
    static const std::set<std::string, std::less<>> kRequests = {"textDocument/codeAction", "textDocument/hover",
                                                                 "textDocument/diagnostic"};
    if (!kRequests.contains(message.method)) {
      Fail(message.id, kMethodNotFound, fmt::format("unknown method {}", message.method));
      return;
    }
    Enqueue([this, message = std::move(message)] {
      {
        const std::lock_guard lock(mu_);
        if (cancelled_.erase(message.id.dump()) > 0) {
          Fail(message.id, kRequestCancelled, "cancelled");
          return;
        }
      }
      HandleRequest(message);
    });
  }

  void Initialize(const Message& message) {
    const Json& params = message.params;
    const Json capabilities = params.is_object() && params.contains("capabilities") ? params["capabilities"] : Json();
    encoding_ = NegotiateEncoding(capabilities);
    const Json* dynamic = Find(capabilities, {"workspace", "didChangeWatchedFiles", "dynamicRegistration"});
    watch_dynamically_ = dynamic != nullptr && dynamic->is_boolean() && dynamic->get<bool>();
    const Json* changes = Find(capabilities, {"workspace", "workspaceEdit", "documentChanges"});
    document_changes_ = changes != nullptr && changes->is_boolean() && changes->get<bool>();
    Settings settings;
    std::vector<std::string> problems;
    if (const Json* options = Find(params, {"initializationOptions"})) {
      // Clients send the settings bare or under a `torchlint` key.
      const Json* nested = Find(*options, {"torchlint"});
      std::string docs_base = DocsBase();
      ReadSettings(nested != nullptr ? *nested : *options, settings, docs_base, problems);
      SetDocsBase(std::move(docs_base));
    }
    workspace_.SetSettings(settings);
    initialized_ = true;
    Json sync = {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}};
    Json result = {
        {"capabilities",
         {{"positionEncoding", EncodingName(encoding_)},
          {"textDocumentSync", sync},
          {"codeActionProvider",
           {{"codeActionKinds", {"quickfix", "source.fixAll", kFixAllKind, "refactor.rewrite"}},
            {"resolveProvider", false}}},
          {"hoverProvider", true},
          {"diagnosticProvider",
           {{"identifier", "torchlint"}, {"interFileDependencies", true}, {"workspaceDiagnostics", false}}}}},
        {"serverInfo", {{"name", "torchlint"}, {"version", kVersion}}}};
    Reply(message.id, result);
    for (const std::string& problem : problems) Log(kLogError, "torchlint: " + problem);
    if (!settings.trace.empty()) StartTraceLoad(settings.trace);
  }

  void Notification(const Message& message) {
    const Json& params = message.params;
    const std::string& method = message.method;
    if (method == "initialized") {
      if (watch_dynamically_) {
        Json watchers = Json::array({Json{{"globPattern", "**/pyproject.toml"}},
                                     Json{{"globPattern", "**/torchlint.toml"}}, Json{{"globPattern", "**/*.json"}},
                                     Json{{"globPattern", "**/*.json.gz"}}, Json{{"globPattern", "**/*.py"}}});
        Json registration = {{"id", "torchlint-watch"},
                             {"method", "workspace/didChangeWatchedFiles"},
                             {"registerOptions", {{"watchers", watchers}}}};
        Send(RequestText("torchlint-register-1", "client/registerCapability",
                         Json{{"registrations", Json::array({registration})}}));
      }
      return;
    }
    if (method == "textDocument/didOpen") {
      const std::string uri = StringAt(params, {"textDocument", "uri"});
      const Json* text = Find(params, {"textDocument", "text"});
      const Json* version = Find(params, {"textDocument", "version"});
      auto path = PathFromUri(uri);
      if (!path || text == nullptr || !text->is_string()) {
        Log(kLogWarning, fmt::format("torchlint: didOpen of `{}` ignored: not a file URI with a text", uri));
        return;
      }
      {
        const std::lock_guard lock(mu_);
        uris_[*path] = uri;
      }
      workspace_.Open(*path, text->get<std::string>(),
                      version != nullptr && version->is_number_integer() ? version->get<int64_t>() : 0);
      if (!trace_checked_for_.contains(*path)) {
        trace_checked_for_.insert(*path);
        if (workspace_.CurrentSettings().trace.empty() && !workspace_.HasTrace()) {
          if (auto found = Workspace::FindTrace(*path)) StartTraceLoad(*found);
        }
      }
      Schedule(*path);
      return;
    }
    if (method == "textDocument/didChange") {
      auto path = PathFromUri(StringAt(params, {"textDocument", "uri"}));
      const Json* version = Find(params, {"textDocument", "version"});
      const Json* changes = Find(params, {"contentChanges"});
      if (!path || !workspace_.IsOpen(*path) || changes == nullptr || !changes->is_array()) return;
      const int64_t v = version != nullptr && version->is_number_integer() ? version->get<int64_t>() : 0;
      for (const Json& change : *changes) {
        const Json* text = Find(change, {"text"});
        if (text == nullptr || !text->is_string()) continue;
        std::optional<TextRange> bytes;
        if (const Json* range = Find(change, {"range"})) {
          auto lsp_range = RangeFrom(*range);
          auto snapshot = workspace_.Get(*path);
          if (!lsp_range || !snapshot) continue;
          bytes = ByteRange(snapshot->source->lines(), *lsp_range, encoding_);
        }
        if (!workspace_.Change(*path, v, bytes, text->get<std::string>())) {
          Log(kLogWarning, fmt::format("torchlint: an edit of {} outside the document was ignored", *path));
        }
      }
      Schedule(*path);
      return;
    }
    if (method == "textDocument/didClose") {
      const std::string uri = StringAt(params, {"textDocument", "uri"});
      auto path = PathFromUri(uri);
      if (!path) return;
      workspace_.Close(*path);
      {
        const std::lock_guard lock(mu_);
        published_.erase(*path);
        sent_.erase(*path);
        pending_.erase(*path);
        to_summarize_.erase(*path);
      }
      Notify("textDocument/publishDiagnostics", Json{{"uri", uri}, {"diagnostics", Json::array()}});
      return;
    }
    if (method == "textDocument/didSave") {
      if (auto path = PathFromUri(StringAt(params, {"textDocument", "uri"}))) {
        workspace_.ProjectChanged();  // what the other documents import from disk is this file now
        ScheduleAll();
      }
      return;
    }
    if (method == "workspace/didChangeConfiguration") {
      const Json* settings_json = Find(params, {"settings"});
      if (settings_json == nullptr) return;
      const Json* nested = Find(*settings_json, {"torchlint"});
      const Json& given = nested != nullptr ? *nested : *settings_json;
      // The settings are the whole section as it is now (a key left out is unset), except that an
      // empty object, which some clients send when they connect, changes nothing.
      if (!given.is_object() || given.empty()) return;
      const std::string old_trace = workspace_.CurrentSettings().trace;
      Settings settings;
      std::vector<std::string> problems;
      std::string docs_base = DocsBase();
      ReadSettings(given, settings, docs_base, problems);
      SetDocsBase(std::move(docs_base));
      for (const std::string& problem : problems) Log(kLogError, "torchlint: " + problem);
      workspace_.SetSettings(settings);
      if (settings.trace != old_trace) {
        if (settings.trace.empty()) {
          workspace_.DropTrace();
        } else {
          StartTraceLoad(settings.trace);
        }
      }
      ScheduleAll();
      return;
    }
    if (method == "workspace/didChangeWatchedFiles") {
      const Json* changes = Find(params, {"changes"});
      if (changes == nullptr || !changes->is_array()) return;
      bool configs = false;
      bool trace = false;
      const std::string trace_path = workspace_.TracePath();
      for (const Json& change : *changes) {
        auto path = PathFromUri(StringAt(change, {"uri"}));
        if (!path) continue;
        const std::string name = fs::path(*path).filename().string();
        if (name == "pyproject.toml" || name == "torchlint.toml" || name.starts_with("requirements")) configs = true;
        if (!trace_path.empty() && (*path == trace_path || path->starts_with(trace_path + "/"))) trace = true;
      }
      if (configs) workspace_.ReloadConfigs();
      if (trace) StartTraceLoad(trace_path);
      workspace_.ProjectChanged();
      ScheduleAll();  // a module of the project may have changed on disk
      return;
    }
    // Other notifications ($/setTrace, $/progress, ...) need nothing.
  }

  // ---------------------------------------------------------------------------------------------
  // The worker: checks and requests, in order.

  void Enqueue(std::function<void()> task) {
    {
      const std::lock_guard lock(mu_);
      tasks_.push_back(std::move(task));
    }
    cv_.notify_one();
  }

  void Schedule(const std::string& path) {
    {
      const std::lock_guard lock(mu_);
      pending_.insert(path);
    }
    cv_.notify_one();
  }

  void ScheduleAll() {
    for (const std::string& path : workspace_.OpenPaths()) Schedule(path);
  }

  void Work(const std::stop_token& stop) {
    for (;;) {
      std::function<void()> task;
      std::string path;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return stopping_ || stop.stop_requested() || !tasks_.empty() || !pending_.empty(); });
        if (!tasks_.empty()) {
          task = std::move(tasks_.front());
          tasks_.pop_front();
        } else if (stopping_ || stop.stop_requested()) {
          return;  // checks nobody will see
        } else if (!pending_.empty()) {
          path = *pending_.begin();
          pending_.erase(pending_.begin());
        } else {
          return;
        }
      }
      if (task) {
        task();
      } else {
        CheckAndPublish(path);
      }
    }
  }

  // The summaries the worker's checks left to make (and tree-sitter's parse after a splice), one document
  // at a time, off the keystroke's path.
  // When one tells the project something new, the documents are checked again with it (the one it is of
  // too: its check used the summary of an earlier version).
  // The thread runs as background work (linter/core/thread.h): on a machine with few CPUs, a summary made
  // at the same priority shared a CPU with the next keystroke's check, or with the editor reading the
  // diagnostics, and held either up for its time slice (docs/server.md).
  void SummarizeLoop(const std::stop_token& stop) {
    NameThisThread("tl-summarize");
    // Not logged where refused (it is not, for a thread that lowers its own priority): the thread may start
    // before `initialize`, and nothing may be sent before its answer.
    (void)RunThisThreadInBackground();
    for (;;) {
      std::string path;
      {
        std::unique_lock lock(mu_);
        summarize_cv_.wait(lock, [&] { return stopping_ || stop.stop_requested() || !to_summarize_.empty(); });
        if (stopping_ || stop.stop_requested()) return;
        path = *to_summarize_.begin();
        to_summarize_.erase(to_summarize_.begin());
      }
      workspace_.Refresh(path);
      if (workspace_.Summarize(path)) ScheduleAll();
    }
  }

  // Checks the current version of a document. What the check left to summarize is queued for the
  // summaries' thread, which the caller wakes (WakeSummarizer) once it has answered with the diagnostics.
  std::optional<Published> CheckNow(const std::string& path, bool* summary_changed = nullptr) {
    auto snapshot = workspace_.Get(path);
    if (!snapshot) return std::nullopt;
    Published out;
    out.version = snapshot->version;
    out.source = snapshot->source;
    if (snapshot->source->text().size() > kMaxAnalysedBytes) {
      Diagnostic notice;
      notice.code = "io-error";
      notice.name = "io-error";
      notice.severity = Severity::kInfo;
      notice.message = fmt::format("This file is {} MB, over the 10 MB that torchlint analyses; it was not analysed",
                                   snapshot->source->text().size() / 1'000'000);
      out.diagnostics.push_back(std::move(notice));
      return out;
    }
    auto checked = workspace_.Check(path, /*defer_summary=*/true);
    if (!checked) return std::nullopt;
    if (checked->summary_pending || checked->spliced) {
      // The document's own summary, and tree-sitter's tree after a splice, made on the other thread
      // after these diagnostics went out.
      const std::lock_guard lock(mu_);
      to_summarize_.insert(path);
    }
    if (!checked->error.empty()) Log(kLogError, "torchlint: " + checked->error);
    out.version = checked->snapshot.version;
    out.source = checked->snapshot.source;
    out.diagnostics = std::move(checked->diagnostics);
    if (summary_changed != nullptr) *summary_changed = checked->summary_changed;
    return out;
  }

  void WakeSummarizer() {
    bool queued = false;
    {
      const std::lock_guard lock(mu_);
      queued = !to_summarize_.empty();
    }
    if (queued) summarize_cv_.notify_one();
  }

  void CheckAndPublish(const std::string& path) {
    bool summary_changed = false;
    auto published = CheckNow(path, &summary_changed);
    if (published) Publish(path, std::move(*published), summary_changed);
    WakeSummarizer();
  }

  void Publish(const std::string& path, Published published, bool summary_changed) {
    // A newer version arrived while this one was checked: its own check is queued, this one is stale.
    auto current = workspace_.Get(path);
    if (!current || current->version != published.version || current->source != published.source) return;
    Json diagnostics = Json::array();
    for (const Diagnostic& d : published.diagnostics) diagnostics.push_back(DiagnosticJson(published, d));
    // A version checked again (with its own summary, or another file's) is published again only when
    // its findings changed.
    std::string sent = diagnostics.dump();
    const int64_t version = published.version;
    bool again = false;
    {
      const std::lock_guard lock(mu_);
      auto it = sent_.find(path);
      again = it != sent_.end() && it->second.first == version && it->second.second == sent;
      sent_[path] = {version, std::move(sent)};
      published_[path] = std::move(published);
    }
    if (!again) {
      Notify("textDocument/publishDiagnostics",
             Json{{"uri", UriOf(path)}, {"version", version}, {"diagnostics", diagnostics}});
    }
    // What this file tells the others changed: the other open documents are checked again.
    if (summary_changed) {
      for (const std::string& other : workspace_.OpenPaths()) {
        if (other != path) Schedule(other);
      }
    }
  }

  // The last check of the document's current version, checking it now when there is none.
  std::optional<Published> Current(const std::string& path) {
    auto snapshot = workspace_.Get(path);
    if (!snapshot) return std::nullopt;
    {
      const std::lock_guard lock(mu_);
      auto it = published_.find(path);
      if (it != published_.end() && it->second.version == snapshot->version && it->second.source == snapshot->source) {
        return it->second;
      }
    }
    return CheckNow(path);
  }

  void HandleRequest(const Message& message) {
    const std::string uri = StringAt(message.params, {"textDocument", "uri"});
    auto path = PathFromUri(uri);
    if (!path || !workspace_.IsOpen(*path)) {
      if (message.method == "textDocument/diagnostic") {
        Fail(message.id, kInvalidParams, fmt::format("`{}` is not an open document", uri));
      } else {
        Reply(message.id, message.method == "textDocument/hover" ? Json(nullptr) : Json::array());
      }
      return;
    }
    auto current = Current(*path);
    if (!current) {
      Reply(message.id, nullptr);
      return;
    }
    if (message.method == "textDocument/diagnostic") {
      Json items = Json::array();
      for (const Diagnostic& d : current->diagnostics) items.push_back(DiagnosticJson(*current, d));
      Reply(message.id, Json{{"kind", "full"}, {"items", items}});
    } else if (message.method == "textDocument/hover") {
      Reply(message.id, Hover(*current, message.params));
    } else {
      Reply(message.id, CodeActions(uri, *current, message.params));
    }
    WakeSummarizer();  // what a check made for this request left to summarize, now that it is answered
  }

  // ---------------------------------------------------------------------------------------------
  // Diagnostics, hover and code actions.

  // The rules' docs location: set on the reading thread, read on the worker.
  std::string DocsBase() {
    const std::lock_guard lock(mu_);
    return docs_base_;
  }
  void SetDocsBase(std::string base) {
    const std::lock_guard lock(mu_);
    docs_base_ = std::move(base);
  }

  std::string UriOf(const std::string& path) {
    const std::lock_guard lock(mu_);
    auto it = uris_.find(path);
    return it != uris_.end() ? it->second : UriFromPath(path);
  }

  Json DiagnosticJson(const Published& doc, const Diagnostic& d) {
    const LineIndex& lines = doc.source->lines();
    std::string message = d.message;
    int severity = d.severity == Severity::kError ? 1 : d.severity == Severity::kWarning ? 2 : 3;
    if (d.evidence) {
      message += " (" + EvidenceHeadline(*d.evidence) + ")";
      if (d.evidence->verdict == Verdict::kRefuted) severity = 4;  // the trace says it costs nothing here
    }
    Json out = {{"range", RangeJson(lines, d.range, encoding_)},
                {"severity", severity},
                {"code", d.code},
                {"source", "torchlint"},
                {"message", message}};
    if (const std::string docs = DocsBase(); !docs.empty() && d.code.starts_with("TL")) {
      out["codeDescription"] = {{"href", docs + d.code + ".md"}};
    }
    Json related = Json::array();
    std::optional<fs::path> root;  // found once, only for a location in another file
    for (const RelatedLocation& r : d.related) {
      Json location;
      if (r.path.empty()) {
        location = {{"uri", UriOf(std::string(doc.source->path()))}, {"range", RangeJson(lines, r.range, encoding_)}};
      } else {
        if (!root) root = FindProjectRoot(doc.source->path());
        const fs::path other = fs::path(r.path).is_absolute() ? fs::path(r.path) : *root / r.path;
        const LspPosition at = OtherFilePosition(other, r.line, r.column);
        location = {{"uri", UriFromPath(other.lexically_normal().string())}, {"range", ToJson(Range{at, at})}};
      }
      related.push_back({{"location", location}, {"message", r.message}});
    }
    if (!related.empty()) out["relatedInformation"] = related;
    Json data = Json::object();
    if (d.fix) {
      data["fix"] = {{"title", d.fix->title}, {"applicability", ToString(d.fix->applicability)}};
    }
    if (d.evidence) data["verdict"] = ToString(d.evidence->verdict);
    if (!data.empty()) out["data"] = data;
    return out;
  }

  // A 1-based line and code-point column of another file as an LSP position in the negotiated
  // encoding; the file is read for it (related locations are few).
  LspPosition OtherFilePosition(const fs::path& path, uint32_t line, uint32_t column) {
    const LspPosition plain{line > 0 ? line - 1 : 0, column > 0 ? column - 1 : 0};
    if (auto open = workspace_.Get(path.string())) return Convert(open->source->lines(), line, column);
    auto text = ReadFile(path, kMaxAnalysedBytes);
    if (!text.ok()) return plain;
    const LineIndex lines(*text);
    return Convert(lines, line, column);
  }

  LspPosition Convert(const LineIndex& lines, uint32_t line, uint32_t column) const {
    if (line == 0 || line > lines.LineCount()) return {line > 0 ? line - 1 : 0, 0};
    const uint32_t start = lines.LineStart(line - 1);
    const std::string_view text = lines.LineText(line - 1);
    // Walk `column - 1` code points into the line.
    uint32_t offset = 0;
    for (uint32_t cp = 1; cp < column && offset < text.size(); ++cp) {
      ++offset;
      while (offset < text.size() && (static_cast<unsigned char>(text[offset]) & 0xC0) == 0x80) ++offset;
    }
    return lines.ToLsp(start + offset, encoding_);
  }

  Json Hover(const Published& doc, const Json& params) {
    auto position = PositionFrom(Find(params, {"position"}) != nullptr ? params["position"] : Json());
    if (!position) return nullptr;
    const uint32_t offset = doc.source->lines().FromLsp(*position, encoding_);
    const uint32_t line = doc.source->lines().Locate(offset).line;
    std::string markdown;
    std::optional<TextRange> range;
    for (const Diagnostic& d : doc.diagnostics) {
      const bool inside = d.range.begin <= offset && offset <= d.range.end;
      if (!inside && doc.source->lines().Locate(d.range.begin).line != line) continue;
      if (!markdown.empty()) markdown += "\n\n---\n\n";
      markdown += fmt::format("**{}** `{}`: {}\n", d.code, d.name, d.message);
      if (d.evidence) {
        markdown += fmt::format("\n**Trace:** {}", EvidenceHeadline(*d.evidence));
        if (!d.evidence->summary.empty()) markdown += ". " + d.evidence->summary;
        markdown += "\n";
      }
      if (const Rule* rule = FindRule(d.code)) markdown += "\n" + std::string(rule->Meta().docs);
      if (!range) range = d.range;
    }
    if (markdown.empty()) return nullptr;
    return Json{{"contents", {{"kind", "markdown"}, {"value", markdown}}},
                {"range", RangeJson(doc.source->lines(), *range, encoding_)}};
  }

  Json EditsJson(const LineIndex& lines, const std::vector<Edit>& edits) const {
    Json out = Json::array();
    for (const Edit& e : edits) {
      out.push_back({{"range", RangeJson(lines, e.range, encoding_)}, {"newText", e.replacement}});
    }
    return out;
  }

  Json WorkspaceEdit(const std::string& uri, const Published& doc, const std::vector<Edit>& edits) const {
    Json text_edits = EditsJson(doc.source->lines(), edits);
    if (document_changes_) {
      return Json{{"documentChanges", Json::array({Json{{"textDocument", {{"uri", uri}, {"version", doc.version}}},
                                                        {"edits", text_edits}}})}};
    }
    return Json{{"changes", {{uri, text_edits}}}};
  }

  static bool Wanted(const Json& only, std::string_view kind) {
    if (!only.is_array() || only.empty()) return true;
    for (const Json& k : only) {
      if (!k.is_string()) continue;
      const std::string prefix = k.get<std::string>();
      if (kind == prefix || (kind.starts_with(prefix) && kind.size() > prefix.size() && kind[prefix.size()] == '.')) {
        return true;
      }
    }
    return false;
  }

  // `  # noqa: TL101` at the end of the line, or the code added to a noqa the line has.
  static Edit NoqaEdit(const SourceFile& file, uint32_t line0, std::string_view code) {
    const std::string_view text = file.lines().LineText(line0);
    const uint32_t end = file.lines().LineStart(line0) + static_cast<uint32_t>(text.size());
    const size_t noqa = text.find("# noqa:");
    if (noqa != std::string_view::npos) {
      size_t codes_end = noqa + 7;
      while (codes_end < text.size() && (std::isalnum(static_cast<unsigned char>(text[codes_end])) ||
                                         text[codes_end] == ',' || text[codes_end] == ' ')) {
        ++codes_end;
      }
      while (codes_end > noqa + 7 && text[codes_end - 1] == ' ') --codes_end;
      const uint32_t at = file.lines().LineStart(line0) + static_cast<uint32_t>(codes_end);
      return Edit{{at, at}, fmt::format(", {}", code)};
    }
    return Edit{{end, end}, fmt::format("  # noqa: {}", code)};
  }

  Json CodeActions(const std::string& uri, const Published& doc, const Json& params) {
    Json actions = Json::array();
    auto range = RangeFrom(Find(params, {"range"}) != nullptr ? params["range"] : Json());
    if (!range) return actions;
    const Json only = Find(params, {"context", "only"}) != nullptr ? params["context"]["only"] : Json();
    const SourceFile& file = *doc.source;
    const TextRange bytes = ByteRange(file.lines(), *range, encoding_);
    const uint32_t first_line = file.lines().Locate(bytes.begin).line;
    const uint32_t last_line = file.lines().Locate(bytes.end).line;
    const Settings settings = workspace_.CurrentSettings();
    const Applicability max_level = settings.unsafe_fixes ? Applicability::kUnsafe : Applicability::kSafe;
    auto allowed = [&](const Fix& fix) {
      return fix.applicability == Applicability::kSafe ||
             (fix.applicability == Applicability::kUnsafe && settings.unsafe_fixes);
    };
    std::set<std::pair<uint32_t, std::string>> noqa_offered;
    for (const Diagnostic& d : doc.diagnostics) {
      const uint32_t line = file.lines().Locate(d.range.begin).line;
      const bool touches = (d.range.begin <= bytes.end && bytes.begin <= d.range.end) ||
                           (line >= first_line && line <= last_line);
      if (!touches || !d.code.starts_with("TL")) continue;
      const Json diagnostic = DiagnosticJson(doc, d);
      if (d.fix && allowed(*d.fix) && Wanted(only, "quickfix")) {
        actions.push_back({{"title", d.fix->title},
                           {"kind", "quickfix"},
                           {"diagnostics", Json::array({diagnostic})},
                           {"isPreferred", d.fix->applicability == Applicability::kSafe},
                           {"edit", WorkspaceEdit(uri, doc, d.fix->edits)}});
      }
      if (Wanted(only, "quickfix") && noqa_offered.insert({line, d.code}).second) {
        actions.push_back({{"title", fmt::format("Add `# noqa: {}`", d.code)},
                           {"kind", "quickfix"},
                           {"diagnostics", Json::array({diagnostic})},
                           {"edit", WorkspaceEdit(uri, doc, {NoqaEdit(file, line - 1, d.code)})}});
      }
    }
    if (Wanted(only, kFixAllKind)) {
      std::vector<const Fix*> fixes;
      for (const Diagnostic& d : doc.diagnostics) {
        if (d.fix && allowed(*d.fix)) fixes.push_back(&*d.fix);
      }
      if (!fixes.empty()) {
        const FixOutcome fixed = ApplyFixes(file.text(), fixes, max_level);
        if (fixed.applied > 0) {
          actions.push_back({{"title", "Fix all torchlint fixes"},
                             {"kind", kFixAllKind},
                             {"edit", WorkspaceEdit(uri, doc, LineEdits(file.text(), fixed.text))}});
        }
      }
    }
    if (Wanted(only, "refactor.rewrite")) {
      // The profiler, on the step loop: offered when the range is on the loop's line or below it.
      instrument::Options options;
      auto instrumented = instrument::Instrument(file, options);
      if (instrumented.ok() && instrumented->changed && first_line >= instrumented->loop_line) {
        actions.push_back({{"title", "Insert profiler (template C)"},
                           {"kind", "refactor.rewrite"},
                           {"edit", WorkspaceEdit(uri, doc, instrumented->edits)}});
      }
      auto removed = instrument::Remove(file);
      if (removed.ok() && removed->changed) {
        actions.push_back({{"title", "Remove profiler"},
                           {"kind", "refactor.rewrite"},
                           {"edit", WorkspaceEdit(uri, doc, removed->edits)}});
      }
    }
    return actions;
  }

  // ---------------------------------------------------------------------------------------------
  // The trace, loaded off the reading thread.

  void StartTraceLoad(const std::string& path) {
    if (trace_loader_.joinable()) trace_loader_.join();
    trace_loader_ = std::jthread([this, path] {
      NameThisThread("tl-trace");
      (void)RunThisThreadInBackground();
      Log(kLogInfo, fmt::format("torchlint: reading the profiler trace {}", path));
      const Status status = workspace_.LoadTrace(path);
      if (!status.ok()) {
        // Said first: a check that runs once the trace is dropped publishes findings without verdicts,
        // and the client should have the reason before it sees them.
        Log(kLogError, fmt::format("torchlint: the trace {} cannot be used: {}", path, status.error().message));
        workspace_.DropTrace();
      } else {
        Log(kLogInfo, fmt::format("torchlint: findings are now checked against the trace {}", path));
      }
      ScheduleAll();
    });
  }

  FrameReader& reader_;
  FrameWriter& writer_;
  Workspace workspace_;
  std::string docs_base_;
  PositionEncoding encoding_ = PositionEncoding::kUtf16;
  bool watch_dynamically_ = false;
  bool document_changes_ = false;
  bool initialized_ = false;
  bool shutdown_ = false;
  std::set<std::string> trace_checked_for_;  // documents whose folder was searched for a trace

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::deque<std::function<void()>> tasks_;
  std::set<std::string> pending_;  // documents to check
  std::condition_variable summarize_cv_;
  // Documents whose last check used an earlier version's summary, or spliced (SummarizeLoop).
  std::set<std::string> to_summarize_;
  std::set<std::string> cancelled_;
  std::map<std::string, Published> published_;
  std::map<std::string, std::pair<int64_t, std::string>> sent_;  // the last diagnostics sent, as sent
  std::map<std::string, std::string> uris_;                      // path -> the URI the client named it by
  std::jthread worker_;
  std::jthread summarizer_;
  std::jthread trace_loader_;
};

}  // namespace

int Serve(FrameReader& reader, FrameWriter& writer, const ServerOptions& options) {
  Server server(reader, writer, options);
  return server.Run();
}

}  // namespace tl::lsp
