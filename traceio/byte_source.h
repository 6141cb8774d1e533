// Where the reader's bytes come from: a plain file, a gzip file inflated on the fly, or memory (tests).
// Sources hand out the decompressed stream in chunks, so the reader never holds the whole file, and a
// gzip source enforces a cap on the decompressed size so that a gz bomb ends in an error, not an OOM.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

namespace tl::trace {

struct SourceRead {
  size_t bytes = 0;     // 0 with an empty error means the end of the stream
  std::string error;    // a complete sentence when reading failed
  bool refuse = false;  // the input must not be analysed at all, not even the part read (a gz bomb)
};

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual SourceRead Read(char* dst, size_t capacity) = 0;
  // Size on disk (compressed size for gzip), for progress and MB/s figures; 0 when unknown.
  virtual uint64_t StoredSize() const { return 0; }
  // Bytes of the stored file consumed so far (compressed bytes for gzip), for progress.
  virtual uint64_t StoredRead() const { return 0; }
  virtual bool compressed() const { return false; }
};

struct SourceLimits {
  // Decompressed bytes a gzip input may expand to. Plain files are not capped: they are already on disk.
  uint64_t max_decompressed_bytes = uint64_t{16} << 30;
  // Past `ratio_check_after` decompressed bytes, a compression ratio above this is treated as a bomb.
  // Real Kineto traces compress 5-30x (the shared corpus: 15-30x); a bomb of repeated events compresses
  // 150-300x, one of whitespace more than 1000x.
  double max_ratio = 100.0;
  uint64_t ratio_check_after = uint64_t{256} << 20;
};

// Opens `path`, sniffing the gzip magic rather than trusting the extension. Returns nullptr and sets
// `error` when the file cannot be opened.
std::unique_ptr<ByteSource> OpenSource(const std::string& path, const SourceLimits& limits, std::string& error);

// A source over bytes in memory; gzip data is inflated like a file's.
std::unique_ptr<ByteSource> MemorySource(std::string data, const SourceLimits& limits = {});

}  // namespace tl::trace
