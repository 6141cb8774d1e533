// The language server's figures, printed side by side from one run (nothing here asserts):
//  1. a keystroke (`didChange` of one character) to its `publishDiagnostics`, through the real
//     `torchlint server` over pipes, on a generated 5,000-line training file: p50, p90, p99, with the
//     keystrokes back to back, one every 50 ms, and one every 50 ms again while no CPU is left idle
//     (threads that spin at SCHED_IDLE, which the server preempts: the cost of waking an idle machine
//     told apart from the server's). Three kinds of keystroke: a space at the start of a
//     line, a digit typed into a layer's width (`dim=64` to `dim=164`), and a letter typed on the
//     empty line after a block (a new top-level statement), each from the text as it was opened;
//  2. in-process on the same file: a full parse, an incremental parse after one edit, and a whole
//     check (model, rules, project index) after a full and after an incremental parse; then the
//     keystrokes of 1. without the pipes: tree-sitter's incremental parse alone, torchlint's parse
//     (which parses the top-level statements around an edit alone where it can: tree-sitter's
//     incremental parse reparses the rest of the file when a space at the start of a line follows
//     the end of a block), and the whole check, p50 and p99;
//  3. opening one file of a generated 500-file project (it imports 100 of them, which import others):
//     from `didOpen` to the first diagnostics, cold and with the summary cache warm;
//  4. memory: the server's RSS before and after opening 20 copies of the 5,000-line file, and after
//     opening the 500-file project's script.
//
//   bench_server [--keystrokes N] [--torchlint PATH] [--in-process [ROUNDS]]
// --in-process prints only the in-process figures (2.), from ROUNDS rounds (20 by default) of a full
// and an incremental check and 15 x ROUNDS keystrokes: the part to run under callgrind, where
// `--toggle-collect='tl::CheckParsed*'` counts the instructions of 17 x ROUNDS checks.
#include <unistd.h>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "linter/core/process.h"
#include "linter/core/source_file.h"
#include "linter/core/thread.h"
#include "linter/engine/check.h"
#include "linter/ts/ts.h"
#include "lsp/transport.h"
#include "lsp/workspace.h"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// A 5,000-line training script: model code, helpers and one CUDA step loop at the end.
std::string BigScript(int lines) {
  std::string out = "import torch\nfrom torch.utils.data import DataLoader\n\n";
  int n = 3;
  for (int f = 0; n < lines - 20; ++f) {
    out += fmt::format("class Block{}(torch.nn.Module):\n    def __init__(self, dim={}):\n", f, 64 + f % 7);
    out += "        super().__init__()\n        self.fc = torch.nn.Linear(dim, dim)\n";
    out += "        self.norm = torch.nn.LayerNorm(dim)\n\n    def forward(self, x):\n";
    out += "        y = self.fc(x)\n        y = torch.relu(y) + x\n        return self.norm(y)\n\n\n";
    n += 12;
  }
  out += "model = torch.nn.Sequential(Block0(), Block1()).cuda()\n";
  out += "optimizer = torch.optim.AdamW(model.parameters())\n";
  out += "loader = DataLoader(dataset, batch_size=32)\n";
  out += "for step, (x, y) in enumerate(loader):\n    optimizer.zero_grad()\n";
  out += "    loss = model(x.cuda()).sum()\n    loss.backward()\n    optimizer.step()\n";
  out += "    print(loss.item())\n";
  return out;
}

