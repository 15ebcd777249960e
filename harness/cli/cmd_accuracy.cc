// harness accuracy REF DEV: level 5's per-layer comparison outside of a
// scenario, for a quick check of two sets of dumps.
#include <fmt/format.h>

#include "harness/accuracy/compare.h"
#include "harness/cli/commands.h"
#include "reports/accuracy_table.h"

namespace harness {

namespace {
struct AccuracyArgs {
  std::string reference, device, map, mode = "cumulative";
  bool csv = false;
  std::optional<double> cosine_min, psnr_min_db;
};
}  // namespace

Action setup_accuracy(CLI::App& app, const GlobalOptions& global, Io io) {
  auto a = std::make_shared<AccuracyArgs>();
  app.add_option("reference", a->reference,
                 "The reference (FP32) tensors: a directory of .npy files and raw files with .json sidecars, "
                 "or an .npz archive")
      ->required();
  app.add_option("device", a->device, "The device's tensors, in the same forms")->required();
  app.add_option("--map", a->map, "Layer map file: 'REFERENCE_LAYER DEVICE_LAYER' per line, when names differ");
  app.add_option("--mode", a->mode,
                 "How the device dumps were made: cumulative (end to end) or isolated (each layer fed the "
                 "reference's input)")
      ->check(CLI::IsMember({"cumulative", "isolated"}));
  app.add_flag("--csv", a->csv, "CSV on stdout");
  app.add_option("--cosine-min", a->cosine_min, "Fail (exit 1) a layer whose cosine similarity is below this");
  app.add_option("--psnr-min-db", a->psnr_min_db, "Fail (exit 1) a layer whose PSNR (dB) is below this");
  return [=, &global]() -> Result<ExitCode> {
    accuracy::CompareOptions o;
    o.mode = a->mode == "isolated" ? accuracy::DumpMode::isolated : accuracy::DumpMode::cumulative;
    o.map_path = a->map;
    Result<accuracy::AccuracyComparison> c = accuracy::compare_tensor_sets(a->reference, a->device, o);
    if (!c) return c.error();
    AccuracyThresholds t{a->cosine_min, a->psnr_min_db};
    if (global.json) io.out << accuracy_to_json(*c, t).dump(2) << "\n";
    else if (a->csv) print_text(io.out, accuracy_to_csv(*c, t));
    else print_text(io.out, render_accuracy_text(*c, t));
    for (const accuracy::LayerAccuracy& l : c->layers)
      if (!accuracy_layer_failure(l, t).empty()) return ExitCode::failed;
    return ExitCode::ok;
  };
}

}  // namespace harness
