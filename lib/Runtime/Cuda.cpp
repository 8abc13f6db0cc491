//===- Cuda.cpp - CUDA Driver API runtime ---------------------------------===//

#include "spio/Runtime/Cuda.h"

#include <dlfcn.h>

#include <algorithm>
#include <iterator>
#include <mutex>
#include <optional>

namespace spio::runtime {

// The few driver types and constants used, so that no CUDA header is needed.
using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUevent = void *;
using CUstream = void *;
constexpr int kAttrMultiprocessors = 16;
constexpr int kAttrL2Bytes = 38;
constexpr int kAttrMemoryClockKHz = 36;
constexpr int kAttrMemoryBusBits = 37;
constexpr int kAttrComputeMajor = 75;
constexpr int kAttrComputeMinor = 76;
constexpr int kAttrMaxSharedOptIn = 97;
constexpr int kAttrSharedPerMultiprocessor = 81;
constexpr int kFuncLocalBytes = 3;
constexpr int kFuncNumRegs = 4;
constexpr int kFuncMaxDynamicShared = 8;
constexpr int kJitErrorLogBuffer = 5;
constexpr int kJitErrorLogBufferSize = 6;
constexpr CUresult kErrorNotReady = 600;
constexpr int kLaunchAttrProgrammaticStreamSerialization = 6;
constexpr int kLaunchAttrClusterDimension = 4;

// cuLaunchKernelEx's configuration (CUDA 12 and later), as cuda.h lays it out.
struct CUlaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int programmaticStreamSerializationAllowed;
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
};
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
};

struct CudaApi {
  void *library = nullptr;
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxGetCurrent)(CUcontext *);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, CUstream, void **, void **);
  /// Null in drivers before CUDA 12, whose launches are never dependent.
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *, CUfunction, void **, void **);
  /// Null in drivers before CUDA 12, which have no clusters.
  CUresult (*cuOccupancyMaxActiveClusters)(int *, CUfunction, const CUlaunchConfig *);
  CUresult (*cuMemAlloc_v2)(DevicePtr *, size_t);
  CUresult (*cuMemFree_v2)(DevicePtr);
  CUresult (*cuMemcpyHtoD_v2)(DevicePtr, const void *, size_t);
  CUresult (*cuMemcpyDtoH_v2)(void *, DevicePtr, size_t);
  CUresult (*cuMemsetD32_v2)(DevicePtr, unsigned, size_t);
  CUresult (*cuMemsetD32Async)(DevicePtr, unsigned, size_t, void *);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventQuery)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuEventDestroy_v2)(CUevent);
  /// Null in drivers before CUDA 12, which have no TMA.
  CUresult (*cuTensorMapEncodeTiled)(void *, int, uint32_t, void *, const uint64_t *,
                                     const uint64_t *, const uint32_t *, const uint32_t *, int,
                                     int, int, int);
  CUresult (*cuTensorMapEncodeIm2col)(void *, int, uint32_t, void *, const uint64_t *,
                                      const uint64_t *, const int *, const int *, uint32_t,
                                      uint32_t, const uint32_t *, int, int, int, int);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);

  /// Ok, or an Error naming `call` and the driver's description of `result`.
  Status check(CUresult result, const char *call) const {
    if (result == 0)
      return success();
    const char *name = nullptr, *text = nullptr;
    if (cuGetErrorName)
      cuGetErrorName(result, &name);
    if (cuGetErrorString)
      cuGetErrorString(result, &text);
    return Error{std::string(call) + " failed: " + (name ? name : "CUDA error") + " (" +
                 std::to_string(result) + "): " + (text ? text : "no description")};
  }
};

