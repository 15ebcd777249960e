// Opening a store: the database, where its artifacts go, its schema brought up
// to date (migrations.cc).
#include "harness/store/store.h"

#include <array>
#include <cstdlib>
#include <filesystem>
#include <random>

#include <fmt/format.h>

#include "harness/store/store_internal.h"

namespace harness {
namespace {

// Where a PostgreSQL store keeps artifact bytes: docs/parts/store.md.
std::string postgres_artifact_folder() {
  const char* env = std::getenv("HARNESS_ARTIFACTS");
  std::filesystem::path folder = env && *env ? std::filesystem::path(env) : std::filesystem::path("harness-artifacts");
  return std::filesystem::absolute(folder).lexically_normal().string();
}

}  // namespace

std::string resolve_database_path(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("HARNESS_DB"); env && *env) return env;
  return kDefaultDatabase;
}

std::string new_run_uuid() {
  std::random_device device;  // getrandom(2) on Linux
  std::array<unsigned char, 16> b{};
  for (std::size_t i = 0; i < b.size(); i += 4) {
    const unsigned int word = device();
    for (std::size_t j = 0; j < 4; ++j) b[i + j] = static_cast<unsigned char>(word >> (8 * j));
  }
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  std::string out;
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += fmt::format("{:02x}", b[i]);
  }
  return out;
}

Store::Store(std::string path, std::string artifacts, std::unique_ptr<sql::Connection> db)
    : path_(std::move(path)), artifacts_(std::move(artifacts)), db_(std::move(db)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

bool Store::is_postgres() const { return db_->engine() == sql::Engine::postgres; }

Result<Store> Store::open(const std::string& path) {
  HARNESS_STORE_LET(db, sql::open(path));
  const bool postgres = db->engine() == sql::Engine::postgres;
  std::string artifacts =
      postgres ? postgres_artifact_folder()
               : std::filesystem::absolute(std::filesystem::path(path)).string() + ".artifacts";
  Store store(sql::display_name(path), std::move(artifacts), std::move(db));
  HARNESS_TRY(store.migrate());
  return store;
}

}  // namespace harness
