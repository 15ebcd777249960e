// `harness completion bash|zsh|fish` and the manual page (`harness
// man-page`, run at build time into harness.1): both written from the
// command line's own tables (the CLI11 apps cli.cc builds from kCommands), so
// a new command or option appears in them without an edit here.
#include <functional>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/cli/commands.h"

namespace harness {
namespace {

struct CliOption {
  std::vector<std::string> names;  // "--quiet", "-q"
  bool takes_value = false;
  std::string value;  // "TEXT", "INT"
  std::string description;
};

struct CliCommand {
  std::string path;  // "" for harness itself, "baseline set"
  std::string name, description;
  std::vector<CliOption> options;
  std::vector<std::string> positionals;
  std::vector<CliCommand> subcommands;
};

CliCommand describe(const CLI::App& app, const std::string& path) {
  CliCommand c;
  c.path = path;
  c.name = app.get_name();
  c.description = app.get_description();
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_positional()) {
      c.positionals.push_back(o->get_name(true));
      continue;
    }
    CliOption opt;
    for (const std::string& l : o->get_lnames()) opt.names.push_back("--" + l);
    for (const std::string& s : o->get_snames()) opt.names.push_back("-" + s);
    if (opt.names.empty()) continue;
    opt.takes_value = o->get_expected_max() != 0;  // a flag expects no value
    opt.value = o->get_type_name();
    opt.description = o->get_description();
    c.options.push_back(std::move(opt));
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); }))
    c.subcommands.push_back(describe(*sub, path.empty() ? sub->get_name() : path + " " + sub->get_name()));
  return c;
}

void walk(const CliCommand& c, const std::function<void(const CliCommand&)>& visit) {
  visit(c);
  for (const CliCommand& s : c.subcommands) walk(s, visit);
}

std::string words_of(const CliCommand& c) {
  std::vector<std::string> words;
  for (const CliOption& o : c.options) words.insert(words.end(), o.names.begin(), o.names.end());
  for (const CliCommand& s : c.subcommands) words.push_back(s.name);
  return fmt::format("{}", fmt::join(words, " "));
}

std::string slashed(const std::string& path) {
  std::string s = "/" + path;
  for (char& ch : s) ch = ch == ' ' ? '/' : ch;
  return path.empty() ? "" : s;
}

std::string bash_script(const CliCommand& root) {
  std::string paths, words, valued;
  walk(root, [&](const CliCommand& c) {
    if (!c.path.empty()) paths += (paths.empty() ? "" : "|") + slashed(c.path);
    words += fmt::format("    \"{}\") words=\"{}\"{} ;;\n", slashed(c.path), words_of(c),
                         c.positionals.empty() ? "" : "; files=1");
    for (const CliOption& o : c.options)
      if (o.takes_value)
        for (const std::string& n : o.names) valued += (valued.empty() ? "" : "|") + n;
  });
  return fmt::format(R"(# bash completion for harness, written by `harness completion bash`.
_harness() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}} path="" words files="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "$path/${{COMP_WORDS[i]}}" in
      {}) path="$path/${{COMP_WORDS[i]}}" ;;
    esac
  done
  case "$prev" in
    {}) COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  case "$path" in
{}  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
  [[ $cur == -* || -z $files ]] || COMPREPLY+=($(compgen -f -- "$cur"))
}}
complete -o filenames -F _harness harness
)",
                     paths, valued, words);
}

std::string zsh_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '\'') out += "'\\''";
    else if (ch == '[' || ch == ']' || ch == ':' || ch == '\\') out += std::string("\\") + ch;
    else out += ch;
  }
  return out;
}

std::string zsh_script(const CliCommand& root) {
  std::string paths, cases;
  walk(root, [&](const CliCommand& c) {
    if (!c.path.empty()) paths += (paths.empty() ? "" : "|") + slashed(c.path);
    std::string args;
    for (const CliOption& o : c.options)
      for (const std::string& n : o.names)
        args += fmt::format(" '{}[{}]{}'", n, zsh_escape(o.description), o.takes_value ? ":value:_files" : "");
    std::string subs;
    for (const CliCommand& s : c.subcommands) subs += fmt::format(" '{}:{}'", s.name, zsh_escape(s.description));
    cases += fmt::format("    \"{}\")\n", slashed(c.path));
    if (!subs.empty()) cases += fmt::format("      local -a commands=({})\n      _describe -t commands 'harness command' commands\n", subs);
    cases += fmt::format("      _arguments -s{} '*:file:_files' ;;\n", args);
  });
  return fmt::format(R"(#compdef harness
# zsh completion for harness, written by `harness completion zsh`.
_harness() {{
  local path="" i
  for ((i = 2; i < CURRENT; i++)); do
    case "$path/${{words[i]}}" in
      {}) path="$path/${{words[i]}}" ;;
    esac
  done
  case "$path" in
{}  esac
}}
compdef _harness harness
)",
                     paths, cases);
}

std::string fish_escape(const std::string& s) {
  std::string out;
  for (char ch : s) out += ch == '\'' ? std::string("\\'") : std::string(1, ch);
  return out;
}

