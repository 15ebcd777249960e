// `harness init`: a commented scenario to start from, which runs as written
// on this machine (the local rig) or, with the transport filled in, on a
// board. Every key it writes is explained beside it; a test checks that each
// is documented in scenarios/README.md or the metric catalogue.
#include <algorithm>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/base/files.h"
#include "harness/cli/commands.h"
#include "harness/model/metric.h"
#include "probes/rig/transport.h"

namespace harness {
namespace {

struct InitOptions {
  std::string path;
  std::string rig = "local";  // local | ssh | command
  std::string levels = "1,2,4";
  std::string host, user, identity, agent;
  int port = 0;
  std::vector<std::string> ssh_options;
  std::string command;  // the command transport's prefix, split at blanks
  bool force = false;
};

std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string toml_array(const std::vector<std::string>& words) {
  std::vector<std::string> quoted;
  for (const std::string& w : words) quoted.push_back(toml_string(w));
  return "[" + fmt::format("{}", fmt::join(quoted, ", ")) + "]";
}

// Words at blanks; '...' keeps blanks and double quotes in one word
// ("sh -c 'eval \"$*\"' sh").
std::vector<std::string> split_blanks(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool quoted = false, any = false;
  for (char c : text) {
    if (c == '\'') {
      quoted = !quoted;
      any = true;
    } else if (!quoted && (c == ' ' || c == '\t')) {
      if (any) words.push_back(word);
      word.clear();
      any = false;
    } else {
      word += c;
      any = true;
    }
  }
  if (any) words.push_back(word);
  return words;
}

// "1,2,4" or "roofline,latency" -> the levels, in order; an unknown one is an error.
Result<std::vector<Level>> parse_levels(const std::string& text) {
  std::vector<Level> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    std::optional<Level> level = level_from_name(item);
    if (!level && item.size() == 1 && item[0] >= '1' && item[0] <= '5') level = static_cast<Level>(item[0] - '0');
    if (!level) return Error::input(fmt::format("--levels: unknown level '{}' (1-5, or roofline, counters, ddr, latency, accuracy)", item));
    if (std::find(out.begin(), out.end(), *level) == out.end()) out.push_back(*level);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string rig_section(const InitOptions& o) {
  std::string s = R"(
[rig]                   # what the rig has and how harness reaches it
name = ")" + (o.rig == "local" ? std::string("this-host") : std::string("board-1")) +
                  R"("       # the rig's identity: a run is compared only with baselines of the same rig
description = "written by harness init"
)";
  if (o.rig == "local") {
    s += R"(transport = "local"     # the agent runs as a child of harness: the device is this machine
                        # (ssh: a board over OpenSSH; command: a prefix such as ["adb", "shell"])
)";
  } else if (o.rig == "ssh") {
    s += "transport = \"ssh\"       # the system OpenSSH client runs `harness agent` on the board\n";
    s += "host = " + toml_string(o.host.empty() ? "board-1.lab" : o.host) + "   # the board's address\n";
    if (!o.user.empty()) s += "user = " + toml_string(o.user) + "   # log in as this user\n";
    if (o.port != 0) s += fmt::format("port = {}              # ssh port (default: ssh's own)\n", o.port);
    if (!o.identity.empty()) s += "identity = " + toml_string(o.identity) + "   # ssh -i: the key to log in with\n";
    if (!o.ssh_options.empty()) s += "ssh_options = " + toml_array(o.ssh_options) + "   # passed to ssh as they are\n";
  } else {
    std::vector<std::string> prefix = split_blanks(o.command.empty() ? "adb shell" : o.command);
    s += "transport = \"command\"   # any prefix that yields a shell on the board\n";
    s += "command = " + toml_array(prefix) + "   # e.g. [\"labgrid-client\", \"-p\", \"board-3\", \"ssh\"]\n";
  }
  if (!o.agent.empty()) s += "agent = " + toml_array(split_blanks(o.agent)) + "   # the agent's command on the device\n";
  s += R"(heartbeat_timeout = "10 s"   # the agent beats every second: silence this long is a fault, never a hang
connect_timeout = "30 s"     # from starting the transport to the agent's hello
clock_tolerance = "1 ms"     # allowed change of the device clock's offset across the run

[rig.memory]            # memory bandwidth ceilings: "measure", or declared such as "50 GB/s"
dram = "measure"

[rig.compute]           # peak compute per precision: "measure", or declared such as "30 TOPS"
fp32 = "measure"

[rig.versions]          # commands run on the device; their first line is stored with every run
kernel = ["uname", "-r"]
)";
  return s;
}

std::string workload_section() {
  return R"(
[workload]              # what runs for levels 2 and 4: a built-in kernel, or command = ["./infer", ...]
name = "gemm-64"        # shown in reports
builtin = "gemm"        # vector_add | gemm | softmax | conv2d, run in the agent's process
m = 64                  # gemm: C[m,n] += A[m,k] B[k,n], fp32
n = 64
k = 64
timeout = "60 s"        # per iteration
)";
}

