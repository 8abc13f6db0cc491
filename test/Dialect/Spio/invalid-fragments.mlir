// RUN: spio-opt %s -split-input-file -verify-diagnostics

!G = !spio.tensor<[i: 64, k/8: 2] x vector<8xf16>, global>

func.func @ldmatrix_from_global(%g: !G) {
  // expected-error @below {{'spio.ldmatrix' op reads shared memory, but the tensor is in global memory}}
  %0 = spio.ldmatrix %g[] : !G -> !spio.fragment<A, m16n8k16, f16, [i, k]>
  return
}

// -----

!S = !spio.tensor<[i: 64, j/8: 2] x vector<8xf16>, shared>

func.func @ldmatrix_accumulator(%s: !S) {
  // expected-error @below {{'spio.ldmatrix' op loads A or B fragments, not C accumulators}}
  %0 = spio.ldmatrix %s[] : !S -> !spio.fragment<C, m16n8k16, f32, [i, j]>
  return
}

// -----

!S = !spio.tensor<[i: 64, k/4: 4] x vector<4xf16>, shared>

func.func @ldmatrix_short_rows(%s: !S) {
  // expected-error @below {{'spio.ldmatrix' op rows are 8 x 'f16' (16 bytes), so the tensor element must be vector<8x'f16'>, got 'vector<4xf16>'}}
  %0 = spio.ldmatrix %s[] : !S -> !spio.fragment<A, m16n8k16, f16, [i, k]>
  return
}

// -----

!S = !spio.tensor<[i: 64, k/8: 2] x vector<8xbf16>, shared>

func.func @ldmatrix_dtype(%s: !S) {
  // expected-error @below {{'spio.ldmatrix' op rows are 8 x 'f16' (16 bytes), so the tensor element must be vector<8x'f16'>, got 'vector<8xbf16>'}}
  %0 = spio.ldmatrix %s[] : !S -> !spio.fragment<A, m16n8k16, f16, [i, k]>
  return
}

// -----

!S = !spio.tensor<[m: 64, k/8: 2] x vector<8xf16>, shared>

func.func @ldmatrix_missing_dimension(%s: !S) {
  // expected-error @below {{'spio.ldmatrix' op tensor has no dimension 'i' of the fragment}}
  %0 = spio.ldmatrix %s[] : !S -> !spio.fragment<A, m16n8k16, f16, [i, k]>
  return
}

// -----

!S = !spio.tensor<[k: 16, i/8: 8] x vector<8xf16>, shared>

func.func @ldmatrix_needs_transpose(%s: !S) {
  // Vectors run along i here, so only the transposed load fits.
  // expected-error @below {{'spio.ldmatrix' op reads 8 consecutive 'k' per row, so the tensor's finest entry of 'k' must be 'k/8', not 'k'}}
  %0 = spio.ldmatrix %s[] : !S -> !spio.fragment<A, m16n8k16, f16, [i, k]>
  return
}

// -----

!S = !spio.tensor<[i: 64, k/8: 2] x vector<8xf16>, shared>

func.func @ldmatrix_wrong_transpose(%s: !S) {
  // expected-error @below {{'spio.ldmatrix' op reads 8 consecutive 'i' per row (transposed), so the tensor's finest entry of 'i' must be 'i/8', not 'i'}}
  %0 = spio.ldmatrix %s[] transpose : !S -> !spio.fragment<A, m16n8k16, f16, [i, k]>
  return
}

// -----

!S = !spio.tensor<[i: 64, k/8: 2] x vector<8xf16>, shared>

func.func @ldmatrix_bad_coordinate(%s: !S, %j: !spio.coord<j>) {
  // expected-error @below {{'spio.ldmatrix' op ldmatrix: tensor has no dimension 'j' (it has i, k/8); project it explicitly to ignore it}}
  %0 = spio.ldmatrix %s[%j] : !S[!spio.coord<j>] -> !spio.fragment<A, m16n8k16, f16, [i, k]>
  return
}

// -----

func.func @fill_wrong_type(%v: f16) {
  // expected-error @below {{'spio.fill' op failed to verify that value is the fragment's element}}
  %0 = "spio.fill"(%v) : (f16) -> !spio.fragment<C, m16n8k16, f32, [i, j]>
  return
}

// -----

func.func @mma_operand_roles(%a: !spio.fragment<B, m16n8k16, f16, [k, j]>,
                             %b: !spio.fragment<B, m16n8k16, f16, [k, j]>,
                             %c: !spio.fragment<C, m16n8k16, f32, [i, j]>) {
  // expected-error @below {{'spio.mma' op first operand must be fragment A, got fragment B}}
  %0 = spio.mma %a, %b, %c : !spio.fragment<B, m16n8k16, f16, [k, j]>, !spio.fragment<B, m16n8k16, f16, [k, j]>, !spio.fragment<C, m16n8k16, f32, [i, j]>
  return
}

// -----

