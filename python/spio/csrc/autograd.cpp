// spio._autograd: spio.linear's and spio.conv2d_gw8's eager calls and
// autograd nodes in C++, built against the installed torch
// (python/setup.py). Forwards and backwards run launchers of Spio's C API
// that the Python side builds once a shape (a plan), so that a call costs
// one C++ call, as torch's own do, and the backward runs no Python on the
// autograd engine's thread. Needs no CUDA headers: the C API takes the
// stream as a handle.

#include <torch/extension.h>

#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace {

// spio_launcher_run and spio_free of libspio_capi.so (include/spio-c/Spio.h),
// whose addresses the Python side hands over: the library it loaded is the
// one these launchers belong to.
using RunLauncher = int32_t (*)(void *launcher, void *stream, const uint64_t *operands,
                                int32_t numOperands, uint64_t workspace, const float *scalars,
                                char **error);
using FreeText = void (*)(void *);
RunLauncher runLauncher = nullptr;
FreeText freeText = nullptr;

// A spio_launcher and what its runs take: the count of operand addresses
// and the scratch bytes.
struct Launcher {
  void *handle = nullptr;
  int32_t operands = 0;
  int64_t workspace = 0;
};

// A launcher's operand addresses in its order (GEMM: A, B, C, D, bias,
// scale, ...; conv2d-gw8 fprop: x, w, bias, y; dgrad: dy, w, dx; wgrad: x,
// dy, dw, db), 0 where absent.
using Operands = std::array<uint64_t, 8>;

// A shape's launchers. The autograd engine runs a device's backward nodes on
// one thread, and the forward runs under the GIL; the mutex keeps the
// backward's launchers (whose runs encode TMA descriptors for new addresses)
// to one run at a time anyway.
struct LinearPlan {
  Launcher forward, dx, dw;
  std::mutex backward;
};
struct Conv2dGw8Plan {
  Launcher fprop, dgrad, wgrad;
  // y's (N, C, P, Q) and the stored dw's (C, R, S, g).
  std::vector<int64_t> ySizes, dwSizes;
  // Whether wgrad's launcher also sums the bias's gradient.
  bool wgradSumsBias = false;
  std::mutex backward;
};

// c10::Stream's CUDA handle: native_handle() in torch up to 2.11,
// stream_handle() after.
template <typename S> auto streamHandle(const S &stream, int) -> decltype(stream.native_handle()) {
  return stream.native_handle();
}
template <typename S> auto streamHandle(const S &stream, long) -> decltype(stream.stream_handle()) {
  return stream.stream_handle();
}

uint64_t address(const at::Tensor &t) { return reinterpret_cast<uint64_t>(t.data_ptr()); }

// The kernels read with 16-byte vectors: a view starting inside a row is
// copied (as the Python path's _aligned does). A copy made in a launch's
// call lives until the launch is queued: torch's allocator then hands its
// memory only to later work on the same stream.
at::Tensor aligned(const at::Tensor &t) { return address(t) % 16 ? t.clone() : t; }

// Runs `launcher` on the current stream of `like`'s device, with scratch
// memory from torch's allocator (stream-ordered, so freed at return).
void run(const Launcher &launcher, const at::Tensor &like, const Operands &operands) {
  TORCH_CHECK(runLauncher, "spio._autograd: set_library was not called");
  TORCH_CHECK(launcher.handle, "spio._autograd: the plan holds no launcher for this pass");
  TORCH_CHECK(launcher.operands <= int32_t(operands.size()), "spio._autograd: a launcher of ",
              launcher.operands, " operands");
  c10::Stream stream =
      c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA)->getStream(like.device());
  at::Tensor workspace;
  if (launcher.workspace > 0)
    workspace = at::empty({launcher.workspace}, like.options().dtype(at::kByte));
  char *error = nullptr;
  if (runLauncher(launcher.handle, streamHandle(stream, 0), operands.data(), launcher.operands,
                  workspace.defined() ? address(workspace) : 0, nullptr, &error)) {
    std::string text = error ? error : "the launch failed";
    if (error)
      freeText(error);
    TORCH_CHECK(false, "spio: ", text);
  }
}

template <typename Plan> Plan &planAt(int64_t plan) { return *reinterpret_cast<Plan *>(plan); }

// What a node's forward keeps for its backward.
void keep(torch::autograd::AutogradContext *ctx, const at::Tensor &x, const at::Tensor &w,
          const std::optional<at::Tensor> &b, int64_t plan) {
  ctx->save_for_backward({x, w});
  ctx->saved_data["plan"] = plan;
  ctx->saved_data["bias"] = b.has_value();
}

// What a node's backward gets back of its forward: the plan, x, w and whether
// there was a bias.
template <typename Plan> struct Kept {
  Plan &plan;
  at::Tensor x, w;
  bool bias;
};

