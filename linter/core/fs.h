// File access with the guarantees users rely on: reads are size-capped and report one-line errors,
// writes are atomic (a temporary file in the same folder, flushed, then renamed over the target) so a
// crash or a full disk never leaves a half-written source file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "linter/core/result.h"

namespace tl {

inline constexpr uint64_t kDefaultMaxSourceBytes = 256ull << 20;  // 256 MiB

Result<std::string> ReadFile(const std::filesystem::path& path, uint64_t max_bytes = kDefaultMaxSourceBytes);

// Reads all of standard input (capped like ReadFile).
Result<std::string> ReadStdin(uint64_t max_bytes = kDefaultMaxSourceBytes);

// Replaces `path` with `content` atomically, keeping the file's permission bits. A symlink is followed
// and its target is replaced, so the link stays a link.
Status WriteFileAtomically(const std::filesystem::path& path, std::string_view content);

}  // namespace tl
