// Who hears of a regression: [notify] of a scenario, or `--notify` on `run`
// and `compare`. Reference: scenarios/README.md "[notify]".
//
// The section is read with the scenario (so `harness check` reports its
// mistakes), but its typed form is taken from the scenario's text where it
// is needed: `compare` judges stored runs, whose scenario is their stored
// text, so it reads [notify] from that text as `run` does from the file's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/base/result.h"

namespace harness {

class TableReader;

struct NotifyConfig {
  // Exactly one: a command (argv; the verdict JSON on stdin, a one-line
  // summary in HARNESS_NOTIFY_SUMMARY) or a webhook URL (http or https; the
  // verdict JSON POSTed).
  std::vector<std::string> command;
  std::string webhook;
  bool on_cannot_tell = false;  // also when the verdict is "cannot tell" (always on "regressed")
  double timeout_s = 10;        // per attempt: a notifier that hangs is cut here
  int retries = 2;              // webhook: further attempts after a failed one
};

NotifyConfig read_notify_section(TableReader& reader);

// The [notify] of a scenario's text, or nothing when it has none.
Result<std::optional<NotifyConfig>> notify_config_from_text(const std::string& text, const std::string& path);
// --notify TARGET: an http:// or https:// URL is a webhook, anything else a
// command split at blanks.
Result<NotifyConfig> notify_config_from_flag(const std::string& target);

}  // namespace harness
