// harness store push [SRC] DST | pull SRC [DST]: copies runs with their
// artifacts, then the baselines of those runs with their acknowledgements,
// between stores (an SQLite file, a PostgreSQL server), keyed by run UUID, so
// a repeated copy copies nothing. push sends this store (--db)
// to DST, e.g. a rig's file to the lab's server once the network is back;
// pull fetches SRC into this store, e.g. the server's runs for offline work.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/cli/commands.h"
#include "harness/store/store.h"
#include "harness/store/transfer.h"
#include "reports/console.h"

namespace harness {
namespace {

struct StoreOptions {
  std::vector<std::string> push, pull;
};

std::string bytes_text(std::uint64_t n) {
  if (n < 1024) return fmt::format("{} B", n);
  if (n < 1024 * 1024) return fmt::format("{:.1f} KiB", n / 1024.0);
  return fmt::format("{:.1f} MiB", n / (1024.0 * 1024.0));
}

}  // namespace

Action setup_store(CLI::App& app, const GlobalOptions& global, Io io) {
  auto o = std::make_shared<StoreOptions>();
  app.require_subcommand(1);
  CLI::App* push = app.add_subcommand(
      "push", "Copy the runs of this store (--db), or of SRC, that DST lacks, with their artifacts");
  push->add_option("stores", o->push, "[SRC] DST: a store file or a postgresql:// URI")->required()->expected(1, 2);
  CLI::App* pull = app.add_subcommand(
      "pull", "Copy the runs of SRC that this store (--db), or DST, lacks, with their artifacts");
  pull->add_option("stores", o->pull, "SRC [DST]: a store file or a postgresql:// URI")->required()->expected(1, 2);
  for (CLI::App* sub : {push, pull}) sub->fallthrough();  // --json, --db after the subcommand

  return [=, &global]() -> Result<ExitCode> {
    const bool pushing = push->parsed();
    const std::vector<std::string>& args = pushing ? o->push : o->pull;
    const std::string here = resolve_database_path(global.db);
    const std::string from = args.size() == 2 ? args[0] : (pushing ? here : args[0]);
    const std::string to = args.size() == 2 ? args[1] : (pushing ? args[0] : here);
    if (from == to) return Error::input(fmt::format("store {}: source and destination are the same store", from));
    Result<Store> source = Store::open(from);
    if (!source) return source.error();
    Result<Store> destination = Store::open(to);
    if (!destination) return destination.error();
    Result<TransferSummary> done = copy_runs(*source, *destination);
    if (!done) return done.error();
    Result<BaselineTransferSummary> baselines = copy_baselines(*source, *destination);
    if (!baselines) return baselines.error();

    if (global.json) {
      nlohmann::json j = {{"source", source->path()},
                          {"destination", destination->path()},
                          {"copied", done->copied},
                          {"already_there", done->already_there},
                          {"unfinished", done->unfinished},
                          {"artifacts", done->artifacts},
                          {"artifact_bytes", done->artifact_bytes},
                          {"baselines",
                           {{"copied", baselines->copied},
                            {"already_there", baselines->already_there},
                            {"kept", baselines->kept},
                            {"left", baselines->left},
                            {"acknowledgements", baselines->acknowledgements}}}};
      io.out << j.dump(2) << "\n";
      return ExitCode::ok;
    }
    if (done->copied.empty()) {
      io.out << fmt::format("nothing to copy: {} already has the {} run{} of {}\n", destination->path(),
                            done->already_there, done->already_there == 1 ? "" : "s", source->path());
    } else {
      io.out << fmt::format("copied {} from {} to {} ({} artifact{}, {}, sha256 verified); {} already there\n",
                            run_ids_text(done->copied), source->path(), destination->path(), done->artifacts,
                            done->artifacts == 1 ? "" : "s", bytes_text(done->artifact_bytes),
                            done->already_there);
    }
    if (!done->unfinished.empty()) {
      io.out << fmt::format("left behind: {} (running or abandoned)\n", run_ids_text(done->unfinished));
    }
    for (const std::string& b : baselines->copied) io.out << fmt::format("baseline {} copied\n", terminal_safe(b));
    if (baselines->acknowledgements > 0) {
      io.out << fmt::format("{} acknowledged regression{} copied with {}\n", baselines->acknowledgements,
                            baselines->acknowledgements == 1 ? "" : "s",
                            baselines->copied.size() + baselines->already_there == 1 ? "its baseline"
                                                                                     : "their baselines");
    }
    for (const std::string& b : baselines->kept) {
      io.out << fmt::format("baseline {}: {} has another baseline of that name, kept as it is (set it there with "
                            "'harness baseline set')\n",
                            terminal_safe(b), destination->path());
    }
    for (const std::string& b : baselines->left) {
      io.out << fmt::format("baseline {} not copied: not all of its runs are in {}\n", terminal_safe(b),
                            destination->path());
    }
    return ExitCode::ok;
  };
}

}  // namespace harness
