//===- SpioTypes.td - Spio types ----------------------------*- tablegen -*-===//

#ifndef SPIO_TYPES_TD
#define SPIO_TYPES_TD

include "spio/Dialect/Spio/IR/SpioAttrs.td"
include "mlir/IR/AttrTypeBase.td"

class Spio_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Spio_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Spio_CoordType : Spio_Type<"Coord", "coord"> {
  let summary = "a coordinate typed by its dimension and fold";
  let description = [{
    `!spio.coord<k>` is a position along dimension `k`; `!spio.coord<k/8>`
    counts the same dimension in steps of 8, so its value 3 means `k = 24`.
    Values of different dimensions never mix without an explicit
    `spio.cast`.
  }];
  let parameters = (ins "::mlir::StringAttr":$dim, "int64_t":$fold);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    TypeBuilder<(ins "::llvm::StringRef":$dim, CArg<"int64_t", "1">:$fold), [{
      return $_get($_ctxt, ::mlir::StringAttr::get($_ctxt, dim), fold);
    }]>
  ];
  let skipDefaultBuilders = 1;
  let extraClassDeclaration = [{
    /// `k` or `k/8`.
    std::string getDimName() const;
  }];
}

def Spio_TensorType : Spio_Type<"SpioTensor", "tensor"> {
  let summary = "a view of memory addressed by typed dimensions";
  let description = [{
    ```
    !spio.tensor<[k/16: 4, i: 128, k/8: 2] x vector<8xf16>, shared>
    !spio.tensor<[i: 64, k/8: 8:1] x vector<8xf16>, shared, #spio.checkerboard<8>>
    ```
    An ordered list of dimension entries `name[/fold]: size[:stride]`
    (strides default to row major, in elements), an element type (a scalar,
    a vector such as `vector<8xf16>`, or, in registers, an mma fragment), a
    memory space (`global`, `shared` or `register`) and, in shared memory,
    an optional swizzle of the element offsets.

    The entries of one dimension must tile: `k/8: 2` spans 16 units of `k`,
    so the next coarser entry of `k` is `k/16`. Subscripts add coordinates
    per dimension and resolve each entry as `floor(value / fold)`, wrapped
    by the size for all but the coarsest entry of the dimension.
  }];
  let parameters = (ins
    ArrayRefParameter<"::mlir::spio::TensorDim", "dimension entries">:$dims,
    "::mlir::Type":$elementType,
    EnumParameter<Spio_MemorySpace>:$memorySpace,
    OptionalParameter<"::mlir::spio::SwizzleAttrInterface">:$swizzle);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The layout model shared with the lowering and the runtime.
    ::spio::layout::Layout getLayout() const;
    bool hasDim(::llvm::StringRef dim) const;
    /// Smallest fold of `dim` in this tensor, 0 when absent.
    int64_t getFinestFold(::llvm::StringRef dim) const;
    /// Elements the storage spans.
    int64_t getCosize() const;
    /// Size in bytes of one element.
    int64_t getElementBytes() const;
  }];
}

def Spio_FragmentType : Spio_Type<"Fragment", "fragment"> {
  let summary = "a warp's register tile of an mma.sync operand";
  let description = [{
    `!spio.fragment<A, m16n8k16, f16, [i, k]>` is the part of a 16 x 16
    A operand that each lane of a warp holds, with rows along dimension
    `i` and columns along dimension `k`. B fragments are `[k, j]` (reduction
    dimension first) and C fragments `[i, j]` in f32. A and B hold f16 or
    bf16.
  }];
  let parameters = (ins
    EnumParameter<Spio_FragmentOperand>:$operand,
    EnumParameter<Spio_MmaShape>:$shape,
    "::mlir::Type":$elementType,
    "::mlir::StringAttr":$rowDim,
    "::mlir::StringAttr":$colDim);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Rows and columns of the warp-wide tile.
    int64_t getNumRows() const;
    int64_t getNumCols() const;
    /// Elements each lane holds.
    int64_t getElementsPerLane() const;
    /// The mma's reduction dimension (columns of A, rows of B); none for C.
    ::mlir::StringAttr getReductionDim() const;
  }];
}

