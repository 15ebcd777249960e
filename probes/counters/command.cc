#include <regex>

#include <fmt/format.h>

#include "probes/counters/factories.h"
#include "probes/process.h"

namespace harness {
namespace {

class CommandSource final : public CounterSource {
 public:
  CommandSource(const CounterSourceSpec& spec, std::vector<std::regex> patterns, std::vector<std::string> names)
      : argv_(spec.command), deltas_(spec.deltas), timeout_s_(spec.timeout_s),
        patterns_(std::move(patterns)), names_(std::move(names)) {}

  std::vector<CounterSample> read() override {
    std::vector<CounterSample> out;
    std::string why;
    Result<CommandResult> r = run_command(argv_, {.timeout_s = timeout_s_, .max_output = 1 << 20});
    if (!r) {
      why = r.error().message;
    } else if (!r->succeeded()) {
      std::string tail = r->err.size() > 200 ? r->err.substr(r->err.size() - 200) : r->err;
      while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
      why = fmt::format("command '{}' {}{}", argv_.front(), r->describe_end(), tail.empty() ? "" : ": " + tail);
    }
    for (std::size_t i = 0; i < patterns_.size(); ++i) {
      if (!why.empty()) {
        out.push_back(CounterSample::missing(why));
        continue;
      }
      std::smatch m;
      if (!std::regex_search(r->out, m, patterns_[i])) {
        out.push_back(CounterSample::missing(
            fmt::format("the output of '{}' has no match for the pattern of {}", argv_.front(), names_[i])));
        continue;
      }
      std::string text = m.size() > 1 ? m[1].str() : m[0].str();
      std::optional<std::uint64_t> v = parse_counter_value(text);
      if (!v) {
        out.push_back(CounterSample::missing(fmt::format("{}: '{}' printed \"{}\", not an unsigned integer",
                                                         names_[i], argv_.front(), text)));
        continue;
      }
      CounterSample s;
      s.value = *v;
      out.push_back(s);
    }
    return out;
  }

  bool reports_deltas() const override { return deltas_; }
  std::string describe() const override { return "command:" + argv_.front(); }

 private:
  std::vector<std::string> argv_;
  bool deltas_;
  double timeout_s_;
  std::vector<std::regex> patterns_;
  std::vector<std::string> names_;
};

}  // namespace

Result<std::unique_ptr<CounterSource>> make_command_source(const CounterSourceSpec& spec,
                                                           const std::vector<CounterSpec>& counters,
                                                           const CounterSourceOptions&) {
  if (spec.command.empty()) return Error::input(fmt::format("counter source {}: empty command", spec.name));
  std::vector<std::regex> patterns;
  std::vector<std::string> names;
  for (const CounterSpec& c : counters) {
    std::string problem = check_counter_setting(*find_counter_source_kind("command").value(), c.pattern);
    if (!problem.empty()) return Error::input(fmt::format("{}: counter {}: {}", c.where, c.name, problem));
    patterns.emplace_back(c.pattern, std::regex::ECMAScript);
    names.push_back(c.name);
  }
  return std::unique_ptr<CounterSource>(std::make_unique<CommandSource>(spec, std::move(patterns), std::move(names)));
}

}  // namespace harness
