// RUN: spio-opt %s --spio-print-layouts -o /dev/null | FileCheck %s

// A 16-row tile of two 16-byte vectors under spio's checkerboard: rows 4-7
// and 12-15 swap their pair, so a column of 8 rows covers all 8 banks.
// CHECK-LABEL: layout of !spio.tensor<[i: 16, c: 2] x vector<8xf16>, shared, #spio.checkerboard<8>>
// CHECK-NEXT: i: size 16, stride 2
// CHECK-NEXT: c: size 2, stride 1
// CHECK-NEXT: storage: 32 elements of 16 bytes; swizzle: offset ^= ((offset >> 3) & 1)
// CHECK-NEXT: offsets [i x c]:
// CHECK-NEXT:    0    1
// CHECK-NEXT:    2    3
// CHECK-NEXT:    4    5
// CHECK-NEXT:    6    7
// CHECK-NEXT:    9    8
// CHECK-NEXT:   11   10
// CHECK-NEXT:   13   12
// CHECK-NEXT:   15   14
// CHECK-NEXT:   16   17
//
// Folds of one dimension and explicit strides.
// CHECK-LABEL: layout of !spio.tensor<[k/8: 2, k: 8:3] x f32, global>
// CHECK-NEXT: k/8: size 2, stride 8
// CHECK-NEXT: k: size 8, stride 3
// CHECK-NEXT: storage: 30 elements of 4 bytes
// CHECK-NEXT: offsets [k/8 x k]:
// CHECK-NEXT:    0    3    6    9   12   15   18   21
// CHECK-NEXT:    8   11   14   17   20   23   26   29
func.func @f(%a: !spio.tensor<[k/8: 2, k: 8:3] x f32, global>) {
  %s = spio.alloc : !spio.tensor<[i: 16, c: 2] x vector<8xf16>, shared, #spio.checkerboard<8>>
  return
}
