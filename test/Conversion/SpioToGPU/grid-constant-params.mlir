// RUN: spio-opt %s --spio-grid-constant-params | FileCheck %s

// The listed parameters become 128-byte by-value grid constants; the others
// are left alone, and the list goes.
// CHECK-LABEL: llvm.func @kernel
// CHECK-SAME: %{{[a-z0-9]+}}: !llvm.ptr<1>,
// CHECK-SAME: %{{[a-z0-9]+}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// CHECK-SAME: %{{[a-z0-9]+}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// CHECK-NOT: spio.grid_constant_params
llvm.func @kernel(%out: !llvm.ptr<1>, %a: !llvm.ptr {llvm.align = 64 : i64}, %b: !llvm.ptr)
    attributes {nvvm.kernel, spio.grid_constant_params = array<i64: 1, 2>} {
  llvm.return
}

// CHECK-LABEL: llvm.func @plain
// CHECK-SAME: (%{{[a-z0-9]+}}: !llvm.ptr)
llvm.func @plain(%p: !llvm.ptr) attributes {nvvm.kernel} {
  llvm.return
}
