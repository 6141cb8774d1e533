// A trace past 2 GiB: offsets and counters must not wrap at 2^31. Generated on the fly by a ByteSource
// (nothing on disk); slow, so it runs only with TORCHLINT_LARGE_TESTS=1 and says "skipped:" otherwise.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <iostream>

#include "tests/traceio/helpers.h"

using namespace tl::trace;

namespace {

class GeneratedSource final : public ByteSource {
 public:
  explicit GeneratedSource(uint64_t events) : events_(events) { pending_ = R"({"traceEvents": [)"; }
  SourceRead Read(char* dst, size_t capacity) override {
    size_t n = 0;
    while (n < capacity) {
      if (pos_ == pending_.size()) {
        if (!Next()) break;
      }
      size_t take = std::min(capacity - n, pending_.size() - pos_);
      std::memcpy(dst + n, pending_.data() + pos_, take);
      pos_ += take;
      n += take;
    }
    total_ += n;
    return {n, {}};
  }
  uint64_t total() const { return total_; }

 private:
  bool Next() {
    if (done_) return false;  // stays at the end: a later Read must not hand out "]}" again
    pos_ = 0;
    if (emitted_ == events_) {
      pending_ = "]}";
      done_ = true;
      return true;
    }
    // ~1 KiB per event: a padded args string the reader skips.
    pending_ = fmt::format(
        R"({}{{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": {}, "dur": 1, "args": {{"pad": "{}"}}}})",
        emitted_ == 0 ? "" : ",", emitted_ * 2, std::string(960, 'p'));
    ++emitted_;
    return true;
  }
  uint64_t events_;
  uint64_t emitted_ = 0;
  bool done_ = false;
  std::string pending_;
  size_t pos_ = 0;
  uint64_t total_ = 0;
};

}  // namespace

TEST_CASE("a trace larger than 2 GiB") {
  const char* env = std::getenv("TORCHLINT_LARGE_TESTS");
  if (env == nullptr || std::string(env) != "1") {
    std::cout << "skipped: the 2 GiB trace test (set TORCHLINT_LARGE_TESTS=1)\n";
    return;
  }
  constexpr uint64_t kEvents = 2'300'000;
  GeneratedSource source(kEvents);
  auto r = ReadTraceSource(source, "generated.json");
  REQUIRE(r.ok());
  CHECK_MESSAGE(r.warnings.empty(), (r.warnings.empty() ? std::string() : r.warnings.front()));
  CHECK(source.total() > (uint64_t{2} << 30));
  CHECK(r.stats.bytes == source.total());
  CHECK(r.trace->size() == kEvents);
  CHECK(r.trace->ts(static_cast<uint32_t>(kEvents - 1)) == static_cast<int64_t>((kEvents - 1) * 2000));
}
