//===- Cuda.h - CUDA Driver API runtime -------------------------*- C++ -*-===//
//
// Loads libcuda.so.1 at run time (a binary that links this starts, and says
// why, on a machine without a GPU or driver), uses each device's primary
// context, loads PTX with the JIT error log, launches kernels with dynamic
// shared memory above 48 KB, and times with events (queued behind a hold
// kernel, or as one launch on an idle GPU). Every failure becomes an
// Error naming the driver call and the driver's message.
//
// No LLVM or MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_RUNTIME_CUDA_H
#define SPIO_RUNTIME_CUDA_H

#include "spio/Runtime/TensorMap.h"
#include "spio/Target/Target.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace spio::runtime {

/// Why something failed.
struct Error {
  std::string message;
};

/// A value or an Error.
template <typename T>
class Result {
public:
  Result(T value) : state(std::move(value)) {}
  Result(Error error) : state(std::move(error)) {}
  bool ok() const { return std::holds_alternative<T>(state); }
  explicit operator bool() const { return ok(); }
  T &operator*() { return std::get<T>(state); }
  T *operator->() { return &std::get<T>(state); }
  const Error &error() const { return std::get<Error>(state); }

private:
  std::variant<T, Error> state;
};

/// Success, or an Error.
using Status = Result<std::monostate>;
inline Status success() { return Status(std::monostate{}); }

struct DeviceInfo {
  std::string name;
  int computeMajor = 0, computeMinor = 0;
  int multiprocessors = 0;
  int64_t l2Bytes = 0;
  int64_t maxSharedBytesPerBlock = 0; // with opt-in
  int64_t sharedBytesPerMultiprocessor = 0;
  /// DRAM bytes a second: twice the memory clock times the bus width.
  double memoryBytesPerSecond = 0;
  int driverVersion = 0;
  /// Clusters of 2, 3 and 4 blocks, each taking a multiprocessor's shared
  /// memory, that run at once (Target::clustersAtOnce); 0 before sm_90 or
  /// where the driver cannot say.
  int64_t clustersAtOnce[3] = {0, 0, 0};
};

/// Opaque driver handles.
using DevicePtr = uint64_t;
struct CudaApi;
class Cuda;

/// A kernel of a loaded module.
class Kernel {
public:
  Kernel() = default;
  /// Launches on `stream` (a CUstream; null: the default stream) with
  /// `sharedBytes` of dynamic shared memory (opting in above 48 KB on first
  /// use). `args` point at the kernel's parameters. A `dependent` launch
  /// may start before the grid ahead of it on the stream ends: only for
  /// kernels that wait for it (spio.wait_prerequisites) before reading
  /// what it wrote; drivers before CUDA 12 launch it plainly.
  Status launch(unsigned gridX, unsigned gridY, unsigned gridZ, unsigned block,
                size_t sharedBytes, std::vector<void *> args, void *stream = nullptr,
                bool dependent = false);
  /// Registers per thread and local (spill) bytes, as the driver reports.
  Result<std::pair<int, int>> resources() const;

private:
  friend class Cuda;
  friend class Module;
  const CudaApi *api = nullptr;
  /// The device whose context holds the function.
  const Cuda *cuda = nullptr;
  void *function = nullptr;
  /// Dynamic shared memory the function has opted in to (set on first use:
  /// static shared memory counts against the 48 KB default too).
  size_t sharedOptIn = 0;
};

/// A loaded module; unloads when destroyed.
class Module {
public:
  Module() = default;
  Module(Module &&other) noexcept { *this = std::move(other); }
  Module &operator=(Module &&other) noexcept;
  Module(const Module &) = delete;
  ~Module();
  Result<Kernel> kernel(const std::string &name) const;

private:
  friend class Cuda;
  const CudaApi *api = nullptr;
  const Cuda *cuda = nullptr;
  void *module = nullptr;
};

