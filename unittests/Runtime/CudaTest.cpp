//===- CudaTest.cpp - The runtime without (or with) a GPU -----------------===//

#include "spio/Runtime/Cuda.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

using namespace spio::runtime;

namespace {

bool driverLoads() {
  void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle)
    dlclose(handle);
  return handle != nullptr;
}

TEST(Cuda, NoDriverIsAClearErrorNotACrash) {
  if (driverLoads())
    GTEST_SKIP() << "a CUDA driver is installed";
  Result<Cuda *> cuda = Cuda::get();
  ASSERT_FALSE(cuda.ok());
  EXPECT_NE(cuda.error().message.find("no CUDA driver: cannot load libcuda.so.1"),
            std::string::npos)
      << cuda.error().message;
  // Asking again gives the same answer.
  EXPECT_EQ(Cuda::get().error().message, cuda.error().message);
}

TEST(Cuda, WithADeviceAllocationsRoundTrip) {
  Result<Cuda *> cuda = Cuda::get();
  if (!cuda.ok())
    GTEST_SKIP() << cuda.error().message;
  Result<DeviceBuffer> buffer = (*cuda)->allocate(1024);
  ASSERT_TRUE(buffer.ok()) << buffer.error().message;
  std::vector<uint32_t> in(256), out(256, 0);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = uint32_t(i * 2654435761u);
  ASSERT_TRUE(buffer->upload(in.data(), 1024).ok());
  ASSERT_TRUE(buffer->download(out.data(), 1024).ok());
  EXPECT_EQ(in, out);
  ASSERT_TRUE(buffer->fill32(0xdeadbeef).ok());
  ASSERT_TRUE(buffer->download(out.data(), 1024).ok());
  EXPECT_EQ(out[17], 0xdeadbeefu);
  EXPECT_FALSE(buffer->upload(in.data(), 4096).ok()); // larger than the buffer
}

TEST(Cuda, TensorMapsOfUnsupportedShapesAreClearErrors) {
  Result<Cuda *> cuda = Cuda::get();
  if (!cuda.ok())
    GTEST_SKIP() << cuda.error().message;
  Result<DeviceBuffer> buffer = (*cuda)->allocate(256 * 64 * 2);
  ASSERT_TRUE(buffer.ok()) << buffer.error().message;
  TensorMapShape shape;
  shape.rows = 256, shape.cols = 64, shape.boxRows = 128, shape.boxCols = 64;
  Result<TensorMap> map = (*cuda)->encodeTensorMap(shape, buffer->pointer());
  ASSERT_TRUE(map.ok()) << map.error().message;
  // A misaligned base, rows of 7 elements, a box of 512 rows or of 64 bytes.
  Result<TensorMap> misaligned = (*cuda)->encodeTensorMap(shape, buffer->pointer() + 2);
  ASSERT_FALSE(misaligned.ok());
  EXPECT_NE(misaligned.error().message.find("16-byte aligned address"), std::string::npos);
  TensorMapShape ragged = shape;
  ragged.cols = 7;
  EXPECT_FALSE((*cuda)->encodeTensorMap(ragged, buffer->pointer()).ok());
  TensorMapShape tall = shape;
  tall.boxRows = 512;
  EXPECT_NE((*cuda)->encodeTensorMap(tall, buffer->pointer()).error().message.find(
                "1 to 256 rows of 128 bytes"),
            std::string::npos);
  TensorMapShape narrow = shape;
  narrow.boxCols = 32;
  EXPECT_FALSE((*cuda)->encodeTensorMap(narrow, buffer->pointer()).ok());
}

