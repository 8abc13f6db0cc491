// RUN: spio-opt %s -split-input-file -verify-diagnostics

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>

func.func @no_shared_reduction(%a: !A, %b: !spio.tensor<[j: 128, r/8: 64] x vector<8xbf16>, global>, %d: !spio.tensor<[i: 256, j: 128] x f32, global>, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op A and B must share exactly one dimension, the reduction; A has 'i' and 'k', B has 'j' and 'r'}}
  spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>} : !A, !spio.tensor<[j: 128, r/8: 64] x vector<8xbf16>, global> -> !spio.tensor<[i: 256, j: 128] x f32, global>
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>

func.func @wrong_output_dims(%a: !A, %b: !B, %d: !spio.tensor<[j: 128, i: 256] x f32, global>, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op D must be indexed [i, j] (rows of A, columns of B), got [j, i]}}
  spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>} : !A, !B -> !spio.tensor<[j: 128, i: 256] x f32, global>
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 32] x vector<8xbf16>, global>

func.func @sizes(%a: !A, %b: !B, %d: !spio.tensor<[i: 256, j: 128] x f32, global>, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op sizes disagree: A is 256 x 512, B is 256 x 128, D is 256 x 128}}
  spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>} : !A, !B -> !spio.tensor<[i: 256, j: 128] x f32, global>
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xf16>, global>

func.func @dtypes(%a: !A, %b: !B, %d: !spio.tensor<[i: 256, j: 128] x f32, global>, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op A and B must hold the same vector<8xf16>, vector<8xbf16> or vector<4xf32> (TF32), got 'vector<8xbf16>' and 'vector<8xf16>'}}
  spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>} : !A, !B -> !spio.tensor<[i: 256, j: 128] x f32, global>
  return
}

// -----

!A = !spio.tensor<[i: 256, k/4: 128] x vector<4xf16>, global>
!B = !spio.tensor<[j: 128, k/4: 128] x vector<4xf16>, global>

// f16 comes in 16-byte vectors of 8; vectors of 4 are f32's.
func.func @half_vectors(%a: !A, %b: !B, %d: !spio.tensor<[i: 256, j: 128] x f32, global>, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op A and B must hold the same vector<8xf16>, vector<8xbf16> or vector<4xf32> (TF32), got 'vector<4xf16>' and 'vector<4xf16>'}}
  spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>} : !A, !B -> !spio.tensor<[i: 256, j: 128] x f32, global>
  return
}

// -----

!A = !spio.tensor<[i: 256, k: 512] x bf16, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>

func.func @scalars(%a: !A, %b: !B, %d: !spio.tensor<[i: 256, j: 128] x f32, global>, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op A must be a row-major [outer, inner/8] tensor of 16-byte vectors}}
  spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>} : !A, !B -> !spio.tensor<[i: 256, j: 128] x f32, global>
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 128] x f32, global>

func.func @c_type(%a: !A, %b: !B, %d: !D, %c: !spio.tensor<[i: 256, j: 128] x f16, global>, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op C must have D's type '!spio.tensor<[i: 256, j: 128] x f32, global>', got '!spio.tensor<[i: 256, j: 128] x f16, global>'}}
  spio.gemm %a, %b into %d alpha %alpha beta %alpha, %c {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>} : !A, !B -> !D, !spio.tensor<[i: 256, j: 128] x f16, global>
  return
}

// -----

