// RUN: kiln-translate --import-stablehlo %s | FileCheck %s

// Shape ops in their pretty forms. StableHLO's broadcast_in_dim may stretch
// a dimension of size 1; HLO's may not, so that dimension is reshaped away
// first. A dynamic op whose shape operands are constants and whose result
// shape is static is the static op.

// CHECK:      %0 = kiln.reshape %arg0 : (tensor<1x3xf32>) -> tensor<3xf32>
// CHECK-NEXT: %1 = kiln.broadcast_in_dim %0 {dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: %2 = kiln.reshape %arg1 : (tensor<4x3xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: %3 = kiln.transpose %2 {dimensions = array<i64: 1, 0>}
// CHECK-NEXT: %4 = kiln.slice %3 {limit_indices = array<i64: 4, 3>, start_indices = array<i64: 0, 1>, strides = array<i64: 2, 1>} : (tensor<4x3xf32>) -> tensor<2x2xf32>
// CHECK-NEXT: %5 = kiln.concatenate %4, %4 {dimensions = array<i64: 0>}
// CHECK-NEXT: %6 = kiln.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %7 = kiln.pad %5, %6 {edge_padding_high = array<i64: 0, 0>, edge_padding_low = array<i64: 0, 1>, interior_padding = array<i64: 0, 0>}
// CHECK-NEXT: %8 = kiln.iota {iota_dimension = 1 : i64} : tensor<4x3xf32>
// CHECK-NEXT: %9 = kiln.reverse %8 {dimensions = array<i64: 0>}
// CHECK-NEXT: %10 = kiln.dynamic_slice %9, %arg2, %arg2 {dynamic_slice_sizes = array<i64: 2, 3>}
// CHECK-NEXT: %11 = kiln.dynamic_update_slice %7, %10, %arg2, %arg2
// CHECK-NEXT: %12 = kiln.add %11, %1
// CHECK-NEXT: %13 = kiln.constant dense<[4, 3]> : tensor<2xi64>
// CHECK-NEXT: %14 = kiln.broadcast_in_dim %6 {dimensions = array<i64>} : (tensor<f32>) -> tensor<4x3xf32>
func.func public @main(%arg0: tensor<1x3xf32>, %arg1: tensor<4x3xf32>, %i: tensor<i32>) -> tensor<4x3xf32> {
  %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<4x3xf32>
  %1 = stablehlo.reshape %arg1 : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %2 = stablehlo.transpose %1, dims = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %3 = stablehlo.slice %2 [0:4:2, 1:3] : (tensor<4x3xf32>) -> tensor<2x2xf32>
  %4 = stablehlo.concatenate %3, %3, dim = 0 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %5 = stablehlo.pad %4, %cst, low = [0, 1], high = [0, 0], interior = [0, 0] : (tensor<4x2xf32>, tensor<f32>) -> tensor<4x3xf32>
  %6 = stablehlo.iota dim = 1 : tensor<4x3xf32>
  %7 = stablehlo.reverse %6, dims = [0] : tensor<4x3xf32>
  %8 = stablehlo.dynamic_slice %7, %i, %i, sizes = [2, 3] : (tensor<4x3xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  %9 = stablehlo.dynamic_update_slice %5, %8, %i, %i : (tensor<4x3xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<4x3xf32>
  %10 = stablehlo.add %9, %0 : tensor<4x3xf32>
  %shape = stablehlo.constant dense<[4, 3]> : tensor<2xi64>
  %11 = stablehlo.dynamic_broadcast_in_dim %cst, %shape, dims = [] : (tensor<f32>, tensor<2xi64>) -> tensor<4x3xf32>
  %12 = stablehlo.add %10, %11 : tensor<4x3xf32>
  return %12 : tensor<4x3xf32>
}
