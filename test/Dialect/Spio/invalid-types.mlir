// RUN: spio-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{fold of dimension 'k' must be positive, got 0}}
func.func private @f(!spio.coord<k/0>)

// -----

// expected-error @below {{fold of dimension 'k' must be positive, got -8}}
func.func private @f(!spio.coord<k/-8>)

// -----

// expected-error @below {{dimension name 'k 8' is not an identifier}}
func.func private @f(!spio.coord<"k 8">)

// -----

// expected-error @below {{expected '>'}}
func.func private @f(!spio.coord<k/8/2>)

// -----

// expected-error @below {{dimension 'k/8' has non-positive size 0}}
func.func private @f(!spio.tensor<[i: 4, k/8: 0] x f16, global>)

// -----

// expected-error @below {{dimension 'i' has negative stride -4}}
func.func private @f(!spio.tensor<[i: 4:-4] x f16, global>)

// -----

// expected-error @below {{a tensor needs at least one dimension}}
func.func private @f(!spio.tensor<[] x f16, global>)

// -----

// expected-error @below {{dimension 'k/8' appears twice}}
func.func private @f(!spio.tensor<[k/8: 2, i: 4, k/8: 2] x f16, global>)

// -----

// The entries of one dimension form a mixed radix: k/8 of size 2 spans 16.
// expected-error @below {{entries of dimension 'k' do not tile: 'k/8' of size 2 spans 16 but the next coarser entry is 'k/32'}}
func.func private @f(!spio.tensor<[k/32: 2, k/8: 2] x f16, global>)

// -----

// expected-error @below {{entries of dimension 'i' do not tile: 'i' of size 4 spans 4 but the next coarser entry is 'i/8'}}
func.func private @f(!spio.tensor<[i/8: 2, i: 4] x f16, global>)

// -----

// expected-error @below {{expected memory space 'global', 'shared' or 'register', got 'local'}}
func.func private @f(!spio.tensor<[i: 4] x f16, local>)

// -----

// expected-error @below {{tensor element must be a byte-sized integer or float, a 1-D vector of those, or a fragment; got 'index'}}
func.func private @f(!spio.tensor<[i: 4] x index, global>)

// -----

// expected-error @below {{tensor element must be a byte-sized integer or float, a 1-D vector of those, or a fragment; got 'i1'}}
func.func private @f(!spio.tensor<[i: 4] x i1, global>)

// -----

// expected-error @below {{tensor element must be a byte-sized integer or float, a 1-D vector of those, or a fragment; got 'vector<2x4xf16>'}}
func.func private @f(!spio.tensor<[i: 4] x vector<2x4xf16>, global>)

// -----

// expected-error @below {{fragments live in registers, but the tensor is in shared memory}}
func.func private @f(!spio.tensor<[i/16: 2] x !spio.fragment<C, m16n8k16, f32, [i, j]>, shared>)

// -----

// expected-error @below {{swizzles spread shared-memory banks; the tensor is in global memory}}
func.func private @f(!spio.tensor<[i: 16, c: 2] x vector<8xf16>, global, #spio.checkerboard<8>>)

// -----

// expected-error @below {{expected a swizzle (#spio.xor_swizzle or #spio.checkerboard), got 3 : i64}}
func.func private @f(!spio.tensor<[i: 16] x vector<8xf16>, shared, 3>)

// -----

// expected-error @below {{checkerboard ranks must be a power of two of at least 2, got 6}}
func.func private @f(!spio.tensor<[i: 16] x vector<8xf16>, shared, #spio.checkerboard<6>>)

// -----

// expected-error @below {{swizzle shift 2 must be at least its bit count 3 so that source and target bits do not overlap}}
func.func private @f(!spio.tensor<[i: 64] x vector<8xf16>, shared, #spio.xor_swizzle<3, 0, 2>>)

// -----

// expected-error @below {{xor_swizzle<-1, 0, 3> needs non-negative parameters summing to at most 30}}
func.func private @f(!spio.tensor<[i: 64] x vector<8xf16>, shared, #spio.xor_swizzle<-1, 0, 3>>)

// -----

// expected-error @below {{expected fragment operand A, B or C, got 'D'}}
func.func private @f(!spio.fragment<D, m16n8k16, f32, [i, j]>)

// -----

// expected-error @below {{expected mma shape m16n8k8 or m16n8k16, got 'm16n8k32'}}
func.func private @f(!spio.fragment<A, m16n8k32, f16, [i, k]>)

// -----

// expected-error @below {{C fragments accumulate in f32, got 'f16'}}
func.func private @f(!spio.fragment<C, m16n8k16, f16, [i, j]>)

// -----

// expected-error @below {{A fragments hold f16 or bf16, got 'f32'}}
func.func private @f(!spio.fragment<A, m16n8k16, f32, [i, k]>)

// -----

// expected-error @below {{B fragments hold f16 or bf16, got 'i8'}}
func.func private @f(!spio.fragment<B, m16n8k16, i8, [k, j]>)

// -----

// expected-error @below {{fragment rows and columns must be different dimensions, both are 'i'}}
func.func private @f(!spio.fragment<A, m16n8k16, f16, [i, i]>)

// -----

// expected-error @below {{a fragment has two dimensions [rows, columns], got 3}}
func.func private @f(!spio.fragment<A, m16n8k16, f16, [i, k, j]>)
