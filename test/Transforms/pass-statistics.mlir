// RUN: kiln-opt --kiln-fold-causal-mask --kiln-mark-masked-contractions -mlir-pass-statistics %s -o /dev/null 2>&1 | FileCheck %s

// -mlir-pass-statistics reports the masks folded, the mask bytes no longer
// materialized and the multiply-adds a consumer can skip, and the
// contractions whose masked blocks the backend skips (kiln's passes count
// for themselves: LLVM's release builds compile pass statistics out).

// CHECK: kiln pass statistics report
// CHECK: KilnFoldCausalMaskPass
// CHECK-NEXT: (S){{ +}}1 masks-folded - Masks turned into kiln.causal_mask
// CHECK-NEXT: (S){{ +}}64 mask-bytes - Bytes of mask tensors no longer materialized
// CHECK-NEXT: (S){{ +}}112 skippable-macs
// CHECK: KilnMarkMaskedContractionsPass
// CHECK-NEXT: (S){{ +}}1 scores
// CHECK-NEXT: (S){{ +}}0 values
func.func @main(%q: tensor<8x4xf32>, %k: tensor<8x4xf32>) -> tensor<8x8xf32> {
  %scores = kiln.dot_general %q, %k {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 1>} : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x8xf32>
  %rows = kiln.iota {iota_dimension = 0 : i64} : tensor<8x8xi32>
  %columns = kiln.iota {iota_dimension = 1 : i64} : tensor<8x8xi32>
  %keep = kiln.compare %rows, %columns {direction = "GE"} : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
  %fill = kiln.constant dense<0xFF800000> : tensor<8x8xf32>
  %masked = kiln.select %keep, %scores, %fill : (tensor<8x8xi1>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %masked : tensor<8x8xf32>
}
