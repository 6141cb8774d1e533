#include "traceio/string_pool.h"

#include <algorithm>
#include <cstring>

namespace tl::trace {

namespace {
constexpr size_t kBlockSize = 1 << 20;

// A fast hash for short keys (names, categories, pids): 8 bytes at a time, multiply-xorshift mixing.
inline uint32_t Hash(std::string_view s) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ (s.size() * 0xff51afd7ed558ccdULL);
  const char* p = s.data();
  size_t n = s.size();
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 31;
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * 0x94d049bb133111ebULL;
    h ^= h >> 29;
  }
  h *= 0xbf58476d1ce4e5b9ULL;
  return static_cast<uint32_t>(h >> 32);
}
}  // namespace

StringPool::StringPool() {
  views_.emplace_back();
  hashes_.push_back(Hash({}));
  slots_.assign(64, 0);
  slots_[hashes_[0] & (slots_.size() - 1)] = 1;
}

void StringPool::Grow() {
  std::vector<uint32_t> slots(slots_.size() * 2, 0);
  const size_t mask = slots.size() - 1;
  for (uint32_t id = 0; id < views_.size(); ++id) {
    size_t i = hashes_[id] & mask;
    while (slots[i] != 0) i = (i + 1) & mask;
    slots[i] = id + 1;
  }
  slots_.swap(slots);
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

size_t StringPool::Probe(std::string_view text, uint32_t h) const {
  const size_t mask = slots_.size() - 1;
  size_t i = h & mask;
  for (; slots_[i] != 0; i = (i + 1) & mask) {
    const uint32_t id = slots_[i] - 1;
    if (hashes_[id] == h && views_[id] == text) break;
  }
  return i;
}

StringId StringPool::Intern(std::string_view text) {
  const uint32_t h = Hash(text);
  const size_t i = Probe(text, h);
  if (slots_[i] != 0) return slots_[i] - 1;
  std::string_view stored = Store(text);
  auto id = static_cast<StringId>(views_.size());
  views_.push_back(stored);
  hashes_.push_back(h);
  slots_[i] = id + 1;
  if (views_.size() * 2 > slots_.size()) Grow();  // load factor at most 1/2
  return id;
}

std::optional<StringId> StringPool::Find(std::string_view text) const {
  const size_t i = Probe(text, Hash(text));
  if (slots_[i] == 0) return std::nullopt;
  return slots_[i] - 1;
}

}  // namespace tl::trace
