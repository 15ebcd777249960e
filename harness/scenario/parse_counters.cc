#include "harness/scenario/sections.h"

namespace harness {

CountersConfig read_counters_section(TableReader& r) {
  CountersConfig c;
  c.perf_events = r.string_array("perf_events").value_or(std::vector<std::string>{});
  if (const toml::table* t = r.table("expect")) {
    TableReader er(r.context(), *t, "counters.expect");
    c.expectations = read_expectations(er, Level::counters, {});
    (void)er.finish();
  }
  return c;
}

}  // namespace harness
