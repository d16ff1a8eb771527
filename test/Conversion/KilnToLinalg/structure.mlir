// RUN: kiln-opt --convert-kiln-to-linalg -split-input-file %s | FileCheck %s

// A causal mask is an index comparison, never a literal: it fuses into its
// consumer later.
// CHECK-LABEL: func.func @causal_mask
// CHECK-NOT:     arith.constant dense<
// CHECK:         linalg.generic
// CHECK:           %[[I:.*]] = linalg.index 0 : index
// CHECK:           %[[J:.*]] = linalg.index 1 : index
// CHECK:           %[[D:.*]] = arith.subi %[[J]], %[[I]] : index
// CHECK:           arith.cmpi sle, %[[D]]
// CHECK:           arith.select
func.func @causal_mask() -> tensor<8x8xi1> {
  %0 = kiln.causal_mask {column_dimension = 1 : i64, kept = true, masked = false, max_diagonal = 0 : i64, row_dimension = 0 : i64} : tensor<8x8xi1>
  return %0 : tensor<8x8xi1>
}

// -----

// dot_general of integers: batch, lhs free, rhs free loops, then the
// contraction, in one generic.
// CHECK: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK: #[[RHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @batch_dot
// CHECK:         linalg.fill
// CHECK:         linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK:           arith.muli {{.*}} : i32
// CHECK:           arith.addi {{.*}} : i32
func.func @batch_dot(%a: tensor<2x4x8xi32>, %b: tensor<2x8x3xi32>) -> tensor<2x4x3xi32> {
  %0 = kiln.dot_general %a, %b {lhs_batch_dims = array<i64: 0>, rhs_batch_dims = array<i64: 0>, lhs_contracting_dims = array<i64: 2>, rhs_contracting_dims = array<i64: 1>} : (tensor<2x4x8xi32>, tensor<2x8x3xi32>) -> tensor<2x4x3xi32>
  return %0 : tensor<2x4x3xi32>
}

// -----

// dot_general of bf16: the operands widened to f32 (their products are
// exact there), a batch matmul in f32 (tiled like any), the sums rounded
// to bf16 once.
// CHECK-LABEL: func.func @batch_dot_bf16
// CHECK:         arith.extf {{.*}} : bf16 to f32
// CHECK:         arith.extf {{.*}} : bf16 to f32
// CHECK:         linalg.batch_matmul {{.*}} -> tensor<2x4x3xf32>
// CHECK:         arith.truncf {{.*}} : f32 to bf16
func.func @batch_dot_bf16(%a: tensor<2x4x8xbf16>, %b: tensor<2x8x3xbf16>) -> tensor<2x4x3xbf16> {
  %0 = kiln.dot_general %a, %b {lhs_batch_dims = array<i64: 0>, rhs_batch_dims = array<i64: 0>, lhs_contracting_dims = array<i64: 2>, rhs_contracting_dims = array<i64: 1>} : (tensor<2x4x8xbf16>, tensor<2x8x3xbf16>) -> tensor<2x4x3xbf16>
  return %0 : tensor<2x4x3xbf16>
}

// -----

