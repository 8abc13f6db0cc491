// RUN: spio-opt %s -split-input-file --spio-pipeline -verify-diagnostics
// RUN: not spio-opt %s -split-input-file --spio-pipeline=stages=-1 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not spio-opt %s -split-input-file --spio-pipeline=stages=1 2>&1 | FileCheck %s --check-prefix=ONE

// OPTION: error: spio-pipeline: the stages option must be at least 0, got -1
// ONE: error: spio-pipeline: a loop whose stores hand tiles on to the next iteration (spio.next_stage) needs 2 stages or more

gpu.module @m {
  gpu.func @no_wait(%g: !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>, %n: index) kernel {
    %s = spio.alloc : !spio.tensor<[i: 32] x vector<8xf16>, shared>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i = spio.constant 0 : !spio.coord<i>
    // expected-error @below {{spio-pipeline needs a loop of async copies, one spio.async_commit, spio.async_wait 0 (then spio.fence_proxy_async where the async proxy reads), gpu.barrier, compute and a final gpu.barrier}}
    scf.for %iv = %c0 to %n step %c1 {
      %t = spio.from_index %iv : !spio.coord<t>
      spio.async_copy %g[%t, %i] to %s[%i] : !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>[!spio.coord<t>, !spio.coord<i>] to !spio.tensor<[i: 32] x vector<8xf16>, shared>[!spio.coord<i>]
      spio.async_commit
      gpu.barrier
    } {spio.stages = 3}
    gpu.return
  }
}

// -----

// One barrier cannot be both the wait's and the trailing one.
gpu.module @m {
  gpu.func @one_barrier(%g: !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>, %n: index) kernel {
    %s = spio.alloc : !spio.tensor<[i: 32] x vector<8xf16>, shared>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i = spio.constant 0 : !spio.coord<i>
    // expected-error @below {{spio-pipeline needs a loop of async copies, one spio.async_commit, spio.async_wait 0 (then spio.fence_proxy_async where the async proxy reads), gpu.barrier, compute and a final gpu.barrier}}
    scf.for %iv = %c0 to %n step %c1 {
      %t = spio.from_index %iv : !spio.coord<t>
      spio.async_copy %g[%t, %i] to %s[%i] : !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>[!spio.coord<t>, !spio.coord<i>] to !spio.tensor<[i: 32] x vector<8xf16>, shared>[!spio.coord<i>]
      spio.async_commit
      spio.async_wait 0
      gpu.barrier
    } {spio.stages = 2}
    gpu.return
  }
}

// -----

// Two commit groups a loop: the ring keeps one per iteration.
gpu.module @m {
  gpu.func @two_commits(%g: !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>, %n: index) kernel {
    %s = spio.alloc : !spio.tensor<[i: 32] x vector<8xf16>, shared>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i = spio.constant 0 : !spio.coord<i>
    // expected-error @below {{spio-pipeline needs a loop of async copies, one spio.async_commit, spio.async_wait 0 (then spio.fence_proxy_async where the async proxy reads), gpu.barrier, compute and a final gpu.barrier}}
    scf.for %iv = %c0 to %n step %c1 {
      %t = spio.from_index %iv : !spio.coord<t>
      spio.async_copy %g[%t, %i] to %s[%i] : !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>[!spio.coord<t>, !spio.coord<i>] to !spio.tensor<[i: 32] x vector<8xf16>, shared>[!spio.coord<i>]
      spio.async_commit
      spio.async_commit
      spio.async_wait 0
      gpu.barrier
      %v = spio.load %s[%i] : !spio.tensor<[i: 32] x vector<8xf16>, shared>[!spio.coord<i>]
      gpu.barrier
    } {spio.stages = 2}
    gpu.return
  }
}

// -----

