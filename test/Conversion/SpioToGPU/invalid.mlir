// RUN: spio-opt %s -split-input-file --convert-spio-to-gpu -verify-diagnostics

!S = !spio.tensor<[i: 16] x f32, shared>

gpu.module @m {
  // expected-error @below {{'gpu.func' op argument #0 is a shared tensor; only global tensors can be kernel arguments}}
  gpu.func @shared_argument(%s: !S) kernel {
    gpu.return
  }
}

// -----

!G = !spio.tensor<[i: 16] x f32, global>

func.func @tensor_through_loop(%g: !G, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = spio.constant 1 : !spio.coord<i>
  %t = scf.for %iv = %c0 to %n step %c1 iter_args(%cur = %g) -> (!G) {
    // expected-error @below {{'spio.subscript' op uses a tensor that does not come from a kernel argument or spio.alloc through spio.subscript/spio.rebase; tensors cannot flow through block arguments, loops or calls}}
    %next = spio.subscript %cur[%one] : !G[!spio.coord<i>]
    scf.yield %next : !G
  }
  %zero = spio.constant 0 : !spio.coord<i>
  %v = spio.load %t[%zero] : !G[!spio.coord<i>]
  return %v : f32
}

// -----

gpu.module @m {
  gpu.func @view_of_cursor(%y: !spio.tensor<[p: 4, k: 16] x f16, global>, %x: f16) kernel {
    %p = spio.constant 1 : !spio.coord<p>
    %c = spio.subscript %y[%p] : !spio.tensor<[p: 4, k: 16] x f16, global>[!spio.coord<p>]
    // expected-error @below {{'spio.view' op views a subscripted or rebased cursor; view the kernel argument or the allocation itself}}
    %v = spio.view %c : !spio.tensor<[p: 4, k: 16] x f16, global> to !spio.tensor<[p: 4, k/8: 2] x vector<8xf16>, global>
    gpu.return
  }
}

// -----

// A graph region (a module's body) lets an op use its own result; such a
// value has no lowering.
// expected-error @below {{'spio.mod' op uses its own result, directly or through other ops of a graph region; a kernel's values are defined before they are used}}
%m = spio.mod %m, 9 : !spio.coord<k/8>

// -----

// expected-error @below {{'spio.unfold' op uses its own result, directly or through other ops of a graph region}}
%p = spio.unfold %q : !spio.coord<k/2> to !spio.coord<k/2>
%q = spio.unfold %p : !spio.coord<k/2> to !spio.coord<k/2>
