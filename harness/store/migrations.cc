// Schema migrations (schema.h) applied in order under one lock.
#include <fmt/format.h>

#include "harness/store/schema.h"
#include "harness/store/store.h"
#include "harness/store/store_internal.h"

namespace harness {

static_assert(kMigrations.size() == Store::kSchemaVersion, "one migration per schema version");

Status Store::migrate() {
  auto too_new = [&](int version) {
    return Error::input(fmt::format(
        "store {}: schema version {} is newer than this harness knows ({}); use a newer harness", path_, version,
        kSchemaVersion));
  };
  HARNESS_STORE_LET(version, db_->schema_version());
  if (version > kSchemaVersion) return too_new(version);
  if (version == kSchemaVersion) return ok();
  // Several processes may open a new store at once: the migrations run
  // under one lock, and the version is read again once it is held, so each
  // migration runs exactly once.
  HARNESS_TRY(db_->begin_migration());
  auto fail = [&](Error e) {
    (void)db_->rollback();
    return e;
  };
  Result<int> now = db_->schema_version();
  if (!now) return fail(now.error());
  if (*now > kSchemaVersion) return fail(too_new(*now));
  const bool postgres = is_postgres();
  for (int v = *now; v < kSchemaVersion; ++v) {
    const Migration& m = kMigrations[static_cast<std::size_t>(v)];
    Status applied = db_->exec(postgres ? m.postgres : m.sqlite);
    if (!applied) return fail(applied.error().within(fmt::format("migration to schema {}", v + 1)));
    Status noted = db_->set_schema_version(v + 1);
    if (!noted) return fail(noted.error());
  }
  return db_->commit();
}

int Store::schema_version() const {
  Result<int> v = db_->schema_version();
  return v ? *v : -1;
}

}  // namespace harness
