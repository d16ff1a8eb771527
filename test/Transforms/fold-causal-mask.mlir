// RUN: kiln-opt --kiln-inline --kiln-fold-causal-mask --canonicalize -split-input-file %s | FileCheck %s

// Causal and sliding-window masks become kiln.causal_mask however they are
// spelled (the positive forms), and nothing else does (the negative forms,
// at the end): the analysis follows values, not op sequences.

// torch-xla's aten::triu spelling: iota GE iota, then select.
// CHECK-LABEL: func.func @torch_triu
// CHECK:         %[[MASK:.*]] = kiln.causal_mask {column_dimension = 1 : i64, kept = true, masked = false, max_diagonal = 0 : i64, row_dimension = 0 : i64} : tensor<8x8xi1>
// CHECK-NEXT:    kiln.select %[[MASK]], %arg0, %{{.*}}
func.func @torch_triu(%scores: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %rows = kiln.iota {iota_dimension = 0 : i64} : tensor<8x8xi64>
  %columns = kiln.iota {iota_dimension = 1 : i64} : tensor<8x8xi64>
  %keep = kiln.compare %rows, %columns {direction = "GE"} : (tensor<8x8xi64>, tensor<8x8xi64>) -> tensor<8x8xi1>
  %fill = kiln.constant dense<-1.0e+09> : tensor<8x8xf32>
  %0 = kiln.select %keep, %scores, %fill : (tensor<8x8xi1>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// JAX's spelling: iota LE iota and-ed with an all-true mask inside a called
// helper, broadcast to batch and heads.
// CHECK-LABEL: func.func @jax_where
// CHECK:         %[[MASK:.*]] = kiln.causal_mask {column_dimension = 3 : i64, kept = true, masked = false, max_diagonal = 0 : i64, row_dimension = 2 : i64} : tensor<2x4x8x8xi1>
// CHECK:         kiln.select %[[MASK]], %arg0
// CHECK-NOT:     func.func private
func.func @jax_where(%scores: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
  %0 = call @where(%scores) : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}
func.func private @where(%scores: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
  %q = kiln.iota {iota_dimension = 0 : i64} : tensor<8xi32>
  %k = kiln.iota {iota_dimension = 0 : i64} : tensor<8xi32>
  %qb = kiln.broadcast_in_dim %q {dimensions = array<i64: 0>} : (tensor<8xi32>) -> tensor<8x8xi32>
  %kb = kiln.broadcast_in_dim %k {dimensions = array<i64: 1>} : (tensor<8xi32>) -> tensor<8x8xi32>
  %le = kiln.compare %kb, %qb {direction = "LE"} : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
  %true = kiln.constant dense<true> : tensor<8x8xi1>
  %and = kiln.and %le, %true : (tensor<8x8xi1>, tensor<8x8xi1>) -> tensor<8x8xi1>
  %mask = kiln.broadcast_in_dim %and {dimensions = array<i64: 2, 3>} : (tensor<8x8xi1>) -> tensor<2x4x8x8xi1>
  %fill = kiln.constant dense<0xFF800000> : tensor<2x4x8x8xf32>
  %0 = kiln.select %mask, %scores, %fill : (tensor<2x4x8x8xi1>, tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}

// -----

// arange literals instead of iotas, a diagonal offset (keep j <= i + 1).
// CHECK-LABEL: func.func @arange
// CHECK:         kiln.causal_mask {column_dimension = 1 : i64, kept = true, masked = false, max_diagonal = 1 : i64, row_dimension = 0 : i64} : tensor<4x4xi1>
func.func @arange(%scores: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %range = kiln.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
  %one = kiln.constant dense<1> : tensor<4x4xi64>
  %rows = kiln.broadcast_in_dim %range {dimensions = array<i64: 0>} : (tensor<4xi64>) -> tensor<4x4xi64>
  %columns = kiln.broadcast_in_dim %range {dimensions = array<i64: 1>} : (tensor<4xi64>) -> tensor<4x4xi64>
  %shifted = kiln.add %rows, %one : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi64>
  %keep = kiln.compare %columns, %shifted {direction = "LE"} : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
  %zero = kiln.constant dense<0.0> : tensor<4x4xf32>
  %0 = kiln.select %keep, %scores, %zero : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// Dense triangular literals, checked element by element: a predicate and
// an additive bias (0 kept, -inf masked) added to the scores.
// CHECK-LABEL: func.func @literals
// CHECK:         %[[PRED:.*]] = kiln.causal_mask {column_dimension = 1 : i64, kept = true, masked = false, max_diagonal = 0 : i64, row_dimension = 0 : i64} : tensor<3x3xi1>
// CHECK-NEXT:    %[[BIAS:.*]] = kiln.causal_mask {column_dimension = 1 : i64, kept = 0.000000e+00 : f32, masked = 0xFF800000 : f32, max_diagonal = 0 : i64, row_dimension = 0 : i64} : tensor<3x3xf32>
// CHECK-NEXT:    kiln.add %arg0, %[[BIAS]]
func.func @literals(%scores: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xi1>) {
  %mask = kiln.constant dense<[[true, false, false], [true, true, false], [true, true, true]]> : tensor<3x3xi1>
  %bias = kiln.constant dense<[[0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0]]> : tensor<3x3xf32>
  %0 = kiln.add %scores, %bias : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  return %0, %mask : tensor<3x3xf32>, tensor<3x3xi1>
}

// -----

// An additive bias built from iotas: select(future, -10000, 0) in bf16,
// written in the causal form (the past kept at 0, the future masked).
// CHECK-LABEL: func.func @bias
// CHECK:         %[[BIAS:.*]] = kiln.causal_mask {column_dimension = 1 : i64, kept = 0.000000e+00 : bf16, masked = -9.984000e+03 : bf16, max_diagonal = 0 : i64, row_dimension = 0 : i64} : tensor<16x16xbf16>
// CHECK-NEXT:    kiln.add %arg0, %[[BIAS]]
func.func @bias(%scores: tensor<16x16xbf16>) -> tensor<16x16xbf16> {
  %rows = kiln.iota {iota_dimension = 0 : i64} : tensor<16x16xi32>
  %columns = kiln.iota {iota_dimension = 1 : i64} : tensor<16x16xi32>
  %future = kiln.compare %columns, %rows {direction = "GT"} : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi1>
  %zero = kiln.constant dense<0.0> : tensor<16x16xbf16>
  %big = kiln.constant dense<-1.0e+04> : tensor<16x16xbf16>
  %bias = kiln.select %future, %big, %zero : (tensor<16x16xi1>, tensor<16x16xbf16>, tensor<16x16xbf16>) -> tensor<16x16xbf16>
  %0 = kiln.add %scores, %bias : (tensor<16x16xbf16>, tensor<16x16xbf16>) -> tensor<16x16xbf16>
  return %0 : tensor<16x16xbf16>
}

// -----

// A sliding window of 4: keep i - 3 <= j <= i (two half-spaces).
// CHECK-LABEL: func.func @sliding_window
// CHECK:         kiln.causal_mask {column_dimension = 1 : i64, kept = true, masked = false, max_diagonal = 0 : i64, min_diagonal = -3 : i64, row_dimension = 0 : i64} : tensor<8x8xi1>
func.func @sliding_window(%scores: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %rows = kiln.iota {iota_dimension = 0 : i64} : tensor<8x8xi32>
  %columns = kiln.iota {iota_dimension = 1 : i64} : tensor<8x8xi32>
  %three = kiln.constant dense<3> : tensor<8x8xi32>
  %causal = kiln.compare %columns, %rows {direction = "LE"} : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
  %distance = kiln.subtract %rows, %columns : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi32>
  %near = kiln.compare %distance, %three {direction = "LE"} : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
  %keep = kiln.and %causal, %near : (tensor<8x8xi1>, tensor<8x8xi1>) -> tensor<8x8xi1>
  %fill = kiln.constant dense<-1.0e+09> : tensor<8x8xf32>
  %0 = kiln.select %keep, %scores, %fill : (tensor<8x8xi1>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// Negative: a padding mask (key positions below a length parameter).
// CHECK-LABEL: func.func @padding_mask
// CHECK-NOT:     kiln.causal_mask
func.func @padding_mask(%scores: tensor<8x8xf32>, %length: tensor<8x8xi32>) -> tensor<8x8xf32> {
  %columns = kiln.iota {iota_dimension = 1 : i64} : tensor<8x8xi32>
  %keep = kiln.compare %columns, %length {direction = "LT"} : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
  %fill = kiln.constant dense<-1.0e+09> : tensor<8x8xf32>
  %0 = kiln.select %keep, %scores, %fill : (tensor<8x8xi1>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// Negative: a decode mask (keys up to a position parameter, broadcast).
// CHECK-LABEL: func.func @decode_mask
// CHECK-NOT:     kiln.causal_mask
func.func @decode_mask(%scores: tensor<1x8xf32>, %position: tensor<i32>) -> tensor<1x8xf32> {
  %columns = kiln.iota {iota_dimension = 1 : i64} : tensor<1x8xi32>
  %at = kiln.broadcast_in_dim %position {dimensions = array<i64>} : (tensor<i32>) -> tensor<1x8xi32>
  %keep = kiln.compare %columns, %at {direction = "LE"} : (tensor<1x8xi32>, tensor<1x8xi32>) -> tensor<1x8xi1>
  %fill = kiln.constant dense<-1.0e+09> : tensor<1x8xf32>
  %0 = kiln.select %keep, %scores, %fill : (tensor<1x8xi1>, tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// Negative: a literal that is almost triangular (one element off), and a
// mask whose row index passes through a parameter.
// CHECK-LABEL: func.func @not_masks
// CHECK-NOT:     kiln.causal_mask
func.func @not_masks(%scores: tensor<3x3xf32>, %offset: tensor<3x3xi32>) -> (tensor<3x3xi1>, tensor<3x3xi1>) {
  %almost = kiln.constant dense<[[true, false, false], [true, true, true], [true, true, true]]> : tensor<3x3xi1>
  %rows = kiln.iota {iota_dimension = 0 : i64} : tensor<3x3xi32>
  %columns = kiln.iota {iota_dimension = 1 : i64} : tensor<3x3xi32>
  %moved = kiln.add %rows, %offset : (tensor<3x3xi32>, tensor<3x3xi32>) -> tensor<3x3xi32>
  %keep = kiln.compare %columns, %moved {direction = "LE"} : (tensor<3x3xi32>, tensor<3x3xi32>) -> tensor<3x3xi1>
  return %almost, %keep : tensor<3x3xi1>, tensor<3x3xi1>
}
