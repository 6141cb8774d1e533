#include "traceio/string_pool.h"

#include <algorithm>
#include <cstring>

namespace tl::trace {

namespace {
constexpr size_t kBlockSize = 1 << 20;
}

StringPool::StringPool() {
  views_.emplace_back();
  index_.emplace(std::string_view(), kEmpty);
}

std::string_view StringPool::Store(std::string_view text) {
  if (text.empty()) return {};
  if (blocks_.empty() || block_used_ + text.size() > block_size_) {
    block_size_ = std::max(kBlockSize, text.size());
    blocks_.push_back(std::make_unique<char[]>(block_size_));
    block_used_ = 0;
  }
  char* dst = blocks_.back().get() + block_used_;
  std::memcpy(dst, text.data(), text.size());
  block_used_ += text.size();
  arena_bytes_ += text.size();
  return {dst, text.size()};
}

StringId StringPool::Intern(std::string_view text) {
  if (auto it = index_.find(text); it != index_.end()) return it->second;
  std::string_view stored = Store(text);
  auto id = static_cast<StringId>(views_.size());
  views_.push_back(stored);
  index_.emplace(stored, id);
  return id;
}

std::optional<StringId> StringPool::Find(std::string_view text) const {
  if (auto it = index_.find(text); it != index_.end()) return it->second;
  return std::nullopt;
}

}  // namespace tl::trace
