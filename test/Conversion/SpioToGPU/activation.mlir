// RUN: spio-opt %s -split-input-file --convert-spio-to-gpu | FileCheck %s

// relu is max(x, 0) with NaN propagated (arith.maximumf).
// CHECK-LABEL: gpu.func @relu
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK: arith.maximumf %{{.*}}, %[[ZERO]] : vector<4xf32>
// CHECK-NOT: spio.activation
gpu.module @m {
  gpu.func @relu(%x: vector<4xf32>, %out: memref<4xf32>) kernel {
    %y = spio.activation relu %x : vector<4xf32>
    %c0 = arith.constant 0 : index
    vector.store %y, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.return
  }
}

// -----

// silu is x / (1 + 2^(-x log2 e)): 2^y by the hardware's ex2.approx.ftz.f32 and
// the reciprocal by rcp.approx.ftz, element by element (no libdevice call).
// CHECK-LABEL: gpu.func @silu
// CHECK: %[[POWER:.*]] = arith.mulf %[[X:.*]], %{{.*}} : vector<4xf32>
// CHECK: %[[P0:.*]] = vector.extract %[[POWER]][0]
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[P0]]) : (f32) -> f32
// CHECK-COUNT-3: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: %[[DEN:.*]] = arith.addf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: %[[D0:.*]] = vector.extract %[[DEN]][0]
// CHECK: nvvm.rcp.approx.ftz.f %[[D0]] : f32
// CHECK-COUNT-3: nvvm.rcp.approx.ftz.f
// CHECK: arith.mulf %[[X]], %{{.*}} : vector<4xf32>
gpu.module @m {
  gpu.func @silu(%x: vector<4xf32>, %out: memref<4xf32>) kernel {
    %y = spio.activation silu %x : vector<4xf32>
    %c0 = arith.constant 0 : index
    vector.store %y, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.return
  }
}

// -----

// gelu_tanh is 0.5 x tanh(u) + 0.5 x, u = x (c + 0.044715 c x^2),
// c = sqrt(2 / pi), tanh by llvm.tanh with afn (tanh.approx.f32).
// CHECK-LABEL: gpu.func @gelu_tanh
// CHECK-DAG: %[[C3:.*]] = arith.constant 0.0356774069 : f32
// CHECK-DAG: %[[SQ:.*]] = arith.mulf %[[X:.*]], %[[X]] : f32
// CHECK-DAG: %[[C:.*]] = arith.constant 0.797884583 : f32
// CHECK: %[[POLY:.*]] = llvm.intr.fma(%[[SQ]], %[[C3]], %[[C]])
// CHECK: %[[U:.*]] = arith.mulf %[[X]], %[[POLY]] : f32
// CHECK: %[[HALF:.*]] = arith.mulf %[[X]], %{{.*}} : f32
// CHECK: %[[T:.*]] = llvm.intr.tanh(%[[U]]) {fastmathFlags = #llvm.fastmath<afn>} : (f32) -> f32
// CHECK: llvm.intr.fma(%[[HALF]], %[[T]], %[[HALF]])
// CHECK-NOT: ex2
gpu.module @m {
  gpu.func @gelu_tanh(%x: f32, %out: memref<1xf32>) kernel {
    %y = spio.activation gelu_tanh %x : f32
    %c0 = arith.constant 0 : index
    memref.store %y, %out[%c0] : memref<1xf32>
    gpu.return
  }
}

// -----

// gelu_erf is 0.5 x (1 + erf(x / sqrt(2))), erf by a polynomial below
// 0.9277 and 1 - e^p(|x|) above, chosen by a select.
// CHECK-LABEL: gpu.func @gelu_erf
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: %[[BIG:.*]] = arith.cmpf ogt, %{{.*}}, %{{.*}} : f32
// CHECK: %[[ERF:.*]] = arith.select %[[BIG]], %{{.*}}, %{{.*}} : f32
// CHECK: arith.addf %[[ERF]], %{{.*}} : f32
gpu.module @m {
  gpu.func @gelu_erf(%x: f32, %out: memref<1xf32>) kernel {
    %y = spio.activation gelu_erf %x : f32
    %c0 = arith.constant 0 : index
    memref.store %y, %out[%c0] : memref<1xf32>
    gpu.return
  }
}
