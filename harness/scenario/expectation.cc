#include "harness/scenario/expectation.h"

#include <fmt/format.h>

namespace harness {

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
