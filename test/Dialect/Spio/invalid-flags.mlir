// RUN: spio-opt %s -split-input-file -verify-diagnostics

func.func @signal_shared(%i: !spio.coord<sk>) {
  %flags = spio.alloc : !spio.tensor<[sk: 8] x i32, shared>
  %set = arith.constant 1 : i32
  // expected-error @below {{'spio.signal' op flags blocks of the grid through global memory, but the tensor is in shared memory}}
  spio.signal %set, %flags[%i] : !spio.tensor<[sk: 8] x i32, shared>[!spio.coord<sk>]
  return
}

// -----

func.func @wait_on_floats(%flags: !spio.tensor<[sk: 8] x f32, global>, %i: !spio.coord<sk>) {
  %set = arith.constant 1 : i32
  // expected-error @below {{'spio.wait_signal' op flags are i32, but the tensor holds 'f32'}}
  spio.wait_signal %set, %flags[%i] : !spio.tensor<[sk: 8] x f32, global>[!spio.coord<sk>]
  return
}

// -----

func.func @signal_missing_dimension(%flags: !spio.tensor<[sk: 8] x i32, global>, %j: !spio.coord<j>) {
  %set = arith.constant 1 : i32
  // expected-error @below {{'spio.signal' op signal: tensor has no dimension 'j' (it has sk); project it explicitly to ignore it}}
  spio.signal %set, %flags[%j] : !spio.tensor<[sk: 8] x i32, global>[!spio.coord<j>]
  return
}

