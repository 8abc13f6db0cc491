// RUN: spio-opt %s -split-input-file -verify-diagnostics

!G = !spio.tensor<[i: 64] x f32, global>

func.func @load_remote_global(%a: !G, %i: !spio.coord<i>, %rank: index) {
  // expected-error @below {{'spio.load_remote' op reads another block's shared memory, but the tensor is in global memory}}
  %0 = spio.load_remote %a[%i] block %rank : !G[!spio.coord<i>]
  return
}

// -----

!V = !spio.tensor<[i: 64] x vector<8xf32>, shared>

func.func @load_remote_wide_vector(%i: !spio.coord<i>, %rank: index) {
  %a = spio.alloc : !V
  // expected-error @below {{'spio.load_remote' op loads one integer or float element or a vector of them up to 16 bytes, not 'vector<8xf32>'}}
  %0 = spio.load_remote %a[%i] block %rank : !V[!spio.coord<i>]
  return
}

// -----

!S = !spio.tensor<[i: 64] x f32, shared>

func.func @load_remote_missing_dimension(%j: !spio.coord<j>, %rank: index) {
  %a = spio.alloc : !S
  // expected-error @below {{'spio.load_remote' op load_remote: tensor has no dimension 'j' (it has i); project it explicitly to ignore it}}
  %0 = spio.load_remote %a[%j] block %rank : !S[!spio.coord<j>]
  return
}

// -----

func.func @overlay_registers() {
  // expected-error @below {{'spio.alloc' op overlays shared tensors only, not a register one}}
  %a = spio.alloc overlay : !spio.tensor<[i: 4] x f32, register>
  return
}
