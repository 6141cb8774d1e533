// The language server's layers on their own: framing (good, lenient and hostile frames), messages,
// positions and URIs, the line edits code actions carry, and the workspace (incremental parses that
// give what a full check gives, stale versions, the project index around the open documents).
#include <doctest/doctest.h>

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <variant>

#include "../unit/engine_test_support.h"
#include "linter/core/fix.h"
#include "linter/engine/check.h"
#include "lsp/protocol.h"
#include "lsp/transport.h"
#include "lsp/workspace.h"
#include "tests/support/paths.h"

namespace tl::lsp {
namespace {

// A byte source over a string, handing out at most `chunk` bytes per read (frames split anywhere).
struct StringSource {
  std::string data;
  size_t pos = 0;
  size_t chunk = 7;
  static std::ptrdiff_t Read(void* context, char* buffer, size_t size) {
    auto* self = static_cast<StringSource*>(context);
    const size_t n = std::min({size, self->chunk, self->data.size() - self->pos});
    std::copy_n(self->data.data() + self->pos, n, buffer);
    self->pos += n;
    return static_cast<std::ptrdiff_t>(n);
  }
};

std::string Framed(std::string_view body) { return fmt::format("Content-Length: {}\r\n\r\n{}", body.size(), body); }

std::vector<std::string> ReadAll(std::string bytes, size_t max_body = kDefaultMaxBody) {
  StringSource source{std::move(bytes)};
  FrameReader reader(&StringSource::Read, &source, max_body);
  std::vector<std::string> out;
  for (;;) {
    ReadResult r = reader.Next();
    if (std::holds_alternative<EndOfInput>(r)) return out;
    if (auto* f = std::get_if<Frame>(&r)) out.push_back("frame:" + f->body);
    if (auto* e = std::get_if<FrameError>(&r)) out.push_back("error:" + e->message);
  }
}

TEST_CASE("frames are read across any split, with lenient headers") {
  const auto frames = ReadAll(Framed(R"({"a":1})") +
                              "content-length: 2\nContent-Type: application/vscode-jsonrpc; charset=utf-8\n\n{}" +
                              "\r\n" + Framed("[]"));
  REQUIRE(frames.size() == 3);
  CHECK(frames[0] == R"(frame:{"a":1})");
  CHECK(frames[1] == "frame:{}");
  CHECK(frames[2] == "frame:[]");
}

TEST_CASE("bad frames are errors, and the reader goes on with the next frame") {
  const auto frames = ReadAll("Content-Type: x\r\n\r\n" + std::string("Content-Length: ten\r\n\r\n") +
                              "garbage without colon\r\n\r\n" + Framed("{}"));
  REQUIRE(frames.size() == 4);
  CHECK(frames[0] == "error:a frame without a Content-Length header");
  CHECK(frames[1] == "error:a Content-Length that is not a number");
  CHECK(frames[2] == "error:a header line without a colon");
  CHECK(frames[3] == "frame:{}");
}

TEST_CASE("a body over the limit is skipped and reported; a truncated body ends the input") {
  const auto frames = ReadAll(Framed(std::string(1000, 'x')) + Framed("{}"), 100);
  REQUIRE(frames.size() == 2);
  CHECK(frames[0] == "error:a message of 1000 bytes, over the limit of 100 bytes");
  CHECK(frames[1] == "frame:{}");
  CHECK(ReadAll("Content-Length: 50\r\n\r\n{\"short\":").empty());
  CHECK(ReadAll(std::string(100000, 'h')).size() == 0);  // one endless header line, then the end
  const auto binary = ReadAll(std::string("\0\xff\r\n\r\n", 6) + Framed("{}"));
  CHECK(binary.back() == "frame:{}");
}

TEST_CASE("messages: requests, notifications, responses and what is none of them") {
  int code = 0;
  Json id;
  auto request = ParseMessage(R"({"jsonrpc":"2.0","id":3,"method":"shutdown"})", code, id);
  REQUIRE(request.ok());
  CHECK(request->kind == Message::Kind::kRequest);
  CHECK(request->id == 3);
  auto note = ParseMessage(R"({"jsonrpc":"2.0","method":"exit"})", code, id);
  REQUIRE(note.ok());
  CHECK(note->kind == Message::Kind::kNotification);
  auto response = ParseMessage(R"({"jsonrpc":"2.0","id":"r1","result":null})", code, id);
  REQUIRE(response.ok());
  CHECK(response->kind == Message::Kind::kResponse);

  CHECK_FALSE(ParseMessage("{not json", code, id).ok());
  CHECK(code == kParseError);
  CHECK_FALSE(ParseMessage("[1,2]", code, id).ok());
  CHECK(code == kInvalidRequest);
  CHECK_FALSE(ParseMessage(R"({"jsonrpc":"2.0","id":7,"method":5})", code, id).ok());
  CHECK(id == 7);  // still answerable
  CHECK_FALSE(ParseMessage(R"({"id":1,"method":"x"})", code, id).ok());
  CHECK_FALSE(ParseMessage(R"({"jsonrpc":"2.0","id":{},"method":"x"})", code, id).ok());
  CHECK_FALSE(ParseMessage(R"({"jsonrpc":"2.0","method":"x","params":3})", code, id).ok());
}

TEST_CASE("file URIs and paths, both ways") {
  CHECK(PathFromUri("file:///home/u/my%20project/train.py") == "/home/u/my project/train.py");
  CHECK(PathFromUri("FILE://localhost/a.py") == "/a.py");
  CHECK(PathFromUri("file:///a/%E4%B8%AD.py") == "/a/\xE4\xB8\xAD.py");
  CHECK_FALSE(PathFromUri("untitled:Untitled-1").has_value());
  CHECK_FALSE(PathFromUri("file://server/share/a.py").has_value());
  CHECK_FALSE(PathFromUri("file:///a/%zz.py").has_value());
  CHECK_FALSE(PathFromUri("file:///a/%00.py").has_value());
  CHECK_FALSE(PathFromUri("file:///a/%4").has_value());
  const std::string path = "/tmp/a b/#1/\xE4\xB8\xAD.py";
  CHECK(UriFromPath(path) == "file:///tmp/a%20b/%231/%E4%B8%AD.py");
  CHECK(PathFromUri(UriFromPath(path)) == path);
}

TEST_CASE("positions: utf-8 when offered, utf-16 otherwise, non-ASCII lines, clamping") {
  CHECK(NegotiateEncoding(Json::parse(R"({"general":{"positionEncodings":["utf-16","utf-8"]}})")) ==
        PositionEncoding::kUtf8);
  CHECK(NegotiateEncoding(Json::parse(R"({"general":{"positionEncodings":["utf-32"]}})")) == PositionEncoding::kUtf16);
  CHECK(NegotiateEncoding(Json()) == PositionEncoding::kUtf16);
  // "é" is 2 bytes, 1 UTF-16 unit; "𝔸" 4 bytes, 2 units.
  const LineIndex lines("x = 'é𝔸'; y.item()\nz\n");
  const uint32_t item = 14;  // byte offset of "y" (after x = 'é𝔸'; )
  REQUIRE(std::string_view("x = 'é𝔸'; y.item()\nz\n").substr(item, 1) == "y");
  CHECK(lines.ToLsp(item, PositionEncoding::kUtf16).character == 11);
  CHECK(lines.ToLsp(item, PositionEncoding::kUtf8).character == 14);
  const Range r{{0, 11}, {0, 12}};
  CHECK(ByteRange(lines, r, PositionEncoding::kUtf16).begin == item);
  // Past the end of a line: its end; past the last line: the end of the text.
  CHECK(ByteRange(lines, Range{{1, 99}, {1, 99}}, PositionEncoding::kUtf16).begin == 24);
  CHECK(ByteRange(lines, Range{{99, 0}, {99, 5}}, PositionEncoding::kUtf16).end == 25);
  CHECK_FALSE(PositionFrom(Json::parse(R"({"line":-1,"character":0})")).has_value());
  CHECK_FALSE(RangeFrom(Json::parse(R"({"start":{"line":0}})")).has_value());
}

TEST_CASE("line edits turn one text into the other and keep unchanged lines out") {
  const std::string before = "a\nb\nc\nd\n";
  const std::string after = "a\nB\nc\nd\ne\n";
  const auto edits = LineEdits(before, after);
  REQUIRE(edits.size() == 2);
  CHECK(edits[0].range.begin == 2);
  CHECK(edits[0].replacement == "B\n");
  CHECK(edits[1].range.begin == 8);
  CHECK(ApplyEdits(before, edits).value() == after);
  CHECK(LineEdits(before, before).empty());
  CHECK(ApplyEdits("x", LineEdits("x", "")).value().empty());
}

constexpr std::string_view kTrain = R"(import torch
from torch.utils.data import DataLoader

model = torch.nn.Linear(1000, 1000).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(dataset, batch_size=32, num_workers=4, pin_memory=True)
for x, y in loader:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x.cuda(non_blocking=True)).sum()
    loss.backward()
    optimizer.step()
    print(loss.item())
)";

