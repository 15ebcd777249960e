// harness publish DIR [--since DATE] [--rig R] [--scenario S]: the store as a
// static site (reports/publish/publish.h), written incrementally.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/cli/commands.h"
#include "harness/store/store.h"
#include "reports/publish/publish.h"

namespace harness {

Action setup_publish(CLI::App& app, const GlobalOptions& global, Io io) {
  struct Options {
    std::string dir;
    PublishFilters filters;
  };
  auto o = std::make_shared<Options>();
  app.add_option("dir", o->dir, "Folder of the site (created; re-publishing rewrites only what changed)")->required();
  app.add_option("--since", o->filters.since, "Only runs started on or after this UTC day (YYYY-MM-DD)");
  app.add_option("--rig", o->filters.rig, "Only runs on this rig (its [rig] name)");
  app.add_option("--scenario", o->filters.scenario, "Only runs of this scenario (its [scenario] name)");
  return [=, &global]() -> Result<ExitCode> {
    if (!o->filters.since.empty()) HARNESS_TRY(check_since_date(o->filters.since));
    Result<Store> store = Store::open(resolve_database_path(global.db));
    if (!store) return store.error();
    Result<PublishSummary> s = publish_site(*store, o->dir, o->filters);
    if (!s) return s.error();
    for (const std::string& note : s->notes) print_text(io.err, "note: " + note + "\n");
    if (global.json) {
      io.out << nlohmann::json{{"dir", o->dir},
                               {"runs", s->runs},
                               {"metrics", s->metrics},
                               {"series", s->series},
                               {"regressed_series", s->regressed_series},
                               {"pages_written", s->pages_written},
                               {"pages_unchanged", s->pages_unchanged},
                               {"reports_written", s->reports_written},
                               {"reports_unchanged", s->reports_unchanged},
                               {"removed", s->removed},
                               {"from_series_cache", s->from_series_cache},
                               {"notes", s->notes}}
                    .dump(2)
             << "\n";
    } else {
      print_text(io.out, publish_summary_text(*s, o->dir));
    }
    return ExitCode::ok;
  };
}

}  // namespace harness
