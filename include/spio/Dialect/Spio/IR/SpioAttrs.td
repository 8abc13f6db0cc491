//===- SpioAttrs.td - Spio attributes -----------------------*- tablegen -*-===//

#ifndef SPIO_ATTRS_TD
#define SPIO_ATTRS_TD

include "spio/Dialect/Spio/IR/SpioDialect.td"
include "spio/Dialect/Spio/IR/SpioEnums.td"
include "mlir/IR/AttrTypeBase.td"


def Spio_SwizzleAttrInterface : AttrInterface<"SwizzleAttrInterface"> {
  let cppNamespace = "::mlir::spio";
  let description = [{
    A permutation of a shared-memory tensor's element offsets that spreads
    rows over banks. Every swizzle is expressed as XOR-swizzle parameters.
  }];
  let methods = [
    InterfaceMethod<"The swizzle as XOR-swizzle parameters.",
                    "::spio::layout::XorSwizzle", "getXorSwizzle">
  ];
}

class Spio_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Spio_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Spio_XorSwizzleAttr : Spio_Attr<"XorSwizzle", "xor_swizzle",
    [DeclareAttrInterfaceMethods<Spio_SwizzleAttrInterface>]> {
  let summary = "CuTe-style XOR swizzle of element offsets";
  let description = [{
    `#spio.xor_swizzle<bits, base, shift>` XORs the `bits` bits that start
    `base + shift` bits up in an element offset into the `bits` bits that
    start `base` bits up (CuTe's `Swizzle<B, M, S>`).
  }];
  let parameters = (ins "int64_t":$bits, "int64_t":$base, "int64_t":$shift);
  let assemblyFormat = "`<` $bits `,` $base `,` $shift `>`";
  let genVerifyDecl = 1;
}

def Spio_CheckerboardAttr : Spio_Attr<"Checkerboard", "checkerboard",
    [DeclareAttrInterfaceMethods<Spio_SwizzleAttrInterface>]> {
  let summary = "spio's checkerboard swizzle over 16-byte banks";
  let description = [{
    `#spio.checkerboard<ranks>`: with 16-byte elements shared memory acts as
    8 banks; pairs of elements swap in every other rank of `ranks / 2` pairs
    so that a 16 x 2 tile of 16-byte vectors reads conflict-free by row or by
    column. Equal to `#spio.xor_swizzle<1, 0, log2(ranks)>`.
  }];
  let parameters = (ins "int64_t":$ranks);
  let assemblyFormat = "`<` $ranks `>`";
  let genVerifyDecl = 1;
}

def Spio_GemmConfigAttr : Spio_Attr<"GemmConfig", "gemm_config"> {
  let summary = "how spio-tile and spio-pipeline shape a GEMM kernel";
  let description = [{
    `#spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>`:
    each block computes a 128 x 128 tile of D, 32 deep per step of the
    reduction loop, with 2 x 2 warps (64 x 64 each); the loop keeps 4 shared
    memory stages in flight. With `raster = G`, blocks take their tiles in
    groups of G block rows, column by column, so that the blocks running at
    once share their A and B tiles in L2. With `wgmma = true` (sm_90a),
    each group of 4 warps computes 64 rows of the block with Hopper's
    warpgroup wgmma from the shared tiles: `warps = [4 * G, 1]`, `block =
    [64 * G, N, 64]`, N a multiple of 8 up to 256. With `persistent = P`
    (wgmma only), the grid is P blocks, block b taking tiles b, b + P, ...
    in turn: its copy warpgroup loads the next tile while the compute
    warpgroups store the last. With `cluster = C` (persistent only), C
    blocks of a thread-block cluster take C consecutive tiles along M and
    share their B tile: each loads 1 / C of it by TMA multicast. With
    `swap = true` (wgmma), the warpgroups' 64-row side runs along N and
    wgmma's N along M, the kernel computing D^T = B^T A^T, so that a small
    M pads wgmma's N (8 to 256) instead of 64 rows: `block = [N', 64 * G,
    64]`. With `split_k = S` (wgmma, a block a tile), S blocks of a cluster
    take consecutive ranges of each tile's reduction and add their partial
    sums through distributed shared memory in rank order, so the sum is
    the same in every run. With `pingpong = true` (persistent, two compute
    warpgroups), each compute warpgroup takes every other tile of the block
    whole, their main loops in turn, so that one's epilogue overlaps the
    other's main loop. With `promote = true` (wgmma, not ping-pong, wgmma's
    N at most 192), each k-tile's products are summed by wgmma into a fresh
    accumulator that f32 adds then add to the running sum: the tensor
    cores' own additions truncate, which over a long reduction costs f32
    outputs several bits. With `k_ranges = R` (wgmma, not ping-pong,
    promoted or split), each block splits its reduction into R consecutive
    ranges of k-tiles as `split_k = R` would split it among R blocks, sums
    each range by wgmma from zero and adds the sums in order in f32: the
    same bits as the split, in one block (a batch-invariant GEMM's rows
    then do not depend on which it took). Over wgmma's N of 192 the sums of
    the ranges before the last wait in spio.gemm's `range_sums`, a slot a
    block of a persistent grid (not swapped).
    With `stream_k = true` (persistent, no swap, ping-pong, promote or
    k_ranges), the grid's P / C clusters (blocks, with C = 1) first take
    whole cluster tiles in rounds, then share the last ones' k-tiles evenly
    (the last partial round and one full round before it, or all where they
    are fewer than the clusters): a block hands the partial sums of a tile
    it does not finish to the block of its rank in the cluster that takes
    the tile's last k-tiles, which adds them in a fixed order (spio.gemm's
    `stream_k` partial sums and flags).
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$block,
                        ArrayRefParameter<"int64_t">:$warps,
                        "int64_t":$stages,
                        DefaultValuedParameter<"int64_t", "1">:$raster,
                        DefaultValuedParameter<"bool", "false">:$wgmma,
                        DefaultValuedParameter<"int64_t", "0">:$persistent,
                        DefaultValuedParameter<"int64_t", "1">:$cluster,
                        DefaultValuedParameter<"bool", "false">:$swap,
                        DefaultValuedParameter<"int64_t", "1">:$splitK,
                        DefaultValuedParameter<"bool", "false">:$pingpong,
                        DefaultValuedParameter<"bool", "false">:$promote,
                        DefaultValuedParameter<"int64_t", "1">:$kRanges,
                        DefaultValuedParameter<"bool", "false">:$streamK);
  // Custom: optional `, key = value` entries (raster, wgmma, persistent,
  // cluster, swap, split_k, pingpong, promote, k_ranges, stream_k), which generated
  // optional groups cannot tell apart by their leading comma.
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// wgmma's N: the block's columns, or its rows with A and B swapped.
    int64_t getWgmmaN() const { return getSwap() ? getBlock()[0] : getBlock()[1]; }
  }];
}

def Spio_EpilogueAttr : Spio_Attr<"Epilogue", "epilogue"> {
  let summary = "what a GEMM applies, in order, to alpha * A @ B before the store";
  let description = [{
    `#spio.epilogue<scale, bias, gelu_tanh, residual>`: each step takes the
    f32 value of an element of D and gives the next: `scale` multiplies it
    by the scale vector's element of its row or column, `bias` adds the bias
    vector's, `residual` adds beta * C, and `relu`, `gelu_tanh`, `gelu_erf`
    and `silu` apply that activation. D is the last value, rounded once to
    its element type. Each step appears at most once.
  }];
  let parameters = (ins ArrayRefParameter<"EpilogueStep">:$steps);
  let assemblyFormat = "`<` $steps `>`";
  let genVerifyDecl = 1;
}

