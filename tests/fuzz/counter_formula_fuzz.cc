// libFuzzer target for level 2's data parsers: the formula parser and
// evaluator, and the counter group file parser. Neither may crash, hang or
// overflow the stack on any input; errors must be values.
//   cmake -B build-fuzz -DHARNESS_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ && cmake --build build-fuzz --target counter_formula_fuzz
//   build-fuzz/counter_formula_fuzz -max_total_time=60
#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/scenario/counters_formula.h"
#include "harness/scenario/counters_group.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  harness::FormulaParse p = harness::parse_formula(text);
  if (p.formula) {
    // Every counter is 3, one is 0: exercises division by zero too.
    (void)p.formula->evaluate([](const std::string& name) -> harness::Formula::Value {
      if (name == "ZERO") return {0.0, ""};
      if (name == "GONE") return {std::nullopt, "unavailable"};
      return {3.0, ""};
    });
  } else if (p.error.column == 0 || p.error.column > text.size() + 1 || p.error.message.empty()) {
    __builtin_trap();  // an error must point inside the text and say something
  }
  (void)harness::parse_counter_group(text, "fuzz.toml");
  return 0;
}
