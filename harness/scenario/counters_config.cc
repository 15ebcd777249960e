// The counters section's own lookups, apart from its parser, so that the
// device agent (cmake/agent.cmake) links without the TOML reader.
#include "harness/scenario/counters_config.h"

namespace harness {

const CounterSpec* CountersConfig::find_counter(const std::string& name) const {
  for (const CounterGroup& g : groups)
    for (const CounterSpec& c : g.counters)
      if (c.name == name) return &c;
  return nullptr;
}

std::vector<CounterSessionSource> CountersConfig::session_sources() const {
  std::vector<CounterSessionSource> out;
  for (const CounterGroup& g : groups) {
    for (const CounterSourceSpec& spec : g.sources) {
      CounterSessionSource& s = out.emplace_back(CounterSessionSource{g.name, spec, {}});
      for (const CounterSpec& c : g.counters)
        if (c.source == spec.name) s.counters.push_back(c);
    }
  }
  return out;
}

}  // namespace harness
