#include "linter/cli/app_text.h"

#include <fmt/core.h>

#include <algorithm>
#include <numeric>

#include "linter/core/fs.h"

namespace tl::cli {
namespace {

// One command of the tree: "" for the root, "trace diff" for a nested one.
struct CommandNode {
  std::string path;
  const CLI::App* app = nullptr;
};

bool Visible(const CLI::App* app) { return !app->get_group().empty(); }

void Collect(const CLI::App* app, const std::string& path, std::vector<CommandNode>& out) {
  out.push_back({path, app});
  for (const CLI::App* sub : app->get_subcommands([](const CLI::App* a) { return Visible(a); })) {
    Collect(sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), out);
  }
}

std::vector<CommandNode> Commands(const CLI::App& app) {
  std::vector<CommandNode> out;
  Collect(&app, "", out);
  return out;
}

const CLI::App* FindSubcommand(const CLI::App* app, std::string_view name) {
  for (const CLI::App* sub : app->get_subcommands([](const CLI::App* a) { return Visible(a); })) {
    if (sub->get_name() == name) return sub;
  }
  return nullptr;
}

std::vector<std::string> SubcommandNames(const CLI::App* app) {
  std::vector<std::string> out;
  for (const CLI::App* sub : app->get_subcommands([](const CLI::App* a) { return Visible(a); }))
    out.push_back(sub->get_name());
  return out;
}

// What the completions and the man page need to know of one option.
struct OptionInfo {
  std::vector<std::string> names;  // "-o", "--output"
  std::string description;
  std::string value;                 // "FILE", "UINT"; empty for a flag
  std::vector<std::string> choices;  // the values of an enumerated option
  bool positional = false;
};

// The values CLI::IsMember checks, which CLI11 renders as "{a,b,c}" in the option's type name.
std::vector<std::string> Choices(const std::string& type_name) {
  std::vector<std::string> out;
  const size_t open = type_name.find('{');
  const size_t close = type_name.find('}', open);
  if (open == std::string::npos || close == std::string::npos) return out;
  const std::string_view inner = std::string_view(type_name).substr(open + 1, close - open - 1);
  size_t start = 0;
  while (start <= inner.size()) {
    size_t comma = inner.find(',', start);
    if (comma == std::string_view::npos) comma = inner.size();
    if (comma > start) out.emplace_back(inner.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::vector<OptionInfo> Options(const CLI::App* app) {
  std::vector<OptionInfo> out;
  for (const CLI::Option* opt : app->get_options()) {
    if (opt->get_group().empty()) continue;
    OptionInfo info;
    info.positional = !opt->nonpositional();
    info.description = opt->get_description();
    if (info.positional) {
      info.names.push_back(opt->get_name(true));
    } else {
      for (const std::string& s : opt->get_snames()) info.names.push_back("-" + s);
      for (const std::string& l : opt->get_lnames()) info.names.push_back("--" + l);
    }
    if (opt->get_items_expected_max() > 0) {
      const std::string type_name = opt->get_type_name();
      info.choices = Choices(type_name);
      info.value = type_name.substr(0, type_name.find(':'));
      if (info.value.empty()) info.value = "VALUE";
    }
    out.push_back(std::move(info));
  }
  return out;
}

std::string Join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

// --- man(7) -----------------------------------------------------------------------------------------

// Text as roff reads it: backslashes and hyphens escaped, and a line never starting with a control
// character.
std::string Roff(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    line_start = c == '\n';
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  return out;
}

std::string ManOptionLabel(const OptionInfo& info) {
  std::vector<std::string> names;
  names.reserve(info.names.size());
  for (const std::string& name : info.names) names.push_back("\\fB" + Roff(name) + "\\fR");
  std::string label = Join(names, ", ");
  if (info.positional) return "\\fI" + Roff(info.names.front()) + "\\fR";
  if (!info.choices.empty()) return label + " \\fI" + Roff(Join(info.choices, "|")) + "\\fR";
  if (!info.value.empty()) return label + " \\fI" + Roff(info.value) + "\\fR";
  return label;
}

std::string ManSynopsis(const CommandNode& node) {
  std::string out = "torchlint";
  if (!node.path.empty()) out += " " + node.path;
  out += " [OPTIONS]";
  for (const OptionInfo& info : Options(node.app)) {
    if (info.positional) out += " " + info.names.front();
  }
  if (!SubcommandNames(node.app).empty() && !node.path.empty()) out += " [COMMAND]";
  return out;
}

// --- shells -----------------------------------------------------------------------------------------

std::string ShellSingleQuoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string FishQuoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// The names of a command's options that take a value, grouped: enumerated ones with their values, and
// the others (paths and numbers), which complete as file names.
struct ValueOptions {
  std::vector<std::pair<std::string, std::vector<std::string>>> enumerated;
  std::vector<std::string> free;
};

ValueOptions ValueOptionsOf(const std::vector<OptionInfo>& options) {
  ValueOptions out;
  for (const OptionInfo& info : options) {
    if (info.positional || info.value.empty()) continue;
    if (info.choices.empty()) {
      out.free.insert(out.free.end(), info.names.begin(), info.names.end());
    } else {
      out.enumerated.emplace_back(Join(info.names, "|"), info.choices);
    }
  }
  return out;
}

std::vector<std::string> FlagNames(const std::vector<OptionInfo>& options) {
  std::vector<std::string> out;
  for (const OptionInfo& info : options) {
    if (!info.positional) out.insert(out.end(), info.names.begin(), info.names.end());
  }
  return out;
}

// The word loop both bash and zsh run: the deepest command the words typed so far name.
std::string CommandPathCase(const std::vector<CommandNode>& commands) {
  std::vector<std::string> paths;
  for (const CommandNode& node : commands) {
    if (!node.path.empty()) paths.push_back(ShellSingleQuoted(node.path));
  }
  return Join(paths, "|");
}

std::string BashCompletion(const CLI::App& app) {
  const std::vector<CommandNode> commands = Commands(app);
  std::string out =
      "# bash completion for torchlint, generated from its command line by `torchlint --write-share`.\n"
      "_torchlint() {\n"
      "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"\" cmd=\"\" candidate i\n"
      "  ((COMP_CWORD > 0)) && prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    candidate=\"${cmd:+$cmd }${COMP_WORDS[i]}\"\n"
      "    case \"$candidate\" in\n";
  out += fmt::format("      {}) cmd=\"$candidate\" ;;\n", CommandPathCase(commands));
  out +=
      "    esac\n"
      "  done\n"
      "  local words=\"\" flags=\"\"\n"
      "  case \"$cmd\" in\n";
  for (const CommandNode& node : commands) {
    const std::vector<OptionInfo> options = Options(node.app);
    const ValueOptions values = ValueOptionsOf(options);
    out += fmt::format("    {})\n", ShellSingleQuoted(node.path));
    out += "      case \"$prev\" in\n";
    for (const auto& [names, choices] : values.enumerated) {
      out += fmt::format("        {}) COMPREPLY=($(compgen -W {} -- \"$cur\")); return ;;\n", names,
                         ShellSingleQuoted(Join(choices, " ")));
    }
    if (!values.free.empty()) {
      // Empty, so that `complete -o default` offers file names.
      out += fmt::format("        {}) COMPREPLY=(); return ;;\n", Join(values.free, "|"));
    }
    out += "      esac\n";
    out += fmt::format("      words={}\n", ShellSingleQuoted(Join(SubcommandNames(node.app), " ")));
    out += fmt::format("      flags={}\n", ShellSingleQuoted(Join(FlagNames(options), " ")));
    out += "      ;;\n";
  }
  out +=
      "  esac\n"
      "  if [[ \"$cur\" == -* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n"
      "  elif [[ -n \"$words\" ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
      "  else\n"
      "    COMPREPLY=()\n"
      "  fi\n"
      "}\n"
      "complete -o default -F _torchlint torchlint\n";
  return out;
}

std::string ZshArray(const std::vector<std::string>& items) {
  std::vector<std::string> quoted;
  quoted.reserve(items.size());
  for (const std::string& item : items) quoted.push_back(ShellSingleQuoted(item));
  return "(" + Join(quoted, " ") + ")";
}

std::string ZshCompletion(const CLI::App& app) {
  const std::vector<CommandNode> commands = Commands(app);
  std::string out =
      "#compdef torchlint\n"
      "# zsh completion for torchlint, generated from its command line by `torchlint --write-share`.\n"
      "_torchlint() {\n"
      "  local cur=\"${words[CURRENT]}\" prev=\"${words[CURRENT-1]}\" cmd=\"\" candidate i\n"
      "  local -a subs flags\n"
      "  for ((i = 2; i < CURRENT; i++)); do\n"
      "    candidate=\"${cmd:+$cmd }${words[i]}\"\n"
      "    case \"$candidate\" in\n";
  out += fmt::format("      ({}) cmd=\"$candidate\" ;;\n", CommandPathCase(commands));
  out +=
      "    esac\n"
      "  done\n"
      "  case \"$cmd\" in\n";
  for (const CommandNode& node : commands) {
    const std::vector<OptionInfo> options = Options(node.app);
    const ValueOptions values = ValueOptionsOf(options);
    out += fmt::format("    ({})\n", ShellSingleQuoted(node.path));
    out += "      case \"$prev\" in\n";
    for (const auto& [names, choices] : values.enumerated) {
      out += fmt::format("        ({}) compadd -- {}; return ;;\n", names, Join(choices, " "));
    }
    if (!values.free.empty()) out += fmt::format("        ({}) _files; return ;;\n", Join(values.free, "|"));
    out += "      esac\n";
    out += fmt::format("      subs={}\n", ZshArray(SubcommandNames(node.app)));
    out += fmt::format("      flags={}\n", ZshArray(FlagNames(options)));
    out += "      ;;\n";
  }
  out +=
      "  esac\n"
      "  if [[ \"$cur\" == -* ]]; then\n"
      "    compadd -- $flags\n"
      "  elif (( ${#subs} )); then\n"
      "    compadd -- $subs\n"
      "  else\n"
      "    _files\n"
      "  fi\n"
      "}\n"
      "_torchlint \"$@\"\n";
  return out;
}

// fish's condition for "the words so far name exactly this command".
std::string FishCondition(const CLI::App& root, const CommandNode& node) {
  if (node.path.empty()) return "__fish_use_subcommand";
  std::vector<std::string> parts;
  const CLI::App* current = &root;
  size_t start = 0;
  while (start < node.path.size()) {
    size_t space = node.path.find(' ', start);
    if (space == std::string::npos) space = node.path.size();
    const std::string name = node.path.substr(start, space - start);
    parts.push_back("__fish_seen_subcommand_from " + name);
    current = FindSubcommand(current, name);
    if (current == nullptr) break;
    start = space + 1;
  }
  if (current != nullptr) {
    const std::vector<std::string> subs = SubcommandNames(current);
    if (!subs.empty()) parts.push_back("not __fish_seen_subcommand_from " + Join(subs, " "));
  }
  return Join(parts, "; and ");
}

std::string FishCompletion(const CLI::App& app) {
  const std::vector<CommandNode> commands = Commands(app);
  std::string out =
      "# fish completion for torchlint, generated from its command line by `torchlint --write-share`.\n"
      "complete -c torchlint -f\n";
  for (const CommandNode& node : commands) {
    const std::string condition = FishQuoted(FishCondition(app, node));
    for (const CLI::App* sub : node.app->get_subcommands([](const CLI::App* a) { return Visible(a); })) {
      out += fmt::format("complete -c torchlint -n {} -a {} -d {}\n", condition, sub->get_name(),
                         FishQuoted(sub->get_description()));
    }
    bool takes_files = false;
    for (const OptionInfo& info : Options(node.app)) {
      if (info.positional) {
        takes_files = true;
        continue;
      }
      std::string names;
      for (const std::string& name : info.names) {
        names += name.starts_with("--") ? " -l " + name.substr(2) : " -s " + name.substr(1);
      }
      std::string value;
      if (!info.choices.empty()) {
        value = " -x -a " + FishQuoted(Join(info.choices, " "));
      } else if (!info.value.empty()) {
        value = " -r -F";
      }
      out += fmt::format("complete -c torchlint -n {}{}{} -d {}\n", condition, names, value,
                         FishQuoted(info.description));
    }
    if (takes_files) out += fmt::format("complete -c torchlint -n {} -F\n", condition);
  }
  return out;
}

}  // namespace

std::string RenderManPage(const CLI::App& app, std::string_view version) {
  std::string out = fmt::format(
      ".\\\" Generated from torchlint's command line by `torchlint --write-share`; do not edit.\n"
      ".TH TORCHLINT 1 \"\" \"{}\" \"User Commands\"\n"
      ".SH NAME\n"
      "torchlint \\- {}\n"
      ".SH SYNOPSIS\n"
      ".B torchlint\n"
      "\\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGS\\fR...]\n"
      ".br\n"
      ".B torchlint\n"
      "\\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR\n"
      ".SH DESCRIPTION\n"
      "torchlint checks PyTorch training scripts for performance anti\\-patterns and cross\\-checks its findings "
      "against profiler traces. Each command below has its own options; \\fBtorchlint \\fICOMMAND\\fB "
      "\\-\\-help\\fR prints them too.\n"
      ".SH COMMANDS\n",
      Roff(version), Roff(app.get_description().substr(app.get_description().find(':') + 2)));
  for (const CommandNode& node : Commands(app)) {
    if (node.path.empty()) continue;
    out += fmt::format(".SS \"{}\"\n{}\n", Roff(ManSynopsis(node)), Roff(node.app->get_description()));
    for (const OptionInfo& info : Options(node.app)) {
      out += fmt::format(".TP\n{}\n{}\n", ManOptionLabel(info), Roff(info.description));
    }
    if (const std::string footer = node.app->get_footer(); !footer.empty()) out += ".PP\n" + Roff(footer) + "\n";
  }
  out +=
      ".SH EXIT STATUS\n"
      ".TP\n.B 0\nNo findings (check), or the input was analysed cleanly.\n"
      ".TP\n.B 1\nFindings (under \\fB\\-\\-fail\\-on\\fR, the ones that count), or a trace read with warnings.\n"
      ".TP\n.B 2\nA usage error, or input that could not be read; the message is one line on standard error.\n"
      ".SH ENVIRONMENT\n"
      ".TP\n.B NO_COLOR\nWhen set and not empty, \\fB\\-\\-color auto\\fR (the default) does not colour the output.\n"
      ".TP\n.B TERM\nWhen \\fBdumb\\fR, \\fB\\-\\-color auto\\fR does not colour the output.\n"
      ".SH FILES\n"
      ".TP\n.I pyproject.toml\nThe \\fB[tool.torchlint]\\fR table configures the files below its folder "
      "(select, ignore, exclude, target\\-torch and the rules' options).\n"
      ".TP\n.I torchlint.toml\nThe same keys at the top level; it wins over a pyproject.toml in the same folder.\n"
      ".SH SEE ALSO\n"
      "\\fBtorchlint rules\\fR lists the rules and \\fBtorchlint rule \\fICODE\\fR prints one rule's "
      "documentation.\n";
  return out;
}

std::string RenderCompletion(const CLI::App& app, Shell shell) {
  switch (shell) {
    case Shell::kBash: return BashCompletion(app);
    case Shell::kZsh: return ZshCompletion(app);
    case Shell::kFish: return FishCompletion(app);
  }
  return {};
}

Status WriteShareFiles(const CLI::App& app, std::string_view version, const std::filesystem::path& dir) {
  const std::pair<std::filesystem::path, std::string> files[] = {
      {"man/man1/torchlint.1", RenderManPage(app, version)},
      {"bash-completion/completions/torchlint", RenderCompletion(app, Shell::kBash)},
      {"zsh/site-functions/_torchlint", RenderCompletion(app, Shell::kZsh)},
      {"fish/vendor_completions.d/torchlint.fish", RenderCompletion(app, Shell::kFish)},
  };
  for (const auto& [relative, text] : files) {
    const std::filesystem::path path = dir / relative;
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) return Error{fmt::format("cannot create {}: {}", path.parent_path().string(), ec.message())};
    if (auto written = WriteFileAtomically(path, text); !written.ok()) return written.error();
  }
  return Ok{};
}

size_t EditDistance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic programme: two back for the transposition.
  std::vector<size_t> before(b.size() + 1);
  std::vector<size_t> previous(b.size() + 1);
  std::vector<size_t> current(b.size() + 1);
  std::iota(previous.begin(), previous.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        current[j] = std::min(current[j], before[j - 2] + 1);
    }
    before.swap(previous);
    previous.swap(current);
  }
  return previous[b.size()];
}