template <typename Plan> Kept<Plan> restore(torch::autograd::AutogradContext *ctx, const char *op) {
  // The launches are not recorded: a graph of the backward (create_graph)
  // would miss them.
  TORCH_CHECK(!at::GradMode::is_enabled(), op,
              "'s backward cannot be differentiated (create_graph=True)");
  auto saved = ctx->get_saved_variables();
  return {planAt<Plan>(ctx->saved_data["plan"].toInt()), saved[0], saved[1],
          ctx->saved_data["bias"].toBool()};
}

// x @ w^T (+ b) by the plan's forward launcher.
at::Tensor linearForward(const LinearPlan &plan, const at::Tensor &x, const at::Tensor &w,
                         const std::optional<at::Tensor> &b) {
  at::Tensor y = at::empty({x.size(0), w.size(0)}, x.options());
  run(plan.forward, x,
      {address(aligned(x)), address(aligned(w)), 0, address(y),
       b ? address(aligned(b->contiguous())) : 0});
  return y;
}

class LinearFunction : public torch::autograd::Function<LinearFunction> {
public:
  static at::Tensor forward(torch::autograd::AutogradContext *ctx, const at::Tensor &x,
                            const at::Tensor &w, const std::optional<at::Tensor> &b, int64_t plan) {
    at::Tensor y = linearForward(planAt<LinearPlan>(plan), x, w, b);
    keep(ctx, x, w, b, plan);
    return y;
  }

  // dX = dY @ W, dW = dY^T @ X (each in f32, rounded once to dY's dtype),
  // db = dY summed over the rows, as the inputs need them.
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                 torch::autograd::variable_list grads) {
    auto [plan, x, w, bias] = restore<LinearPlan>(ctx, "spio.linear");
    at::Tensor dy = aligned(grads[0].contiguous());
    at::Tensor dx, dw, db;
    std::lock_guard<std::mutex> lock(plan.backward);
    if (ctx->needs_input_grad(0)) {
      dx = at::empty({dy.size(0), w.size(1)}, dy.options());
      run(plan.dx, dy, {address(dy), address(aligned(w)), 0, address(dx)});
    }
    if (ctx->needs_input_grad(1)) {
      dw = at::empty({dy.size(1), x.size(1)}, dy.options());
      run(plan.dw, dy, {address(dy), address(aligned(x)), 0, address(dw)});
    }
    // A half or bfloat16 sum adds in f32 and rounds once; an f32 one adds
    // in the order dY's strides give, as the Python node's does.
    if (bias && ctx->needs_input_grad(2))
      db = grads[0].sum(0);
    return {dx, dw, db, at::Tensor()};
  }
};

// The weight (C, g, R, S) as the kernels read it, (C, R, S, g): a
// channels_last weight itself, else a copy.
at::Tensor krsc(const at::Tensor &weight) {
  if (weight.is_contiguous(at::MemoryFormat::ChannelsLast))
    return aligned(weight);
  return weight.permute({0, 2, 3, 1}).contiguous();
}

at::Tensor channelsLast(const at::Tensor &t) {
  return aligned(t.contiguous(at::MemoryFormat::ChannelsLast));
}

// conv2d_gw8(x, w, b) by the plan's fprop launcher.
at::Tensor conv2dGw8Forward(const Conv2dGw8Plan &plan, const at::Tensor &x, const at::Tensor &w,
                            const std::optional<at::Tensor> &b) {
  at::Tensor y = at::empty(plan.ySizes, x.options().memory_format(at::MemoryFormat::ChannelsLast));
  run(plan.fprop, x,
      {address(aligned(x)), address(krsc(w)), b ? address(aligned(b->contiguous())) : 0,
       address(y)});
  return y;
}

class Conv2dGw8Function : public torch::autograd::Function<Conv2dGw8Function> {
public:
  static at::Tensor forward(torch::autograd::AutogradContext *ctx, const at::Tensor &x,
                            const at::Tensor &w, const std::optional<at::Tensor> &b, int64_t plan) {
    at::Tensor y = conv2dGw8Forward(planAt<Conv2dGw8Plan>(plan), x, w, b);
    keep(ctx, x, w, b, plan);
    return y;
  }

  // dx by dgrad; dw (and db, where the plan's wgrad sums it) by wgrad, whose
  // kernels sum in f32 in a fixed order and round once; else db as dy summed.
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                 torch::autograd::variable_list grads) {
    auto [plan, x, w, bias] = restore<Conv2dGw8Plan>(ctx, "spio.conv2d_gw8");
    at::Tensor dy = channelsLast(grads[0]);
    at::Tensor dx, dw, db;
    std::lock_guard<std::mutex> lock(plan.backward);
    if (ctx->needs_input_grad(0)) {
      dx = at::empty(x.sizes(), dy.options().memory_format(at::MemoryFormat::ChannelsLast));
      run(plan.dgrad, dy, {address(dy), address(krsc(w)), address(dx)});
    }
    // (The autograd edges count only the inputs given: with no bias there is
    // no edge 2 to ask about.)
    bool needsDb = bias && ctx->needs_input_grad(2);
    if (ctx->needs_input_grad(1)) {
      at::Tensor stored = at::empty(plan.dwSizes, x.options());
      if (plan.wgradSumsBias)
        db = at::empty({x.size(1)}, x.options());
      run(plan.wgrad, x,
          {address(aligned(x)), address(dy), address(stored), db.defined() ? address(db) : 0});
      dw = stored.permute({0, 3, 1, 2});
      if (!needsDb)
        db = at::Tensor();
    }
    if (needsDb && !db.defined()) {
      // A half or bfloat16 sum adds in f32 and rounds once.
      db = grads[0].sum({0, 2, 3});
    }
    return {dx, dw, db, at::Tensor()};
  }
};

