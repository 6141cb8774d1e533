// Helpers for the engine, config and output unit tests: a temporary folder that removes itself, and
// file writers, so discovery and config tests build real trees instead of mocking the file system.
#pragma once

#include <stdlib.h>  // NOLINT(modernize-deprecated-headers): POSIX mkdtemp

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace tl::test {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "torchlint-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    // Canonical, so results compare equal to what the engine computes (/tmp may be a link).
    path_ = std::filesystem::canonical(pattern);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    // Folders made unreadable by a test must be readable again to be removed.
    for (auto it = std::filesystem::recursive_directory_iterator(
             path_, std::filesystem::directory_options::skip_permission_denied, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory(ec) && !it->is_symlink(ec)) {
        std::filesystem::permissions(it->path(), std::filesystem::perms::owner_all, std::filesystem::perm_options::add,
                                     ec);
      }
    }
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(std::string_view relative) const { return path_ / relative; }

  // Writes `text` to `relative`, creating parent folders.
  std::filesystem::path Write(std::string_view relative, std::string_view text) const {
    std::filesystem::path file = path_ / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    return file;
  }

 private:
  std::filesystem::path path_;
};

// A CUDA training loop (under autocast) that calls `log_loss(loss)` of the project module `module` on every
// step.
inline std::string ProjectLoop(std::string_view module) {
  return "import torch\nfrom " + std::string(module) + R"( import log_loss

model = torch.nn.Linear(8, 8).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x in loader:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
    log_loss(loss)
)";
}

inline std::string ReadAllText(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace tl::test
