// Interned strings for the trace store. Event names, categories, file paths and call stacks repeat
// millions of times in a large trace; storing each distinct text once and referring to it by a 32-bit id
// keeps the event columns small and turns name comparisons into integer comparisons.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tl::trace {

using StringId = uint32_t;

class StringPool {
 public:
  // Id 0 is always the empty string, so a zero-initialised column means "no name".
  static constexpr StringId kEmpty = 0;

  StringPool();
  StringPool(StringPool&&) noexcept = default;
  StringPool& operator=(StringPool&&) noexcept = default;
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;

  StringId Intern(std::string_view text);
  // The id of `text` if it was interned, without adding it.
  std::optional<StringId> Find(std::string_view text) const;
  std::string_view Get(StringId id) const { return views_[id]; }
  size_t size() const { return views_.size(); }
  size_t bytes() const { return arena_bytes_; }

 private:
  // Text lives in fixed-size blocks that never move, so the string_views stay valid as the pool grows.
  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t block_used_ = 0;
  size_t block_size_ = 0;
  size_t arena_bytes_ = 0;
  std::vector<std::string_view> views_;
  // Open addressing over ids: slot holds id + 1 (0 empty); hashes_[id] is the full hash of views_[id],
  // so probing and growing compare or rehash no text.
  std::vector<uint32_t> slots_;
  std::vector<uint32_t> hashes_;

  // The slot holding `text` (hash `h`), or the empty slot where it would go.
  size_t Probe(std::string_view text, uint32_t h) const;
  std::string_view Store(std::string_view text);
  void Grow();
};

}  // namespace tl::trace
