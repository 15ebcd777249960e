#include "harness/scenario/expectation.h"

#include <fmt/format.h>

#include "harness/model/metric_catalogue.h"
#include "harness/scenario/sections.h"

namespace harness {

namespace {

std::optional<Dimension> dimension_of_unit(std::string_view unit) {
  for (Dimension d : {Dimension::compute, Dimension::bandwidth, Dimension::frequency, Dimension::size, Dimension::time,
                      Dimension::power, Dimension::energy})
    if (si_unit(d) == unit) return d;
  return std::nullopt;  // a plain number: a ratio, a count, "1/s", "op/B"
}

std::vector<std::string> split_categories(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const std::size_t bar = text.find('|');
    out.emplace_back(text.substr(0, bar));
    if (bar == std::string_view::npos) break;
    text = text.substr(bar + 1);
  }
  return out;
}

}  // namespace

std::vector<ExpectableMetric> catalogue_expectables(Level level, std::string_view table) {
  std::vector<ExpectableMetric> out;
  for (const CatalogueEntry& e : metric_catalogue(level)) {
    if (e.expect.empty() || e.expect_table != table) continue;
    if (e.forms & kExpectBounds) {
      out.push_back({std::string(e.expect), std::string(e.name), dimension_of_unit(e.unit), false, {}});
    } else if (e.forms & kExpectEquals && !e.categories.starts_with('<')) {
      out.push_back({std::string(e.expect), std::string(e.name), std::nullopt, true, split_categories(e.categories)});
    }
  }
  return out;
}

std::vector<Expectation> read_expectations(TableReader& reader, Level level,
                                           const std::vector<ExpectableMetric>& allowed) {
  std::vector<Expectation> out;
  for (const ExpectableMetric& m : allowed) {
    struct Form { std::string key; Bound bound; };
    std::vector<Form> forms;
    if (m.categorical) {
      forms.push_back({m.key, Bound::equals});
    } else {
      forms.push_back({m.key + "_min", Bound::min});
      forms.push_back({m.key + "_max", Bound::max});
    }
    for (const Form& form : forms) {
      if (!reader.has(form.key)) continue;
      const toml::node* n = reader.node(form.key);
      if (!n) continue;
      Expectation e;
      e.level = level;
      e.key = form.key;
      e.metric = m.metric;
      e.bound = form.bound;
      e.where = reader.context().where(n->source());
      if (m.categorical) {
        std::optional<std::string> v = reader.choice(form.key, m.categories);
        if (!v) continue;
        e.text = *v;
      } else if (m.dimension) {
        std::optional<double> v = reader.quantity(form.key, *m.dimension);
        if (!v) continue;
        e.number = *v;
        e.unit = std::string(si_unit(*m.dimension));
      } else {
        std::optional<double> v = reader.number(form.key);
        if (!v) continue;
        e.number = *v;
        e.unit = std::string("1");  // (assigning the literal trips GCC 12's -Wrestrict)
      }
      out.push_back(std::move(e));
    }
  }
  return out;
}

}  // namespace harness