std::optional<std::string> NearestName(std::string_view word, const std::vector<std::string>& candidates) {
  const size_t limit = std::max<size_t>(1, word.size() / 3);
  std::optional<std::string> best;
  size_t best_distance = limit + 1;
  for (const std::string& candidate : candidates) {
    const size_t distance = EditDistance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

std::optional<std::string> UnknownNameError(const CLI::App& app, int argc, const char* const* argv) {
  const CLI::App* current = &app;
  std::string path;
  bool after_separator = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") after_separator = true;
    if (after_separator || word == "-" || word.empty()) continue;
    if (word.starts_with("--")) {
      const std::string name(word.substr(0, word.find('=')));
      if (current->get_option_no_throw(name) != nullptr) continue;
      std::vector<std::string> flags;
      for (const OptionInfo& info : Options(current)) {
        if (!info.positional) flags.insert(flags.end(), info.names.begin(), info.names.end());
      }
      if (name == "--help" || std::find(flags.begin(), flags.end(), name) != flags.end()) continue;
      const std::string where = path.empty() ? "torchlint" : "`" + path + "`";
      const std::optional<std::string> nearest = NearestName(name, flags);
      return fmt::format("unknown option `{}` for {}{}", name, where,
                         nearest ? fmt::format("; did you mean `{}`?", *nearest)
                                 : fmt::format("; `torchlint {}{}--help` lists them", path, path.empty() ? "" : " "));
    }
    if (word.starts_with("-")) continue;
    const std::vector<std::string> names = SubcommandNames(current);
    if (names.empty()) continue;  // an argument of the command
    if (const CLI::App* sub = FindSubcommand(current, word); sub != nullptr) {
      current = sub;
      path = path.empty() ? std::string(word) : path + " " + std::string(word);
      continue;
    }
    if (current != &app) continue;  // `trace PATH`: a command with subcommands may take arguments too
    const std::optional<std::string> nearest = NearestName(word, names);
    return fmt::format("unknown command `{}`; {}", word,
                       nearest ? fmt::format("did you mean `{}`?", *nearest)
                               : fmt::format("the commands are {}", Join(names, ", ")));
  }
  return std::nullopt;
}

}  // namespace tl::cli
