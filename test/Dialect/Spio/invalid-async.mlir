// RUN: spio-opt %s -split-input-file -verify-diagnostics

!S = !spio.tensor<[i: 64, k/8: 4] x vector<8xf16>, shared>

func.func @copy_from_shared(%a: !S, %b: !S) {
  // expected-error @below {{'spio.async_copy' op copies from global memory, but the source is in shared memory}}
  spio.async_copy %a[] to %b[] : !S to !S
  return
}

// -----

!G = !spio.tensor<[i: 64, k/8: 4] x vector<8xf16>, global>

func.func @copy_to_global(%a: !G, %b: !G) {
  // expected-error @below {{'spio.async_copy' op copies to shared memory, but the destination is in global memory}}
  spio.async_copy %a[] to %b[] : !G to !G
  return
}

// -----

!G = !spio.tensor<[i: 64, k/4: 8] x vector<4xf16>, global>
!S = !spio.tensor<[i: 64, k/4: 8] x vector<4xf16>, shared>

func.func @copy_eight_bytes(%g: !G, %s: !S) {
  // expected-error @below {{'spio.async_copy' op moves 16 bytes per thread, but 'vector<4xf16>' is 8 bytes}}
  spio.async_copy %g[] to %s[] : !G to !S
  return
}

// -----

!G = !spio.tensor<[i: 64, k: 32] x f16, global>
!S = !spio.tensor<[i: 64, k: 32] x f16, shared>

func.func @copy_scalars(%g: !G, %s: !S) {
  // expected-error @below {{'spio.async_copy' op moves 16 bytes per thread, but 'f16' is 2 bytes}}
  spio.async_copy %g[] to %s[] : !G to !S
  return
}

// -----

!G = !spio.tensor<[i: 64, k/8: 4] x vector<8xf16>, global>
!S = !spio.tensor<[i: 64, k/8: 4] x vector<4xf32>, shared>

func.func @copy_changes_type(%g: !G, %s: !S) {
  // expected-error @below {{'spio.async_copy' op source element 'vector<8xf16>' differs from destination element 'vector<4xf32>'}}
  spio.async_copy %g[] to %s[] : !G to !S
  return
}

// -----

!G = !spio.tensor<[i: 64, k/8: 4] x vector<8xf16>, global>
!S = !spio.tensor<[i: 64, k/8: 4] x vector<8xf16>, shared>

func.func @copy_bad_source_coordinate(%g: !G, %s: !S, %j: !spio.coord<j>) {
  // expected-error @below {{'spio.async_copy' op source: tensor has no dimension 'j' (it has i, k/8); project it explicitly to ignore it}}
  spio.async_copy %g[%j] to %s[] : !G[!spio.coord<j>] to !S
  return
}

// -----

!G = !spio.tensor<[i: 64, k/8: 4] x vector<8xf16>, global>
!S = !spio.tensor<[i: 64, k/8: 4] x vector<8xf16>, shared>

func.func @copy_truncating_destination(%g: !G, %s: !S, %k: !spio.coord<k>) {
  // expected-error @below {{'spio.async_copy' op destination: coordinate 'k' is finer than the tensor's finest entry 'k/8' and would be truncated; fold it explicitly}}
  spio.async_copy %g[] to %s[%k] : !G to !S[!spio.coord<k>]
  return
}

// -----

!G = !spio.tensor<[i: 64, k/8: 4] x vector<8xf16>, global>
!S = !spio.tensor<[i: 64, k/8: 4] x vector<8xf16>, shared>

// expected-note @below {{prior use here}}
func.func @copy_predicate_type(%g: !G, %s: !S, %p: i32) {
  // expected-error @below {{use of value '%p' expects different type than prior uses: 'i1' vs 'i32'}}
  spio.async_copy %g[] to %s[] in_bounds %p : !G to !S
  return
}

// -----

func.func @wait_negative() {
  // expected-error @below {{'spio.async_wait' op attribute 'pending' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  spio.async_wait -1
  return
}
