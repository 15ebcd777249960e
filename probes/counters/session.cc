#include "probes/counters/session.h"

#include <fmt/format.h>

namespace harness {

Result<CounterSession> CounterSession::open(const std::vector<CounterSessionSource>& sources,
                                            const CounterSourceOptions& options) {
  CounterSession session;
  for (const CounterSessionSource& source : sources) {
    const CounterSourceSpec& spec = source.spec;
    Result<const CounterSourceKind*> kind = find_counter_source_kind(spec.kind);
    if (!kind) return Error::input(fmt::format("{}: {}", spec.where, kind.error().message));
    Opened opened;
    for (const CounterSpec& c : source.counters) {
      CounterReading r;
      r.name = c.name;
      r.unit = c.unit;
      r.width = c.width ? c.width : spec.width;
      r.scale = c.scale;
      opened.readings.push_back(session.readings_.size());
      session.readings_.push_back(r);
    }
    if (source.counters.empty()) continue;
    Result<std::unique_ptr<CounterSource>> made = (*kind)->make(spec, source.counters, options);
    if (!made) return made.error().within(fmt::format("counter group {}, source {}", source.group, spec.name));
    opened.source = std::move(*made);
    for (std::size_t i : opened.readings) session.readings_[i].source = opened.source->describe();
    session.sources_.push_back(std::move(opened));
  }
  return session;
}

void CounterSession::read_before() {
  for (Opened& o : sources_) {
    if (o.source->reports_deltas()) continue;
    std::vector<CounterSample> samples = o.source->read();
    for (std::size_t i = 0; i < o.readings.size(); ++i) {
      CounterReading& r = readings_[o.readings[i]];
      const CounterSample& s = i < samples.size() ? samples[i] : CounterSample::missing("the source gave no sample");
      if (!s.value) {
        r.unavailable = s.unavailable;
        continue;
      }
      r.before = s.value;
      r.enabled_before = s.enabled_ns;
      r.running_before = s.running_ns;
    }
  }
}

void CounterSession::read_between(std::int64_t iteration) {
  lost_.resize(readings_.size(), false);
  for (Opened& o : sources_) {
    if (o.source->reports_deltas()) continue;
    std::vector<CounterSample> samples = o.source->read();
    for (std::size_t i = 0; i < o.readings.size(); ++i) {
      const std::size_t index = o.readings[i];
      CounterReading& r = readings_[index];
      if (!r.before || lost_[index]) continue;
      const CounterSample& s = i < samples.size() ? samples[i] : CounterSample::missing("the source gave no sample");
      if (!s.value) {
        lost_[index] = true;
        r.unavailable = fmt::format("after iteration {}: {}", iteration, s.unavailable);
        continue;
      }
      r.between.push_back(*s.value);
      if (s.enabled_ns && s.running_ns) {
        r.enabled_between.push_back(*s.enabled_ns);
        r.running_between.push_back(*s.running_ns);
      }
    }
  }
}

void CounterSession::read_after() {
  lost_.resize(readings_.size(), false);
  for (Opened& o : sources_) {
    std::vector<CounterSample> samples = o.source->read();
    for (std::size_t i = 0; i < o.readings.size(); ++i) {
      CounterReading& r = readings_[o.readings[i]];
      const CounterSample& s = i < samples.size() ? samples[i] : CounterSample::missing("the source gave no sample");
      if (!s.value) {
        if (r.unavailable.empty()) r.unavailable = s.unavailable;
        continue;
      }
      if (o.source->reports_deltas()) {
        r.delta = s.value;
        continue;
      }
      if (!r.before || lost_[o.readings[i]]) continue;  // the reason is already there
      r.after = s.value;
      r.enabled_after = s.enabled_ns;
      r.running_after = s.running_ns;
    }
  }
}

}  // namespace harness
