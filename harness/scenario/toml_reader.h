// Reads one TOML table into typed values, remembering which keys were used so
// that unknown keys are reported with "did you mean". Within a section the
// first error wins (later keys may depend on it): after it every accessor
// returns nothing, and finish() returns that error. Between sections the
// error is put aside (ParseContext::end_section), so one pass reports a
// problem in every section that has one.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "harness/base/toml.h"

#include "harness/base/closest_match.h"
#include "harness/base/result.h"
#include "harness/base/units.h"

namespace harness {

// Shared by all readers of one file: where errors point, the first error of
// the section being read, and those of the sections read before it.
struct BundleScope;

struct ParseContext {
  std::string path;
  std::optional<Error> error;           // the current section's first error
  const BundleScope* bundle = nullptr;  // set: the scenario came from a bundle (scenario.h)
  std::vector<Error> earlier;           // one per section read before with an error

  // Puts the current section's error aside, so the next section is read.
  void end_section();

  // "path:line:col: message"
  std::string where(const toml::source_region& region) const;
  void fail(const toml::source_region& region, const std::string& message);
  void fail_file(const std::string& message);  // "path: message"
};

class TableReader {
 public:
  // `name` is the table's dotted name as a user writes it: "rig.memory".
  TableReader(ParseContext& context, const toml::table& table, std::string name);

  const std::string& name() const { return name_; }
  const toml::table& table() const { return table_; }
  bool has(std::string_view key) const { return table_.contains(key); }
  bool ok() const { return !context_.error.has_value(); }
  ParseContext& context() { return context_; }

  std::optional<std::string> string(std::string_view key);
  std::string required_string(std::string_view key);
  // A required name (of a scenario, a rig): not empty or blank, and without
  // control characters, since names are shown in terminals and reports.
  std::string required_name(std::string_view key);
  // One of `choices`; the error lists them (and suggests the closest).
  std::optional<std::string> choice(std::string_view key, const std::vector<std::string>& choices);
  std::optional<std::int64_t> integer(std::string_view key, std::int64_t min, std::int64_t max);
  std::optional<double> number(std::string_view key);  // integer or float
  std::optional<bool> boolean(std::string_view key);
  // A string with a unit, checked against the dimension: "50 GB/s".
  std::optional<double> quantity(std::string_view key, Dimension dimension);
  // A share between 0 and 1: a number (0.5) or a percentage ("50 %").
  std::optional<double> fraction(std::string_view key);
  // An array of strings; a single string is taken as an array of one when
  // `allow_single` is set.
  std::optional<std::vector<std::string>> string_array(std::string_view key, bool allow_single = false);
  // A sub-table, or nullptr when the key is absent (an error when not a table).
  const toml::table* table(std::string_view key);
  // An array of tables ([[x]]), or nullptr when absent.
  const toml::array* table_array(std::string_view key);
  // The raw node, for values of several types ("measure" or "50 GB/s").
  const toml::node* node(std::string_view key);
  // "path:line:col" of a key's value, else of the table.
  std::string where(std::string_view key) const;
  // Marks a key as known without reading it.
  void allow(std::string_view key) { used_.insert(std::string(key)); }

  // Reports an error at a value: "path:line:col: [rig] key 'x': message".
  void fail_at(std::string_view key, const std::string& message);
  void fail_at_node(const toml::node& node, const std::string& message);
  // A required key is absent. When finish() then finds an unknown key that
  // is a near miss of it, the error becomes "unknown key 'elemnts'; did you
  // mean 'elements'? (a required key)" at the misspelling.
  void fail_missing(std::string_view key, std::string_view what);

  // Checks that every key was used; unknown keys get "did you mean".
  Status finish();

 private:
  const toml::node* get(std::string_view key);
  std::string type_error(std::string_view key, std::string_view expected, const toml::node& got);
  void suggest_for_missing();

  ParseContext& context_;
  const toml::table& table_;
  std::string name_;
  std::set<std::string, std::less<>> used_;
  std::string missing_key_, missing_message_;
};

// "a string", "an integer", ...
std::string_view toml_type_noun(toml::node_type type);

}  // namespace harness
