// The bundled recordings under fixtures/, replayed the way `harness replay`
// does: tests of the analysis and the reports run on data real code produced.
#pragma once

#include <filesystem>

#include "harness/model/run.h"

namespace harness::testing_support {

inline const std::filesystem::path kFixtures = std::filesystem::path(HARNESS_SOURCE_DIR) / "fixtures";

// The replayed run of the bundle in `dir`; a load or replay error is a test
// failure naming the folder, and an empty record.
RunRecord replayed(const std::filesystem::path& dir);

}  // namespace harness::testing_support