// A launcher of a plan: null where the plan runs only the forward.
Launcher launcherOf(int64_t handle, int64_t operands, int64_t workspace) {
  return {reinterpret_cast<void *>(handle), int32_t(operands), workspace};
}

} // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.doc() = "spio.linear's and spio.conv2d_gw8's autograd nodes in C++ over Spio's C API "
            "launchers";
  m.def(
      "set_library",
      [](int64_t run, int64_t free) {
        runLauncher = reinterpret_cast<RunLauncher>(run);
        freeText = reinterpret_cast<FreeText>(free);
      },
      "The addresses of spio_launcher_run and spio_free in the loaded libspio_capi.so");
  // Plans live as long as the process, as the Python side's launchers do:
  // a pending backward may still run one.
  m.def(
      "linear_plan",
      [](int64_t forward, int64_t forwardOperands, int64_t forwardWorkspace, int64_t dx,
         int64_t dxOperands, int64_t dxWorkspace, int64_t dw, int64_t dwOperands,
         int64_t dwWorkspace) {
        TORCH_CHECK(forward != 0, "spio._autograd: a plan without a forward launcher");
        auto *plan = new LinearPlan;
        plan->forward = launcherOf(forward, forwardOperands, forwardWorkspace);
        plan->dx = launcherOf(dx, dxOperands, dxWorkspace);
        plan->dw = launcherOf(dw, dwOperands, dwWorkspace);
        return reinterpret_cast<int64_t>(plan);
      },
      "A plan of a linear's launchers (handle, operand count, workspace bytes for the forward, dX "
      "and dW; a null dX and dW for a plan of forwards only); its address");
  m.def(
      "conv2d_gw8_plan",
      [](int64_t fprop, int64_t fpropOperands, int64_t fpropWorkspace, int64_t dgrad,
         int64_t dgradOperands, int64_t dgradWorkspace, int64_t wgrad, int64_t wgradOperands,
         int64_t wgradWorkspace, std::vector<int64_t> ySizes, std::vector<int64_t> dwSizes,
         bool wgradSumsBias) {
        TORCH_CHECK(fprop != 0, "spio._autograd: a plan without an fprop launcher");
        auto *plan = new Conv2dGw8Plan;
        plan->fprop = launcherOf(fprop, fpropOperands, fpropWorkspace);
        plan->dgrad = launcherOf(dgrad, dgradOperands, dgradWorkspace);
        plan->wgrad = launcherOf(wgrad, wgradOperands, wgradWorkspace);
        plan->ySizes = std::move(ySizes);
        plan->dwSizes = std::move(dwSizes);
        plan->wgradSumsBias = wgradSumsBias;
        return reinterpret_cast<int64_t>(plan);
      },
      "A plan of a conv2d_gw8's launchers (fprop, dgrad and wgrad, each handle, operand count, "
      "workspace bytes; null dgrad and wgrad for a plan of forwards only), y's sizes, the stored "
      "dw's (C, R, S, g) and whether wgrad's launcher sums the bias's gradient; its address");
  m.def(
      "conv2d_gw8",
      [](int64_t plan, const at::Tensor &x, const at::Tensor &w,
         const std::optional<at::Tensor> &b) { return Conv2dGw8Function::apply(x, w, b, plan); },
      "conv2d_gw8(x, w, b) on the plan's launchers, recording the C++ backward");
  m.def(
      "conv2d_gw8_forward",
      [](int64_t plan, const at::Tensor &x, const at::Tensor &w,
         const std::optional<at::Tensor> &b) {
        return conv2dGw8Forward(planAt<Conv2dGw8Plan>(plan), x, w, b);
      },
      "conv2d_gw8(x, w, b) on the plan's fprop launcher, recording no gradient");
  m.def(
      "linear",
      [](int64_t plan, const at::Tensor &x, const at::Tensor &w,
         const std::optional<at::Tensor> &b) { return LinearFunction::apply(x, w, b, plan); },
      "x @ w.t() (+ b) on the plan's launchers, recording the C++ backward");
  m.def(
      "linear_forward",
      [](int64_t plan, const at::Tensor &x, const at::Tensor &w,
         const std::optional<at::Tensor> &b) {
        return linearForward(planAt<LinearPlan>(plan), x, w, b);
      },
      "x @ w.t() (+ b) on the plan's forward launcher, recording no gradient");
}