// expected-error @below {{gemm_config block must be three sizes [M, N, K] from 1 to 4096}}
func.func private @config() attributes {config = #spio.gemm_config<block = [128, 128], warps = [2, 2], stages = 4>}

// -----

// expected-error @below {{gemm_config block must be three sizes [M, N, K] from 1 to 4096}}
func.func private @config() attributes {config = #spio.gemm_config<block = [128, 9223372036854775807, 32], warps = [2, 2], stages = 4>}

// -----

// expected-error @below {{gemm_config needs 1 to 32 stages, got 0}}
func.func private @config() attributes {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 0>}

// -----

// expected-error @below {{gemm_config needs 1 to 32 stages, got 9223372036854775807}}
func.func private @config() attributes {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 9223372036854775807>}

// -----

// expected-error @below {{gemm_config warps must be two positive counts [M, N] of at most 32 warps a block (1024 threads), wgmma's copy warpgroup counted}}
func.func private @config() attributes {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 0], stages = 4>}

// -----

// The product would overflow a 64-bit count.
// expected-error @below {{gemm_config warps must be two positive counts [M, N] of at most 32 warps}}
func.func private @config() attributes {config = #spio.gemm_config<block = [128, 128, 32], warps = [9223372036854775807, 2], stages = 4>}

// -----

// 8 compute warpgroups and the copy warpgroup: 1152 threads.
// expected-error @below {{gemm_config warps must be two positive counts [M, N] of at most 32 warps}}
func.func private @config() attributes {config = #spio.gemm_config<block = [512, 128, 64], warps = [32, 1], stages = 4, wgmma = true>}

// -----

// expected-error @below {{gemm_config raster groups are 1 to 65535 block rows, got 0}}
func.func private @config() attributes {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4, raster = 0>}

// -----

// expected-error @below {{gemm_config raster groups are 1 to 65535 block rows, got 9223372036854775807}}
func.func private @config() attributes {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4, raster = 9223372036854775807>}

// -----

!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>

func.func @a_in_shared(%a: !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, shared>, %b: !B, %d: !spio.tensor<[i: 256, j: 128] x f32, global>, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op A must be in global memory}}
  spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>} : !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, shared>, !B -> !spio.tensor<[i: 256, j: 128] x f32, global>
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>

func.func @d_integer(%a: !A, %b: !B, %d: !spio.tensor<[i: 256, j: 128] x i32, global>, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op D must hold f16, bf16 or f32, got 'i32'}}
  spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>} : !A, !B -> !spio.tensor<[i: 256, j: 128] x i32, global>
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 128] x f32, global>

// The custom form cannot separate beta from C; the generic form can.
func.func @beta_without_c(%a: !A, %b: !B, %d: !D, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op takes beta and C together}}
  "spio.gemm"(%a, %b, %d, %alpha, %alpha) <{config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>}> : (!A, !B, !D, f32, f32) -> ()
  return
}

// -----

// expected-error @below {{expected 'raster', 'wgmma', 'persistent', 'cluster', 'swap', 'split_k', 'pingpong', 'promote', 'k_ranges' or 'stream_k' (each at most once), got 'swizzle'}}
func.func @config_key() attributes {a = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, swizzle = 1>} {
  return
}

// -----

// expected-error @below {{expected 'raster', 'wgmma', 'persistent', 'cluster', 'swap', 'split_k', 'pingpong', 'promote', 'k_ranges' or 'stream_k' (each at most once), got 'raster'}}
func.func @config_twice() attributes {a = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, raster = 2, raster = 4>} {
  return
}

// -----

// expected-error @below {{expected true or false, got 'yes'}}
func.func @config_flag() attributes {a = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = yes>} {
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 256, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 256] x bf16, global>

