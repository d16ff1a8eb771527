// RUN: kiln-translate --import-stablehlo %s | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-translate --import-stablehlo %s | kiln-translate --export-hlo -o %t/spec-ops.hlo
// RUN: kiln hash %s %t/spec-ops.hlo | %python %S/../../Signature/Inputs/classes.py | FileCheck %s --check-prefix=ROUNDTRIP
// ROUNDTRIP:      sig=1 key=1 spec-ops.mlir
// ROUNDTRIP-NEXT: sig=1 key=1 spec-ops.hlo

// Ops of the specification that JAX's golden tests do not use: batch norm,
// cholesky (a boolean field), rng (its shape operand is its result type's
// shape), rng_bit_generator (its algorithm a keyword), atan2, and the
// deprecated broadcast and create_token, and real_dynamic_slice with
// constant bounds. Each is a kiln (HLO) op and exports with the same
// signature.

// CHECK:      kiln.batch_norm_inference %arg0, %arg1, %arg1, %arg1, %arg1 {epsilon = 9.99999974E-6 : f32, feature_index = 2 : i64}
// CHECK-NEXT: kiln.batch_norm_training %arg0, %arg1, %arg1 {epsilon = 9.99999974E-6 : f32, feature_index = 2 : i64}
// CHECK-NEXT: kiln.batch_norm_grad %arg0, %arg1, %arg1, %arg1, %arg0 {epsilon = 9.99999974E-6 : f32, feature_index = 2 : i64}
// CHECK-NEXT: kiln.cholesky %arg2 {lower = true} : (tensor<3x3xf32>) -> tensor<3x3xf32>
// CHECK-NEXT: kiln.constant dense<[3, 4]>
// CHECK-NEXT: kiln.rng %arg4, %arg5 {distribution = "rng_uniform"} : (tensor<f32>, tensor<f32>) -> tensor<3x4xf32>
// CHECK-NEXT: kiln.rng %arg4, %arg5 {distribution = "rng_normal"} : (tensor<f32>, tensor<f32>) -> tensor<3x4xf32>
// CHECK-NEXT: kiln.rng_bit_generator %arg3 {algorithm = "rng_three_fry"} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui32>)
// CHECK-NEXT: kiln.rng_bit_generator %arg3 : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui32>)
// CHECK-NEXT: kiln.atan2 %arg6, %arg6
// CHECK-NEXT: kiln.broadcast_in_dim %arg2 {dimensions = array<i64: 1, 2>} : (tensor<3x3xf32>) -> tensor<2x3x3xf32>
// CHECK-NEXT: kiln.after_all  : () -> !kiln.token
// CHECK:      kiln.slice %arg2 {limit_indices = array<i64: 3, 2>, start_indices = array<i64: 1, 0>, strides = array<i64: 1, 2>} : (tensor<3x3xf32>) -> tensor<2x1xf32>
func.func public @main(%x: tensor<2x3x4x5xf32>, %s: tensor<4xf32>, %m: tensor<3x3xf32>, %st: tensor<2xui64>, %a: tensor<f32>, %b: tensor<f32>, %v: tensor<4xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x3x4x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3x3xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<2xui64>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<4xf32>, tensor<2x3x3xf32>, !stablehlo.token, tensor<2x1xf32>) {
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {epsilon = 1.0e-5 : f32, feature_index = 2 : i64} : (tensor<2x3x4x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4x5xf32>
  %1:3 = "stablehlo.batch_norm_training"(%x, %s, %s) {epsilon = 1.0e-5 : f32, feature_index = 2 : i64} : (tensor<2x3x4x5xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x3x4x5xf32>, tensor<4xf32>, tensor<4xf32>)
  %2:3 = "stablehlo.batch_norm_grad"(%x, %s, %s, %s, %x) {epsilon = 1.0e-5 : f32, feature_index = 2 : i64} : (tensor<2x3x4x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x3x4x5xf32>) -> (tensor<2x3x4x5xf32>, tensor<4xf32>, tensor<4xf32>)
  %3 = stablehlo.cholesky %m, lower = true : tensor<3x3xf32>
  %shape = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
  %4 = stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x4xf32>
  %5 = "stablehlo.rng"(%a, %b, %shape) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x4xf32>
  %6:2 = stablehlo.rng_bit_generator %st, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui32>)
  %7:2 = "stablehlo.rng_bit_generator"(%st) {rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui32>)
  %8 = stablehlo.atan2 %v, %v : tensor<4xf32>
  %9 = stablehlo.broadcast %m, sizes = [2] : (tensor<3x3xf32>) -> tensor<2x3x3xf32>
  %10 = stablehlo.create_token : !stablehlo.token
  %start = stablehlo.constant dense<[1, 0]> : tensor<2xi64>
  %limit = stablehlo.constant dense<[3, 2]> : tensor<2xi64>
  %stride = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %11 = stablehlo.real_dynamic_slice %m, %start, %limit, %stride : (tensor<3x3xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x1xf32>
  return %0, %1#0, %1#1, %1#2, %2#0, %2#1, %2#2, %3, %4, %5, %6#0, %6#1, %7#1, %8, %9, %10, %11 : tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x3x4x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3x3xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<2xui64>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<4xf32>, tensor<2x3x3xf32>, !stablehlo.token, tensor<2x1xf32>
}