#define SPIO_CHECK(api, call)                                                  \
  do {                                                                         \
    if (Status s = (api)->check((api)->call, #call); !s)                       \
      return s.error();                                                        \
  } while (0)

namespace {

/// Makes `context` current on the calling thread for the scope's life and
/// then restores the context that was current (PyTorch's current device
/// stays what it was).
class ContextScope {
public:
  ContextScope(const CudaApi *api, CUcontext context) : api(api) {
    CUcontext current = nullptr;
    status = api->check(api->cuCtxGetCurrent(&current), "cuCtxGetCurrent");
    if (status && current != context) {
      status = api->check(api->cuCtxSetCurrent(context), "cuCtxSetCurrent");
      switched = status.ok();
      previous = current;
    }
  }
  ContextScope(const ContextScope &) = delete;
  ~ContextScope() {
    if (switched)
      api->cuCtxSetCurrent(previous);
  }
  /// Whether the context is current.
  Status status = success();

private:
  const CudaApi *api;
  CUcontext previous = nullptr;
  bool switched = false;
};

Result<CudaApi *> loadApi() {
  auto *api = new CudaApi();
  api->library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!api->library) {
    const char *why = dlerror();
    delete api;
    return Error{std::string("no CUDA driver: cannot load libcuda.so.1 (") +
                 (why ? why : "unknown reason") + ")"};
  }
  bool missing = false;
  std::string missingName;
  auto bind = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(api->library, name));
    if (!fn && !missing) {
      missing = true;
      missingName = name;
    }
  };
#define SPIO_BIND(name) bind(api->name, #name)
  SPIO_BIND(cuInit);
  SPIO_BIND(cuDriverGetVersion);
  SPIO_BIND(cuDeviceGetCount);
  SPIO_BIND(cuDeviceGet);
  SPIO_BIND(cuDeviceGetName);
  SPIO_BIND(cuDeviceGetAttribute);
  SPIO_BIND(cuDevicePrimaryCtxRetain);
  SPIO_BIND(cuCtxSetCurrent);
  SPIO_BIND(cuCtxGetCurrent);
  SPIO_BIND(cuCtxSynchronize);
  SPIO_BIND(cuModuleLoadDataEx);
  SPIO_BIND(cuModuleUnload);
  SPIO_BIND(cuModuleGetFunction);
  SPIO_BIND(cuFuncSetAttribute);
  SPIO_BIND(cuFuncGetAttribute);
  SPIO_BIND(cuLaunchKernel);
  SPIO_BIND(cuMemAlloc_v2);
  SPIO_BIND(cuMemFree_v2);
  SPIO_BIND(cuMemcpyHtoD_v2);
  SPIO_BIND(cuMemcpyDtoH_v2);
  SPIO_BIND(cuMemsetD32_v2);
  SPIO_BIND(cuMemsetD32Async);
  SPIO_BIND(cuEventCreate);
  SPIO_BIND(cuEventRecord);
  SPIO_BIND(cuEventSynchronize);
  SPIO_BIND(cuEventQuery);
  SPIO_BIND(cuEventElapsedTime);
  SPIO_BIND(cuEventDestroy_v2);
  SPIO_BIND(cuGetErrorName);
  SPIO_BIND(cuGetErrorString);
#undef SPIO_BIND
  api->cuLaunchKernelEx = reinterpret_cast<decltype(api->cuLaunchKernelEx)>(
      dlsym(api->library, "cuLaunchKernelEx"));
  api->cuOccupancyMaxActiveClusters = reinterpret_cast<decltype(api->cuOccupancyMaxActiveClusters)>(
      dlsym(api->library, "cuOccupancyMaxActiveClusters"));
  api->cuTensorMapEncodeTiled = reinterpret_cast<decltype(api->cuTensorMapEncodeTiled)>(
      dlsym(api->library, "cuTensorMapEncodeTiled"));
  api->cuTensorMapEncodeIm2col = reinterpret_cast<decltype(api->cuTensorMapEncodeIm2col)>(
      dlsym(api->library, "cuTensorMapEncodeIm2col"));
  if (missing) {
    dlclose(api->library);
    delete api;
    return Error{"the CUDA driver lacks " + missingName + "; it is too old"};
  }
  return api;
}

} // namespace

