// The canary: a fixed amount of deterministic work (about 100 ms on a 2020s
// laptop core), timed on each of the workload's CPUs at both ends of a
// window. The same work taking longer at the end than at the start means
// the rig moved under the run: another process sharing the CPU, a lower
// clock, throttling (docs/parts/stability.md).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "probes/stability/stability_reading.h"

namespace harness {

// The work is cut into chunks, each timed on the wall clock and in the
// thread's CPU time; each of the canary's times is the median chunk's times
// the number of chunks, so that one preemption (a timer tick, a kernel thread
// waking) moves it by nothing, while anything that slows most of the run
// shows in full: on the wall clock a hog time-sharing the CPU or a lower
// clock, in CPU time only what slows the work itself (the gate compares CPU
// times, and judges time-sharing by others' share of the CPUs).
constexpr int kCanaryChunks = 10;

// One chunk of the work: `rounds` steps of a xorshift walk that reads and
// writes a table small enough for any L1 cache (integer ALU, loads, stores,
// one dependent chain). Returns a checksum of every step, so no step can be
// optimised away; the same `rounds` always gives the same checksum.
std::uint64_t canary_chunk(std::uint64_t rounds);

// The rounds of one chunk: fixed forever, so canary times compare across
// runs and nights (about 2 ns a round on a 2020s x86 core: 10 ms a chunk).
constexpr std::uint64_t kCanaryRounds = 5'000'000;

// Untimed chunks first, for at least this long on each CPU: a core that was
// idle runs slower until its clock (or, on a virtual machine, the host's
// scheduling of its vCPU) catches up with the load. On this project's 2-vCPU
// development VM the first 60-150 ms after a pause ran 20-60 % slower, which
// made the window's first canary look like a rig that sped up under the run.
constexpr double kCanaryWarmupSeconds = 0.15;

class Canary {
 public:
  virtual ~Canary() = default;
  // The work's time on each CPU of `cpus`, all at once (a thread pinned to
  // each); `midway` is called once on the caller's thread while they run,
  // about half-way (the CPUs' clocks are read there, under load).
  virtual std::vector<CanaryTime> run(const std::vector<int>& cpus, const std::function<void()>& midway) = 0;
};

// The real one.
class FixedWorkCanary final : public Canary {
 public:
  std::vector<CanaryTime> run(const std::vector<int>& cpus, const std::function<void()>& midway) override;
};

}  // namespace harness
