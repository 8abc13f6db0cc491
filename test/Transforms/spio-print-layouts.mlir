// RUN: spio-opt %s --spio-print-layouts -o /dev/null | FileCheck %s

// Folds of one dimension and explicit strides. Types print in order of first
// appearance: the argument's before the alloc's.
// CHECK-LABEL: layout of !spio.tensor<[k/8: 2, k: 8:3] x f32, global>
// CHECK-NEXT: k/8: size 2, stride 8
// CHECK-NEXT: k: size 8, stride 3
// CHECK-NEXT: storage: 30 elements of 4 bytes
// CHECK-NEXT: offsets [k/8 x k]:
// CHECK-NEXT:    0    3    6    9   12   15   18   21
// CHECK-NEXT:    8   11   14   17   20   23   26   29
//
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
func.func @f(%a: !spio.tensor<[k/8: 2, k: 8:3] x f32, global>) {
  %s = spio.alloc : !spio.tensor<[i: 16, c: 2] x vector<8xf16>, shared, #spio.checkerboard<8>>
  return
}

// One entry: a single row. Grids past 32 x 32 say where they were cut.
// CHECK-LABEL: layout of !spio.tensor<[n: 40] x f16, global>
// CHECK:      offsets [- x n] (first 1 x 32 of 1 x 40):
// CHECK-NEXT:    0    1    2 {{.*}}   30   31{{$}}
// CHECK-LABEL: layout of !spio.tensor<[r: 40, q: 33] x f16, global>
// CHECK:      offsets [r x q] (first 32 x 32 of 40 x 33):
// CHECK-NEXT:    0    1 {{.*}}   31{{$}}
// CHECK-NEXT:   33   34 {{.*}}   64{{$}}
// CHECK-COUNT-29: {{^ +[0-9 ]+$}}
// CHECK-NEXT: 1023 1024 {{.*}} 1054{{$}}
// CHECK-NOT: {{[0-9]}}
func.func @g(%v: !spio.tensor<[n: 40] x f16, global>, %w: !spio.tensor<[r: 40, q: 33] x f16, global>) {
  return
}
