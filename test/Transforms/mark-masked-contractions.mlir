// RUN: kiln-opt --kiln-mark-masked-contractions -split-input-file %s | FileCheck %s

// Causal attention with a -inf fill: the scores are masked before anything
// reads them, and the probabilities are exactly 0 outside the band (exp of
// -inf), so both contractions are marked.
// CHECK-LABEL: func.func @attention
// CHECK:         kiln.dot_general %{{.*}}, %{{.*}} {kiln.masked_contraction = {max_diagonal = 0 : i64, role = "scores"}
// CHECK:         kiln.dot_general %{{.*}}, %{{.*}} {kiln.masked_contraction = {max_diagonal = 0 : i64, role = "values"}
func.func @attention(%q: tensor<8x4xf32>, %k: tensor<8x4xf32>, %v: tensor<8x4xf32>, %m: tensor<8xf32>, %s: tensor<8xf32>) -> tensor<8x4xf32> {
  %scores = kiln.dot_general %q, %k {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 1>} : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x8xf32>
  %half = kiln.constant dense<0.5> : tensor<8x8xf32>
  %scaled = kiln.multiply %scores, %half : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %mask = kiln.causal_mask {column_dimension = 1 : i64, kept = true, masked = false, max_diagonal = 0 : i64, row_dimension = 0 : i64} : tensor<8x8xi1>
  %fill = kiln.constant dense<0xFF800000> : tensor<8x8xf32>
  %masked = kiln.select %mask, %scaled, %fill : (tensor<8x8xi1>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %mb = kiln.broadcast_in_dim %m {dimensions = array<i64: 0>} : (tensor<8xf32>) -> tensor<8x8xf32>
  %shifted = kiln.subtract %masked, %mb : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %e = kiln.exponential %shifted : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %sb = kiln.broadcast_in_dim %s {dimensions = array<i64: 0>} : (tensor<8xf32>) -> tensor<8x8xf32>
  %p = kiln.divide %e, %sb : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %o = kiln.dot_general %p, %v {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 0>} : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %o : tensor<8x4xf32>
}

// -----

// An additive bias of finfo.min, broadcast to heads: both marked.
// CHECK-LABEL: func.func @bias
// CHECK:         role = "scores"
// CHECK:         role = "values"
func.func @bias(%q: tensor<2x8x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %scores = kiln.dot_general %q, %k {lhs_batch_dims = array<i64: 0>, rhs_batch_dims = array<i64: 0>, lhs_contracting_dims = array<i64: 2>, rhs_contracting_dims = array<i64: 2>} : (tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x8xf32>
  %bias = kiln.causal_mask {column_dimension = 1 : i64, kept = 0.0 : f32, masked = -3.40282347e+38 : f32, max_diagonal = 0 : i64, row_dimension = 0 : i64} : tensor<8x8xf32>
  %bb = kiln.broadcast_in_dim %bias {dimensions = array<i64: 1, 2>} : (tensor<8x8xf32>) -> tensor<2x8x8xf32>
  %sum = kiln.add %scores, %bb : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %e = kiln.exponential %sum : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %o = kiln.dot_general %e, %v {lhs_batch_dims = array<i64: 0>, rhs_batch_dims = array<i64: 0>, lhs_contracting_dims = array<i64: 2>, rhs_contracting_dims = array<i64: 1>} : (tensor<2x8x8xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %o : tensor<2x8x4xf32>
}

// -----

// A fill of -1e9 does not make exp exactly 0 whatever is subtracted: the
// scores are still masked before use, but the values are not marked.
// CHECK-LABEL: func.func @finite_fill
// CHECK:         role = "scores"
// CHECK-NOT:     role = "values"
func.func @finite_fill(%q: tensor<8x4xf32>, %k: tensor<8x4xf32>, %v: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %scores = kiln.dot_general %q, %k {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 1>} : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x8xf32>
  %mask = kiln.causal_mask {column_dimension = 1 : i64, kept = true, masked = false, max_diagonal = 0 : i64, row_dimension = 0 : i64} : tensor<8x8xi1>
  %fill = kiln.constant dense<-1.0e+09> : tensor<8x8xf32>
  %masked = kiln.select %mask, %scores, %fill : (tensor<8x8xi1>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %e = kiln.exponential %masked : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %o = kiln.dot_general %e, %v {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 0>} : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %o : tensor<8x4xf32>
}

// -----

// Scores that something reads unmasked (returned here) are not marked.
// CHECK-LABEL: func.func @scores_read
// CHECK-NOT:     kiln.masked_contraction
func.func @scores_read(%q: tensor<8x4xf32>, %k: tensor<8x4xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %scores = kiln.dot_general %q, %k {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 1>} : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x8xf32>
  %mask = kiln.causal_mask {column_dimension = 1 : i64, kept = true, masked = false, max_diagonal = 0 : i64, row_dimension = 0 : i64} : tensor<8x8xi1>
  %fill = kiln.constant dense<0xFF800000> : tensor<8x8xf32>
  %masked = kiln.select %mask, %scores, %fill : (tensor<8x8xi1>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %masked, %scores : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// A mask over other dimensions than the contraction's: not marked.
// CHECK-LABEL: func.func @transposed_mask
// CHECK-NOT:     kiln.masked_contraction
func.func @transposed_mask(%q: tensor<8x4xf32>, %k: tensor<8x4xf32>) -> tensor<8x8xf32> {
  %scores = kiln.dot_general %q, %k {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 1>} : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x8xf32>
  %mask = kiln.causal_mask {column_dimension = 0 : i64, kept = true, masked = false, max_diagonal = 0 : i64, row_dimension = 1 : i64} : tensor<8x8xi1>
  %fill = kiln.constant dense<0xFF800000> : tensor<8x8xf32>
  %masked = kiln.select %mask, %scores, %fill : (tensor<8x8xi1>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %masked : tensor<8x8xf32>
}

// -----

// Softmax between the contractions, in blocks of 32 (S = 96): every value
// that is one constant outside the band is marked with it (the select's
// fill, exp's 0); the scaling before the mask and the subtraction after it
// are marked because only marked ops read them; the max and the sum read
// the blocks only. Only what something reads whole is filled outside the
// band: exp's result is returned, so it has no unread_outside.
// CHECK-LABEL: func.func @softmax
// CHECK:         kiln.dot_general {{.*}}role = "scores", unread_outside}
// CHECK:         kiln.multiply {{.*}}kiln.band = {column = 1 : i64, max_diagonal = 0 : i64, outside = 0.000000e+00 : f64, row = 0 : i64, unread_outside}
// CHECK:         kiln.select {{.*}}kiln.band = {column = 1 : i64, max_diagonal = 0 : i64, outside = 0xFFF0000000000000 : f64, row = 0 : i64, unread_outside}
// CHECK:         kiln.reduce{{.*}}kiln.band = {column = 1 : i64, max_diagonal = 0 : i64, outside = 0xFFF0000000000000 : f64, row = 0 : i64}
// CHECK:         kiln.subtract {{.*}}kiln.band = {{{.*}}unread_outside}
// CHECK:         kiln.exponential {{.*}}kiln.band = {column = 1 : i64, max_diagonal = 0 : i64, outside = 0.000000e+00 : f64, row = 0 : i64}
// CHECK:         kiln.reduce{{.*}}kiln.band = {column = 1 : i64, max_diagonal = 0 : i64, outside = 0.000000e+00 : f64, row = 0 : i64}
// CHECK:         kiln.divide {{.*}}kiln.band = {{{.*}}unread_outside}
// CHECK:         kiln.dot_general {{.*}}role = "values"
func.func @softmax(%q: tensor<96x16xf32>, %k: tensor<96x16xf32>, %v: tensor<96x16xf32>) -> (tensor<96x16xf32>, tensor<96x96xf32>) {
  %scores = kiln.dot_general %q, %k {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 1>} : (tensor<96x16xf32>, tensor<96x16xf32>) -> tensor<96x96xf32>
  %scale = kiln.constant dense<0.25> : tensor<96x96xf32>
  %scaled = kiln.multiply %scores, %scale : (tensor<96x96xf32>, tensor<96x96xf32>) -> tensor<96x96xf32>
  %mask = kiln.causal_mask {column_dimension = 1 : i64, kept = true, masked = false, max_diagonal = 0 : i64, row_dimension = 0 : i64} : tensor<96x96xi1>
  %fill = kiln.constant dense<0xFF800000> : tensor<96x96xf32>
  %masked = kiln.select %mask, %scaled, %fill : (tensor<96x96xi1>, tensor<96x96xf32>, tensor<96x96xf32>) -> tensor<96x96xf32>
  %init = kiln.constant dense<0xFF800000> : tensor<f32>
  %max = kiln.reduce(%masked, %init) attributes {dimensions = array<i64: 1>} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %x = kiln.maximum %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %x : tensor<f32>
  } : (tensor<96x96xf32>, tensor<f32>) -> tensor<96xf32>
  %mb = kiln.broadcast_in_dim %max {dimensions = array<i64: 0>} : (tensor<96xf32>) -> tensor<96x96xf32>
  %shifted = kiln.subtract %masked, %mb : (tensor<96x96xf32>, tensor<96x96xf32>) -> tensor<96x96xf32>
  %e = kiln.exponential %shifted : (tensor<96x96xf32>) -> tensor<96x96xf32>
  %zero = kiln.constant dense<0.0> : tensor<f32>
  %sum = kiln.reduce(%e, %zero) attributes {dimensions = array<i64: 1>} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %x = kiln.add %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %x : tensor<f32>
  } : (tensor<96x96xf32>, tensor<f32>) -> tensor<96xf32>
  %sb = kiln.broadcast_in_dim %sum {dimensions = array<i64: 0>} : (tensor<96xf32>) -> tensor<96x96xf32>
  %p = kiln.divide %e, %sb : (tensor<96x96xf32>, tensor<96x96xf32>) -> tensor<96x96xf32>
  %o = kiln.dot_general %p, %v {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 0>} : (tensor<96x96xf32>, tensor<96x16xf32>) -> tensor<96x16xf32>
  return %o, %e : tensor<96x16xf32>, tensor<96x96xf32>
}

// -----

// A sum of a value that is -inf outside the band would take it at every
// masked position, not once: the reduction is not marked, and the select
// it reads is filled there.
// CHECK-LABEL: func.func @sum_of_fill
// CHECK:         kiln.select {{.*}}kiln.band = {column = 1 : i64, max_diagonal = 0 : i64, outside = 0xFFF0000000000000 : f64, row = 0 : i64}
// CHECK-NOT:     kiln.band
func.func @sum_of_fill(%x: tensor<64x64xf32>) -> tensor<64xf32> {
  %mask = kiln.causal_mask {column_dimension = 1 : i64, kept = true, masked = false, max_diagonal = 0 : i64, row_dimension = 0 : i64} : tensor<64x64xi1>
  %fill = kiln.constant dense<0xFF800000> : tensor<64x64xf32>
  %masked = kiln.select %mask, %x, %fill : (tensor<64x64xi1>, tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %zero = kiln.constant dense<0.0> : tensor<f32>
  %sum = kiln.reduce(%masked, %zero) attributes {dimensions = array<i64: 1>} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %y = kiln.add %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %y : tensor<f32>
  } : (tensor<64x64xf32>, tensor<f32>) -> tensor<64xf32>
  return %sum : tensor<64xf32>
}

// -----

// Regression: a value counted as read by blocks only when a contraction
// read it, whichever operand and role. The rhs of a "values" contraction is
// read across the band's edge (whole rows of blocks), and so is the lhs of
// a "scores" contraction: neither may be left unwritten outside the band.
// CHECK-LABEL: func.func @operands_read_whole
// CHECK:         %[[L:[0-9]+]] = kiln.select {{.*}}kiln.band = {column = 1 : i64, max_diagonal = 0 : i64, outside = 0.000000e+00 : f64, row = 0 : i64, unread_outside}}
// CHECK:         %[[M:[0-9]+]] = kiln.select {{.*}}kiln.band = {column = 1 : i64, max_diagonal = 0 : i64, outside = 0.000000e+00 : f64, row = 0 : i64}}
// CHECK:         kiln.dot_general %[[L]], %[[M]] {kiln.masked_contraction = {max_diagonal = 0 : i64, role = "values"}
func.func @operands_read_whole(%a: tensor<96x96xf32>, %b: tensor<96x96xf32>) -> tensor<96x96xf32> {
  %mask = kiln.causal_mask {column_dimension = 1 : i64, kept = true, masked = false, max_diagonal = 0 : i64, row_dimension = 0 : i64} : tensor<96x96xi1>
  %zero = kiln.constant dense<0.0> : tensor<96x96xf32>
  %l = kiln.select %mask, %a, %zero : (tensor<96x96xi1>, tensor<96x96xf32>, tensor<96x96xf32>) -> tensor<96x96xf32>
  %m = kiln.select %mask, %b, %zero : (tensor<96x96xi1>, tensor<96x96xf32>, tensor<96x96xf32>) -> tensor<96x96xf32>
  %o = kiln.dot_general %l, %m {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 0>} : (tensor<96x96xf32>, tensor<96x96xf32>) -> tensor<96x96xf32>
  return %o : tensor<96x96xf32>
}

// -----

// CHECK-LABEL: func.func @scores_lhs_read_whole
// CHECK:         %[[L:[0-9]+]] = kiln.select {{.*}}kiln.band = {column = 1 : i64, max_diagonal = 0 : i64, outside = 0.000000e+00 : f64, row = 0 : i64}}
// CHECK:         kiln.dot_general %[[L]], %{{.*}} {kiln.masked_contraction = {max_diagonal = 0 : i64, role = "scores"
func.func @scores_lhs_read_whole(%a: tensor<96x96xf32>, %x: tensor<96x96xf32>) -> tensor<96x96xf32> {
  %mask = kiln.causal_mask {column_dimension = 1 : i64, kept = true, masked = false, max_diagonal = 0 : i64, row_dimension = 0 : i64} : tensor<96x96xi1>
  %zero = kiln.constant dense<0.0> : tensor<96x96xf32>
  %l = kiln.select %mask, %a, %zero : (tensor<96x96xi1>, tensor<96x96xf32>, tensor<96x96xf32>) -> tensor<96x96xf32>
  %s = kiln.dot_general %l, %x {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 1>} : (tensor<96x96xf32>, tensor<96x96xf32>) -> tensor<96x96xf32>
  %fill = kiln.constant dense<0xFF800000> : tensor<96x96xf32>
  %masked = kiln.select %mask, %s, %fill : (tensor<96x96xi1>, tensor<96x96xf32>, tensor<96x96xf32>) -> tensor<96x96xf32>
  return %masked : tensor<96x96xf32>
}

// -----

// Regression: with max_diagonal = -1 the first row has no position inside
// the band, so its max is the fill and the fill minus it is 0, not a
// value below -1e30: the subtraction keeps no band, and exp is computed
// whole.
// CHECK-LABEL: func.func @row_outside_band
// CHECK:         kiln.select {{.*}}kiln.band
// CHECK-NOT:     kiln.subtract {{.*}}kiln.band
// CHECK-NOT:     kiln.exponential {{.*}}kiln.band
func.func @row_outside_band(%x: tensor<96x96xf32>) -> tensor<96x96xf32> {
  %mask = kiln.causal_mask {column_dimension = 1 : i64, kept = true, masked = false, max_diagonal = -1 : i64, row_dimension = 0 : i64} : tensor<96x96xi1>
  %fill = kiln.constant dense<-3.40282347e+38> : tensor<96x96xf32>
  %masked = kiln.select %mask, %x, %fill : (tensor<96x96xi1>, tensor<96x96xf32>, tensor<96x96xf32>) -> tensor<96x96xf32>
  %init = kiln.constant dense<0xFF800000> : tensor<f32>
  %max = kiln.reduce(%masked, %init) attributes {dimensions = array<i64: 1>} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %y = kiln.maximum %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %y : tensor<f32>
  } : (tensor<96x96xf32>, tensor<f32>) -> tensor<96xf32>
  %mb = kiln.broadcast_in_dim %max {dimensions = array<i64: 0>} : (tensor<96xf32>) -> tensor<96x96xf32>
  %shifted = kiln.subtract %masked, %mb : (tensor<96x96xf32>, tensor<96x96xf32>) -> tensor<96x96xf32>
  %e = kiln.exponential %shifted : (tensor<96x96xf32>) -> tensor<96x96xf32>
  return %e : tensor<96x96xf32>
}

// -----

// 0 / 0 is NaN, not 0: a quotient of two values that are 0 outside the
// band keeps no band, and the weighted sum that reads it is not marked.
// CHECK-LABEL: func.func @zero_over_zero
// CHECK:         kiln.divide
// CHECK-NOT:     kiln.band
// CHECK-NOT:     role = "values"
// CHECK:         return
func.func @zero_over_zero(%x: tensor<8x8xf32>, %v: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %mask = kiln.causal_mask {column_dimension = 1 : i64, kept = true, masked = false, max_diagonal = 0 : i64, row_dimension = 0 : i64} : tensor<8x8xi1>
  %zero = kiln.constant dense<0.0> : tensor<8x8xf32>
  %masked = kiln.select %mask, %x, %zero : (tensor<8x8xi1>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %q = kiln.divide %masked, %masked : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %o = kiln.dot_general %q, %v {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 0>} : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %o : tensor<8x4xf32>
}

// -----

// A conversion to an integer keeps no band (an integer holds neither the
// infinities nor the fills below -1e30 as they are): the weighted sum that
// reads it is not marked.
// CHECK-LABEL: func.func @to_integer
// CHECK:         kiln.convert
// CHECK-NOT:     kiln.band
// CHECK-NOT:     role = "values"
// CHECK:         return
func.func @to_integer(%x: tensor<8x8xf32>, %v: tensor<8x4xi32>) -> tensor<8x4xi32> {
  %mask = kiln.causal_mask {column_dimension = 1 : i64, kept = true, masked = false, max_diagonal = 0 : i64, row_dimension = 0 : i64} : tensor<8x8xi1>
  %zero = kiln.constant dense<0.0> : tensor<8x8xf32>
  %masked = kiln.select %mask, %x, %zero : (tensor<8x8xi1>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %i = kiln.convert %masked : (tensor<8x8xf32>) -> tensor<8x8xi32>
  %o = kiln.dot_general %i, %v {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 0>} : (tensor<8x8xi32>, tensor<8x4xi32>) -> tensor<8x4xi32>
  return %o : tensor<8x4xi32>
}
