// libFuzzer target for the language server's transport and protocol layers: the bytes are a stream
// of frames; every frame read is parsed as a message, its positions, ranges and URIs are converted
// against a line index of its own body, and the answers are serialised. Nothing may crash, hang or
// read out of bounds (run under ASan and UBSan by run.sh).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <variant>

#include "linter/core/line_index.h"
#include "lsp/protocol.h"
#include "lsp/transport.h"

namespace {

struct Bytes {
  const uint8_t* data;
  size_t size;
  size_t pos = 0;
  static std::ptrdiff_t Read(void* context, char* buffer, size_t n) {
    auto* self = static_cast<Bytes*>(context);
    // Odd chunk sizes, so frames split at every kind of place.
    const size_t take = std::min({n, self->size - self->pos, static_cast<size_t>(1 + self->pos % 13)});
    std::memcpy(buffer, self->data + self->pos, take);
    self->pos += take;
    return static_cast<std::ptrdiff_t>(take);
  }
};

void Visit(const tl::lsp::Json& json, const tl::LineIndex& lines, int depth) {
  if (depth > 8) return;
  if (json.is_object()) {
    if (auto range = tl::lsp::RangeFrom(json)) {
      for (auto encoding : {tl::PositionEncoding::kUtf8, tl::PositionEncoding::kUtf16, tl::PositionEncoding::kUtf32}) {
        const tl::TextRange bytes = tl::lsp::ByteRange(lines, *range, encoding);
        (void)tl::lsp::RangeJson(lines, bytes, encoding).dump();
      }
    }
    if (auto it = json.find("uri"); it != json.end() && it->is_string()) {
      if (auto path = tl::lsp::PathFromUri(it->get<std::string>())) (void)tl::lsp::UriFromPath(*path);
    }
    for (const auto& [key, value] : json.items()) Visit(value, lines, depth + 1);
  } else if (json.is_array()) {
    for (const auto& value : json) Visit(value, lines, depth + 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes bytes{data, size};
  tl::lsp::FrameReader reader(&Bytes::Read, &bytes, 1 << 16);
  for (int frames = 0; frames < 64; ++frames) {
    tl::lsp::ReadResult next = reader.Next();
    if (std::holds_alternative<tl::lsp::EndOfInput>(next)) break;
    const auto* frame = std::get_if<tl::lsp::Frame>(&next);
    if (frame == nullptr) continue;
    int code = 0;
    tl::lsp::Json id;
    auto message = tl::lsp::ParseMessage(frame->body, code, id);
    if (!message.ok()) {
      (void)tl::lsp::ErrorText(id, code, message.error().message);
      continue;
    }
    const tl::LineIndex lines(frame->body);
    Visit(message->params, lines, 0);
    (void)tl::lsp::NegotiateEncoding(message->params);
    (void)tl::lsp::ResultText(message->id, message->params);
  }
  return 0;
}