std::string fish_script(const CliCommand& root) {
  std::string out = "# fish completion for harness, written by `harness completion fish`.\ncomplete -c harness -f\n";
  walk(root, [&](const CliCommand& c) {
    std::string condition = "__fish_use_subcommand";
    if (!c.path.empty()) {
      std::istringstream words(c.path);
      std::vector<std::string> parts;
      for (std::string w; words >> w;) parts.push_back("__fish_seen_subcommand_from " + w);
      condition = fmt::format("{}", fmt::join(parts, "; and "));
    }
    for (const CliCommand& s : c.subcommands)
      out += fmt::format("complete -c harness -n '{}' -a {} -d '{}'\n", condition, s.name, fish_escape(s.description));
    for (const CliOption& o : c.options) {
      std::string flags;
      for (const std::string& n : o.names) flags += n.starts_with("--") ? " -l " + n.substr(2) : " -s " + n.substr(1);
      out += fmt::format("complete -c harness -n '{}'{}{} -d '{}'\n", condition, flags, o.takes_value ? " -r -F" : "",
                         fish_escape(o.description));
    }
    if (!c.positionals.empty()) out += fmt::format("complete -c harness -n '{}' -F\n", condition);
  });
  return out;
}

// roff: a line must not start with '.' or '\'', and backslashes are escapes.
std::string roff(const std::string& s) {
  std::string out;
  for (char ch : s) out += ch == '\\' ? std::string("\\e") : ch == '-' ? std::string("\\-") : std::string(1, ch);
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  std::string fixed;
  for (std::size_t i = 0; i < out.size(); ++i) {
    fixed += out[i];
    if (out[i] == '\n' && i + 1 < out.size() && (out[i + 1] == '.' || out[i + 1] == '\'')) fixed += "\\&";
  }
  return fixed;
}

std::string man_options(const std::vector<CliOption>& options, bool with_help) {
  std::string out;
  for (const CliOption& o : options) {
    if (!with_help && o.names.front() == "--help") continue;  // said once, under GLOBAL OPTIONS
    std::vector<std::string> names;
    for (const std::string& n : o.names) names.push_back("\\fB" + roff(n) + "\\fR");
    out += fmt::format(".TP\n{}{}\n{}\n", fmt::join(names, ", "), o.takes_value ? " \\fI" + roff(o.value) + "\\fR" : "",
                       roff(o.description));
  }
  return out;
}

std::string man_page(const CliCommand& root) {
  std::string out = fmt::format(
      ".TH HARNESS 1 \"\" \"harness {}\" \"User Commands\"\n.nh\n.ad l\n"
      ".SH NAME\nharness \\- hardware\\-in\\-the\\-loop validation for edge AI accelerators\n"
      ".SH SYNOPSIS\n\\fBharness\\fR [\\fB\\-\\-db\\fR \\fIPATH|URI\\fR] [\\fB\\-\\-json\\fR] \\fICOMMAND\\fR ...\n"
      ".SH DESCRIPTION\n{}\n.SH GLOBAL OPTIONS\n{}.SH COMMANDS\n",
      HARNESS_VERSION, roff(root.description), man_options(root.options, true));
  walk(root, [&](const CliCommand& c) {
    if (c.path.empty()) return;
    std::string synopsis;
    for (const std::string& p : c.positionals) synopsis += " \\fI" + roff(p) + "\\fR";
    out += fmt::format(".SS \"harness {}\"\n\\fBharness {}\\fR{}{}\n.PP\n{}\n{}", c.path, c.path,
                       c.options.empty() ? "" : " [\\fIOPTIONS\\fR]", synopsis, roff(c.description), man_options(c.options, false));
  });
  out +=
      ".SH EXIT STATUS\n.TP\n0\nall verdicts pass\n.TP\n1\na verdict failed or a regression was found\n.TP\n2\nbad "
      "usage or bad input (the message names file:line:column)\n.TP\n3\na probe or the infrastructure failed\n"
      ".SH ENVIRONMENT\n.TP\n\\fBHARNESS_DB\\fR\nthe run store when \\fB\\-\\-db\\fR is not given\n"
      ".TP\n\\fBHARNESS_ARTIFACTS\\fR\nwhere a PostgreSQL store keeps artifact bytes\n"
      ".TP\n\\fBNO_COLOR\\fR\nno colour when set to a non\\-empty value\n"
      ".SH SEE ALSO\nThe scenario reference: scenarios/README.md (installed with the documentation); "
      "\\fBharness metrics\\fR lists every metric and its expectation keys.\n";
  return out;
}

}  // namespace

Action setup_completion(CLI::App& app, const GlobalOptions&, Io io) {
  auto shell = std::make_shared<std::string>();
  app.add_option("shell", *shell, "bash, zsh or fish")->required()->check(CLI::IsMember({"bash", "zsh", "fish"}));
  return [&app, shell, io]() -> Result<ExitCode> {
    const CliCommand root = describe(*app.get_parent(), "");
    io.out << (*shell == "bash" ? bash_script(root) : *shell == "zsh" ? zsh_script(root) : fish_script(root));
    return ExitCode::ok;
  };
}

Action setup_man_page(CLI::App& app, const GlobalOptions&, Io io) {
  app.group("");  // hidden: the build runs it to write harness.1
  return [&app, io]() -> Result<ExitCode> {
    io.out << man_page(describe(*app.get_parent(), ""));
    return ExitCode::ok;
  };
}

}  // namespace harness