func.func @mma_accumulator_role(%a: !spio.fragment<A, m16n8k16, f16, [i, k]>,
                                %b: !spio.fragment<B, m16n8k16, f16, [k, j]>,
                                %c: !spio.fragment<A, m16n8k16, f16, [i, k]>) {
  // expected-error @below {{'spio.mma' op failed to verify that all of {acc, result} have same type}}
  %0 = "spio.mma"(%a, %b, %c) : (!spio.fragment<A, m16n8k16, f16, [i, k]>, !spio.fragment<B, m16n8k16, f16, [k, j]>, !spio.fragment<A, m16n8k16, f16, [i, k]>) -> !spio.fragment<C, m16n8k16, f32, [i, j]>
  return
}

// -----

func.func @mma_third_role(%a: !spio.fragment<A, m16n8k16, f16, [i, k]>,
                          %b: !spio.fragment<B, m16n8k16, f16, [k, j]>,
                          %c: !spio.fragment<A, m16n8k16, f16, [i, j]>) {
  // expected-error @below {{'spio.mma' op third operand must be fragment C, got fragment A}}
  %0 = spio.mma %a, %b, %c : !spio.fragment<A, m16n8k16, f16, [i, k]>, !spio.fragment<B, m16n8k16, f16, [k, j]>, !spio.fragment<A, m16n8k16, f16, [i, j]>
  return
}

// -----

func.func @mma_shapes(%a: !spio.fragment<A, m16n8k16, f16, [i, k]>,
                      %b: !spio.fragment<B, m16n8k8, f16, [k, j]>,
                      %c: !spio.fragment<C, m16n8k16, f32, [i, j]>) {
  // expected-error @below {{'spio.mma' op operand shapes disagree: A is m16n8k16, B is m16n8k8}}
  %0 = spio.mma %a, %b, %c : !spio.fragment<A, m16n8k16, f16, [i, k]>, !spio.fragment<B, m16n8k8, f16, [k, j]>, !spio.fragment<C, m16n8k16, f32, [i, j]>
  return
}

// -----

func.func @mma_dtypes(%a: !spio.fragment<A, m16n8k16, f16, [i, k]>,
                      %b: !spio.fragment<B, m16n8k16, bf16, [k, j]>,
                      %c: !spio.fragment<C, m16n8k16, f32, [i, j]>) {
  // expected-error @below {{'spio.mma' op operand dtypes disagree: A holds 'f16' but B holds 'bf16'}}
  %0 = spio.mma %a, %b, %c : !spio.fragment<A, m16n8k16, f16, [i, k]>, !spio.fragment<B, m16n8k16, bf16, [k, j]>, !spio.fragment<C, m16n8k16, f32, [i, j]>
  return
}

// -----

func.func @mma_reduction_dims(%a: !spio.fragment<A, m16n8k16, f16, [i, k]>,
                              %b: !spio.fragment<B, m16n8k16, f16, [r, j]>,
                              %c: !spio.fragment<C, m16n8k16, f32, [i, j]>) {
  // expected-error @below {{'spio.mma' op reduction dimensions disagree: A's columns are 'k' but B's rows are 'r'}}
  %0 = spio.mma %a, %b, %c : !spio.fragment<A, m16n8k16, f16, [i, k]>, !spio.fragment<B, m16n8k16, f16, [r, j]>, !spio.fragment<C, m16n8k16, f32, [i, j]>
  return
}

// -----

func.func @mma_row_dims(%a: !spio.fragment<A, m16n8k16, f16, [i, k]>,
                        %b: !spio.fragment<B, m16n8k16, f16, [k, j]>,
                        %c: !spio.fragment<C, m16n8k16, f32, [m, j]>) {
  // expected-error @below {{'spio.mma' op row dimensions disagree: A's rows are 'i' but C's rows are 'm'}}
  %0 = spio.mma %a, %b, %c : !spio.fragment<A, m16n8k16, f16, [i, k]>, !spio.fragment<B, m16n8k16, f16, [k, j]>, !spio.fragment<C, m16n8k16, f32, [m, j]>
  return
}

// -----

func.func @mma_col_dims(%a: !spio.fragment<A, m16n8k16, f16, [i, k]>,
                        %b: !spio.fragment<B, m16n8k16, f16, [k, j]>,
                        %c: !spio.fragment<C, m16n8k16, f32, [i, n]>) {
  // expected-error @below {{'spio.mma' op column dimensions disagree: B's columns are 'j' but C's columns are 'n'}}
  %0 = spio.mma %a, %b, %c : !spio.fragment<A, m16n8k16, f16, [i, k]>, !spio.fragment<B, m16n8k16, f16, [k, j]>, !spio.fragment<C, m16n8k16, f32, [i, n]>
  return
}


// -----

func.func @to_vector_size(%c: !spio.fragment<C, m16n8k16, f32, [i, j]>) {
  // expected-error @below {{'spio.fragment_to_vector' op a lane of '!spio.fragment<C, m16n8k16, f32, [i, j]>' holds 4 x 'f32', not 'vector<8xf32>'}}
  %0 = spio.fragment_to_vector %c : !spio.fragment<C, m16n8k16, f32, [i, j]> -> vector<8xf32>
  return
}

// -----

