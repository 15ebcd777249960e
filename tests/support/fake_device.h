// A fake device for the stability probe's tests (probes/stability): /sys and
// /proc files written under a fresh test folder, which is the probe's root,
// and a canary that returns scripted times. Synthetic: every file holds what
// the test writes, in the kernel's formats (proc(5), sysfs-devices-system-cpu).
#pragma once

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "probes/stability/canary.h"
#include "tests/support/scratch_dir.h"

namespace harness::testing_support {

class FakeDeviceTree {
 public:
  FakeDeviceTree() : root_(fresh_test_dir("harness-fake-device").string()) {}
  ~FakeDeviceTree() { std::filesystem::remove_all(root_); }
  FakeDeviceTree(const FakeDeviceTree&) = delete;
  FakeDeviceTree& operator=(const FakeDeviceTree&) = delete;

  const std::string& root() const { return root_; }
  // An absolute device path ("/proc/stat") as it lies in the tree.
  std::string at(const std::string& path) const { return root_ + path; }
  void put(const std::string& path, const std::string& text) const {
    const std::filesystem::path p = at(path);
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  void remove(const std::string& path) const { std::filesystem::remove_all(at(path)); }
  // /proc/<pid>/stat with the fields the probe reads (ppid, utime, stime,
  // cutime, starttime); the others are plausible constants.
  void process(int pid, const std::string& comm, int ppid, int utime, int stime = 0, int cutime = 0,
               int start = 100) const {
    put("/proc/" + std::to_string(pid) + "/stat",
        std::to_string(pid) + " (" + comm + ") S " + std::to_string(ppid) + " 1 1 0 -1 4194304 100 0 0 0 " +
            std::to_string(utime) + " " + std::to_string(stime) + " " + std::to_string(cutime) + " 0 20 0 1 0 " +
            std::to_string(start) + " 1000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n");
  }

 private:
  std::string root_;
};

// runs[k][i]: the time of the k-th run on the i-th CPU asked for, and
// cpu_runs[k][i] its CPU time (none when cpu_runs is empty, as from an agent
// that did not read it). `starting` and `ending` stand for what the canary's
// load does to the device (a clock that rises under it), around the midway
// call.
class ScriptedCanary final : public Canary {
 public:
  std::vector<std::vector<double>> runs, cpu_runs;
  std::size_t next = 0;
  std::function<void()> starting, ending;

  std::vector<CanaryTime> run(const std::vector<int>& cpus, const std::function<void()>& midway) override {
    std::vector<CanaryTime> out;
    for (std::size_t i = 0; i < cpus.size(); ++i)
      out.push_back({.cpu = cpus[i],
                     .seconds = Probed<double>::known(runs.at(next).at(i)),
                     .cpu_seconds = cpu_runs.empty() ? Probed<double>::missing("not scripted")
                                                     : Probed<double>::known(cpu_runs.at(next).at(i))});
    ++next;
    if (starting) starting();
    if (midway) midway();
    if (ending) ending();
    return out;
  }
};

}  // namespace harness::testing_support
