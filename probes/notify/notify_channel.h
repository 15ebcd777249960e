// Where a verdict goes to reach people: a command run on this host (the
// verdict JSON on its stdin, a one-line summary in its environment) or a
// webhook (the JSON POSTed through libcurl). Each attempt is cut at its
// timeout; a webhook is tried again after a failure. A channel that fails
// says why and never throws: the run it reports on is stored already.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/base/result.h"

namespace harness {

struct Notification {
  std::string json;     // the outcome, why, and the run and its judgement as `--json` prints them
  std::string summary;  // one line for people
  std::string outcome;  // "regressed", "improved", "unchanged" or "cannot tell"
};

class NotifyChannel {
 public:
  virtual ~NotifyChannel() = default;
  virtual Status send(const Notification& notification) = 0;
  virtual std::string describe() const = 0;  // "command notify-lab", "webhook http://..."
};

// Runs argv (looked up in PATH) with the JSON on stdin and
// HARNESS_NOTIFY_SUMMARY, HARNESS_NOTIFY_OUTCOME in its environment; a
// non-zero exit or a timeout (its process group is killed) is an error with
// its last output.
std::unique_ptr<NotifyChannel> command_channel(std::vector<std::string> argv, double timeout_s);
// POSTs the JSON (Content-Type: application/json); a 2xx answer is success.
// A failed attempt (no connection, a timeout, a 5xx or 429 answer) is tried
// again up to `retries` times, half a second more apart each time.
std::unique_ptr<NotifyChannel> webhook_channel(std::string url, double timeout_s, int retries);

}  // namespace harness