func.func @from_vector_type(%v: vector<8xf32>) {
  // expected-error @below {{'spio.vector_to_fragment' op a lane of '!spio.fragment<A, m16n8k16, f16, [i, k]>' holds 8 x 'f16', not 'vector<8xf32>'}}
  %0 = spio.vector_to_fragment %v : vector<8xf32> -> !spio.fragment<A, m16n8k16, f16, [i, k]>
  return
}

// -----

func.func @store_a_fragment(%a: !spio.fragment<A, m16n8k16, f16, [i, k]>, %t: !spio.tensor<[i: 16, k: 16] x f16, global>) {
  // expected-error @below {{'spio.store_fragment' op moves C fragments; A and B come from ldmatrix}}
  spio.store_fragment %a, %t[] : !spio.fragment<A, m16n8k16, f16, [i, k]>, !spio.tensor<[i: 16, k: 16] x f16, global>
  return
}

// -----

func.func @store_vectors(%c: !spio.fragment<C, m16n8k16, f32, [i, j]>, %t: !spio.tensor<[i: 16, j/8: 1] x vector<8xf16>, global>) {
  // expected-error @below {{'spio.store_fragment' op needs a tensor of f32, f16 or bf16 scalars, got 'vector<8xf16>'}}
  spio.store_fragment %c, %t[] : !spio.fragment<C, m16n8k16, f32, [i, j]>, !spio.tensor<[i: 16, j/8: 1] x vector<8xf16>, global>
  return
}

// -----

func.func @store_folded(%c: !spio.fragment<C, m16n8k16, f32, [i, j]>, %t: !spio.tensor<[i: 16, j/2: 4] x f32, global>) {
  // expected-error @below {{'spio.store_fragment' op tensor needs dimension 'j' at unit fold to address fragment elements}}
  spio.store_fragment %c, %t[] : !spio.fragment<C, m16n8k16, f32, [i, j]>, !spio.tensor<[i: 16, j/2: 4] x f32, global>
  return
}

// -----

func.func @load_bound_dim(%t: !spio.tensor<[i: 16, j: 8] x f32, global>, %m: !spio.coord<m>, %n: !spio.coord<j>) {
  // expected-error @below {{'spio.load_fragment' op row bound is 'm' but the fragment's rows are 'i'}}
  %0 = spio.load_fragment %t[] bounds %m, %n : !spio.tensor<[i: 16, j: 8] x f32, global> bounds !spio.coord<m>, !spio.coord<j> -> !spio.fragment<C, m16n8k16, f32, [i, j]>
  return
}

// -----

func.func @load_one_bound(%t: !spio.tensor<[i: 16, j: 8] x f32, global>, %m: !spio.coord<i>) {
  // expected-error @below {{'spio.load_fragment' op takes both a row and a column bound, or neither}}
  %0 = "spio.load_fragment"(%t, %m) {operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (!spio.tensor<[i: 16, j: 8] x f32, global>, !spio.coord<i>) -> !spio.fragment<C, m16n8k16, f32, [i, j]>
  return
}

// -----

!S = !spio.tensor<[i: 64, k/8: 2] x vector<8xf16>, shared>

func.func @ldmatrix_gather_along_reduction(%s: !S, %k: !spio.coord<k>) {
  // expected-error @below {{'spio.ldmatrix' op gathers its rows along 'i', the dimension its ldmatrix rows are counted in, but the gather coordinate is of 'k'}}
  %0 = spio.ldmatrix %s[] gather(%k : !spio.coord<k>) : !S -> !spio.fragment<A, m16n8k16, f16, [i, k]>
  return
}

// -----

func.func @ldmatrix_row_of_accumulator() {
  // expected-error @below {{'spio.ldmatrix_row' op names a row of an A or B fragment, not of C accumulators}}
  %0 = spio.ldmatrix_row : !spio.fragment<C, m16n8k16, f32, [i, j]> -> !spio.coord<i>
  return
}

// -----

func.func @ldmatrix_row_of_b_rows() {
  // B's ldmatrix rows are its columns (j), not its reduction rows (k).
  // expected-error @below {{'spio.ldmatrix_row' op result must be a coordinate of 'j' (fold 1), the dimension the ldmatrix rows are counted in, got '!spio.coord<k>'}}
  %0 = spio.ldmatrix_row : !spio.fragment<B, m16n8k16, f16, [k, j]> -> !spio.coord<k>
  return
}

// -----

func.func @ldmatrix_row_folded() {
  // expected-error @below {{'spio.ldmatrix_row' op result must be a coordinate of 'i' (fold 1), the dimension the ldmatrix rows are counted in, got '!spio.coord<i/8>'}}
  %0 = spio.ldmatrix_row : !spio.fragment<A, m16n8k16, f16, [i, k]> -> !spio.coord<i/8>
  return
}

// -----

func.func @activation_of_f16(%v: vector<4xf16>) {
  // expected-error @below {{'spio.activation' op operand #0 must be 32-bit float or vector of 32-bit float values of ranks 1}}
  %0 = spio.activation relu %v : vector<4xf16>
  return
}
