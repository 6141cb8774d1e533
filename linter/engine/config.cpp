#include "linter/engine/config.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <toml++/toml.h>

#include "linter/core/fs.h"

namespace tl {
namespace {

constexpr uint64_t kMaxConfigBytes = 16u << 20;

std::string Where(const std::filesystem::path& file, const toml::node& node) {
  const auto& begin = node.source().begin;
  if (begin.line == 0) return file.string();
  return fmt::format("{}:{}:{}", file.string(), begin.line, begin.column);
}

Result<std::vector<std::string>> StringList(const std::filesystem::path& file, const toml::node& node,
                                            std::string_view key) {
  const toml::array* array = node.as_array();
  if (array == nullptr) {
    return Error{fmt::format("{}: `{}` must be a list of strings, e.g. {} = [\"TL1\"]", Where(file, node), key, key)};
  }
  std::vector<std::string> out;
  for (const toml::node& item : *array) {
    const auto* value = item.as_string();
    if (value == nullptr) return Error{fmt::format("{}: `{}` must hold only strings", Where(file, item), key)};
    out.push_back(value->get());
  }
  return out;
}

Result<std::vector<std::string>> SelectorList(const std::filesystem::path& file, const toml::node& node,
                                              std::string_view key) {
  auto list = StringList(file, node, key);
  if (!list.ok()) return list.error();
  std::vector<std::string> out;
  for (const std::string& selector : *list) {
    auto normalized = NormalizeSelector(selector);
    if (!normalized.ok()) return Error{fmt::format("{}: {}", Where(file, node), normalized.error().message)};
    out.push_back(std::move(*normalized));
  }
  return out;
}

Result<Config> ParseTable(const toml::table& table, const std::filesystem::path& file) {
  Config config;
  config.path = file;
  config.root = file.parent_path();
  for (const auto& [key_node, value] : table) {
    const std::string_view key = key_node.str();
    if (key == "select") {
      auto list = SelectorList(file, value, key);
      if (!list.ok()) return list.error();
      config.select = std::move(*list);
    } else if (key == "ignore") {
      auto list = SelectorList(file, value, key);
      if (!list.ok()) return list.error();
      config.ignore = std::move(*list);
    } else if (key == "exclude") {
      auto list = StringList(file, value, key);
      if (!list.ok()) return list.error();
      for (const std::string& text : *list) {
        if (auto pattern = PathPattern::Parse(text)) config.exclude.push_back(std::move(*pattern));
      }
    } else if (key == "per-file-ignores") {
      const toml::table* globs = value.as_table();
      if (globs == nullptr) {
        return Error{
            fmt::format("{}: `per-file-ignores` must be a table of pattern = [codes], e.g. "
                        "\"tests/**\" = [\"TL201\"]",
                        Where(file, value))};
      }
      for (const auto& [glob, codes] : *globs) {
        auto pattern = PathPattern::Parse(glob.str());
        if (!pattern) return Error{fmt::format("{}: empty pattern in `per-file-ignores`", Where(file, codes))};
        auto list = SelectorList(file, codes, "per-file-ignores");
        if (!list.ok()) return list.error();
        config.per_file_ignores.push_back({std::move(*pattern), std::move(*list)});
      }
    } else if (key == "target-torch") {
      const auto* text = value.as_string();
      std::optional<TorchVersion> version;
      if (text != nullptr) version = TorchVersion::Parse(text->get());
      if (!version) {
        return Error{fmt::format("{}: `target-torch` must be a version string such as \"2.1\"", Where(file, value))};
      }
      config.target_torch = version;
    } else if (key == "unsafe-fixes") {
      const auto* flag = value.as_boolean();
      if (flag == nullptr) return Error{fmt::format("{}: `unsafe-fixes` must be true or false", Where(file, value))};
      config.unsafe_fixes = flag->get();
    } else if (const FoundOption option = FindRuleOption(key); option.spec != nullptr) {
      const auto* number = value.as_integer();
      if (number == nullptr || !CheckRuleOption(*option.spec, number->get()).empty()) {
        return Error{fmt::format("{}: `{}` must be {} from {} to {} (default {})", Where(file, value), key,
                                 option.spec->min == 1 ? "a positive integer" : "an integer", option.spec->min,
                                 option.spec->max, option.spec->default_value)};
      }
      config.rule_options[std::string(key)] = number->get();
    } else {
      std::string keys = "select, ignore, per-file-ignores, target-torch, exclude, unsafe-fixes";
      for (const Rule* rule : AllRules()) {
        for (const RuleOptionSpec& spec : rule->Meta().options) keys += fmt::format(", {}", spec.key);
      }
      return Error{fmt::format("{}: unknown key `{}`; the keys are {}", Where(file, value), key, keys)};
    }
  }
  return config;
}

}  // namespace

Result<std::string> NormalizeSelector(std::string_view selector) {
  std::string upper;
  for (char c : selector) {
    if (c == ' ' || c == '\t') continue;
    upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  if (upper == "ALL") return std::string("TL");
  if (upper.size() >= 2) {
    for (const Rule* rule : AllRules()) {
      if (rule->Meta().code.starts_with(upper)) return upper;
    }
  }
  return Error{
      fmt::format("unknown rule selector `{}`; use a code such as TL101, a prefix such as TL1, or ALL "
                  "(`torchlint rules` lists the codes)",
                  selector)};
}

bool Config::Excludes(const std::filesystem::path& target, bool is_dir) const {
  if (exclude.empty()) return false;
  // Reuses the .gitignore semantics: exclude lists are short, so build the matcher on the fly.
  IgnoreFile file(root, exclude);
  return file.IgnoresPathOrParent(target, is_dir);
}

std::vector<std::string> Config::IgnoresFor(const std::filesystem::path& target) const {
  std::vector<std::string> codes;
  if (per_file_ignores.empty()) return codes;
  const auto relative = RelativeInside(target, root);
  if (!relative) return codes;
  for (const PerFileIgnore& entry : per_file_ignores) {
    // A pattern also matches the files inside a folder it names ("tests/" or "tests/**").
    bool matched = entry.pattern.Matches(*relative, false);
    if (!matched) {
      std::string_view rest = *relative;
      size_t slash = 0;
      while (!matched && (slash = rest.find('/', slash)) != std::string_view::npos) {
        matched = entry.pattern.Matches(rest.substr(0, slash), true);
        ++slash;
      }
    }
    if (matched) codes.insert(codes.end(), entry.codes.begin(), entry.codes.end());
  }
  return codes;
}

Result<std::optional<Config>> ParseConfig(std::string_view toml_text, const std::filesystem::path& file) {
  toml::table document;
  try {
    document = toml::parse(toml_text, file.string());
  } catch (const toml::parse_error& e) {
    const auto& begin = e.source().begin;
    return Error{fmt::format("{}:{}:{}: invalid TOML: {}; fix the file or pass another with --config", file.string(),
                             begin.line, begin.column, e.description())};
  }
  const bool is_pyproject = file.filename() == "pyproject.toml";
  if (!is_pyproject) {
    auto config = ParseTable(document, file);
    if (!config.ok()) return config.error();
    return std::optional<Config>(std::move(*config));
  }
  const toml::node* tool = document.get("tool");
  const toml::table* tool_table = tool != nullptr ? tool->as_table() : nullptr;
  const toml::node* section = tool_table != nullptr ? tool_table->get("torchlint") : nullptr;
  if (section == nullptr) return std::optional<Config>();
  const toml::table* table = section->as_table();
  if (table == nullptr) return Error{fmt::format("{}: [tool.torchlint] must be a table", Where(file, *section))};
  auto config = ParseTable(*table, file);
  if (!config.ok()) return config.error();
  return std::optional<Config>(std::move(*config));
}

Result<std::optional<Config>> LoadConfigFile(const std::filesystem::path& file) {
  auto text = ReadFile(file, kMaxConfigBytes);
  if (!text.ok()) return text.error();
  return ParseConfig(*text, file);
}

RuleSelection ResolveSelection(const Config& config, const CliOverrides& cli, const std::filesystem::path& file) {
  RuleSelection selection;
  if (cli.select) {
    selection.select = *cli.select;
  } else {
    if (config.select) selection.select = *config.select;
    selection.ignore = config.ignore;
  }
  selection.ignore.insert(selection.ignore.end(), cli.ignore.begin(), cli.ignore.end());
  std::vector<std::string> per_file = config.IgnoresFor(file);
  selection.ignore.insert(selection.ignore.end(), per_file.begin(), per_file.end());
  return selection;
}

ConfigResolver::ConfigResolver(std::optional<Config> forced) : defaults_(std::make_shared<const Config>()) {
  if (forced) forced_ = std::make_shared<const Config>(std::move(*forced));
}

Result<std::shared_ptr<const Config>> ConfigResolver::ForDirectory(const std::filesystem::path& dir) {
  if (forced_) return forced_;
  std::lock_guard lock(mutex_);
  // Walk up until a cached folder or a config is found, then cache the answer for every folder passed.
  std::vector<std::filesystem::path> visited;
  std::filesystem::path current = dir;
  Result<std::shared_ptr<const Config>> answer = defaults_;
  for (;;) {
    if (auto it = cache_.find(current); it != cache_.end()) {
      answer = it->second;
      break;
    }
    visited.push_back(current);
    bool found = false;
    for (const char* name : {"torchlint.toml", "pyproject.toml"}) {
      const std::filesystem::path candidate = current / name;
      std::error_code ec;
      if (!std::filesystem::is_regular_file(candidate, ec)) continue;
      auto loaded = LoadConfigFile(candidate);
      if (!loaded.ok()) {
        answer = loaded.error();
        found = true;
        break;
      }
      if (*loaded) {
        answer = std::shared_ptr<const Config>(std::make_shared<const Config>(std::move(**loaded)));
        found = true;
        break;
      }
    }
    if (found) break;
    const std::filesystem::path parent = current.parent_path();
    if (parent == current || parent.empty()) break;
    current = parent;
  }
  for (const auto& folder : visited) cache_.emplace(folder, answer);
  return answer;
}

TargetTorchSource ConfigureOptions(const Config& config, const CliOverrides& cli, const std::filesystem::path& absolute,
                                   const std::optional<TorchVersion>& trace_torch, TorchPinResolver& pins,
                                   CheckOptions& options) {
  TargetTorchSource source;
  options.selection = ResolveSelection(config, cli, absolute);
  RuleOptions& rule_options = options.rule_options;
  if (cli.target_torch) {
    rule_options.target_torch = *cli.target_torch;
    source.kind = TargetTorchSource::kCli;
  } else if (config.target_torch) {
    rule_options.target_torch = *config.target_torch;
    source.kind = TargetTorchSource::kConfig;
  } else if (trace_torch) {
    rule_options.target_torch = *trace_torch;
    source.kind = TargetTorchSource::kTrace;
  } else if (auto pin = pins.ForDirectory(absolute.parent_path())) {
    ApplyTorchPin(*pin, rule_options);
    source.kind = TargetTorchSource::kPin;
    source.pin = std::move(pin);
  } else {
    rule_options.target_torch_inferred = true;
  }
  rule_options.values = config.rule_options;
  for (const auto& [key, value] : cli.rule_options) rule_options.values[key] = value;
  return source;
}

namespace {

std::string TomlList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const std::string& item : items) out += fmt::format("{}\"{}\"", out.size() > 1 ? ", " : "", item);
  return out + "]";
}

}  // namespace

