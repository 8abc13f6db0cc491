// RUN: spio-opt %s --spio-module-to-ptx -split-input-file -verify-diagnostics

module attributes {gpu.container_module} {
  // expected-error @+1 {{expected one #nvvm.target on the gpu.module}}
  gpu.module @untargeted {
    llvm.func @kernel() attributes {nvvm.kernel} {
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{expected one #nvvm.target on the gpu.module}}
  gpu.module @two [#nvvm.target<chip = "sm_80">, #nvvm.target<chip = "sm_90">] {
    llvm.func @kernel() attributes {nvvm.kernel} {
      llvm.return
    }
  }
}
