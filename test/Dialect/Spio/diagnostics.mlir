// Bad input gives a located diagnostic and a non-zero exit, never a crash.
// RUN: not spio-opt %s 2>&1 | FileCheck %s

// CHECK: diagnostics.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'spio.load' op load: tensor has no dimension 'j' (it has i, k); project it explicitly to ignore it
func.func @f(%a: !spio.tensor<[i: 4, k: 4] x f16, global>, %j: !spio.coord<j>) -> f16 {
  %0 = spio.load %a[%j] : !spio.tensor<[i: 4, k: 4] x f16, global>[!spio.coord<j>]
  return %0 : f16
}