// reduce: the reducer region becomes the body, accumulator first.
// CHECK-LABEL: func.func @reduce_max
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:         ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK:           %[[M:.*]] = arith.maximumf %[[ACC]], %[[IN]] : f32
// CHECK:           linalg.yield %[[M]]
func.func @reduce_max(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %init = kiln.constant dense<0xFF800000> : tensor<f32>
  %0 = kiln.reduce(%a, %init) attributes {dimensions = array<i64: 1>} {
  ^bb0(%acc: tensor<f32>, %x: tensor<f32>):
    %m = kiln.maximum %acc, %x : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %m : tensor<f32>
  } : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// while: scf.while, the condition's 0-d predicate read by scf.condition.
// CHECK-LABEL: func.func @loop
// CHECK:         scf.while (%{{.*}} = %{{.*}}) : (tensor<i32>) -> tensor<i32>
// CHECK:           %[[C:.*]] = tensor.extract
// CHECK:           scf.condition(%[[C]])
// CHECK:         } do {
// CHECK:           scf.yield
func.func @loop(%n: tensor<i32>) -> tensor<i32> {
  %0 = kiln.while(%n) {
  ^bb0(%i: tensor<i32>):
    %ten = kiln.constant dense<10> : tensor<i32>
    %c = kiln.compare %i, %ten {direction = "LT"} : (tensor<i32>, tensor<i32>) -> tensor<i1>
    kiln.return %c : tensor<i1>
  }, {
  ^bb0(%i: tensor<i32>):
    %one = kiln.constant dense<1> : tensor<i32>
    %next = kiln.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    kiln.return %next : tensor<i32>
  } : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// conditional on a predicate: scf.if, branch 0 when true.
// CHECK-LABEL: func.func @choose
// CHECK:         scf.if %{{.*}} -> (tensor<4xf32>)
// CHECK:           arith.negf
// CHECK:         } else {
// CHECK:           math.exp
func.func @choose(%p: tensor<i1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.conditional(%p, %a, %a) attributes {branch_operand_counts = array<i64: 1, 1>} {
  ^bb0(%x: tensor<4xf32>):
    %n = kiln.negate %x : (tensor<4xf32>) -> tensor<4xf32>
    kiln.return %n : tensor<4xf32>
  }, {
  ^bb0(%x: tensor<4xf32>):
    %e = kiln.exponential %x : (tensor<4xf32>) -> tensor<4xf32>
    kiln.return %e : tensor<4xf32>
  } : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// scatter: a loop over the updates; out-of-range positions are skipped.
// CHECK-LABEL: func.func @scatter_add
// CHECK:         scf.for {{.*}} iter_args
// CHECK:           tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<2x1xi32>
// CHECK:           scf.if
// CHECK:             arith.addf
// CHECK:             tensor.insert
func.func @scatter_add(%a: tensor<5xf32>, %i: tensor<2x1xi32>, %u: tensor<2xf32>) -> tensor<5xf32> {
  %0 = kiln.scatter(%a, %i, %u) attributes {index_vector_dim = 1 : i64, inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>} {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = kiln.add %x, %y : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %s : tensor<f32>
  } : (tensor<5xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// Scores whose masked positions nothing reads (kiln-mark-masked-contractions
// marks them): row blocks of 128, and for each only the column blocks that
// meet the band, up to (row block + 1) * 128 - 1 + max_diagonal; the rest
// stays 0.
// CHECK-LABEL: func.func @masked_scores
// CHECK:         linalg.transpose
// CHECK:         %[[ZERO:.*]] = linalg.fill {{.*}} -> tensor<1x256x256xf32>
// CHECK:         scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[ZERO]])
// CHECK:           %[[LAST:.*]] = arith.divsi
// CHECK:           scf.for %{{.*}} = %{{.*}} to %[[LAST]]
// CHECK:             linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<1x128x32xf32>, tensor<1x32x128xf32>)
// CHECK:             tensor.insert_slice
func.func @masked_scores(%q: tensor<256x32xf32>, %k: tensor<256x32xf32>) -> tensor<256x256xf32> {
  %0 = kiln.dot_general %q, %k {kiln.masked_contraction = {max_diagonal = 0 : i64, role = "scores"}, lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 1>} : (tensor<256x32xf32>, tensor<256x32xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// -----

// The weighted sum: each row block adds only the depth blocks inside the
// band, into its own rows of the result.
// CHECK-LABEL: func.func @masked_values
// CHECK:         scf.for
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[CARRIED:[^ ]*]] =
// CHECK:             %[[ACC:.*]] = tensor.extract_slice %[[CARRIED]][{{.*}} to tensor<1x128x32xf32>
// CHECK:             linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<1x128x128xf32>, tensor<1x128x32xf32>) outs(%[[ACC]] : tensor<1x128x32xf32>)
func.func @masked_values(%p: tensor<256x256xf32>, %v: tensor<256x32xf32>) -> tensor<256x32xf32> {
  %0 = kiln.dot_general %p, %v {kiln.masked_contraction = {max_diagonal = 0 : i64, role = "values"}, lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 0>} : (tensor<256x256xf32>, tensor<256x32xf32>) -> tensor<256x32xf32>
  return %0 : tensor<256x32xf32>
}
