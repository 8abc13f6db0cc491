//===- Passes.td - Spio lowerings ---------------------------*- tablegen -*-===//

#ifndef SPIO_CONVERSION_PASSES_TD
#define SPIO_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertSpioToGPU : Pass<"convert-spio-to-gpu"> {
  let summary = "Lower the spio dialect to arith, memref, vector, gpu, nvgpu and nvvm";
  let description = [{
    Resolves typed dimensions into plain index arithmetic and memory
    accesses, ready for the upstream GPU-to-NVVM path.

    Needs: spio ops inside functions (kernels are `gpu.func`s). Every tensor
    value must come from a function argument (global tensors only) or a
    `spio.alloc`, through `spio.subscript`/`spio.rebase`; tensors may not flow
    through block arguments, loop-carried values or calls. Coordinates may.

    Guarantees:
    - no spio op or type remains;
    - coordinates become `index` values counting in steps of their fold, and
      coordinate ops become arith ops (folds are floor divisions);
    - a global tensor argument becomes `memref<B x i8, global>` (B bytes), so
      with `use-bare-ptr-memref-call-conv` a kernel takes plain pointers;
    - shared tensors are views into one `gpu.dynamic_shared_memory` buffer at
      128-byte aligned offsets, in order; an `overlay` one at the lowest
      offset whose bytes no tensor live beside it holds (tensors whose uses
      at the function's top level all end before its first, or begin after
      its last, with a block or cluster barrier between, are not live beside
      it); the function gets a `spio.shared_memory_bytes` attribute with the
      bytes the launch must provide;
    - register tensors become `memref.alloca`s of their elements, a fragment
      as a vector of the elements one lane holds, in register order;
    - every access computes its element offset from the cursor's coordinates
      with the tensor's layout (carries, wrap of inner entries, swizzle), as
      an `index`; in a function with `spio.offset_bits = 32`, a global
      tensor of fewer than 2^31 elements in `i32` (`nsw`), sign-extended;
    - `ldmatrix` and `async_copy` become `nvgpu.ldmatrix` and
      `nvgpu.device_async_copy` (zero-fill through the source size); `mma`
      becomes `nvvm.mma.sync` (which, unlike `nvgpu.mma.sync`, takes bf16);
      commit and wait become the `nvvm` cp.async group ops;
    - `cluster_barrier` becomes `nvvm.cluster.arrive`/`wait` (aligned), and
      `load_remote` the element's shared address mapped to the cluster
      block's (`nvvm.mapa`) and an `llvm.load` from it;
    - `discard` becomes `llvm.nvvm.discard.global.L2` of the element's
      address, guarded by its 128-byte alignment and the line's end
      inside the tensor;
    - `tma_load` becomes `nvvm.cp.async.bulk.tensor.shared.cluster.global`
      (tile mode, element coordinates innermost first) and
      `barrier_expect_tx` `nvvm.mbarrier.arrive.expect_tx`;
      `set_max_registers` becomes `nvvm.setmaxregister`;
    - a tensor-map argument becomes an `!llvm.ptr` with `llvm.align = 64`,
      listed in the function's `spio.grid_constant_params` for
      `spio-grid-constant-params`;
    - `launch_dependents` and `wait_prerequisites` become
      `nvvm.griddepcontrol` (sm_90 and later), or nothing with
      `dependent-grids=false`, for chips without dependent launches.
  }];
  let options = [
    Option<"dependentGrids", "dependent-grids", "bool", /*default=*/"true",
           "Lower launch_dependents and wait_prerequisites to griddepcontrol "
           "(sm_90 and later) rather than drop them">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def SpioGridConstantParams : Pass<"spio-grid-constant-params"> {
  let summary = "Pass tensor-map kernel parameters by value, as grid constants";
  let description = [{
    Runs after `convert-gpu-to-nvvm`, which keeps a function's discardable
    attributes but only some LLVM attributes of its arguments.

    Needs: `llvm.func`s whose `spio.grid_constant_params` lists the
    arguments (`!llvm.ptr`) that hold a 128-byte TMA descriptor.

    Guarantees: each listed argument is `llvm.byval = !llvm.array<128 x i8>`,
    `llvm.align = 64` and `nvvm.grid_constant` (a kernel's
    `.param .align 64 .b8 p[128]`, read in place through its address), and
    the list is removed.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"];
}

def SpioModuleToPTX : Pass<"spio-module-to-ptx", "::mlir::ModuleOp"> {
  let summary = "Compile each gpu.module with an NVVM target to PTX in a gpu.binary";
  let description = [{
    As `gpu-module-to-binary` with `format=isa` (LLVM's O pipeline of the
    target's O level, then NVPTX code generation), except for a module
    whose every kernel multiplies on wgmma: there LLVM's function
    simplification (SROA, early CSE, instruction combining, CFG
    simplification, loop-invariant code motion, full unrolling of
    constant-trip loops, GVN) replaces the O pipeline. Such kernels' loops
    wait on mbarriers and their accumulators are structs of up to 128
    floats: the O pipeline's loop rotation and vectorizers find nothing to
    gain there and cost most of a cold compile. `O = 0` skips the IR passes.

    Needs: `gpu.module`s in the LLVM and NVVM dialects with one
    `#nvvm.target`.

    Guarantees: each such `gpu.module` is replaced by a `gpu.binary` of the
    same name holding one `#gpu.object` of the target, in assembly format
    (PTX text).
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // SPIO_CONVERSION_PASSES_TD
