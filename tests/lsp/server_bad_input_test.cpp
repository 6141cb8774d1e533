// The real `torchlint server` fed hostile bytes over its stdin: a header without a length, a length
// that is not a number, a body that is not JSON, JSON that is not a message, an unknown method, a
// request before initialize, notifications for documents never opened, edits past the end, a 50 MB
// document, binary garbage. Each is answered with a JSON-RPC error or ignored as the spec says, the
// server keeps serving, and it exits with the status the spec gives.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "tests/lsp/server_process.h"

namespace {

using Json = nlohmann::json;
using tl::lsp::testing::Server;

int ErrorCode(const Json& response) { return response.contains("error") ? response["error"]["code"].get<int>() : 0; }

Json Open(const std::string& uri, const std::string& text) {
  return {{"jsonrpc", "2.0"},
          {"method", "textDocument/didOpen"},
          {"params", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}}}};
}

TEST_CASE("hostile frames and messages get errors, and the server keeps serving") {
  Server server;
  // Before initialize.
  CHECK(ErrorCode(server.Request(1, "textDocument/hover", Json::object())) == -32002);
  CHECK(server.Request(2, "initialize", {{"capabilities", Json::object()}}).contains("result"));
  CHECK(ErrorCode(server.Request(3, "initialize", {{"capabilities", Json::object()}})) == -32600);
  // Frames that cannot be read: logged, skipped.
  server.Raw("Content-Type: text/plain\r\n\r\n");
  server.Raw("Content-Length: lots\r\n\r\n");
  server.Raw(std::string("\x00\xff\xfe garbage\r\n\r\n", 15));
  // Bodies that are not messages.
  server.Raw("Content-Length: 9\r\n\r\n{not json");
  CHECK(ErrorCode(server.Response(nullptr)) == -32700);
  server.Raw("Content-Length: 5\r\n\r\n[1,2]");
  CHECK(ErrorCode(server.Response(nullptr)) == -32600);
  server.Send({{"jsonrpc", "2.0"}, {"id", 4}, {"method", 17}});
  CHECK(ErrorCode(server.Response(4)) == -32600);
  CHECK(ErrorCode(server.Request(5, "no/such/method", Json::object())) == -32601);
  // Documents never opened, URIs that are not files, edits past the end, missing fields.
  server.Send(
      {{"jsonrpc", "2.0"},
       {"method", "textDocument/didChange"},
       {"params",
        {{"textDocument", {{"uri", "file:///never.py"}, {"version", 2}}}, {"contentChanges", {{{"text", "x"}}}}}}});
  server.Send(Open("untitled:Untitled-1", "print(1)\n"));
  server.Send({{"jsonrpc", "2.0"}, {"method", "textDocument/didOpen"}, {"params", {{"textDocument", 5}}}});
  server.Send({{"jsonrpc", "2.0"}, {"method", "textDocument/didClose"}, {"params", nullptr}});
  CHECK(ErrorCode(server.Request(6, "textDocument/diagnostic", {{"textDocument", {{"uri", "file:///never.py"}}}})) ==
        -32602);
  CHECK(server.Request(7, "textDocument/codeAction", {{"textDocument", {{"uri", "file:///never.py"}}}})["result"] ==
        Json::array());
  server.Send(Open("file:///tmp/torchlint-bad-input/a.py", "import torch\nx = 1\n"));
  server.Send({{"jsonrpc", "2.0"},
               {"method", "textDocument/didChange"},
               {"params",
                {{"textDocument", {{"uri", "file:///tmp/torchlint-bad-input/a.py"}, {"version", 2}}},
                 {"contentChanges",
                  {{{"range", {{"start", {{"line", 99}, {"character", 99}}}, {"end", {{"line", 1}, {"character", 0}}}}},
                    {"text", "é"}},
                   {{"range", "not a range"}, {"text", "x"}},
                   {{"text", 42}}}}}}});
  const Json pulled = server.Request(8, "textDocument/diagnostic",
                                     {{"textDocument", {{"uri", "file:///tmp/torchlint-bad-input/a.py"}}}});
  CHECK(pulled["result"]["kind"] == "full");
  const Json hover = server.Request(9, "textDocument/hover",
                                    {{"textDocument", {{"uri", "file:///tmp/torchlint-bad-input/a.py"}}},
                                     {"position", {{"line", -4}, {"character", "x"}}}});
  CHECK(hover["result"].is_null());
  // A 50 MB document: kept, not analysed, said so.
  std::string huge_text;
  huge_text.resize(50'000'000, '#');  // 50 MB of comment
  server.Send(Open("file:///tmp/torchlint-bad-input/huge.py", huge_text));
  const Json huge = server.Request(10, "textDocument/diagnostic",
                                   {{"textDocument", {{"uri", "file:///tmp/torchlint-bad-input/huge.py"}}}});
  REQUIRE(huge["result"]["items"].size() == 1);
  CHECK(huge["result"]["items"][0]["message"].get<std::string>().find("not analysed") != std::string::npos);
  // Still serving; then exit without shutdown is status 1.
  CHECK(
      server
          .Request(11, "textDocument/diagnostic", {{"textDocument", {{"uri", "file:///tmp/torchlint-bad-input/a.py"}}}})
          .contains("result"));
  server.Send({{"jsonrpc", "2.0"}, {"method", "exit"}});
  CHECK(server.Exit() == 1);
}

TEST_CASE("shutdown then exit is status 0; requests after shutdown are refused; the end of input is an exit") {
  {
    Server server;
    CHECK(server.Request(1, "initialize", {{"capabilities", Json::object()}}).contains("result"));
    CHECK(server.Request(2, "shutdown", nullptr)["result"].is_null());
    CHECK(ErrorCode(server.Request(3, "textDocument/hover", Json::object())) == -32600);
    server.Send({{"jsonrpc", "2.0"}, {"method", "exit"}});
    CHECK(server.Exit() == 0);
  }
  {
    Server server;
    CHECK(server.Request(1, "initialize", {{"capabilities", Json::object()}}).contains("result"));
    server.Raw("Content-Length: 100\r\n\r\n{\"truncated\":");
    CHECK(server.Exit() == 1);
  }
}

}  // namespace
