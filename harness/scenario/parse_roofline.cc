#include <fmt/format.h>

#include "harness/scenario/sections.h"

namespace harness {
namespace {

const std::vector<ExpectableMetric>& kernel_expectables() {
  static const std::vector<ExpectableMetric> k = {
      {"intensity", "intensity", std::nullopt, false, {}},
      {"utilisation", "utilisation", std::nullopt, false, {}},
      {"achieved", "achieved", Dimension::compute, false, {}},
      {"bound", "bound", std::nullopt, true, {"memory", "compute"}},
  };
  return k;
}

const std::vector<ExpectableMetric>& ceiling_expectables() {
  static const std::vector<ExpectableMetric> k = {
      {"dram_bandwidth", "ceiling.memory.dram", Dimension::bandwidth, false, {}},
  };
  return k;
}

RooflineKernel read_kernel(TableReader& r, std::vector<Expectation>& expectations) {
  RooflineKernel k;
  k.name = r.required_string("name");
  k.where = r.context().where(r.table().source());
  if (r.has("builtin")) {
    k.builtin = read_builtin_kernel(r);
  }
  if (auto f = r.number("flops")) {
    if (*f <= 0) r.fail_at("flops", "must be positive");
    k.flops = *f;
  }
  if (auto b = r.quantity("bytes", Dimension::size)) {
    if (*b <= 0) r.fail_at("bytes", "must be positive");
    k.bytes = *b;
    k.bytes_source = "declared";
  }
  if (r.ok() && !k.builtin && !(k.flops && k.bytes)) {
    r.context().fail(r.table().source(),
                     fmt::format("[{}] kernel '{}' needs 'builtin' or both 'flops' and 'bytes'",
                                 r.name(), k.name));
  }
  k.precision = r.string("precision").value_or(k.builtin ? k.builtin->precision : "fp32");
  k.memory = r.string("memory").value_or("dram");
  if (const toml::table* t = r.table("expect")) {
    TableReader er(r.context(), *t, fmt::format("{}.expect", r.name()));
    for (Expectation e : read_expectations(er, Level::roofline, kernel_expectables())) {
      e.metric = k.name + "." + e.metric;
      expectations.push_back(std::move(e));
    }
    (void)er.finish();
  }
  return k;
}

}  // namespace

RooflineConfig read_roofline_section(TableReader& r) {
  RooflineConfig c;
  if (auto n = r.integer("repetitions", 1, 1000)) c.repetitions = static_cast<int>(*n);
  if (auto b = r.quantity("buffer", Dimension::size)) {
    if (*b < 1 << 20) r.fail_at("buffer", "must be at least 1 MiB");
    c.buffer_bytes = static_cast<std::int64_t>(*b);
  }
  if (const toml::array* kernels = r.table_array("kernels")) {
    std::size_t i = 0;
    for (const toml::node& node : *kernels) {
      TableReader kr(r.context(), *node.as_table(), fmt::format("roofline.kernels[{}]", i++));
      c.kernels.push_back(read_kernel(kr, c.expectations));
      (void)kr.finish();
    }
  }
  if (const toml::table* t = r.table("expect")) {
    TableReader er(r.context(), *t, "roofline.expect");
    auto e = read_expectations(er, Level::roofline, ceiling_expectables());
    c.expectations.insert(c.expectations.end(), e.begin(), e.end());
    (void)er.finish();
  }
  return c;
}

}  // namespace harness