std::vector<std::string> Codes(const std::vector<Diagnostic>& diagnostics) {
  std::vector<std::string> out;
  out.reserve(diagnostics.size());
  for (const Diagnostic& d : diagnostics) out.push_back(fmt::format("{}@{}", d.code, d.range.begin));
  return out;
}

std::vector<std::string> Fresh(const std::string& path, std::string_view text) {
  const SourceFile file(path, std::string(text));
  return Codes(CheckSource(file, CheckOptions{}).diagnostics);
}

TEST_CASE("incremental edits give what a fresh check of the same text gives") {
  test::TempDir dir;
  const std::string path = (dir / "train.py").string();
  Workspace ws;
  ws.Open(path, std::string(kTrain), 1);
  auto first = ws.Check(path);
  REQUIRE(first.has_value());
  CHECK_FALSE(first->incremental);
  CHECK(Codes(first->diagnostics) == Fresh(path, kTrain));
  REQUIRE(Codes(first->diagnostics).size() == 1);  // the .item()

  // Take the sync out, put it back elsewhere, insert lines above it: each check is incremental and
  // equal to a fresh check.
  std::string text(kTrain);
  auto edit = [&](int64_t version, std::string_view find, std::string_view replacement) {
    const size_t at = text.find(find);
    REQUIRE(at != std::string::npos);
    REQUIRE(ws.Change(path, version, TextRange{static_cast<uint32_t>(at), static_cast<uint32_t>(at + find.size())},
                      replacement));
    text.replace(at, find.size(), replacement);
    auto checked = ws.Check(path);
    REQUIRE(checked.has_value());
    CHECK(checked->incremental);
    CHECK(checked->snapshot.version == version);
    CHECK(checked->snapshot.source->text() == text);
    CHECK(Codes(checked->diagnostics) == Fresh(path, text));
    return Codes(checked->diagnostics);
  };
  CHECK(edit(2, "print(loss.item())", "pass").empty());
  CHECK(edit(3, "    loss.backward()\n", "    loss.backward()\n    total = loss.item()\n").size() == 1);
  CHECK(edit(4, "import torch\n", "import torch\nimport os\n\n").size() == 1);
  CHECK(edit(5, "x, y in loader", "x, y in   loader").size() == 1);
}

