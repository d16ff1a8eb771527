// RUN: kiln-opt --convert-kiln-to-linalg --verify-diagnostics -split-input-file %s

// A weighted sum marked to read its lhs by the band's blocks, whose lhs is
// left unwritten outside them (unread_outside), must be computed by
// blocks: computed whole, as the generic contraction would, it would read
// those unwritten blocks. The analysis marks only contractions that the
// blocks' lowering takes; one it does not take is refused, not computed
// wrong.
func.func @values_computed_whole(%p: tensor<256x256xi32>, %v: tensor<256x32xi32>) -> tensor<256x32xi32> {
  %0 = kiln.multiply %p, %p {kiln.band = {column = 1 : i64, max_diagonal = 0 : i64, outside = 0.000000e+00 : f64, row = 0 : i64, unread_outside}} : (tensor<256x256xi32>, tensor<256x256xi32>) -> tensor<256x256xi32>
  // expected-error @+2 {{'kiln.dot_general' op marked to read its lhs by the band's blocks, which are unwritten outside the band, is not computed by blocks}}
  // expected-error @+1 {{failed to legalize operation 'kiln.dot_general'}}
  %1 = kiln.dot_general %0, %v {kiln.masked_contraction = {max_diagonal = 0 : i64, role = "values"}, lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 0>} : (tensor<256x256xi32>, tensor<256x32xi32>) -> tensor<256x32xi32>
  return %1 : tensor<256x32xi32>
}

// -----

// Its lhs written whole, the same contraction is computed whole.
func.func @values_lhs_written(%p: tensor<256x256xi32>, %v: tensor<256x32xi32>) -> tensor<256x32xi32> {
  %0 = kiln.multiply %p, %p {kiln.band = {column = 1 : i64, max_diagonal = 0 : i64, outside = 0.000000e+00 : f64, row = 0 : i64}} : (tensor<256x256xi32>, tensor<256x256xi32>) -> tensor<256x256xi32>
  %1 = kiln.dot_general %0, %v {kiln.masked_contraction = {max_diagonal = 0 : i64, role = "values"}, lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 0>} : (tensor<256x256xi32>, tensor<256x32xi32>) -> tensor<256x32xi32>
  return %1 : tensor<256x32xi32>
}
