# Toolchain file for the device agent on a board (scripts/build-agent), with
# Debian's cross compilers (scripts/install-deps --cross):
#   cmake -DCMAKE_TOOLCHAIN_FILE=cmake/cross.cmake -DHARNESS_TARGET_ARCH=aarch64 ...
# One row per architecture: its GNU triplet, its CMake processor name and the
# qemu-user emulator that runs its tests on this host.
set(HARNESS_TARGET_ARCH "aarch64" CACHE STRING "The board's architecture: aarch64, armhf or x86_64")
if(HARNESS_TARGET_ARCH STREQUAL "aarch64")
  set(triplet aarch64-linux-gnu)
  set(CMAKE_SYSTEM_PROCESSOR aarch64)
  set(emulator qemu-aarch64-static)
elseif(HARNESS_TARGET_ARCH STREQUAL "x86_64")
  set(triplet x86_64-linux-gnu)
  set(CMAKE_SYSTEM_PROCESSOR x86_64)
  set(emulator qemu-x86_64-static)
elseif(HARNESS_TARGET_ARCH STREQUAL "armhf")
  set(triplet arm-linux-gnueabihf)
  set(CMAKE_SYSTEM_PROCESSOR armv7l)
  set(emulator qemu-arm-static)
else()
  message(FATAL_ERROR "HARNESS_TARGET_ARCH: unknown architecture '${HARNESS_TARGET_ARCH}' (known: aarch64, armhf, x86_64)")
endif()
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${triplet}-gcc)
set(CMAKE_CXX_COMPILER ${triplet}-g++)
set(CMAKE_FIND_ROOT_PATH /usr/${triplet})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# The agent and its tests are static: the emulator needs no sysroot.
set(CMAKE_CROSSCOMPILING_EMULATOR ${emulator})
# Passed on to try_compile projects.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES HARNESS_TARGET_ARCH)
