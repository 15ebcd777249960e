// The acquire column of the level table (harness/levels/level_table.h): one
// row per level saying whether the scenario asks for it, whether it needs
// the device's agent, how its progress line names it, whether it can hold
// the measurement window or ride on one, how it fills its part of the
// Recording and what it checks of the plan first. The runner walks these
// rows in their order (the order a live run acquires the levels) and knows
// no level by name; where a level's acquisition runs (on the device through
// the agent, or on this host around the window) is its row's business.
//
// Why a second table keyed by Level instead of a column of LevelRow: the
// level table lives in harness/levels, which the analysis, replay, compare
// and the reports use without a device; acquiring needs the device
// (harness/rig), the host instruments (probes/capture, probes/power) and the
// window, all of which live at or above this layer. harness/runner includes
// harness/levels and never the reverse, so the column sits here, and a test
// (acquire_table_test) checks that every row of the level table has exactly
// one row here, so a new level cannot be analysed without being acquired.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/levels/recording.h"
#include "harness/runner/acquire.h"
#include "harness/model/progress.h"

namespace harness {

struct DeviceInfo;

// What one row acquires with.
struct LevelAcquisition {
  // The run's context: `device` set when a row asked for the agent,
  // `window` when the scenario's window has an owner that runs.
  const AcquireContext& context;
  Recording& recording;
  // The level's own progress: its events get the level and the time since
  // it started (what a device-side step cannot know).
  RunProgress& level_progress;
  std::int64_t samples = 0;  // the level's samples, for its finish event (level 4)
};

// A host-side instrument that covers another level's workload window
// (level 3's analyzer beside level 4's or level 2's iterations). The owner
// of the window opens and closes it through WindowHooks.
class WindowInstrument {
 public:
  virtual ~WindowInstrument() = default;
  virtual Status open(const std::string& window_level) = 0;  // returns once it samples
  // Closes it and places its first and last sample on the window's times.
  virtual Status close(RigRecording::Window& window) = 0;
  virtual std::uint64_t samples_so_far() const = 0;
  // The window's level did not run: say so in the instrument's part.
  virtual void window_never_opened() = 0;
};

// Which rows can own the measurement window ([rig] window): the level it
// names when that level runs; a `fallback` row takes the window when the
// level it names does not run (the default "latency" window falls to level
// 2's iterations when the scenario has no [latency]).
enum class WindowRole { none, owner, fallback_owner };

// Where the rig's stability readings ([rig.stability]) are taken for a
// level: around its whole acquisition (by the runner), around each load
// condition's window (by the row itself: level 4), or not at all (its work
// does not run on the device).
enum class StabilityAround { none, acquisition, each_condition };

struct AcquireRow {
  Level level;
  bool (*asked)(const Scenario&);         // the scenario configures the level
  bool (*needs_device)(const Scenario&);  // it needs the device's agent
  std::string (*how)(const Scenario&);    // progress: "iterations on the device"
  WindowRole window = WindowRole::none;
  // An instrument that rides the window, when the scenario wants one (its
  // part of the recording is made here); null column or null result: the
  // level acquires on its own through `acquire`.
  std::unique_ptr<WindowInstrument> (*window_instrument)(const AcquireContext&, Recording&);
  Status (*acquire)(LevelAcquisition&);
  // Checks of the plan before anything starts (a missing program is bad
  // input, exit 2, before the run is stored); null: none.
  Status (*check_plan)(const Scenario&) = nullptr;
  StabilityAround stability = StabilityAround::none;
  // Whether the level's work is done inside another row's acquisition this
  // run (level 2 in level 4's window): its own acquisition then only notes
  // it, and no stability readings are taken around it. Null: never.
  bool (*inside_another)(const AcquireContext&) = nullptr;
};

// In acquisition order: level 1 and 2 on the device first, then level 3 on
// its own, level 4 (which may carry the window), level 5's dumps last.
std::span<const AcquireRow> acquire_table();

// Every asked row's plan check, in table order: the first failure.
Status check_acquisition_plan(const Scenario& scenario);

// The row that owns the scenario's measurement window, or null (window =
// "none", or neither the named level nor a fallback runs).
const AcquireRow* window_owner(const Scenario& scenario);

// Whether level 2's counters are read at the edges of level 4's measured
// iterations of the window's condition instead of around iterations of
// their own: the window is level 4's and the device's agent offers it
// ("counters.window"; with a same-run reference each of level 4's paired
// blocks reads them in a session of its own: docs/parts/counters.md, "Which
// window the counters cover").
bool counters_ride_latency_window(const Scenario& scenario, const AcquireRow* owner, const DeviceInfo* device);

}  // namespace harness
