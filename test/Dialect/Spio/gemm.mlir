// RUN: spio-opt %s | spio-opt | FileCheck %s
// RUN: spio-opt %s --mlir-print-op-generic | spio-opt | FileCheck %s

!A = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!B = !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global>
!D = !spio.tensor<[i: 256, j: 128] x f32, global>

// CHECK-LABEL: func.func @gemm
// CHECK: spio.gemm %{{.*}}, %{{.*}} into %{{.*}} alpha %{{.*}} {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>} : !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>, !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global> -> !spio.tensor<[i: 256, j: 128] x f32, global>
// CHECK: spio.gemm %{{.*}}, %{{.*}} into %{{.*}} alpha %{{.*}} beta %{{.*}}, %{{.*}} {config = {{.*}}} : {{.*}} -> !spio.tensor<[i: 256, j: 128] x f32, global>, !spio.tensor<[i: 256, j: 128] x f32, global>
func.func @gemm(%a: !A, %b: !B, %c: !D, %d: !D, %alpha: f32, %beta: f32) {
  spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>} : !A, !B -> !D
  spio.gemm %a, %b into %d alpha %alpha beta %beta, %c {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>} : !A, !B -> !D, !D
  return
}

// f32 inputs for TF32 tensor cores: K-major vectors of 4, TMA maps of them.
// CHECK-LABEL: func.func @tf32
// CHECK: spio.gemm {{.*}} tma {{.*}} : !spio.tensor<[i: 256, k/4: 128] x vector<4xf32>, global>, !spio.tensor<[j: 128, k/4: 128] x vector<4xf32>, global> -> !spio.tensor<[i: 256, j: 128] x f32, global> tma !spio.tensor_map<!spio.tensor<[i: 256, k/4: 128] x vector<4xf32>, global>, !spio.tensor<[i: 128, k/4: 8] x vector<4xf32>, shared, #spio.xor_swizzle<3, 0, 3>>>
!FA = !spio.tensor<[i: 256, k/4: 128] x vector<4xf32>, global>
!FB = !spio.tensor<[j: 128, k/4: 128] x vector<4xf32>, global>
!FMapA = !spio.tensor_map<!FA, !spio.tensor<[i: 128, k/4: 8] x vector<4xf32>, shared, #spio.xor_swizzle<3, 0, 3>>>
!FMapB = !spio.tensor_map<!FB, !spio.tensor<[j: 128, k/4: 8] x vector<4xf32>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @tf32(%a: !FA, %b: !FB, %d: !D, %alpha: f32, %ma: !FMapA, %mb: !FMapB) {
  spio.gemm %a, %b into %d alpha %alpha tma %ma, %mb {config = #spio.gemm_config<block = [128, 128, 32], warps = [8, 1], stages = 4, wgmma = true>} : !FA, !FB -> !D tma !FMapA, !FMapB
  return
}

// Any dimension names, and the transposed layouts: A stored [k, m/8],
// B stored [r, n/8] (vectors along the non-reduction dimension).
// CHECK-LABEL: func.func @named
// CHECK: spio.gemm {{.*}} : !spio.tensor<[r: 64, m/8: 4] x vector<8xf16>, global>, !spio.tensor<[r: 64, n/8: 2] x vector<8xf16>, global> -> !spio.tensor<[m: 32, n: 16] x f16, global>
func.func @named(%a: !spio.tensor<[r: 64, m/8: 4] x vector<8xf16>, global>,
                 %b: !spio.tensor<[r: 64, n/8: 2] x vector<8xf16>, global>,
                 %d: !spio.tensor<[m: 32, n: 16] x f16, global>, %alpha: f32) {
  spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [32, 16, 16], warps = [1, 1], stages = 2>} : !spio.tensor<[r: 64, m/8: 4] x vector<8xf16>, global>, !spio.tensor<[r: 64, n/8: 2] x vector<8xf16>, global> -> !spio.tensor<[m: 32, n: 16] x f16, global>
  return
}

