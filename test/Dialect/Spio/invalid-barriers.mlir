// RUN: spio-opt %s -split-input-file -verify-diagnostics

func.func @index_past_the_group() {
  %bars = spio.barrier_alloc : !spio.barriers<4>
  %i = arith.constant 4 : index
  // expected-error @below {{'spio.barrier_arrive' op barrier index 4 is outside the group of 4}}
  spio.barrier_arrive %bars[%i] : !spio.barriers<4>
  return
}

// -----

func.func @negative_index(%p: i1) {
  %bars = spio.barrier_alloc : !spio.barriers<4>
  %i = arith.constant -1 : index
  // expected-error @below {{'spio.barrier_wait' op barrier index -1 is outside the group of 4}}
  spio.barrier_wait %bars[%i], parity %p : !spio.barriers<4>
  return
}

// -----

func.func @no_arrivals() {
  %bars = spio.barrier_alloc : !spio.barriers<4>
  %i = arith.constant 0 : index
  // expected-error @below {{'spio.barrier_init' op attribute 'arrivals' failed to satisfy constraint}}
  spio.barrier_init %bars[%i], arrivals 0 : !spio.barriers<4>
  return
}

// -----

// expected-error @below {{a barrier group holds at least one barrier, got 0}}
func.func @empty_group(%bars: !spio.barriers<0>) {
  return
}

// -----

func.func @part_of_a_warp() {
  // expected-error @below {{'spio.named_barrier' op synchronizes whole warps, but 48 threads is not a multiple of 32}}
  spio.named_barrier 1, threads 48
  return
}

// -----

func.func @block_barrier_id() {
  // expected-error @below {{'spio.named_barrier' op attribute 'id' failed to satisfy constraint}}
  spio.named_barrier 0, threads 64
  return
}