TEST_CASE("a keystroke after a block is spliced; Refresh makes tree-sitter's tree; the checks stay fresh ones") {
  // A helper that syncs, many classes, and the step loop last: a letter typed on the empty line after a
  // class is parsed alone (spliced), and so is a space in the step loop (the stretch runs to the end);
  // a space in the first statement cannot be (a stretch needs a statement before it).
  std::string text = "import torch\n\n\ndef log(t):\n    return t.item()\n\n\n";
  for (int i = 0; i < 12; ++i) {
    text += fmt::format("class Block{}(torch.nn.Module):\n    def forward(self, x):\n        return x\n\n\n", i);
  }
  text += "model = Block0().cuda()\nfor x in loader:\n    loss = model(x.cuda()).sum()\n    log(loss)\n";
  test::TempDir dir;
  const std::string path = (dir / "train.py").string();
  Workspace ws;
  ws.Open(path, text, 1);
  REQUIRE(ws.Check(path).has_value());
  const auto change = [&](int64_t version, size_t at, std::string_view inserted) {
    REQUIRE(ws.Change(path, version, TextRange{static_cast<uint32_t>(at), static_cast<uint32_t>(at)}, inserted));
    text.insert(at, inserted);
    auto checked = ws.Check(path, /*defer_summary=*/true);
    REQUIRE(checked.has_value());
    CHECK(Codes(checked->diagnostics) == Fresh(path, text));
    CHECK(Codes(checked->diagnostics).size() == 1);  // the helper's sync, reported at the call
    return *checked;
  };
  // The empty line after Block5's `return x`.
  const size_t after_block = text.find("\n\n", text.find("class Block5")) + 1;
  const Workspace::Checked spliced = change(2, after_block, "y = 1");
  CHECK(spliced.spliced);
  CHECK(ws.Refresh(path));  // tree-sitter's parse of the spliced version, kept
  // The first statement: tree-sitter's incremental parse from the refreshed tree.
  const Workspace::Checked top = change(3, text.find(" torch"), " ");
  CHECK_FALSE(top.spliced);
  CHECK(top.incremental);
  // Again without the refresh in between: the same diagnostics.
  const Workspace::Checked again = change(4, text.find("\n\n", text.find("class Block9")) + 1, "z = 2");
  CHECK(again.spliced);
  CHECK_FALSE(change(5, text.find(" torch"), " ").spliced);
  CHECK_FALSE(ws.Refresh(path));  // nothing to do: the last check was tree-sitter's
  // The step loop, the last statement.
  CHECK(change(6, text.find("    log(loss)"), " ").spliced);
}

