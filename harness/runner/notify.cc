#include "harness/runner/notify.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "harness/compare/outcome.h"
#include "reports/compare_report.h"
#include "reports/json.h"

namespace harness {
namespace {

// "baseline 'nightly'", "run 7", "the 5 nights up to run 7".
std::string against_words(const CompareReport& r) {
  if (!r.baseline_name.empty()) return fmt::format("baseline '{}'", r.baseline_name);
  if (r.baseline_runs.size() <= 1) return fmt::format("run {}", r.baseline_run);
  return fmt::format("the {} nights up to run {}", r.baseline_runs.size(), r.baseline_runs.back());
}

std::string summary_line(std::string_view outcome, std::int64_t run, const std::string& scenario,
                         const std::string& rig, const std::string& against, const std::string& why) {
  return fmt::format("harness: {}: run {} of '{}' on rig '{}'{}: {}", outcome, run, scenario, rig,
                     against.empty() ? "" : " against " + against, why);
}

// "1 verdict failed (latency.expect.latency_p50_max)".
std::string verdicts_words(const RunRecord& run, VerdictStatus status, std::string_view what) {
  std::vector<std::string> checks;
  for (const Verdict& v : run.analysis.verdicts)
    if (v.status == status) checks.push_back(v.check);
  if (checks.empty()) return "";
  std::string out = fmt::format("{} verdict{} {}", checks.size(), checks.size() == 1 ? "" : "s", what);
  for (std::size_t i = 0; i < checks.size() && i < 3; ++i) out += (i == 0 ? " (" : ", ") + checks[i];
  return out + (checks.size() > 3 ? ", ...)" : ")");
}

}  // namespace

std::optional<Notification> run_notification(const RunRecord& run, const CompareReport* judged,
                                              const std::string& unjudged) {
  std::optional<Outcome> o;
  if (judged) o = outcome_of(*judged);
  std::string why;
  Change outcome = Change::unchanged;
  if (run.status == RunStatus::aborted) {
    outcome = Change::cannot_tell;
    why = "the run was aborted: " + run.reason;
  } else if (run.status == RunStatus::failed) {
    outcome = Change::regressed;
    why = verdicts_words(run, VerdictStatus::fail, "failed");
    if (why.empty()) why = run.reason;
    if (o && o->outcome == Change::regressed) why += "; " + o->why;
  } else if (o) {
    outcome = o->outcome;
    why = o->why;
  } else if (std::string undecided = verdicts_words(run, VerdictStatus::cannot_tell, "cannot tell"); !undecided.empty()) {
    outcome = Change::cannot_tell;  // its paired verdicts, without an earlier night
    why = undecided;
  } else {
    return std::nullopt;  // a night that passed with nothing to judge it by
  }
  const std::string name(change_name(outcome));
  Notification n;
  n.outcome = name;
  n.summary = summary_line(name, run.id, run.scenario_name, run.rig, judged ? against_words(*judged) : "", why);
  n.json = nlohmann::json{{"outcome", name},
                          {"why", why},
                          {"summary", n.summary},
                          {"run", run_to_json(run)},
                          {"judgement", judged ? compare_to_json(*judged) : nlohmann::json(nullptr)},
                          {"not_judged", judged ? std::string() : unjudged}}
               .dump();
  return n;
}

Notification comparison_notification(const CompareReport& report) {
  Outcome o = outcome_of(report);
  const std::string name(change_name(o.outcome));
  Notification n;
  n.outcome = name;
  n.summary = summary_line(name, report.current_run, report.scenario, report.rig, against_words(report), o.why);
  n.json = nlohmann::json{{"outcome", name}, {"why", o.why}, {"summary", n.summary}, {"comparison", compare_to_json(report)}}
               .dump();
  return n;
}

std::unique_ptr<NotifyChannel> channel_for(const NotifyConfig& c) {
  if (!c.webhook.empty()) return webhook_channel(c.webhook, c.timeout_s, c.retries);
  return command_channel(c.command, c.timeout_s);
}

std::optional<std::string> notify_if_asked(const NotifyConfig& config, const Notification& n,
                                           const ChannelFactory& channels) {
  if (n.outcome != "regressed" && !(n.outcome == "cannot tell" && config.on_cannot_tell)) return std::nullopt;
  std::unique_ptr<NotifyChannel> channel = channels(config);
  Status sent = channel->send(n);
  if (!sent) return "notify failed: " + sent.error().message;
  return "notified: " + channel->describe();
}

Result<std::optional<NotifyConfig>> notify_config_for(const std::string& flag, bool flag_cannot_tell,
                                                      const std::string& scenario_text, const std::string& scenario_path) {
  if (!flag.empty()) {
    Result<NotifyConfig> c = notify_config_from_flag(flag);
    if (!c) return c.error();
    c->on_cannot_tell = flag_cannot_tell;
    return std::optional<NotifyConfig>{*c};
  }
  return notify_config_from_text(scenario_text, scenario_path);
}

}  // namespace harness
