#include <sstream>

#include <fmt/format.h>

#include "harness/scenario/notify_config.h"
#include "harness/scenario/toml_reader.h"

namespace harness {
namespace {

bool is_url(const std::string& s) { return s.starts_with("http://") || s.starts_with("https://"); }

}  // namespace

NotifyConfig read_notify_section(TableReader& r) {
  NotifyConfig c;
  const bool command = r.has("command"), webhook = r.has("webhook");
  if (command == webhook) {
    r.context().fail(r.table().source(),
                     fmt::format("[{}] needs exactly one of 'command' (an argv array) or 'webhook' (an http or https URL)",
                                 r.name()));
  }
  c.command = r.string_array("command").value_or(std::vector<std::string>{});
  if (r.ok() && command && c.command.empty()) r.fail_at("command", "the command must not be empty");
  c.webhook = r.string("webhook").value_or("");
  if (r.ok() && webhook && !is_url(c.webhook)) r.fail_at("webhook", "must be an http:// or https:// URL");
  if (auto on = r.string_array("on")) {
    for (const std::string& word : *on) {
      if (word == "cannot tell") c.on_cannot_tell = true;
      else if (word != "regressed") r.fail_at("on", fmt::format("unknown verdict \"{}\" (expected \"regressed\" or \"cannot tell\")", word));
    }
  }
  if (auto t = r.quantity("timeout", Dimension::time)) {
    if (*t <= 0 || *t > 600) r.fail_at("timeout", "must be more than 0 s and at most 600 s");
    c.timeout_s = *t;
  }
  if (auto n = r.integer("retries", 0, 10)) c.retries = static_cast<int>(*n);
  return c;
}

Result<std::optional<NotifyConfig>> notify_config_from_text(const std::string& text, const std::string& path) {
  toml::parse_result parsed = toml::parse(text, path);
  if (!parsed) return Error::input(fmt::format("{}: {}", path, parsed.error().description()));
  const toml::table* t = parsed.table()["notify"].as_table();
  if (!t) return std::optional<NotifyConfig>{};
  ParseContext context{path, std::nullopt, nullptr, {}};
  TableReader r(context, *t, "notify");
  NotifyConfig c = read_notify_section(r);
  HARNESS_TRY(r.finish());
  return std::optional<NotifyConfig>{c};
}

Result<NotifyConfig> notify_config_from_flag(const std::string& target) {
  NotifyConfig c;
  if (is_url(target)) {
    c.webhook = target;
    return c;
  }
  std::istringstream in(target);
  for (std::string word; in >> word;) c.command.push_back(word);
  if (c.command.empty()) return Error::input("--notify: give a command or an http:// or https:// URL");
  return c;
}

}  // namespace harness