TEST_CASE("edits outside the document and documents never opened are refused") {
  Workspace ws;
  CHECK_FALSE(ws.Change("/nowhere.py", 2, std::nullopt, "x"));
  ws.Open("/a.py", "x = 1\n", 1);
  CHECK_FALSE(ws.Change("/a.py", 2, TextRange{3, 99}, "y"));
  CHECK_FALSE(ws.Change("/a.py", 2, TextRange{4, 2}, "y"));
  CHECK(ws.Get("/a.py")->source->text() == "x = 1\n");
  CHECK(ws.Change("/a.py", 3, std::nullopt, "y = 2\n"));
  CHECK(ws.Get("/a.py")->version == 3);
  CHECK_FALSE(ws.Check("/b.py").has_value());
  ws.Close("/a.py");
  CHECK_FALSE(ws.IsOpen("/a.py"));
}

TEST_CASE("the project index is built around the open documents: a helper's edit reaches the loop") {
  test::TempDir dir;
  dir.Write("pyproject.toml", "[project]\nname = \"demo\"\n");
  const std::string helper_text = "def log_loss(loss):\n    print('step')\n";
  const std::string helper = dir.Write("helpers.py", helper_text).string();
  const std::string train = dir.Write("train.py", test::ProjectLoop("helpers")).string();
  Workspace ws;
  ws.Open(train, test::ReadAllText(train), 1);
  auto before = ws.Check(train);
  REQUIRE(before.has_value());
  CHECK(Codes(before->diagnostics).empty());  // the helper on disk does not sync

  // The helper is opened and edited (not saved): its buffer, not the disk, is what the loop sees.
  ws.Open(helper, helper_text, 1);
  REQUIRE(ws.Check(helper).has_value());
  REQUIRE(ws.Change(helper, 2, std::nullopt, "def log_loss(loss):\n    print(loss.item())\n"));
  auto helper_checked = ws.Check(helper);
  REQUIRE(helper_checked.has_value());
  CHECK(helper_checked->summary_changed);
  auto after = ws.Check(train);
  REQUIRE(after.has_value());
  REQUIRE(after->diagnostics.size() == 1);
  CHECK(after->diagnostics[0].code == "TL101");
  REQUIRE(after->diagnostics[0].related.size() == 1);
  CHECK(after->diagnostics[0].related[0].path == helper);
  // A check of an unchanged document reports no summary change.
  auto again = ws.Check(helper);
  REQUIRE(again.has_value());
  CHECK_FALSE(again->summary_changed);
}