// The config's optional entries, in either order; defaults are not printed.
// CHECK-LABEL: func.func @configs
// CHECK: #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, raster = 8, wgmma = true>
// CHECK: #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 132, cluster = 2>
// CHECK: #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>
// CHECK: #spio.gemm_config<block = [16, 128, 64], warps = [8, 1], stages = 8, wgmma = true, swap = true, split_k = 4>
// CHECK: #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 132, pingpong = true>
// CHECK: #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, promote = true>
// CHECK: #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 132, k_ranges = 3>
func.func @configs() attributes {
    a = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, raster = 8>,
    b = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, cluster = 2, persistent = 132, wgmma = true>,
    c = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4, raster = 1, wgmma = false, swap = false, split_k = 1>,
    d = #spio.gemm_config<block = [16, 128, 64], warps = [8, 1], stages = 8, split_k = 4, swap = true, wgmma = true>,
    e = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, pingpong = true, persistent = 132, wgmma = true>,
    f = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, promote = true, wgmma = true>,
    g = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, k_ranges = 3, persistent = 132, wgmma = true>} {
  return
}

// Stream-K: the blocks' partial sums and flags after `stream_k`.
// CHECK-LABEL: func.func @stream_k
// CHECK: spio.gemm {{.*}} stream_k %arg4, %arg5 tma {{.*}} stream_k = true>} : {{.*}} stream_k !spio.tensor<[sk: 132, fragment: 16, thread: 256] x vector<4xf32>, global>, !spio.tensor<[sk: 132] x i32, global> tma
!MapA = !spio.tensor_map<!A, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!MapB = !spio.tensor_map<!B, !spio.tensor<[j: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!Partials = !spio.tensor<[sk: 132, fragment: 16, thread: 256] x vector<4xf32>, global>
!Flags = !spio.tensor<[sk: 132] x i32, global>
func.func @stream_k(%a: !A, %b: !B, %d: !D, %alpha: f32, %partials: !Partials, %flags: !Flags,
                    %ma: !MapA, %mb: !MapB) {
  spio.gemm %a, %b into %d alpha %alpha stream_k %partials, %flags tma %ma, %mb {config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 132, stream_k = true>} : !A, !B -> !D stream_k !Partials, !Flags tma !MapA, !MapB
  return
}

// k ranges over 256 columns: the sums of the ranges before the last wait
// in the blocks' slots after `range_sums`.
// CHECK-LABEL: func.func @range_sums
// CHECK: spio.gemm {{.*}} range_sums %arg4 tma {{.*}} k_ranges = 2>} : {{.*}} range_sums !spio.tensor<[sk: 132, fragment: 32, thread: 256] x vector<4xf32>, global> tma
!B256 = !spio.tensor<[j: 256, k/8: 64] x vector<8xbf16>, global>
!D256 = !spio.tensor<[i: 256, j: 256] x f32, global>
!MapB256 = !spio.tensor_map<!B256, !spio.tensor<[j: 256, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!RangeSums = !spio.tensor<[sk: 132, fragment: 32, thread: 256] x vector<4xf32>, global>
func.func @range_sums(%a: !A, %b: !B256, %d: !D256, %alpha: f32, %sums: !RangeSums, %ma: !MapA,
                      %mb: !MapB256) {
  spio.gemm %a, %b into %d alpha %alpha range_sums %sums tma %ma, %mb {config = #spio.gemm_config<block = [128, 256, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 132, k_ranges = 2>} : !A, !B256 -> !D256 range_sums !RangeSums tma !MapA, !MapB256
  return
}

// A batch: D's leading entry, which A has too and B, shared by the batch,
// does not.
// CHECK-LABEL: func.func @batched
// CHECK: spio.gemm {{.*}} : !spio.tensor<[h: 4, i: 256, k/8: 64] x vector<8xbf16>, global>, !spio.tensor<[j: 128, k/8: 64] x vector<8xbf16>, global> -> !spio.tensor<[h: 4, i: 256, j: 128] x f32, global>
func.func @batched(%a: !spio.tensor<[h: 4, i: 256, k/8: 64] x vector<8xbf16>, global>, %b: !B,
                   %d: !spio.tensor<[h: 4, i: 256, j: 128] x f32, global>, %alpha: f32) {
  spio.gemm %a, %b into %d alpha %alpha {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>} : !spio.tensor<[h: 4, i: 256, k/8: 64] x vector<8xbf16>, global>, !B -> !spio.tensor<[h: 4, i: 256, j: 128] x f32, global>
  return
}

// A grouped GEMM: B leads with a matrix a group, the groups' end rows in
// device memory.
// CHECK-LABEL: func.func @grouped
// CHECK: spio.gemm %{{.*}}, %{{.*}} into %{{.*}} alpha %{{.*}} groups %{{.*}} tma %{{.*}}, %{{.*}} {config = {{.*}}} : {{.*}} groups !spio.tensor<[g: 4] x i32, global> tma
!GA = !spio.tensor<[i: 256, k/8: 64] x vector<8xbf16>, global>
!GB = !spio.tensor<[g: 4, j: 128, k/8: 64] x vector<8xbf16>, global>
!GD = !spio.tensor<[i: 256, j: 128] x bf16, global>
!GMapA = !spio.tensor_map<!GA, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!GMapB = !spio.tensor_map<!spio.tensor<[j: 512, k/8: 64] x vector<8xbf16>, global>, !spio.tensor<[j: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @grouped(%a: !GA, %b: !GB, %d: !GD, %alpha: f32, %ends: !spio.tensor<[g: 4] x i32, global>, %ma: !GMapA, %mb: !GMapB) {
  spio.gemm %a, %b into %d alpha %alpha groups %ends tma %ma, %mb {config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 132>} : !GA, !GB -> !GD groups !spio.tensor<[g: 4] x i32, global> tma !GMapA, !GMapB
  return
}

// Groups that split the reduction: D leads with a matrix a group, A and B
// hold the groups' rows of K one after the other.
// CHECK-LABEL: func.func @grouped_reduction
// CHECK: spio.gemm {{.*}} groups %{{.*}} tma {{.*}} : {{.*}} -> !spio.tensor<[g: 4, i: 256, j: 128] x f32, global> groups !spio.tensor<[g: 4] x i32, global> tma
!KA = !spio.tensor<[k: 1000, i/8: 32] x vector<8xbf16>, global>
!KB = !spio.tensor<[k: 1000, j/8: 16] x vector<8xbf16>, global>
!KD = !spio.tensor<[g: 4, i: 256, j: 128] x f32, global>
!KMapA = !spio.tensor_map<!KA, !spio.tensor<[k: 64, i/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
!KMapB = !spio.tensor_map<!KB, !spio.tensor<[k: 64, j/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @grouped_reduction(%a: !KA, %b: !KB, %d: !KD, %alpha: f32, %ends: !spio.tensor<[g: 4] x i32, global>, %ma: !KMapA, %mb: !KMapB) {
  spio.gemm %a, %b into %d alpha %alpha groups %ends tma %ma, %mb {config = #spio.gemm_config<block = [128, 128, 64], warps = [8, 1], stages = 4, wgmma = true, persistent = 132>} : !KA, !KB -> !KD groups !spio.tensor<[g: 4] x i32, global> tma !KMapA, !KMapB
  return
}

// The value before the activation also stored (a training step's
// pre-activation), D's type.
// CHECK-LABEL: func.func @pre_activation
// CHECK: spio.gemm %{{.*}}, %{{.*}} into %{{.*}} alpha %{{.*}} bias %{{.*}} pre %{{.*}} {config = {{.*}}, epilogue = #spio.epilogue<bias, gelu_tanh>} : {{.*}} bias !spio.tensor<[j: 128] x f32, global> pre !spio.tensor<[i: 256, j: 128] x f32, global>
func.func @pre_activation(%a: !A, %b: !B, %d: !D, %z: !D, %bias: !spio.tensor<[j: 128] x f32, global>, %alpha: f32) {
  spio.gemm %a, %b into %d alpha %alpha bias %bias pre %z {config = #spio.gemm_config<block = [128, 128, 32], warps = [2, 2], stages = 4>, epilogue = #spio.epilogue<bias, gelu_tanh>} : !A, !B -> !D bias !spio.tensor<[j: 128] x f32, global> pre !D
  return
}
