// One reader per scenario section; each lives in its own file so that a
// level's options grow beside its code. Errors go to the reader's context.
#pragma once

#include "harness/scenario/scenario.h"
#include "harness/scenario/toml_reader.h"

namespace harness {

Rig read_rig_section(TableReader& reader);
Workload read_workload_section(TableReader& reader);
BuiltinKernel read_builtin_kernel(TableReader& reader);  // keys of a built-in kernel
RooflineConfig read_roofline_section(TableReader& reader);
CountersConfig read_counters_section(TableReader& reader);
DdrConfig read_ddr_section(TableReader& reader);
LatencyConfig read_latency_section(TableReader& reader);
AccuracyConfig read_accuracy_section(TableReader& reader);  // level 5

}  // namespace harness
