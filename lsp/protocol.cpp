#include "lsp/protocol.h"

#include <fmt/core.h>

#include <algorithm>

namespace tl::lsp {
namespace {

bool ValidId(const Json& id) { return id.is_number_integer() || id.is_string(); }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Result<Message> ParseMessage(std::string_view body, int& code, Json& id) {
  id = nullptr;
  Json json = Json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    code = kParseError;
    return Error{"the message is not JSON"};
  }
  code = kInvalidRequest;
  if (!json.is_object()) return Error{"the message is not a JSON object"};
  if (auto it = json.find("id"); it != json.end() && ValidId(*it)) id = *it;
  if (auto it = json.find("jsonrpc"); it == json.end() || *it != "2.0") {
    return Error{"the message has no \"jsonrpc\": \"2.0\""};
  }
  Message message;
  const auto method = json.find("method");
  const auto raw_id = json.find("id");
  if (method != json.end()) {
    if (!method->is_string()) return Error{"the method is not a string"};
    message.method = method->get<std::string>();
    if (raw_id != json.end()) {
      if (!ValidId(*raw_id)) return Error{"the id is neither a number nor a string"};
      message.kind = Message::Kind::kRequest;
      message.id = *raw_id;
    } else {
      message.kind = Message::Kind::kNotification;
    }
    if (auto params = json.find("params"); params != json.end()) {
      if (!params->is_object() && !params->is_array() && !params->is_null()) {
        return Error{"params are neither an object nor an array"};
      }
      message.params = *params;
    }
    return message;
  }
  if (raw_id != json.end() && (json.contains("result") || json.contains("error"))) {
    message.kind = Message::Kind::kResponse;
    message.id = *raw_id;
    if (auto r = json.find("result"); r != json.end()) message.result = *r;
    if (auto e = json.find("error"); e != json.end()) message.error = *e;
    return message;
  }
  return Error{"the message is neither a request, a notification nor a response"};
}

std::string RequestText(const Json& id, std::string_view method, const Json& params) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump(
      -1, ' ', false, Json::error_handler_t::replace);
}

std::string NotificationText(std::string_view method, const Json& params) {
  return Json{{"jsonrpc", "2.0"}, {"method", method}, {"params", params}}.dump(-1, ' ', false,
                                                                               Json::error_handler_t::replace);
}

std::string ResultText(const Json& id, const Json& result) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string ErrorText(const Json& id, int code, std::string_view message) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}}.dump(
      -1, ' ', false, Json::error_handler_t::replace);
}

std::optional<LspPosition> PositionFrom(const Json& json) {
  if (!json.is_object()) return std::nullopt;
  const auto line = json.find("line");
  const auto character = json.find("character");
  if (line == json.end() || character == json.end() || !line->is_number_unsigned() ||
      !character->is_number_unsigned()) {
    return std::nullopt;
  }
  const uint64_t l = line->get<uint64_t>();
  const uint64_t c = character->get<uint64_t>();
  return LspPosition{static_cast<uint32_t>(std::min<uint64_t>(l, UINT32_MAX)),
                     static_cast<uint32_t>(std::min<uint64_t>(c, UINT32_MAX))};
}

std::optional<Range> RangeFrom(const Json& json) {
  if (!json.is_object() || !json.contains("start") || !json.contains("end")) return std::nullopt;
  auto start = PositionFrom(json["start"]);
  auto end = PositionFrom(json["end"]);
  if (!start || !end) return std::nullopt;
  return Range{*start, *end};
}

Json ToJson(LspPosition position) { return Json{{"line", position.line}, {"character", position.character}}; }

Json ToJson(const Range& range) { return Json{{"start", ToJson(range.start)}, {"end", ToJson(range.end)}}; }

Json RangeJson(const LineIndex& lines, TextRange range, PositionEncoding encoding) {
  return ToJson(Range{lines.ToLsp(range.begin, encoding), lines.ToLsp(range.end, encoding)});
}

TextRange ByteRange(const LineIndex& lines, const Range& range, PositionEncoding encoding) {
  uint32_t begin = lines.FromLsp(range.start, encoding);
  uint32_t end = lines.FromLsp(range.end, encoding);
  if (end < begin) std::swap(begin, end);
  return {begin, end};
}

std::string_view EncodingName(PositionEncoding encoding) {
  switch (encoding) {
    case PositionEncoding::kUtf8: return "utf-8";
    case PositionEncoding::kUtf16: return "utf-16";
    case PositionEncoding::kUtf32: return "utf-32";
  }
  return "utf-16";
}

PositionEncoding NegotiateEncoding(const Json& client_capabilities) {
  const Json* offered = nullptr;
  if (client_capabilities.is_object()) {
    if (auto general = client_capabilities.find("general");
        general != client_capabilities.end() && general->is_object()) {
      if (auto encodings = general->find("positionEncodings"); encodings != general->end() && encodings->is_array()) {
        offered = &*encodings;
      }
    }
  }
  if (offered != nullptr && std::find(offered->begin(), offered->end(), Json("utf-8")) != offered->end()) {
    return PositionEncoding::kUtf8;
  }
  return PositionEncoding::kUtf16;
}

std::optional<std::string> PathFromUri(std::string_view uri) {
  constexpr std::string_view kScheme = "file://";
  if (uri.size() < kScheme.size()) return std::nullopt;
  for (size_t i = 0; i < kScheme.size(); ++i) {
    const char c = uri[i] >= 'A' && uri[i] <= 'Z' ? static_cast<char>(uri[i] - 'A' + 'a') : uri[i];
    if (c != kScheme[i]) return std::nullopt;
  }
  std::string_view rest = uri.substr(kScheme.size());
  // `file://host/path`: only an empty host or localhost is this machine.
  if (!rest.starts_with('/')) {
    const size_t slash = rest.find('/');
    if (slash == std::string_view::npos || rest.substr(0, slash) != "localhost") return std::nullopt;
    rest.remove_prefix(slash);
  }
  if (const size_t cut = rest.find_first_of("?#"); cut != std::string_view::npos) rest = rest.substr(0, cut);
  std::string path;
  path.reserve(rest.size());
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] != '%') {
      path.push_back(rest[i]);
      continue;
    }
    const int hi = i + 2 < rest.size() ? HexValue(rest[i + 1]) : -1;
    const int lo = i + 2 < rest.size() ? HexValue(rest[i + 2]) : -1;
    if (hi < 0 || lo < 0) return std::nullopt;
    path.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  if (path.empty() || path.front() != '/' || path.find('\0') != std::string::npos) return std::nullopt;
  return path;
}

std::string UriFromPath(std::string_view absolute_path) {
  std::string out = "file://";
  for (const char c : absolute_path) {
    const auto u = static_cast<unsigned char>(c);
    const bool keep = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || c == '/' ||
                      c == '-' || c == '_' || c == '.' || c == '~';
    if (keep) {
      out.push_back(c);
    } else {
      out += fmt::format("%{:02X}", u);
    }
  }
  return out;
}

}  // namespace tl::lsp