TEST(Cuda, Im2colMapsRefuseWhatTmaCannotRead) {
  Result<Cuda *> cuda = Cuda::get();
  if (!cuda.ok())
    GTEST_SKIP() << cuda.error().message;
  if ((*cuda)->device().computeMajor < 9)
    GTEST_SKIP() << "TMA needs compute capability 9.0";
  Result<DeviceBuffer> buffer = (*cuda)->allocate(2 * 8 * 8 * 64 * 2);
  ASSERT_TRUE(buffer.ok()) << buffer.error().message;
  // Two 8 x 8 images of 64 channels, 3x3 filter, padding 1, stride 1.
  Im2colMapShape shape;
  shape.images = 2, shape.height = shape.width = 8, shape.channels = 64;
  shape.lowerH = shape.lowerW = -1, shape.upperH = shape.upperW = -1, shape.pixels = 128;
  Result<TensorMap> map = (*cuda)->encodeIm2colMap(shape, buffer->pointer());
  ASSERT_TRUE(map.ok()) << map.error().message;
  Result<TensorMap> misaligned = (*cuda)->encodeIm2colMap(shape, buffer->pointer() + 2);
  ASSERT_FALSE(misaligned.ok());
  EXPECT_NE(misaligned.error().message.find("16-byte aligned address"), std::string::npos);
  Im2colMapShape rgb = shape;
  rgb.channels = 3;
  EXPECT_NE((*cuda)->encodeIm2colMap(rgb, buffer->pointer()).error().message.find(
                "multiple of 8 channels"),
            std::string::npos);
  Im2colMapShape tall = shape, far = shape, strided = shape;
  tall.pixels = 512;
  far.lowerH = -200;
  strided.strideW = 9;
  for (const Im2colMapShape &bad : {tall, far, strided}) {
    EXPECT_NE((*cuda)->encodeIm2colMap(bad, buffer->pointer()).error().message.find(
                  "1 to 256 positions"),
              std::string::npos);
  }
}

// A Hopper device says how many clusters run at once, a block a
// multiprocessor: some, and no more than its multiprocessors hold.
TEST(Cuda, HopperDevicesCountTheClustersThatRunAtOnce) {
  Result<Cuda *> cuda = Cuda::get();
  if (!cuda.ok())
    GTEST_SKIP() << cuda.error().message;
  if ((*cuda)->device().computeMajor < 9)
    GTEST_SKIP() << "clusters need compute capability 9.0";
  spio::Target target = (*cuda)->target();
  for (int64_t size : {2, 3, 4}) {
    EXPECT_GT(target.clustersAtOnce[size - 2], 0) << size;
    EXPECT_LE(target.clusters(size), target.multiprocessors / size) << size;
  }
}

TEST(Cuda, BadPtxReturnsTheJitLog) {
  Result<Cuda *> cuda = Cuda::get();
  if (!cuda.ok())
    GTEST_SKIP() << cuda.error().message;
  Result<Module> module = (*cuda)->loadPTX(".version 8.0\n.target sm_90\nthis is not ptx\n");
  ASSERT_FALSE(module.ok());
  EXPECT_NE(module.error().message.find("cuModuleLoadDataEx"), std::string::npos);
}

TEST(Cuda, QueuedTimingRefusesABodyThatWaitsForTheGpu) {
  Result<Cuda *> cuda = Cuda::get();
  if (!cuda.ok())
    GTEST_SKIP() << cuda.error().message;
  auto waits = [&] { return (*cuda)->synchronize(); };
  Result<float> queued = (*cuda)->timeMs(waits, Timing::Queued);
  ASSERT_FALSE(queued.ok());
  EXPECT_NE(queued.error().message.find("time them with launch timing"), std::string::npos)
      << queued.error().message;
  // Launch timing takes it, and queued timing still takes a body that
  // only queues.
  EXPECT_TRUE((*cuda)->timeMs(waits, Timing::Launch).ok());
  EXPECT_TRUE((*cuda)->timeMs([] { return success(); }, Timing::Queued).ok());
}

TEST(Cuda, DependentKernelsAreThoseThatWait) {
  // Without a GPU: only the kernel that waits for the grids before it may
  // launch as a dependent grid; triggering its own dependents is not it.
  std::string ptx = ".version 8.0\n.target sm_90\n"
                    ".visible .entry partial_sums(\n.param .u64 a\n)\n{\n"
                    "\tgriddepcontrol.launch_dependents;\n\tret;\n}\n"
                    ".visible .entry reduce (\n.param .u64 a\n)\n{\n"
                    "\tgriddepcontrol.wait;\n\tret;\n}\n"
                    ".visible .entry plain()\n{\n\tret;\n}\n";
  EXPECT_EQ(dependentKernels(ptx), std::vector<std::string>{"reduce"});
  EXPECT_TRUE(dependentKernels("").empty());
}

} // namespace
