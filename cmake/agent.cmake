# The device agent: only what runs on the board (the protocol, workload
# timing, counters, the microbenchmarks, background load, device context,
# stability readings), as one static library that both executables link:
#   harness-agent   statically linked, for the board (scripts/build-agent
#                   cross-builds it; no libsigrok, glib, SQLite, libpq,
#                   ISA-L or OpenSSL, no NSS look-ups);
#   harness agent   the same code inside the main binary, for local runs.
# Its dependencies are header-only (fmt in its header-only mode, nlohmann
# json, toml++'s declarations, Boost.Math), so a cross build needs nothing
# but Debian's cross compiler. A source that pulls in another part of the
# harness shows up here as an undefined symbol when harness-agent links:
# add it to the list only if it belongs on the device.
set(HARNESS_AGENT_SOURCES
  harness/base/base64.cc
  harness/base/bounded_json.cc
  harness/base/closest_match.cc
  harness/base/files.cc
  harness/base/sha256.cc
  harness/base/stats.cc
  harness/base/units.cc
  harness/model/metric.cc
  harness/model/metric_catalogue.cc
  harness/model/progress.cc
  harness/scenario/counters_config.cc
  harness/scenario/counters_formula.cc
  harness/scenario/reference_config.cc
  harness/levels/counters_recording.cc
  harness/levels/roofline_recording.cc
  harness/levels/stability.cc
  harness/rig/agent.cc
  harness/rig/counter_windows.cc
  harness/rig/local_device.cc
  harness/rig/measure_counters.cc
  harness/rig/measure_roofline.cc
  harness/rig/protocol.cc
  harness/rig/step_progress.cc
  probes/compute_peak.cc
  probes/device_context.cc
  probes/kernels.cc
  probes/membw.cc
  probes/process.cc
  probes/vendor_figures.cc
  probes/counters/command.cc
  probes/counters/perf_event.cc
  probes/counters/recorded.cc
  probes/counters/session.cc
  probes/counters/sources.cc
  probes/counters/text_file.cc
  probes/load/background_load.cc
  probes/stability/canary.cc
  probes/stability/rig_files.cc
  probes/stability/stability_probe.cc
  probes/workload/cpu_pinning.cc
  probes/workload/timed_spawn.cc
  probes/workload/workload_runner.cc)
list(TRANSFORM HARNESS_AGENT_SOURCES PREPEND ${CMAKE_SOURCE_DIR}/)

# The agent's own tests: the ones whose code is all in the agent, so that
# they also run on the board's architecture (under qemu-user when cross-built).
set(HARNESS_AGENT_TESTS
  harness/base/sha256_test.cc
  harness/rig/protocol_test.cc
  probes/compute_peak_test.cc
  probes/membw_test.cc
  probes/vendor_figures_test.cc
  probes/counters/perf_event_test.cc
  probes/load/background_load_test.cc
  probes/workload/cpu_pinning_test.cc)
list(TRANSFORM HARNESS_AGENT_TESTS PREPEND ${CMAKE_SOURCE_DIR}/)

if(CMAKE_CROSSCOMPILING)
  # The header-only libraries are the host's (/usr/include, architecture
  # independent); a folder of links shows the cross compiler those alone,
  # never the host's C library headers beside them.
  set(host_headers ${CMAKE_BINARY_DIR}/host-headers)
  file(MAKE_DIRECTORY ${host_headers})
  foreach(dir fmt nlohmann toml++ boost)
    if(NOT EXISTS /usr/include/${dir})
      message(FATAL_ERROR "/usr/include/${dir} missing: run scripts/install-deps")
    endif()
    file(CREATE_LINK /usr/include/${dir} ${host_headers}/${dir} SYMBOLIC)
  endforeach()
  add_library(harness_agent_deps INTERFACE)
  target_include_directories(harness_agent_deps SYSTEM INTERFACE ${host_headers})
  target_compile_definitions(harness_agent_deps INTERFACE FMT_HEADER_ONLY=1)
else()
  find_package(fmt REQUIRED)
  find_package(nlohmann_json REQUIRED)
  find_package(Boost 1.74 REQUIRED)
  add_library(harness_agent_deps INTERFACE)
  # toml++: its declarations only (scenario headers), from /usr/include.
  target_link_libraries(harness_agent_deps INTERFACE fmt::fmt-header-only nlohmann_json::nlohmann_json Boost::boost)
endif()
find_package(Threads REQUIRED)

add_library(harness_agent_core STATIC ${HARNESS_AGENT_SOURCES})
target_include_directories(harness_agent_core PUBLIC ${CMAKE_SOURCE_DIR})
target_compile_definitions(harness_agent_core PUBLIC
  TOML_EXCEPTIONS=0 TOML_HEADER_ONLY=0
  HARNESS_VERSION="${PROJECT_VERSION}")
# fmt in its header-only mode here alone: the static agent has no libfmt.a
# to link, and the rest of the harness keeps the shared libfmt.
target_link_libraries(harness_agent_core PRIVATE harness_agent_deps)
target_link_libraries(harness_agent_core PUBLIC Threads::Threads)
if(NOT CMAKE_CROSSCOMPILING)
  target_link_libraries(harness_agent_core PUBLIC nlohmann_json::nlohmann_json)
else()
  target_include_directories(harness_agent_core SYSTEM PUBLIC ${host_headers})
endif()

add_executable(harness-agent harness/cli/agent_main.cc)
target_link_libraries(harness-agent PRIVATE harness_agent_core harness_agent_deps)
# Static and stripped; a sanitizer build (scripts/test-sanitized,
# scripts/fuzz) cannot link statically.
if(HARNESS_SANITIZE OR CMAKE_CXX_FLAGS MATCHES "-fsanitize")
  set(HARNESS_AGENT_STATIC 0)
else()
  set(HARNESS_AGENT_STATIC 1)
  target_link_options(harness-agent PRIVATE -static $<$<CONFIG:Release>:-s>)
endif()

# Agent-only builds (scripts/build-agent): the agent's tests, run by CTest
# through CMAKE_CROSSCOMPILING_EMULATOR (qemu-user) when cross-built.
# GoogleTest is built from Debian's sources (googletest package) for the
# target architecture.
if(HARNESS_AGENT_ONLY)
  include(CTest)
  if(BUILD_TESTING)
    if(NOT EXISTS /usr/src/googletest/CMakeLists.txt)
      message(FATAL_ERROR "/usr/src/googletest missing: run scripts/install-deps")
    endif()
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    add_subdirectory(/usr/src/googletest ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL SYSTEM)
    add_executable(harness_agent_tests ${HARNESS_AGENT_TESTS})
    target_link_libraries(harness_agent_tests PRIVATE harness_agent_core harness_agent_deps gtest gtest_main gmock)
    target_link_options(harness_agent_tests PRIVATE -static)
    add_test(NAME agent_tests COMMAND harness_agent_tests)
    set_tests_properties(agent_tests PROPERTIES TIMEOUT 600)
  endif()
endif()
