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
ReferenceConfig read_reference_section(TableReader& reader);

// What the metric catalogue (harness/model/metric_catalogue.h) lets a
// scenario expect in one expect table: the entries of `level` whose keys go in
// `table` (as CatalogueEntry::expect_table spells it; "" for [<level>.expect])
// and that take bounds (<stem>_min/_max) or a category. `metric` is the
// catalogue name, a pattern for kernels ("<kernel>.intensity"); the dimension
// follows from the entry's unit. (expectation.cc)
std::vector<ExpectableMetric> catalogue_expectables(Level level, std::string_view table);

}  // namespace harness
