// The agent protocol, version 1: one JSON object per line, both ways, on the
// agent's stdin (requests) and stdout (replies, events, heartbeats). Every
// line is at most kMaxMessageBytes; a longer one is a protocol error.
//
//   host  -> agent  {"id": 7, "op": "<op>", ...arguments}
//   agent -> host   {"id": 7, "ok": true, "result": {...}}
//                   {"id": 7, "ok": false, "error": "<message>", "exit": 2|3}
//                   {"id": 7, "event": "iterations", "first_ns": t, "gap_ns": [...], "dur_ns": [...]}
//                   {"id": 7, "event": "step", "level": "roofline", "step": "kernel gemm", "index": 3,
//                    "count": 9, "done": 2, "planned": 5, "counted": "repetitions"}
//                   {"event": "heartbeat", "t_ns": <device monotonic ns>}
//
// ops: hello {protocol, versions, heartbeat_s} -> DeviceInfo
//      time -> {t_ns}                 the device's monotonic clock (clock sync)
//      workload {workload, plan}      -> events "iterations", then {measuring_ns, end_ns, iterations, counters
//                                        (with plan.counters: read at this request's measured edges by a
//                                        session of its own; each of level 4's paired blocks is one)}
//      counters {workload, counters}  -> events "step", then CountersRecording (counters.paired_with:
//                                        the reference and seed its windows alternate with)
//      roofline {roofline}            -> events "step", then RooflineRecording (ceilings, vendor tools, kernels;
//                                        roofline.paired_with: the rounds its kernels with a reference alternate in)
//      load.start {argv} -> {id};  load.check {id};  load.stop {id} -> {end, output}
//      file.read {path, offset, max_bytes} -> {size, sha256, data (base64, at most kFileChunkBytes)}
//      stability.begin {plan}         the "before" reading (canary), then readings at the plan's interval
//      stability.end -> {readings}    the "after" reading; all of them (harness/levels/stability.h JSON)
//      cancel                         stops the op in progress (its reply says "interrupted")
//      bye                            stops every load and ends the agent
// Each message's fields are described once, in a table per message in
// protocol.cc (key, member, when it is sent); to_wire and *_from_wire are
// both derived from it, so a new field is one line there.
// Device times are the device's monotonic clock; the host maps them.
// "step" events only tell a person how far a level got: a host that does
// not know them skips them (as it skips any event of an op it did not
// expect), and an agent that does not send them leaves the live line at the
// level's start, so they needed no new protocol version.
// Iterations travel as differences (iteration i starts gap_ns[i] after
// iteration i-1 ended, the first at first_ns, and lasts dur_ns[i]): about
// 10 bytes an iteration instead of 28, so a fast in-process loop does not
// put megabytes through ssh during the window it measures.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/base/result.h"
#include "harness/rig/device.h"

namespace harness::protocol {

constexpr int kVersion = 1;
constexpr std::size_t kMaxMessageBytes = 4u << 20;
constexpr std::size_t kFileChunkBytes = 1u << 20;  // raw bytes per file.read reply (base64 inflates by 4/3)

// The parts of a scenario the device needs, as JSON. Host files (the layer
// profile, counter formulas) and expectations stay on the host.
nlohmann::json to_wire(const Workload& w);
nlohmann::json to_wire(const CountersConfig& c);
nlohmann::json to_wire(const RooflineConfig& c);
nlohmann::json to_wire(const IterationPlan& p);
nlohmann::json to_wire(const DeviceInfo& i);
nlohmann::json to_wire(const StabilityPlan& p);
Result<Workload> workload_from_wire(const nlohmann::json& j);
Result<CountersConfig> counters_from_wire(const nlohmann::json& j);
Result<RooflineConfig> roofline_from_wire(const nlohmann::json& j);
Result<IterationPlan> plan_from_wire(const nlohmann::json& j);
Result<DeviceInfo> device_info_from_wire(const nlohmann::json& j);
Result<StabilityPlan> stability_plan_from_wire(const nlohmann::json& j);
// stability.end's reply: {"readings": [...]} (harness/levels/stability.h JSON).
Result<std::vector<StabilityReading>> stability_readings_from_wire(const nlohmann::json& j);

nlohmann::json encode_iterations(const nlohmann::json& id, const IterationBatch& batch);
// A step of level 1 or 2 (progress.h StepProgress) as a "step" event; its
// time is the host's to add (it knows when the level began).
nlohmann::json encode_step(const nlohmann::json& id, const ProgressEvent& event);
Result<ProgressEvent> decode_step(const nlohmann::json& event);
// The absolute times back; an Error for a malformed or inconsistent event:
// more than `most` iterations (checked before they are allocated), a
// negative gap or duration, a time past the clock's end.
Result<IterationBatch> decode_iterations(const nlohmann::json& event, std::size_t most);
// Device clocks count nanoseconds in 63 bits (292 years): a time past it is
// an agent's lie, not a device.
constexpr std::uint64_t kMaxClockNs = std::uint64_t{1} << 63;

// One line (without its newline) parsed into an object, or why not.
Result<nlohmann::json> parse_line(const std::string& line);

std::string base64_encode(const std::string& bytes);
Result<std::string> base64_decode(const std::string& text);

}  // namespace harness::protocol
