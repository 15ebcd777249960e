// LAVA test-case signals, as LAVA's test shell reads them from a job's
// output: <LAVA_SIGNAL_TESTCASE TEST_CASE_ID=... RESULT=pass|fail|skip|unknown
// MEASUREMENT=... UNITS=...>, one a line.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "reports/report_model.h"

namespace harness {

// One signal line. LAVA splits a signal at spaces and '>' ends it: the id
// and unit keep letters, digits and ._- and the rest becomes '_'. A
// measurement that is absent or not finite is left out, with its unit.
std::string lava_signal(std::string_view id, std::string_view result, const std::optional<double>& measurement,
                        std::string_view unit);

// A verdict's result: fail, unavailable is skip, cannot tell is unknown.
std::string_view lava_result(VerdictStatus status);

// A run as `harness report --format lava`: one signal per metric with its
// value ("metric.<name>", unavailable is skip), one per verdict
// ("verdict.<check>": fail, unavailable is skip, cannot tell is
// unknown), one per judged metric of a comparison ("compare.<name>":
// regressed is fail, cannot tell unknown) and one for the run
// ("run-<id>": fail unless it passed).
std::string render_lava(const ReportInput& input);

}  // namespace harness
