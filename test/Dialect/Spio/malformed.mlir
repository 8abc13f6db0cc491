// Truncated and malformed spio syntax is reported at its location.
// RUN: not spio-opt %s -split-input-file 2>&1 | FileCheck %s

// CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected '[' in tensor dimension list
func.func private @f(!spio.tensor<i: 4 x f16, global>)

// -----

// CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected 'x'
func.func private @f(!spio.tensor<[i: 4] f16, global>)

// -----

// CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected ':'
func.func private @f(!spio.tensor<[i 4] x f16, global>)

// -----

// CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected integer value
func.func private @f(!spio.coord<k/>)

// -----

// CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected '<'
func.func private @f(!spio.fragment)

// -----

// CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: unknown type `dims` in dialect `spio`
func.func private @f(!spio.dims<i>)

// -----

func.func @f() {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected attribute value
  %0 = spio.constant : !spio.coord<i>
  return
}

// -----

func.func @f() {
  // CHECK: malformed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: 'spio.constant' op result #0 must be typed coordinate, but got 'i64'
  %0 = spio.constant 3 : i64
  return
}
