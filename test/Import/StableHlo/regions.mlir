// RUN: kiln-translate --import-stablehlo %s | FileCheck %s

// Ops with regions and dimension numbers: reduce in both pretty forms
// (`applies` builds the reducer; `reducer(%a0, %b0) (%a1, %b1)` pairs each
// input's accumulator and value, and the block takes all the first ones,
// then the second ones), dot_general's and convolution's pretty forms, and
// reduce_window's generic form with its padding split in two.

// CHECK:      %2 = kiln.reduce(%arg0, %0) attributes {dimensions = array<i64: 1>} {
// CHECK-NEXT: ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
// CHECK-NEXT:   %7 = kiln.add %arg5, %arg6
// CHECK-NEXT:   kiln.return %7 : tensor<f32>
// CHECK:      %3:2 = kiln.reduce(%arg0, %arg1, %0, %1) attributes {dimensions = array<i64: 1>} {
// CHECK-NEXT: ^bb0(%arg5: tensor<f32>, %arg6: tensor<i32>, %arg7: tensor<f32>, %arg8: tensor<i32>):
// CHECK-NEXT:   %7 = kiln.maximum %arg5, %arg7
// CHECK-NEXT:   %8 = kiln.maximum %arg6, %arg8
// CHECK-NEXT:   kiln.return %7, %8 : tensor<f32>, tensor<i32>
// CHECK:      %4 = kiln.dot_general %arg0, %arg2 {lhs_contracting_dims = array<i64: 1>, operand_precision = ["DEFAULT", "HIGHEST"], rhs_contracting_dims = array<i64: 0>}
// CHECK:      %5 = kiln.convolution %arg3, %arg4 {base_dilations = array<i64: 1, 1>, input_batch_dimension = 0 : i64, input_feature_dimension = 3 : i64, input_spatial_dimensions = array<i64: 1, 2>, kernel_input_feature_dimension = 2 : i64, kernel_output_feature_dimension = 3 : i64, kernel_spatial_dimensions = array<i64: 0, 1>, output_batch_dimension = 0 : i64, output_feature_dimension = 3 : i64, output_spatial_dimensions = array<i64: 1, 2>, padding_high = array<i64: 1, 1>, padding_low = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 1, 1>}
// CHECK:      %6 = kiln.reduce_window(%arg0, %0) attributes {base_dilations = array<i64: 1, 1>, padding_high = array<i64: 0, 0>, padding_low = array<i64: 1, 0>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 1, 1>} {
func.func public @main(%x: tensor<4x6xf32>, %y: tensor<4x6xi32>, %w: tensor<6x5xf32>, %img: tensor<1x8x8x2xf32>, %k: tensor<3x3x2x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4x5xf32>, tensor<1x8x8x4xf32>, tensor<4x6xf32>) {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.reduce(%x init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  %1:2 = stablehlo.reduce(%x init: %cst), (%y init: %c) across dimensions = [1] : (tensor<4x6xf32>, tensor<4x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
    reducer(%a: tensor<f32>, %b: tensor<f32>) (%ai: tensor<i32>, %bi: tensor<i32>)  {
      %m = stablehlo.maximum %a, %b : tensor<f32>
      %mi = stablehlo.maximum %ai, %bi : tensor<i32>
      stablehlo.return %m, %mi : tensor<f32>, tensor<i32>
    }
  %2 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0], precision = [DEFAULT, HIGHEST] : (tensor<4x6xf32>, tensor<6x5xf32>) -> tensor<4x5xf32>
  %3 = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x8x8x4xf32>
  %4 = "stablehlo.reduce_window"(%x, %cst) <{padding = dense<[[1, 0], [0, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
  return %0, %1#0, %1#1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4x5xf32>, tensor<1x8x8x4xf32>, tensor<4x6xf32>
}