// The server as a child process, spoken to with frames over pipes.
class Child {
 public:
  explicit Child(const std::string& exe)
      : process_(Start(exe)), reader_(tl::lsp::FrameReader::ForFd(process_.out())), writer_(process_.in()) {}
  static tl::ChildProcess Start(const std::string& exe) {
    auto child = tl::ChildProcess::Spawn({exe, "server"});
    if (!child.ok()) {
      fmt::print(stderr, "error: {}\n", child.error().message);
      std::exit(2);
    }
    return std::move(*child);
  }
  ~Child() { process_.Wait(); }
  void Send(const Json& message) { writer_.Write(message.dump()); }
  // The next message that satisfies `want`; others are dropped.
  template <typename Want>
  Json Until(Want&& want) {
    for (;;) {
      auto next = reader_.Next();
      if (auto* frame = std::get_if<tl::lsp::Frame>(&next)) {
        Json m = Json::parse(frame->body, nullptr, false);
        if (want(m)) return m;
      } else if (std::holds_alternative<tl::lsp::EndOfInput>(next)) {
        fmt::print(stderr, "error: the server ended\n");
        std::exit(1);
      }
    }
  }
  double RssMb() const {
    std::ifstream status(fmt::format("/proc/{}/status", process_.pid()));
    std::string line;
    while (std::getline(status, line)) {
      if (line.starts_with("VmRSS:")) return std::stod(line.substr(6)) / 1024.0;
    }
    return 0;
  }

 private:
  tl::ChildProcess process_;
  tl::lsp::FrameReader reader_;
  tl::lsp::FrameWriter writer_;
};

Json Initialize() {
  return {{"jsonrpc", "2.0"},
          {"id", 0},
          {"method", "initialize"},
          {"params", {{"capabilities", {{"general", {{"positionEncodings", {"utf-8"}}}}}}}}};
}

Json DidOpen(const std::string& path, const std::string& text) {
  return {{"jsonrpc", "2.0"},
          {"method", "textDocument/didOpen"},
          {"params",
           {{"textDocument", {{"uri", "file://" + path}, {"languageId", "python"}, {"version", 1}, {"text", text}}}}}};
}

bool PublishedFor(const Json& m, const std::string& path, int64_t version) {
  return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == "file://" + path &&
         (version < 0 || m["params"].value("version", -1) == version);
}

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(std::lround(p * static_cast<double>(v.size() - 1))))];
}

// p50, p90 and p99 of keystrokes typed back to back, of those typed one every 50 ms, and of those typed one
// every 50 ms with no CPU idle (AwakeCpus), side by side.
void PrintKeystrokes(const std::vector<double>& back_to_back, const std::vector<double>& spaced,
                     const std::vector<double>& awake) {
  fmt::print("  p50                                 {:8.2f}        {:8.2f}        {:8.2f}   (target <= 5)\n",
             Percentile(back_to_back, 0.5), Percentile(spaced, 0.5), Percentile(awake, 0.5));
  fmt::print("  p90                                 {:8.2f}        {:8.2f}        {:8.2f}\n",
             Percentile(back_to_back, 0.9), Percentile(spaced, 0.9), Percentile(awake, 0.9));
  fmt::print("  p99                                 {:8.2f}        {:8.2f}        {:8.2f}   (target <= 20)\n",
             Percentile(back_to_back, 0.99), Percentile(spaced, 0.99), Percentile(awake, 0.99));
}

// While it lives, one thread per hardware thread spins at SCHED_IDLE, the policy the scheduler runs only
// when nothing else wants the CPU: the server preempts them at once, and no CPU halts between
// keystrokes. Keystrokes spaced out with and without them tell what waking an idle machine costs (a
// virtual CPU that halted, its core's clock and caches) from what the server does.
class AwakeCpus {
 public:
  AwakeCpus() {
    const unsigned count = std::max(1u, std::thread::hardware_concurrency());
    for (unsigned i = 0; i < count; ++i) {
      threads_.emplace_back([this] {
        if (!tl::RunThisThreadAtIdlePolicy()) {
          failed_ = true;
          return;
        }
        while (!stop_.load(std::memory_order_relaxed)) {
        }
      });
    }
  }
  // Whether each thread spins at SCHED_IDLE (none spins at a priority that competes with the server).
  bool ok() const { return !failed_; }
  AwakeCpus(const AwakeCpus&) = delete;
  AwakeCpus& operator=(const AwakeCpus&) = delete;
  ~AwakeCpus() {
    stop_ = true;
    for (std::thread& t : threads_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
  std::vector<std::thread> threads_;
};

// Where keystroke k types (a space at the start of the line): into the step loop's body and into model
// code, alternately.
uint32_t KeystrokeLine(int k, size_t lines) {
  return k % 2 == 0 ? static_cast<uint32_t>(lines - 2) : static_cast<uint32_t>(100 + (k * 37) % 4000);
}

uint32_t KeystrokeOffset(const std::string& text, uint32_t line) {
  size_t at = 0;
  for (uint32_t i = 0; i < line && at != std::string::npos; ++i) at = text.find('\n', at) + 1;
  return static_cast<uint32_t>(at);
}

// Places (line, column) of `text`: where `at(line, previous line)` gives a column.
template <typename At>
std::vector<std::pair<uint32_t, uint32_t>> PlacesWhere(std::string_view text, At&& at) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  std::string_view previous;
  uint32_t line = 0;
  for (size_t start = 0; start < text.size(); ++line) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view current = text.substr(start, end - start);
    if (const std::optional<uint32_t> column = at(current, previous)) out.emplace_back(line, *column);
    previous = current;
    start = end + 1;
  }
  return out;
}