std::string level_section(Level level) {
  switch (level) {
    case Level::roofline:
      return R"(
[roofline]              # level 1: the rig's ceilings and where the kernels sit on its roofline
repetitions = 3         # of every microbenchmark and kernel, taken in rounds
buffer = "64 MiB"       # working set of the bandwidth probes: far beyond the last-level cache
host_benchmarks = true  # measure this host's bandwidth and compute tables

[[roofline.kernels]]    # a kernel placed on the roofline
name = "vector_add"     # its metrics are vector_add.<metric>
builtin = "vector_add"
elements = 1048576      # 3 x 4 MiB of fp32

[roofline.kernels.expect]  # expectation keys of a kernel: harness metrics --level roofline
bound = "memory"        # memory- or compute-bound
)";
    case Level::counters:
      return R"(
[counters]              # level 2: counters read around the workload's iterations
groups = ["linux-host"] # counter groups (scenarios/groups/): perf's generic events
iterations = 100        # workload runs between the first and last reading
windows = 5             # read between 5 windows of them as well
# [counters.expect] takes <counter or metric>_min / _max: harness metrics --level counters
)";
    case Level::ddr:
      return R"(
[ddr]                   # level 3: the DRAM command bus from a logic-analyzer capture
standard = "lpddr4"     # ddr4 | lpddr4 | lpddr4x | lpddr5 | lpddr5x

[ddr.acquire]           # recorded live through libsigrok while level 4's iterations run
driver = "demo"         # sigrok's demo driver stands in for your analyzer (e.g. "fx2lafw"): on this
                        # machine level 3 then reports why its pattern is no DRAM bus
samplerate = "100 kHz"
samples = 3000000       # at most 30 s of samples; stopped when the window closes
pattern = "walking-one" # the demo driver's test pattern
)";
    case Level::latency:
      return R"(
[latency]               # level 4: latency, throughput and power under load
iterations = 200        # at least this many measured iterations ...
min_duration = "1 s"    # ... and at least this long
warmup = 10             # run first, not counted
load = ["none", "stress-ng --cpu 1"]  # measured without, then beside one busy core
load_settle = "300 ms"  # from starting a load to the warm-up

[latency.power]
source = "auto"         # RAPL or hwmon when this machine has them, else "unavailable: <reason>"

[latency.expect]        # <metric>_min / _max: harness metrics --level latency
p95_over_p50_max = 5.0  # consistency: wide, for a shared development machine
)";
    case Level::accuracy:
      return R"(
# Level 5 needs per-layer tensor dumps of your model (FP32 reference and
# device); fill in the paths, then remove the leading '# ':
# [accuracy]            # level 5: which layers lose accuracy on the device
# reference = "dumps/fp32"      # .npy files, raw files with .json sidecars, or an .npz
# device = "dumps/npu-int8"
# cosine_min = 0.99
)";
  }
  return "";
}

std::string scenario_text(const InitOptions& o, const std::vector<Level>& levels) {
  std::string text = R"(# A scenario written by `harness init`. Check it, then run it:
#   harness check )" + o.path + R"(
#   harness run )" + o.path + R"(
# Every key is explained beside it; the reference of every key is
# scenarios/README.md, and `harness metrics` lists every metric a level emits
# with the expectation keys ("expect" tables) it takes.

[scenario]
name = ")" + std::filesystem::path(o.path).stem().string() + R"("   # baselines are kept per scenario name and rig
description = "written by harness init"
)";
  text += rig_section(o);
  text += workload_section();
  for (Level level : levels) text += level_section(level);
  text += R"(
[compare]               # how `harness compare` judges a run against a baseline
default_threshold = 0.25  # single values: smallest relative change that counts (wide: shared machines)
sample_threshold = 0.15   # sample sets: smallest shift that counts
)";
  return text;
}

}  // namespace

Action setup_init(CLI::App& app, const GlobalOptions&, Io io) {
  auto o = std::make_shared<InitOptions>();
  app.add_option("file", o->path, "The scenario file to write (refused when it exists, unless --force)")->required();
  app.add_option("--rig", o->rig, "How the device is reached: local (this machine), ssh or command")
      ->check(CLI::IsMember({"local", "ssh", "command"}));
  app.add_option("--levels", o->levels, "Levels to configure: 1-5 or their names, comma separated (default 1,2,4)");
  app.add_option("--host", o->host, "ssh: the board's address");
  app.add_option("--user", o->user, "ssh: the user to log in as");
  app.add_option("--port", o->port, "ssh: the port")->check(CLI::Range(1, 65535));
  app.add_option("--identity", o->identity, "ssh: the key file (ssh -i)");
  app.add_option("--ssh-option", o->ssh_options, "ssh: an option passed as it is (repeat for several words)");
  app.add_option("--command", o->command,
                 "command: the prefix that yields a shell on the board, e.g. \"adb shell\" ('...' keeps blanks in a word)");
  app.add_option("--agent", o->agent, "The agent's command on the device (default: harness agent)");
  app.add_flag("--force", o->force, "Overwrite the file when it exists");
  return [o, io]() -> Result<ExitCode> {
    Result<std::vector<Level>> levels = parse_levels(o->levels);
    if (!levels) return levels.error();
    std::error_code ec;
    if (!o->force && std::filesystem::exists(o->path, ec))
      return Error::input(fmt::format("{}: exists already (--force overwrites it)", o->path));
    HARNESS_TRY(write_file_atomically(o->path, scenario_text(*o, *levels)));
    io.out << fmt::format("wrote {}; check it with: harness check {}\n", o->path, o->path);
    return ExitCode::ok;
  };
}

}  // namespace harness
