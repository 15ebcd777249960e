#include "tests/support/ssh_device.h"

#include "probes/rig/transport.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <fmt/format.h>

namespace harness::test_support {
namespace fs = std::filesystem;
namespace {

constexpr const char* kSshd = "/usr/sbin/sshd";  // sshd re-executes itself: an absolute path
constexpr const char* kInstallHint = "openssh-server and openssh-client: scripts/install-deps";
constexpr int kPortAttempts = 5;
constexpr double kReadyTimeoutS = 5;

// A port the kernel considers free right now. Another process may take it
// before sshd binds it: the caller retries with a fresh one.
Result<int> free_loopback_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error::infra(fmt::format("socket: {}", std::strerror(errno)));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    int e = errno;
    ::close(fd);
    return Error::infra(fmt::format("a free port on 127.0.0.1: {}", std::strerror(e)));
  }
  ::close(fd);
  return static_cast<int>(ntohs(addr.sin_port));
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

Status write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Error::infra(fmt::format("cannot write {}", path.string()));
  return ok();
}

// pid -> parent pid, for every live (not zombie) process.
std::map<int, int> live_parents() {
  std::map<int, int> parents;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = read_file(e.path() / "stat");
    const std::size_t close = stat.rfind(')');  // the command name may hold spaces
    if (close == std::string::npos || close + 2 >= stat.size()) continue;
    std::istringstream rest(stat.substr(close + 2));
    std::string state;
    int ppid = 0;
    if (rest >> state >> ppid && state != "Z" && state != "X") parents[std::stoi(name)] = ppid;
  }
  return parents;
}

// Every live descendant of `pid`. sshd gives each connection a session of
// its own, so its process group does not hold them: the tree does.
std::vector<int> live_descendants(int pid) {
  const std::map<int, int> parents = live_parents();
  std::vector<int> found{pid};
  for (std::size_t i = 0; i < found.size(); ++i) {
    for (const auto& [child, parent] : parents) {
      if (parent == found[i]) found.push_back(child);
    }
  }
  found.erase(found.begin());
  return found;
}

bool live(int pid) {
  const std::map<int, int> parents = live_parents();
  return parents.count(pid) != 0;
}

}  // namespace

bool loopback_port_accepts(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool accepted = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return accepted;
}

SshDevice::SshDevice() {
  Status started = start();
  if (!started) {
    unavailable_ = started.error().message;
    stop();
  }
}

SshDevice::~SshDevice() { stop(); }

Status SshDevice::start() {
  const passwd* pw = ::getpwuid(::geteuid());
  if (pw == nullptr) return Error::infra(fmt::format("no user name for uid {}", ::geteuid()));
  user_ = pw->pw_name;

  for (const char* tool : {kSshd, "ssh-keygen", "ssh"}) {
    Result<std::string> found = find_executable(tool);
    if (!found) return Error::infra(fmt::format("{} ({})", found.error().message, kInstallHint));
  }

  std::string tmpl = (fs::temp_directory_path() / "harness-ssh-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    return Error::infra(fmt::format("mkdtemp {}: {}", tmpl, std::strerror(errno)));
  }
  folder_ = tmpl;
  // sshd_config and ssh -o values split on spaces and expand '%' tokens;
  // ssh's control socket is a Unix socket path (at most 107 bytes, and ssh
  // adds 17 while it creates it, to the 44 of "cm-%C").
  if (folder_.string().find_first_of(" \t\"'%\\") != std::string::npos || folder_.string().size() > 45) {
    return Error::infra(fmt::format("temporary folder '{}' is unusable for ssh paths (set TMPDIR=/tmp)",
                                    folder_.string()));
  }

  for (const char* key : {"host_key", "user_key"}) {
    Result<CommandResult> keygen = run_command(
        {"ssh-keygen", "-q", "-N", "", "-t", "ed25519", "-C", "harness-ssh-device", "-f", (folder_ / key).string()},
        {.timeout_s = 10});
    if (!keygen) return keygen.error();
    if (!keygen->succeeded()) {
      return Error::infra(fmt::format("ssh-keygen {}: {}: {}", key, keygen->describe_end(), keygen->err));
    }
  }
  HARNESS_TRY(write_file(folder_ / "authorized_keys", read_file(folder_ / "user_key.pub")));

  // sshd refuses to start without its privilege separation directory, which
  // only an init system would create.
  std::error_code ec;
  if (fs::create_directories("/run/sshd", ec)) {
    fs::permissions("/run/sshd", fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                     fs::perms::others_read | fs::perms::others_exec, ec);
  }

  Status last = ok();
  for (int attempt = 0; attempt < kPortAttempts; ++attempt) {
    last = start_sshd();
    if (last || sshd_) break;  // started, or running but never ready: no retry helps
  }
  if (!last) return last;

  // The host key pinned: a connection to anything else on this port fails.
  return write_file(known_hosts(),
                    fmt::format("[{}]:{} {}", host(), port_, read_file(folder_ / "host_key.pub")));
}

