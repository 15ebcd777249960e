// What the store's files share (store.cc, migrations.cc, runs.cc,
// artifacts.cc, baselines.cc, history.cc, calibrations.cc): not for use
// outside harness/store.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "harness/model/metric.h"
#include "harness/store/sql/connection.h"

// Binds the value of a Result expression to `name`, or returns its error
// from the enclosing function.
#define HARNESS_STORE_LET(name, expr)                 \
  auto name##_result_ = (expr);                       \
  if (!name##_result_) return name##_result_.error(); \
  auto& name = *name##_result_

namespace harness::store_internal {

// No limit, in a form both engines take for LIMIT ?.
inline constexpr std::int64_t kNoLimit = std::numeric_limits<std::int64_t>::max();

// The owner columns, in this order, follow the status in the queries of runs.
inline constexpr const char* kOwnerColumns = "owner_pid, owner_pid_start, owner_boot_id, owner_host";

// A stored "running" run whose process is gone is abandoned: it never
// finished and never will. The reason says so when the run has none.
RunStatus effective_status(const sql::Rows& q, int status_column, int owner_column, std::string& reason);

}  // namespace harness::store_internal
