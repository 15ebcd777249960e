#include "harness/scenario/counters_formula.h"

#include <map>

#include <gtest/gtest.h>

namespace harness {
namespace {

Formula::Value eval(const std::string& text, const std::map<std::string, double>& values) {
  FormulaParse p = parse_formula(text);
  EXPECT_TRUE(p.formula) << p.error.message;
  if (!p.formula) return {};
  return p.formula->evaluate([&](const std::string& name) -> Formula::Value {
    auto it = values.find(name);
    if (it == values.end()) return {std::nullopt, "unavailable: the kernel refused it"};
    return {it->second, ""};
  });
}

TEST(CounterFormula, EvaluatesPrecedenceParenthesesAndUnaryMinus) {
  EXPECT_DOUBLE_EQ(*eval("MEM_STALL_CYCLES / CYCLES", {{"MEM_STALL_CYCLES", 87}, {"CYCLES", 100}}).value, 0.87);
  EXPECT_DOUBLE_EQ(*eval("(LOADS + STORES) * 64", {{"LOADS", 3}, {"STORES", 2}}).value, 320);
  EXPECT_DOUBLE_EQ(*eval("LOADS + STORES * 64", {{"LOADS", 3}, {"STORES", 2}}).value, 131);
  EXPECT_DOUBLE_EQ(*eval("10 - 4 - 3", {}).value, 3);
  EXPECT_DOUBLE_EQ(*eval("64 / 8 / 2", {}).value, 4);
  EXPECT_DOUBLE_EQ(*eval("-A + 1.5e1", {{"A", 5}}).value, 10);
  EXPECT_DOUBLE_EQ(*eval(" ( ( A ) ) ", {{"A", 5}}).value, 5);
}

TEST(CounterFormula, ListsTheNamesItReadsOnce) {
  FormulaParse p = parse_formula("(A + B) / (A - C_2)");
  ASSERT_TRUE(p.formula);
  EXPECT_EQ(p.formula->names(), (std::vector<std::string>{"A", "B", "C_2"}));
}

TEST(CounterFormula, DivisionByZeroAndMissingCountersGiveReasons) {
  Formula::Value v = eval("STALLS / (CYCLES - CYCLES)", {{"STALLS", 1}, {"CYCLES", 7}});
  EXPECT_FALSE(v.value);
  EXPECT_EQ(v.unavailable, "division by zero: CYCLES - CYCLES is 0");
  v = eval("STALLS / CYCLES", {{"STALLS", 1}});
  EXPECT_FALSE(v.value);
  EXPECT_EQ(v.unavailable, "needs CYCLES: unavailable: the kernel refused it");
}

TEST(CounterFormula, ErrorsNameTheColumn) {
  struct Case {
    const char* text;
    std::size_t column;
    const char* message;
  };
  const Case cases[] = {
      {"", 1, "empty formula"},
      {"A /", 4, "expected a number, a counter name or '(', got the end of the formula"},
      {"(A + B", 7, "missing ')' at the end of the formula"},
      {"A + B)", 6, "unexpected ')'"},
      {"A $ B", 3, "unexpected '$'"},
      {"A * # 2", 5, "expected a number, a counter name or '(', got '#'"},
      {"64 CYCLES", 4, "expected an operator after the number, got 'C'"},
      {"1.2.3 * A", 1, "bad number '1.2.3'"},
      {"A B", 3, "unexpected 'B'"},
  };
  for (const Case& c : cases) {
    FormulaParse p = parse_formula(c.text);
    EXPECT_FALSE(p.formula) << c.text;
    EXPECT_EQ(p.error.column, c.column) << c.text;
    EXPECT_EQ(p.error.message, c.message) << c.text;
  }
}

TEST(CounterFormula, RefusesNestingDeeperThanTheLimit) {
  std::string deep(100, '(');
  deep += "A" + std::string(100, ')');
  FormulaParse p = parse_formula(deep);
  EXPECT_FALSE(p.formula);
  EXPECT_EQ(p.error.message, "nested more than 64 levels deep");
  std::string ok(30, '(');
  ok += "A" + std::string(30, ')');
  EXPECT_TRUE(parse_formula(ok).formula);
}

}  // namespace
}  // namespace harness
