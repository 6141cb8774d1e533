// The protocol layer of `torchlint server`: JSON-RPC 2.0 messages as LSP 3.17 uses them, typed with
// nlohmann::json, and the conversions between LSP's positions, ranges and URIs and the engine's byte
// offsets and paths. Nothing here does I/O or knows the engine's state.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "linter/core/line_index.h"
#include "linter/core/result.h"
#include "linter/core/text_range.h"

namespace tl::lsp {

using Json = nlohmann::json;

// JSON-RPC and LSP error codes.
enum ErrorCode : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
  kServerNotInitialized = -32002,
  kRequestFailed = -32803,
  kServerCancelled = -32802,
  kContentModified = -32801,
  kRequestCancelled = -32800,
};

// One incoming message. A request has an id and a method, a notification a method only, a response an
// id and a result or an error.
struct Message {
  enum class Kind { kRequest, kNotification, kResponse };
  Kind kind = Kind::kNotification;
  Json id;  // number or string; null for notifications
  std::string method;
  Json params;  // object, array or null
  Json result;  // responses
  Json error;   // responses
};

// Parses a frame's body. The error is the one-line message of a JSON-RPC error: `code` is set to
// kParseError for text that is not JSON and kInvalidRequest for JSON that is not a message. `id` gets
// the message's id when one could be read, so that an invalid request can still be answered.
Result<Message> ParseMessage(std::string_view body, int& code, Json& id);

std::string RequestText(const Json& id, std::string_view method, const Json& params);
std::string NotificationText(std::string_view method, const Json& params);
std::string ResultText(const Json& id, const Json& result);
std::string ErrorText(const Json& id, int code, std::string_view message);

// Positions: LSP's (line, character in the negotiated encoding) and back, clamped as the spec says (a
// character past the end of a line means the end of the line; a line past the end, the end of the text).
struct Range {
  LspPosition start;
  LspPosition end;
};
std::optional<LspPosition> PositionFrom(const Json& json);
std::optional<Range> RangeFrom(const Json& json);
Json ToJson(LspPosition position);
Json ToJson(const Range& range);
Json RangeJson(const LineIndex& lines, TextRange range, PositionEncoding encoding);
TextRange ByteRange(const LineIndex& lines, const Range& range, PositionEncoding encoding);

// `utf-8`, `utf-16`, `utf-32` as LSP names them.
std::string_view EncodingName(PositionEncoding encoding);
// The encoding to use from the client's `general.positionEncodings`: utf-8 when offered, else utf-16.
PositionEncoding NegotiateEncoding(const Json& client_capabilities);

// file:// URIs and paths. Only file URIs map to paths; percent-escapes are decoded, and a URI whose
// path holds a NUL or is not absolute maps to nothing.
std::optional<std::string> PathFromUri(std::string_view uri);
std::string UriFromPath(std::string_view absolute_path);

}  // namespace tl::lsp
