//===- SpioOps.td - Spio operations -------------------------*- tablegen -*-===//

#ifndef SPIO_OPS_TD
#define SPIO_OPS_TD

include "spio/Dialect/Spio/IR/SpioTypes.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Spio_Coord : Type<CPred<"::llvm::isa<::mlir::spio::CoordType>($_self)">,
                      "typed coordinate", "::mlir::spio::CoordType">;
def Spio_Tensor : Type<CPred<"::llvm::isa<::mlir::spio::SpioTensorType>($_self)">,
                       "spio tensor", "::mlir::spio::SpioTensorType">;
def Spio_Barriers : Type<CPred<"::llvm::isa<::mlir::spio::BarrierGroupType>($_self)">,
                         "barrier group", "::mlir::spio::BarrierGroupType">;
def Spio_Fragment : Type<CPred<"::llvm::isa<::mlir::spio::FragmentType>($_self)">,
                         "mma fragment", "::mlir::spio::FragmentType">;
def Spio_TensorMap : Type<CPred<"::llvm::isa<::mlir::spio::TensorMapType>($_self)">,
                          "spio tensor map", "::mlir::spio::TensorMapType">;
def Spio_Im2colMap : Type<CPred<"::llvm::isa<::mlir::spio::Im2colMapType>($_self)">,
                          "spio im2col tensor map", "::mlir::spio::Im2colMapType">;
def Spio_WarpgroupAcc : Type<CPred<"::llvm::isa<::mlir::spio::WarpgroupAccType>($_self)">,
                             "warpgroup accumulator", "::mlir::spio::WarpgroupAccType">;

//===----------------------------------------------------------------------===//
// Coordinates
//===----------------------------------------------------------------------===//

def Spio_ConstantOp : Spio_Op<"constant", [ConstantLike, Pure]> {
  let summary = "a constant coordinate";
  let description = [{
    `%k = spio.constant 7 : !spio.coord<k>` is `k = 7`; with type
    `!spio.coord<k/8>` it is `k = 56`.
  }];
  let arguments = (ins I64Attr:$value);
  let results = (outs Spio_Coord:$result);
  let assemblyFormat = "$value attr-dict `:` qualified(type($result))";
  let hasFolder = 1;
}

