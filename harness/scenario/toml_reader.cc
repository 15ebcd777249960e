#define TOML_IMPLEMENTATION
#include "harness/scenario/toml_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "harness/base/find_named.h"
#include "harness/base/input_limits.h"

namespace harness {

std::string ParseContext::where(const toml::source_region& region) const {
  return fmt::format("{}:{}:{}", path, region.begin.line, region.begin.column);
}

void ParseContext::fail(const toml::source_region& region, const std::string& message) {
  if (!error) error = Error::input(fmt::format("{}: {}", where(region), message));
}

void ParseContext::end_section() {
  if (error) earlier.push_back(std::move(*error));
  error.reset();
}

void ParseContext::fail_file(const std::string& message) {
  if (!error) error = Error::input(fmt::format("{}: {}", path, message));
}

std::string_view toml_type_noun(toml::node_type type) {
  switch (type) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    case toml::node_type::none: return "nothing";
  }
  return "a value";
}

TableReader::TableReader(ParseContext& context, const toml::table& table, std::string name)
    : context_(context), table_(table), name_(std::move(name)) {}

const toml::node* TableReader::get(std::string_view key) {
  used_.insert(std::string(key));
  if (!ok()) return nullptr;
  return table_.get(key);
}

std::string TableReader::type_error(std::string_view key, std::string_view expected,
                                    const toml::node& got) {
  return fmt::format("[{}] {} must be {}, got {}", name_, key, expected, toml_type_noun(got.type()));
}

void TableReader::fail_at(std::string_view key, const std::string& message) {
  const toml::node* n = table_.get(key);
  if (n) {
    context_.fail(n->source(), fmt::format("[{}] {}: {}", name_, key, message));
  } else {
    context_.fail(table_.source(), fmt::format("[{}] {}: {}", name_, key, message));
  }
}

void TableReader::fail_at_node(const toml::node& node, const std::string& message) {
  context_.fail(node.source(), fmt::format("[{}] {}", name_, message));
}

void TableReader::fail_missing(std::string_view key, std::string_view what) {
  if (!ok()) return;
  context_.fail(table_.source(), fmt::format("[{}] is missing required key '{}' ({})", name_, key, what));
  missing_key_ = std::string(key);
  missing_message_ = context_.error->message;
}

std::optional<std::string> TableReader::string(std::string_view key) {
  const toml::node* n = get(key);
  if (!n) return std::nullopt;
  if (!n->is_string()) {
    context_.fail(n->source(), type_error(key, "a string", *n));
    return std::nullopt;
  }
  return std::string(n->as_string()->get());
}

std::string TableReader::required_string(std::string_view key) {
  bool present = ok() && table_.contains(key);
  std::optional<std::string> s = string(key);
  if (!present && ok()) fail_missing(key, "a string");
  return s.value_or("");
}

std::string TableReader::required_name(std::string_view key) {
  std::string s = required_string(key);
  if (!ok()) return s;
  if (s.find_first_not_of(" \t") == std::string::npos) {
    fail_at(key, "must not be empty");
  } else if (std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
    fail_at(key, "must not hold control characters (a name is shown in terminals and reports)");
  }
  return s;
}

std::optional<std::string> TableReader::choice(std::string_view key,
                                               const std::vector<std::string>& choices) {
  std::optional<std::string> s = string(key);
  if (!s) return std::nullopt;
  if (std::find(choices.begin(), choices.end(), *s) != choices.end()) return s;
  std::string list;
  for (const std::string& c : choices) list += (list.empty() ? "" : ", ") + ("\"" + c + "\"");
  fail_at(key, fmt::format("unknown value \"{}\" (expected one of {}){}", *s, list, did_you_mean(*s, choices)));
  return std::nullopt;
}

std::optional<std::int64_t> TableReader::integer(std::string_view key, std::int64_t min,
                                                 std::int64_t max) {
  const toml::node* n = get(key);
  if (!n) return std::nullopt;
  if (!n->is_integer()) {
    context_.fail(n->source(), type_error(key, "an integer", *n));
    return std::nullopt;
  }
  std::int64_t v = n->as_integer()->get();
  if (v < min || v > max) {
    context_.fail(n->source(),
                  fmt::format("[{}] {} must be between {} and {}, got {}", name_, key, min, max, v));
    return std::nullopt;
  }
  return v;
}

std::optional<double> TableReader::number(std::string_view key) {
  const toml::node* n = get(key);
  if (!n) return std::nullopt;
  if (!n->is_integer() && !n->is_floating_point()) {
    context_.fail(n->source(), type_error(key, "a number", *n));
    return std::nullopt;
  }
  const double v = n->is_integer() ? static_cast<double>(n->as_integer()->get()) : n->as_floating_point()->get();
  if (!std::isfinite(v)) {
    context_.fail(n->source(), fmt::format("[{}] {} must be a finite number", name_, key));
    return std::nullopt;
  }
  if (std::fabs(v) > kMaxPlainNumber) {
    context_.fail(n->source(), fmt::format("[{}] {} = {:g} is beyond any figure a scenario states (at most {:g}: "
                                           "harness/base/input_limits.h)", name_, key, v, kMaxPlainNumber));
    return std::nullopt;
  }
  return v;
}