def Spio_WarpgroupAccType : Spio_Type<"WarpgroupAcc", "warpgroup_acc"> {
  let summary = "a warpgroup's accumulator tile of Hopper wgmma";
  let description = [{
    `!spio.warpgroup_acc<m64n128, f32, [i, j]>` is the 64 x 128 f32 tile
    that the four warps of a warpgroup accumulate with `spio.wgmma`, rows
    along dimension `i` and columns along `j`: warp w of the group holds
    rows 16w to 16w + 15 as N / 8 C fragments of m16n8 (`spio.warpgroup_fragment`),
    N / 2 values a thread. N is a multiple of 8 from 8 to 256.
  }];
  let parameters = (ins "int64_t":$n, "::mlir::Type":$elementType,
                        "::mlir::StringAttr":$rowDim, "::mlir::StringAttr":$colDim);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Rows of the tile: 64, 16 a warp.
    static constexpr int64_t kRows = 64;
    /// Values each thread holds.
    int64_t getElementsPerThread() const { return getN() / 2; }
  }];
}

def Spio_BarrierGroupType : Spio_Type<"BarrierGroup", "barriers"> {
  let summary = "a group of shared-memory arrive/wait barriers";
  let description = [{
    `!spio.barriers<16>` is 16 barriers in shared memory (PTX mbarriers),
    each counting arrivals of its current phase: a phase completes when
    its count of arrivals (set by `spio.barrier_init`) has arrived, and a
    waiter names the parity of the phase it waits for. Unlike a block-wide
    barrier, the warps that arrive and those that wait need not be the
    same: copy warps signal rows in, compute warps signal them read.
  }];
  let parameters = (ins "int64_t":$count);
  let assemblyFormat = "`<` $count `>`";
  let genVerifyDecl = 1;
}

def Spio_TensorMapType : Spio_Type<"TensorMap", "tensor_map"> {
  let summary = "a TMA descriptor: a global tensor and the shared box one copy fills";
  let description = [{
    ```
    !spio.tensor_map<!spio.tensor<[i: 4096, k/8: 512] x vector<8xbf16>, global>,
                     !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
    ```
    A kernel parameter of 128 bytes that the host encodes (the driver's
    `cuTensorMapEncodeTiled`) for the global tensor's base address and
    passes by value: `spio.tma_load` copies one box of the global tensor
    into a shared tile of the box's type, zero-filling what lies past the
    tensor's edges. Both are rank 2: rows (fold 1) and 16-byte vectors of
    f16 or bf16 (fold 8), or of f32 (fold 4), along the contiguous
    dimension. The box is at most
    256 rows of 128 bytes (8 vectors) in the 128-byte swizzle, the layout
    `spio.wgmma` reads.
  }];
  let parameters = (ins "::mlir::spio::SpioTensorType":$global,
                        "::mlir::spio::SpioTensorType":$box);
  let assemblyFormat = "`<` qualified($global) `,` qualified($box) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Bytes one copy of the box writes.
    int64_t getBoxBytes() const;
  }];
}

def Spio_Im2colMapType : Spio_Type<"Im2colMap", "im2col_map"> {
  let summary = "a TMA descriptor in im2col mode: an NHWC tensor read as a convolution's rows";
  let description = [{
    ```
    !spio.im2col_map<!spio.tensor<[n: 8, h: 56, w: 56, c/8: 8] x vector<8xbf16>, global>,
                     !spio.tensor<[npq: 128, rsc/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
    ```
    A kernel parameter of 128 bytes that the host encodes (the driver's
    `cuTensorMapEncodeIm2col`) for the global tensor's base address, with
    the convolution's padding and strides, and passes by value:
    `spio.tma_load_im2col` copies a box of consecutive output positions
    (rows) by 64 channels of one filter tap (8 16-byte vectors) into a
    shared tile of the box's type, zero-filling the padding. The global
    tensor is a dense [images, rows, columns, vectors/8] NHWC tensor of f16
    or bf16; the box is 1 to 256 rows of 128 bytes in the 128-byte
    swizzle, its dimensions the implicit GEMM's (output positions, and the
    reduction over taps and channels).
  }];
  let parameters = (ins "::mlir::spio::SpioTensorType":$global,
                        "::mlir::spio::SpioTensorType":$box);
  let assemblyFormat = "`<` qualified($global) `,` qualified($box) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Bytes one copy of the box writes.
    int64_t getBoxBytes() const;
  }];
}

#endif // SPIO_TYPES_TD
