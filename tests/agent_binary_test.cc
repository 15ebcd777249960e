// The device agent as it is shipped (cmake/agent.cmake): harness-agent is a
// static executable (a board has none of the host's libraries, nor its
// dynamic loader) that answers the protocol's hello.
#include <elf.h>

#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/rig/protocol.h"
#include "probes/process.h"
#include "probes/rig/transport.h"

namespace harness {
namespace {

// The program header types of a 64-bit ELF file (the host's class).
std::vector<std::uint32_t> program_header_types(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr eh{};
  in.read(reinterpret_cast<char*>(&eh), sizeof eh);
  EXPECT_TRUE(in && std::string(reinterpret_cast<char*>(eh.e_ident), 4) == ELFMAG) << path << ": not an ELF file";
  EXPECT_EQ(eh.e_ident[EI_CLASS], ELFCLASS64);
  std::vector<std::uint32_t> types;
  for (int i = 0; in && i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    in.seekg(static_cast<std::streamoff>(eh.e_phoff + static_cast<std::uint64_t>(i) * eh.e_phentsize));
    in.read(reinterpret_cast<char*>(&ph), sizeof ph);
    if (in) types.push_back(ph.p_type);
  }
  return types;
}

TEST(AgentBinary, IsStaticallyLinked) {
  if (!HARNESS_AGENT_STATIC) GTEST_SKIP() << "a sanitizer build links harness-agent dynamically";
  std::vector<std::uint32_t> types = program_header_types(HARNESS_AGENT_BINARY);
  ASSERT_FALSE(types.empty());
  for (std::uint32_t t : types) {
    EXPECT_NE(t, static_cast<std::uint32_t>(PT_INTERP)) << "harness-agent asks for a dynamic loader";
    EXPECT_NE(t, static_cast<std::uint32_t>(PT_DYNAMIC)) << "harness-agent has a dynamic section";
  }
}

TEST(AgentBinary, AnswersTheHello) {
  const std::string hello = nlohmann::json{{"id", 1}, {"op", "hello"}, {"protocol", protocol::kVersion}}.dump();
  Result<CommandResult> r = run_command(
      {"/bin/sh", "-c", "printf '%s\\n' " + shell_quote(hello) + " | " + shell_quote(HARNESS_AGENT_BINARY)},
      {.timeout_s = 30});
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->succeeded()) << r->describe_end() << ": " << r->err;
  nlohmann::json reply = nlohmann::json::parse(r->out.substr(0, r->out.find('\n')));
  EXPECT_EQ(reply["id"], 1);
  EXPECT_EQ(reply["ok"], true);
  EXPECT_EQ(reply["result"]["protocol"], protocol::kVersion);
  EXPECT_EQ(reply["result"]["harness_version"], HARNESS_VERSION);
}

TEST(AgentBinary, SaysItsVersionAndRefusesUnknownArguments) {
  Result<CommandResult> version = run_command({HARNESS_AGENT_BINARY, "--version"});
  ASSERT_TRUE(version);
  EXPECT_EQ(version->out, fmt::format("harness-agent {} (protocol {})\n", HARNESS_VERSION, protocol::kVersion));
  Result<CommandResult> bad = run_command({HARNESS_AGENT_BINARY, "--frobnicate"});
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->exit_code, 2);
  EXPECT_EQ(bad->err.substr(0, bad->err.find('\n')), "harness-agent: unknown argument '--frobnicate'");
}

}  // namespace
}  // namespace harness
