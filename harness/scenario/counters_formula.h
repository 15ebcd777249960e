// Derived counter metrics are formulas over counters, written in group files
// like LIKWID's METRICS lines: "MEM_STALL_CYCLES / CYCLES",
// "(MEM_LOADS + MEM_STORES) * 64". Grammar:
//   expr   = term   { ("+" | "-") term }
//   term   = factor { ("*" | "/") factor }
//   factor = number | NAME | "(" expr ")" | "-" factor
// NAME is [A-Za-z_][A-Za-z0-9_]*; a number is decimal with an optional
// fraction and exponent.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/base/result.h"

namespace harness {

struct FormulaNode;

class Formula {
 public:
  Formula() = default;
  const std::string& text() const { return text_; }
  // Counter names the formula reads, in order of first use.
  const std::vector<std::string>& names() const { return names_; }
  bool empty() const { return !root_; }

  // A value or the reason there is none ("CYCLES is 0: division by zero",
  // "needs CYCLES: unavailable: ...").
  struct Value {
    std::optional<double> value;
    std::string unavailable;
  };
  // `lookup` gives a counter's value, or the reason it has none.
  using Lookup = std::function<Value(const std::string& name)>;
  Value evaluate(const Lookup& lookup) const;

 private:
  friend class FormulaParser;
  std::string text_;
  std::vector<std::string> names_;
  std::shared_ptr<const FormulaNode> root_;
};

// Parses `text`. Errors say "col N: message" relative to the text's first
// character (column 1); callers add the file and line.
struct FormulaError {
  std::size_t column = 1;  // 1-based, in `text`
  std::string message;
};
struct FormulaParse {
  std::optional<Formula> formula;
  FormulaError error;
};
FormulaParse parse_formula(std::string_view text);

}  // namespace harness