Result<Cuda *> Cuda::get(int device) {
  static std::once_flag once;
  static Result<const CudaApi *> driver = Error{"uninitialized"};
  static int devices = 0;
  std::call_once(once, [] {
    Result<CudaApi *> api = loadApi();
    if (!api) {
      driver = api.error();
      return;
    }
    const CudaApi *cu = *api;
    auto init = [&]() -> Result<const CudaApi *> {
      SPIO_CHECK(cu, cuInit(0));
      SPIO_CHECK(cu, cuDeviceGetCount(&devices));
      if (devices == 0)
        return Error{"no CUDA device found"};
      return cu;
    };
    driver = init();
  });
  if (!driver)
    return driver.error();
  if (device < 0 || device >= devices)
    return Error{"no CUDA device " + std::to_string(device) + " (there are " +
                 std::to_string(devices) + ")"};
  // Each device's primary context (the one PyTorch uses), set up once.
  static std::mutex mutex;
  static std::vector<std::optional<Result<Cuda *>>> instances(devices);
  std::lock_guard<std::mutex> lock(mutex);
  std::optional<Result<Cuda *>> &instance = instances[device];
  if (instance)
    return *instance;
  const CudaApi *cu = *driver;
  auto init = [&]() -> Result<Cuda *> {
    CUdevice handle;
    SPIO_CHECK(cu, cuDeviceGet(&handle, device));
    CUcontext context;
    SPIO_CHECK(cu, cuDevicePrimaryCtxRetain(&context, handle));
    auto *cuda = new Cuda();
    cuda->api = cu;
    cuda->context = context;
    char name[256] = {};
    SPIO_CHECK(cu, cuDeviceGetName(name, sizeof(name), handle));
    cuda->info.name = name;
    int shared = 0, sharedPerMultiprocessor = 0, l2 = 0;
    SPIO_CHECK(cu, cuDeviceGetAttribute(&cuda->info.computeMajor, kAttrComputeMajor, handle));
    SPIO_CHECK(cu, cuDeviceGetAttribute(&cuda->info.computeMinor, kAttrComputeMinor, handle));
    SPIO_CHECK(cu, cuDeviceGetAttribute(&cuda->info.multiprocessors, kAttrMultiprocessors, handle));
    SPIO_CHECK(cu, cuDeviceGetAttribute(&shared, kAttrMaxSharedOptIn, handle));
    SPIO_CHECK(
        cu, cuDeviceGetAttribute(&sharedPerMultiprocessor, kAttrSharedPerMultiprocessor, handle));
    SPIO_CHECK(cu, cuDeviceGetAttribute(&l2, kAttrL2Bytes, handle));
    // Drivers may drop these attributes (CUDA 13's runtime did): then the
    // bandwidth is the chip's reference part's (Cuda::target).
    int clockKHz = 0, busBits = 0;
    if (cu->cuDeviceGetAttribute(&clockKHz, kAttrMemoryClockKHz, handle) == 0 &&
        cu->cuDeviceGetAttribute(&busBits, kAttrMemoryBusBits, handle) == 0)
      cuda->info.memoryBytesPerSecond = 2.0 * clockKHz * 1e3 * busBits / 8;
    SPIO_CHECK(cu, cuDriverGetVersion(&cuda->info.driverVersion));
    cuda->info.maxSharedBytesPerBlock = shared;
    cuda->info.sharedBytesPerMultiprocessor = sharedPerMultiprocessor;
    cuda->info.l2Bytes = l2;
    if (cuda->info.computeMajor >= 9)
      if (Status s = cuda->measureClusters(); !s)
        return s.error();
    return cuda;
  };
  instance = init();
  return *instance;
}

Target Cuda::target() const {
  int version = 10 * info.computeMajor + info.computeMinor;
  Target t;
  t.chip = "sm_" + std::to_string(version);
  t.part = info.name;
  t.multiprocessors = info.multiprocessors;
  t.l2Bytes = info.l2Bytes;
  t.sharedBytesPerBlock = info.maxSharedBytesPerBlock;
  t.sharedBytesPerMultiprocessor = info.sharedBytesPerMultiprocessor;
  t.memoryBytesPerSecond = info.memoryBytesPerSecond;
  std::copy(std::begin(info.clustersAtOnce), std::end(info.clustersAtOnce), t.clustersAtOnce);
  if (std::optional<Target> reference = referenceTarget(t.chip);
      reference && t.memoryBytesPerSecond <= 0)
    t.memoryBytesPerSecond = reference->memoryBytesPerSecond;
  return t;
}