/// Device memory; frees when destroyed.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer &&other) noexcept { *this = std::move(other); }
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  ~DeviceBuffer();
  DevicePtr pointer() const { return ptr; }
  size_t size() const { return bytes; }
  Status upload(const void *host, size_t size);
  Status download(void *host, size_t size) const;
  /// Fills every 32-bit word with `word` (poisons outputs).
  Status fill32(uint32_t word);

private:
  friend class Cuda;
  const CudaApi *api = nullptr;
  const Cuda *cuda = nullptr;
  DevicePtr ptr = 0;
  size_t bytes = 0;
};

/// Where Cuda::timeMs starts its clock.
enum class Timing {
  /// The events and the timed launches are queued behind a kernel that
  /// holds the stream until all of them are: the GPU's time alone, as when
  /// the host runs ahead of the GPU (NVBench's blocking kernel).
  Queued,
  /// The first event runs before the host has made the launch calls: the
  /// time of one launch on an idle GPU, host launch latency included.
  Launch,
};

/// The kernels (.entry names) of `ptx` that wait for the grids launched
/// before them (griddepcontrol.wait), which may launch as dependent grids.
std::vector<std::string> dependentKernels(const std::string &ptx);

/// The driver and a device's primary context (the one PyTorch uses).
/// Loading, allocating, copying, encoding, launching and timing run in the
/// device's context and leave the calling thread's current context as they
/// found it.
class Cuda {
public:
  /// Device `device` (the driver's index; 0: the first). Loads the driver
  /// once per process. Fails with a clear message when libcuda.so.1 is
  /// missing, the driver fails to initialize, or there is no such device.
  static Result<Cuda *> get(int device = 0);

  const DeviceInfo &device() const { return info; }
  /// The device as the target kernels are chosen and compiled for: its
  /// chip (sm_XY for compute capability X.Y) and facts.
  Target target() const;
  /// Loads PTX; a JIT failure returns ptxas' error log.
  Result<Module> loadPTX(const std::string &ptx) const;
  Result<DeviceBuffer> allocate(size_t bytes) const;
  /// Encodes the tensor map of `shape` at `base` (cuTensorMapEncodeTiled);
  /// fails, saying why, for a misaligned address or an unsupported shape.
  Result<TensorMap> encodeTensorMap(const TensorMapShape &shape, DevicePtr base) const;
  /// Encodes the im2col tensor map of `shape` at `base`
  /// (cuTensorMapEncodeIm2col); fails, saying why, like encodeTensorMap.
  Result<TensorMap> encodeIm2colMap(const Im2colMapShape &shape, DevicePtr base) const;
  Status synchronize() const;
  /// Sets `bytes` (a multiple of 4) at `ptr` to zero on `stream` (null: the
  /// default stream), in order with the stream's launches.
  Status zeroAsync(DevicePtr ptr, size_t bytes, void *stream) const;
  /// Milliseconds `body`'s launches take on the default stream, between
  /// two events. Queued timing fails if `body` waits for the GPU.
  Result<float> timeMs(const std::function<Status()> &body,
                       Timing timing = Timing::Queued) const;

private:
  friend class DeviceBuffer;
  friend class Kernel;
  friend class Module;
  Cuda() = default;
  /// The kernel that holds the default stream, loaded on first use.
  Result<Kernel> holdKernelLoaded() const;
  /// Launches the kernel that holds the default stream for `ns`.
  Status hold(uint64_t ns) const;
  /// Sets info.clustersAtOnce from the driver's occupancy of clusters.
  Status measureClusters();
  const CudaApi *api = nullptr;
  void *context = nullptr;
  DeviceInfo info;
  /// The hold kernel (loaded at device set-up, where clusters are
  /// measured, or on first queued timing) and the last hold that outlasted
  /// the queueing of the timed launches, where the next timing starts.
  mutable Module holdModule;
  mutable Kernel holdKernel;
  mutable uint64_t holdNs = 50'000;
};

} // namespace spio::runtime

#endif // SPIO_RUNTIME_CUDA_H
