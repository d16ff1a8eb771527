// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// One valid use of every kiln op: each parses, verifies, and round-trips
// through both the custom and the generic assembly.

// CHECK-LABEL: func.func @leaves
func.func @leaves(%t0: !kiln.token, %t1: !kiln.token) -> (tensor<2xf32>, tensor<4xbf16>, tensor<2x3xi32>, tensor<ui32>, tensor<ui32>, !kiln.token) {
  // CHECK: kiln.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: kiln.elided_constant : tensor<4xbf16>
  %1 = kiln.elided_constant : tensor<4xbf16>
  // CHECK: kiln.iota {iota_dimension = 1 : i64} : tensor<2x3xi32>
  %2 = kiln.iota {iota_dimension = 1 : i64} : tensor<2x3xi32>
  // CHECK: kiln.partition_id : () -> tensor<ui32>
  %3 = kiln.partition_id : () -> tensor<ui32>
  // CHECK: kiln.replica_id : () -> tensor<ui32>
  %4 = kiln.replica_id : () -> tensor<ui32>
  // CHECK: kiln.after_all %{{.*}}, %{{.*}} : (!kiln.token, !kiln.token) -> !kiln.token
  %5 = kiln.after_all %t0, %t1 : (!kiln.token, !kiln.token) -> !kiln.token
  return %0, %1, %2, %3, %4, %5 : tensor<2xf32>, tensor<4xbf16>, tensor<2x3xi32>, tensor<ui32>, tensor<ui32>, !kiln.token
}

