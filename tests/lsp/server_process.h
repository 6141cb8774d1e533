// The real `torchlint server` as a child process, spoken to over its stdin and stdout: raw bytes or
// framed messages in, the response to a request out. For the tests that run the server itself.
#pragma once

#include <unistd.h>
#include <csignal>
#include <doctest/doctest.h>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <variant>

#include "linter/core/process.h"
#include "lsp/transport.h"

namespace tl::lsp::testing {

using Json = nlohmann::json;

class Server {
 public:
  Server() : child_(Start()), reader_(tl::lsp::FrameReader::ForFd(child_.out())) {}
  static tl::ChildProcess Start() {
    ::signal(SIGPIPE, SIG_IGN);
    auto child = tl::ChildProcess::Spawn({TL_TORCHLINT_EXE, "server"});
    REQUIRE(child.ok());
    return std::move(*child);
  }
  void Raw(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::write(child_.in(), bytes.data(), bytes.size());
      REQUIRE(n > 0);
      bytes.remove_prefix(static_cast<size_t>(n));
    }
  }
  void Send(const Json& message) {
    const std::string body = message.dump();
    Raw(fmt::format("Content-Length: {}\r\n\r\n{}", body.size(), body));
  }
  // The next message with this id (or, for id null, the next error response without an id).
  Json Response(const Json& id) {
    for (;;) {
      auto next = reader_.Next();
      REQUIRE_FALSE(std::holds_alternative<tl::lsp::EndOfInput>(next));
      auto* frame = std::get_if<tl::lsp::Frame>(&next);
      REQUIRE(frame != nullptr);
      Json m = Json::parse(frame->body);
      if (m.contains("id") && m["id"] == id && !m.contains("method")) return m;
    }
  }
  int Exit() { return child_.Wait(); }
  pid_t Pid() const { return child_.pid(); }
  Json Request(int id, std::string_view method, const Json& params) {
    Send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
    return Response(id);
  }

 private:
  tl::ChildProcess child_;
  tl::lsp::FrameReader reader_;
};

}  // namespace tl::lsp::testing