Result<Module> Cuda::loadPTX(const std::string &ptx) const {
  ContextScope scope(api, context);
  if (!scope.status)
    return scope.status.error();
  std::vector<char> log(16384, '\0');
  int options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSize};
  void *values[] = {log.data(), reinterpret_cast<void *>(log.size())};
  Module module;
  module.api = api;
  module.cuda = this;
  CUresult result = api->cuModuleLoadDataEx(&module.module, ptx.c_str(), 2, options, values);
  if (Status s = api->check(result, "cuModuleLoadDataEx"); !s) {
    module.module = nullptr;
    std::string jitLog(log.data());
    return Error{s.error().message + (jitLog.empty() ? "" : "\nJIT log:\n" + jitLog)};
  }
  return module;
}

Result<DeviceBuffer> Cuda::allocate(size_t bytes) const {
  ContextScope scope(api, context);
  if (!scope.status)
    return scope.status.error();
  DeviceBuffer buffer;
  buffer.api = api;
  buffer.cuda = this;
  buffer.bytes = bytes;
  if (Status s = api->check(api->cuMemAlloc_v2(&buffer.ptr, bytes ? bytes : 1),
                            "cuMemAlloc");
      !s)
    return Error{s.error().message + " (allocating " + std::to_string(bytes) + " bytes)"};
  return buffer;
}

namespace {
// cuda.h's CUtensorMapDataType, CUtensorMapSwizzle and
// CUtensorMapL2promotion values.
constexpr int kFloat16 = 6, kBFloat16 = 9, kTFloat32 = 11, kSwizzle128B = 3, kL2Promotion128B = 2;
constexpr uint64_t kSwizzleBytes = 128;

/// The driver's data type of an element, and its bytes.
int elementType(TensorMapShape::Element element) {
  switch (element) {
  case TensorMapShape::Element::F16:
    return kFloat16;
  case TensorMapShape::Element::BF16:
    return kBFloat16;
  case TensorMapShape::Element::Tf32:
    return kTFloat32;
  }
  return kBFloat16;
}
uint64_t elementBytes(TensorMapShape::Element element) {
  return element == TensorMapShape::Element::Tf32 ? 4 : 2;
}
} // namespace

Result<TensorMap> Cuda::encodeTensorMap(const TensorMapShape &shape, DevicePtr base) const {
  std::string what = std::to_string(shape.rows) + " x " + std::to_string(shape.cols) +
                     " matrix at " + std::to_string(base) + " (box " +
                     std::to_string(shape.boxRows) + " x " + std::to_string(shape.boxCols) + ")";
  if (!api->cuTensorMapEncodeTiled)
    return Error{"the CUDA driver lacks cuTensorMapEncodeTiled (TMA needs CUDA 12 or later)"};
  ContextScope scope(api, context);
  if (!scope.status)
    return scope.status.error();
  uint64_t elementSize = elementBytes(shape.element);
  if (base % 16 != 0 || (shape.cols * elementSize) % 16 != 0)
    return Error{"a tensor map needs a 16-byte aligned address and rows of a multiple of 16 "
                 "bytes: " + what};
  if (shape.rows == 0 || shape.cols == 0 || shape.boxRows == 0 || shape.boxRows > 256 ||
      shape.boxCols * elementSize != kSwizzleBytes)
    return Error{"a tensor map's box is 1 to 256 rows of 128 bytes: " + what};
  TensorMap map;
  uint64_t dims[2] = {shape.cols, shape.rows};
  uint64_t strides[1] = {shape.cols * elementSize};
  uint32_t box[2] = {shape.boxCols, shape.boxRows};
  uint32_t elementStrides[2] = {1, 1};
  int element = elementType(shape.element);
  if (Status s = api->check(api->cuTensorMapEncodeTiled(
                                map.bytes, element, 2, reinterpret_cast<void *>(base), dims,
                                strides, box, elementStrides, /*interleave=*/0, kSwizzle128B,
                                kL2Promotion128B, /*oobFill=*/0),
                            "cuTensorMapEncodeTiled");
      !s)
    return Error{s.error().message + " (" + what + ")"};
  return map;
}

