// Counters read around a workload: every source is made once from the source
// table, read before the workload and after it.
#pragma once

#include <memory>
#include <vector>

#include "harness/base/result.h"
#include "probes/counters/counter_reading.h"
#include "probes/counters/counter_spec.h"
#include "probes/counters/sources.h"

namespace harness {

class CounterSession {
 public:
  // Makes every source (perf events are opened here, so they count from now
  // on). A source whose settings are wrong is an error; a counter a source
  // cannot read is recorded as unavailable with its reason.
  // `sources` come from the scenario's groups (CountersConfig::session_sources()).
  static Result<CounterSession> open(const std::vector<CounterSessionSource>& sources,
                                     const CounterSourceOptions& options);

  void read_before();
  // A reading between two windows of iterations ([counters] windows). A counter that
  // cannot be read there is lost for the rest of the run, with the reason.
  void read_between(std::int64_t iteration);
  void read_after();
  // Raw readings so far, one per counter in group order.
  const std::vector<CounterReading>& readings() const { return readings_; }

 private:
  struct Opened {
    std::unique_ptr<CounterSource> source;
    std::vector<std::size_t> readings;  // index in readings_ of each of the source's counters
  };
  std::vector<Opened> sources_;
  std::vector<CounterReading> readings_;
  std::vector<bool> lost_;  // per reading: vanished between iterations
};

}  // namespace harness
