// RUN: kiln run --interpret %s | FileCheck %s

// HLO's numerics, each checked by the evaluator against values HLO's rules
// give: integer division and remainder by zero and of the smallest value by
// -1, shifts past the width, unsigned division, NaN in maximum and minimum,
// rounding ties, saturating conversions, rounding to bf16, reduce_precision
// (rounding, overflow, flushing), predicates' add, bit counts, integer
// powers, the total order, clamped dynamic slices and gathers, negative and
// interior padding, scatter's skipped updates and a stable multi-operand
// sort; NaN quantized to the stored integer 0 (as XLA converts NaN to
// integers; regression: it was the zero point).

// CHECK-NOT: FAILED
// CHECK: 27 of 27 checks passed

func.func public @main() {
  %a = stablehlo.constant dense<[7, -7, -2147483648, 7]> : tensor<4xi32>
  %b = stablehlo.constant dense<[0, 0, -1, -2]> : tensor<4xi32>
  %div = stablehlo.divide %a, %b : tensor<4xi32>
  check.expect_eq_const %div, dense<[-1, -1, -2147483648, -3]> : tensor<4xi32>
  %rem = stablehlo.remainder %a, %b : tensor<4xi32>
  check.expect_eq_const %rem, dense<[7, -7, 0, 1]> : tensor<4xi32>

  %ua = stablehlo.constant dense<[7, 7]> : tensor<2xui32>
  %ub = stablehlo.constant dense<[0, 2]> : tensor<2xui32>
  %udiv = stablehlo.divide %ua, %ub : tensor<2xui32>
  check.expect_eq_const %udiv, dense<[4294967295, 3]> : tensor<2xui32>

  %one = stablehlo.constant dense<[1, 1, 1]> : tensor<3xi8>
  %amounts = stablehlo.constant dense<[1, 8, -56]> : tensor<3xi8>
  %shl = stablehlo.shift_left %one, %amounts : tensor<3xi8>
  check.expect_eq_const %shl, dense<[2, 0, 0]> : tensor<3xi8>
  %neg = stablehlo.constant dense<[-128, -128, 64]> : tensor<3xi8>
  %amounts2 = stablehlo.constant dense<[1, 8, 9]> : tensor<3xi8>
  %sra = stablehlo.shift_right_arithmetic %neg, %amounts2 : tensor<3xi8>
  check.expect_eq_const %sra, dense<[-64, -1, 0]> : tensor<3xi8>
  %srl = stablehlo.shift_right_logical %neg, %amounts2 : tensor<3xi8>
  check.expect_eq_const %srl, dense<[64, 0, 0]> : tensor<3xi8>

  %x = stablehlo.constant dense<[0x7FC00000, 1.0, -2.0]> : tensor<3xf32>
  %y = stablehlo.constant dense<[1.0, 0x7FC00000, 3.0]> : tensor<3xf32>
  %max = stablehlo.maximum %x, %y : tensor<3xf32>
  check.expect_eq_const %max, dense<[0x7FC00000, 0x7FC00000, 3.0]> : tensor<3xf32>
  %min = stablehlo.minimum %x, %y : tensor<3xf32>
  check.expect_eq_const %min, dense<[0x7FC00000, 0x7FC00000, -2.0]> : tensor<3xf32>

  %ties = stablehlo.constant dense<[0.5, 1.5, 2.5, -0.5, -2.5]> : tensor<5xf32>
  %even = stablehlo.round_nearest_even %ties : tensor<5xf32>
  check.expect_eq_const %even, dense<[0.0, 2.0, 2.0, -0.0, -2.0]> : tensor<5xf32>
  %afz = stablehlo.round_nearest_afz %ties : tensor<5xf32>
  check.expect_eq_const %afz, dense<[1.0, 2.0, 3.0, -1.0, -3.0]> : tensor<5xf32>

  %wide = stablehlo.constant dense<[300.0, -300.0, 0x7FC00000, 2.9, -2.9]> : tensor<5xf32>
  %narrow = stablehlo.convert %wide : (tensor<5xf32>) -> tensor<5xi8>
  check.expect_eq_const %narrow, dense<[127, -128, 0, 2, -2]> : tensor<5xi8>
  %unsigned = stablehlo.convert %wide : (tensor<5xf32>) -> tensor<5xui8>
  check.expect_eq_const %unsigned, dense<[255, 0, 0, 2, 0]> : tensor<5xui8>
  %fine = stablehlo.constant dense<[1.00390625, 1.01171875]> : tensor<2xf32>
  %bf16 = stablehlo.convert %fine : (tensor<2xf32>) -> tensor<2xbf16>
  check.expect_eq_const %bf16, dense<[1.0, 1.015625]> : tensor<2xbf16>

  %precise = stablehlo.constant dense<[1.3, 70000.0, 1.0e-06, 0x7FC00000]> : tensor<4xf32>
  %reduced = stablehlo.reduce_precision %precise, format = e5m2 : tensor<4xf32>
  check.expect_eq_const %reduced, dense<[1.25, 0x7F800000, 0.0, 0x7FC00000]> : tensor<4xf32>

  %p = stablehlo.constant dense<[false, true, true]> : tensor<3xi1>
  %q = stablehlo.constant dense<[false, false, true]> : tensor<3xi1>
  %or = stablehlo.add %p, %q : tensor<3xi1>
  check.expect_eq_const %or, dense<[false, true, true]> : tensor<3xi1>

  %bits = stablehlo.constant dense<[-1, 3, 1, 0]> : tensor<4xi8>
  %pop = stablehlo.popcnt %bits : tensor<4xi8>
  check.expect_eq_const %pop, dense<[8, 2, 1, 0]> : tensor<4xi8>
  %clz = stablehlo.count_leading_zeros %bits : tensor<4xi8>
  check.expect_eq_const %clz, dense<[0, 6, 7, 8]> : tensor<4xi8>

  %base = stablehlo.constant dense<[2, 2, -1, 2]> : tensor<4xi32>
  %exponent = stablehlo.constant dense<[10, -1, -3, 0]> : tensor<4xi32>
  %pow = stablehlo.power %base, %exponent : tensor<4xi32>
  check.expect_eq_const %pow, dense<[1024, 0, -1, 1]> : tensor<4xi32>

  %smallest = stablehlo.constant dense<-128> : tensor<i8>
  %abs = stablehlo.abs %smallest : tensor<i8>
  check.expect_eq_const %abs, dense<-128> : tensor<i8>

  %zeros = stablehlo.constant dense<[-0.0, 0x7FC00000]> : tensor<2xf32>
  %others = stablehlo.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %total = stablehlo.compare LT, %zeros, %others, TOTALORDER : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  check.expect_eq_const %total, dense<[true, false]> : tensor<2xi1>
  %partial = stablehlo.compare LT, %zeros, %others, FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  check.expect_eq_const %partial, dense<[false, false]> : tensor<2xi1>

  %iota = stablehlo.iota dim = 0 : tensor<10xi32>
  %start = stablehlo.constant dense<8> : tensor<i32>
  %slice = stablehlo.dynamic_slice %iota, %start, sizes = [4] : (tensor<10xi32>, tensor<i32>) -> tensor<4xi32>
  check.expect_eq_const %slice, dense<[6, 7, 8, 9]> : tensor<4xi32>

  %small = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %fill = stablehlo.constant dense<0> : tensor<i32>
  %padded = stablehlo.pad %small, %fill, low = [-1], high = [1], interior = [1] : (tensor<3xi32>, tensor<i32>) -> tensor<5xi32>
  check.expect_eq_const %padded, dense<[0, 2, 0, 3, 0]> : tensor<5xi32>

  %five = stablehlo.iota dim = 0 : tensor<5xi32>
  %indices = stablehlo.constant dense<[[3]]> : tensor<1x1xi32>
  %gathered = "stablehlo.gather"(%five, %indices) {dimension_numbers = #stablehlo.gather<offset_dims = [1], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 3>} : (tensor<5xi32>, tensor<1x1xi32>) -> tensor<1x3xi32>
  check.expect_eq_const %gathered, dense<[[2, 3, 4]]> : tensor<1x3xi32>

  %targets = stablehlo.constant dense<[[1], [7]]> : tensor<2x1xi32>
  %updates = stablehlo.constant dense<[10, 20]> : tensor<2xi32>
  %scattered = "stablehlo.scatter"(%five, %targets, %updates) ({
  ^bb0(%old: tensor<i32>, %new: tensor<i32>):
    %sum = stablehlo.add %old, %new : tensor<i32>
    stablehlo.return %sum : tensor<i32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<5xi32>, tensor<2x1xi32>, tensor<2xi32>) -> tensor<5xi32>
  check.expect_eq_const %scattered, dense<[0, 11, 2, 3, 4]> : tensor<5xi32>

  %keys = stablehlo.constant dense<[1, 0, 1, 0]> : tensor<4xi32>
  %values = stablehlo.constant dense<[10, 20, 30, 40]> : tensor<4xi32>
  %sorted:2 = "stablehlo.sort"(%keys, %values) ({
  ^bb0(%k0: tensor<i32>, %k1: tensor<i32>, %v0: tensor<i32>, %v1: tensor<i32>):
    %less = stablehlo.compare LT, %k0, %k1 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %less : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<4xi32>, tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>)
  check.expect_eq_const %sorted#1, dense<[20, 40, 10, 30]> : tensor<4xi32>

  %real = stablehlo.constant dense<[0x7FC00000, 1.0]> : tensor<2xf32>
  %quantized = stablehlo.uniform_quantize %real : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-128>>
  %back = stablehlo.uniform_dequantize %quantized : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-128>>) -> tensor<2xf32>
  check.expect_eq_const %back, dense<[64.0, 1.0]> : tensor<2xf32>
  func.return
}