Result<TensorMap> Cuda::encodeIm2colMap(const Im2colMapShape &shape, DevicePtr base) const {
  std::string what = std::to_string(shape.images) + " x " + std::to_string(shape.height) + " x " +
                     std::to_string(shape.width) + " x " + std::to_string(shape.channels) +
                     " NHWC tensor at " + std::to_string(base) + " (" +
                     std::to_string(shape.pixels) + " positions a copy)";
  if (!api->cuTensorMapEncodeIm2col)
    return Error{"the CUDA driver lacks cuTensorMapEncodeIm2col (TMA needs CUDA 12 or later)"};
  ContextScope scope(api, context);
  if (!scope.status)
    return scope.status.error();
  uint64_t elementSize = elementBytes(shape.element);
  if (base % 16 != 0 || (shape.channels * elementSize) % 16 != 0)
    return Error{"an im2col tensor map needs a 16-byte aligned address and a multiple of 8 "
                 "channels: " +
                 what};
  // A 4-D map's corners lie in [-128, 127] (cuTensorMapEncodeIm2col).
  auto corner = [](int32_t value) { return value >= -128 && value <= 127; };
  if (shape.images == 0 || shape.height == 0 || shape.width == 0 || shape.channels == 0 ||
      shape.pixels == 0 || shape.pixels > 256 || !corner(shape.lowerH) || !corner(shape.lowerW) ||
      !corner(shape.upperH) || !corner(shape.upperW) || shape.strideH < 1 || shape.strideH > 8 ||
      shape.strideW < 1 || shape.strideW > 8)
    return Error{"an im2col tensor map copies 1 to 256 positions, its window's corners in "
                 "[-128, 127] and strides 1 to 8: " +
                 what};
  TensorMap map;
  uint64_t dims[4] = {shape.channels, shape.width, shape.height, shape.images};
  uint64_t strides[3] = {shape.channels * elementSize, shape.channels * shape.width * elementSize,
                         shape.channels * shape.width * shape.height * elementSize};
  int lower[2] = {shape.lowerW, shape.lowerH}, upper[2] = {shape.upperW, shape.upperH};
  uint32_t elementStrides[4] = {1, shape.strideW, shape.strideH, 1};
  int element = elementType(shape.element);
  if (Status s = api->check(
          api->cuTensorMapEncodeIm2col(map.bytes, element, 4, reinterpret_cast<void *>(base), dims,
                                       strides, lower, upper, uint32_t(kSwizzleBytes / elementSize),
                                       shape.pixels, elementStrides, /*interleave=*/0, kSwizzle128B,
                                       kL2Promotion128B, /*oobFill=*/0),
          "cuTensorMapEncodeIm2col");
      !s)
    return Error{s.error().message + " (" + what + ")"};
  return map;
}

Status Cuda::synchronize() const {
  ContextScope scope(api, context);
  if (!scope.status)
    return scope.status;
  SPIO_CHECK(api, cuCtxSynchronize());
  return success();
}

// Spins one thread until the global timer has advanced by its parameter (ns).
constexpr const char *kHoldPtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry spio_hold(.param .u64 spio_hold_ns)
{
  .reg .pred %p;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [spio_hold_ns];
  mov.u64 %rd2, %globaltimer;
$L_spin:
  mov.u64 %rd3, %globaltimer;
  sub.s64 %rd4, %rd3, %rd2;
  setp.lt.u64 %p, %rd4, %rd1;
  @%p bra $L_spin;
  ret;
}
)";

// Longest hold tried before queued timing gives up on `body`.
constexpr uint64_t kMaxHoldNs = 200'000'000;

Status Cuda::zeroAsync(DevicePtr ptr, size_t bytes, void *stream) const {
  ContextScope scope(api, context);
  if (!scope.status)
    return scope.status;
  SPIO_CHECK(api, cuMemsetD32Async(ptr, 0, bytes / 4, stream));
  return success();
}

