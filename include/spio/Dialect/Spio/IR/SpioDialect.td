//===- SpioDialect.td - The Spio dialect -------------------*- tablegen -*-===//

#ifndef SPIO_DIALECT_TD
#define SPIO_DIALECT_TD

include "mlir/IR/OpBase.td"

def Spio_Dialect : Dialect {
  let name = "spio";
  let cppNamespace = "::mlir::spio";
  let summary = "Typed dimensions for NVIDIA tensor-core kernels";
  let description = [{
    Spio makes dimensions part of the type system. A coordinate carries its
    dimension in its type (`!spio.coord<k>`, `!spio.coord<k/8>`); a tensor
    lists, per dimension, a size and a stride; subscripts resolve by
    dimension, never by position. Folds, unfolds, casts and modulo of
    dimensions are explicit ops, and every misuse (a coordinate the tensor
    lacks, arithmetic across dimensions, a fold that does not divide, an
    `mma` whose operands disagree) is a verifier error that names the
    dimension at fault.

    Coordinate arithmetic rounds toward negative infinity: `spio.fold`
    is floor division and `spio.mod` is never negative, so folds compose
    for negative coordinates (halos) as well.

    Tensors are memory views with static shapes (kernels are specialized at
    run time). A tensor value is a cursor: `spio.subscript` adds logical
    coordinates and resolves them only at access, so carries between folds
    of one dimension are exact, and `spio.rebase` turns the accumulated
    coordinates into a plain offset.

    Three discardable attributes belong to the dialect and are verified
    wherever they appear: `spio.stages = N` (N >= 1) on a loop asks
    `spio-pipeline` for N stages, `spio.shared_memory_bytes` (>= 0) on
    a kernel records the dynamic shared memory its launch needs, and
    `spio.offset_bits = 32` (or the default, 64) on a function has
    `convert-spio-to-gpu` compute the element offsets of its global
    tensors of fewer than 2^31 elements in 32 bits.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();
  }];
}

class Spio_Op<string mnemonic, list<Trait> traits = []>
    : Op<Spio_Dialect, mnemonic, traits>;

#endif // SPIO_DIALECT_TD