TEST_CASE("a deferred summary: the check uses the last one, Summarize makes the current one after it") {
  test::TempDir dir;
  dir.Write("pyproject.toml", "[project]\nname = \"demo\"\n");
  const std::string quiet = "def log_loss(loss):\n    print('step')\n";
  const std::string syncing = "def log_loss(loss):\n    print(loss.item())\n";
  const std::string helper = dir.Write("helpers.py", quiet).string();
  const std::string train = dir.Write("train.py", test::ProjectLoop("helpers")).string();
  Workspace ws;
  ws.Open(train, test::ReadAllText(train), 1);
  ws.Open(helper, quiet, 1);
  // The first check of a document has no summary to use: it makes one, as a check without deferring.
  auto first = ws.Check(helper, /*defer_summary=*/true);
  REQUIRE(first.has_value());
  CHECK_FALSE(first->summary_pending);
  CHECK_FALSE(ws.Summarize(helper));  // current already
  auto loop = ws.Check(train, true);
  REQUIRE(loop.has_value());
  CHECK(Codes(loop->diagnostics).empty());

  // An edit: the helper's check uses the summary of version 1, and says the current one is to be made.
  REQUIRE(ws.Change(helper, 2, std::nullopt, syncing));
  auto edited = ws.Check(helper, true);
  REQUIRE(edited.has_value());
  CHECK(edited->summary_pending);
  CHECK_FALSE(edited->summary_changed);
  auto stale = ws.Check(train, true);  // until it is made, the project still holds version 1's
  REQUIRE(stale.has_value());
  CHECK(Codes(stale->diagnostics).empty());
  CHECK(ws.Summarize(helper));        // it tells the project something new: check the documents again
  CHECK_FALSE(ws.Summarize(helper));  // and only once
  auto now = ws.Check(train, true);
  REQUIRE(now.has_value());
  REQUIRE(now->diagnostics.size() == 1);
  CHECK(now->diagnostics[0].code == "TL101");
  auto helper_now = ws.Check(helper, true);
  REQUIRE(helper_now.has_value());
  CHECK_FALSE(helper_now->summary_pending);

  // A summary made after the check is the one a check would have made: a workspace that opens the
  // edited text at once gives the loop the same findings, and the same summary (no change to tell).
  Workspace fresh;
  fresh.Open(train, test::ReadAllText(train), 1);
  fresh.Open(helper, syncing, 1);
  REQUIRE(fresh.Check(helper).has_value());
  auto direct = fresh.Check(train);
  REQUIRE(direct.has_value());
  CHECK(Codes(direct->diagnostics) == Codes(now->diagnostics));

  // An edit that tells the project nothing new: made after, and nothing to check again.
  REQUIRE(ws.Change(helper, 3, TextRange{0, 0}, "# a comment\n"));
  auto comment = ws.Check(helper, true);
  REQUIRE(comment.has_value());
  CHECK(comment->summary_pending);
  // Lines moved (a function's line is part of what it tells), so this one does change; a second edit
  // within a line moves nothing.
  CHECK(ws.Summarize(helper));
  REQUIRE(ws.Change(helper, 4, TextRange{2, 3}, "A"));  // "# a comment" -> "# A comment"
  REQUIRE(ws.Check(helper, true)->summary_pending);
  CHECK_FALSE(ws.Summarize(helper));

  // Edits that arrive before the summary is made: a summary of an older version is not made over a newer
  // one, and none is made from a tree the edits left behind.
  REQUIRE(ws.Change(helper, 5, TextRange{0, 0}, "#"));
  CHECK_FALSE(ws.Summarize(helper));  // version 5 has no tree yet: its check makes the next one
  REQUIRE(ws.Check(helper, true)->summary_pending);
  ws.Close(helper);
  CHECK_FALSE(ws.Summarize(helper));  // closed: nothing to make
}

