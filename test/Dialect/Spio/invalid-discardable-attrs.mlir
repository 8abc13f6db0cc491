// RUN: spio-opt %s -split-input-file -verify-diagnostics

func.func @stages_not_integer(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{'scf.for' op spio.stages must be an integer from 1 to 32, got "x"}}
  scf.for %iv = %c0 to %n step %c1 {
  } {spio.stages = "x"}
  return
}

// -----

func.func @stages_past_shared_memory(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{'scf.for' op spio.stages must be an integer from 1 to 32, got 9223372036854775807 : i64}}
  scf.for %iv = %c0 to %n step %c1 {
  } {spio.stages = 9223372036854775807}
  return
}

// -----

func.func @stages_zero(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{'scf.for' op spio.stages must be an integer from 1 to 32, got 0 : i64}}
  scf.for %iv = %c0 to %n step %c1 {
  } {spio.stages = 0}
  return
}

// -----

func.func @stages_unsigned(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{'scf.for' op spio.stages must be an integer from 1 to 32, got 3 : ui8}}
  scf.for %iv = %c0 to %n step %c1 {
  } {spio.stages = 3 : ui8}
  return
}

// -----

// expected-error @below {{'func.func' op carries spio.stages, but only loops are pipelined}}
func.func private @stages_not_loop() attributes {spio.stages = 2}

// -----

// expected-error @below {{'func.func' op spio.shared_memory_bytes must be a non-negative integer, got -16 : i64}}
func.func private @negative_shared() attributes {spio.shared_memory_bytes = -16}

// -----

// expected-error @below {{'func.func' op has unknown spio attribute 'spio.stage' (known: spio.stages, spio.shared_memory_bytes, spio.offset_bits, spio.next_stage, spio.grid_constant_params)}}
func.func private @misspelled() attributes {spio.stage = 2}

// -----

// expected-error @below {{'func.func' op spio.offset_bits must be 32 or 64, got 16 : i64}}
func.func private @narrow_offsets() attributes {spio.offset_bits = 16}

// -----

func.func @offset_bits_not_function(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{'scf.for' op carries spio.offset_bits, but only functions take it}}
  scf.for %iv = %c0 to %n step %c1 {
  } {spio.offset_bits = 32}
  return
}

// -----

func.func @next_stage_not_a_store(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{'scf.for' op carries spio.next_stage, but only a spio.store writes the next stage of a pipelined tensor}}
  scf.for %iv = %c0 to %n step %c1 {
  } {spio.next_stage}
  return
}

// -----

!S = !spio.tensor<[i: 32] x vector<8xf16>, shared>

func.func @next_stage_not_unit(%s: !S, %v: vector<8xf16>, %i: !spio.coord<i>) {
  // expected-error @below {{'spio.store' op spio.next_stage must be a unit attribute, got 1 : i64}}
  spio.store %v, %s[%i] {spio.next_stage = 1} : !S[!spio.coord<i>]
  return
}

// -----

// expected-error @below {{spio.grid_constant_params must list arguments of a function, got array<i64: 1>}}
func.func @grid_constant_past_the_arguments(%a: !llvm.ptr) attributes {spio.grid_constant_params = array<i64: 1>} {
  return
}