func.func @wgmma_without_maps(%a: !A, %b: !B, %d: !D, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op with a wgmma config loads A and B by TMA: it needs their tensor maps (tma %a_map, %b_map)}}
  spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true>} : !A, !B -> !D
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 256, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 256] x bf16, global>
!MapA = !spio.tensor_map<!A, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!MapB = !spio.tensor_map<!B, !spio.tensor<[j: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>

func.func @maps_without_wgmma(%a: !A, %b: !B, %d: !D, %alpha: f32, %ma: !MapA, %mb: !MapB) {
  // expected-error @below {{'spio.gemm' op loads A and B by TMA only with a wgmma config}}
  spio.gemm %a, %b into %d alpha %alpha tma %ma, %mb {config = #spio.gemm_config<block = [128, 128, 64], warps = [4, 2], stages = 4>} : !A, !B -> !D tma !MapA, !MapB
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 256, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 256] x bf16, global>
!MapA = !spio.tensor_map<!A, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!MapB = !spio.tensor_map<!B, !spio.tensor<[j: 256, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>

func.func @box_not_the_tile(%a: !A, %b: !B, %d: !D, %alpha: f32, %ma: !MapA, %mb: !MapB) {
  // expected-error @below {{'spio.gemm' op a tensor map's global tensor is its operand's type (the rows of its batch entries one after the other) and its box the config's tile (128 rows)}}
  spio.gemm %a, %b into %d alpha %alpha tma %ma, %mb {config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true>} : !A, !B -> !D tma !MapA, !MapB
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 256, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 256] x bf16, global>
!MapA = !spio.tensor_map<!A, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>

// The custom form cannot give one map alone; the generic form can.
func.func @one_map(%a: !A, %b: !B, %d: !D, %alpha: f32, %ma: !MapA) {
  // expected-error @below {{'spio.gemm' op takes the tensor maps of A and B together}}
  "spio.gemm"(%a, %b, %d, %alpha, %ma) <{config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0>}> : (!A, !B, !D, f32, !MapA) -> ()
  return
}

// -----

// expected-error @below {{gemm_config persistent blocks are a positive count, with wgmma, got 132}}
func.func @persistent_mma_sync() attributes {a = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4, persistent = 132>} {
  return
}

// -----

// expected-error @below {{gemm_config clusters are of a positive count of blocks that divides the persistent grid's, got 2}}
func.func @cluster_of_odd_grid() attributes {a = #spio.gemm_config<block = [128, 256, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 131, cluster = 2>} {
  return
}

// -----

// expected-error @below {{gemm_config swaps A and B only with wgmma}}
func.func @swap_mma_sync() attributes {a = #spio.gemm_config<block = [64, 64, 32], warps = [2, 2], stages = 4, swap = true>} {
  return
}

// -----

// expected-error @below {{gemm_config splits K over 1 to 8 blocks of a cluster, with wgmma, a block a tile, got 9}}
func.func @split_k_too_many() attributes {a = #spio.gemm_config<block = [16, 128, 64], warps = [8, 1], stages = 4, wgmma = true, swap = true, split_k = 9>} {
  return
}

// -----

// expected-error @below {{gemm_config splits K over 1 to 8 blocks of a cluster, with wgmma, a block a tile, got 2}}
func.func @split_k_persistent() attributes {a = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 132, split_k = 2>} {
  return
}

// -----

// expected-error @below {{gemm_config takes tiles in turn (pingpong) only on a persistent grid}}
func.func @pingpong_without_persistent() attributes {a = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, pingpong = true>} {
  return
}

// -----

// expected-error @below {{gemm_config promotes k-tiles' sums (promote) with wgmma, not ping-pong, wgmma's N at most 192}}
func.func @promote_wide() attributes {a = #spio.gemm_config<block = [128, 256, 64], warps = [8, 1], stages = 4, wgmma = true, promote = true>} {
  return
}

// -----

// expected-error @below {{gemm_config promotes k-tiles' sums (promote) with wgmma}}
func.func @promote_mma_sync() attributes {a = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4, promote = true>} {
  return
}

// -----

// expected-error @below {{gemm_config sums 1 to 8 ranges of k-tiles in a block (k_ranges) with wgmma, not ping-pong, promoted or split, got 2}}
func.func @k_ranges_split() attributes {a = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, split_k = 2, k_ranges = 2>} {
  return
}

// -----

// expected-error @below {{gemm_config sums 1 to 8 ranges of k-tiles in a block (k_ranges) with wgmma, not ping-pong, promoted or split, got 9}}
func.func @k_ranges_nine() attributes {a = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, k_ranges = 9>} {
  return
}

// -----

// expected-error @below {{gemm_config sums k ranges (k_ranges) on wgmma's N over 192 on a persistent grid, not swapped}}
func.func @k_ranges_wide_not_persistent() attributes {a = #spio.gemm_config<block = [128, 256, 64], warps = [8, 1], stages = 4, wgmma = true, k_ranges = 2>} {
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 256, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 256] x f32, global>
!MapA = !spio.tensor_map<!A, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!MapB = !spio.tensor_map<!B, !spio.tensor<[j: 256, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>

func.func @k_ranges_wide_without_range_sums(%a: !A, %b: !B, %d: !D, %alpha: f32, %ma: !MapA, %mb: !MapB) {
  // expected-error @below {{'spio.gemm' op with k_ranges = 2 on wgmma's N of 256 needs the blocks' range sums (range_sums %sums)}}
  spio.gemm %a, %b into %d alpha %alpha tma %ma, %mb {config = #spio.gemm_config<block = [128, 256, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 132, k_ranges = 2>} : !A, !B -> !D tma !MapA, !MapB
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 256, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 256] x f32, global>
!MapA = !spio.tensor_map<!A, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!MapB = !spio.tensor_map<!B, !spio.tensor<[j: 256, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!Sums = !spio.tensor<[sk: 132, fragment: 16, thread: 256] x vector<4xf32>, global>

func.func @range_sums_of_half_the_columns(%a: !A, %b: !B, %d: !D, %alpha: f32, %s: !Sums, %ma: !MapA, %mb: !MapB) {
  // expected-error @below {{'spio.gemm' op the range sums must be a dense global [block: 132, fragment: 32, thread: 256] tensor of vector<4xf32>, got '!spio.tensor<[sk: 132, fragment: 16, thread: 256] x vector<4xf32>, global>'}}
  spio.gemm %a, %b into %d alpha %alpha range_sums %s tma %ma, %mb {config = #spio.gemm_config<block = [128, 256, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 132, k_ranges = 2>} : !A, !B -> !D range_sums !Sums tma !MapA, !MapB
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 128] x f32, global>
!MapA = !spio.tensor_map<!A, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!MapB = !spio.tensor_map<!B, !spio.tensor<[j: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!Sums = !spio.tensor<[sk: 132, fragment: 16, thread: 256] x vector<4xf32>, global>

func.func @range_sums_in_registers(%a: !A, %b: !B, %d: !D, %alpha: f32, %s: !Sums, %ma: !MapA, %mb: !MapB) {
  // expected-error @below {{'spio.gemm' op takes range sums only with k_ranges over 1 and wgmma's N over 192}}
  spio.gemm %a, %b into %d alpha %alpha range_sums %s tma %ma, %mb {config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 132, k_ranges = 2>} : !A, !B -> !D range_sums !Sums tma !MapA, !MapB
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 128] x bf16, global>

func.func @bias_without_step(%a: !A, %b: !B, %d: !D, %bias: !spio.tensor<[j: 128] x bf16, global>, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op takes a bias only with a 'bias' epilogue step}}
  spio.gemm %a, %b into %d alpha %alpha bias %bias {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>} : !A, !B -> !D bias !spio.tensor<[j: 128] x bf16, global>
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 128] x bf16, global>

func.func @step_without_scale(%a: !A, %b: !B, %d: !D, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op has a 'scale' epilogue step but no scale}}
  spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>, epilogue = #spio.epilogue<scale, relu>} : !A, !B -> !D
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 128] x bf16, global>

func.func @bias_along_k(%a: !A, %b: !B, %d: !D, %bias: !spio.tensor<[k: 512] x bf16, global>, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op bias must run along D's rows ('i') or columns ('j'), got 'k'}}
  spio.gemm %a, %b into %d alpha %alpha bias %bias {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>, epilogue = #spio.epilogue<bias>} : !A, !B -> !D bias !spio.tensor<[k: 512] x bf16, global>
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 128] x bf16, global>

func.func @bias_size(%a: !A, %b: !B, %d: !D, %bias: !spio.tensor<[j: 256] x bf16, global>, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op bias has 256 elements along 'j', D 128}}
  spio.gemm %a, %b into %d alpha %alpha bias %bias {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>, epilogue = #spio.epilogue<bias>} : !A, !B -> !D bias !spio.tensor<[j: 256] x bf16, global>
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 128] x bf16, global>

func.func @scale_shared(%a: !A, %b: !B, %d: !D, %scale: !spio.tensor<[j: 128] x f32, shared>, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op scale must be a global vector of f16, bf16 or f32 scalars, got '!spio.tensor<[j: 128] x f32, shared>'}}
  spio.gemm %a, %b into %d alpha %alpha scale %scale {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>, epilogue = #spio.epilogue<scale>} : !A, !B -> !D scale !spio.tensor<[j: 128] x f32, shared>
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 128] x bf16, global>

func.func @c_without_residual(%a: !A, %b: !B, %c: !D, %d: !D, %alpha: f32, %beta: f32) {
  // expected-error @below {{'spio.gemm' op reads C only in a 'residual' epilogue step}}
  spio.gemm %a, %b into %d alpha %alpha beta %beta, %c {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>, epilogue = #spio.epilogue<relu>} : !A, !B -> !D, !D
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 128] x bf16, global>

func.func @residual_without_c(%a: !A, %b: !B, %d: !D, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op has a 'residual' epilogue step but no beta and C}}
  spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>, epilogue = #spio.epilogue<residual>} : !A, !B -> !D
  return
}

// -----

// expected-error @below {{the epilogue step 'relu' appears twice}}
func.func private @twice() attributes {e = #spio.epilogue<relu, bias, relu>}

// -----

// expected-error @below {{expected one of [scale, bias, residual, relu, gelu_tanh, gelu_erf, silu]}}
// expected-error @below {{failed to parse Spio_EpilogueAttr parameter 'steps'}}
func.func private @unknown() attributes {e = #spio.epilogue<tanh>}

// -----

!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>

func.func @batch_of_a_only(%a: !spio.tensor<[h: 4, i: 256, k/8: 64] x vector<8xbf16>, global>, %b: !B, %d: !spio.tensor<[i: 256, j: 128] x f32, global>, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op A's batch entry 'h: 4' must be D's (D has none)}}
  spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>} : !spio.tensor<[h: 4, i: 256, k/8: 64] x vector<8xbf16>, global>, !B -> !spio.tensor<[i: 256, j: 128] x f32, global>
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>

func.func @batch_sizes_differ(%a: !A, %b: !spio.tensor<[h: 2, j: 128, k/8: 64] x vector<8xbf16>, global>, %d: !spio.tensor<[h: 4, i: 256, j: 128] x f32, global>, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op B's batch entry 'h: 2' must be D's}}
  spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>} : !A, !spio.tensor<[h: 2, j: 128, k/8: 64] x vector<8xbf16>, global> -> !spio.tensor<[h: 4, i: 256, j: 128] x f32, global>
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>