std::optional<bool> TableReader::boolean(std::string_view key) {
  const toml::node* n = get(key);
  if (!n) return std::nullopt;
  if (!n->is_boolean()) {
    context_.fail(n->source(), type_error(key, "a boolean (true or false)", *n));
    return std::nullopt;
  }
  return n->as_boolean()->get();
}

std::optional<double> TableReader::quantity(std::string_view key, Dimension dimension) {
  const toml::node* n = get(key);
  if (!n) return std::nullopt;
  if (!n->is_string()) {
    context_.fail(n->source(),
                  fmt::format("[{}] {} must be {} written as a string with a unit, such as {}, got {}",
                              name_, key, dimension_noun(dimension), dimension_example(dimension),
                              toml_type_noun(n->type())));
    return std::nullopt;
  }
  Result<double> q = parse_quantity(n->as_string()->get(), dimension);
  if (!q) {
    context_.fail(n->source(), fmt::format("[{}] {}: {}", name_, key, q.error().message));
    return std::nullopt;
  }
  return *q;
}

std::optional<double> TableReader::fraction(std::string_view key) {
  const toml::node* n = get(key);
  if (!n) return std::nullopt;
  double v = 0;
  if (n->is_string()) {
    std::string s(n->as_string()->get());
    std::size_t pct = s.find('%');
    char* end = nullptr;
    v = std::strtod(s.c_str(), &end);
    std::string rest = end ? std::string(end) : s;
    rest.erase(std::remove(rest.begin(), rest.end(), ' '), rest.end());
    if (pct == std::string::npos || rest != "%" || end == s.c_str()) {
      fail_at(key, fmt::format("expected a fraction such as 0.5 or a percentage such as \"50 %\", got \"{}\"", s));
      return std::nullopt;
    }
    v /= 100;
  } else if (auto number = this->number(key)) {
    v = *number;
  } else {
    return std::nullopt;
  }
  if (!(v >= 0 && v <= 1)) {  // NaN ("nan %") too
    fail_at(key, fmt::format("must be between 0 and 1 (0 % and 100 %), got {}", v));
    return std::nullopt;
  }
  return v;
}

std::optional<std::vector<std::string>> TableReader::string_array(std::string_view key,
                                                                  bool allow_single) {
  const toml::node* n = get(key);
  if (!n) return std::nullopt;
  if (allow_single && n->is_string()) return std::vector<std::string>{std::string(n->as_string()->get())};
  if (!n->is_array()) {
    context_.fail(n->source(), type_error(key, "an array of strings", *n));
    return std::nullopt;
  }
  std::vector<std::string> out;
  for (const toml::node& element : *n->as_array()) {
    if (!element.is_string()) {
      context_.fail(element.source(),
                    fmt::format("[{}] {} must hold only strings, got {}", name_, key,
                                toml_type_noun(element.type())));
      return std::nullopt;
    }
    out.emplace_back(element.as_string()->get());
  }
  return out;
}

const toml::table* TableReader::table(std::string_view key) {
  const toml::node* n = get(key);
  if (!n) return nullptr;
  if (!n->is_table()) {
    context_.fail(n->source(), type_error(key, "a table", *n));
    return nullptr;
  }
  return n->as_table();
}

const toml::array* TableReader::table_array(std::string_view key) {
  const toml::node* n = get(key);
  if (!n) return nullptr;
  if (!n->is_array_of_tables()) {
    context_.fail(n->source(), type_error(key, fmt::format("an array of tables ([[{}.{}]])", name_, key), *n));
    return nullptr;
  }
  return n->as_array();
}

const toml::node* TableReader::node(std::string_view key) { return get(key); }

std::string TableReader::where(std::string_view key) const {
  const toml::node* n = table_.get(key);
  return context_.where(n ? n->source() : table_.source());
}

// A required key is missing and an unknown key of the table is a near miss
// of it: the error points at the misspelling.
void TableReader::suggest_for_missing() {
  std::vector<std::string> unknown;
  for (auto&& [key, value] : table_)
    if (!used_.count(key.str())) unknown.emplace_back(key.str());
  std::optional<std::string> near = closest_match(missing_key_, unknown);
  if (!near) return;
  context_.error.reset();
  const toml::key* misspelt = nullptr;
  for (auto&& [key, value] : table_)
    if (key.str() == *near) misspelt = &key;
  context_.fail(misspelt->source(),
                fmt::format("[{}] unknown key '{}'; did you mean '{}'? (a required key)", name_, *near, missing_key_));
}

Status TableReader::finish() {
  // The missing key's error is still the section's first: a misspelling may explain it.
  if (!ok() && !missing_key_.empty() && context_.error->message == missing_message_) suggest_for_missing();
  if (!ok()) return *context_.error;
  std::vector<std::string> known(used_.begin(), used_.end());
  for (auto&& [key, value] : table_) {
    if (used_.count(key.str())) continue;
    std::string message = fmt::format("unknown key '{}' in [{}]", key.str(), name_);
    if (auto near = closest_match(key.str(), known)) {
      message += fmt::format("; did you mean '{}'?", *near);
    }
    context_.fail(key.source(), message);
    return *context_.error;
  }
  return harness::ok();
}

}  // namespace harness
