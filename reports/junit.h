// JUnit XML for lab CI: one <testcase> per verdict, a <failure> carrying
// expected and measured for each failed one, <skipped> for a check that
// could not be decided (its source was unavailable). A comparison adds a
// second <testsuite> with one case per metric that was judged.
#pragma once

#include <string>

#include "reports/report_model.h"

namespace harness {

std::string render_junit(const ReportInput& input);

}  // namespace harness