TEST_CASE("a document's project index is reused while nothing it was built from changed") {
  test::TempDir dir;
  dir.Write("pyproject.toml", "[project]\nname = \"demo\"\n");
  const std::string helper = dir.Write("helpers.py", "def log_loss(loss):\n    print('step')\n").string();
  const std::string text = test::ProjectLoop("helpers");
  const std::string train = dir.Write("train.py", text).string();
  Workspace ws;
  ws.SetIndexReuse(std::chrono::hours(1));  // however slow the machine, no second passes in this test
  ws.Open(train, text, 1);
  REQUIRE(ws.Check(train, true).has_value());  // the first check makes the summary: nothing to reuse
  CHECK(ws.IndexStats().built == 1);
  // Typing in a comment: the document's summary is still the one the index was built with.
  REQUIRE(ws.Change(train, 2, TextRange{0, 0}, "# x\n"));
  REQUIRE(ws.Check(train, true).has_value());
  CHECK(ws.IndexStats().built == 2);  // built with the summary of version 1 (the first one was made here)
  REQUIRE(ws.Change(train, 3, TextRange{2, 3}, "y"));
  auto reused = ws.Check(train, true);
  REQUIRE(reused.has_value());
  CHECK(ws.IndexStats().reused == 1);
  CHECK(Codes(reused->diagnostics).empty());

  // A module on disk that changes with no event to say so is read again only once the index is built
  // again; a save (ProjectChanged) builds it again.
  dir.Write("helpers.py", "def log_loss(loss):\n    print(loss.item())\n");
  REQUIRE(ws.Change(train, 4, TextRange{2, 3}, "z"));
  auto stale = ws.Check(train, true);
  REQUIRE(stale.has_value());
  CHECK(ws.IndexStats().reused == 2);
  CHECK(Codes(stale->diagnostics).empty());
  ws.ProjectChanged();
  REQUIRE(ws.Change(train, 5, TextRange{2, 3}, "w"));
  auto fresh = ws.Check(train, true);
  REQUIRE(fresh.has_value());
  CHECK(ws.IndexStats().built == 3);
  REQUIRE(fresh->diagnostics.size() == 1);
  CHECK(fresh->diagnostics[0].code == "TL101");

  // Its own summary made again, or another document opened: built again.
  CHECK(ws.Summarize(train));  // the lines moved
  REQUIRE(ws.Check(train, true).has_value());
  CHECK(ws.IndexStats().built == 4);
  ws.Open(helper, "def log_loss(loss):\n    pass\n", 1);
  REQUIRE(ws.Check(helper, true).has_value());
  auto with_buffer = ws.Check(train, true);
  REQUIRE(with_buffer.has_value());
  CHECK(Codes(with_buffer->diagnostics).empty());  // the buffer, not the disk
  CHECK(ws.IndexStats().reused == 2);

  // With no reuse, the module on disk is read at each check.
  ws.Close(helper);
  ws.SetIndexReuse(std::chrono::milliseconds(0));
  REQUIRE(ws.Check(train, true).has_value());
  dir.Write("helpers.py", "def log_loss(loss):\n    pass\n");
  REQUIRE(ws.Change(train, 6, TextRange{2, 3}, "v"));
  auto reread = ws.Check(train, true);
  REQUIRE(reread.has_value());
  CHECK(Codes(reread->diagnostics).empty());
  CHECK(ws.IndexStats().reused == 2);
}