// The places right after each `dim=` (a layer width's default) of the script. Typing a digit there
// keeps the text valid and changes what TL401 reports, the other kind of keystroke the figures time
// (after a space at the start of a line, tree-sitter may reparse the rest of the file).
std::vector<std::pair<uint32_t, uint32_t>> WidthDefaults(const std::string& text) {
  return PlacesWhere(text, [](std::string_view line, std::string_view) -> std::optional<uint32_t> {
    const size_t at = line.find("dim=");
    if (at == std::string_view::npos) return std::nullopt;
    return static_cast<uint32_t>(at + 4);
  });
}

// The empty lines right after a block ends (after each `return` of a `forward`): typing there starts a
// new top-level statement, the keystroke after which tree-sitter's incremental parse reparses the rest
// of the file (see docs/semantic-model.md, "The tree it reads").
std::vector<std::pair<uint32_t, uint32_t>> LinesAfterBlocks(const std::string& text) {
  return PlacesWhere(text, [](std::string_view line, std::string_view previous) -> std::optional<uint32_t> {
    if (!line.empty() || previous.find("return self.norm(y)") == std::string_view::npos) return std::nullopt;
    return 0;
  });
}

// A project of `files` modules: mod_i imports mod_{i+1} and defines a helper; train.py imports the
// first `imported` of them.
void MakeProject(const fs::path& root, int files, int imported) {
  fs::create_directories(root / "pkg");
  std::ofstream(root / "pyproject.toml") << "[project]\nname = \"bench\"\n";
  std::ofstream(root / "pkg" / "__init__.py") << "";
  for (int i = 0; i < files; ++i) {
    std::ofstream out(root / "pkg" / fmt::format("mod{}.py", i));
    out << "import torch\n";
    if (i + 1 < files) out << fmt::format("from pkg import mod{}\n", i + 1);
    out << fmt::format("\n\ndef helper{}(x):\n    return x * {}\n\n\nclass Layer{}(torch.nn.Module):\n", i, i, i);
    out << "    def forward(self, x):\n        return x\n";
  }
  std::ofstream train(root / "train.py");
  train << "import torch\n";
  for (int i = 0; i < imported; ++i) train << fmt::format("from pkg.mod{} import helper{}\n", i, i);
  train << "model = torch.nn.Linear(8, 8).cuda()\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n";
  train << "for x in loader:\n    loss = model(x.cuda()).sum()\n    loss.backward()\n    optimizer.step()\n";
  train << "    helper0(loss)\n";
}

