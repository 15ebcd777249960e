// harness metrics [--level L] [--markdown]: what a scenario can expect on, from the metric
// catalogue, the way `perf list` lists events.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/base/find_named.h"
#include "harness/cli/commands.h"
#include "reports/metric_list.h"

namespace harness {

Action setup_metrics(CLI::App& app, const GlobalOptions& global, Io io) {
  auto level = std::make_shared<std::string>();
  app.add_option("--level", *level, "Only this level: a name (roofline, counters, ddr, latency, accuracy) or 1-5");
  auto markdown = std::make_shared<bool>(false);
  app.add_flag("--markdown", *markdown, "Markdown tables of every level (docs/parts/metrics.md is this output)");
  return [=, &global]() -> Result<ExitCode> {
    std::optional<Level> only;
    if (!level->empty()) {
      only = level_from_name(*level);
      for (Level l : kAllLevels)
        if (*level == std::to_string(static_cast<int>(l))) only = l;
      if (!only) {
        std::vector<std::string> names;
        for (Level l : kAllLevels) names.emplace_back(level_name(l));
        return Error::input(fmt::format("--level: no level \"{}\"{} (levels: {}, or 1-5)", *level,
                                        did_you_mean(*level, names), fmt::join(names, ", ")));
      }
    }
    if (*markdown)
      io.out << render_metric_list_markdown();
    else if (global.json)
      io.out << metric_list_to_json(only).dump(2) << "\n";
    else
      io.out << render_metric_list_text(only);
    return ExitCode::ok;
  };
}

}  // namespace harness
