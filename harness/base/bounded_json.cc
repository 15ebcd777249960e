#include "harness/base/bounded_json.h"

#include <algorithm>

#include <fmt/format.h>

#include "harness/base/files.h"

namespace harness {
namespace {

using nlohmann::json;

// What each piece of a parsed document takes in memory (x86-64, glibc),
// rounded up from measurements of nlohmann::json trees: a value is 16 bytes
// where its parent keeps it, 32 in an array (a vector may hold twice its
// size), 96 as an object member (a map node with its key); an array, an
// object and a string each allocate their container (+16 of allocator
// overhead), a string longer than the inline 15 bytes its characters too.
constexpr std::uint64_t kRootValue = 16, kArrayElement = 32, kObjectMember = 96;
constexpr std::uint64_t kArray = 24 + 16, kObject = 48 + 16, kString = 32 + 16;

std::uint64_t string_cost(std::size_t size) { return size > 15 ? size + 1 + 16 : 0; }

// "line:column" of a byte offset (1-based, columns in bytes).
std::string position_text(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  const std::string_view before = text.substr(0, offset);
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
  const std::size_t line_start = before.rfind('\n');
  const std::size_t column = line_start == std::string_view::npos ? offset + 1 : offset - line_start;
  return fmt::format("{}:{}", line, column);
}

// Where the nesting first goes deeper than `max_depth` (the opening bracket):
// looked for only once the parse has been refused for it.
std::size_t offset_of_depth(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) return i;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return text.size();
}

// nlohmann's message without its "[json.exception.parse_error.101] parse
// error at line 1, column 4: " prefix: the position is given as line:column.
std::string library_reason(const json::exception& e) {
  std::string_view what = e.what();
  if (std::size_t bracket = what.find("] "); bracket != std::string_view::npos) what.remove_prefix(bracket + 2);
  if (std::size_t column = what.find(", column "); column != std::string_view::npos) {
    if (std::size_t colon = what.find(": ", column); colon != std::string_view::npos) what.remove_prefix(colon + 2);
  }
  return std::string(what);
}

// Builds the document from nlohmann's SAX events (the parser itself keeps
// its nesting on the heap, not the stack), refusing the first array or
// object past the depth limit and the first value past the memory limit.
class BoundedBuilder {
 public:
  enum class Refused { none, depth, memory, syntax };

  explicit BoundedBuilder(const JsonLimits& limits) : limits_(limits) {}

  bool null() { return put(json(nullptr), 0); }
  bool boolean(bool v) { return put(json(v), 0); }
  bool number_integer(json::number_integer_t v) { return put(json(v), 0); }
  bool number_unsigned(json::number_unsigned_t v) { return put(json(v), 0); }
  bool number_float(json::number_float_t v, const json::string_t&) { return put(json(v), 0); }
  bool string(json::string_t& v) {
    const std::uint64_t cost = kString + string_cost(v.size());
    return put(json(std::move(v)), cost);
  }
  bool binary(json::binary_t&) { return false; }  // never produced by JSON text
  bool key(json::string_t& k) {
    if (!charge(string_cost(k.size()))) return false;
    key_ = std::move(k);
    return true;
  }
  bool start_object(std::size_t) { return open(json::value_t::object, kObject); }
  bool start_array(std::size_t) { return open(json::value_t::array, kArray); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t position, const std::string&, const json::exception& e) {
    refused_ = Refused::syntax;
    position_ = position;
    reason_ = library_reason(e);
    return false;
  }

  Refused refused() const { return refused_; }
  std::size_t position() const { return position_; }
  const std::string& reason() const { return reason_; }
  json take() { return std::move(root_); }

 private:
  bool charge(std::uint64_t bytes) {
    used_ += bytes;
    if (used_ <= limits_.memory) return true;
    refused_ = Refused::memory;
    return false;
  }

  // Places `v` in the open container (or as the document); returns where it
  // went, or nullptr when refused.
  json* place(json&& v, std::uint64_t own_cost) {
    if (open_.empty()) {
      if (!charge(kRootValue + own_cost)) return nullptr;
      root_ = std::move(v);
      return &root_;
    }
    json& parent = *open_.back();
    if (parent.is_array()) {
      if (!charge(kArrayElement + own_cost)) return nullptr;
      parent.push_back(std::move(v));
      return &parent.back();
    }
    if (!charge(kObjectMember + own_cost)) return nullptr;
    json& slot = parent[key_];
    slot = std::move(v);
    return &slot;
  }
  bool put(json&& v, std::uint64_t own_cost) { return place(std::move(v), own_cost) != nullptr; }

  bool open(json::value_t type, std::uint64_t own_cost) {
    if (open_.size() >= static_cast<std::size_t>(std::max(limits_.depth, 0))) {
      refused_ = Refused::depth;
      return false;
    }
    json* container = place(json(type), own_cost);
    if (!container) return false;
    // A container stays where it was placed while it is open: nothing is
    // added to its parent until it closes.
    open_.push_back(container);
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }

  const JsonLimits& limits_;
  json root_;
  std::vector<json*> open_;
  json::string_t key_;
  std::uint64_t used_ = 0;
  Refused refused_ = Refused::none;
  std::size_t position_ = 0;
  std::string reason_;
};

}  // namespace

Result<json> parse_bounded_json(std::string_view text, const std::string& where, const JsonLimits& limits) {
  if (text.size() > limits.bytes) {
    return Error::input(
        fmt::format("{}: {} bytes of JSON is more than the {} allowed", where, text.size(), limits.bytes));
  }
  // JSON text has no NUL byte (RFC 8259: control characters only escaped,
  // in strings), and nlohmann's lexer would take one for the end of the
  // input and accept "0\0anything" as 0.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return Error::input(fmt::format("{}:{}: not valid JSON: a NUL byte", where, position_text(text, nul)));
  }
  BoundedBuilder builder(limits);
  bool parsed = false;
  try {
    parsed = json::sax_parse(text, &builder, json::input_format_t::json, /*strict=*/true);
  } catch (const json::exception& e) {  // the parser's own throws (none expected with a SAX handler)
    return Error::input(fmt::format("{}: not valid JSON: {}", where, library_reason(e)));
  }
  if (parsed) return builder.take();
  switch (builder.refused()) {
    case BoundedBuilder::Refused::depth:
      return Error::input(fmt::format("{}:{}: JSON nested deeper than {} levels", where,
                                      position_text(text, offset_of_depth(text, limits.depth)), limits.depth));
    case BoundedBuilder::Refused::memory:
      return Error::input(fmt::format("{}: JSON values would take more than {} bytes of memory (the limit for "
                                      "this input)", where, limits.memory));
    case BoundedBuilder::Refused::syntax:
      return Error::input(fmt::format("{}:{}: not valid JSON: {}", where,
                                      position_text(text, builder.position() == 0 ? 0 : builder.position() - 1),
                                      builder.reason()));
    case BoundedBuilder::Refused::none: break;
  }
  return Error::input(fmt::format("{}: not valid JSON", where));
}

Result<json> read_bounded_json_file(const std::string& path, const JsonLimits& limits, std::string_view what) {
  Result<std::string> text = read_regular_file(path, limits.bytes, std::string(what));
  if (!text) return text.error();
  return parse_bounded_json(*text, path, limits);
}

}  // namespace harness