Status Cuda::measureClusters() {
  if (!api->cuOccupancyMaxActiveClusters)
    return success();
  // Any kernel does: the shared memory it asks for decides the occupancy.
  Result<Kernel> kernel = holdKernelLoaded();
  if (!kernel)
    return kernel.error();
  SPIO_CHECK(api, cuFuncSetAttribute(kernel->function, kFuncMaxDynamicShared,
                                     int(info.maxSharedBytesPerBlock)));
  ContextScope scope(api, context);
  if (!scope.status)
    return scope.status;
  for (unsigned size = 2; size <= 4; ++size) {
    CUlaunchAttribute cluster = {};
    cluster.id = kLaunchAttrClusterDimension;
    cluster.value.clusterDim = {size, 1, 1};
    CUlaunchConfig config = {size,    1,        1, 128, 1, 1, unsigned(info.maxSharedBytesPerBlock),
                             nullptr, &cluster, 1};
    int clusters = 0;
    SPIO_CHECK(api, cuOccupancyMaxActiveClusters(&clusters, kernel->function, &config));
    info.clustersAtOnce[size - 2] = clusters;
  }
  return success();
}

Result<Kernel> Cuda::holdKernelLoaded() const {
  if (!holdModule.module) {
    Result<Module> module = loadPTX(kHoldPtx);
    if (!module)
      return module.error();
    Result<Kernel> kernel = module->kernel("spio_hold");
    if (!kernel)
      return kernel.error();
    holdModule = std::move(*module);
    holdKernel = *kernel;
  }
  return holdKernel;
}

Status Cuda::hold(uint64_t ns) const {
  Result<Kernel> kernel = holdKernelLoaded();
  if (!kernel)
    return kernel.error();
  return kernel->launch(1, 1, 1, 1, 0, {&ns});
}

Result<float> Cuda::timeMs(const std::function<Status()> &body, Timing timing) const {
  ContextScope scope(api, context);
  if (!scope.status)
    return scope.status.error();
  CUevent start = nullptr, stop = nullptr;
  SPIO_CHECK(api, cuEventCreate(&start, 0));
  if (Status s = api->check(api->cuEventCreate(&stop, 0), "cuEventCreate"); !s) {
    api->cuEventDestroy_v2(start);
    return s.error();
  }
  auto run = [&]() -> Result<float> {
    // Held longer only within this timing: a body that waits for the GPU
    // leaves the next timing's hold as it was.
    for (uint64_t ns = holdNs;;) {
      if (timing == Timing::Queued)
        if (Status s = hold(ns); !s)
          return s.error();
      SPIO_CHECK(api, cuEventRecord(start, nullptr));
      if (Status s = body(); !s)
        return s.error();
      SPIO_CHECK(api, cuEventRecord(stop, nullptr));
      if (timing == Timing::Queued) {
        // The first event must still wait behind the hold, or the host's
        // latency counted: then hold longer and time again.
        CUresult started = api->cuEventQuery(start);
        if (started == 0) {
          SPIO_CHECK(api, cuEventSynchronize(stop));
          if (ns >= kMaxHoldNs)
            return Error{"queued timing: the timed launches took over " +
                         std::to_string(kMaxHoldNs / 1'000'000) +
                         " ms to queue, or wait for the GPU; time them with launch timing"};
          ns *= 4;
          continue;
        }
        if (started != kErrorNotReady)
          return api->check(started, "cuEventQuery").error();
      }
      SPIO_CHECK(api, cuEventSynchronize(stop));
      holdNs = ns;
      float ms = 0;
      SPIO_CHECK(api, cuEventElapsedTime(&ms, start, stop));
      return ms;
    }
  };
  Result<float> result = run();
  api->cuEventDestroy_v2(start);
  api->cuEventDestroy_v2(stop);
  return result;
}

std::vector<std::string> dependentKernels(const std::string &ptx) {
  const std::string entry = ".entry ";
  std::vector<std::string> names;
  for (size_t at = ptx.find(entry); at != std::string::npos;) {
    size_t name = at + entry.size(), next = ptx.find(entry, name);
    size_t end = next == std::string::npos ? ptx.size() : next;
    size_t paren = ptx.find('(', name);
    if (paren < end && ptx.find("griddepcontrol.wait", paren) < end) {
      std::string kernel = ptx.substr(name, paren - name);
      kernel.erase(kernel.find_last_not_of(" \t\n") + 1);
      names.push_back(kernel);
    }
    at = next;
  }
  return names;
}