// The compute may sync, but the wait must be followed by the barrier that
// makes the copies visible.
gpu.module @m {
  gpu.func @no_barrier_after_wait(%g: !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>, %n: index) kernel {
    %s = spio.alloc : !spio.tensor<[i: 32] x vector<8xf16>, shared>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i = spio.constant 0 : !spio.coord<i>
    // expected-error @below {{spio-pipeline needs a loop of async copies, one spio.async_commit, spio.async_wait 0 (then spio.fence_proxy_async where the async proxy reads), gpu.barrier, compute and a final gpu.barrier}}
    scf.for %iv = %c0 to %n step %c1 {
      %t = spio.from_index %iv : !spio.coord<t>
      spio.async_copy %g[%t, %i] to %s[%i] : !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>[!spio.coord<t>, !spio.coord<i>] to !spio.tensor<[i: 32] x vector<8xf16>, shared>[!spio.coord<i>]
      spio.async_commit
      spio.async_wait 0
      %v = spio.load %s[%i] : !spio.tensor<[i: 32] x vector<8xf16>, shared>[!spio.coord<i>]
      gpu.barrier
      gpu.barrier
    } {spio.stages = 2}
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @used_after(%g: !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>, %n: index) kernel {
    %s = spio.alloc : !spio.tensor<[i: 32] x vector<8xf16>, shared>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i = spio.constant 0 : !spio.coord<i>
    scf.for %iv = %c0 to %n step %c1 {
      %t = spio.from_index %iv : !spio.coord<t>
      spio.async_copy %g[%t, %i] to %s[%i] : !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>[!spio.coord<t>, !spio.coord<i>] to !spio.tensor<[i: 32] x vector<8xf16>, shared>[!spio.coord<i>]
      spio.async_commit
      spio.async_wait 0
      gpu.barrier
      gpu.barrier
    } {spio.stages = 3}
    // expected-error @below {{'spio.load' op reads a pipelined shared tensor outside its loop}}
    %v = spio.load %s[%i] : !spio.tensor<[i: 32] x vector<8xf16>, shared>[!spio.coord<i>]
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @view_across_stages(%g: !spio.tensor<[t: 64, i: 3] x vector<8xf16>, global>, %n: index) kernel {
    %s = spio.alloc : !spio.tensor<[i: 3] x vector<8xf16>, shared>
    // A stage of %s is 48 bytes: the next stage's would start inside a vector.
    // expected-error @below {{'spio.view' op views a tensor that spio-pipeline multi-buffers in 32-byte elements, but a stage of it is 48 bytes}}
    %v = spio.view %s : !spio.tensor<[i: 3] x vector<8xf16>, shared> to !spio.tensor<[j: 1] x vector<16xf16>, shared>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i = spio.constant 0 : !spio.coord<i>
    %j = spio.constant 0 : !spio.coord<j>
    scf.for %iv = %c0 to %n step %c1 {
      %t = spio.from_index %iv : !spio.coord<t>
      spio.async_copy %g[%t, %i] to %s[%i] : !spio.tensor<[t: 64, i: 3] x vector<8xf16>, global>[!spio.coord<t>, !spio.coord<i>] to !spio.tensor<[i: 3] x vector<8xf16>, shared>[!spio.coord<i>]
      spio.async_commit
      spio.async_wait 0
      gpu.barrier
      %x = spio.load %v[%j] : !spio.tensor<[j: 1] x vector<16xf16>, shared>[!spio.coord<j>]
      gpu.barrier
    } {spio.stages = 3}
    gpu.return
  }
}

// -----

// A store handing a tile on to the next iteration, in a loop of 2 stages
// (here; with the stages=1 option, the RUN line above, it is refused).
gpu.module @m {
  gpu.func @hands_on(%g: !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>, %n: index) kernel {
    %s = spio.alloc : !spio.tensor<[i: 32] x vector<8xf16>, shared>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %i = spio.constant 0 : !spio.coord<i>
    %j = spio.constant 1 : !spio.coord<i>
    scf.for %iv = %c0 to %n step %c1 {
      %t = spio.from_index %iv : !spio.coord<t>
      spio.async_copy %g[%t, %j] to %s[%j] : !spio.tensor<[t: 64, i: 32] x vector<8xf16>, global>[!spio.coord<t>, !spio.coord<i>] to !spio.tensor<[i: 32] x vector<8xf16>, shared>[!spio.coord<i>]
      spio.async_commit
      spio.async_wait 0
      gpu.barrier
      %v = spio.load %s[%j] : !spio.tensor<[i: 32] x vector<8xf16>, shared>[!spio.coord<i>]
      spio.store %v, %s[%i] {spio.next_stage} : !spio.tensor<[i: 32] x vector<8xf16>, shared>[!spio.coord<i>]
      gpu.barrier
    } {spio.stages = 2}
    gpu.return
  }
}

// -----

!G = !spio.tensor<[t: 16, i: 64, k/8: 8] x vector<8xbf16>, global>
!S = !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Acc = !spio.warpgroup_acc<m64n64, f32, [i, i2]>

// A wgmma group left pending reads its stage one iteration on: 2 stages
// leave none to copy ahead into.
gpu.module @m {
  gpu.func @too_few_stages(%g: !G, %acc0: !Acc, %sb: !spio.tensor<[i2: 64, k/8: 8] x vector<8xbf16>, global>) kernel {
    %s = spio.alloc : !S
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %tid = spio.linear_id thread
    %i, %k8 = spio.decompose %tid [16, 8] : !spio.coord<i>, !spio.coord<k/8>
    // expected-error @below {{spio-pipeline: a loop that leaves 1 wgmma group(s) pending needs at least 3 stages, got 2}}
    %r = scf.for %iv = %c0 to %c16 step %c1 iter_args(%acc = %acc0) -> (!Acc) {
      %t = spio.from_index %iv : !spio.coord<t>
      %tile = spio.subscript %g[%t] : !G[!spio.coord<t>]
      spio.async_copy %tile[%i, %k8] to %s[%i, %k8] : !G[!spio.coord<i>, !spio.coord<k/8>] to !S[!spio.coord<i>, !spio.coord<k/8>]
      spio.async_commit
      spio.async_wait 0
      spio.fence_proxy_async
      gpu.barrier
      spio.wgmma_commit
      spio.wgmma_wait 1
      gpu.barrier
      scf.yield %acc : !Acc
    } {spio.stages = 2}
    gpu.return
  }
}

// -----

!G = !spio.tensor<[t: 16, i: 64, k/8: 8] x vector<8xbf16>, global>
!S = !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>

gpu.module @m {
  gpu.func @one_stage(%g: !G) kernel {
    %s = spio.alloc : !S
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %tid = spio.linear_id thread
    %i, %k8 = spio.decompose %tid [16, 8] : !spio.coord<i>, !spio.coord<k/8>
    // expected-error @below {{spio-pipeline: a loop that leaves wgmma groups pending needs 2 stages or more past them}}
    scf.for %iv = %c0 to %c16 step %c1 {
      %t = spio.from_index %iv : !spio.coord<t>
      %tile = spio.subscript %g[%t] : !G[!spio.coord<t>]
      spio.async_copy %tile[%i, %k8] to %s[%i, %k8] : !G[!spio.coord<i>, !spio.coord<k/8>] to !S[!spio.coord<i>, !spio.coord<k/8>]
      spio.async_commit
      spio.async_wait 0
      gpu.barrier
      spio.wgmma_commit
      spio.wgmma_wait 1
      gpu.barrier
    } {spio.stages = 1}
    gpu.return
  }
}
