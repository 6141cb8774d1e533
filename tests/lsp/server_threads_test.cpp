// The real `torchlint server`'s threads, read from /proc: the thread that checks a document on each
// keystroke runs at the normal policy, and the one that makes the summaries and tree-sitter's parse after
// a splice runs as background work (SCHED_IDLE), so that it never holds up a keystroke's diagnostics or
// the editor that reads them.
#include <sched.h>
#include <sys/resource.h>
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>

#include "tests/lsp/server_process.h"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using tl::lsp::testing::Server;

struct Scheduling {
  int policy = -1;
  int nice = 0;
};

// Each thread of process `pid` by name, with its scheduling policy and niceness (fields 41 and 19 of
// /proc/PID/task/TID/stat, counted after the parenthesised name, which may hold spaces).
std::map<std::string, Scheduling> PoliciesByName(pid_t pid) {
  std::map<std::string, Scheduling> out;
  std::error_code ec;
  for (const auto& task : fs::directory_iterator(fs::path("/proc") / std::to_string(pid) / "task", ec)) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    std::ifstream stat_file(task.path() / "stat");
    std::stringstream stat;
    stat << stat_file.rdbuf();
    const std::string text = stat.str();
    const size_t close = text.rfind(')');
    if (name.empty() || close == std::string::npos) continue;
    std::istringstream fields(text.substr(close + 1));
    std::string field;
    int number = 2;  // the fields after the name start at the third
    Scheduling scheduling;
    while (fields >> field) {
      ++number;
      if (number == 19) scheduling.nice = std::stoi(field);
      if (number == 41) {
        scheduling.policy = std::stoi(field);
        break;
      }
    }
    out[name] = scheduling;
  }
  return out;
}

TEST_CASE("the summaries' thread runs at SCHED_IDLE and the checking thread does not") {
  const fs::path dir = fs::temp_directory_path() / "torchlint-server-threads";
  fs::create_directories(dir);
  const std::string uri = "file://" + (dir / "train.py").string();
  Server server;
  REQUIRE(server.Request(1, "initialize", {{"capabilities", Json::object()}}).contains("result"));
  server.Send({{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", Json::object()}});
  server.Send(
      {{"jsonrpc", "2.0"},
       {"method", "textDocument/didOpen"},
       {"params",
        {{"textDocument",
          {{"uri", uri},
           {"languageId", "python"},
           {"version", 1},
           {"text", "import torch\nfor x in loader:\n    loss = model(x.cuda())\n    print(loss.item())\n"}}}}}});
  const Json pulled = server.Request(2, "textDocument/diagnostic", {{"textDocument", {{"uri", uri}}}});
  REQUIRE(pulled.contains("result"));
  CHECK_FALSE(pulled["result"]["items"].empty());
  // Each thread sets its own name and policy when it starts: give them a moment.
  // (Where SCHED_IDLE is refused, as a sandbox may, the fallback is niceness 19.)
  const auto background = [](const Scheduling& s) { return s.policy == SCHED_IDLE || s.nice == 19; };
  std::map<std::string, Scheduling> policies;
  for (int attempt = 0; attempt < 500; ++attempt) {  // up to 10 s: a loaded CI machine under ASan
    policies = PoliciesByName(server.Pid());
    if (policies.contains("tl-summarize") && background(policies["tl-summarize"]) && policies.contains("tl-check")) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  REQUIRE(policies.contains("tl-summarize"));
  REQUIRE(policies.contains("tl-check"));
  CHECK(background(policies["tl-summarize"]));
  if (policies["tl-summarize"].policy != SCHED_IDLE) MESSAGE("SCHED_IDLE refused here; the summaries run at nice 19");
  CHECK(policies["tl-check"].policy == SCHED_OTHER);
  CHECK(policies["tl-check"].nice == ::getpriority(PRIO_PROCESS, 0));  // as this test's own (inherited)
  CHECK(server.Request(3, "shutdown", nullptr)["result"].is_null());
  server.Send({{"jsonrpc", "2.0"}, {"method", "exit"}});
  CHECK(server.Exit() == 0);
  fs::remove_all(dir);
}

}  // namespace