def Spio_FoldOp : Spio_Op<"fold", [Pure]> {
  let summary = "count a coordinate in coarser steps (floor division)";
  let description = [{
    `spio.fold %k : !spio.coord<k> to !spio.coord<k/8>` divides by 8,
    rounding toward negative infinity. The result's fold must be a multiple
    of the operand's.
  }];
  let arguments = (ins Spio_Coord:$input);
  let results = (outs Spio_Coord:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `to` qualified(type($result))";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Spio_UnfoldOp : Spio_Op<"unfold", [Pure]> {
  let summary = "count a coordinate in finer steps (exact)";
  let description = [{
    `spio.unfold %k8 : !spio.coord<k/8> to !spio.coord<k>` multiplies by 8.
    The result's fold must divide the operand's.
  }];
  let arguments = (ins Spio_Coord:$input);
  let results = (outs Spio_Coord:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `to` qualified(type($result))";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Spio_CastOp : Spio_Op<"cast", [Pure]> {
  let summary = "rename a coordinate's dimension";
  let description = [{
    `spio.cast %x : !spio.coord<x> to !spio.coord<i>` keeps the value and
    changes the dimension: the one explicit way across dimensions. The fold
    must not change (use `spio.fold`/`spio.unfold` for that).
  }];
  let arguments = (ins Spio_Coord:$input);
  let results = (outs Spio_Coord:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `to` qualified(type($result))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

class Spio_CoordBinaryOp<string mnemonic, string what>
    : Spio_Op<mnemonic, [Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = what # " two coordinates of one dimension";
  let description = [{
    Both operands must have the same dimension. Mixed folds compute at the
    finer stride: `!spio.coord<k/8>` and `!spio.coord<k/2>` give
    `!spio.coord<k/2>` (the greatest common divisor of the folds).
  }];
  let arguments = (ins Spio_Coord:$lhs, Spio_Coord:$rhs);
  let results = (outs Spio_Coord:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` qualified(type($lhs)) `,` qualified(type($rhs))";
  let hasFolder = 1;
}

def Spio_AddOp : Spio_CoordBinaryOp<"add", "add">;
def Spio_SubOp : Spio_CoordBinaryOp<"sub", "subtract">;

def Spio_ModOp : Spio_Op<"mod", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "a coordinate modulo a constant (never negative)";
  let description = [{
    `spio.mod %k8, 4 : !spio.coord<k/8>` is the position of `k/8` within
    a group of 4, in `[0, 4)` also for negative coordinates.
  }];
  let arguments = (ins Spio_Coord:$input, I64Attr:$modulus);
  let results = (outs Spio_Coord:$result);
  let assemblyFormat = "$input `,` $modulus attr-dict `:` qualified(type($input))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Spio_CmpOp : Spio_Op<"cmp", [Pure]> {
  let summary = "compare two coordinates of one dimension";
  let description = [{
    `spio.cmp lt, %i, %m : !spio.coord<i>, !spio.coord<i/16>` compares the
    positions the coordinates denote (`i < 16 * m`), so folds may differ but
    dimensions may not.
  }];
  let arguments = (ins Spio_CmpPredicate:$predicate, Spio_Coord:$lhs,
                       Spio_Coord:$rhs);
  let results = (outs I1:$result);
  let assemblyFormat =
      "$predicate `,` $lhs `,` $rhs attr-dict `:` qualified(type($lhs)) `,` qualified(type($rhs))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Spio_ToIndexOp : Spio_Op<"to_index", [Pure]> {
  let summary = "a coordinate's value, in steps of its fold, as an index";
  let arguments = (ins Spio_Coord:$input);
  let results = (outs Index:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input))";
  let hasFolder = 1;
}

def Spio_FromIndexOp : Spio_Op<"from_index", [Pure]> {
  let summary = "an index as a coordinate, in steps of the coordinate's fold";
  let arguments = (ins Index:$input);
  let results = (outs Spio_Coord:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($result))";
  let hasFolder = 1;
}

def Spio_LinearIdOp : Spio_Op<"linear_id", [Pure]> {
  let summary = "a hardware id: thread, lane, warp or block";
  let description = [{
    `spio.linear_id lane` is the lane of the thread in its warp (0..31);
    `thread` and `warp` are linear within the block, `block_x/y/z` are the
    block's grid coordinates, `cluster_block` its rank in its thread-block
    cluster (sm_90 and later).
  }];
  let arguments = (ins Spio_LinearId:$id);
  let results = (outs Index:$result);
  let assemblyFormat = "$id attr-dict";
}

def Spio_DecomposeOp : Spio_Op<"decompose", [Pure]> {
  let summary = "split a linear id into typed coordinates (row major)";
  let description = [{
    ```
    %lane = spio.linear_id lane
    %i, %k8 = spio.decompose %lane [16, 2] : !spio.coord<i>, !spio.coord<k/8>
    ```
    The last coordinate varies fastest; each is the id's digit in the mixed
    radix of `sizes`, counted in steps of its type's fold (spio's
    CompoundIndex). The sizes must cover no more ids than the source has.
  }];
  let arguments = (ins Index:$input, DenseI64ArrayAttr:$sizes);
  let results = (outs Variadic<Spio_Coord>:$results);
  let assemblyFormat = "$input $sizes attr-dict `:` qualified(type($results))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

def Spio_AllocOp : Spio_Op<"alloc", [MemoryEffects<[MemAlloc]>]> {
  let summary = "allocate a shared-memory or register tensor";
  let description = [{
    ```
    %tile = spio.alloc : !spio.tensor<[r: 8, q: 16, c/8: 4] x vector<8xf16>, shared>
    %sums = spio.alloc overlay : !spio.tensor<[k: 32, i: 64] x f32, shared>
    ```
    Shared tensors take consecutive places in the kernel's dynamic shared
    memory. An `overlay` shared tensor may take the bytes of others that
    are dead where it is first used: at the kernel's top level, every use
    of theirs comes before its first use, with a `gpu.barrier` or
    `spio.cluster_barrier` between (so no thread still reads them), or
    every use of theirs after its last use, likewise. It takes the lowest
    such place.
  }];
  let arguments = (ins UnitAttr:$overlay);
  let results = (outs Spio_Tensor:$result);
  let assemblyFormat = "(`overlay` $overlay^)? attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Spio_SubscriptOp : Spio_Op<"subscript",
    [Pure, AllTypesMatch<["tensor", "result"]>]> {
  let summary = "move a tensor cursor by typed coordinates";
  let description = [{
    ```
    %c = spio.subscript %t[%k7, %i] : !spio.tensor<[i: 64, k/8: 2, k: 8] x f16, global>[!spio.coord<k>, !spio.coord<i>]
    ```
    Adds the coordinates, in any order, to the cursor's logical position per
    dimension; they resolve to positions and strides only at access, so
    carries between folds of a dimension are exact. A coordinate of a
    dimension the tensor lacks is an error unless its dimension is listed
    after `project`, which ignores it.
  }];
  let arguments = (ins Spio_Tensor:$tensor, Variadic<Spio_Coord>:$coords,
                       OptionalAttr<StrArrayAttr>:$projected);
  let results = (outs Spio_Tensor:$result);
  let assemblyFormat = [{
    $tensor `[` $coords `]` (`project` $projected^)? attr-dict `:`
    qualified(type($tensor)) (`[` qualified(type($coords))^ `]`)?
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Spio_ViewOp : Spio_Op<"view", [Pure]> {
  let summary = "the same memory as a tensor of another layout or element";
  let description = [{
    ```
    %v = spio.view %y : !spio.tensor<[n: 8, p: 56, q: 56, k: 64] x f16, global>
                     to !spio.tensor<[n: 8, p: 56, q: 56, k/8: 8] x vector<8xf16>, global>
    ```
    Reads and writes through the result address the bytes of the operand
    from its base, under the result's layout: scalar fragment stores and
    16-byte vector copies of one staging buffer, or a strided window. The
    view may not reach past the operand's storage; both must be in the same
    memory and, when swizzled, use one swizzle over one element size (the
    swizzle permutes element offsets). Only a tensor's root (a kernel
    argument or an allocation, not a subscripted cursor) can be viewed.
  }];
  let arguments = (ins Spio_Tensor:$tensor);
  let results = (outs Spio_Tensor:$result);
  let assemblyFormat = [{
    $tensor attr-dict `:` qualified(type($tensor)) `to` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Spio_RebaseOp : Spio_Op<"rebase", [Pure, AllTypesMatch<["tensor", "result"]>]> {
  let summary = "fold a cursor's coordinates into its base address";
  let description = [{
    The result addresses the same element at zero coordinates; later
    subscripts add plain offsets from there and no longer carry into the
    coordinates folded away. A swizzled tensor cannot be rebased.
  }];
  let arguments = (ins Spio_Tensor:$tensor);
  let results = (outs Spio_Tensor:$result);
  let assemblyFormat = "$tensor attr-dict `:` qualified(type($tensor))";
  let hasVerifier = 1;
}

def Spio_LoadOp : Spio_Op<"load", [
    TypesMatchWith<"result is the tensor's element", "tensor", "result",
                   "::llvm::cast<::mlir::spio::SpioTensorType>($_self).getElementType()">]> {
  let summary = "load one element at typed coordinates";
  let arguments = (ins Arg<Spio_Tensor, "", [MemRead]>:$tensor,
                       Variadic<Spio_Coord>:$coords);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $tensor `[` $coords `]` attr-dict `:` qualified(type($tensor)) (`[` qualified(type($coords))^ `]`)?
  }];
  let hasVerifier = 1;
}

def Spio_StoreOp : Spio_Op<"store", [
    TypesMatchWith<"value is the tensor's element", "tensor", "value",
                   "::llvm::cast<::mlir::spio::SpioTensorType>($_self).getElementType()">]> {
  let summary = "store one element at typed coordinates";
  let arguments = (ins AnyType:$value, Arg<Spio_Tensor, "", [MemWrite]>:$tensor,
                       Variadic<Spio_Coord>:$coords);
  let assemblyFormat = [{
    $value `,` $tensor `[` $coords `]` attr-dict `:` qualified(type($tensor)) (`[` qualified(type($coords))^ `]`)?
  }];
  let hasVerifier = 1;
}

def Spio_DiscardOp : Spio_Op<"discard"> {
  let summary = "drop 128 bytes of a global tensor from L2 without writing them back";
  let description = [{
    ```
    spio.discard %ws[%part, %k]
        : !spio.tensor<[part: 4, k: 64, i: 32] x f32, global>[!spio.coord<part>, !spio.coord<k>]
    ```
    The 128 bytes of the tensor from the element on are dropped from the L2
    cache without being written back, their contents undefined from then
    on (`discard.global.L2`, sm_80 and later): for scratch read for the
    last time, whose dirty lines would otherwise cost DRAM writes. Nothing
    happens where the element's address is not a multiple of 128 or the
    128 bytes run past the tensor's end, so no byte outside them is lost.
    Every read of them must come before (a barrier between other threads'
    reads and the discard).
  }];
  let arguments = (ins Arg<Spio_Tensor, "", [MemWrite]>:$tensor, Variadic<Spio_Coord>:$coords);
  let assemblyFormat = [{
    $tensor `[` $coords `]` attr-dict `:` qualified(type($tensor)) (`[` qualified(type($coords))^ `]`)?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Fragments and tensor cores
//===----------------------------------------------------------------------===//

def Spio_LdMatrixOp : Spio_Op<"ldmatrix", [AttrSizedOperandSegments]> {
  let summary = "load an A or B fragment from shared memory with ldmatrix";
  let description = [{
    ```
    %a = spio.ldmatrix %smem[%i0] : !spio.tensor<[i: 64, k/8: 2] x vector<8xf16>, shared>[!spio.coord<i>] -> !spio.fragment<A, m16n8k16, f16, [i, k]>
    %g = spio.ldmatrix %smem[%k0] gather(%row : !spio.coord<i>) : ...
    ```
    Each ldmatrix row is one 16-byte element of the tensor: 8 consecutive
    values of the mma's reduction dimension (or, with `transpose`, of the
    fragment's other dimension), so the tensor's finest entry of that
    dimension must be `/8`. The coordinates select the tile's origin.

    With `gather`, the rows come from anywhere along the dimension the
    ldmatrix rows are counted in (the fragment's rows for A, its columns
    for B; the other way with `transpose`): each lane passes the position
    of the row it addresses, which `spio.ldmatrix_row` names, in place of
    that row's place in the tile. The fragment then holds, say, 16 pixels
    of two images without the columns between them.
  }];
  let arguments = (ins Arg<Spio_Tensor, "", [MemRead]>:$tensor,
                       Variadic<Spio_Coord>:$coords, Optional<Spio_Coord>:$gather,
                       UnitAttr:$transpose);
  let results = (outs Spio_Fragment:$result);
  let assemblyFormat = [{
    $tensor `[` $coords `]` (`gather` `(` $gather^ `:` qualified(type($gather)) `)`)?
    (`transpose` $transpose^)? attr-dict `:`
    qualified(type($tensor)) (`[` qualified(type($coords))^ `]`)? `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Spio_LdMatrixRowOp : Spio_Op<"ldmatrix_row", [Pure]> {
  let summary = "the fragment row or column this lane addresses in an ldmatrix";
  let description = [{
    ```
    %m = spio.ldmatrix_row : !spio.fragment<A, m16n8k16, f16, [q, c]> -> !spio.coord<q>
    ```
    The position, along the dimension an ldmatrix of the fragment counts
    its rows in (A: the fragment's rows; B: its columns; the other way with
    `transpose`), of the row this lane addresses: the value a gathering
    `spio.ldmatrix` takes the lane's position from.
  }];
  let arguments = (ins TypeAttrOf<Spio_Fragment>:$fragment, UnitAttr:$transpose);
  let results = (outs Spio_Coord:$result);
  let assemblyFormat = [{
    (`transpose` $transpose^)? attr-dict `:` $fragment `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Spio_FillOp : Spio_Op<"fill", [Pure,
    TypesMatchWith<"value is the fragment's element", "result", "value",
                   "::llvm::cast<::mlir::spio::FragmentType>($_self).getElementType()">]> {
  let summary = "a fragment with every element set to one value";
  let arguments = (ins AnyType:$value);
  let results = (outs Spio_Fragment:$result);
  let assemblyFormat = "$value attr-dict `:` qualified(type($result))";
}

def Spio_MmaOp : Spio_Op<"mma", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "warp-wide tensor-core multiply-accumulate (mma.sync)";
  let description = [{
    `%d = spio.mma %a, %b, %c : A, B, C` computes `D = A * B + C` over the
    reduction dimension shared by A's columns and B's rows. The verifier
    checks operand roles, shapes, dtypes and that the dimensions agree:
    A `[m, k]`, B `[k, n]`, C `[m, n]` with `m`, `n`, `k` distinct. A and B
    have one shape, which is the instruction's; C may be the accumulator of
    either shape (m16n8k8 and m16n8k16 accumulators are one 16 x 8 layout),
    so that a sum can mix k16 and k8 steps.
  }];
  let arguments = (ins Spio_Fragment:$a, Spio_Fragment:$b, Spio_Fragment:$acc);
  let results = (outs Spio_Fragment:$result);
  let assemblyFormat = "$a `,` $b `,` $acc attr-dict `:` qualified(type($a)) `,` qualified(type($b)) `,` qualified(type($acc))";
  let hasVerifier = 1;
}

def Spio_ActivationOp : Spio_Op<"activation", [Pure, SameOperandsAndResultType]> {
  let summary = "an activation function applied to each element";
  let description = [{
    ```
    %y = spio.activation gelu_tanh %x : vector<4xf32>
    ```
    `relu` is max(x, 0) (NaN stays NaN); `gelu_tanh` is 0.5 x (1 + tanh(
    sqrt(2 / pi) (x + 0.044715 x^3))), `gelu_erf` 0.5 x (1 + erf(x /
    sqrt(2))) and `silu` x / (1 + exp(-x)), accurate to a few f32 units in
    the last place: they lower to f32 arithmetic and the hardware's exp2,
    without libdevice.
  }];
  let arguments = (ins Spio_Activation:$kind,
                       AnyTypeOf<[F32, VectorOfRankAndType<[1], [F32]>]>:$input);
  let results = (outs AnyTypeOf<[F32, VectorOfRankAndType<[1], [F32]>]>:$result);
  let assemblyFormat = "$kind $input attr-dict `:` type($input)";
}

def Spio_FragmentToVectorOp : Spio_Op<"fragment_to_vector", [Pure]> {
  let summary = "a lane's fragment elements as a vector, in register order";
  let description = [{
    Exposes the elements a lane holds (4 x f32 for a C fragment) to
    elementwise arithmetic, e.g. an epilogue's `alpha * acc + beta * c`.
  }];
  let arguments = (ins Spio_Fragment:$fragment);
  let results = (outs VectorOfRankAndType<[1], [F16, BF16, F32]>:$result);
  let assemblyFormat = "$fragment attr-dict `:` qualified(type($fragment)) `->` type($result)";
  let hasVerifier = 1;
}

def Spio_VectorToFragmentOp : Spio_Op<"vector_to_fragment", [Pure]> {
  let summary = "a vector of a lane's elements, in register order, as a fragment";
  let arguments = (ins VectorOfRankAndType<[1], [F16, BF16, F32]>:$vector);
  let results = (outs Spio_Fragment:$result);
  let assemblyFormat = "$vector attr-dict `:` type($vector) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Spio_LoadFragmentOp : Spio_Op<"load_fragment", [AttrSizedOperandSegments]> {
  let summary = "read a C tile from a tensor of scalars into a fragment";
  let description = [{
    ```
    %c = spio.load_fragment %out[%i0, %j0] bounds %m, %n : ... -> !spio.fragment<C, m16n8k16, f32, [i, j]>
    ```
    Each lane reads the elements of the 16 x 8 tile at the coordinates that
    its fragment holds, converted to f32. With `bounds`, elements whose row
    or column coordinate (summed over the whole subscript chain) is not below
    the bound read as zero. A tensor of stride 0 along the fragment's rows (a
    vector broadcast across them, such as a bias along the columns) has no
    row to bound: every row reads its column's value, zero past the column
    bound only.
  }];
  let arguments = (ins Arg<Spio_Tensor, "", [MemRead]>:$tensor,
                       Variadic<Spio_Coord>:$coords,
                       Optional<Spio_Coord>:$rowBound,
                       Optional<Spio_Coord>:$colBound);
  let results = (outs Spio_Fragment:$result);
  let assemblyFormat = [{
    $tensor `[` $coords `]` (`bounds` $rowBound^ `,` $colBound)? attr-dict `:`
    qualified(type($tensor)) (`[` qualified(type($coords))^ `]`)?
    (`bounds` qualified(type($rowBound))^ `,` qualified(type($colBound)))?
    `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Spio_StoreFragmentOp : Spio_Op<"store_fragment", [AttrSizedOperandSegments]> {
  let summary = "write a C fragment into a tensor of scalars";
  let description = [{
    Each lane writes the elements of the 16 x 8 tile its fragment holds,
    converted from f32 to the tensor's element type. With `bounds`,
    elements at or beyond a bound are not written (ragged edges).
  }];
  let arguments = (ins Spio_Fragment:$fragment,
                       Arg<Spio_Tensor, "", [MemWrite]>:$tensor,
                       Variadic<Spio_Coord>:$coords,
                       Optional<Spio_Coord>:$rowBound,
                       Optional<Spio_Coord>:$colBound);
  let assemblyFormat = [{
    $fragment `,` $tensor `[` $coords `]` (`bounds` $rowBound^ `,` $colBound)? attr-dict `:`
    qualified(type($fragment)) `,` qualified(type($tensor)) (`[` qualified(type($coords))^ `]`)?
    (`bounds` qualified(type($rowBound))^ `,` qualified(type($colBound)))?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Warpgroup tensor cores (Hopper wgmma, sm_90a)
//===----------------------------------------------------------------------===//

def Spio_WarpgroupFillOp : Spio_Op<"warpgroup_fill", [Pure,
    TypesMatchWith<"value is the accumulator's element", "result", "value",
                   "::llvm::cast<::mlir::spio::WarpgroupAccType>($_self).getElementType()">]> {
  let summary = "a warpgroup accumulator with every element set to one value";
  let arguments = (ins AnyType:$value);
  let results = (outs Spio_WarpgroupAcc:$result);
  let assemblyFormat = "$value attr-dict `:` qualified(type($result))";
}

def Spio_WgmmaOp : Spio_Op<"wgmma", [AttrSizedOperandSegments,
    AllTypesMatch<["acc", "result"]>]> {
  let summary = "warpgroup multiply-accumulate from shared memory (wgmma.mma_async)";
  let description = [{
    ```
    %d = spio.wgmma %sa[%wg, %kk], %sb[%kk], %acc
        : !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>[!spio.coord<i/64>, !spio.coord<k/16>],
          !spio.tensor<[j: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>[!spio.coord<k/16>],
          !spio.warpgroup_acc<m64n128, f32, [i, j]>
    ```
    The four warps of a warpgroup add A (64 x 16, rows along the
    accumulator's rows) times B (16 x N, along its columns) into the
    accumulator: `D = A * B + acc` over the reduction dimension that A and
    B share. The coordinates select each tile's origin, which must fall on
    a row that is a multiple of 8 and on a 16-element step of the
    reduction. With f32 vectors (`vector<4xf32>`, K-major only) the step is
    8 elements, multiplied as TF32 (each mantissa's top 10 bits; the GEMM's
    tensor maps round to them as they load): 32 bytes of the reduction an
    instruction, as for f16 and bf16.
    Each operand is a tile of 16-byte vectors in the 128-byte
    swizzle (`#spio.xor_swizzle<3, 0, 3>`), as TMA and `cp.async` fill
    them, in one of two layouts its type states:
    - K-major: 8 vectors of the reduction a row (`k/8: 8`, stride 1),
      consecutive rows 128 bytes apart;
    - MN-major (an M-major A or an N-major B, wgmma's transposed operand):
      8 vectors of the accumulator's rows (A) or columns (B) a row
      (`i/8: 8`, stride 1), consecutive steps of the reduction 128 bytes
      apart (`k`, stride 8), and where the tile is wider than 64, its
      blocks of 64 (`i/64`) a multiple of 1024 bytes apart.
    ```
    // An M-major A of 128 rows and a K-major B.
    %d = spio.wgmma %sa[%wg, %kk], %sb[%kk], %acc
        : !spio.tensor<[i/64: 2, k: 64, i/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>[!spio.coord<i/64>, !spio.coord<k/16>],
          !spio.tensor<[j: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>[!spio.coord<k/16>],
          !spio.warpgroup_acc<m64n128, f32, [i, j]>
    ```
    The lowering derives the instruction's shared memory descriptors and
    its transpose flags from these types.

    The instruction is asynchronous: `spio.wgmma_fence` must come before
    the first of a batch (and after the accumulator was last written by
    other code), `spio.wgmma_commit` closes the batch and
    `spio.wgmma_wait` before the result or the tiles are used otherwise.
    With `overwrite` the result is `A * B` alone: the accumulator's values
    are not read (wgmma's scale-d of 0), so a sum starts from zero in the
    registers of an accumulator whose values are done with, where a zero
    accumulator beside it would not fit.
  }];
  // The accumulator first: the result's type is inferred from it.
  let arguments = (ins Spio_WarpgroupAcc:$acc,
                       Arg<Spio_Tensor, "", [MemRead]>:$a, Variadic<Spio_Coord>:$aCoords,
                       Arg<Spio_Tensor, "", [MemRead]>:$b, Variadic<Spio_Coord>:$bCoords,
                       UnitAttr:$overwrite);
  let results = (outs Spio_WarpgroupAcc:$result);
  let extraClassDeclaration = [{
    /// The reduction: the dimension A and B share beside the accumulator's.
    StringAttr getReductionDim();
    /// Whether operand A (`operandB` false) or B is MN-major: its vectors
    /// run along the accumulator's rows (A) or columns (B).
    bool isMNMajor(bool operandB);
    /// The bytes between an MN-major operand's blocks of 64 rows (A) or
    /// columns (B); 0 where it has one block or is K-major.
    int64_t getBlockBytes(bool operandB);
  }];
  let assemblyFormat = [{
    $a `[` $aCoords `]` `,` $b `[` $bCoords `]` `,` $acc (`overwrite` $overwrite^)? attr-dict `:`
    qualified(type($a)) (`[` qualified(type($aCoords))^ `]`)? `,`
    qualified(type($b)) (`[` qualified(type($bCoords))^ `]`)? `,` qualified(type($acc))
  }];
  let hasVerifier = 1;
}

def Spio_WgmmaFenceOp : Spio_Op<"wgmma_fence"> {
  let summary = "order register and shared accesses before the next wgmma";
  let description = [{
    Before the first `spio.wgmma` of a batch: the accumulators and shared
    tiles it reads were written by earlier code (`wgmma.fence`).
  }];
  let assemblyFormat = "attr-dict";
}

def Spio_WgmmaCommitOp : Spio_Op<"wgmma_commit"> {
  let summary = "close the warpgroup's batch of wgmma into a group";
  let assemblyFormat = "attr-dict";
}

def Spio_WgmmaWaitOp : Spio_Op<"wgmma_wait"> {
  let summary = "wait until at most `pending` wgmma groups are in flight";
  let description = [{
    After it, the results of the groups that completed may be read, and the
    shared tiles they read may be overwritten.
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative, IntMaxValue<7>]>:$pending);
  let assemblyFormat = "$pending attr-dict";
}

def Spio_WarpgroupFragmentOp : Spio_Op<"warpgroup_fragment", [Pure]> {
  let summary = "one m16n8 C fragment of a warp's rows of a warpgroup accumulator";
  let description = [{
    ```
    %c = spio.warpgroup_fragment %acc[3] : !spio.warpgroup_acc<m64n128, f32, [i, j]>
        -> !spio.fragment<C, m16n8k16, f32, [i, j]>
    ```
    Columns 8 * index to 8 * index + 7 of the 16 rows the lane's warp holds
    (rows 16 * (warp % 4) of the accumulator), in the C fragment layout: the
    epilogue reads, scales and stores them as any fragment.
  }];
  let arguments = (ins Spio_WarpgroupAcc:$acc, I64Attr:$index);
  let results = (outs Spio_Fragment:$result);
  let assemblyFormat = [{
    $acc `[` $index `]` attr-dict `:` qualified(type($acc)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Spio_FenceProxyAsyncOp : Spio_Op<"fence_proxy_async"> {
  let summary = "make this thread's shared-memory writes visible to async-proxy readers";
  let description = [{
    `fence.proxy.async.shared::cta`: what this thread wrote to shared memory
    by ordinary stores or `cp.async` is ordered before later accesses of the
    async proxy (`spio.wgmma` operands, bulk copies), once a barrier that
    follows has been passed by the reading threads.
  }];
  let assemblyFormat = "attr-dict";
}

def Spio_TmaLoadOp : Spio_Op<"tma_load", [AttrSizedOperandSegments]> {
  let summary = "copy a box of a global tensor into a shared tile (TMA)";
  let description = [{
    ```
    spio.tma_load %map[%bi, %kt], %tiles[%stage], %full[%s]
        : !spio.tensor_map<!spio.tensor<[i: 4096, k/8: 512] x vector<8xbf16>, global>,
                           !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
          [!spio.coord<i/128>, !spio.coord<k/64>],
          !spio.tensor<[stage: 4, i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
          [!spio.coord<stage>], !spio.barriers<8>
    ```
    One thread starts the tensor-memory accelerator's copy of the box whose
    origin the coordinates give (one per entry of the map's global tensor,
    in its order; the contiguous one on a 16-byte boundary) into the shared
    tile that the destination's coordinates select: the destination's
    entries after those coordinates must be the box's. Elements past the
    global tensor's edges read as zero. The copy completes the box's bytes
    on barrier `%s`, whose phase must expect them (`spio.barrier_expect_tx`);
    waiters of that phase then see the tile. With `multicast N`, the copy
    writes the same tile, and completes the same barrier, in each of blocks
    0 to N - 1 of this block's thread-block cluster (sm_90 and later).
  }];
  let arguments = (ins Spio_TensorMap:$map, Variadic<Spio_Coord>:$coords,
                       Arg<Spio_Tensor, "", [MemWrite]>:$dst, Variadic<Spio_Coord>:$dstCoords,
                       Spio_Barriers:$barriers, Index:$index,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<2>, IntMaxValue<16>]>>:$multicast);
  let assemblyFormat = [{
    $map `[` $coords `]` `,` $dst `[` $dstCoords `]` `,` $barriers `[` $index `]`
    (`multicast` $multicast^)? attr-dict `:`
    qualified(type($map)) `[` qualified(type($coords)) `]` `,`
    qualified(type($dst)) (`[` qualified(type($dstCoords))^ `]`)? `,` qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def Spio_TmaLoadIm2colOp : Spio_Op<"tma_load_im2col"> {
  let summary = "copy a convolution's output positions by one tap's channels into a shared tile (TMA im2col)";
  let description = [{
    ```
    spio.tma_load_im2col %map[%n, %h, %w, %c] offsets [%r, %s], %tiles[%stage], %full[%slot]
        : !spio.im2col_map<...>, !spio.tensor<[stage: 4, npq: 128, rsc/8: 8] x vector<8xbf16>, shared,
          #spio.xor_swizzle<3, 0, 3>> [!spio.coord<stage>], !spio.barriers<8>
    ```
    One thread starts the tensor-memory accelerator's im2col copy: the box's
    rows are consecutive positions of the map's window (each image's output
    positions, image after image), the first at image `%n` and input
    position (`%h`, `%w`) (signed element positions, e.g. an output row
    times the stride minus the padding), each row the 64 channels from `%c`
    (a multiple of 8) of the input position the filter tap (`%r`, `%s`)
    (element offsets, dilation included, 0 to 127) adds. Positions outside
    the input, and channels past its last, read as zero. The destination
    and barrier work as `spio.tma_load`'s.
  }];
  let arguments = (ins Spio_Im2colMap:$map, Index:$image, Index:$row, Index:$col, Index:$channel,
                       Index:$rowOffset, Index:$colOffset,
                       Arg<Spio_Tensor, "", [MemWrite]>:$dst, Variadic<Spio_Coord>:$dstCoords,
                       Spio_Barriers:$barriers, Index:$index);
  let assemblyFormat = [{
    $map `[` $image `,` $row `,` $col `,` $channel `]` `offsets` `[` $rowOffset `,` $colOffset `]`
    `,` $dst `[` $dstCoords `]` `,` $barriers `[` $index `]` attr-dict `:`
    qualified(type($map)) `,` qualified(type($dst)) (`[` qualified(type($dstCoords))^ `]`)? `,`
    qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def Spio_FenceBarrierInitOp : Spio_Op<"fence_barrier_init"> {
  let summary = "make this thread's barrier initializations visible to the cluster";
  let description = [{
    `fence.mbarrier_init.release.cluster`: the `spio.barrier_init`s this
    thread did before are seen by the other blocks of the cluster (their
    remote arrivals, multicast copies) once a `spio.cluster_barrier` that
    follows has been passed.
  }];
  let assemblyFormat = "attr-dict";
}

def Spio_SetMaxRegistersOp : Spio_Op<"set_max_registers"> {
  let summary = "grow or shrink the registers each thread of a warpgroup may hold";
  let description = [{
    ```
    spio.set_max_registers decrease 40
    spio.set_max_registers increase 232
    ```
    Every thread of the warpgroup executes it (PTX `setmaxnreg`): a copy
    warpgroup gives registers back so that the compute warpgroups can hold
    larger accumulators. The count is a multiple of 8 from 24 to 256; the
    kernel must fix its block size (`known_block_size`).
  }];
  let arguments = (ins Spio_RegisterAction:$action,
                       ConfinedAttr<I32Attr, [IntMinValue<24>, IntMaxValue<256>]>:$count);
  let assemblyFormat = "$action $count attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Workloads
//===----------------------------------------------------------------------===//

def Spio_GemmOp : Spio_Op<"gemm", [AttrSizedOperandSegments]> {
  let summary = "D = epilogue(alpha * A @ B), computed by one kernel";
  let description = [{
    ```
    spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<...>}
        : !spio.tensor<[i: 4096, k/8: 512] x vector<8xbf16>, global>,
          !spio.tensor<[j: 4096, k/8: 512] x vector<8xbf16>, global>
       -> !spio.tensor<[i: 4096, j: 4096] x bf16, global>
    ```
    The workload of a kernel, on typed tensors: A and B share exactly one
    dimension, the reduction; D is indexed by A's other dimension (rows) and
    B's (columns). A and B hold 16-byte vectors of f16 or bf16 running along
    their contiguous dimension (k for the usual layouts, the row or column
    dimension for the transposed ones), or of f32 (`vector<4xf32>`, along k
    only), which the tensor cores multiply as TF32 (wgmma tiles, sm_90a);
    D and C hold f16, bf16 or f32 scalars. With `beta`, C (same type as D)
    is read.

    `epilogue = #spio.epilogue<...>` lists what is applied, in order, to
    alpha * A @ B before it is rounded into D (without it: beta * C is added
    where C is given). `bias %bias` and `scale %scale` are vectors of f16,
    bf16 or f32 indexed by D's row dimension (one value a row) or column
    dimension (one a column), e.g. `!spio.tensor<[j: 4096] x bf16,
    global>`; the epilogue's `bias` and `scale` steps read them, and its
    `residual` step reads beta * C:
    ```
    spio.gemm %x, %w into %y alpha %alpha bias %b {config = ...,
        epilogue = #spio.epilogue<bias, gelu_tanh>} : ... bias !spio.tensor<[j: 4096] x bf16, global>
    ```
    With `pre %z` (a tensor of D's type), the epilogue's value before its
    first activation step is also rounded into %z: the pre-activation a
    training step keeps for the activation's gradient.
    A batched GEMM puts a batch entry before the matrices' entries of D and
    C, and of A and B where each problem has its own (without it, one
    matrix serves the whole batch), e.g. `[h: 16, i: 512, k/8: 8]`;
    spio-tile takes the batch along the grid's z (or among a persistent
    grid's tiles).

    A grouped GEMM (`groups %ends`, e.g. a mixture of experts' layers)
    computes G problems of different row counts in one launch: A's and D's
    rows are the groups' rows one after the other, `%ends`, a
    `!spio.tensor<[g: G] x i32, global>` in device memory, holds each
    group's end row (its rows run from the previous group's end), and B has
    a leading entry `g: G`, one matrix a group:
    ```
    spio.gemm %x, %w into %y alpha %alpha groups %ends tma %xm, %wm {config = ...}
        : !spio.tensor<[i: 4096, k/8: 256] x vector<8xbf16>, global>,
          !spio.tensor<[g: 8, j: 1024, k/8: 256] x vector<8xbf16>, global>
       -> !spio.tensor<[i: 4096, j: 1024] x bf16, global>
       groups !spio.tensor<[g: 8] x i32, global> tma ...
    ```
    It runs on a persistent wgmma grid (no cluster, swap or split K), whose
    blocks read the row ends to walk the groups' tiles. Where D (and C)
    lead with the groups' entry instead, and A and B have none, the groups
    split the reduction (a grouped GEMM's weight gradient): `%ends` holds
    each group's end along K, and group g's matrix of D sums A's and B's
    rows of K from the previous group's end to its own. A is then M-major
    and B N-major (both hold K along their rows):
    ```
    spio.gemm %dyT, %x into %dw alpha %alpha groups %ends tma %am, %bm {config = ...}
        : !spio.tensor<[k: 4096, i/8: 128] x vector<8xbf16>, global>,
          !spio.tensor<[k: 4096, j/8: 64] x vector<8xbf16>, global>
       -> !spio.tensor<[g: 8, i: 1024, j: 512] x f32, global>
       groups !spio.tensor<[g: 8] x i32, global> tma ...
    ```

    A config with `stream_k = true` takes two global tensors of scratch
    after `stream_k`: the blocks' partial sums, `[sk: P, fragment: N / 8,
    thread: T] x vector<4xf32>` (P persistent blocks, N the tile's columns,
    T the compute threads, 128 a warpgroup: each thread's accumulator
    fragments), and their flags, `[sk: P] x i32`, which must be zero when
    the kernel starts (any dimension names).

    A config summing ranges of K apart (`k_ranges = R > 1`) whose wgmma N
    is over 192 (registers hold one such accumulator, not the sums beside
    it) runs on a persistent grid and takes, after `range_sums`, the global
    tensor where each block keeps the sums of its ranges before the last,
    `[sk: P, fragment: N / 8, thread: T] x vector<4xf32>` as stream-K's
    partial sums are laid out.

    A wgmma config (`wgmma = true`) loads A and B by TMA through the tensor
    maps after `tma`, kernel parameters whose global tensors are A's and B's
    matrices (a batched operand's rows of all its batch entries, one after
    the other) and whose boxes are the config's tiles (B's, with `cluster =
    C`, 1 / C of it). `spio-tile` expands it into block,
    warp and fragment code for the grid the config implies.
  }];
  let arguments = (ins Arg<Spio_Tensor, "", [MemRead]>:$a,
                       Arg<Spio_Tensor, "", [MemRead]>:$b,
                       Arg<Spio_Tensor, "", [MemWrite]>:$d,
                       F32:$alpha,
                       Optional<F32>:$beta,
                       Optional<Spio_Tensor>:$c,
                       Arg<Optional<Spio_Tensor>, "", [MemRead]>:$bias,
                       Arg<Optional<Spio_Tensor>, "", [MemRead]>:$scale,
                       Arg<Optional<Spio_Tensor>, "", [MemRead]>:$groups,
                       Arg<Optional<Spio_Tensor>, "", [MemWrite]>:$pre,
                       Arg<Optional<Spio_Tensor>, "", [MemRead, MemWrite]>:$partials,
                       Arg<Optional<Spio_Tensor>, "", [MemRead, MemWrite]>:$flags,
                       Arg<Optional<Spio_Tensor>, "", [MemRead, MemWrite]>:$rangeSums,
                       Optional<Spio_TensorMap>:$aMap,
                       Optional<Spio_TensorMap>:$bMap,
                       Spio_GemmConfigAttr:$config,
                       OptionalAttr<Spio_EpilogueAttr>:$epilogue);
  let assemblyFormat = [{
    $a `,` $b `into` $d `alpha` $alpha (`beta` $beta^ `,` $c)? (`bias` $bias^)?
    (`scale` $scale^)? (`groups` $groups^)? (`pre` $pre^)?
    (`stream_k` $partials^ `,` $flags)? (`range_sums` $rangeSums^)?
    (`tma` $aMap^ `,` $bMap)? attr-dict `:`
    qualified(type($a)) `,` qualified(type($b)) `->` qualified(type($d))
    (`,` qualified(type($c))^)? (`bias` qualified(type($bias))^)?
    (`scale` qualified(type($scale))^)? (`groups` qualified(type($groups))^)?
    (`pre` qualified(type($pre))^)?
    (`stream_k` qualified(type($partials))^ `,` qualified(type($flags)))?
    (`range_sums` qualified(type($rangeSums))^)?
    (`tma` qualified(type($aMap))^ `,` qualified(type($bMap)))?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The reduction dimension (shared by A and B), rows (A's other
    /// dimension) and columns (B's), as the verifier established them.
    ::mlir::StringAttr getReductionDim();
    ::mlir::StringAttr getRowDim();
    ::mlir::StringAttr getColDim();
    /// D's leading batch entry's dimension, or null for one problem.
    ::mlir::StringAttr getBatchDim();
    /// The epilogue's steps: the attribute's, else [residual] where C is
    /// read, else none.
    ::llvm::SmallVector<EpilogueStep> getEpilogueSteps();
    /// The partial sums and flags a stream_k config needs, and only it;
    /// the range sums a k_ranges config wider than 192 needs, and only it.
    ::mlir::LogicalResult verifyStreamK();
    ::mlir::LogicalResult verifyRangeSums();
  }];
}

def Spio_Conv2dOp : Spio_Op<"conv2d", [AttrSizedOperandSegments]> {
  let summary = "y = epilogue(conv2d(x, w)), dense or grouped, computed by the family that fits";
  let description = [{
    ```
    spio.conv2d %x, %w into %y tma %xm, %wm {stride = array<i64: 1, 1>,
        padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>,
        config = #spio.gemm_config<...>}
        : !spio.tensor<[n: 8, h: 56, w: 56, c/8: 8] x vector<8xbf16>, global>,
          !spio.tensor<[k: 128, r: 3, s: 3, c/8: 8] x vector<8xbf16>, global>
       -> !spio.tensor<[n: 8, p: 56, q: 56, k: 128] x bf16, global>
       tma !spio.im2col_map<...>, !spio.tensor_map<...>
    ```
    The workload of a kernel: y[n, p, q, k] = sum over r, s, c of x[n, p *
    strideH - padH + r * dilationH, q * strideW - padW + s * dilationW, c] *
    w[k, r, s, c] (dense: groups = 1; grouped below), NHWC x and y, KRSC
    w, 16-byte vectors of f16 or bf16 along the channels of x and w, f16,
    bf16 or f32 scalars in y. The
    types say the layout: x's batch and channel dimensions are y's batch
    and w's channel ones, w's output channels are y's last; y's rows and
    columns are the output's size for the stride, padding and dilation.

    `epilogue = #spio.epilogue<...>` lists what is applied, in order, to
    each output before it is rounded into y: `scale` and `bias` read the
    vectors after `scale` and `bias` (one value an output channel, `[k:
    K]`), `residual` adds C (`residual %c`, y's type), and the activations.

    Dense, it runs on the wgmma GEMM kernel (`config`, a
    `#spio.gemm_config` with `wgmma = true` and no swap): the output
    positions are the GEMM's rows,
    the output channels its columns, and each k-tile one tap's 64 channels,
    which TMA gathers from x through the im2col map `%xm` (its box the
    config's rows) while `%wm` reads w as a K x (R * S * C) matrix (its box
    the block's share of the config's columns).

    `spio.conv2d dgrad` computes the gradient of x instead: %x is dy ([n, p, q,
    k/8], the forward's output), %y is dx ([n, h, w, c], its input), no
    epilogue. dx[n, h, w, c] = sum over the taps (r, s) and k of dy at the
    positions whose tap reads (h, w), times w[k, r, s, c]: at stride 1 a
    convolution of dy, padded by dilation * (R - 1) - padding, with the
    taps flipped. `%xm` gathers dy, a k-tile one tap's 64 of K, and `%wm`
    reads w's K rows in boxes of a k-tile's rows by 64 of a tap's C, an
    N-major B (wgmma's transposed operand). The stride, padding and
    dilation are the forward's.

    At a stride over 1, each dgrad op computes one phase of dx, `phase =
    array<i64: a, b>`: its positions (a + sH * i, b + sW * j), which only
    the taps (r, s) with sH dividing a + pH - r * dH (and sW b + pW - s *
    dW) read, so that the phase is a stride-1 convolution of dy with those
    taps flipped. %y is then the phase as a strided view of dx: `[n: N :
    H * W * C, h: ceil((H - a) / sH) : sH * W * C, w: ceil((W - b) / sW) :
    sW * C, c: C]` (dx's H and W follow from the strides), its first
    element dx's position (a, b). A phase no tap reads is zero and has no
    op.

    `spio.conv2d wgrad %x, %dy into %dw` computes the gradient of w: %w is
    dy ([n, p, q, k/8]) and %y is dw ([k, r, s, c], f16, bf16 or f32), no
    epilogue. dw[k, r, s, c] = sum over the output positions (n, p, q) of
    dy[n, p, q, k] times the x that tap (r, s) reads for them: a GEMM whose
    rows are dw's K, its columns the R * S * C taps' channels, and its
    reduction the N * P * Q positions, a k-tile 64 of them. `%wm` reads dy
    as that many rows of K (an M-major A), and `%xm` gathers x's im2col
    boxes of a k-tile's positions by one tap's 64 channels (an N-major B);
    the config splits the long reduction among a cluster's blocks
    (`split_k`), which add their sums in rank order. With a 1x1 filter at
    stride 1, no padding and one group, x is itself that matrix of the
    positions by C, and `%xm` may be a tensor map reading it so, in boxes
    of a k-tile's positions by 64 channels (tiled copies, faster than
    im2col ones). Where %y is
    `[part: P, k, r, s, c] x f32` the reduction is cut into P parts of
    whole k-tiles, one a grid entry along z, each writing its f32 sums
    there, which a reduce kernel then adds in part order into dw.

    `groups = G` (1 unless said) makes it a grouped convolution of C = K
    channels in G groups of C / G (1, 2, 4 or 8) channels, which the
    memory-bound grouped family runs: `config` is then a
    `#spio.conv2d_gw8_config`, or left out for `spio-tile` to choose (the
    family's chooser, for the pass's chip), there are no tensor maps, and
    the operands
    are `spio.conv2d_gw8`'s of that group width: w is `[k: C, r: R, s: S,
    c: C / G]` (a `vector<8x...>` of 8 channels where C / G is 8), and
    wgrad writes dw `[k, r, s, c]` (its blocks adding their sums in a
    cluster; the family's f32 partial sums are `spio.conv2d_gw8`'s alone);
    stride sH = sW (1 or 2), dilation 1, and the epilogue at most `bias`
    (fprop). `spio-tile` rewrites it into `spio.conv2d_gw8` and tiles that.
    ```
    spio.conv2d %x, %w into %y bias %b {stride = array<i64: 1, 1>,
        padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 96,
        epilogue = #spio.epilogue<bias>,
        config = #spio.conv2d_gw8_config<warps = [4, 2], rows = 16>}
        : !spio.tensor<[n: 8, h: 56, w: 56, c/8: 12] x vector<8xf16>, global>,
          !spio.tensor<[k: 96, r: 3, s: 3, c: 1] x f16, global>
       -> !spio.tensor<[n: 8, p: 56, q: 56, k: 96] x f16, global>
       bias !spio.tensor<[k: 96] x f16, global>
    ```

    With a `#spio.gemm_config`, `groups = G` runs on the implicit GEMM
    instead, for groups of a multiple of 64 input and output channels
    (C / G and K / G; ResNeXt's and RegNet's wide groups): everything is
    as for the dense form, except that w (wgrad: dw) is `[k: K, r: R, s:
    S, c: C / G]`, `%wm` reads it as a K x (R * S * C / G) matrix, and each
    tile's columns (fprop: output channels, dgrad: input channels; wgrad:
    its rows, dw's output channels) are one group's, so the config's
    columns (wgrad: rows) must divide the group's channels; a tile's k-tiles
    then gather only its group's channels. fprop and dgrad also take groups
    of a multiple of 8 channels that is not one of 64 (RegNet's 24, 48, 56,
    ...): a k-tile's 64 channels then run past the group's into the next
    group's, so w is `[k: K, r: R, s: S, c: C']`, each tap's C / G channels
    padded with zeros to C', C / G rounded up to a multiple of 64 (which
    the conv2d workload expands w into first); dgrad's is transposed, `[c:
    C, r: R, s: S, k: K']` (K / G padded), read as fprop reads w, the tap
    flipped; the config's columns are any multiple of 8 that divides the
    group's outputs (dgrad: inputs). (Groups of 16 or 32
    channels with C = K a multiple of 64 are this op's C / 64 groups of 64
    on block-diagonal weights, which the workload expands alike.)
  }];
  let arguments = (ins Arg<Spio_Tensor, "", [MemRead]>:$x,
                       Arg<Spio_Tensor, "", [MemRead]>:$w,
                       Arg<Spio_Tensor, "", [MemWrite]>:$y,
                       Arg<Optional<Spio_Tensor>, "", [MemRead]>:$residual,
                       Arg<Optional<Spio_Tensor>, "", [MemRead]>:$bias,
                       Arg<Optional<Spio_Tensor>, "", [MemRead]>:$scale,
                       Optional<AnyTypeOf<[Spio_Im2colMap, Spio_TensorMap]>>:$xMap,
                       Optional<Spio_TensorMap>:$wMap,
                       DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       OptionalAttr<AnyAttrOf<[Spio_GemmConfigAttr,
                                               Spio_Conv2dGw8ConfigAttr]>>:$config,
                       OptionalAttr<Spio_EpilogueAttr>:$epilogue,
                       DefaultValuedAttr<Spio_ConvPass, "ConvPass::Fprop">:$pass,
                       OptionalAttr<DenseI64ArrayAttr>:$phase,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let assemblyFormat = [{
    ($pass^)? $x `,` $w `into` $y (`residual` $residual^)? (`bias` $bias^)? (`scale` $scale^)?
    (`tma` $xMap^ `,` $wMap)? attr-dict `:`
    qualified(type($x)) `,` qualified(type($w)) `->` qualified(type($y))
    (`residual` qualified(type($residual))^)? (`bias` qualified(type($bias))^)?
    (`scale` qualified(type($scale))^)?
    (`tma` qualified(type($xMap))^ `,` qualified(type($wMap)))?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The epilogue's steps: the attribute's, else none.
    ::llvm::SmallVector<EpilogueStep> getEpilogueSteps();
    /// The dense family's config (groups = 1), else null.
    GemmConfigAttr getGemmConfig() {
      return ::llvm::dyn_cast_if_present<GemmConfigAttr>(getConfigAttr());
    }
    /// Checks a grouped convolution (groups > 1): the operands of
    /// `spio.conv2d_gw8` of its group width.
    ::mlir::LogicalResult verifyGrouped();
    /// Checks a grouped convolution on the implicit GEMM (groups > 1 with
    /// a #spio.gemm_config): groups of a multiple of 64 of the forward's
    /// `inputs` and `outputs` (fprop: of 8), and the config's `tile` (along
    /// its rows or columns, `along`) within one group's `tiled` ("input"
    /// or "output") channels. Success for a dense one.
    ::mlir::LogicalResult verifyGemmGroups(int64_t inputs, int64_t outputs,
                                           ::llvm::StringRef tiled, int64_t tile,
                                           ::llvm::StringRef along);
    /// x's (dgrad: dy's) channels, 8 a vector (the verifier checks x
    /// holds 8-channel vectors).
    int64_t getInputChannels();
    /// The filter's taps [R, S]: w's, or wgrad's dw's (both [k, r, s, c]).
    ::std::array<int64_t, 2> getTaps();
    /// The verifier of `wgrad`, whose operands are x, dy and dw.
    ::mlir::LogicalResult verifyWgrad();
    /// dgrad: dx's rows and columns, from %y (a phase's strided view at a
    /// stride over 1); failure, reported, where %y is not dx or its phase.
    ::mlir::FailureOr<std::pair<int64_t, int64_t>> verifyDgradOutput();
  }];
}

def Spio_Conv2dGw8Op : Spio_Op<"conv2d_gw8"> {
  let summary = "one pass of a grouped conv2d (groups of 8, 4, 2 or 1 channels), computed by one kernel";
  let description = [{
    ```
    spio.conv2d_gw8 fprop %x, %w bias %b into %y {kernel = array<i64: 3, 3>,
        padding = array<i64: 1, 1>, stride = 1,
        config = #spio.conv2d_gw8_config<warps = [4, 2], rows = 16>}
        : !spio.tensor<[n: 8, h: 56, w: 56, c/8: 8] x vector<8xf16>, global>,
          !spio.tensor<[k: 64, r: 3, s: 3, c/8: 1] x vector<8xf16>, global>,
          !spio.tensor<[k: 64] x f16, global>
       -> !spio.tensor<[n: 8, p: 56, q: 56, k: 64] x f16, global>
    ```
    The workload of a kernel, NHWC, C = K channels in groups of 8 (or of
    `group_width`):

    - `fprop %x, %w [bias %b] into %y`: y = conv(x, w) + bias, the bias
      `[k: C]` (the kernel views it broadcast over a fragment's 16 rows).
    - `dgrad %dy, %w into %dx`: dx from dy (dy's channels are `k`; its rows
      and columns `h`, `w`, as the kernel's image; dx's are `p`, `q`).
    - `wgrad %x, %dy into %partials`: per-block partial sums of dw, f32,
      `[part: P, k: C, r: R, sc/8: 2 * ceil(S / 2), sc: 8]` (`sc` = 8 * s +
      c); a reduction over `part`, in order, gives dw.

    `group_width` (8 unless said) is the channels a group: 8, or 1
    (depthwise), 2 or 4, which run on the same kernels with each 8
    channels' weights staged as a block-diagonal 8 x 8 matrix. w is then
    `[k: C, r: R, s: S, c: g] x f16` (or bf16), and wgrad's dw into itself
    `[k: C, r: R, s: S, c: g]`; its partial sums keep all 8 channels.

    `kernel` is [R, S] (1 to 7), `padding` [pH, pW] zeros a side (any
    that is not negative; spio-tile's problem check takes up to 2^30), and
    `stride` 1 or 2. `spio-tile` expands it into the kernel family's block,
    warp and fragment code for the config; it checks every operand type
    against the shapes and reports the one that differs.

    `parts` (wgrad only) is a timing diagnostic that leaves the partial
    sums wrong: each band runs only its copies (`copies`), only the copies
    of as many x rows as the band has dy rows (`copies_without_row_halo`,
    what re-reading no halo rows would cost), or only its fragment loads
    and mma on whatever the tiles hold (`mma`).
  }];
  let arguments = (ins Spio_ConvPass:$pass,
                       Arg<Spio_Tensor, "", [MemRead]>:$a,
                       Arg<Spio_Tensor, "", [MemRead]>:$b,
                       Arg<Optional<Spio_Tensor>, "", [MemRead]>:$bias,
                       Arg<Spio_Tensor, "", [MemWrite]>:$d,
                       DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$padding,
                       I64Attr:$stride,
                       Spio_Conv2dGw8ConfigAttr:$config,
                       OptionalAttr<Spio_WgradParts>:$parts,
                       DefaultValuedAttr<I64Attr, "8">:$group_width);
  let assemblyFormat = [{
    $pass $a `,` $b (`bias` $bias^)? `into` $d (`parts` $parts^)? attr-dict `:`
    qualified(type($a)) `,` qualified(type($b)) (`,` qualified(type($bias))^)? `->`
    qualified(type($d))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

def Spio_AsyncCopyOp : Spio_Op<"async_copy", [AttrSizedOperandSegments]> {
  let summary = "16-byte cp.async from global to shared memory";
  let description = [{
    ```
    spio.async_copy %g[%i, %k8] to %s[%i, %k8] in_bounds %ok : ...
    ```
    Each thread copies one 16-byte element. With `in_bounds`, a false
    predicate reads nothing and writes zeros (zero-fill), which handles
    ragged edges without a branch. Both tensors must have the same 16-byte
    element type, so every copy is 16-byte sized and (given 16-byte aligned
    base addresses, which the runtime checks) 16-byte aligned.
  }];
  let arguments = (ins Arg<Spio_Tensor, "", [MemRead]>:$src,
                       Variadic<Spio_Coord>:$srcCoords,
                       Arg<Spio_Tensor, "", [MemWrite]>:$dst,
                       Variadic<Spio_Coord>:$dstCoords,
                       Optional<I1>:$inBounds);
  let assemblyFormat = [{
    $src `[` $srcCoords `]` `to` $dst `[` $dstCoords `]`
    (`in_bounds` $inBounds^)? attr-dict `:`
    qualified(type($src)) (`[` qualified(type($srcCoords))^ `]`)? `to` qualified(type($dst)) (`[` qualified(type($dstCoords))^ `]`)?
  }];
  let hasVerifier = 1;
}

def Spio_AsyncCommitOp : Spio_Op<"async_commit"> {
  let summary = "close the thread's current group of async copies";
  let assemblyFormat = "attr-dict";
}

def Spio_AsyncWaitOp : Spio_Op<"async_wait"> {
  let summary = "wait until at most `pending` async copy groups are in flight";
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "$pending attr-dict";
}

//===----------------------------------------------------------------------===//
// Arrive/wait barriers
//===----------------------------------------------------------------------===//

def Spio_BarrierAllocOp : Spio_Op<"barrier_alloc", [MemoryEffects<[MemAlloc]>]> {
  let summary = "allocate a group of arrive/wait barriers in shared memory";
  let description = [{
    ```
    %bars = spio.barrier_alloc : !spio.barriers<16>
    ```
    The block's barriers, uninitialized: one thread initializes each with
    `spio.barrier_init` and the block synchronizes before any other use.
  }];
  let results = (outs Spio_Barriers:$barriers);
  let assemblyFormat = "attr-dict `:` qualified(type($barriers))";
}

class Spio_BarrierOp<string mnemonic, list<Trait> traits = []>
    : Spio_Op<mnemonic, traits> {
  // A constant index must name one of the group's barriers.
  let hasVerifier = 1;
}

def Spio_BarrierInitOp : Spio_BarrierOp<"barrier_init"> {
  let summary = "set a barrier's count of arrivals per phase";
  let description = [{
    ```
    spio.barrier_init %bars[%i], arrivals 256 : !spio.barriers<16>
    ```
    Barrier `%i` starts in phase 0, whose completion takes `arrivals`
    arrivals (as does every later phase).
  }];
  let arguments = (ins Spio_Barriers:$barriers, Index:$index,
                       ConfinedAttr<I64Attr, [IntMinValue<1>, IntMaxValue<1048575>]>:$arrivals);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` `arrivals` $arrivals attr-dict `:` qualified(type($barriers))
  }];
}

def Spio_BarrierArriveOp : Spio_BarrierOp<"barrier_arrive"> {
  let summary = "arrive at a barrier's current phase";
  let description = [{
    ```
    spio.barrier_arrive %bars[%i] : !spio.barriers<16>
    spio.barrier_arrive %bars[%i] block %rank : !spio.barriers<16>
    ```
    With release semantics: what this thread wrote or read before is
    ordered before whatever a thread that waits for the phase does after.
    With `block`, the arrival is at the same barrier of block `%rank` (0 to
    the cluster's size - 1) of this block's thread-block cluster, which
    allocates the same barriers at the same places (sm_90 and later).
  }];
  let arguments = (ins Spio_Barriers:$barriers, Index:$index, Optional<Index>:$block);
  let assemblyFormat = [{
    $barriers `[` $index `]` (`block` $block^)? attr-dict `:` qualified(type($barriers))
  }];
}

def Spio_BarrierExpectTxOp : Spio_BarrierOp<"barrier_expect_tx"> {
  let summary = "arrive at a barrier's phase, which then also waits for bytes of bulk copies";
  let description = [{
    ```
    spio.barrier_expect_tx %bars[%i], bytes 49152 : !spio.barriers<8>
    ```
    Arrives at barrier `%i`'s current phase (release) after raising the
    bytes the phase waits for by `bytes`: the phase completes once its
    arrivals have arrived and `spio.tma_load`s naming the barrier have
    written that many bytes (PTX `mbarrier.arrive.expect_tx`).
  }];
  let arguments = (ins Spio_Barriers:$barriers, Index:$index,
                       ConfinedAttr<I64Attr, [IntMinValue<1>, IntMaxValue<1048575>]>:$bytes);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` `bytes` $bytes attr-dict `:` qualified(type($barriers))
  }];
}

def Spio_AsyncArriveOp : Spio_BarrierOp<"async_arrive"> {
  let summary = "arrive at a barrier once this thread's async copies land";
  let description = [{
    ```
    spio.async_arrive %bars[%i] : !spio.barriers<16>
    ```
    The thread's arrival at barrier `%i`'s current phase happens when every
    `spio.async_copy` it issued before has written shared memory (PTX
    `cp.async.mbarrier.arrive.noinc`): a waiter for the phase then sees the
    copies' data, without an `async_wait` in the copying thread.
  }];
  let arguments = (ins Spio_Barriers:$barriers, Index:$index);
  let assemblyFormat = "$barriers `[` $index `]` attr-dict `:` qualified(type($barriers))";
}

def Spio_BarrierWaitOp : Spio_BarrierOp<"barrier_wait"> {
  let summary = "wait until a barrier's phase of the given parity completes";
  let description = [{
    ```
    spio.barrier_wait %bars[%i], parity %p : !spio.barriers<16>
    ```
    Waits for the completion of the current or the immediately preceding
    phase of barrier `%i`, the one whose parity is `%p` (phase n has parity
    n % 2), with acquire semantics. Waiting for parity 1 before phase 0
    completes returns at once (the phase before it counts as complete):
    a producer's first wait for free slots passes.
  }];
  let arguments = (ins Spio_Barriers:$barriers, Index:$index, I1:$parity);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` `parity` $parity attr-dict `:` qualified(type($barriers))
  }];
}

def Spio_WarpSyncOp : Spio_Op<"warp_sync"> {
  let summary = "a barrier of the 32 lanes of a warp";
  let description = [{
    ```
    spio.warp_sync
    ```
    Every lane of the warp waits until all have reached it (PTX
    `bar.warp.sync` with a full mask); what each wrote to shared memory
    before it, the others read after it: a warp's own staging tile needs
    no block-wide barrier.
  }];
  let assemblyFormat = "attr-dict";
}

def Spio_NamedBarrierOp : Spio_Op<"named_barrier"> {
  let summary = "a barrier of some of the block's warps";
  let description = [{
    ```
    spio.named_barrier 1, threads 256
    ```
    As a block-wide barrier (memory order included), for the `threads`
    threads (whole warps) that execute it with the same id: the compute
    warps of a block whose copy warps run apart. Id 0 is the block-wide
    barrier's.
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<1>, IntMaxValue<15>]>:$id,
                       ConfinedAttr<I64Attr, [IntMinValue<32>]>:$threads);
  let assemblyFormat = "$id `,` `threads` $threads attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Thread-block clusters
//===----------------------------------------------------------------------===//

def Spio_ClusterBarrierOp : Spio_Op<"cluster_barrier"> {
  let summary = "a barrier of every thread of every block of the cluster";
  let description = [{
    ```
    spio.cluster_barrier
    ```
    Waits until every thread of every block of the kernel's thread-block
    cluster (`nvvm.cluster_dim`) has reached it; what each wrote to its
    shared memory before is then visible to all of them (`spio.load_remote`),
    and a block that has passed a second one may end without the others'
    reads of its shared memory failing. Every thread of a block must reach
    it. Lowers to `barrier.cluster.arrive.aligned` (release) and
    `barrier.cluster.wait.aligned` (acquire), sm_90 and later.
  }];
  let assemblyFormat = "attr-dict";
}

def Spio_LoadRemoteOp : Spio_Op<"load_remote", [
    TypesMatchWith<"result is the tensor's element", "tensor", "result",
                   "::llvm::cast<::mlir::spio::SpioTensorType>($_self).getElementType()">]> {
  let summary = "load one element of another cluster block's shared tensor";
  let description = [{
    ```
    %v = spio.load_remote %sums[%k, %i] block %rank
        : !spio.tensor<[k: 8, i: 64] x f32, shared>[!spio.coord<k>, !spio.coord<i>]
    ```
    As `spio.load` of a shared tensor, but from the shared memory of block
    `block` (its rank, 0 to the cluster's size - 1) of this block's
    thread-block cluster, which allocates the same tensors at the same
    places: distributed shared memory, `mapa` and `ld.shared::cluster`
    (sm_90 and later). The element is a scalar or a vector of up to 16
    bytes (one load). It must have been written before a
    `spio.cluster_barrier` that both blocks passed.
  }];
  let arguments = (ins Arg<Spio_Tensor, "", [MemRead]>:$tensor,
                       Variadic<Spio_Coord>:$coords,
                       Index:$block);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $tensor `[` $coords `]` `block` $block attr-dict `:` qualified(type($tensor)) (`[` qualified(type($coords))^ `]`)?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Flags between blocks of a grid
//===----------------------------------------------------------------------===//

def Spio_SignalOp : Spio_Op<"signal"> {
  let summary = "set a flag in global memory for another block (release, GPU scope)";
  let description = [{
    ```
    spio.signal %one, %flags[%block]
        : !spio.tensor<[sk: 132] x i32, global>[!spio.coord<sk>]
    ```
    Stores the i32 into the global tensor's element as a release at GPU
    scope (`st.release.gpu`): this thread's writes before it, and those of
    the block's threads ordered before it by a barrier, are visible to any
    thread whose `spio.wait_signal` on the element has seen the value. The
    flags of a grid's blocks: e.g. a stream-K GEMM's blocks handing their
    partial sums of a tile to the block that finishes it.
  }];
  let arguments = (ins I32:$value, Arg<Spio_Tensor, "", [MemWrite]>:$tensor,
                       Variadic<Spio_Coord>:$coords);
  let assemblyFormat = [{
    $value `,` $tensor `[` $coords `]` attr-dict `:` qualified(type($tensor)) (`[` qualified(type($coords))^ `]`)?
  }];
  let hasVerifier = 1;
}

def Spio_WaitSignalOp : Spio_Op<"wait_signal"> {
  let summary = "wait until a flag in global memory holds a value (acquire, GPU scope)";
  let description = [{
    ```
    spio.wait_signal %one, %flags[%block]
        : !spio.tensor<[sk: 132] x i32, global>[!spio.coord<sk>]
    ```
    Reads the global tensor's i32 element as an acquire at GPU scope
    (`ld.acquire.gpu`) until it equals the value; what the signalling
    thread's `spio.signal` released is then visible to this thread. The
    block that signals must be able to run: one that started before this
    one (a grid that all fits the GPU at once), or the wait never ends.
  }];
  let arguments = (ins I32:$value, Arg<Spio_Tensor, "", [MemRead]>:$tensor,
                       Variadic<Spio_Coord>:$coords);
  let assemblyFormat = [{
    $value `,` $tensor `[` $coords `]` attr-dict `:` qualified(type($tensor)) (`[` qualified(type($coords))^ `]`)?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Dependent grids
//===----------------------------------------------------------------------===//

def Spio_LaunchDependentsOp : Spio_Op<"launch_dependents"> {
  let summary = "let a dependent grid launch before this one ends";
  let description = [{
    ```
    spio.launch_dependents
    ```
    Once every block of this grid has run it (or ended), a grid launched
    after it as a programmatic dependent (the runtime's dependent launch)
    may start, and waits in `spio.wait_prerequisites` for this grid's
    results: its launch and its blocks' start overlap this grid's end.
    Lowers to `griddepcontrol.launch_dependents` on sm_90 and later and to
    nothing before, where grids of one stream run one after the other.
  }];
  let assemblyFormat = "attr-dict";
}

def Spio_WaitPrerequisitesOp : Spio_Op<"wait_prerequisites"> {
  let summary = "wait until the grids this one depends on have ended";
  let description = [{
    ```
    spio.wait_prerequisites
    ```
    Waits until the grids this one was launched after have completed and
    their memory writes are visible; it must come before the first read of
    what they wrote. Without a dependent launch (or before sm_90, where it
    lowers to nothing) they have already ended when this grid starts.
  }];
  let assemblyFormat = "attr-dict";
}

#endif // SPIO_OPS_TD