def Spio_Conv2dGw8ConfigAttr : Spio_Attr<"Conv2dGw8Config", "conv2d_gw8_config"> {
  let summary = "how spio-tile shapes a grouped (group width 8) conv2d kernel";
  let description = [{
    `#spio.conv2d_gw8_config<warps = [4, 2], rows = 16>`: each block has 4
    warps along output columns (16 pixels each) and 2 along groups, and
    computes 16 output rows (wgrad: reduces bands of 16 rows of dy). With
    `chunks = N`, wgrad splits its reduction over N blocks per group tile,
    and fprop and dgrad their bands of rows (flattened rows of narrow
    images; on rows of fragments, (image, row tile) bands, each block a
    2-stage ring over its range of them) (0: spio-tile chooses; rows of
    fragments then take one band a block). With `copy_warps = N`, fprop
    and dgrad (stride 1, rows of fragments) add N warps that only copy the
    staged rows in, each block streaming its bands through one staged
    tile. With `multiprocessors = N`,
    the chunks spio-tile chooses aim for whole waves on a GPU of N
    multiprocessors (0, the default: spio-tile's chip's reference part's). With
    `row_ring`, wgrad (stride 1, rows of fragments) walks each column tile
    down its row tiles, and a band that continues the one before it copies
    only its new rows of x: its first R - 1 rows are handed on from that
    band's tile in shared memory. With `stages = N`, wgrad's band loop
    keeps N buffers of its staged tiles (spio-pipeline; 0: spio-tile
    chooses).
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$warps,
                        "int64_t":$rows,
                        DefaultValuedParameter<"int64_t", "0">:$chunks,
                        DefaultValuedParameter<"int64_t", "0">:$copyWarps,
                        DefaultValuedParameter<"int64_t", "0">:$multiprocessors,
                        DefaultValuedParameter<"bool", "false">:$rowRing,
                        DefaultValuedParameter<"int64_t", "0">:$stages);
  // Custom: four optional `, key = value` entries and a `, row_ring`
  // flag, which generated optional groups cannot tell apart by their
  // leading comma.
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // SPIO_ATTRS_TD