std::vector<ResolvedSetting> ExplainSettings(
    const Config& config, const CliOverrides& cli, const std::filesystem::path& absolute,
    const std::optional<TorchVersion>& trace_torch, TorchPinResolver& pins,
    const std::function<std::string(const std::filesystem::path&)>& show_path) {
  CheckOptions options;
  const TargetTorchSource target = ConfigureOptions(config, cli, absolute, trace_torch, pins, options);
  const std::string from_config = config.path.empty() ? "default" : show_path(config.path);
  auto either = [&](bool from_cli, bool in_config) {
    return from_cli ? std::string("the command line") : in_config ? from_config : std::string("default");
  };
  std::vector<ResolvedSetting> out;

  if (cli.select || config.select) {
    out.push_back(
        {"select", TomlList(cli.select ? *cli.select : *config.select), either(cli.select.has_value(), true)});
  } else {
    out.push_back({"select", "[] (the rules enabled by default)", "default"});
  }

  // Ruff's layering: a --select on the command line drops the config's ignores.
  std::vector<std::string> ignore = cli.select ? std::vector<std::string>{} : config.ignore;
  ignore.insert(ignore.end(), cli.ignore.begin(), cli.ignore.end());
  std::string ignore_source = "default";
  const bool config_ignores = !cli.select && !config.ignore.empty();
  if (config_ignores && !cli.ignore.empty()) {
    ignore_source = from_config + " and the command line";
  } else if (config_ignores || !cli.ignore.empty()) {
    ignore_source = either(!cli.ignore.empty(), true);
  }
  out.push_back({"ignore", TomlList(ignore), ignore_source});

  const std::vector<std::string> per_file = config.IgnoresFor(absolute);
  out.push_back({"per-file-ignores", TomlList(per_file), per_file.empty() ? "default" : from_config});

  std::string torch_value = fmt::format("\"{}\"", options.rule_options.target_torch.ToString());
  std::string torch_source;
  switch (target.kind) {
    case TargetTorchSource::kCli: torch_source = "the command line"; break;
    case TargetTorchSource::kConfig: torch_source = from_config; break;
    case TargetTorchSource::kTrace: torch_source = "the trace (--trace)"; break;
    case TargetTorchSource::kPin:
      torch_source = fmt::format("the torch pin `{}` in {}", target.pin->requirement, show_path(target.pin->source));
      break;
    case TargetTorchSource::kUnknown:
      torch_value += " (inferred from the code where it tells)";
      torch_source = "default";
      break;
  }
  out.push_back({"target-torch", torch_value, torch_source});

  std::vector<std::string> exclude;
  exclude.reserve(config.exclude.size());
  for (const PathPattern& pattern : config.exclude) exclude.push_back(pattern.text());
  out.push_back({"exclude", TomlList(exclude), exclude.empty() ? "default" : from_config});

  for (const Rule* rule : AllRules()) {
    for (const RuleOptionSpec& spec : rule->Meta().options) {
      out.push_back({std::string(spec.key), std::to_string(options.rule_options.Get(spec)),
                     either(cli.rule_options.contains(spec.key), config.rule_options.contains(spec.key))});
    }
  }
  return out;
}

}  // namespace tl
