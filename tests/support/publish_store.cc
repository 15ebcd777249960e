#include "tests/support/publish_store.h"

#include <fmt/format.h>

#include "harness/bundle/bundle.h"
#include "harness/bundle/replay.h"

namespace harness::test_support {

Result<RunRecord> replayed_night(const std::string& fixture, const std::string& rig, const std::string& day) {
  Result<LoadedBundle> bundle = load_bundle(std::string(HARNESS_SOURCE_DIR) + "/fixtures/" + fixture);
  if (!bundle) return bundle.error();
  Result<RunRecord> run = replay_bundle(*bundle);
  if (!run) return run.error();
  run->rig = rig;
  run->origin = "live";
  run->started_at = day + "T02:00:00.000Z";
  run->ended_at = day + "T02:40:00.000Z";
  return run;
}

Result<PublishStore> fill_publish_store(Store& store) {
  PublishStore out;
  const char* lab_a_days[] = {"day6", "day6", "day6", "day6", "day5", "day5", "day5",
                              "day3", "day3", "day3", "day1", "day1", "day1"};
  int night = 1;
  for (const char* d : lab_a_days) {
    const std::string day = fmt::format("2026-11-{:02}", night++);
    Result<RunRecord> a = replayed_night(std::string("case-study/") + d, "lab-a", day);
    if (!a) return a.error();
    Result<std::int64_t> id = store.insert_run(*a);
    if (!id) return id.error();
    out.lab_a.push_back(*id);
    Result<RunRecord> b = replayed_night("case-study/day5", "lab-b", day);
    if (!b) return b.error();
    Result<std::int64_t> idb = store.insert_run(*b);
    if (!idb) return idb.error();
    out.lab_b.push_back(*idb);
  }
  Result<RunRecord> h = replayed_night("host/localhost-2026-11-29", "host-a", "2026-11-13");
  if (!h) return h.error();
  Result<std::int64_t> idh = store.insert_run(*h);
  if (!idh) return idh.error();
  out.host_a.push_back(*idh);
  // lab-a's good nights, as a lab names them (`baseline set nightly RUN --last 4`).
  const std::vector<std::int64_t> good(out.lab_a.begin(), out.lab_a.begin() + 4);
  Result<std::optional<std::int64_t>> base = store.set_baseline("nightly", good, "2026-11-04T09:00:00Z");
  if (!base) return base.error();
  return out;
}

}  // namespace harness::test_support
