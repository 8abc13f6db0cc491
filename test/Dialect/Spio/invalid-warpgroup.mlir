// RUN: spio-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{a warpgroup accumulator is 64 x N with N a multiple of 8 from 8 to 256, got N = 12}}
func.func @columns(%a: !spio.warpgroup_acc<m64n12, f32, [i, j]>) { return }

// -----

// expected-error @below {{warpgroup accumulators hold f32, got 'f16'}}
func.func @element(%a: !spio.warpgroup_acc<m64n16, f16, [i, j]>) { return }

// -----

// expected-error @below {{expected a warpgroup shape m64nN, got 'm16n128'}}
func.func @rows(%a: !spio.warpgroup_acc<m16n128, f32, [i, j]>) { return }

// -----

// expected-error @below {{warpgroup accumulator rows and columns must be different dimensions, both are 'i'}}
func.func @same_dims(%a: !spio.warpgroup_acc<m64n16, f32, [i, i]>) { return }

// -----

// expected-error @below {{a warpgroup accumulator has two dimensions [rows, columns], got 3}}
func.func @three_dims(%a: !spio.warpgroup_acc<m64n16, f32, [i, j, k]>) { return }

// -----

!SA = !spio.tensor<[i: 64, k/8: 16] x f32, shared, #spio.xor_swizzle<3, 0, 3>>
!SB = !spio.tensor<[j: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Acc = !spio.warpgroup_acc<m64n64, f32, [i, j]>

func.func @scalars(%a: !SA, %b: !SB, %acc: !Acc) -> !Acc {
  // expected-error @below {{'spio.wgmma' op A must hold vector<8xf16>, vector<8xbf16> or vector<4xf32> (TF32), got 'f32'}}
  %d = spio.wgmma %a[], %b[], %acc : !SA, !SB, !Acc
  return %d : !Acc
}

// -----

!SA = !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!SB = !spio.tensor<[j: 64, k/8: 8] x vector<8xbf16>, shared>
!Acc = !spio.warpgroup_acc<m64n64, f32, [i, j]>

func.func @unswizzled(%a: !SA, %b: !SB, %acc: !Acc) -> !Acc {
  // expected-error @below {{'spio.wgmma' op B must be in the 128-byte swizzle, #spio.xor_swizzle<3, 0, 3>}}
  %d = spio.wgmma %a[], %b[], %acc : !SA, !SB, !Acc
  return %d : !Acc
}

// -----

!SA = !spio.tensor<[i: 64, j/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!SB = !spio.tensor<[j: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Acc = !spio.warpgroup_acc<m64n64, f32, [i, j]>

// A's vectors run along the accumulator's columns: no reduction.
func.func @no_reduction(%a: !SA, %b: !SB, %acc: !Acc) -> !Acc {
  // expected-error @below {{'spio.wgmma' op A and B must share the reduction dimension, other than the accumulator's rows and columns, along which A's vectors run (K-major) or its rows do (MN-major)}}
  %d = spio.wgmma %a[], %b[], %acc : !SA, !SB, !Acc
  return %d : !Acc
}

// -----

!SA = !spio.tensor<[k: 64:16, i/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!SB = !spio.tensor<[j: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Acc = !spio.warpgroup_acc<m64n64, f32, [i, j]>

// An M-major A whose steps of the reduction are 256 bytes apart.
func.func @m_major_pitch(%a: !SA, %b: !SB, %acc: !Acc) -> !Acc {
  // expected-error @below {{'spio.wgmma' op A and B must share the reduction dimension, other than the accumulator's rows and columns, along which A's vectors run (K-major) or its rows do (MN-major)}}
  %d = spio.wgmma %a[], %b[], %acc : !SA, !SB, !Acc
  return %d : !Acc
}

// -----

!SA = !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!SB = !spio.tensor<[k: 8, j/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Acc = !spio.warpgroup_acc<m64n64, f32, [i, j]>

// An N-major B of 8 steps of the reduction, under a wgmma's 16.
func.func @n_major_short(%a: !SA, %b: !SB, %acc: !Acc) -> !Acc {
  // expected-error @below {{'spio.wgmma' op B must be MN-major rows of 128 bytes: its finest entries 'j/8: 8' (stride 1) and 'k' (stride 8, a multiple of 16 steps), then 'j/64' blocks a multiple of 64 vectors apart}}
  %d = spio.wgmma %a[], %b[], %acc : !SA, !SB, !Acc
  return %d : !Acc
}

// -----

!SA = !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!SB = !spio.tensor<[j/64: 2:520, k: 64, j/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Acc = !spio.warpgroup_acc<m64n128, f32, [i, j]>

// An N-major B whose blocks of 64 columns are not whole swizzle periods
// apart.
func.func @n_major_blocks(%a: !SA, %b: !SB, %acc: !Acc) -> !Acc {
  // expected-error @below {{'spio.wgmma' op B must be MN-major rows of 128 bytes}}
  %d = spio.wgmma %a[], %b[], %acc : !SA, !SB, !Acc
  return %d : !Acc
}

// -----

!SA = !spio.tensor<[i: 64, k/8: 4] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!SB = !spio.tensor<[j: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Acc = !spio.warpgroup_acc<m64n64, f32, [i, j]>

func.func @short_rows(%a: !SA, %b: !SB, %acc: !Acc) -> !Acc {
  // expected-error @below {{'spio.wgmma' op A must be K-major rows of 128 bytes: its finest entries 'k/8: 8' (stride 1) and 'i' (stride 8)}}
  %d = spio.wgmma %a[], %b[], %acc : !SA, !SB, !Acc
  return %d : !Acc
}

// -----

!SA = !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, global>
!SB = !spio.tensor<[j: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Acc = !spio.warpgroup_acc<m64n64, f32, [i, j]>

func.func @global(%a: !SA, %b: !SB, %acc: !Acc) -> !Acc {
  // expected-error @below {{'spio.wgmma' op A must be in shared memory, not global}}
  %d = spio.wgmma %a[], %b[], %acc : !SA, !SB, !Acc
  return %d : !Acc
}

// -----

!SA = !spio.tensor<[i: 64, k/8: 8] x vector<8xf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!SB = !spio.tensor<[j: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Acc = !spio.warpgroup_acc<m64n64, f32, [i, j]>

func.func @mixed(%a: !SA, %b: !SB, %acc: !Acc) -> !Acc {
  // expected-error @below {{'spio.wgmma' op B must hold A's 'vector<8xf16>', got 'vector<8xbf16>'}}
  %d = spio.wgmma %a[], %b[], %acc : !SA, !SB, !Acc
  return %d : !Acc
}

// -----

!SA = !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!SB = !spio.tensor<[n: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Acc = !spio.warpgroup_acc<m64n64, f32, [i, j]>

func.func @columns_dim(%a: !SA, %b: !SB, %acc: !Acc) -> !Acc {
  // expected-error @below {{'spio.wgmma' op B has no dimension 'j' of the accumulator}}
  %d = spio.wgmma %a[], %b[], %acc : !SA, !SB, !Acc
  return %d : !Acc
}

// -----

!SA = !spio.tensor<[i: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!SB = !spio.tensor<[j: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Acc = !spio.warpgroup_acc<m64n64, f32, [i, j]>

func.func @origin(%a: !SA, %b: !SB, %acc: !Acc, %c: !spio.coord<c>) -> !Acc {
  // expected-error @below {{'spio.wgmma' op A's origin: }}
  %d = spio.wgmma %a[%c], %b[], %acc : !SA[!spio.coord<c>], !SB, !Acc
  return %d : !Acc
}

// -----

func.func @fragment_index(%acc: !spio.warpgroup_acc<m64n64, f32, [i, j]>) {
  // expected-error @below {{'spio.warpgroup_fragment' op index 8 is past the accumulator's 8 fragments of 8 columns}}
  %c = spio.warpgroup_fragment %acc[8] : !spio.warpgroup_acc<m64n64, f32, [i, j]> -> !spio.fragment<C, m16n8k16, f32, [i, j]>
  return
}

// -----

func.func @fragment_dims(%acc: !spio.warpgroup_acc<m64n64, f32, [i, j]>) {
  // expected-error @below {{'spio.warpgroup_fragment' op yields a C fragment [i, j] of the accumulator, got '!spio.fragment<C, m16n8k16, f32, [j, i]>'}}
  %c = spio.warpgroup_fragment %acc[0] : !spio.warpgroup_acc<m64n64, f32, [i, j]> -> !spio.fragment<C, m16n8k16, f32, [j, i]>
  return
}

// -----

func.func @wait() {
  // expected-error @below {{'spio.wgmma_wait' op attribute 'pending' failed to satisfy constraint}}
  spio.wgmma_wait 8
  return
}

// -----

!SA = !spio.tensor<[k: 32, i/4: 8] x vector<4xf32>, shared, #spio.xor_swizzle<3, 0, 3>>
!SB = !spio.tensor<[j: 64, k/4: 8] x vector<4xf32>, shared, #spio.xor_swizzle<3, 0, 3>>
!Acc = !spio.warpgroup_acc<m64n64, f32, [i, j]>

// wgmma reads TF32 operands K-major only.
func.func @tf32_m_major(%a: !SA, %b: !SB, %acc: !Acc) -> !Acc {
  // expected-error @below {{'spio.wgmma' op A of 'f32' must be K-major (wgmma transposes 16-bit operands only)}}
  %d = spio.wgmma %a[], %b[], %acc : !SA, !SB, !Acc
  return %d : !Acc
}

// -----

!SA = !spio.tensor<[i: 64, k/4: 8] x vector<4xf32>, shared, #spio.xor_swizzle<3, 0, 3>>
!SB = !spio.tensor<[j: 64, k/8: 8] x vector<8xbf16>, shared, #spio.xor_swizzle<3, 0, 3>>
!Acc = !spio.warpgroup_acc<m64n64, f32, [i, j]>

func.func @tf32_with_bf16(%a: !SA, %b: !SB, %acc: !Acc) -> !Acc {
  // expected-error @below {{'spio.wgmma' op B must hold A's 'vector<4xf32>', got 'vector<8xbf16>'}}
  %d = spio.wgmma %a[], %b[], %acc : !SA, !SB, !Acc
  return %d : !Acc
}

// -----

!SA = !spio.tensor<[i: 64, k/8: 4] x vector<8xf32>, shared, #spio.xor_swizzle<3, 0, 3>>
!SB = !spio.tensor<[j: 64, k/8: 4] x vector<8xf32>, shared, #spio.xor_swizzle<3, 0, 3>>
!Acc = !spio.warpgroup_acc<m64n64, f32, [i, j]>

// f32 comes in 16-byte vectors of 4.
func.func @f32_vectors_of_8(%a: !SA, %b: !SB, %acc: !Acc) -> !Acc {
  // expected-error @below {{'spio.wgmma' op A must hold vector<8xf16>, vector<8xbf16> or vector<4xf32> (TF32), got 'vector<8xf32>'}}
  %d = spio.wgmma %a[], %b[], %acc : !SA, !SB, !Acc
  return %d : !Acc
}
