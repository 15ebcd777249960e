// Whether a run or a comparison is news for people, and telling them
// ([notify], --notify; scenarios/README.md "[notify]"). What is told is the
// stored run's one judgement (harness/compare/outcome.h: regressed,
// improved, unchanged or cannot tell, with why), the one compare, history
// --changes and publish show. A notifier hears of `regressed` always and of
// `cannot tell` when asked; never of the others. The command has stored
// what it judged before it notifies: a notifier that fails or hangs is
// reported and cut at its timeout, and never changes what was stored or the
// command's exit code.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "harness/compare/stored_comparison.h"
#include "harness/model/run.h"
#include "harness/scenario/notify_config.h"
#include "probes/notify/notify_channel.h"

namespace harness {

// A finished run, with its judgement (null when it has none: `unjudged`
// says why, e.g. no earlier night). Its own failed verdicts make it
// regressed (run's exit 1), an aborted run cannot tell (with its reason);
// else the judgement's outcome. Nothing when there is nothing to tell: a
// first night that passed.
std::optional<Notification> run_notification(const RunRecord& run, const CompareReport* judged,
                                              const std::string& unjudged);
Notification comparison_notification(const CompareReport& report);

using ChannelFactory = std::function<std::unique_ptr<NotifyChannel>(const NotifyConfig&)>;
// The real channels: the config's command or webhook.
std::unique_ptr<NotifyChannel> channel_for(const NotifyConfig& config);

// Sends `n` when the config asks for its outcome. Returns what to tell the
// user: "notified: command x" or "notify failed: ...", or nothing when the
// outcome was not asked for.
std::optional<std::string> notify_if_asked(const NotifyConfig& config, const Notification& n,
                                           const ChannelFactory& channels = channel_for);

// The [notify] that applies: --notify TARGET (with --notify-cannot-tell)
// when given, else the scenario text's, else none.
Result<std::optional<NotifyConfig>> notify_config_for(const std::string& flag, bool flag_cannot_tell,
                                                      const std::string& scenario_text, const std::string& scenario_path);

}  // namespace harness
