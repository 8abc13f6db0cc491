// RUN: spio-opt %s --spio-module-to-ptx | sed 's/\\0A/\n/g' | FileCheck %s

// Each gpu.module becomes a gpu.binary of the same name holding its PTX.
// O's pipeline unrolls a loop of constant trip count (no branch is left);
// with O = 0 the IR passes do not run and the loop stays.

module attributes {gpu.container_module} {
  // CHECK-LABEL: gpu.binary @unrolled
  // CHECK-SAME: [#gpu.object<#nvvm.target<chip = "sm_90a", features = "+ptx80">, assembly =
  // CHECK: .target sm_90a
  // CHECK: .entry store4(
  // CHECK-COUNT-4: st.global.{{(b|f)}}32
  // CHECK-NOT: bra
  // CHECK: ret;
  gpu.module @unrolled [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
    llvm.func @store4(%p: !llvm.ptr<1>, %v: f32) attributes {nvvm.kernel} {
      %c0 = llvm.mlir.constant(0 : i64) : i64
      %c1 = llvm.mlir.constant(1 : i64) : i64
      %c4 = llvm.mlir.constant(4 : i64) : i64
      llvm.br ^loop(%c0 : i64)
    ^loop(%i: i64):
      %more = llvm.icmp "slt" %i, %c4 : i64
      llvm.cond_br %more, ^body, ^exit
    ^body:
      %q = llvm.getelementptr %p[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %v, %q : f32, !llvm.ptr<1>
      %next = llvm.add %i, %c1 : i64
      llvm.br ^loop(%next : i64)
    ^exit:
      llvm.return
    }
  }

  // CHECK-LABEL: gpu.binary @kept
  // CHECK-SAME: #nvvm.target<O = 0, chip = "sm_80">
  // CHECK: .target sm_80
  // CHECK: .entry store_kept(
  // CHECK: st.global.{{(b|f)}}32
  // CHECK: bra
  gpu.module @kept [#nvvm.target<O = 0, chip = "sm_80">] {
    llvm.func @store_kept(%p: !llvm.ptr<1>, %v: f32) attributes {nvvm.kernel} {
      %c0 = llvm.mlir.constant(0 : i64) : i64
      %c1 = llvm.mlir.constant(1 : i64) : i64
      %c4 = llvm.mlir.constant(4 : i64) : i64
      llvm.br ^loop(%c0 : i64)
    ^loop(%i: i64):
      %more = llvm.icmp "slt" %i, %c4 : i64
      llvm.cond_br %more, ^body, ^exit
    ^body:
      %q = llvm.getelementptr %p[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %v, %q : f32, !llvm.ptr<1>
      %next = llvm.add %i, %c1 : i64
      llvm.br ^loop(%next : i64)
    ^exit:
      llvm.return
    }
  }

  // A module of wgmma kernels gets function simplification, which leaves a
  // loop of runtime trip count whole; O's pipeline unrolls the same loop
  // in a module without wgmma (a store per copy of the body).
  // CHECK-LABEL: gpu.binary @wgmma
  // CHECK: .entry scale_wgmma(
  // CHECK: wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16
  // CHECK: st.global
  // CHECK-NOT: st.global
  // CHECK-LABEL: gpu.binary @fenced
  // CHECK: .entry scale_fenced(
  // CHECK: membar.gl
  // CHECK-COUNT-4: st.global
  gpu.module @wgmma [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
    llvm.func @scale_wgmma(%p: !llvm.ptr<1>, %n: i64, %v: f32) attributes {nvvm.kernel} {
      llvm.inline_asm has_side_effects "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16;", "" : () -> ()
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

  gpu.module @fenced [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
    llvm.func @scale_fenced(%p: !llvm.ptr<1>, %n: i64, %v: f32) attributes {nvvm.kernel} {
      llvm.inline_asm has_side_effects "membar.gl;", "" : () -> ()
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
