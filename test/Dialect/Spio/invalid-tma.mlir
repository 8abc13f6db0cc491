// RUN: spio-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{a tensor map joins a global tensor and a shared box, got shared and shared}}
func.func private @spaces(!spio.tensor_map<!spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>)

// -----

// expected-error @below {{the box holds the global tensor's 'vector<8xbf16>', got 'vector<8xf16>'}}
func.func private @elements(!spio.tensor_map<!spio.tensor<[i: 256, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[i: 128, k/8: 8] x vector<8xf16>, shared, #spio.xor_swizzle<3, 0, 3>>>)

// -----

// expected-error @below {{a tensor map's global tensor and box are both [rows, vectors/8] of the same two dimensions, vectors contiguous}}
func.func private @dims(!spio.tensor_map<!spio.tensor<[i: 256, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[j: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>)

// -----

// f32's vectors hold 4 elements.
// expected-error @below {{a tensor map's global tensor and box are both [rows, vectors/4] of the same two dimensions, vectors contiguous}}
func.func private @f32_fold(!spio.tensor_map<!spio.tensor<[i: 256, k/8: 8] x vector<4xf32>, global>, !spio.tensor<[i: 128, k/8: 8] x vector<4xf32>, shared, #spio.xor_swizzle<3, 0, 3>>>)

// -----

// expected-error @below {{a tensor map holds vector<8xf16> or vector<8xbf16> or vector<4xf32>, got 'vector<2xf32>'}}
func.func private @short_vectors(!spio.tensor_map<!spio.tensor<[i: 256, k/2: 8] x vector<2xf32>, global>, !spio.tensor<[i: 128, k/2: 8] x vector<2xf32>, shared, #spio.xor_swizzle<3, 0, 3>>>)

// -----

// expected-error @below {{a tensor map's box is 1 to 256 rows of 8 vectors (128 bytes) in the 128-byte swizzle, #spio.xor_swizzle<3, 0, 3>}}
func.func private @unswizzled(!spio.tensor_map<!spio.tensor<[i: 256, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared>>)

// -----

// expected-error @below {{a tensor map's box is 1 to 256 rows of 8 vectors (128 bytes) in the 128-byte swizzle, #spio.xor_swizzle<3, 0, 3>}}
func.func private @tall(!spio.tensor_map<!spio.tensor<[i: 1024, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[i: 512, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>)

// -----

!Map = !spio.tensor_map<!spio.tensor<[i: 256, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @coordinate_order(%map: !Map, %i: !spio.coord<i/128>, %k: !spio.coord<k/64>, %slot: index) {
  %tile = spio.alloc : !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
  %bars = spio.barrier_alloc : !spio.barriers<1>
  // expected-error @below {{'spio.tma_load' op coordinates follow the global tensor's entries: expected 'i', got 'k/64'}}
  spio.tma_load %map[%k, %i], %tile[], %bars[%slot]
      : !Map[!spio.coord<k/64>, !spio.coord<i/128>], !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>, !spio.barriers<1>
  return
}

// -----

!Map = !spio.tensor_map<!spio.tensor<[i: 256, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @unaligned(%map: !Map, %i: !spio.coord<i>, %k: !spio.coord<k>, %slot: index) {
  %tile = spio.alloc : !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
  %bars = spio.barrier_alloc : !spio.barriers<1>
  // expected-error @below {{'spio.tma_load' op the box's origin must fall on a 16-byte vector: 'k' is not a multiple of 'k/8'}}
  spio.tma_load %map[%i, %k], %tile[], %bars[%slot]
      : !Map[!spio.coord<i>, !spio.coord<k>], !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>, !spio.barriers<1>
  return
}

// -----

!Map = !spio.tensor_map<!spio.tensor<[i: 256, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @wrong_tile(%map: !Map, %i: !spio.coord<i/128>, %k: !spio.coord<k/64>, %slot: index) {
  %tile = spio.alloc : !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
  %bars = spio.barrier_alloc : !spio.barriers<1>
  // expected-error @below {{'spio.tma_load' op the destination's coordinates must select a tile of the box's type}}
  spio.tma_load %map[%i, %k], %tile[], %bars[%slot]
      : !Map[!spio.coord<i/128>, !spio.coord<k/64>], !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>, !spio.barriers<1>
  return
}

// -----

!Map = !spio.tensor_map<!spio.tensor<[i: 256, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @barrier_index(%map: !Map, %i: !spio.coord<i/128>, %k: !spio.coord<k/64>) {
  %tile = spio.alloc : !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
  %bars = spio.barrier_alloc : !spio.barriers<2>
  %two = arith.constant 2 : index
  // expected-error @below {{'spio.tma_load' op barrier index 2 is outside the group of 2}}
  spio.tma_load %map[%i, %k], %tile[], %bars[%two]
      : !Map[!spio.coord<i/128>, !spio.coord<k/64>], !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>, !spio.barriers<2>
  return
}

// -----

func.func @expect_nothing(%i: index) {
  %bars = spio.barrier_alloc : !spio.barriers<2>
  // expected-error @below {{'spio.barrier_expect_tx' op attribute 'bytes' failed to satisfy constraint}}
  spio.barrier_expect_tx %bars[%i], bytes 0 : !spio.barriers<2>
  return
}

// -----

func.func @registers() {
  // expected-error @below {{'spio.set_max_registers' op register counts are multiples of 8, got 100}}
  spio.set_max_registers increase 100
  return
}

// -----

func.func @too_many_registers() {
  // expected-error @below {{'spio.set_max_registers' op attribute 'count' failed to satisfy constraint}}
  spio.set_max_registers increase 264
  return
}

// -----

!Map = !spio.tensor_map<!spio.tensor<[i: 256, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @multicast_to_one(%map: !Map, %i: !spio.coord<i/128>, %k: !spio.coord<k/64>, %slot: index) {
  %tile = spio.alloc : !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
  %bars = spio.barrier_alloc : !spio.barriers<1>
  // expected-error @below {{'spio.tma_load' op attribute 'multicast' failed to satisfy constraint}}
  spio.tma_load %map[%i, %k], %tile[], %bars[%slot] multicast 1
      : !Map[!spio.coord<i/128>, !spio.coord<k/64>], !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>, !spio.barriers<1>
  return
}

// -----

// expected-error @below {{a tensor map's global rows are dense (stride 8), got stride 16}}
func.func private @strided_rows(!spio.tensor_map<!spio.tensor<[i: 256:16, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>)

// -----

!Map = !spio.tensor_map<!spio.tensor<[i: 256, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @one_coordinate(%map: !Map, %i: !spio.coord<i/128>, %slot: index) {
  %tile = spio.alloc : !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
  %bars = spio.barrier_alloc : !spio.barriers<1>
  // expected-error @below {{'spio.tma_load' op takes one coordinate per entry of the map's global tensor (2), got 1}}
  spio.tma_load %map[%i], %tile[], %bars[%slot]
      : !Map[!spio.coord<i/128>], !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>, !spio.barriers<1>
  return
}

// -----

!Map = !spio.tensor_map<!spio.tensor<[i: 256, k/8: 8] x vector<8xbf16>, global>, !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>>
func.func @to_global(%map: !Map, %i: !spio.coord<i/128>, %k: !spio.coord<k/64>, %slot: index,
                     %out: !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, global>) {
  %bars = spio.barrier_alloc : !spio.barriers<1>
  // expected-error @below {{'spio.tma_load' op copies to shared memory, but the destination is in global memory}}
  spio.tma_load %map[%i, %k], %out[], %bars[%slot]
      : !Map[!spio.coord<i/128>, !spio.coord<k/64>], !spio.tensor<[i: 128, k/8: 8] x vector<8xbf16>, global>, !spio.barriers<1>
  return
}
