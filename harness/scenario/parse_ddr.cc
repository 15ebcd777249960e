#include "harness/scenario/sections.h"

namespace harness {

DdrConfig read_ddr_section(TableReader& r) {
  DdrConfig c;
  c.standard = r.choice("standard", {"ddr4", "lpddr4", "lpddr5"}).value_or("");
  c.capture = r.string("capture").value_or("");
  if (const toml::table* t = r.table("expect")) {
    TableReader er(r.context(), *t, "ddr.expect");
    c.expectations = read_expectations(er, Level::ddr, {});
    (void)er.finish();
  }
  return c;
}

}  // namespace harness
