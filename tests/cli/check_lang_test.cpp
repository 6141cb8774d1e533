// `torchlint check --lang zh`: the findings' sentences (messages, notes, fix titles) in Chinese in the
// text and github formats, compared with golden files; JSON and SARIF stay English (machine formats);
// a language torchlint does not have is a usage error.
#include <nlohmann/json.hpp>

#include "cli_support.h"

using tl::test::CheckGolden;
using tl::test::CliInputs;
using tl::test::RunTorchlint;

TEST_CASE("check --lang zh: text output in Chinese") {
  const auto zh = RunTorchlint({"check", "--lang", "zh", "demo"}, CliInputs());
  const auto en = RunTorchlint({"check", "demo"}, CliInputs());
  CHECK(zh.exit_code == 1);
  CHECK(zh.exit_code == en.exit_code);
  // The English sentences of the same findings are gone, the code in them stays.
  REQUIRE(en.out.find("loads every batch in the training process") != std::string::npos);
  CHECK(zh.out.find("loads every batch in the training process") == std::string::npos);
  CHECK(zh.out.find("`DataLoader` 未设置 `num_workers`，每个批次都在训练进程中加载") != std::string::npos);
  CHECK(zh.out.find("= 帮助: 添加 `num_workers=4`（不安全的修复）") != std::string::npos);
  CHECK(zh.out.find("help:") == std::string::npos);
  CHECK(zh.out.find("note:") == std::string::npos);
  CheckGolden("check_text_zh.txt", zh.Transcript());
  // --lang en is the default.
  CHECK(RunTorchlint({"check", "--lang", "en", "demo"}, CliInputs()).out == en.out);
}

TEST_CASE("check --lang zh: github annotations in Chinese") {
  const auto zh = RunTorchlint({"check", "--lang", "zh", "--output-format", "github", "demo"}, CliInputs());
  CHECK(zh.exit_code == 1);
  CHECK(zh.out.starts_with("::warning file=demo/"));
  CHECK(zh.out.find("批次从可分页内存复制到 GPU") != std::string::npos);
  CHECK(zh.out.find("copies batches from pageable memory") == std::string::npos);
}

TEST_CASE("check --lang zh: concise lines in Chinese, fix titles too with --show-fixes") {
  const auto zh = RunTorchlint({"check", "--lang", "zh", "--output-format", "concise", "--show-fixes", "demo"},
                               CliInputs());
  CHECK(zh.exit_code == 1);
  CHECK(zh.out.find("批次从可分页内存复制到 GPU") != std::string::npos);
  CHECK(zh.out.find("copies batches from pageable memory") == std::string::npos);
  CHECK(zh.out.find("(fix: 添加 `") != std::string::npos);
  CHECK(zh.err.find("发现 ") != std::string::npos);
}

TEST_CASE("check --lang zh: JSON and SARIF stay English") {
  for (const char* format : {"json", "sarif"}) {
    CAPTURE(format);
    const auto zh = RunTorchlint({"check", "--lang", "zh", "--output-format", format, "demo"}, CliInputs());
    const auto en = RunTorchlint({"check", "--output-format", format, "demo"}, CliInputs());
    CHECK(zh.exit_code == 1);
    CHECK(zh.out == en.out);
    CHECK(nlohmann::json::parse(zh.out).dump().find("训练") == std::string::npos);
  }
}

TEST_CASE("check --lang: an unknown or empty language is a usage error") {
  for (const char* lang : {"fr", "", "ZH", "zh,en", "\xff\xfe"}) {
    CAPTURE(lang);
    const auto result = RunTorchlint({"check", "--lang", lang, "demo"}, CliInputs());
    CHECK(result.exit_code == 2);
    CHECK(result.out.empty());
    // The first line says what is wrong (CLI11's usage error, as for every flag of the command line).
    CHECK(result.err.substr(0, result.err.find('\n')).find("--lang") != std::string::npos);
  }
  const auto missing = RunTorchlint({"check", "demo", "--lang"}, CliInputs());
  CHECK(missing.exit_code == 2);
  CHECK(missing.out.empty());
}
