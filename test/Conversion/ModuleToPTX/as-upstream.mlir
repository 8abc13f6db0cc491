// A module of kernels without wgmma compiles to the PTX upstream's
// gpu-module-to-binary gives (its O pipeline, then NVPTX code generation).
// RUN: spio-opt %s --gpu-module-to-binary=format=isa | grep -o 'assembly = ".*"' > %t.upstream
// RUN: spio-opt %s --spio-module-to-ptx | grep -o 'assembly = ".*"' > %t.spio
// RUN: diff %t.upstream %t.spio
// RUN: FileCheck %s < %t.spio

// CHECK: .entry scale(
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    llvm.func @scale(%p: !llvm.ptr<1>, %n: i64, %v: f32) attributes {nvvm.kernel} {
      %c0 = llvm.mlir.constant(0 : i64) : i64
      %c1 = llvm.mlir.constant(1 : i64) : i64
      llvm.br ^loop(%c0 : i64)
    ^loop(%i: i64):
      %more = llvm.icmp "slt" %i, %n : i64
      llvm.cond_br %more, ^body, ^exit
    ^body:
      %q = llvm.getelementptr %p[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %x = llvm.load %q : !llvm.ptr<1> -> f32
      %y = llvm.fmul %x, %v : f32
      llvm.store %y, %q : f32, !llvm.ptr<1>
      %next = llvm.add %i, %c1 : i64
      llvm.br ^loop(%next : i64)
    ^exit:
      llvm.return
    }
  }
}