func.func @strided_batch(%a: !A, %b: !B, %d: !spio.tensor<[h: 4:65536, i: 256, j: 128] x f32, global>, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op D must be a row-major [rows, columns] tensor of scalars (after a batch entry, if any)}}
  spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>} : !A, !B -> !spio.tensor<[h: 4:65536, i: 256, j: 128] x f32, global>
  return
}

// -----

!A = !spio.tensor<[h: 4, i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>
!MapA = !spio.tensor_map<!spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!MapB = !spio.tensor_map<!B, !spio.tensor<[j: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>

func.func @batched_map_of_one_problem(%a: !A, %b: !B, %d: !spio.tensor<[h: 4, i: 256, j: 128] x f32, global>, %alpha: f32, %ma: !MapA, %mb: !MapB) {
  // expected-error @below {{'spio.gemm' op a tensor map's global tensor is its operand's type (the rows of its batch entries one after the other) and its box the config's tile (128 rows)}}
  spio.gemm %a, %b into %d alpha %alpha tma %ma, %mb {config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true>} : !A, !B -> !spio.tensor<[h: 4, i: 256, j: 128] x f32, global> tma !MapA, !MapB
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[g: 4, j: 128, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 128] x bf16, global>
!MapA = !spio.tensor_map<!A, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!MapB = !spio.tensor_map<!spio.tensor<[j: 512, k/8: 64] x vector<8xbf16>, global>, !spio.tensor<[j: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>

func.func @groups_of_i64(%a: !A, %b: !B, %d: !D, %alpha: f32, %ends: !spio.tensor<[g: 4] x i64, global>, %ma: !MapA, %mb: !MapB) {
  // expected-error @below {{'spio.gemm' op groups must be a global [g: G] tensor of i32 (each group's end row)}}
  spio.gemm %a, %b into %d alpha %alpha groups %ends tma %ma, %mb {config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 132>} : !A, !B -> !D groups !spio.tensor<[g: 4] x i64, global> tma !MapA, !MapB
  return
}

func.func @groups_not_b(%a: !A, %b: !B, %d: !D, %alpha: f32, %ends: !spio.tensor<[e: 4] x i32, global>, %ma: !MapA, %mb: !MapB) {
  // expected-error @below {{'spio.gemm' op a grouped GEMM's B leads with the groups' entry 'e: 4' (a matrix a group), and A and D with none (the groups' rows one after the other); or D leads with it and A and B have none (the groups' rows of K one after the other)}}
  spio.gemm %a, %b into %d alpha %alpha groups %ends tma %ma, %mb {config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 132>} : !A, !B -> !D groups !spio.tensor<[e: 4] x i32, global> tma !MapA, !MapB
  return
}

func.func @groups_a_block_a_tile(%a: !A, %b: !B, %d: !D, %alpha: f32, %ends: !spio.tensor<[g: 4] x i32, global>, %ma: !MapA, %mb: !MapB) {
  // expected-error @below {{'spio.gemm' op a grouped GEMM runs on a persistent wgmma grid, without clusters, swapped operands or split K}}
  spio.gemm %a, %b into %d alpha %alpha groups %ends tma %ma, %mb {config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true>} : !A, !B -> !D groups !spio.tensor<[g: 4] x i32, global> tma !MapA, !MapB
  return
}

// -----

!A = !spio.tensor<[k: 256, i/8: 32] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 32] x vector<8xbf16>, global>
!MapA = !spio.tensor_map<!A, !spio.tensor<[k: 128, i/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!MapB = !spio.tensor_map<!B, !spio.tensor<[j: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>

// An M-major A's boxes are a k-tile's rows (64) by 64 of M, not 128 rows.
func.func @m_major_map_box(%a: !A, %b: !B, %d: !spio.tensor<[i: 256, j: 128] x f32, global>, %alpha: f32, %ma: !MapA, %mb: !MapB) {
  // expected-error @below {{'spio.gemm' op a tensor map's global tensor is its operand's type (the rows of its batch entries one after the other) and its box the config's tile (64 rows)}}
  spio.gemm %a, %b into %d alpha %alpha tma %ma, %mb {config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true>} : !A, !B -> !spio.tensor<[i: 256, j: 128] x f32, global> tma !MapA, !MapB
  return
}

// -----

!KA = !spio.tensor<[k: 1000, i/8: 32] x vector<8xbf16>, global>
!KB = !spio.tensor<[k: 1000, j/8: 16] x vector<8xbf16>, global>
!KD = !spio.tensor<[g: 3, i: 256, j: 128] x f32, global>
!KMapA = !spio.tensor_map<!KA, !spio.tensor<[k: 64, i/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!KMapB = !spio.tensor_map<!KB, !spio.tensor<[k: 64, j/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>

func.func @reduction_groups_not_d(%a: !KA, %b: !KB, %d: !KD, %alpha: f32, %ends: !spio.tensor<[g: 4] x i32, global>, %ma: !KMapA, %mb: !KMapB) {
  // expected-error @below {{'spio.gemm' op a grouped GEMM's B leads with the groups' entry 'g: 4'}}
  spio.gemm %a, %b into %d alpha %alpha groups %ends tma %ma, %mb {config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 132>} : !KA, !KB -> !KD groups !spio.tensor<[g: 4] x i32, global> tma !KMapA, !KMapB
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 128] x bf16, global>

func.func @pre_without_activation(%a: !A, %b: !B, %d: !D, %z: !D, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op stores the value before the activation (pre) but its epilogue has no activation step}}
  spio.gemm %a, %b into %d alpha %alpha pre %z {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>} : !A, !B -> !D pre !D
  return
}

func.func @pre_of_another_type(%a: !A, %b: !B, %d: !D, %z: !spio.tensor<[i: 256, j: 128] x f32, global>, %alpha: f32) {
  // expected-error @below {{'spio.gemm' op pre (the value before the activation) must have D's type}}
  spio.gemm %a, %b into %d alpha %alpha pre %z {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>, epilogue = #spio.epilogue<relu>} : !A, !B -> !D pre !spio.tensor<[i: 256, j: 128] x f32, global>
  return
}

// -----

func.func @stream_k_ping_pong() attributes {a = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 132, pingpong = true, stream_k = true>} {
  // expected-error @above {{gemm_config shares tiles' k-tiles among the blocks (stream_k) on a persistent grid without swap, ping-pong, promote or k_ranges}}
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 128] x f32, global>
!MapA = !spio.tensor_map<!A, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!MapB = !spio.tensor_map<!B, !spio.tensor<[j: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>

func.func @stream_k_without_scratch(%a: !A, %b: !B, %d: !D, %alpha: f32, %ma: !MapA, %mb: !MapB) {
  // expected-error @below {{'spio.gemm' op with a stream_k config needs the blocks' partial sums and flags (stream_k %partials, %flags)}}
  spio.gemm %a, %b into %d alpha %alpha tma %ma, %mb {config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 132, stream_k = true>} : !A, !B -> !D tma !MapA, !MapB
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 128] x f32, global>
!MapA = !spio.tensor_map<!A, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!MapB = !spio.tensor_map<!B, !spio.tensor<[j: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!Partials = !spio.tensor<[sk: 66, fragment: 16, thread: 256] x vector<4xf32>, global>
!Flags = !spio.tensor<[sk: 132] x i32, global>

func.func @stream_k_partials_of_half_the_blocks(%a: !A, %b: !B, %d: !D, %alpha: f32, %p: !Partials, %f: !Flags, %ma: !MapA, %mb: !MapB) {
  // expected-error @below {{'spio.gemm' op stream_k's partial sums must be a dense global [block: 132, fragment: 16, thread: 256] tensor of vector<4xf32>, got '!spio.tensor<[sk: 66, fragment: 16, thread: 256] x vector<4xf32>, global>'}}
  spio.gemm %a, %b into %d alpha %alpha stream_k %p, %f tma %ma, %mb {config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 132, stream_k = true>} : !A, !B -> !D stream_k !Partials, !Flags tma !MapA, !MapB
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 128] x f32, global>
!MapA = !spio.tensor_map<!A, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!MapB = !spio.tensor_map<!B, !spio.tensor<[j: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!Partials = !spio.tensor<[sk: 132, fragment: 16, thread: 256] x vector<4xf32>, global>
!Flags = !spio.tensor<[sk: 132] x i64, global>

func.func @stream_k_flags_of_i64(%a: !A, %b: !B, %d: !D, %alpha: f32, %p: !Partials, %f: !Flags, %ma: !MapA, %mb: !MapB) {
  // expected-error @below {{'spio.gemm' op stream_k's flags must be a dense global [block: 132] tensor of i32, got '!spio.tensor<[sk: 132] x i64, global>'}}
  spio.gemm %a, %b into %d alpha %alpha stream_k %p, %f tma %ma, %mb {config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 132, stream_k = true>} : !A, !B -> !D stream_k !Partials, !Flags tma !MapA, !MapB
  return
}

// -----

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 128] x f32, global>
!MapA = !spio.tensor_map<!A, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!MapB = !spio.tensor_map<!B, !spio.tensor<[j: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!Partials = !spio.tensor<[sk: 132, fragment: 16, thread: 256] x vector<4xf32>, global>
!Flags = !spio.tensor<[sk: 132] x i32, global>

func.func @scratch_without_stream_k(%a: !A, %b: !B, %d: !D, %alpha: f32, %p: !Partials, %f: !Flags, %ma: !MapA, %mb: !MapB) {
  // expected-error @below {{'spio.gemm' op takes partial sums and flags (stream_k) only with a stream_k config}}
  spio.gemm %a, %b into %d alpha %alpha stream_k %p, %f tma %ma, %mb {config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 132>} : !A, !B -> !D stream_k !Partials, !Flags tma !MapA, !MapB
  return
}