Module &Module::operator=(Module &&other) noexcept {
  std::swap(api, other.api);
  std::swap(cuda, other.cuda);
  std::swap(module, other.module);
  return *this;
}

Module::~Module() {
  if (module) {
    ContextScope scope(api, cuda->context);
    api->cuModuleUnload(module);
  }
}

Result<Kernel> Module::kernel(const std::string &name) const {
  Kernel kernel;
  kernel.api = api;
  kernel.cuda = cuda;
  if (Status s = api->check(api->cuModuleGetFunction(&kernel.function, module, name.c_str()),
                            "cuModuleGetFunction");
      !s)
    return Error{s.error().message + " (kernel '" + name + "')"};
  return kernel;
}

Status Kernel::launch(unsigned gridX, unsigned gridY, unsigned gridZ, unsigned block,
                      size_t sharedBytes, std::vector<void *> args, void *stream,
                      bool dependent) {
  // A function launches in its module's context.
  ContextScope scope(api, cuda->context);
  if (!scope.status)
    return scope.status;
  if (sharedBytes > sharedOptIn) {
    // Said plainly rather than as the driver's invalid value; checked once
    // per larger size, like the opt-in.
    int64_t limit = cuda->device().maxSharedBytesPerBlock;
    if (limit > 0 && int64_t(sharedBytes) > limit)
      return Error{"the kernel needs " + std::to_string(sharedBytes) +
                   " bytes of shared memory a block; " + cuda->device().name + " allows " +
                   std::to_string(limit)};
    SPIO_CHECK(api, cuFuncSetAttribute(function, kFuncMaxDynamicShared,
                                       static_cast<int>(sharedBytes)));
    sharedOptIn = sharedBytes;
  }
  if (dependent && api->cuLaunchKernelEx) {
    CUlaunchAttribute overlap = {};
    overlap.id = kLaunchAttrProgrammaticStreamSerialization;
    overlap.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config = {gridX, gridY, gridZ, block, 1, 1,
                             static_cast<unsigned>(sharedBytes), static_cast<CUstream>(stream),
                             &overlap, 1};
    SPIO_CHECK(api, cuLaunchKernelEx(&config, function, args.data(), nullptr));
    return success();
  }
  SPIO_CHECK(api, cuLaunchKernel(function, gridX, gridY, gridZ, block, 1, 1,
                                 static_cast<unsigned>(sharedBytes),
                                 static_cast<CUstream>(stream), args.data(), nullptr));
  return success();
}

Result<std::pair<int, int>> Kernel::resources() const {
  int registers = 0, local = 0;
  SPIO_CHECK(api, cuFuncGetAttribute(&registers, kFuncNumRegs, function));
  SPIO_CHECK(api, cuFuncGetAttribute(&local, kFuncLocalBytes, function));
  return std::make_pair(registers, local);
}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  std::swap(api, other.api);
  std::swap(cuda, other.cuda);
  std::swap(ptr, other.ptr);
  std::swap(bytes, other.bytes);
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr) {
    ContextScope scope(api, cuda->context);
    api->cuMemFree_v2(ptr);
  }
}

Status DeviceBuffer::upload(const void *host, size_t size) {
  if (size > bytes)
    return Error{"upload of " + std::to_string(size) + " bytes into a buffer of " +
                 std::to_string(bytes)};
  ContextScope scope(api, cuda->context);
  if (!scope.status)
    return scope.status;
  SPIO_CHECK(api, cuMemcpyHtoD_v2(ptr, host, size));
  return success();
}

Status DeviceBuffer::download(void *host, size_t size) const {
  if (size > bytes)
    return Error{"download of " + std::to_string(size) + " bytes from a buffer of " +
                 std::to_string(bytes)};
  ContextScope scope(api, cuda->context);
  if (!scope.status)
    return scope.status;
  SPIO_CHECK(api, cuMemcpyDtoH_v2(host, ptr, size));
  return success();
}

Status DeviceBuffer::fill32(uint32_t word) {
  ContextScope scope(api, cuda->context);
  if (!scope.status)
    return scope.status;
  SPIO_CHECK(api, cuMemsetD32_v2(ptr, word, bytes / 4));
  return success();
}

} // namespace spio::runtime