int Run(int argc, char** argv) {
  int keystrokes = 300;
  std::string exe = TL_TORCHLINT_EXE;
  bool in_process_only = false;
  int rounds = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--keystrokes" && i + 1 < argc) {
      keystrokes = std::max(10, std::atoi(argv[++i]));
    } else if (arg == "--torchlint" && i + 1 < argc) {
      exe = argv[++i];
    } else if (arg == "--in-process") {
      in_process_only = true;
      if (i + 1 < argc && argv[i + 1][0] != '-') rounds = std::max(1, std::atoi(argv[++i]));
    } else {
      fmt::print(stderr, "usage: bench_server [--keystrokes N] [--torchlint PATH] [--in-process [ROUNDS]]\n");
      return 2;
    }
  }
  ::signal(SIGPIPE, SIG_IGN);
  const fs::path work = fs::temp_directory_path() / fmt::format("torchlint-bench-server-{}", ::getpid());
  fs::create_directories(work);
  const std::string script = BigScript(5000);
  const std::string big = (work / "big.py").string();
  std::ofstream(big) << script;
  const auto lines = static_cast<size_t>(std::count(script.begin(), script.end(), '\n'));
  fmt::print("file: {} lines, {:.0f} KB; {} keystrokes\n", lines, static_cast<double>(script.size()) / 1024.0,
             keystrokes);

  // 2. In process.
  {
    tl::ts::Parser parser;
    std::vector<double> full;
    std::vector<double> incremental;
    for (int i = 0; i < rounds; ++i) {
      auto t0 = Clock::now();
      auto tree = parser.Parse(script);
      full.push_back(Ms(Clock::now() - t0));
      std::string edited = script;
      const auto at = static_cast<uint32_t>(script.size() / 2 + static_cast<size_t>(i));
      edited.insert(at, "x");
      TSInputEdit edit{};
      edit.start_byte = at;
      edit.old_end_byte = at;
      edit.new_end_byte = at + 1;
      const tl::LineIndex index(script);
      const auto lc = index.Locate(at);
      edit.start_point = {lc.line - 1, at - index.LineStart(lc.line - 1)};
      edit.old_end_point = edit.start_point;
      edit.new_end_point = {edit.start_point.row, edit.start_point.column + 1};
      tree->Edit(edit);
      t0 = Clock::now();
      auto again = parser.Parse(edited, *tree);
      incremental.push_back(Ms(Clock::now() - t0));
    }
    tl::lsp::Workspace ws;
    ws.Open(big, script, 1);
    std::vector<double> check_full;
    std::vector<double> check_incremental;
    for (int i = 0; i < rounds; ++i) {
      ws.Change(big, 2 * i + 2, std::nullopt, script);  // a whole new text: a full parse
      auto t0 = Clock::now();
      (void)ws.Check(big);
      check_full.push_back(Ms(Clock::now() - t0));
      const auto at = static_cast<uint32_t>(script.size() / 2);
      ws.Change(big, 2 * i + 3, tl::TextRange{at, at}, " ");
      t0 = Clock::now();
      (void)ws.Check(big);
      check_incremental.push_back(Ms(Clock::now() - t0));
    }
    fmt::print("\nin process, median of {:<3}                ms\n", rounds);
    fmt::print("  parse, full                         {:8.2f}\n", Percentile(full, 0.5));
    fmt::print("  parse, incremental (one edit)       {:8.2f}\n", Percentile(incremental, 0.5));
    fmt::print("  check after a full parse            {:8.2f}\n", Percentile(check_full, 0.5));
    fmt::print("  check after an incremental parse    {:8.2f}\n", Percentile(check_incremental, 0.5));

    // The keystrokes of 1. without the server: the incremental parse alone, and the whole check.
    ws.Change(big, 1000, std::nullopt, script);
    (void)ws.Check(big);
    std::string text = script;
    tl::ts::Parser own_parser;
    std::optional<tl::ts::Tree> own_tree = own_parser.Parse(text).value();
    // Tree-sitter's own incremental parse beside it, on a tree of its own.
    std::unique_ptr<TSParser, decltype(&ts_parser_delete)> raw_parser(ts_parser_new(), &ts_parser_delete);
    ts_parser_set_language(raw_parser.get(), tl::ts::PythonLanguage());
    TSTree* raw_tree = ts_parser_parse_string(raw_parser.get(), nullptr, text.data(),
                                              static_cast<uint32_t>(text.size()));
    std::vector<double> key_parse;
    std::vector<double> key_raw_parse;
    size_t spliced = 0;
    std::vector<double> key_check;
    std::vector<double> key_deferred;
    std::vector<double> key_summary;
    std::vector<double> key_refresh;
    for (int k = 0; k < rounds * 30; ++k) {
      // The first half as a check that makes the file's summary first; the second as the server checks
      // (the summary of the version before, the current one made after the diagnostics, untimed).
      const bool deferred = k >= rounds * 15;
      const uint32_t offset = KeystrokeOffset(text, KeystrokeLine(k, lines));
      TSInputEdit edit{};
      edit.start_byte = offset;
      edit.old_end_byte = offset;
      edit.new_end_byte = offset + 1;
      edit.start_point = {KeystrokeLine(k, lines), 0};
      edit.old_end_point = edit.start_point;
      edit.new_end_point = {edit.start_point.row, 1};
      own_tree->Edit(edit);
      ts_tree_edit(raw_tree, &edit);
      text.insert(offset, " ");
      auto t0 = Clock::now();
      own_tree = own_parser.Parse(text, *own_tree).value();
      key_parse.push_back(Ms(Clock::now() - t0));
      (void)own_tree->Root();  // as the check makes it: the next parse splices into it
      if (!own_tree->Exact()) {
        ++spliced;
        // As the server does after publishing (Workspace::Refresh): tree-sitter's parse, untimed.
        own_tree = own_parser.Reparse(text, *own_tree).value();
      }
      t0 = Clock::now();
      TSTree* raw_next = ts_parser_parse_string(raw_parser.get(), raw_tree, text.data(),
                                                static_cast<uint32_t>(text.size()));
      key_raw_parse.push_back(Ms(Clock::now() - t0));
      ts_tree_delete(raw_tree);
      raw_tree = raw_next;
      ws.Change(big, 1001 + k, tl::TextRange{offset, offset}, " ");
      t0 = Clock::now();
      (void)ws.Check(big, deferred);
      (deferred ? key_deferred : key_check).push_back(Ms(Clock::now() - t0));
      if (deferred) {
        // What the server does on its other thread after publishing: tree-sitter's parse after a
        // splice, then the summary.
        t0 = Clock::now();
        (void)ws.Refresh(big);
        key_refresh.push_back(Ms(Clock::now() - t0));
        t0 = Clock::now();
        (void)ws.Summarize(big);
        key_summary.push_back(Ms(Clock::now() - t0));
      }
    }
    fmt::print("\nin process, the keystrokes of the server figures ({} each)   p50      p99\n", key_check.size());
    ts_tree_delete(raw_tree);
    fmt::print("  tree-sitter's incremental parse     {:8.2f} {:8.2f}\n", Percentile(key_raw_parse, 0.5),
               Percentile(key_raw_parse, 0.99));
    fmt::print("  the parse (statements spliced in)   {:8.2f} {:8.2f}   ({} of {} spliced)\n",
               Percentile(key_parse, 0.5), Percentile(key_parse, 0.99), spliced, key_parse.size());
    fmt::print("  check (parse, model, rules, index)  {:8.2f} {:8.2f}\n", Percentile(key_check, 0.5),
               Percentile(key_check, 0.99));
    fmt::print("  the same, own summary made after    {:8.2f} {:8.2f}\n", Percentile(key_deferred, 0.5),
               Percentile(key_deferred, 0.99));
    fmt::print("  tree-sitter's parse after a splice  {:8.2f} {:8.2f}   (off the keystroke)\n",
               Percentile(key_refresh, 0.5), Percentile(key_refresh, 0.99));
    fmt::print("  that summary, off the keystroke     {:8.2f} {:8.2f}\n", Percentile(key_summary, 0.5),
               Percentile(key_summary, 0.99));

    // The same with 20 copies of the file open beside it (in the same folder: one project).
    for (int c = 0; c < 20; ++c) {
      const std::string copy = (work / fmt::format("copy{}.py", c)).string();
      ws.Open(copy, script, 1);
      (void)ws.Check(copy, true);
    }
    std::vector<double> crowded_sync;
    std::vector<double> crowded_deferred;
    for (int k = 0; k < rounds * 10; ++k) {
      const bool deferred = k >= rounds * 5;
      const uint32_t offset = KeystrokeOffset(text, KeystrokeLine(k, lines));
      text.insert(offset, " ");
      ws.Change(big, 5001 + k, tl::TextRange{offset, offset}, " ");
      const auto t0 = Clock::now();
      (void)ws.Check(big, deferred);
      (deferred ? crowded_deferred : crowded_sync).push_back(Ms(Clock::now() - t0));
      if (deferred) (void)ws.Summarize(big);
    }
    const auto counts = ws.IndexStats();
    fmt::print("\nin process, 20 other such documents open ({} keystrokes each)   p50      p99\n", crowded_sync.size());
    fmt::print("  check, summary made first           {:8.2f} {:8.2f}\n", Percentile(crowded_sync, 0.5),
               Percentile(crowded_sync, 0.99));
    fmt::print("  check, summary made after           {:8.2f} {:8.2f}   (project index built {} times, reused {})\n",
               Percentile(crowded_deferred, 0.5), Percentile(crowded_deferred, 0.99), counts.built, counts.reused);
  }
  if (in_process_only) {
    std::error_code ec;
    fs::remove_all(work, ec);
    return 0;
  }

  // 1 and 4. Through the server.
  {
    Child server(exe);
    server.Send(Initialize());
    server.Until([](const Json& m) { return m.contains("id") && m["id"] == 0; });
    server.Send({{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", Json::object()}});
    const double rss_start = server.RssMb();
    server.Send(DidOpen(big, script));
    server.Until([&](const Json& m) { return PublishedFor(m, big, 1); });
    // Back to back (the next keystroke as soon as the last one's diagnostics arrive: the server is never
    // idle), then at a typing speed no one reaches (one every 50 ms: what the server does between
    // keystrokes, such as the document's summary for the project, is done by the next one).
    int64_t version = 1;
    const std::vector<std::pair<uint32_t, uint32_t>> widths = WidthDefaults(script);
    const std::vector<std::pair<uint32_t, uint32_t>> after_blocks = LinesAfterBlocks(script);
    // A space at the start of a line; a digit typed after a `dim=`; a letter on the empty line after a
    // block (a new top-level statement, `x`, then `xx`...).
    enum class Kind { kSpace, kDigit, kNewStatement };
    const auto type = [&](int count, int gap_ms, Kind kind = Kind::kSpace) {
      std::vector<double> latencies;
      const bool digits = kind == Kind::kDigit;
      const std::vector<std::pair<uint32_t, uint32_t>>& places = digits ? widths : after_blocks;
      for (int k = 0; k < count; ++k) {
        ++version;
        uint32_t line = KeystrokeLine(k, lines);
        uint32_t column = 0;
        if (kind != Kind::kSpace && !places.empty()) {
          std::tie(line, column) = places[static_cast<size_t>(k * 37) % places.size()];
        }
        const Json change = {{"jsonrpc", "2.0"},
                             {"method", "textDocument/didChange"},
                             {"params",
                              {{"textDocument", {{"uri", "file://" + big}, {"version", version}}},
                               {"contentChanges",
                                {{{"range",
                                   {{"start", {{"line", line}, {"character", column}}},
                                    {"end", {{"line", line}, {"character", column}}}}},
                                  {"text", kind == Kind::kSpace ? " "
                                           : digits             ? "1"
                                                                : "x"}}}}}}};
        if (gap_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(gap_ms));
        const auto t0 = Clock::now();
        server.Send(change);
        server.Until([&](const Json& m) { return PublishedFor(m, big, version); });
        latencies.push_back(Ms(Clock::now() - t0));
      }
      return latencies;
    };
    // Each kind of keystroke from the script as it was opened (closed and opened again, so the columns
    // are the script's): back to back, one every 50 ms, and one every 50 ms with no CPU left idle.
    const auto reopen = [&] {
      server.Send({{"jsonrpc", "2.0"},
                   {"method", "textDocument/didClose"},
                   {"params", {{"textDocument", {{"uri", "file://" + big}}}}}});
      server.Send(DidOpen(big, script));
      server.Until([&](const Json& m) { return PublishedFor(m, big, 1); });
      version = 1;
    };
    const int spaced = std::max(20, keystrokes / 2);
    const auto awake = [&](int count, Kind kind) {
      const AwakeCpus cpus;
      std::vector<double> latencies = type(count, 50, kind);
      if (!cpus.ok()) fmt::print(stderr, "warning: SCHED_IDLE was refused: the \"CPUs awake\" column is not\n");
      return latencies;
    };
    const auto series = [&](Kind kind, const std::string& title) {
      reopen();
      const std::vector<double> back_to_back = type(keystrokes, 0, kind);
      const std::vector<double> typing = type(spaced, 50, kind);
      reopen();
      const std::vector<double> typing_awake = awake(spaced, kind);
      fmt::print("\n{}   back to back   one per 50 ms   the same, CPUs awake   ms\n", title);
      PrintKeystrokes(back_to_back, typing, typing_awake);
    };
    series(Kind::kSpace, fmt::format("keystroke to publishDiagnostics, {} lines", lines));
    series(Kind::kDigit, "the same, typing a digit into a layer's width");
    series(Kind::kNewStatement, "the same, typing a new statement after a block");
    reopen();
    const double rss_one = server.RssMb();
    for (int i = 0; i < 20; ++i) {
      const std::string copy = (work / fmt::format("copy{}.py", i)).string();
      server.Send(DidOpen(copy, script));
      server.Until([&](const Json& m) { return PublishedFor(m, copy, 1); });
    }
    const double rss_many = server.RssMb();
    fmt::print("\nmemory (server RSS)                      MB\n");
    fmt::print("  started                             {:8.1f}\n", rss_start);
    fmt::print("  one 5,000-line document open        {:8.1f}\n", rss_one);
    fmt::print("  21 open                             {:8.1f}   ({:.2f} MB per document)\n", rss_many,
               (rss_many - rss_one) / 20.0);
    // The same keystrokes with the 20 copies open: each check builds the project index around them all.
    const std::vector<double> crowded = type(std::max(20, keystrokes / 4), 50);
    const std::vector<double> crowded_awake = awake(std::max(20, keystrokes / 4), Kind::kSpace);
    fmt::print(
        "\nkeystroke to publishDiagnostics with 20 other such documents open   one per 50 ms   the same, CPUs awake\n");
    fmt::print("  p50                                 {:8.2f}        {:8.2f}\n", Percentile(crowded, 0.5),
               Percentile(crowded_awake, 0.5));
    fmt::print("  p99                                 {:8.2f}        {:8.2f}\n", Percentile(crowded, 0.99),
               Percentile(crowded_awake, 0.99));
  }

  // 3. A 500-file project.
  {
    const fs::path project = work / "project";
    MakeProject(project, 500, 100);
    const std::string train = (project / "train.py").string();
    std::ifstream in(train);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    Child server(exe);
    server.Send(Initialize());
    server.Until([](const Json& m) { return m.contains("id") && m["id"] == 0; });
    server.Send({{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", Json::object()}});
    const double rss_before = server.RssMb();
    auto t0 = Clock::now();
    server.Send(DidOpen(train, text));
    const Json first = server.Until([&](const Json& m) { return PublishedFor(m, train, 1); });
    const double cold = Ms(Clock::now() - t0);
    const double rss_after = server.RssMb();
    t0 = Clock::now();
    server.Send({{"jsonrpc", "2.0"},
                 {"method", "textDocument/didChange"},
                 {"params",
                  {{"textDocument", {{"uri", "file://" + train}, {"version", 2}}},
                   {"contentChanges",
                    {{{"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 0}}}}},
                      {"text", " "}}}}}}});
    server.Until([&](const Json& m) { return PublishedFor(m, train, 2); });
    const double warm = Ms(Clock::now() - t0);
    fmt::print("\nopening train.py of a 500-file project (it imports 100 modules, which import the rest)\n");
    fmt::print("  didOpen to first diagnostics, cold  {:8.1f} ms   (target <= 200; {} findings)\n", cold,
               first["params"]["diagnostics"].size());
    fmt::print("  next keystroke, summaries cached    {:8.1f} ms\n", warm);
    fmt::print("  project index and summaries         {:8.1f} MB of RSS\n", rss_after - rss_before);
  }
  std::error_code ec;
  fs::remove_all(work, ec);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  }
}