// One attempt on a fresh port. An sshd that ended (the port was taken in the
// meantime) leaves sshd_ empty so that the caller tries again.
Status SshDevice::start_sshd() {
  Result<int> port = free_loopback_port();
  if (!port) return port.error();
  port_ = *port;
  const fs::path config = folder_ / "sshd_config";
  const fs::path pid_file = folder_ / "sshd.pid";
  HARNESS_TRY(write_file(config, fmt::format(
      "ListenAddress {}\n"
      "Port {}\n"
      "HostKey {}\n"
      "AuthorizedKeysFile {}\n"
      "PasswordAuthentication no\n"
      "KbdInteractiveAuthentication no\n"
      "StrictModes no\n"
      "PermitRootLogin prohibit-password\n"
      "UsePAM no\n"
      "PidFile {}\n"
      "LogLevel ERROR\n"
      "MaxSessions 20\n"
      "MaxStartups 50\n",
      host(), port_, (folder_ / "host_key").string(), (folder_ / "authorized_keys").string(),
      pid_file.string())));
  std::error_code ec;
  fs::remove(pid_file, ec);

  Result<std::unique_ptr<ChildProcess>> sshd = ChildProcess::start({kSshd, "-f", config.string(), "-D", "-e"});
  if (!sshd) return sshd.error();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(kReadyTimeoutS);
  while (true) {
    if (std::optional<ChildEnd> end = (*sshd)->ended()) {
      (*sshd)->wait_output_closed(0.5);
      return Error::infra(fmt::format("sshd on port {}: {}: {}", port_, end->describe(), (*sshd)->output_tail()));
    }
    // sshd writes its pid file once it listens: the pid tells that the
    // listener on the port is this sshd, not a process that took the port.
    const std::string pid_text = read_file(pid_file);
    if (!pid_text.empty() && std::atoi(pid_text.c_str()) == (*sshd)->pid() && loopback_port_accepts(port_)) {
      sshd_ = std::move(*sshd);
      return ok();
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      sshd_ = std::move(*sshd);  // stop() ends it
      return Error::infra(fmt::format("sshd on port {}: not accepting connections after {} s: {}", port_,
                                      kReadyTimeoutS, sshd_->output_tail()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void SshDevice::stop() {
  if (sshd_) {
    // Sessions still open (a command whose client was killed) and whatever
    // they started go with the listener. Read the tree first: once the
    // connection closes, a command that ignores it is reparented to init.
    const std::vector<int> sessions = live_descendants(sshd_->pid());
    // The connection master outlives every ssh call (ControlPersist): ask it
    // to leave before its server does.
    std::error_code ec;
    bool master = false;
    for (const auto& e : fs::directory_iterator(folder_, ec)) {
      if (e.path().filename().string().rfind("cm-", 0) == 0) master = true;
    }
    if (master) {
      std::vector<std::string> argv{"ssh"};
      const std::vector<std::string> options = ssh_options();
      argv.insert(argv.end(), options.begin(), options.end());
      argv.insert(argv.end(), {"-O", "exit", destination()});
      (void)run_command(argv, {.timeout_s = 5});
    }
    for (int pid : sessions) ::kill(pid, SIGTERM);
    sshd_->stop(2);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    for (int pid : sessions) {
      while (live(pid) && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      if (live(pid)) ::kill(pid, SIGKILL);
    }
    sshd_.reset();
  }
  if (!folder_.empty()) {
    std::error_code ec;
    fs::remove_all(folder_, ec);
  }
}

std::vector<std::string> SshDevice::ssh_options() const {
  return {
      "-F", "/dev/null",  // no user or system ssh_config
      "-o", "BatchMode=yes",
      "-o", "StrictHostKeyChecking=yes",
      "-o", "UserKnownHostsFile=" + known_hosts().string(),
      "-o", "GlobalKnownHostsFile=/dev/null",
      "-o", "UpdateHostKeys=no",
      "-o", "IdentitiesOnly=yes",
      "-o", "IdentityAgent=none",
      "-i", identity().string(),
      "-p", std::to_string(port_),
      "-o", "ConnectTimeout=5",
      "-o", "ControlMaster=auto",
      "-o", "ControlPath=" + (folder_ / "cm-%C").string(),
      "-o", "ControlPersist=30",
      "-o", "LogLevel=ERROR",
  };
}

std::vector<std::string> SshDevice::ssh_command(const std::vector<std::string>& argv) const {
  std::vector<std::string> command{"ssh"};
  const std::vector<std::string> options = ssh_options();
  command.insert(command.end(), options.begin(), options.end());
  command.insert(command.end(), {destination(), "--"});
  for (const std::string& word : argv) command.push_back(harness::shell_quote(word));
  return command;
}

Result<CommandResult> SshDevice::run(const std::vector<std::string>& argv, double timeout_s) const {
  if (!available()) return Error::infra("ssh device unavailable: " + unavailable_);
  if (argv.empty()) return Error::input("ssh device: empty command");
  return run_command(ssh_command(argv), {.timeout_s = timeout_s});
}

}  // namespace harness::test_support