// CHECK-LABEL: func.func @broadcast_in_dim
func.func @broadcast_in_dim(%a: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK: kiln.broadcast_in_dim %{{.*}} {dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<2x3xf32>
  %0 = kiln.broadcast_in_dim %a {dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @reshape
func.func @reshape(%a: tensor<2x3xf32>) -> tensor<6xf32> {
  // CHECK: kiln.reshape %{{.*}} : (tensor<2x3xf32>) -> tensor<6xf32>
  %0 = kiln.reshape %a : (tensor<2x3xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// CHECK-LABEL: func.func @transpose
func.func @transpose(%a: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  // CHECK: kiln.transpose %{{.*}} {dimensions = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %0 = kiln.transpose %a {dimensions = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// CHECK-LABEL: func.func @reverse
func.func @reverse(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: kiln.reverse %{{.*}} {dimensions = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = kiln.reverse %a {dimensions = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @slice
func.func @slice(%a: tensor<8x6xf32>) -> tensor<3x6xf32> {
  // CHECK: kiln.slice %{{.*}} {limit_indices = array<i64: 7, 6>, start_indices = array<i64: 1, 0>, strides = array<i64: 2, 1>} : (tensor<8x6xf32>) -> tensor<3x6xf32>
  %0 = kiln.slice %a {start_indices = array<i64: 1, 0>, limit_indices = array<i64: 7, 6>, strides = array<i64: 2, 1>} : (tensor<8x6xf32>) -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}

// CHECK-LABEL: func.func @dynamic_slice
func.func @dynamic_slice(%a: tensor<8x6xf32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<2x6xf32> {
  // CHECK: kiln.dynamic_slice %{{.*}}, %{{.*}}, %{{.*}} {dynamic_slice_sizes = array<i64: 2, 6>} : (tensor<8x6xf32>, tensor<i32>, tensor<i32>) -> tensor<2x6xf32>
  %0 = kiln.dynamic_slice %a, %i, %j {dynamic_slice_sizes = array<i64: 2, 6>} : (tensor<8x6xf32>, tensor<i32>, tensor<i32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// CHECK-LABEL: func.func @dynamic_update_slice
func.func @dynamic_update_slice(%a: tensor<8x6xf32>, %u: tensor<2x6xf32>, %i: tensor<ui32>, %j: tensor<ui32>) -> tensor<8x6xf32> {
  // CHECK: kiln.dynamic_update_slice %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<8x6xf32>, tensor<2x6xf32>, tensor<ui32>, tensor<ui32>) -> tensor<8x6xf32>
  %0 = kiln.dynamic_update_slice %a, %u, %i, %j : (tensor<8x6xf32>, tensor<2x6xf32>, tensor<ui32>, tensor<ui32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}

// CHECK-LABEL: func.func @concatenate
func.func @concatenate(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> {
  // CHECK: kiln.concatenate %{{.*}}, %{{.*}} {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %0 = kiln.concatenate %a, %b {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// Low padding crops (-1), interior padding puts one element between two.
// CHECK-LABEL: func.func @pad
func.func @pad(%a: tensor<2x3xf32>, %v: tensor<f32>) -> tensor<4x7xf32> {
  // CHECK: kiln.pad %{{.*}}, %{{.*}} {edge_padding_high = array<i64: 2, 0>, edge_padding_low = array<i64: 0, -1>, interior_padding = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x4xf32>
  %0 = kiln.pad %a, %v {edge_padding_low = array<i64: 0, -1>, edge_padding_high = array<i64: 2, 0>, interior_padding = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x4xf32>
  // CHECK: kiln.pad %{{.*}}, %{{.*}} {edge_padding_high = array<i64: 0, 2>, edge_padding_low = array<i64: 2, 0>, interior_padding = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x5xf32>
  %1 = kiln.pad %a, %v {edge_padding_low = array<i64: 2, 0>, edge_padding_high = array<i64: 0, 2>, interior_padding = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x5xf32>
  %2 = kiln.concatenate %0, %1 {dimensions = array<i64: 1>} : (tensor<4x4xf32>, tensor<4x5xf32>) -> tensor<4x9xf32>
  %3 = kiln.slice %2 {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 4, 7>, strides = array<i64: 1, 1>} : (tensor<4x9xf32>) -> tensor<4x7xf32>
  return %3 : tensor<4x7xf32>
}

// CHECK-LABEL: func.func @conversions
func.func @conversions(%a: tensor<2x3xf32>, %b: tensor<2x4xbf16>) -> (tensor<2x3xi32>, tensor<2x3xui32>, tensor<2x3x4xi8>, tensor<2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xi32>) {
  // CHECK: kiln.convert %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xi32>
  %0 = kiln.convert %a : (tensor<2x3xf32>) -> tensor<2x3xi32>
  // CHECK: kiln.bitcast_convert %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xui32>
  %1 = kiln.bitcast_convert %a : (tensor<2x3xf32>) -> tensor<2x3xui32>
  // CHECK: kiln.bitcast_convert %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3x4xi8>
  %2 = kiln.bitcast_convert %a : (tensor<2x3xf32>) -> tensor<2x3x4xi8>
  %3 = kiln.slice %b {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2, 2>, strides = array<i64: 1, 1>} : (tensor<2x4xbf16>) -> tensor<2x2xbf16>
  // CHECK: kiln.bitcast_convert %{{.*}} : (tensor<2x2xbf16>) -> tensor<2xf32>
  %4 = kiln.bitcast_convert %3 : (tensor<2x2xbf16>) -> tensor<2xf32>
  // CHECK: kiln.reduce_precision %{{.*}} {exponent_bits = 8 : i64, mantissa_bits = 7 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = kiln.reduce_precision %a {exponent_bits = 8 : i64, mantissa_bits = 7 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: kiln.copy %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = kiln.copy %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: kiln.bitcast %{{.*}} : (tensor<2x3xf32>) -> tensor<6xi32>
  %7 = kiln.bitcast %a : (tensor<2x3xf32>) -> tensor<6xi32>
  return %0, %1, %2, %4, %5, %6, %7 : tensor<2x3xi32>, tensor<2x3xui32>, tensor<2x3x4xi8>, tensor<2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xi32>
}

// CHECK-LABEL: func.func @unary
func.func @unary(%f: tensor<4xf32>, %i: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: kiln.abs
  %0 = kiln.abs %f : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.negate
  %1 = kiln.negate %0 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.exponential
  %2 = kiln.exponential %1 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.exponential_minus_one
  %3 = kiln.exponential_minus_one %2 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.log
  %4 = kiln.log %3 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.log_plus_one
  %5 = kiln.log_plus_one %4 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.sqrt
  %6 = kiln.sqrt %5 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.rsqrt
  %7 = kiln.rsqrt %6 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.cbrt
  %8 = kiln.cbrt %7 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.tanh
  %9 = kiln.tanh %8 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.logistic
  %10 = kiln.logistic %9 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.sine
  %11 = kiln.sine %10 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.cosine
  %12 = kiln.cosine %11 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.tan
  %13 = kiln.tan %12 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.erf
  %14 = kiln.erf %13 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.floor
  %15 = kiln.floor %14 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.ceil
  %16 = kiln.ceil %15 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.round_nearest_afz
  %17 = kiln.round_nearest_afz %16 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.round_nearest_even
  %18 = kiln.round_nearest_even %17 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.sign
  %19 = kiln.sign %18 : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.not
  %20 = kiln.not %i : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: kiln.popcnt
  %21 = kiln.popcnt %20 : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: kiln.count_leading_zeros
  %22 = kiln.count_leading_zeros %21 : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: kiln.is_finite %{{.*}} : (tensor<4xf32>) -> tensor<4xi1>
  %23 = kiln.is_finite %19 : (tensor<4xf32>) -> tensor<4xi1>
  %24 = kiln.convert %23 : (tensor<4xi1>) -> tensor<4xi32>
  %25 = kiln.add %22, %24 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %25 : tensor<4xi32>
}

// CHECK-LABEL: func.func @binary
func.func @binary(%f: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  // CHECK: kiln.add
  %0 = kiln.add %f, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.subtract
  %1 = kiln.subtract %0, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.multiply
  %2 = kiln.multiply %1, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.divide
  %3 = kiln.divide %2, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.remainder
  %4 = kiln.remainder %3, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.maximum
  %5 = kiln.maximum %4, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.minimum
  %6 = kiln.minimum %5, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.power
  %7 = kiln.power %6, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.atan2
  %8 = kiln.atan2 %7, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.and
  %9 = kiln.and %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: kiln.or
  %10 = kiln.or %9, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: kiln.xor
  %11 = kiln.xor %10, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: kiln.shift_left
  %12 = kiln.shift_left %11, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: kiln.shift_right_logical
  %13 = kiln.shift_right_logical %12, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: kiln.shift_right_arithmetic
  %14 = kiln.shift_right_arithmetic %13, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %8, %14 : tensor<4xf32>, tensor<4xi32>
}

// CHECK-LABEL: func.func @compare_select_clamp
func.func @compare_select_clamp(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %lo: tensor<f32>, %p: tensor<i1>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  // CHECK: kiln.compare %{{.*}}, %{{.*}} {direction = "LT", type = "TOTALORDER"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %0 = kiln.compare %a, %b {direction = "LT", type = "TOTALORDER"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: kiln.compare %{{.*}}, %{{.*}} {direction = "EQ"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %1 = kiln.compare %a, %b {direction = "EQ"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: kiln.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = kiln.select %0, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: kiln.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<i1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = kiln.select %p, %a, %b : (tensor<i1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: kiln.clamp %{{.*}}, %{{.*}}, %{{.*}} : (tensor<f32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = kiln.clamp %lo, %a, %b : (tensor<f32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %2, %3, %4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// Mixed operand element types and an f32 result are valid HLO.
// CHECK-LABEL: func.func @dot_general
func.func @dot_general(%a: tensor<8x2x3xbf16>, %b: tensor<8x3x5xf32>) -> tensor<8x2x5xf32> {
  // CHECK: kiln.dot_general %{{.*}}, %{{.*}} {lhs_batch_dims = array<i64: 0>, lhs_contracting_dims = array<i64: 2>, operand_precision = ["DEFAULT", "DEFAULT"], rhs_batch_dims = array<i64: 0>, rhs_contracting_dims = array<i64: 1>} : (tensor<8x2x3xbf16>, tensor<8x3x5xf32>) -> tensor<8x2x5xf32>
  %0 = kiln.dot_general %a, %b {lhs_batch_dims = array<i64: 0>, rhs_batch_dims = array<i64: 0>, lhs_contracting_dims = array<i64: 2>, rhs_contracting_dims = array<i64: 1>, operand_precision = ["DEFAULT", "DEFAULT"]} : (tensor<8x2x3xbf16>, tensor<8x3x5xf32>) -> tensor<8x2x5xf32>
  return %0 : tensor<8x2x5xf32>
}

// A two-input reduce (value and index of the maximum).
// CHECK-LABEL: func.func @reduce
func.func @reduce(%v: tensor<4x6xf32>, %i: tensor<4x6xi32>, %v0: tensor<f32>, %i0: tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>) {
  // CHECK: kiln.reduce(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) attributes {dimensions = array<i64: 1>}
  // CHECK: ^bb0(%{{.*}}: tensor<f32>, %{{.*}}: tensor<i32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<i32>):
  // CHECK: kiln.return %{{.*}}, %{{.*}} : tensor<f32>, tensor<i32>
  // CHECK: : (tensor<4x6xf32>, tensor<4x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
  %0:2 = kiln.reduce(%v, %i, %v0, %i0) attributes {dimensions = array<i64: 1>} {
  ^bb0(%acc: tensor<f32>, %acc_i: tensor<i32>, %x: tensor<f32>, %x_i: tensor<i32>):
    %gt = kiln.compare %x, %acc {direction = "GT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %m = kiln.select %gt, %x, %acc : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %mi = kiln.select %gt, %x_i, %acc_i : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    kiln.return %m, %mi : tensor<f32>, tensor<i32>
  } : (tensor<4x6xf32>, tensor<4x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xi32>
}

// XLA lets a bf16 reduction accumulate in f32.
// CHECK-LABEL: func.func @reduce_mixed_precision
func.func @reduce_mixed_precision(%a: tensor<4x6xbf16>, %z: tensor<f32>) -> tensor<6xf32> {
  // CHECK: kiln.reduce
  %0 = kiln.reduce(%a, %z) attributes {dimensions = array<i64: 0>} {
  ^bb0(%acc: tensor<f32>, %x: tensor<bf16>):
    %c = kiln.convert %x : (tensor<bf16>) -> tensor<f32>
    %s = kiln.add %acc, %c : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %s : tensor<f32>
  } : (tensor<4x6xbf16>, tensor<f32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// A 3x3 max pool with stride 2 and padding 1 on a 1x8x8x1 image.
// CHECK-LABEL: func.func @reduce_window
func.func @reduce_window(%a: tensor<1x8x8x1xf32>, %init: tensor<f32>) -> tensor<1x4x4x1xf32> {
  // CHECK: kiln.reduce_window(%{{.*}}, %{{.*}}) attributes {base_dilations = array<i64: 1, 1, 1, 1>, padding_high = array<i64: 0, 1, 1, 0>, padding_low = array<i64: 0, 1, 1, 0>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}
  %0 = kiln.reduce_window(%a, %init) attributes {window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>, base_dilations = array<i64: 1, 1, 1, 1>, window_dilations = array<i64: 1, 1, 1, 1>, padding_low = array<i64: 0, 1, 1, 0>, padding_high = array<i64: 0, 1, 1, 0>} {
  ^bb0(%acc: tensor<f32>, %x: tensor<f32>):
    %m = kiln.maximum %acc, %x : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %m : tensor<f32>
  } : (tensor<1x8x8x1xf32>, tensor<f32>) -> tensor<1x4x4x1xf32>
  return %0 : tensor<1x4x4x1xf32>
}

// CHECK-LABEL: func.func @sort
func.func @sort(%k: tensor<4x16xbf16>, %v: tensor<4x16xi32>) -> (tensor<4x16xbf16>, tensor<4x16xi32>) {
  // CHECK: kiln.sort(%{{.*}}, %{{.*}}) attributes {dimensions = array<i64: 1>, is_stable = true}
  // CHECK: ^bb0(%{{.*}}: tensor<bf16>, %{{.*}}: tensor<bf16>, %{{.*}}: tensor<i32>, %{{.*}}: tensor<i32>):
  // CHECK: kiln.return %{{.*}} : tensor<i1>
  %0:2 = kiln.sort(%k, %v) attributes {dimensions = array<i64: 1>, is_stable = true} {
  ^bb0(%l: tensor<bf16>, %r: tensor<bf16>, %li: tensor<i32>, %ri: tensor<i32>):
    %lt = kiln.compare %l, %r {direction = "LT", type = "TOTALORDER"} : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
    kiln.return %lt : tensor<i1>
  } : (tensor<4x16xbf16>, tensor<4x16xi32>) -> (tensor<4x16xbf16>, tensor<4x16xi32>)
  return %0#0, %0#1 : tensor<4x16xbf16>, tensor<4x16xi32>
}

// CHECK-LABEL: func.func @topk
func.func @topk(%a: tensor<2x50xbf16>) -> (tensor<2x10xbf16>, tensor<2x10xi32>) {
  // CHECK: kiln.topk %{{.*}} {k = 10 : i64} : (tensor<2x50xbf16>) -> (tensor<2x10xbf16>, tensor<2x10xi32>)
  %0:2 = kiln.topk %a {k = 10 : i64} : (tensor<2x50xbf16>) -> (tensor<2x10xbf16>, tensor<2x10xi32>)
  return %0#0, %0#1 : tensor<2x10xbf16>, tensor<2x10xi32>
}

// An embedding lookup, and a batched gather as argsort writes it.
// CHECK-LABEL: func.func @gather
func.func @gather(%table: tensor<100x16xf32>, %ids: tensor<4x7x1xi32>, %a: tensor<8x5xbf16>, %idx: tensor<8x5xi32>) -> (tensor<4x7x16xf32>, tensor<8x5xbf16>) {
  // CHECK: kiln.gather %{{.*}}, %{{.*}} {collapsed_slice_dims = array<i64: 0>, index_vector_dim = 2 : i64, offset_dims = array<i64: 2>, slice_sizes = array<i64: 1, 16>, start_index_map = array<i64: 0>} : (tensor<100x16xf32>, tensor<4x7x1xi32>) -> tensor<4x7x16xf32>
  %0 = kiln.gather %table, %ids {offset_dims = array<i64: 2>, collapsed_slice_dims = array<i64: 0>, start_index_map = array<i64: 0>, index_vector_dim = 2 : i64, slice_sizes = array<i64: 1, 16>} : (tensor<100x16xf32>, tensor<4x7x1xi32>) -> tensor<4x7x16xf32>
  // CHECK: kiln.gather %{{.*}}, %{{.*}} {collapsed_slice_dims = array<i64: 1>, index_vector_dim = 2 : i64, operand_batching_dims = array<i64: 0>, slice_sizes = array<i64: 1, 1>, start_index_map = array<i64: 1>, start_indices_batching_dims = array<i64: 0>} : (tensor<8x5xbf16>, tensor<8x5xi32>) -> tensor<8x5xbf16>
  %1 = kiln.gather %a, %idx {collapsed_slice_dims = array<i64: 1>, operand_batching_dims = array<i64: 0>, start_indices_batching_dims = array<i64: 0>, start_index_map = array<i64: 1>, index_vector_dim = 2 : i64, slice_sizes = array<i64: 1, 1>} : (tensor<8x5xbf16>, tensor<8x5xi32>) -> tensor<8x5xbf16>
  return %0, %1 : tensor<4x7x16xf32>, tensor<8x5xbf16>
}

// An embedding gradient: adds rows of updates into the table.
// CHECK-LABEL: func.func @scatter
func.func @scatter(%table: tensor<100x16xf32>, %ids: tensor<4x1xi32>, %upd: tensor<4x16xf32>) -> tensor<100x16xf32> {
  // CHECK: kiln.scatter(%{{.*}}, %{{.*}}, %{{.*}}) attributes {index_vector_dim = 1 : i64, inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>, update_window_dims = array<i64: 1>}
  // CHECK: kiln.return %{{.*}} : tensor<f32>
  %0 = kiln.scatter(%table, %ids, %upd) attributes {update_window_dims = array<i64: 1>, inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64} {
  ^bb0(%cur: tensor<f32>, %u: tensor<f32>):
    %s = kiln.add %cur, %u : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %s : tensor<f32>
  } : (tensor<100x16xf32>, tensor<4x1xi32>, tensor<4x16xf32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// CHECK-LABEL: func.func @batch_norm
func.func @batch_norm(%x: tensor<2x4x8xf32>, %s: tensor<4xf32>, %o: tensor<4xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<4xf32>) {
  // CHECK: kiln.batch_norm_training %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64} : (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  %y, %mean, %var = kiln.batch_norm_training %x, %s, %o {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  // CHECK: kiln.batch_norm_inference %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64} : (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x8xf32>
  %z = kiln.batch_norm_inference %x, %s, %o, %mean, %var {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x8xf32>
  // CHECK: kiln.batch_norm_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64} : (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  %gx, %gs, %go = kiln.batch_norm_grad %x, %s, %mean, %var, %y {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  return %z, %gx, %gs : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @rng
func.func @rng(%a: tensor<f32>, %b: tensor<f32>, %state: tensor<2xui64>) -> (tensor<3x4xf32>, tensor<2xui64>, tensor<3x4xui32>) {
  // CHECK: kiln.rng %{{.*}}, %{{.*}} {distribution = "rng_normal"} : (tensor<f32>, tensor<f32>) -> tensor<3x4xf32>
  %0 = kiln.rng %a, %b {distribution = "rng_normal"} : (tensor<f32>, tensor<f32>) -> tensor<3x4xf32>
  // CHECK: kiln.rng_bit_generator %{{.*}} {algorithm = "rng_philox"} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x4xui32>)
  %1:2 = kiln.rng_bit_generator %state {algorithm = "rng_philox"} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x4xui32>)
  return %0, %1#0, %1#1 : tensor<3x4xf32>, tensor<2xui64>, tensor<3x4xui32>
}

// A counted loop whose state also carries an ordering token.
// CHECK-LABEL: func.func @while
func.func @while(%n: tensor<i32>, %x: tensor<4xf32>, %t: !kiln.token) -> tensor<4xf32> {
  // CHECK: kiln.while(%{{.*}}, %{{.*}}, %{{.*}}) {
  // CHECK: kiln.return %{{.*}} : tensor<i1>
  // CHECK: }, {
  // CHECK: kiln.return %{{.*}}, %{{.*}}, %{{.*}} : tensor<i32>, tensor<4xf32>, !kiln.token
  // CHECK: } : (tensor<i32>, tensor<4xf32>, !kiln.token) -> (tensor<i32>, tensor<4xf32>, !kiln.token)
  %0:3 = kiln.while(%n, %x, %t) {
  ^bb0(%i: tensor<i32>, %v: tensor<4xf32>, %tok: !kiln.token):
    %zero = kiln.constant dense<0> : tensor<i32>
    %more = kiln.compare %i, %zero {direction = "GT", type = "SIGNED"} : (tensor<i32>, tensor<i32>) -> tensor<i1>
    kiln.return %more : tensor<i1>
  }, {
  ^bb0(%i: tensor<i32>, %v: tensor<4xf32>, %tok: !kiln.token):
    %one = kiln.constant dense<1> : tensor<i32>
    %next = kiln.subtract %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %w = kiln.add %v, %v : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    kiln.return %next, %w, %tok : tensor<i32>, tensor<4xf32>, !kiln.token
  } : (tensor<i32>, tensor<4xf32>, !kiln.token) -> (tensor<i32>, tensor<4xf32>, !kiln.token)
  return %0#1 : tensor<4xf32>
}

// A pred-indexed conditional: branch 0 runs when the index is true.
// CHECK-LABEL: func.func @conditional_pred
func.func @conditional_pred(%p: tensor<i1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: kiln.conditional(%{{.*}}, %{{.*}}, %{{.*}}) attributes {branch_operand_counts = array<i64: 1, 1>}
  // CHECK: kiln.return %{{.*}} : tensor<4xf32>
  // CHECK: kiln.return %{{.*}} : tensor<4xf32>
  // CHECK: : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %0 = kiln.conditional(%p, %a, %b) attributes {branch_operand_counts = array<i64: 1, 1>} {
  ^bb0(%x: tensor<4xf32>):
    %n = kiln.negate %x : (tensor<4xf32>) -> tensor<4xf32>
    kiln.return %n : tensor<4xf32>
  }, {
  ^bb0(%y: tensor<4xf32>):
    kiln.return %y : tensor<4xf32>
  } : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// An s32-indexed conditional with three branches; the last takes no operand.
// CHECK-LABEL: func.func @conditional_index
func.func @conditional_index(%i: tensor<i32>, %a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: kiln.conditional(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) attributes {branch_operand_counts = array<i64: 1, 2, 0>}
  %0 = kiln.conditional(%i, %a, %b, %c) attributes {branch_operand_counts = array<i64: 1, 2, 0>} {
  ^bb0(%x: tensor<4xf32>):
    kiln.return %x : tensor<4xf32>
  }, {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    %s = kiln.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    kiln.return %s : tensor<4xf32>
  }, {
    %z = kiln.constant dense<0.0> : tensor<4xf32>
    kiln.return %z : tensor<4xf32>
  } : (tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @optimization_barrier
func.func @optimization_barrier(%a: tensor<4xf32>, %t: !kiln.token) -> (tensor<4xf32>, !kiln.token) {
  // CHECK: kiln.optimization_barrier %{{.*}}, %{{.*}} : (tensor<4xf32>, !kiln.token) -> (tensor<4xf32>, !kiln.token)
  %0:2 = kiln.optimization_barrier %a, %t : (tensor<4xf32>, !kiln.token) -> (tensor<4xf32>, !kiln.token)
  return %0#0, %0#1 : tensor<4xf32>, !kiln.token
}

// CHECK-LABEL: func.func @custom_call
func.func @custom_call(%a: tensor<4xf32>) -> tensor<2xf32> {
  // CHECK: kiln.custom_call %{{.*}} {backend_config = "{}", custom_call_has_side_effect = true, custom_call_target = "Sharding"} : (tensor<4xf32>) -> tensor<2xf32>
  %0 = kiln.custom_call %a {custom_call_target = "Sharding", backend_config = "{}", custom_call_has_side_effect = true} : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// A tuple all-reduce with a scalar, as torch-xla writes it.
// CHECK-LABEL: func.func @all_reduce
func.func @all_reduce(%a: tensor<4x8xf32>, %s: tensor<f32>) -> (tensor<4x8xf32>, tensor<f32>) {
  // CHECK: kiln.all_reduce(%{{.*}}, %{{.*}}) attributes {channel_id = 1 : i64, replica_groups = dense<{{\[\[}}0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids = true}
  // CHECK: kiln.return %{{.*}} : tensor<f32>
  %0:2 = kiln.all_reduce(%a, %s) attributes {replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, channel_id = 1 : i64, use_global_device_ids = true} {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %sum = kiln.add %x, %y : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %sum : tensor<f32>
  } : (tensor<4x8xf32>, tensor<f32>) -> (tensor<4x8xf32>, tensor<f32>)
  return %0#0, %0#1 : tensor<4x8xf32>, tensor<f32>
}

// Groups of 2 gather 3 rows each into 6; the scalar passes through.
// CHECK-LABEL: func.func @all_gather
func.func @all_gather(%a: tensor<3x10xf32>, %s: tensor<bf16>, %b: tensor<2x5xf32>) -> (tensor<6x10xf32>, tensor<bf16>, tensor<8x5xf32>, tensor<3x40xf32>) {
  // CHECK: kiln.all_gather %{{.*}}, %{{.*}} {channel_id = 1 : i64, dimensions = array<i64: 0>, replica_groups = dense<{{\[\[}}0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids = true} : (tensor<3x10xf32>, tensor<bf16>) -> (tensor<6x10xf32>, tensor<bf16>)
  %0:2 = kiln.all_gather %a, %s {dimensions = array<i64: 0>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, channel_id = 1 : i64, use_global_device_ids = true} : (tensor<3x10xf32>, tensor<bf16>) -> (tensor<6x10xf32>, tensor<bf16>)
  // Empty groups: the number of participants is inferred from the shapes.
  // CHECK: kiln.all_gather %{{.*}} {dimensions = array<i64: 0>, replica_groups = dense<> : tensor<0x0xi64>} : (tensor<2x5xf32>) -> tensor<8x5xf32>
  %1 = kiln.all_gather %b {dimensions = array<i64: 0>, replica_groups = dense<> : tensor<0x0xi64>} : (tensor<2x5xf32>) -> tensor<8x5xf32>
  // With a channel_id and without use_global_device_ids, each group of 2
  // replicas also spans the partitions, here 2 of them.
  // CHECK: kiln.all_gather %{{.*}} {channel_id = 2 : i64, dimensions = array<i64: 1>, replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>} : (tensor<3x10xf32>) -> tensor<3x40xf32>
  %2 = kiln.all_gather %a {dimensions = array<i64: 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_id = 2 : i64} : (tensor<3x10xf32>) -> tensor<3x40xf32>
  return %0#0, %0#1, %1, %2 : tensor<6x10xf32>, tensor<bf16>, tensor<8x5xf32>, tensor<3x40xf32>
}

// The scalar beside the real operand passes through, as torch-xla writes it.
// CHECK-LABEL: func.func @reduce_scatter
func.func @reduce_scatter(%a: tensor<8x4xbf16>, %s: tensor<bf16>) -> (tensor<2x4xbf16>, tensor<bf16>) {
  // CHECK: kiln.reduce_scatter(%{{.*}}, %{{.*}}) attributes {dimensions = array<i64: 0>, replica_groups = dense<{{\[\[}}0, 1, 2, 3]]> : tensor<1x4xi64>}
  // CHECK: kiln.return %{{.*}} : tensor<bf16>
  // CHECK: : (tensor<8x4xbf16>, tensor<bf16>) -> (tensor<2x4xbf16>, tensor<bf16>)
  %0:2 = kiln.reduce_scatter(%a, %s) attributes {dimensions = array<i64: 0>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} {
  ^bb0(%x: tensor<bf16>, %y: tensor<bf16>):
    %sum = kiln.add %x, %y : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
    kiln.return %sum : tensor<bf16>
  } : (tensor<8x4xbf16>, tensor<bf16>) -> (tensor<2x4xbf16>, tensor<bf16>)
  return %0#0, %0#1 : tensor<2x4xbf16>, tensor<bf16>
}

// CHECK-LABEL: func.func @all_to_all
func.func @all_to_all(%a: tensor<8x4xf32>, %b: tensor<3xf32>, %c: tensor<3xf32>, %t: tensor<f32>) -> (tensor<8x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<f32>) {
  // CHECK: kiln.all_to_all %{{.*}} {dimensions = array<i64: 0>, replica_groups = dense<{{\[\[}}0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %0 = kiln.all_to_all %a {dimensions = array<i64: 0>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  // CHECK: kiln.all_to_all %{{.*}}, %{{.*}} {replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>} : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  %1:2 = kiln.all_to_all %b, %c {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  // A scalar beside the tensors passes through.
  // CHECK: kiln.all_to_all %{{.*}}, %{{.*}} {dimensions = array<i64: 0>, {{.*}}} : (tensor<8x4xf32>, tensor<f32>) -> (tensor<8x4xf32>, tensor<f32>)
  %2:2 = kiln.all_to_all %a, %t {dimensions = array<i64: 0>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<8x4xf32>, tensor<f32>) -> (tensor<8x4xf32>, tensor<f32>)
  return %0, %1#0, %1#1, %2#1 : tensor<8x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @collective_permute
func.func @collective_permute(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: kiln.collective_permute %{{.*}} {channel_id = 3 : i64, source_target_pairs = dense<{{\[\[}}0, 1], [1, 2], [2, 0]]> : tensor<3x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %0 = kiln.collective_permute %a {source_target_pairs = dense<[[0, 1], [1, 2], [2, 0]]> : tensor<3x2xi64>, channel_id = 3 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// HLO's combined form: several operands, each sent whole.
// CHECK-LABEL: func.func @collective_permute_combined
func.func @collective_permute_combined(%a: tensor<4xf32>, %t: tensor<f32>) -> (tensor<4xf32>, tensor<f32>) {
  // CHECK: kiln.collective_permute %{{.*}}, %{{.*}} {{{.*}}} : (tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<f32>)
  %0:2 = kiln.collective_permute %a, %t {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<f32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<f32>
}

// A dynamic dimension agrees with any size.
// CHECK-LABEL: func.func @dynamic_dims
func.func @dynamic_dims(%a: tensor<?xf32>, %b: tensor<2x?xf32>, %c: tensor<2x3xf32>) -> (tensor<2x?xf32>, tensor<2x?xf32>, tensor<?x2xf32>) {
  // CHECK: kiln.broadcast_in_dim %{{.*}} {dimensions = array<i64: 1>} : (tensor<?xf32>) -> tensor<2x?xf32>
  %0 = kiln.broadcast_in_dim %a {dimensions = array<i64: 1>} : (tensor<?xf32>) -> tensor<2x?xf32>
  // CHECK: kiln.concatenate %{{.*}}, %{{.*}} {dimensions = array<i64: 1>} : (tensor<2x?xf32>, tensor<2x3xf32>) -> tensor<2x?xf32>
  %1 = kiln.concatenate %b, %c {dimensions = array<i64: 1>} : (tensor<2x?xf32>, tensor<2x3xf32>) -> tensor<2x?xf32>
  // CHECK: kiln.transpose %{{.*}} {dimensions = array<i64: 1, 0>} : (tensor<2x?xf32>) -> tensor<?x2xf32>
  %2 = kiln.transpose %b {dimensions = array<i64: 1, 0>} : (tensor<2x?xf32>) -> tensor<?x2xf32>
  return %0, %1, %2 : tensor<2x?xf32>, tensor<2x?xf32>, tensor<?x2xf32>
}

// CHECK-LABEL: func.func @annotate
func.func @annotate(%a: tensor<2xf32>, %t: !kiln.token) -> (tensor<2xf32>, !kiln.token) {
  // CHECK: kiln.annotate %{{.*}}, %{{.*}} {hlo_opcode = "tuple", kiln.sharding = "{{[{][{]}}replicated},{maximal device=0}}"} : (tensor<2xf32>, !kiln.token) -> (tensor<2xf32>, !kiln.token)
  %0:2 = kiln.annotate %a, %t {hlo_opcode = "tuple", kiln.sharding = "{{replicated},{maximal device=0}}"} : (tensor<2xf32>, !kiln.token) -> (tensor<2xf32>, !kiln.token)
  return %0#0, %0#1 : tensor<2xf32>, !kiln.token
}

// CHECK-LABEL: func.func @complex_numbers
func.func @complex_numbers(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x3xcomplex<f32>>, tensor<4x4xf32>) {
  // CHECK: kiln.complex %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xcomplex<f32>>
  %0 = kiln.complex %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xcomplex<f32>>
  // CHECK: kiln.real %{{.*}} : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %1 = kiln.real %0 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  // CHECK: kiln.imag %{{.*}} : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %2 = kiln.imag %0 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  // CHECK: kiln.abs %{{.*}} : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %3 = kiln.abs %0 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %r = kiln.broadcast_in_dim %a {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<4x4xf32>
  // CHECK: kiln.fft %{{.*}} {fft_length = array<i64: 4>, fft_type = "RFFT"} : (tensor<4x4xf32>) -> tensor<4x3xcomplex<f32>>
  %4 = kiln.fft %r {fft_length = array<i64: 4>, fft_type = "RFFT"} : (tensor<4x4xf32>) -> tensor<4x3xcomplex<f32>>
  // CHECK: kiln.fft %{{.*}} {fft_length = array<i64: 4>, fft_type = "IRFFT"} : (tensor<4x3xcomplex<f32>>) -> tensor<4x4xf32>
  %5 = kiln.fft %4 {fft_length = array<i64: 4>, fft_type = "IRFFT"} : (tensor<4x3xcomplex<f32>>) -> tensor<4x4xf32>
  return %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x3xcomplex<f32>>, tensor<4x4xf32>
}

// CHECK-LABEL: func.func @convolution
func.func @convolution(%x: tensor<1x8x8x3xbf16>, %w: tensor<3x3x3x4xbf16>) -> tensor<1x8x8x4xf32> {
  // CHECK: kiln.convolution %{{.*}}, %{{.*}} {{{.*}}window_reversal = array<i1: false, true>{{.*}}} : (tensor<1x8x8x3xbf16>, tensor<3x3x3x4xbf16>) -> tensor<1x8x8x4xf32>
  %0 = kiln.convolution %x, %w {base_dilations = array<i64: 1, 1>, input_batch_dimension = 0 : i64, input_feature_dimension = 3 : i64, input_spatial_dimensions = array<i64: 1, 2>, kernel_input_feature_dimension = 2 : i64, kernel_output_feature_dimension = 3 : i64, kernel_spatial_dimensions = array<i64: 0, 1>, output_batch_dimension = 0 : i64, output_feature_dimension = 3 : i64, output_spatial_dimensions = array<i64: 1, 2>, padding_high = array<i64: 1, 1>, padding_low = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 3, 3>, window_reversal = array<i1: false, true>, window_strides = array<i64: 1, 1>, operand_precision = ["HIGHEST", "DEFAULT"]} : (tensor<1x8x8x3xbf16>, tensor<3x3x3x4xbf16>) -> tensor<1x8x8x4xf32>
  return %0 : tensor<1x8x8x4xf32>
}

// CHECK-LABEL: func.func @select_and_scatter
func.func @select_and_scatter(%x: tensor<8xf32>, %s: tensor<4xf32>, %z: tensor<f32>) -> tensor<8xf32> {
  // CHECK: kiln.select_and_scatter(%{{.*}}, %{{.*}}, %{{.*}}) attributes
  %0 = kiln.select_and_scatter(%x, %s, %z) attributes {base_dilations = array<i64: 1>, padding_high = array<i64: 0>, padding_low = array<i64: 0>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %p = kiln.compare %a, %b {direction = "GE"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    kiln.return %p : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = kiln.add %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %t : tensor<f32>
  } : (tensor<8xf32>, tensor<4xf32>, tensor<f32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// CHECK-LABEL: func.func @linear_algebra
func.func @linear_algebra(%a: tensor<2x4x4xf32>, %b: tensor<2x4x3xf32>, %x: tensor<16x8xbf16>, %w: tensor<4x8x32xbf16>, %g: tensor<4xi32>, %s: tensor<f32>) -> (tensor<2x4x3xf32>, tensor<16x32xf32>, tensor<16x16xf32>) {
  // CHECK: kiln.cholesky %{{.*}} {lower = true} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %0 = kiln.cholesky %a {lower = true} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  // CHECK: kiln.triangular_solve %{{.*}}, %{{.*}} {left_side = true, transpose_a = "TRANSPOSE"} : (tensor<2x4x4xf32>, tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  %1 = kiln.triangular_solve %0, %b {left_side = true, transpose_a = "TRANSPOSE"} : (tensor<2x4x4xf32>, tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  // CHECK: kiln.ragged_dot %{{.*}}, %{{.*}}, %{{.*}} {lhs_contracting_dims = array<i64: 1>, lhs_ragged_dims = array<i64: 0>, rhs_contracting_dims = array<i64: 1>, rhs_group_dims = array<i64: 0>} : (tensor<16x8xbf16>, tensor<4x8x32xbf16>, tensor<4xi32>) -> tensor<16x32xf32>
  %2 = kiln.ragged_dot %x, %w, %g {lhs_contracting_dims = array<i64: 1>, lhs_ragged_dims = array<i64: 0>, rhs_contracting_dims = array<i64: 1>, rhs_group_dims = array<i64: 0>} : (tensor<16x8xbf16>, tensor<4x8x32xbf16>, tensor<4xi32>) -> tensor<16x32xf32>
  // CHECK: kiln.scaled_dot %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 1>} : (tensor<16x8xbf16>, tensor<16x8xbf16>, tensor<f32>, tensor<f32>) -> tensor<16x16xf32>
  %3 = kiln.scaled_dot %x, %x, %s, %s {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 1>} : (tensor<16x8xbf16>, tensor<16x8xbf16>, tensor<f32>, tensor<f32>) -> tensor<16x16xf32>
  return %1, %2, %3 : tensor<2x4x3xf32>, tensor<16x32xf32>, tensor<16x16xf32>
}

// CHECK-LABEL: func.func @map_and_fusion
func.func @map_and_fusion(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK: kiln.map(%{{.*}}, %{{.*}}) attributes {dimensions = array<i64: 0>}
  %0 = kiln.map(%a, %b) attributes {dimensions = array<i64: 0>} {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = kiln.maximum %x, %y : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %m : tensor<f32>
  } : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.fusion(%{{.*}}) attributes {kind = "kLoop"}
  %1 = kiln.fusion(%0) attributes {kind = "kLoop"} {
  ^bb0(%x: tensor<4xf32>):
    %n = kiln.negate %x : (tensor<4xf32>) -> tensor<4xf32>
    kiln.return %n : tensor<4xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @conversions_and_dynamic_sizes
func.func @conversions_and_dynamic_sizes(%a: tensor<4xf32>, %r: tensor<4xui32>, %d: tensor<16x4xf32, {bounded = [true, false]}>) -> (tensor<4xbf16>, tensor<2xui64>, tensor<16x4xf32, {bounded = [true, false]}>, tensor<4xf32>) {
  // CHECK: kiln.stochastic_convert %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xui32>) -> tensor<4xbf16>
  %0 = kiln.stochastic_convert %a, %r : (tensor<4xf32>, tensor<4xui32>) -> tensor<4xbf16>
  // CHECK: kiln.rng_get_and_update_state {delta = 8 : i64} : () -> tensor<2xui64>
  %1 = kiln.rng_get_and_update_state {delta = 8 : i64} : () -> tensor<2xui64>
  // CHECK: kiln.get_dimension_size %{{.*}} {dimensions = array<i64: 0>} : (tensor<16x4xf32, {bounded = [true, false]}>) -> tensor<i32>
  %2 = kiln.get_dimension_size %d {dimensions = array<i64: 0>} : (tensor<16x4xf32, {bounded = [true, false]}>) -> tensor<i32>
  // CHECK: kiln.set_dimension_size
  %3 = kiln.set_dimension_size %d, %2 {dimensions = array<i64: 0>} : (tensor<16x4xf32, {bounded = [true, false]}>, tensor<i32>) -> tensor<16x4xf32, {bounded = [true, false]}>
  %four = kiln.constant dense<4> : tensor<i32>
  // CHECK: kiln.dynamic_reshape
  %4 = kiln.dynamic_reshape %3, %2, %four : (tensor<16x4xf32, {bounded = [true, false]}>, tensor<i32>, tensor<i32>) -> tensor<16x4xf32, {bounded = [true, false]}>
  // CHECK: kiln.domain %{{.*}} {kiln.domain = "{kind=\22sharding\22}"} : (tensor<4xf32>) -> tensor<4xf32>
  %5 = kiln.domain %a {kiln.domain = "{kind=\22sharding\22}"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %4, %5 : tensor<4xbf16>, tensor<2xui64>, tensor<16x4xf32, {bounded = [true, false]}>, tensor<4xf32>
}

// CHECK-LABEL: func.func @transfers
func.func @transfers(%a: tensor<4xf32>, %t: !kiln.token) -> (!kiln.token, tensor<4xf32>, tensor<4xf32>) {
  // CHECK: kiln.send %{{.*}}, %{{.*}} {channel_id = 1 : i64, is_host_transfer = true}
  %s:3 = kiln.send %a, %t {channel_id = 1 : i64, is_host_transfer = true} : (tensor<4xf32>, !kiln.token) -> (tensor<4xf32>, tensor<ui32>, !kiln.token)
  // CHECK: kiln.send_done
  %sd = kiln.send_done %s#0, %s#1, %s#2 {channel_id = 1 : i64} : (tensor<4xf32>, tensor<ui32>, !kiln.token) -> !kiln.token
  // CHECK: kiln.recv
  %r:3 = kiln.recv %sd {channel_id = 2 : i64} : (!kiln.token) -> (tensor<4xf32>, tensor<ui32>, !kiln.token)
  // CHECK: kiln.recv_done
  %rd:2 = kiln.recv_done %r#0, %r#1, %r#2 {channel_id = 2 : i64} : (tensor<4xf32>, tensor<ui32>, !kiln.token) -> (tensor<4xf32>, !kiln.token)
  // CHECK: kiln.infeed
  %i:2 = kiln.infeed %rd#1 : (!kiln.token) -> (tensor<4xf32>, !kiln.token)
  // CHECK: kiln.outfeed
  %o = kiln.outfeed %i#0, %i#1 : (tensor<4xf32>, !kiln.token) -> !kiln.token
  // CHECK: kiln.add_dependency %{{.*}}, %{{.*}} : (tensor<4xf32>, !kiln.token) -> tensor<4xf32>
  %d = kiln.add_dependency %rd#0, %o : (tensor<4xf32>, !kiln.token) -> tensor<4xf32>
  // CHECK: kiln.copy_start
  %c:3 = kiln.copy_start %d : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<ui32>)
  // CHECK: kiln.copy_done
  %cd = kiln.copy_done %c#0, %c#1, %c#2 : (tensor<4xf32>, tensor<4xf32>, tensor<ui32>) -> tensor<4xf32>
  return %o, %cd, %i#0 : !kiln.token, tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @async_pairs
func.func @async_pairs(%a: tensor<4xf32>, %x: tensor<2x4xf32>, %idx: tensor<4xi32>) -> (tensor<4xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>) {
  // CHECK: kiln.async_start(%{{.*}}) attributes {async_execution_thread = "main"}
  %s:3 = kiln.async_start(%a) attributes {async_execution_thread = "main"} {
  ^bb0(%y: tensor<4xf32>):
    %n = kiln.negate %y : (tensor<4xf32>) -> tensor<4xf32>
    kiln.return %n : tensor<4xf32>
  } : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<ui32>)
  // CHECK: kiln.async_update
  %u:3 = kiln.async_update %s#0, %s#1, %s#2 : (tensor<4xf32>, tensor<4xf32>, tensor<ui32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<ui32>)
  // CHECK: kiln.async_done
  %d = kiln.async_done %u#0, %u#1, %u#2 : (tensor<4xf32>, tensor<4xf32>, tensor<ui32>) -> tensor<4xf32>
  // CHECK: kiln.all_gather_start
  %g:2 = kiln.all_gather_start %x {dimensions = array<i64: 0>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<8x4xf32>)
  // CHECK: kiln.all_gather_done
  %gd = kiln.all_gather_done %g#0, %g#1 : (tensor<2x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  // CHECK: kiln.all_reduce_start
  %r = kiln.all_reduce_start(%a) attributes {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} {
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %t = kiln.add %p, %q : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %t : tensor<f32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.all_reduce_done
  %rd = kiln.all_reduce_done %r : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.collective_permute_start
  %p:4 = kiln.collective_permute_start %a {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<ui32>, tensor<ui32>)
  // CHECK: kiln.collective_permute_done
  %pd = kiln.collective_permute_done %p#0, %p#1, %p#2, %p#3 : (tensor<4xf32>, tensor<4xf32>, tensor<ui32>, tensor<ui32>) -> tensor<4xf32>
  // CHECK: kiln.collective_broadcast %{{.*}} {replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %b = kiln.collective_broadcast %a {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: kiln.ragged_all_to_all
  %ra = kiln.ragged_all_to_all %x, %x, %idx, %idx, %idx, %idx {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) -> tensor<2x4xf32>
  return %d, %gd, %rd, %pd, %b, %ra : tensor<4xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>
}
