#pragma once

#include <string>

namespace harness {

// Now, as ISO 8601 UTC with milliseconds: "2026-11-29T17:40:12.345Z".
std::string utc_now_iso8601();

}  // namespace harness
