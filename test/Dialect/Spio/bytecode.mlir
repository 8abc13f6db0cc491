// Spio IR through bytecode (the dialect writes its version; attributes and
// types go in their textual form): each roundtrip test's IR reads back from
// bytecode printing as it does from text.
// RUN: for f in async barriers clusters conv2d-gw8 coords fragments gemm tensors tma warpgroup; do \
// RUN:   spio-opt %S/$f.mlir > %t.$f.text && \
// RUN:   spio-opt %S/$f.mlir --emit-bytecode | spio-opt > %t.$f.bytecode && \
// RUN:   diff %t.$f.text %t.$f.bytecode || exit 1; \
// RUN: done
// RUN: spio-opt %S/gemm.mlir --emit-bytecode | spio-opt | FileCheck %s

// CHECK: spio.gemm