TEST_CASE("a helper that an open script's step loop calls reports its syncs where they are written") {
  test::TempDir dir;
  dir.Write("pyproject.toml", "[project]\nname = \"demo\"\n");
  const std::string losses_text =
      "import torch\n\n\ndef masked(out):\n    probs = torch.sigmoid(out)\n    kept = probs[probs > 0.5]\n"
      "    return kept[kept < 0.9]\n";
  const std::string losses = dir.Write("losses.py", losses_text).string();
  const std::string train_text =
      "import torch\nfrom losses import masked\n\ndevice = torch.device('cuda')\n"
      "model = torch.nn.Linear(2, 2).to(device)\n\n\ndef train(loader):\n    for x, y in loader:\n"
      "        out = model(x.to(device))\n        kept = masked(out)\n        out.sum().backward()\n";
  const std::string train = dir.Write("train.py", train_text).string();
  Workspace ws;
  ws.Open(losses, losses_text, 1);
  auto alone = ws.Check(losses);
  REQUIRE(alone.has_value());
  CHECK(Codes(alone->diagnostics).empty());  // nothing open calls it yet
  ws.Open(train, train_text, 1);
  auto loop = ws.Check(train);
  REQUIRE(loop.has_value());
  const auto tl102 = [](const std::vector<Diagnostic>& all) {
    std::vector<Diagnostic> out;
    std::copy_if(all.begin(), all.end(), std::back_inserter(out),
                 [](const Diagnostic& d) { return d.code == "TL102"; });
    return out;
  };
  CHECK(tl102(loop->diagnostics).size() == 1);  // at the call
  auto helper = ws.Check(losses);
  REQUIRE(helper.has_value());
  REQUIRE(helper->diagnostics.size() == 2);
  REQUIRE(tl102(helper->diagnostics).size() == 2);
  for (const Diagnostic& d : helper->diagnostics) {
    REQUIRE(d.related.size() == 1);
    CHECK(d.related[0].path == train);
    CHECK(d.related[0].line == 11);
  }
}

TEST_CASE("a document that gets torch from another file's star import is checked with it") {
  test::TempDir dir;
  dir.Write("pyproject.toml", "[project]\nname = \"demo\"\n");
  dir.Write("utils.py", "import torch\nfrom torch.utils.data import DataLoader\n");
  const std::string text =
      "from utils import *\n\nmodel = torch.nn.Linear(8, 8).cuda()\n"
      "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
      "for x in DataLoader(list(range(64)), num_workers=2, pin_memory=True):\n"
      "    loss = model(x.cuda(non_blocking=True)).sum()\n    loss.backward()\n    optimizer.step()\n"
      "    optimizer.zero_grad(set_to_none=True)\n    torch.cuda.empty_cache()\n";
  const std::string train = dir.Write("train.py", text).string();
  Workspace ws;
  Settings settings;
  settings.select = std::vector<std::string>{"TL103"};
  ws.SetSettings(settings);
  ws.Open(train, text, 1);
  auto checked = ws.Check(train);
  REQUIRE(checked.has_value());
  CHECK(Codes(checked->diagnostics) ==
        std::vector<std::string>{"TL103@" + std::to_string(text.find("torch.cuda.empty_cache()"))});
  // Without the module that binds it, `torch` is nobody's: nothing is torch's call.
  std::filesystem::remove(dir / "utils.py");
  ws.Open(train, text, 2);
  auto alone = ws.Check(train);
  REQUIRE(alone.has_value());
  CHECK(Codes(alone->diagnostics).empty());
}

TEST_CASE("settings select rules, and a trace that cannot be read is an error that leaves none loaded") {
  test::TempDir dir;
  const std::string path = dir.Write("train.py", kTrain).string();
  Workspace ws;
  Settings settings;
  settings.select = std::vector<std::string>{"TL2"};
  ws.SetSettings(settings);
  ws.Open(path, std::string(kTrain), 1);
  CHECK(ws.Check(path)->diagnostics.empty());  // TL101 is not selected
  const std::string bad = dir.Write("trace.json", "{not a trace").string();
  const Status status = ws.LoadTrace(bad);
  CHECK_FALSE(status.ok());
  CHECK_FALSE(ws.HasTrace());
  CHECK_FALSE(Workspace::FindTrace(path).has_value());
  // Over a trace that was loaded, the error leaves it until the caller, having said why, drops it.
  const std::string good = (test::SourceDir() / "tests/e2e/traces/sync_item.pt.trace.json.gz").string();
  REQUIRE(ws.LoadTrace(good).ok());
  CHECK(ws.TracePath() == good);
  CHECK_FALSE(ws.LoadTrace(bad).ok());
  CHECK(ws.TracePath() == good);
  ws.DropTrace();
  CHECK_FALSE(ws.HasTrace());
  dir.Write("profiler_logs/host_1.pt.trace.json", "{}");
  CHECK(Workspace::FindTrace(path) == (dir / "profiler_logs").string());
}

}  // namespace
}  // namespace tl::lsp
