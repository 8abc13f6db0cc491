//===- Passes.td - Spio transformations ---------------------*- tablegen -*-===//

#ifndef SPIO_DIALECT_SPIO_TRANSFORMS_PASSES_TD
#define SPIO_DIALECT_SPIO_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SpioTile : Pass<"spio-tile"> {
  let summary = "Expand workload ops into block, warp and fragment code";
  let description = [{
    Replaces each workload op with its kernel family's tiled code for the
    op's config.

    `spio.gemm` (`#spio.gemm_config`): the block's output tile from the
    block ids, the warps' sub-tiles, per-thread 16-byte `spio.async_copy`s
    of the A and B tiles into swizzled shared memory (zero-filled past the
    edges), `spio.ldmatrix` fragments, `spio.mma`s carried through a
    reduction loop over k-tiles, and an epilogue that scales, adds C and
    stores D with bounds. A wgmma config instead builds a copy warpgroup
    issuing `spio.tma_load`s into a ring of stages and compute warpgroups
    issuing `spio.wgmma`s.

    `spio.conv2d` (a wgmma `#spio.gemm_config`): the GEMM's wgmma tile for
    the implicit GEMM, y and C viewed as output positions by channels and
    each k-tile of A one filter tap's channels, copied by
    `spio.tma_load_im2col`. A grouped `spio.conv2d` (groups > 1, a
    `#spio.conv2d_gw8_config`, or none: the family's chooser's for `chip`)
    is first rewritten into the `spio.conv2d_gw8` of its group width.

    `spio.conv2d_gw8` (`#spio.conv2d_gw8_config`): fprop and dgrad stage
    the input rows a block's output rows need (zero-filled halo) and the
    group's weights, keep one B fragment per tap in registers, and store
    each warp's 16 x 8 output tiles with bounds; wgrad loops over the
    block's bands of dy, carrying one accumulator per row and tap pair of
    the weights, and stores each warp's partial sums.

    Needs: workload ops inside `gpu.func` kernels, with tensors the family
    can take (the op's verifier, plus the family's rules, which the pass
    reports on the op; conv2d operand types must be exactly the family's
    for the op's sizes, and the pass names the operand that differs).

    Guarantees: no workload op remains; the kernel's `known_block_size` is
    the config's thread count; it takes the family's `nvvm.*` hints for
    ptxas and its `spio.offset_bits`; the GEMM reduction loop is single-stage
    (load, wait, barrier, compute, barrier) and carries `spio.stages` from
    the config for `spio-pipeline`.

    The family's rules are checked for `chip`'s reference part
    (`spio/Target/Target.h`: its shared memory a block and a
    multiprocessor); a conv2d_gw8 config says its multiprocessors.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "The chip the kernels are built for (sm_80, sm_86, sm_89, sm_90, sm_90a)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def SpioPipeline : Pass<"spio-pipeline"> {
  let summary = "Overlap a reduction loop's async copies with its compute";
  let description = [{
    Software-pipelines each `scf.for` marked `spio.stages = N` (N > 1, or
    the `stages` option when given) into an N-stage ring of shared-memory
    buffers:

    - every shared tensor the loop's `spio.async_copy`s write gets a new
      outermost stage dimension of size N; copies write stage
      `(i + N - 1) mod N`, a `spio.store` marked `spio.next_stage` writes
      stage `(i + 1) mod N` (what iteration i hands iteration i + 1, whose
      copies then must not write the same elements; such a loop needs N
      of 2 or more), everything else in the loop reads stage `i mod N`;
    - the prologue issues the copies of iterations 0 .. N-2, one commit
      group each;
    - each iteration waits until at most N-2 groups are pending, syncs the
      block, issues the copies of iteration i + N - 1 (guarded by
      `i + N - 1 < upper bound`), commits, and computes on stage `i mod N`;
    - after the loop, all groups are drained.

    Needs: the loop's body made of copies (with the ops that compute only
    their operands), then `spio.async_commit`, `spio.async_wait 0`,
    `gpu.barrier`, the compute (which may sync the block itself), and a
    trailing `gpu.barrier` — what `spio-tile` produces. The shared tensors
    must be `spio.alloc`s outside the loop; their subscripts, rebases and
    `spio.view`s (outside or inside it) get the stage dimension too, a
    view's in its own elements, so a stage must be a whole number of them.
    Loops that do not fit are reported, not changed.

    Guarantees: the same values in the same order of reduction (results are
    bit-identical to the single-stage loop); the marker is removed.
  }];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"0",
           "Stages in flight (0: each loop's spio.stages)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def SpioPrintLayouts : Pass<"spio-print-layouts"> {
  let summary = "Print the layout of every spio tensor type in the module";
  let description = [{
    A debugging aid for layouts and swizzles. For each distinct
    `!spio.tensor` type, in order of first appearance, prints its entries
    (dimension, fold, size, stride), the elements its storage spans, its
    swizzle, and the element offset of every position of its two innermost
    entries, swizzle applied, as a grid (rows: the second-innermost entry,
    columns: the innermost), so bank patterns can be read off. Grids past
    32 x 32 are cut to their first 32 rows and columns, and say so.

    Needs nothing; changes nothing.
  }];
}

#endif // SPIO_DIALECT_SPIO_TRANSFORMS_PASSES_TD
