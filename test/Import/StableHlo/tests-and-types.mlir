// RUN: kiln-translate --import-stablehlo %s | FileCheck %s

// What JAX's and StableHLO's tests write besides plain ops: a composite is
// a call of its decomposition; the golden tests' checks (check.* ops and
// @check.* custom calls) become kiln.check, a `_const` check's value a
// constant; tuples are taken apart; an element-wise op on quantized tensors
// whose quantization changes is dequantize, compute, quantize (StableHLO's
// meaning); tokens are kiln's; other custom calls keep their target and
// configuration. Where a function is @main, the others are its callees.

// CHECK:      func.func private @add_n.impl
// CHECK:      func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-2>>, %arg2: !kiln.token) -> (tensor<4xf32>, tensor<4x!quant.uniform<i8:f32, 2.500000e-01>>, !kiln.token)
// CHECK:      %1 = call @add_n.impl(%0) {kiln.composite = "kiln.add_two"} : (tensor<i64>) -> tensor<i64>
// CHECK-NEXT: %2 = kiln.constant dense<3> : tensor<i64>
// CHECK-NEXT: kiln.check %1, %2 {comparison = "eq"} : (tensor<i64>, tensor<i64>) -> ()
// CHECK-NEXT: kiln.check %arg0, %arg0 {comparison = "almost_eq", tolerance = 1.000000e-01 : f64}
// CHECK-NEXT: kiln.check %arg0, %arg0 {comparison = "close"}
// CHECK-NEXT: %3 = kiln.uniform_dequantize %arg1 : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-2>>) -> tensor<4xf32>
// CHECK-NEXT: %4 = kiln.negate %3 : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %5 = kiln.uniform_quantize %4 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 2.500000e-01>>
// CHECK-NEXT: %6 = kiln.after_all %arg2 : (!kiln.token) -> !kiln.token
// CHECK-NEXT: %7 = kiln.custom_call %arg0 {api_version = "API_VERSION_STATUS_RETURNING", backend_config = "cfg", custom_call_target = "my_kernel"}
// CHECK-NOT:  tuple
func.func @add_n.impl(%arg0: tensor<i64>) -> tensor<i64> {
  %0 = stablehlo.constant dense<2> : tensor<i64>
  %1 = stablehlo.add %arg0, %0 : tensor<i64>
  func.return %1 : tensor<i64>
}
func.func public @main(%x: tensor<4xf32>, %q: tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-2>>, %t: !stablehlo.token) -> (tensor<4xf32>, tensor<4x!quant.uniform<i8:f32, 2.500000e-01:0>>, !stablehlo.token) {
  %c = stablehlo.constant dense<1> : tensor<i64>
  %0 = stablehlo.composite "kiln.add_two" %c {composite_attributes = {n = 2 : i64}, decomposition = @add_n.impl} : (tensor<i64>) -> tensor<i64>
  check.expect_eq_const %0, dense<3> : tensor<i64>
  %1 = stablehlo.tuple %x, %0 : tuple<tensor<4xf32>, tensor<i64>>
  %2 = stablehlo.get_tuple_element %1[0] : (tuple<tensor<4xf32>, tensor<i64>>) -> tensor<4xf32>
  check.expect_almost_eq %2, %x, tolerance = 0.1 : tensor<4xf32>
  stablehlo.custom_call @check.expect_close(%2, %x) {has_side_effect = true} : (tensor<4xf32>, tensor<4xf32>) -> ()
  %3 = stablehlo.negate %q : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-2>>) -> tensor<4x!quant.uniform<i8:f32, 2.500000e-01:0>>
  %4 = stablehlo.after_all %t : !stablehlo.token
  %5 = stablehlo.custom_call @my_kernel(%2) {backend_config = "cfg", api_version = 2 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  return %5, %3, %4 : tensor<4xf32>, tensor<4x!quant.uniform<i8:f32, 2.500000e-01:0>>, !stablehlo.token
}
