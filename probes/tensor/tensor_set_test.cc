#include "probes/tensor/tensor_set.h"

#include <sys/stat.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "tests/support/tensor_bytes.h"

namespace harness::tensor {
namespace {

using namespace testing_support;
namespace fs = std::filesystem;

std::string error_of(const Result<std::vector<TensorInfo>>& r) { return r ? std::string("accepted") : r.error().message; }

// Issue 29: a symlink loop in a dump folder ended in "internal error" (exit
// 3); every entry that is not a regular file is bad input naming it.
TEST(TensorFolders, AnEntryThatIsNotARegularFileIsRefusedNamingIt) {
  TestFolder d;
  d.write("a.npy", npy("<f4", "(1,)", floats({1})));
  fs::create_directories(d / "notes");  // a subfolder is not read
  d.write("notes/junk.npy", "not an npy file");
  EXPECT_EQ(error_of(list_tensor_set(d.str())), "accepted");
  fs::create_symlink("loop", d / "loop");
  EXPECT_EQ(error_of(list_tensor_set(d.str())),
            d / "loop" + ": is a symbolic link, not a regular file (a tensor folder holds regular files only)");
  fs::remove(d / "loop");
  fs::create_symlink("a.npy", d / "b.npy");
  EXPECT_EQ(error_of(list_tensor_set(d.str())),
            d / "b.npy" + ": is a symbolic link, not a regular file (a tensor folder holds regular files only)");
  fs::remove(d / "b.npy");
  ASSERT_EQ(::mkfifo((d / "c.npy").c_str(), 0644), 0);
  EXPECT_EQ(error_of(list_tensor_set(d.str())),
            d / "c.npy" + ": is a FIFO, not a regular file (a tensor folder holds regular files only)");
}

TEST(TensorFolders, ASetPathThatIsNotAFileOrFolderIsBadInput) {
  TestFolder d;
  fs::create_symlink("loop.npy", d / "loop.npy");
  EXPECT_EQ(error_of(list_tensor_set(d / "loop.npy")).rfind(d / "loop.npy" + ": ", 0), 0u);
  EXPECT_EQ(error_of(list_tensor_set(d / "nowhere")), d / "nowhere" + ": no such file or directory");
  ASSERT_EQ(::mkfifo((d / "f.npy").c_str(), 0644), 0);
  EXPECT_EQ(error_of(list_tensor_set(d / "f.npy")), d / "f.npy" + ": is a FIFO, not a regular file");
  EXPECT_EQ(error_of(list_tensor_set("/dev/zero")), "/dev/zero: is a device, not a regular file");
  EXPECT_EQ(error_of(list_tensor_set(d.write("notes.txt", "x"))),
            d / "notes.txt" + ": not a tensor set (a directory, an .npz archive, an .npy file or a .json sidecar)");
  fs::create_directories(d / "empty");
  EXPECT_EQ(error_of(list_tensor_set(d / "empty")), d / "empty" + ": no tensors (.npy files or .json sidecars) in this directory");
}

}  // namespace
}  // namespace harness::tensor
