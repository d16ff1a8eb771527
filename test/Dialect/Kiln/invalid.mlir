// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of the kiln op verifiers, in the order of
// KilnOps.td.

//===----------------------------------------------------------------------===//
// Leaves
//===----------------------------------------------------------------------===//

func.func @constant_type() -> tensor<3xf32> {
  // expected-error @+1 {{'kiln.constant' op failed to verify that all of {value, output} have same type}}
  %0 = "kiln.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @iota_dimension() -> tensor<2x3xi32> {
  // expected-error @+1 {{'kiln.iota' op iota_dimension must be in [0, 2), got 2}}
  %0 = kiln.iota {iota_dimension = 2 : i64} : tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

func.func @broadcast_in_dim_element_type(%a: tensor<3xf32>) -> tensor<2x3xf16> {
  // expected-error @+1 {{'kiln.broadcast_in_dim' op result element type must be 'f32' (the operand's), got 'f16'}}
  %0 = kiln.broadcast_in_dim %a {dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// -----

func.func @broadcast_in_dim_dimensions_size(%a: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.broadcast_in_dim' op dimensions must have one entry per operand dimension (1), got 2}}
  %0 = kiln.broadcast_in_dim %a {dimensions = array<i64: 0, 1>} : (tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @broadcast_in_dim_dimensions_range(%a: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.broadcast_in_dim' op dimensions must be unique and in [0, 2), got [2]}}
  %0 = kiln.broadcast_in_dim %a {dimensions = array<i64: 2>} : (tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @broadcast_in_dim_size(%a: tensor<3xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'kiln.broadcast_in_dim' op operand dimension 0 (size 3) must equal result dimension 1 (size 4)}}
  %0 = kiln.broadcast_in_dim %a {dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @reshape_element_type(%a: tensor<2x3xf32>) -> tensor<6xi32> {
  // expected-error @+1 {{'kiln.reshape' op result element type must be 'f32' (the operand's), got 'i32'}}
  %0 = kiln.reshape %a : (tensor<2x3xf32>) -> tensor<6xi32>
  return %0 : tensor<6xi32>
}

// -----

func.func @reshape_count(%a: tensor<2x3xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.reshape' op result must have 6 elements (the operand's), got 8}}
  %0 = kiln.reshape %a : (tensor<2x3xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @transpose_permutation(%a: tensor<2x3x4xf32>) -> tensor<2x2x3xf32> {
  // expected-error @+1 {{'kiln.transpose' op dimensions must be a permutation of [0, 3), got [0, 0, 1]}}
  %0 = kiln.transpose %a {dimensions = array<i64: 0, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<2x2x3xf32>
  return %0 : tensor<2x2x3xf32>
}

// -----

func.func @transpose_result(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.transpose' op result type must be 'tensor<3x2xf32>', got 'tensor<2x3xf32>'}}
  %0 = kiln.transpose %a {dimensions = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @reverse_dimensions(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.reverse' op dimensions must be unique and in [0, 2), got [0, 0]}}
  %0 = kiln.reverse %a {dimensions = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @reverse_result(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'kiln.reverse' op result type must be 'tensor<2x3xf32>' (the operand's), got 'tensor<3x2xf32>'}}
  %0 = kiln.reverse %a {dimensions = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @slice_attribute_size(%a: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // expected-error @+1 {{'kiln.slice' op start_indices must have one entry per operand dimension (2), got 1}}
  %0 = kiln.slice %a {start_indices = array<i64: 0>, limit_indices = array<i64: 8, 6>, strides = array<i64: 1, 1>} : (tensor<8x6xf32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}

// -----

func.func @slice_start_after_limit(%a: tensor<8x6xf32>) -> tensor<0x6xf32> {
  // expected-error @+1 {{'kiln.slice' op dimension 0 must satisfy 0 <= start (5) <= limit (3) <= size (8)}}
  %0 = kiln.slice %a {start_indices = array<i64: 5, 0>, limit_indices = array<i64: 3, 6>, strides = array<i64: 1, 1>} : (tensor<8x6xf32>) -> tensor<0x6xf32>
  return %0 : tensor<0x6xf32>
}

// -----

func.func @slice_limit_past_end(%a: tensor<8x6xf32>) -> tensor<8x7xf32> {
  // expected-error @+1 {{'kiln.slice' op dimension 1 must satisfy 0 <= start (0) <= limit (7) <= size (6)}}
  %0 = kiln.slice %a {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 8, 7>, strides = array<i64: 1, 1>} : (tensor<8x6xf32>) -> tensor<8x7xf32>
  return %0 : tensor<8x7xf32>
}

// -----

func.func @slice_stride(%a: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // expected-error @+1 {{'kiln.slice' op strides must be >= 1, got [1, 0]}}
  %0 = kiln.slice %a {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 8, 6>, strides = array<i64: 1, 0>} : (tensor<8x6xf32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}

// -----

// ceil((7 - 1) / 2) = 3 rows, not 4.
func.func @slice_result(%a: tensor<8x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{'kiln.slice' op result type must be 'tensor<3x6xf32>', got 'tensor<4x6xf32>'}}
  %0 = kiln.slice %a {start_indices = array<i64: 1, 0>, limit_indices = array<i64: 7, 6>, strides = array<i64: 2, 1>} : (tensor<8x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @dynamic_slice_index_count(%a: tensor<8x6xf32>, %i: tensor<i32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'kiln.dynamic_slice' op expects one start index per operand dimension (2), got 1}}
  %0 = kiln.dynamic_slice %a, %i {dynamic_slice_sizes = array<i64: 2, 6>} : (tensor<8x6xf32>, tensor<i32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @dynamic_slice_index_types(%a: tensor<8x6xf32>, %i: tensor<i32>, %j: tensor<i64>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'kiln.dynamic_slice' op start index 1 type must be 'tensor<i32>' (start index 0's), got 'tensor<i64>'}}
  %0 = kiln.dynamic_slice %a, %i, %j {dynamic_slice_sizes = array<i64: 2, 6>} : (tensor<8x6xf32>, tensor<i32>, tensor<i64>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @dynamic_slice_sizes_size(%a: tensor<8x6xf32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'kiln.dynamic_slice' op dynamic_slice_sizes must have one entry per operand dimension (2), got 3}}
  %0 = kiln.dynamic_slice %a, %i, %j {dynamic_slice_sizes = array<i64: 2, 6, 1>} : (tensor<8x6xf32>, tensor<i32>, tensor<i32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @dynamic_slice_size_bound(%a: tensor<8x6xf32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<2x7xf32> {
  // expected-error @+1 {{'kiln.dynamic_slice' op dynamic_slice_sizes[1] must be in [0, 6] (the operand dimension), got 7}}
  %0 = kiln.dynamic_slice %a, %i, %j {dynamic_slice_sizes = array<i64: 2, 7>} : (tensor<8x6xf32>, tensor<i32>, tensor<i32>) -> tensor<2x7xf32>
  return %0 : tensor<2x7xf32>
}

// -----

func.func @dynamic_slice_result(%a: tensor<8x6xf32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'kiln.dynamic_slice' op result type must be 'tensor<2x6xf32>' (dynamic_slice_sizes), got 'tensor<2x5xf32>'}}
  %0 = kiln.dynamic_slice %a, %i, %j {dynamic_slice_sizes = array<i64: 2, 6>} : (tensor<8x6xf32>, tensor<i32>, tensor<i32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @dynamic_update_slice_rank(%a: tensor<8x6xf32>, %u: tensor<6xf32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<8x6xf32> {
  // expected-error @+1 {{'kiln.dynamic_update_slice' op update must have rank 2 (the operand's), got 'tensor<6xf32>'}}
  %0 = kiln.dynamic_update_slice %a, %u, %i, %j : (tensor<8x6xf32>, tensor<6xf32>, tensor<i32>, tensor<i32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}

// -----

func.func @dynamic_update_slice_element_type(%a: tensor<8x6xf32>, %u: tensor<2x6xf16>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<8x6xf32> {
  // expected-error @+1 {{'kiln.dynamic_update_slice' op update element type must be 'f32' (the operand's), got 'f16'}}
  %0 = kiln.dynamic_update_slice %a, %u, %i, %j : (tensor<8x6xf32>, tensor<2x6xf16>, tensor<i32>, tensor<i32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}

// -----

func.func @dynamic_update_slice_update_size(%a: tensor<8x6xf32>, %u: tensor<9x6xf32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<8x6xf32> {
  // expected-error @+1 {{'kiln.dynamic_update_slice' op update dimension 0 (size 9) must not exceed operand dimension 0 (size 8)}}
  %0 = kiln.dynamic_update_slice %a, %u, %i, %j : (tensor<8x6xf32>, tensor<9x6xf32>, tensor<i32>, tensor<i32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}

// -----

func.func @dynamic_update_slice_index_count(%a: tensor<8x6xf32>, %u: tensor<2x6xf32>, %i: tensor<i32>) -> tensor<8x6xf32> {
  // expected-error @+1 {{'kiln.dynamic_update_slice' op expects one start index per operand dimension (2), got 1}}
  %0 = kiln.dynamic_update_slice %a, %u, %i : (tensor<8x6xf32>, tensor<2x6xf32>, tensor<i32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}

// -----

func.func @dynamic_update_slice_result(%a: tensor<8x6xf32>, %u: tensor<2x6xf32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<8x5xf32> {
  // expected-error @+1 {{'kiln.dynamic_update_slice' op result type must be 'tensor<8x6xf32>' (the operand's), got 'tensor<8x5xf32>'}}
  %0 = kiln.dynamic_update_slice %a, %u, %i, %j : (tensor<8x6xf32>, tensor<2x6xf32>, tensor<i32>, tensor<i32>) -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// -----

func.func @concatenate_no_input() -> tensor<0xf32> {
  // expected-error @+1 {{'kiln.concatenate' op expects at least one input}}
  %0 = kiln.concatenate {dimensions = array<i64: 0>} : () -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

func.func @concatenate_dimensions(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.concatenate' op dimensions must have exactly one entry, got [0, 1]}}
  %0 = kiln.concatenate %a {dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @concatenate_dimension_range(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.concatenate' op dimensions[0] must be in [0, 2), got 2}}
  %0 = kiln.concatenate %a {dimensions = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @concatenate_input_mismatch(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'kiln.concatenate' op input 1 ('tensor<3x5xf32>') must match input 0 ('tensor<2x3xf32>') in every dimension but 1}}
  %0 = kiln.concatenate %a, %b {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @concatenate_result(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x7xf32> {
  // expected-error @+1 {{'kiln.concatenate' op result type must be 'tensor<2x8xf32>', got 'tensor<2x7xf32>'}}
  %0 = kiln.concatenate %a, %b {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x7xf32>
  return %0 : tensor<2x7xf32>
}

// -----

func.func @pad_value_scalar(%a: tensor<2x3xf32>, %v: tensor<1xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.pad' op padding_value type must be 'tensor<f32>' (a scalar of the operand's element type), got 'tensor<1xf32>'}}
  %0 = kiln.pad %a, %v {edge_padding_low = array<i64: 0, 0>, edge_padding_high = array<i64: 0, 0>, interior_padding = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @pad_attribute_size(%a: tensor<2x3xf32>, %v: tensor<f32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.pad' op edge_padding_high must have one entry per operand dimension (2), got 1}}
  %0 = kiln.pad %a, %v {edge_padding_low = array<i64: 0, 0>, edge_padding_high = array<i64: 0>, interior_padding = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @pad_interior(%a: tensor<2x3xf32>, %v: tensor<f32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.pad' op interior_padding must be non-negative, got [0, -1]}}
  %0 = kiln.pad %a, %v {edge_padding_low = array<i64: 0, 0>, edge_padding_high = array<i64: 0, 0>, interior_padding = array<i64: 0, -1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @pad_negative_size(%a: tensor<2x3xf32>, %v: tensor<f32>) -> tensor<0x3xf32> {
  // expected-error @+1 {{'kiln.pad' op padding gives dimension 0 a negative size (-3)}}
  %0 = kiln.pad %a, %v {edge_padding_low = array<i64: -5, 0>, edge_padding_high = array<i64: 0, 0>, interior_padding = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<0x3xf32>
  return %0 : tensor<0x3xf32>
}

// -----

// 1 + 2 + 3 + (3 - 1) * 1 = 8 columns.
func.func @pad_result(%a: tensor<2x3xf32>, %v: tensor<f32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'kiln.pad' op result type must be 'tensor<2x8xf32>', got 'tensor<2x6xf32>'}}
  %0 = kiln.pad %a, %v {edge_padding_low = array<i64: 0, 1>, edge_padding_high = array<i64: 0, 2>, interior_padding = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @convert_shape(%a: tensor<2x3xf32>) -> tensor<3x2xi32> {
  // expected-error @+1 {{'kiln.convert' op result shape must be [2, 3] (the operand's), got [3, 2]}}
  %0 = kiln.convert %a : (tensor<2x3xf32>) -> tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
}

// -----

func.func @bitcast_convert_widths(%a: tensor<2xf32>) -> tensor<2xi24> {
  // expected-error @+1 {{'kiln.bitcast_convert' op element bit widths must divide one another, got 'f32' and 'i24'}}
  %0 = kiln.bitcast_convert %a : (tensor<2xf32>) -> tensor<2xi24>
  return %0 : tensor<2xi24>
}

// -----

func.func @bitcast_convert_last_dimension(%a: tensor<3xf16>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.bitcast_convert' op operand's last dimension must be 2 (the ratio of result to operand bit width), got 'tensor<3xf16>'}}
  %0 = kiln.bitcast_convert %a : (tensor<3xf16>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @bitcast_convert_shape(%a: tensor<2x3xf32>) -> tensor<2x3xi8> {
  // expected-error @+1 {{'kiln.bitcast_convert' op result shape must be [2, 3, 4], got [2, 3]}}
  %0 = kiln.bitcast_convert %a : (tensor<2x3xf32>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

func.func @reduce_precision_float(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'kiln.reduce_precision' op operand must have a float element type, got 'tensor<4xi32>'}}
  %0 = kiln.reduce_precision %a {exponent_bits = 8 : i64, mantissa_bits = 7 : i64} : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @reduce_precision_exponent(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.reduce_precision' op exponent_bits must be >= 1, got 0}}
  %0 = kiln.reduce_precision %a {exponent_bits = 0 : i64, mantissa_bits = 7 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_precision_mantissa(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.reduce_precision' op mantissa_bits must be >= 0, got -1}}
  %0 = kiln.reduce_precision %a {exponent_bits = 8 : i64, mantissa_bits = -1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_precision_result(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'kiln.reduce_precision' op result type must be 'tensor<4xf32>' (the operand's), got 'tensor<4xf16>'}}
  %0 = kiln.reduce_precision %a {exponent_bits = 5 : i64, mantissa_bits = 10 : i64} : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @bitcast_size(%a: tensor<2x3xf32>) -> tensor<8xi32> {
  // expected-error @+1 {{'kiln.bitcast' op result must have 192 bits (the operand's), got 256}}
  %0 = kiln.bitcast %a : (tensor<2x3xf32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

func.func @is_finite_float(%a: tensor<4xi32>) -> tensor<4xi1> {
  // expected-error @+1 {{'kiln.is_finite' op operand must have a float element type, got 'tensor<4xi32>'}}
  %0 = kiln.is_finite %a : (tensor<4xi32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_operand_types(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xi1> {
  // expected-error @+1 {{'kiln.compare' op rhs type must be 'tensor<4xf32>' (the lhs type), got 'tensor<4xf16>'}}
  %0 = kiln.compare %a, %b {direction = "EQ"} : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_direction(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'kiln.compare' op direction must be one of EQ, NE, LT, LE, GT, GE, got 'LESS'}}
  %0 = kiln.compare %a, %a {direction = "LESS"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_type(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'kiln.compare' op type must be one of FLOAT, TOTALORDER, SIGNED, UNSIGNED, got 'PARTIALORDER'}}
  %0 = kiln.compare %a, %a {direction = "LT", type = "PARTIALORDER"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @select_unranked_pred(%p: tensor<*xi1>, %a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.select' op pred must be a ranked tensor, got 'tensor<*xi1>'}}
  %0 = kiln.select %p, %a, %a : (tensor<*xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @select_on_false(%p: tensor<i1>, %a: tensor<2xf32>, %b: tensor<2xf16>) -> tensor<2xf32> {
  // expected-error @+1 {{'kiln.select' op on_false type must be 'tensor<2xf32>' (on_true's), got 'tensor<2xf16>'}}
  %0 = kiln.select %p, %a, %b : (tensor<i1>, tensor<2xf32>, tensor<2xf16>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @select_result(%p: tensor<i1>, %a: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'kiln.select' op result type must be 'tensor<2xf32>' (on_true's), got 'tensor<3xf32>'}}
  %0 = kiln.select %p, %a, %a : (tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @select_pred_shape(%p: tensor<3xi1>, %a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'kiln.select' op pred must be a scalar or have shape [2, 3] (on_true's), got 'tensor<3xi1>'}}
  %0 = kiln.select %p, %a, %a : (tensor<3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @clamp_element_type(%lo: tensor<f16>, %a: tensor<4xf32>, %hi: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.clamp' op min element type must be 'f32' (the operand's), got 'f16'}}
  %0 = kiln.clamp %lo, %a, %hi : (tensor<f16>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @clamp_bound_shape(%lo: tensor<f32>, %a: tensor<4xf32>, %hi: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.clamp' op max must be a scalar or have shape [4] (the operand's), got 'tensor<2xf32>'}}
  %0 = kiln.clamp %lo, %a, %hi : (tensor<f32>, tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @clamp_result(%lo: tensor<f32>, %a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'kiln.clamp' op result type must be 'tensor<4xf32>' (the operand's), got 'tensor<4xf16>'}}
  %0 = kiln.clamp %lo, %a, %lo : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

//===----------------------------------------------------------------------===//
// Contractions, reductions, sorting, indexing
//===----------------------------------------------------------------------===//

func.func @dot_general_batch_length(%a: tensor<8x2x3xf32>, %b: tensor<3x5xf32>) -> tensor<8x2x5xf32> {
  // expected-error @+1 {{'kiln.dot_general' op lhs_batch_dims and rhs_batch_dims must have the same length, got [0] and []}}
  %0 = kiln.dot_general %a, %b {lhs_batch_dims = array<i64: 0>, lhs_contracting_dims = array<i64: 2>, rhs_contracting_dims = array<i64: 0>} : (tensor<8x2x3xf32>, tensor<3x5xf32>) -> tensor<8x2x5xf32>
  return %0 : tensor<8x2x5xf32>
}

// -----

func.func @dot_general_contracting_length(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'kiln.dot_general' op lhs_contracting_dims and rhs_contracting_dims must have the same length, got [1] and [0, 1]}}
  %0 = kiln.dot_general %a, %b {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @dot_general_lhs_dims(%a: tensor<3x3xf32>, %b: tensor<3x3x5xf32>) -> tensor<3x5xf32> {
  // expected-error @+1 {{'kiln.dot_general' op lhs_batch_dims and lhs_contracting_dims must be unique and in [0, 2), got [0, 0]}}
  %0 = kiln.dot_general %a, %b {lhs_batch_dims = array<i64: 0>, rhs_batch_dims = array<i64: 0>, lhs_contracting_dims = array<i64: 0>, rhs_contracting_dims = array<i64: 1>} : (tensor<3x3xf32>, tensor<3x3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @dot_general_rhs_dims(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'kiln.dot_general' op rhs_batch_dims and rhs_contracting_dims must be unique and in [0, 2), got [2]}}
  %0 = kiln.dot_general %a, %b {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 2>} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @dot_general_batch_size(%a: tensor<8x2x3xf32>, %b: tensor<4x3x5xf32>) -> tensor<8x2x5xf32> {
  // expected-error @+1 {{'kiln.dot_general' op batch dimension sizes must match, got lhs dimension 0 of size 8 and rhs dimension 0 of size 4}}
  %0 = kiln.dot_general %a, %b {lhs_batch_dims = array<i64: 0>, rhs_batch_dims = array<i64: 0>, lhs_contracting_dims = array<i64: 2>, rhs_contracting_dims = array<i64: 1>} : (tensor<8x2x3xf32>, tensor<4x3x5xf32>) -> tensor<8x2x5xf32>
  return %0 : tensor<8x2x5xf32>
}

// -----

func.func @dot_general_contracting_size(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'kiln.dot_general' op contracting dimension sizes must match, got lhs dimension 1 of size 3 and rhs dimension 0 of size 4}}
  %0 = kiln.dot_general %a, %b {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 0>} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @dot_general_result(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<5x2xf32> {
  // expected-error @+1 {{'kiln.dot_general' op result shape must be [2, 5] (batch, lhs free, rhs free dimensions), got [5, 2]}}
  %0 = kiln.dot_general %a, %b {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 0>} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}

// -----

func.func @reduce_no_input() {
  // expected-error @+1 {{'kiln.reduce' op expects at least one input}}
  kiln.reduce() attributes {dimensions = array<i64>} {
    kiln.return
  } : () -> ()
  return
}

// -----

func.func @reduce_input_shapes(%a: tensor<4x6xf32>, %b: tensor<4x5xf32>, %z: tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'kiln.reduce' op input 1 shape must be [4, 6] (input 0's), got [4, 5]}}
  %0:2 = kiln.reduce(%a, %b, %z, %z) attributes {dimensions = array<i64: 1>} {
  ^bb0(%x0: tensor<f32>, %x1: tensor<f32>, %y0: tensor<f32>, %y1: tensor<f32>):
    kiln.return %x0, %x1 : tensor<f32>, tensor<f32>
  } : (tensor<4x6xf32>, tensor<4x5xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @reduce_dimensions(%a: tensor<4x6xf32>, %z: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.reduce' op dimensions must be unique and in [0, 2), got [2]}}
  %0 = kiln.reduce(%a, %z) attributes {dimensions = array<i64: 2>} {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    kiln.return %x : tensor<f32>
  } : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_init_scalar(%a: tensor<4x6xf32>, %z: tensor<1xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.reduce' op init value 0 must be a scalar, got 'tensor<1xf32>'}}
  %0 = kiln.reduce(%a, %z) attributes {dimensions = array<i64: 1>} {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    kiln.return %x : tensor<f32>
  } : (tensor<4x6xf32>, tensor<1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_init_element_type(%a: tensor<4x6xf32>, %z: tensor<i32>) -> tensor<4xi32> {
  // expected-error @+1 {{'kiln.reduce' op init value 0 element type must be 'f32' (input 0's), got 'i32'}}
  %0 = kiln.reduce(%a, %z) attributes {dimensions = array<i64: 1>} {
  ^bb0(%x: tensor<i32>, %y: tensor<f32>):
    kiln.return %x : tensor<i32>
  } : (tensor<4x6xf32>, tensor<i32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @reduce_result(%a: tensor<4x6xf32>, %z: tensor<f32>) -> tensor<6xf32> {
  // expected-error @+1 {{'kiln.reduce' op result types must be (tensor<4xf32>), got (tensor<6xf32>)}}
  %0 = kiln.reduce(%a, %z) attributes {dimensions = array<i64: 1>} {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    kiln.return %x : tensor<f32>
  } : (tensor<4x6xf32>, tensor<f32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

func.func @reduce_region_arguments(%a: tensor<4x6xf32>, %z: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.reduce' op region 'to_apply' argument types must be (tensor<f32>, tensor<f32>), got (tensor<f32>)}}
  %0 = kiln.reduce(%a, %z) attributes {dimensions = array<i64: 1>} {
  ^bb0(%x: tensor<f32>):
    kiln.return %x : tensor<f32>
  } : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_region_terminator(%a: tensor<4x6xf32>, %z: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.reduce' op region 'to_apply' must end with kiln.return}}
  %0 = kiln.reduce(%a, %z) attributes {dimensions = array<i64: 1>} {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = kiln.add %x, %y : (tensor<f32>, tensor<f32>) -> tensor<f32>
  } : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_region_results(%a: tensor<4x6xf32>, %z: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.reduce' op region 'to_apply' result types must be (tensor<f32>), got (tensor<f32>, tensor<f32>)}}
  %0 = kiln.reduce(%a, %z) attributes {dimensions = array<i64: 1>} {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    kiln.return %x, %y : tensor<f32>, tensor<f32>
  } : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_window_attribute_size(%a: tensor<4x6xf32>, %z: tensor<f32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{'kiln.reduce_window' op window_dimensions must have one entry per input dimension (2), got 1}}
  %0 = kiln.reduce_window(%a, %z) attributes {window_dimensions = array<i64: 1>, window_strides = array<i64: 1, 1>, base_dilations = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, padding_low = array<i64: 0, 0>, padding_high = array<i64: 0, 0>} {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    kiln.return %x : tensor<f32>
  } : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @reduce_window_stride(%a: tensor<4x6xf32>, %z: tensor<f32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{'kiln.reduce_window' op window_strides must be >= 1, got [1, 0]}}
  %0 = kiln.reduce_window(%a, %z) attributes {window_dimensions = array<i64: 1, 1>, window_strides = array<i64: 1, 0>, base_dilations = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, padding_low = array<i64: 0, 0>, padding_high = array<i64: 0, 0>} {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    kiln.return %x : tensor<f32>
  } : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// A 2x2 window with stride 2 fits 2x3 times in 4x6.
func.func @reduce_window_result(%a: tensor<4x6xf32>, %z: tensor<f32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'kiln.reduce_window' op result types must be (tensor<2x3xf32>), got (tensor<2x2xf32>)}}
  %0 = kiln.reduce_window(%a, %z) attributes {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>, base_dilations = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, padding_low = array<i64: 0, 0>, padding_high = array<i64: 0, 0>} {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    kiln.return %x : tensor<f32>
  } : (tensor<4x6xf32>, tensor<f32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @sort_dimensions(%a: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'kiln.sort' op dimensions must have exactly one entry, got []}}
  %0 = kiln.sort(%a) attributes {dimensions = array<i64>} {
  ^bb0(%l: tensor<f32>, %r: tensor<f32>):
    %lt = kiln.compare %l, %r {direction = "LT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    kiln.return %lt : tensor<i1>
  } : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @sort_dimension_range(%a: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'kiln.sort' op dimensions[0] must be in [0, 2), got 2}}
  %0 = kiln.sort(%a) attributes {dimensions = array<i64: 2>} {
  ^bb0(%l: tensor<f32>, %r: tensor<f32>):
    %lt = kiln.compare %l, %r {direction = "LT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    kiln.return %lt : tensor<i1>
  } : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @sort_result(%a: tensor<4x16xf32>) -> tensor<4x16xf16> {
  // expected-error @+1 {{'kiln.sort' op result types must be (tensor<4x16xf32>), got (tensor<4x16xf16>)}}
  %0 = kiln.sort(%a) attributes {dimensions = array<i64: 1>} {
  ^bb0(%l: tensor<f32>, %r: tensor<f32>):
    %lt = kiln.compare %l, %r {direction = "LT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    kiln.return %lt : tensor<i1>
  } : (tensor<4x16xf32>) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

func.func @sort_region_arguments(%a: tensor<4x16xf32>, %b: tensor<4x16xi32>) -> (tensor<4x16xf32>, tensor<4x16xi32>) {
  // expected-error @+1 {{'kiln.sort' op region 'to_apply' argument types must be (tensor<f32>, tensor<f32>, tensor<i32>, tensor<i32>), got (tensor<f32>, tensor<f32>)}}
  %0:2 = kiln.sort(%a, %b) attributes {dimensions = array<i64: 1>} {
  ^bb0(%l: tensor<f32>, %r: tensor<f32>):
    %lt = kiln.compare %l, %r {direction = "LT"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    kiln.return %lt : tensor<i1>
  } : (tensor<4x16xf32>, tensor<4x16xi32>) -> (tensor<4x16xf32>, tensor<4x16xi32>)
  return %0#0, %0#1 : tensor<4x16xf32>, tensor<4x16xi32>
}

// -----

func.func @sort_region_result(%a: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'kiln.sort' op region 'to_apply' result types must be (tensor<i1>), got (tensor<f32>)}}
  %0 = kiln.sort(%a) attributes {dimensions = array<i64: 1>} {
  ^bb0(%l: tensor<f32>, %r: tensor<f32>):
    kiln.return %l : tensor<f32>
  } : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @topk_unranked_indices(%a: tensor<2x50xf32>) -> tensor<*xi32> {
  // expected-error @+1 {{'kiln.topk' op indices must be a ranked tensor, got 'tensor<*xi32>'}}
  %0:2 = kiln.topk %a {k = 10 : i64} : (tensor<2x50xf32>) -> (tensor<2x10xf32>, tensor<*xi32>)
  return %0#1 : tensor<*xi32>
}

// -----

func.func @topk_scalar(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.topk' op operand must have rank >= 1, got 'tensor<f32>'}}
  %0:2 = kiln.topk %a {k = 1 : i64} : (tensor<f32>) -> (tensor<f32>, tensor<i32>)
  return %0#0 : tensor<f32>
}

// -----

func.func @topk_k(%a: tensor<2x50xf32>) -> tensor<2x51xf32> {
  // expected-error @+1 {{'kiln.topk' op k must be in [0, 50] (the last operand dimension), got 51}}
  %0:2 = kiln.topk %a {k = 51 : i64} : (tensor<2x50xf32>) -> (tensor<2x51xf32>, tensor<2x51xi32>)
  return %0#0 : tensor<2x51xf32>
}

// -----

func.func @topk_values(%a: tensor<2x50xbf16>) -> tensor<2x10xf32> {
  // expected-error @+1 {{'kiln.topk' op values type must be 'tensor<2x10xbf16>' (the operand's with k last), got 'tensor<2x10xf32>'}}
  %0:2 = kiln.topk %a {k = 10 : i64} : (tensor<2x50xbf16>) -> (tensor<2x10xf32>, tensor<2x10xi32>)
  return %0#0 : tensor<2x10xf32>
}

// -----

func.func @topk_indices(%a: tensor<2x50xf32>) -> tensor<2x5xi32> {
  // expected-error @+1 {{'kiln.topk' op indices shape must be [2, 10] (the values shape), got [2, 5]}}
  %0:2 = kiln.topk %a {k = 10 : i64} : (tensor<2x50xf32>) -> (tensor<2x10xf32>, tensor<2x5xi32>)
  return %0#1 : tensor<2x5xi32>
}

// -----

func.func @gather_unranked_indices(%t: tensor<100x16xf32>, %i: tensor<*xi32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'kiln.gather' op start_indices must be a ranked tensor, got 'tensor<*xi32>'}}
  %0 = kiln.gather %t, %i {offset_dims = array<i64: 1>, collapsed_slice_dims = array<i64: 0>, start_index_map = array<i64: 0>, index_vector_dim = 1 : i64, slice_sizes = array<i64: 1, 16>} : (tensor<100x16xf32>, tensor<*xi32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @gather_index_vector_dim(%t: tensor<100x16xf32>, %i: tensor<4x7x1xi32>) -> tensor<4x7x16xf32> {
  // expected-error @+1 {{'kiln.gather' op index_vector_dim must be in [0, 3] (the start_indices rank), got 4}}
  %0 = kiln.gather %t, %i {offset_dims = array<i64: 2>, collapsed_slice_dims = array<i64: 0>, start_index_map = array<i64: 0>, index_vector_dim = 4 : i64, slice_sizes = array<i64: 1, 16>} : (tensor<100x16xf32>, tensor<4x7x1xi32>) -> tensor<4x7x16xf32>
  return %0 : tensor<4x7x16xf32>
}

// -----

func.func @gather_collapsed_sorted(%t: tensor<100x16xf32>, %i: tensor<4x2xi32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.gather' op collapsed_slice_dims must be sorted, unique and in [0, 2), got [1, 0]}}
  %0 = kiln.gather %t, %i {collapsed_slice_dims = array<i64: 1, 0>, start_index_map = array<i64: 0, 1>, index_vector_dim = 1 : i64, slice_sizes = array<i64: 1, 1>} : (tensor<100x16xf32>, tensor<4x2xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @gather_collapsed_batching(%a: tensor<8x5xf32>, %i: tensor<8x1xi32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.gather' op collapsed_slice_dims and operand_batching_dims must be disjoint, got 0 in both}}
  %0 = kiln.gather %a, %i {collapsed_slice_dims = array<i64: 0, 1>, operand_batching_dims = array<i64: 0>, start_indices_batching_dims = array<i64: 0>, start_index_map = array<i64: 1>, index_vector_dim = 1 : i64, slice_sizes = array<i64: 1, 1>} : (tensor<8x5xf32>, tensor<8x1xi32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @gather_batching_count(%a: tensor<8x5xf32>, %i: tensor<8x1xi32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.gather' op start_indices_batching_dims must have one entry per operand batching dimension (1), got 0}}
  %0 = kiln.gather %a, %i {collapsed_slice_dims = array<i64: 1>, operand_batching_dims = array<i64: 0>, start_index_map = array<i64: 1>, index_vector_dim = 1 : i64, slice_sizes = array<i64: 1, 1>} : (tensor<8x5xf32>, tensor<8x1xi32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @gather_batching_index_vector_dim(%a: tensor<8x5xf32>, %i: tensor<8x1xi32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.gather' op start_indices_batching_dims must not contain index_vector_dim (1)}}
  %0 = kiln.gather %a, %i {collapsed_slice_dims = array<i64: 1>, operand_batching_dims = array<i64: 0>, start_indices_batching_dims = array<i64: 1>, start_index_map = array<i64: 1>, index_vector_dim = 1 : i64, slice_sizes = array<i64: 1, 1>} : (tensor<8x5xf32>, tensor<8x1xi32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @gather_index_map_batching(%a: tensor<8x5xf32>, %i: tensor<8x1xi32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.gather' op start_index_map and operand_batching_dims must be disjoint, got 0 in both}}
  %0 = kiln.gather %a, %i {collapsed_slice_dims = array<i64: 1>, operand_batching_dims = array<i64: 0>, start_indices_batching_dims = array<i64: 0>, start_index_map = array<i64: 0>, index_vector_dim = 1 : i64, slice_sizes = array<i64: 1, 1>} : (tensor<8x5xf32>, tensor<8x1xi32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @gather_index_map_size(%t: tensor<100x16xf32>, %i: tensor<4x1xi32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.gather' op start_index_map must have one entry per index vector element (1), got 2}}
  %0 = kiln.gather %t, %i {collapsed_slice_dims = array<i64: 0, 1>, start_index_map = array<i64: 0, 1>, index_vector_dim = 1 : i64, slice_sizes = array<i64: 1, 1>} : (tensor<100x16xf32>, tensor<4x1xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @gather_slice_sizes_size(%t: tensor<100x16xf32>, %i: tensor<4x1xi32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'kiln.gather' op slice_sizes must have one entry per operand dimension (2), got 1}}
  %0 = kiln.gather %t, %i {offset_dims = array<i64: 1>, collapsed_slice_dims = array<i64: 0>, start_index_map = array<i64: 0>, index_vector_dim = 1 : i64, slice_sizes = array<i64: 1>} : (tensor<100x16xf32>, tensor<4x1xi32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @gather_slice_size_bound(%t: tensor<100x16xf32>, %i: tensor<4x1xi32>) -> tensor<4x17xf32> {
  // expected-error @+1 {{'kiln.gather' op slice_sizes[1] must be in [0, 16] (the operand dimension), got 17}}
  %0 = kiln.gather %t, %i {offset_dims = array<i64: 1>, collapsed_slice_dims = array<i64: 0>, start_index_map = array<i64: 0>, index_vector_dim = 1 : i64, slice_sizes = array<i64: 1, 17>} : (tensor<100x16xf32>, tensor<4x1xi32>) -> tensor<4x17xf32>
  return %0 : tensor<4x17xf32>
}

// -----

func.func @gather_collapsed_slice_size(%t: tensor<100x16xf32>, %i: tensor<4x1xi32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'kiln.gather' op slice_sizes[0] must be 0 or 1 for a collapsed or batching dimension, got 2}}
  %0 = kiln.gather %t, %i {offset_dims = array<i64: 1>, collapsed_slice_dims = array<i64: 0>, start_index_map = array<i64: 0>, index_vector_dim = 1 : i64, slice_sizes = array<i64: 2, 16>} : (tensor<100x16xf32>, tensor<4x1xi32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @gather_offset_dims_count(%t: tensor<100x16xf32>, %i: tensor<4x1xi32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'kiln.gather' op offset_dims must have one entry per operand dimension neither collapsed nor batching (1), got 2}}
  %0 = kiln.gather %t, %i {offset_dims = array<i64: 1, 2>, collapsed_slice_dims = array<i64: 0>, start_index_map = array<i64: 0>, index_vector_dim = 1 : i64, slice_sizes = array<i64: 1, 16>} : (tensor<100x16xf32>, tensor<4x1xi32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @gather_offset_dims_range(%t: tensor<100x16xf32>, %i: tensor<4x7x1xi32>) -> tensor<4x7x16xf32> {
  // expected-error @+1 {{'kiln.gather' op offset_dims must be sorted, unique and in [0, 3), got [3]}}
  %0 = kiln.gather %t, %i {offset_dims = array<i64: 3>, collapsed_slice_dims = array<i64: 0>, start_index_map = array<i64: 0>, index_vector_dim = 2 : i64, slice_sizes = array<i64: 1, 16>} : (tensor<100x16xf32>, tensor<4x7x1xi32>) -> tensor<4x7x16xf32>
  return %0 : tensor<4x7x16xf32>
}

// -----

func.func @gather_result(%t: tensor<100x16xf32>, %i: tensor<4x7x1xi32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'kiln.gather' op result type must be 'tensor<4x7x16xf32>' (indices batch dimensions with slices at offset_dims), got 'tensor<4x16xf32>'}}
  %0 = kiln.gather %t, %i {offset_dims = array<i64: 2>, collapsed_slice_dims = array<i64: 0>, start_index_map = array<i64: 0>, index_vector_dim = 2 : i64, slice_sizes = array<i64: 1, 16>} : (tensor<100x16xf32>, tensor<4x7x1xi32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @scatter_no_input(%i: tensor<4x1xi32>) {
  // expected-error @+1 {{'kiln.scatter' op expects at least one input}}
  kiln.scatter(%i) attributes {index_vector_dim = 1 : i64} {
    kiln.return
  } : (tensor<4x1xi32>) -> ()
  return
}

// -----

func.func @scatter_update_shapes(%t: tensor<100x16xf32>, %i: tensor<4x1xi32>, %u: tensor<4x16xf32>, %v: tensor<4x8xf32>) -> tensor<100x16xf32> {
  // expected-error @+1 {{'kiln.scatter' op update 1 shape must be [4, 16] (update 0's), got [4, 8]}}
  %0:2 = kiln.scatter(%t, %t, %i, %u, %v) attributes {update_window_dims = array<i64: 1>, inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>, %d: tensor<f32>):
    kiln.return %c, %d : tensor<f32>, tensor<f32>
  } : (tensor<100x16xf32>, tensor<100x16xf32>, tensor<4x1xi32>, tensor<4x16xf32>, tensor<4x8xf32>) -> (tensor<100x16xf32>, tensor<100x16xf32>)
  return %0#0 : tensor<100x16xf32>
}

// -----

func.func @scatter_unranked_indices(%t: tensor<100x16xf32>, %i: tensor<*xi32>, %u: tensor<4x16xf32>) -> tensor<100x16xf32> {
  // expected-error @+1 {{'kiln.scatter' op scatter_indices must be a ranked tensor, got 'tensor<*xi32>'}}
  %0 = kiln.scatter(%t, %i, %u) attributes {update_window_dims = array<i64: 1>, inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    kiln.return %b : tensor<f32>
  } : (tensor<100x16xf32>, tensor<*xi32>, tensor<4x16xf32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

func.func @scatter_result(%t: tensor<100x16xf32>, %i: tensor<4x1xi32>, %u: tensor<4x16xf32>) -> tensor<100x8xf32> {
  // expected-error @+1 {{'kiln.scatter' op result types must be (tensor<100x16xf32>), got (tensor<100x8xf32>)}}
  %0 = kiln.scatter(%t, %i, %u) attributes {update_window_dims = array<i64: 1>, inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    kiln.return %b : tensor<f32>
  } : (tensor<100x16xf32>, tensor<4x1xi32>, tensor<4x16xf32>) -> tensor<100x8xf32>
  return %0 : tensor<100x8xf32>
}

// -----

func.func @scatter_index_vector_dim(%t: tensor<100x16xf32>, %i: tensor<4x1xi32>, %u: tensor<4x16xf32>) -> tensor<100x16xf32> {
  // expected-error @+1 {{'kiln.scatter' op index_vector_dim must be in [0, 2] (the scatter_indices rank), got 3}}
  %0 = kiln.scatter(%t, %i, %u) attributes {update_window_dims = array<i64: 1>, inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 3 : i64} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    kiln.return %b : tensor<f32>
  } : (tensor<100x16xf32>, tensor<4x1xi32>, tensor<4x16xf32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

func.func @scatter_update_window_dims(%t: tensor<100x16xf32>, %i: tensor<4x1xi32>, %u: tensor<4x16xf32>) -> tensor<100x16xf32> {
  // expected-error @+1 {{'kiln.scatter' op update_window_dims must be sorted, unique and in [0, 2), got [2]}}
  %0 = kiln.scatter(%t, %i, %u) attributes {update_window_dims = array<i64: 2>, inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    kiln.return %b : tensor<f32>
  } : (tensor<100x16xf32>, tensor<4x1xi32>, tensor<4x16xf32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

func.func @scatter_update_window_count(%t: tensor<100x16xf32>, %i: tensor<4x1xi32>, %u: tensor<4x16xf32>) -> tensor<100x16xf32> {
  // expected-error @+1 {{'kiln.scatter' op update_window_dims must have one entry per input dimension neither inserted nor batching (1), got 0}}
  %0 = kiln.scatter(%t, %i, %u) attributes {inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    kiln.return %b : tensor<f32>
  } : (tensor<100x16xf32>, tensor<4x1xi32>, tensor<4x16xf32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

func.func @scatter_update_rank(%t: tensor<100x16xf32>, %i: tensor<4x1xi32>, %u: tensor<4x1x16xf32>) -> tensor<100x16xf32> {
  // expected-error @+1 {{'kiln.scatter' op updates must have rank 2 (update_window_dims plus the scatter_indices batch dimensions), got 'tensor<4x1x16xf32>'}}
  %0 = kiln.scatter(%t, %i, %u) attributes {update_window_dims = array<i64: 2>, inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    kiln.return %b : tensor<f32>
  } : (tensor<100x16xf32>, tensor<4x1xi32>, tensor<4x1x16xf32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

func.func @scatter_window_size(%t: tensor<100x16xf32>, %i: tensor<4x1xi32>, %u: tensor<4x17xf32>) -> tensor<100x16xf32> {
  // expected-error @+1 {{'kiln.scatter' op update dimension 1 (size 17) must not exceed input dimension 1 (size 16)}}
  %0 = kiln.scatter(%t, %i, %u) attributes {update_window_dims = array<i64: 1>, inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    kiln.return %b : tensor<f32>
  } : (tensor<100x16xf32>, tensor<4x1xi32>, tensor<4x17xf32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

func.func @scatter_batch_size(%t: tensor<100x16xf32>, %i: tensor<4x1xi32>, %u: tensor<5x16xf32>) -> tensor<100x16xf32> {
  // expected-error @+1 {{'kiln.scatter' op update dimension 0 (size 5) must equal the scatter_indices batch dimension of size 4}}
  %0 = kiln.scatter(%t, %i, %u) attributes {update_window_dims = array<i64: 1>, inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    kiln.return %b : tensor<f32>
  } : (tensor<100x16xf32>, tensor<4x1xi32>, tensor<5x16xf32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

func.func @scatter_update_element_type(%t: tensor<100x16xf32>, %i: tensor<4x1xi32>, %u: tensor<4x16xi32>) -> tensor<100x16xf32> {
  // expected-error @+1 {{'kiln.scatter' op update 0 element type must be 'f32' (input 0's), got 'i32'}}
  %0 = kiln.scatter(%t, %i, %u) attributes {update_window_dims = array<i64: 1>, inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64} {
  ^bb0(%a: tensor<f32>, %b: tensor<i32>):
    kiln.return %a : tensor<f32>
  } : (tensor<100x16xf32>, tensor<4x1xi32>, tensor<4x16xi32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

func.func @scatter_region(%t: tensor<100x16xf32>, %i: tensor<4x1xi32>, %u: tensor<4x16xf32>) -> tensor<100x16xf32> {
  // expected-error @+1 {{'kiln.scatter' op region 'to_apply' argument types must be (tensor<f32>, tensor<f32>), got (tensor<f32>)}}
  %0 = kiln.scatter(%t, %i, %u) attributes {update_window_dims = array<i64: 1>, inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64} {
  ^bb0(%a: tensor<f32>):
    kiln.return %a : tensor<f32>
  } : (tensor<100x16xf32>, tensor<4x1xi32>, tensor<4x16xf32>) -> tensor<100x16xf32>
  return %0 : tensor<100x16xf32>
}

// -----

func.func @batch_norm_training_float(%x: tensor<2x4xi32>, %s: tensor<4xi32>) -> tensor<2x4xi32> {
  // expected-error @+1 {{'kiln.batch_norm_training' op operand must have a float element type, got 'tensor<2x4xi32>'}}
  %y, %m, %v = kiln.batch_norm_training %x, %s, %s {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x4xi32>, tensor<4xi32>, tensor<4xi32>) -> (tensor<2x4xi32>, tensor<4xi32>, tensor<4xi32>)
  return %y : tensor<2x4xi32>
}

// -----

func.func @batch_norm_training_feature_index(%x: tensor<2x4x8xf32>, %s: tensor<4xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{'kiln.batch_norm_training' op feature_index must be in [0, 3), got 3}}
  %y, %m, %v = kiln.batch_norm_training %x, %s, %s {epsilon = 1.0e-5 : f32, feature_index = 3 : i64} : (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<2x4x8xf32>
}

// -----

func.func @batch_norm_training_scale(%x: tensor<2x4x8xf32>, %s: tensor<8xf32>, %o: tensor<4xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{'kiln.batch_norm_training' op scale type must be 'tensor<4xf32>' (1-D, of the feature dimension's size), got 'tensor<8xf32>'}}
  %y, %m, %v = kiln.batch_norm_training %x, %s, %o {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<4xf32>) -> (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<2x4x8xf32>
}

// -----

func.func @batch_norm_training_output(%x: tensor<2x4x8xf32>, %s: tensor<4xf32>) -> tensor<2x4x8xf16> {
  // expected-error @+1 {{'kiln.batch_norm_training' op output type must be 'tensor<2x4x8xf32>' (the operand's), got 'tensor<2x4x8xf16>'}}
  %y, %m, %v = kiln.batch_norm_training %x, %s, %s {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x8xf16>, tensor<4xf32>, tensor<4xf32>)
  return %y : tensor<2x4x8xf16>
}

// -----

func.func @batch_norm_inference_variance(%x: tensor<2x4x8xf32>, %s: tensor<4xf32>, %var: tensor<4x1xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{'kiln.batch_norm_inference' op variance type must be 'tensor<4xf32>' (1-D, of the feature dimension's size), got 'tensor<4x1xf32>'}}
  %0 = kiln.batch_norm_inference %x, %s, %s, %s, %var {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x1xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

func.func @batch_norm_inference_output(%x: tensor<2x4x8xf32>, %s: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'kiln.batch_norm_inference' op output type must be 'tensor<2x4x8xf32>' (the operand's), got 'tensor<2x4xf32>'}}
  %0 = kiln.batch_norm_inference %x, %s, %s, %s, %s {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @batch_norm_grad_offset(%x: tensor<2x4x8xf32>, %s: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.batch_norm_grad' op grad_offset type must be 'tensor<4xf32>' (1-D, of the feature dimension's size), got 'tensor<8xf32>'}}
  %gx, %gs, %go = kiln.batch_norm_grad %x, %s, %s, %s, %x {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<4xf32>, tensor<8xf32>)
  return %go : tensor<8xf32>
}

// -----

func.func @batch_norm_grad_grad_output(%x: tensor<2x4x8xf32>, %s: tensor<4xf32>, %dy: tensor<2x4x7xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{'kiln.batch_norm_grad' op grad_output type must be 'tensor<2x4x8xf32>' (the operand's), got 'tensor<2x4x7xf32>'}}
  %gx, %gs, %go = kiln.batch_norm_grad %x, %s, %s, %s, %dy {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x4x7xf32>) -> (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  return %gx : tensor<2x4x8xf32>
}

// -----

func.func @batch_norm_grad_grad_operand(%x: tensor<2x4x8xf32>, %s: tensor<4xf32>) -> tensor<2x4x8xbf16> {
  // expected-error @+1 {{'kiln.batch_norm_grad' op grad_operand type must be 'tensor<2x4x8xf32>' (the operand's), got 'tensor<2x4x8xbf16>'}}
  %gx, %gs, %go = kiln.batch_norm_grad %x, %s, %s, %s, %x {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x4x8xf32>) -> (tensor<2x4x8xbf16>, tensor<4xf32>, tensor<4xf32>)
  return %gx : tensor<2x4x8xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

func.func @rng_distribution(%a: tensor<f32>) -> tensor<3xf32> {
  // expected-error @+1 {{'kiln.rng' op distribution must be one of rng_uniform, rng_normal, got 'rng_bernoulli'}}
  %0 = kiln.rng %a, %a {distribution = "rng_bernoulli"} : (tensor<f32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @rng_bound_scalar(%a: tensor<1xf32>, %b: tensor<f32>) -> tensor<3xf32> {
  // expected-error @+1 {{'kiln.rng' op a type must be 'tensor<f32>' (a scalar of the result's element type), got 'tensor<1xf32>'}}
  %0 = kiln.rng %a, %b {distribution = "rng_uniform"} : (tensor<1xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @rng_normal_float(%a: tensor<i32>) -> tensor<3xi32> {
  // expected-error @+1 {{'kiln.rng' op rng_normal result must have a float element type, got 'tensor<3xi32>'}}
  %0 = kiln.rng %a, %a {distribution = "rng_normal"} : (tensor<i32>, tensor<i32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func @rng_bit_generator_algorithm(%s: tensor<2xui64>) -> tensor<4xui32> {
  // expected-error @+1 {{'kiln.rng_bit_generator' op algorithm must be one of rng_default, rng_three_fry, rng_philox, got 'mt19937'}}
  %0:2 = kiln.rng_bit_generator %s {algorithm = "mt19937"} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  return %0#1 : tensor<4xui32>
}

// -----

func.func @rng_bit_generator_state_rank(%s: tensor<2x2xui64>) -> tensor<4xui32> {
  // expected-error @+1 {{'kiln.rng_bit_generator' op initial_state must be 1-D, got 'tensor<2x2xui64>'}}
  %0:2 = kiln.rng_bit_generator %s : (tensor<2x2xui64>) -> (tensor<2x2xui64>, tensor<4xui32>)
  return %0#1 : tensor<4xui32>
}

// -----

func.func @rng_bit_generator_output_state(%s: tensor<2xui64>) -> tensor<4xui32> {
  // expected-error @+1 {{'kiln.rng_bit_generator' op output_state type must be 'tensor<2xui64>' (the initial_state's), got 'tensor<3xui64>'}}
  %0:2 = kiln.rng_bit_generator %s : (tensor<2xui64>) -> (tensor<3xui64>, tensor<4xui32>)
  return %0#1 : tensor<4xui32>
}

// -----

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

func.func @while_results(%n: tensor<i32>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.while' op result types must be (tensor<i32>), got (tensor<f32>)}}
  %0 = kiln.while(%n) {
  ^bb0(%i: tensor<i32>):
    %t = kiln.constant dense<true> : tensor<i1>
    kiln.return %t : tensor<i1>
  }, {
  ^bb0(%i: tensor<i32>):
    kiln.return %i : tensor<i32>
  } : (tensor<i32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @while_condition_arguments(%n: tensor<i32>) -> tensor<i32> {
  // expected-error @+1 {{'kiln.while' op region 'condition' argument types must be (tensor<i32>), got (tensor<f32>)}}
  %0 = kiln.while(%n) {
  ^bb0(%i: tensor<f32>):
    %t = kiln.constant dense<true> : tensor<i1>
    kiln.return %t : tensor<i1>
  }, {
  ^bb0(%i: tensor<i32>):
    kiln.return %i : tensor<i32>
  } : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @while_condition_result(%n: tensor<i32>) -> tensor<i32> {
  // expected-error @+1 {{'kiln.while' op region 'condition' result types must be (tensor<i1>), got (tensor<i32>)}}
  %0 = kiln.while(%n) {
  ^bb0(%i: tensor<i32>):
    kiln.return %i : tensor<i32>
  }, {
  ^bb0(%i: tensor<i32>):
    kiln.return %i : tensor<i32>
  } : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @while_body_result(%n: tensor<i32>) -> tensor<i32> {
  // expected-error @+1 {{'kiln.while' op region 'body' result types must be (tensor<i32>), got (tensor<i32>, tensor<i32>)}}
  %0 = kiln.while(%n) {
  ^bb0(%i: tensor<i32>):
    %t = kiln.constant dense<true> : tensor<i1>
    kiln.return %t : tensor<i1>
  }, {
  ^bb0(%i: tensor<i32>):
    kiln.return %i, %i : tensor<i32>, tensor<i32>
  } : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @conditional_pred_branches(%p: tensor<i1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.conditional' op expects 2 branches with a tensor<i1> index, got 3}}
  %0 = kiln.conditional(%p, %a, %a, %a) attributes {branch_operand_counts = array<i64: 1, 1, 1>} {
  ^bb0(%x: tensor<4xf32>):
    kiln.return %x : tensor<4xf32>
  }, {
  ^bb0(%x: tensor<4xf32>):
    kiln.return %x : tensor<4xf32>
  }, {
  ^bb0(%x: tensor<4xf32>):
    kiln.return %x : tensor<4xf32>
  } : (tensor<i1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @conditional_no_branch(%i: tensor<i32>) {
  // expected-error @+1 {{'kiln.conditional' op expects at least one branch}}
  "kiln.conditional"(%i) <{branch_operand_counts = array<i64>}> : (tensor<i32>) -> ()
  return
}

// -----

func.func @conditional_counts_size(%i: tensor<i32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.conditional' op branch_operand_counts must have one entry per branch (2), got 1}}
  %0 = kiln.conditional(%i, %a) attributes {branch_operand_counts = array<i64: 1>} {
  ^bb0(%x: tensor<4xf32>):
    kiln.return %x : tensor<4xf32>
  }, {
    kiln.return %a : tensor<4xf32>
  } : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @conditional_negative_count(%i: tensor<i32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.conditional' op branch_operand_counts must be non-negative, got [-1, 2]}}
  %0 = kiln.conditional(%i, %a) attributes {branch_operand_counts = array<i64: -1, 2>} {
    %z = kiln.constant dense<0.0> : tensor<4xf32>
    kiln.return %z : tensor<4xf32>
  }, {
  ^bb0(%x: tensor<4xf32>):
    kiln.return %x : tensor<4xf32>
  } : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @conditional_count_sum(%i: tensor<i32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.conditional' op branch_operand_counts must add up to the 2 branch operands, got [1, 2]}}
  %0 = kiln.conditional(%i, %a, %a) attributes {branch_operand_counts = array<i64: 1, 2>} {
  ^bb0(%x: tensor<4xf32>):
    kiln.return %x : tensor<4xf32>
  }, {
  ^bb0(%x: tensor<4xf32>):
    kiln.return %x : tensor<4xf32>
  } : (tensor<i32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @conditional_branch_arguments(%p: tensor<i1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.conditional' op region 'branches[1]' argument types must be (tensor<4xf32>), got ()}}
  %0 = kiln.conditional(%p, %a, %a) attributes {branch_operand_counts = array<i64: 1, 1>} {
  ^bb0(%x: tensor<4xf32>):
    kiln.return %x : tensor<4xf32>
  }, {
    %z = kiln.constant dense<0.0> : tensor<4xf32>
    kiln.return %z : tensor<4xf32>
  } : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @conditional_branch_result(%p: tensor<i1>, %a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.conditional' op region 'branches[0]' result types must be (tensor<4xf32>), got (tensor<4xf16>)}}
  %0 = kiln.conditional(%p, %b, %a) attributes {branch_operand_counts = array<i64: 1, 1>} {
  ^bb0(%x: tensor<4xf16>):
    kiln.return %x : tensor<4xf16>
  }, {
  ^bb0(%x: tensor<4xf32>):
    kiln.return %x : tensor<4xf32>
  } : (tensor<i1>, tensor<4xf16>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @optimization_barrier_results(%a: tensor<4xf32>, %t: !kiln.token) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.optimization_barrier' op result types must be (tensor<4xf32>, !kiln.token), got (tensor<4xf32>, tensor<4xf32>)}}
  %0:2 = kiln.optimization_barrier %a, %t : (tensor<4xf32>, !kiln.token) -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0 : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

func.func @all_reduce_groups_rank(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.all_reduce' op replica_groups must be a 2-D tensor, got 'tensor<4xi64>'}}
  %0 = kiln.all_reduce(%a) attributes {replica_groups = dense<[0, 1, 2, 3]> : tensor<4xi64>} {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    kiln.return %x : tensor<f32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @all_reduce_groups_repeat(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.all_reduce' op replica_groups must not repeat a replica, got 1 twice}}
  %0 = kiln.all_reduce(%a) attributes {replica_groups = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>} {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    kiln.return %x : tensor<f32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @all_reduce_no_operand() {
  // expected-error @+1 {{'kiln.all_reduce' op expects at least one operand}}
  kiln.all_reduce() attributes {replica_groups = dense<> : tensor<0x0xi64>} {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    kiln.return %x : tensor<f32>
  } : () -> ()
  return
}

// -----

func.func @all_reduce_result_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.all_reduce' op expects 2 results (one per operand), got 1}}
  %0 = kiln.all_reduce(%a, %a) attributes {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    kiln.return %x : tensor<f32>
  } : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @all_reduce_results(%a: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.all_reduce' op result types must be (tensor<4xf32>), got (tensor<8xf32>)}}
  %0 = kiln.all_reduce(%a) attributes {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    kiln.return %x : tensor<f32>
  } : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @all_reduce_region(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.all_reduce' op region 'to_apply' argument types must be (tensor<f32>, tensor<f32>), got (tensor<i32>, tensor<i32>)}}
  %0 = kiln.all_reduce(%a) attributes {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} {
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    kiln.return %x : tensor<i32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @all_gather_dimensions(%a: tensor<3x10xf32>) -> tensor<6x10xf32> {
  // expected-error @+1 {{'kiln.all_gather' op dimensions must have exactly one entry, got []}}
  %0 = kiln.all_gather %a {dimensions = array<i64>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<3x10xf32>) -> tensor<6x10xf32>
  return %0 : tensor<6x10xf32>
}

// -----

func.func @all_gather_dimension_range(%a: tensor<3x10xf32>) -> tensor<6x10xf32> {
  // expected-error @+1 {{'kiln.all_gather' op dimensions[0] must be in [0, 2), got 2}}
  %0 = kiln.all_gather %a {dimensions = array<i64: 2>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<3x10xf32>) -> tensor<6x10xf32>
  return %0 : tensor<6x10xf32>
}

// -----

func.func @all_gather_result(%a: tensor<3x10xf32>) -> tensor<8x10xf32> {
  // expected-error @+1 {{'kiln.all_gather' op result 0 type must be 'tensor<6x10xf32>' (operand 0 gathered over 2 participants along dimension 0), got 'tensor<8x10xf32>'}}
  %0 = kiln.all_gather %a {dimensions = array<i64: 0>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : (tensor<3x10xf32>) -> tensor<8x10xf32>
  return %0 : tensor<8x10xf32>
}

// -----

// With a channel_id and without use_global_device_ids, the group also spans
// the partitions, so the number of participants is inferred from result 0.
func.func @all_gather_inferred_participants(%a: tensor<3x10xf32>) -> tensor<7x10xf32> {
  // expected-error @+1 {{'kiln.all_gather' op result 0 type must be 'tensor<9x10xf32>' (operand 0 gathered over 3 participants along dimension 0), got 'tensor<7x10xf32>'}}
  %0 = kiln.all_gather %a {dimensions = array<i64: 0>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_id = 1 : i64} : (tensor<3x10xf32>) -> tensor<7x10xf32>
  return %0 : tensor<7x10xf32>
}

// -----

func.func @all_gather_scalar(%a: tensor<3x10xf32>, %s: tensor<bf16>) -> tensor<2xbf16> {
  // expected-error @+1 {{'kiln.all_gather' op result 1 type must be 'tensor<bf16>' (a scalar operand passes through), got 'tensor<2xbf16>'}}
  %0:2 = kiln.all_gather %a, %s {dimensions = array<i64: 0>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<3x10xf32>, tensor<bf16>) -> (tensor<6x10xf32>, tensor<2xbf16>)
  return %0#1 : tensor<2xbf16>
}

// -----

func.func @reduce_scatter_divisible(%a: tensor<6x4xbf16>) -> tensor<1x4xbf16> {
  // expected-error @+1 {{'kiln.reduce_scatter' op operand 0 dimension 0 (size 6) must be divisible by the group size (4)}}
  %0 = kiln.reduce_scatter(%a) attributes {dimensions = array<i64: 0>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} {
  ^bb0(%x: tensor<bf16>, %y: tensor<bf16>):
    kiln.return %x : tensor<bf16>
  } : (tensor<6x4xbf16>) -> tensor<1x4xbf16>
  return %0 : tensor<1x4xbf16>
}

// -----

func.func @reduce_scatter_result(%a: tensor<8x4xbf16>) -> tensor<4x4xbf16> {
  // expected-error @+1 {{'kiln.reduce_scatter' op result 0 type must be 'tensor<2x4xbf16>' (operand 0 scattered over 4 participants along dimension 0), got 'tensor<4x4xbf16>'}}
  %0 = kiln.reduce_scatter(%a) attributes {dimensions = array<i64: 0>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} {
  ^bb0(%x: tensor<bf16>, %y: tensor<bf16>):
    kiln.return %x : tensor<bf16>
  } : (tensor<8x4xbf16>) -> tensor<4x4xbf16>
  return %0 : tensor<4x4xbf16>
}

// -----

func.func @reduce_scatter_region(%a: tensor<8x4xbf16>) -> tensor<2x4xbf16> {
  // expected-error @+1 {{'kiln.reduce_scatter' op region 'to_apply' result types must be (tensor<bf16>), got (tensor<i32>)}}
  %0 = kiln.reduce_scatter(%a) attributes {dimensions = array<i64: 0>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} {
  ^bb0(%x: tensor<bf16>, %y: tensor<bf16>):
    %c = kiln.convert %x : (tensor<bf16>) -> tensor<i32>
    kiln.return %c : tensor<i32>
  } : (tensor<8x4xbf16>) -> tensor<2x4xbf16>
  return %0 : tensor<2x4xbf16>
}

// -----

func.func @all_to_all_results(%a: tensor<8x4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'kiln.all_to_all' op result types must be (tensor<8x4xf32>), got (tensor<4x8xf32>)}}
  %0 = kiln.all_to_all %a {dimensions = array<i64: 0>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<8x4xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @all_to_all_dimensions(%a: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'kiln.all_to_all' op dimensions must have exactly one entry, got [0, 1]}}
  %0 = kiln.all_to_all %a {dimensions = array<i64: 0, 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @all_to_all_dimension_range(%a: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'kiln.all_to_all' op dimensions[0] must be in [0, 2), got 2}}
  %0 = kiln.all_to_all %a {dimensions = array<i64: 2>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @all_to_all_divisible(%a: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'kiln.all_to_all' op operand 0 dimension 1 (size 4) must be divisible by the group size (3)}}
  %0 = kiln.all_to_all %a {dimensions = array<i64: 1>, replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @all_to_all_tuple_types(%a: tensor<8x4xf32>, %b: tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'kiln.all_to_all' op operand 1 type 'tensor<4xf32>' must equal operand 0's ('tensor<8x4xf32>') in the tuple form (without dimensions)}}
  %0:2 = kiln.all_to_all %a, %b {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<8x4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>)
  return %0#0, %0#1 : tensor<8x4xf32>, tensor<4xf32>
}

// -----

func.func @all_to_all_tuple_count(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'kiln.all_to_all' op takes one operand per member of its group (2) in the tuple form, got 3}}
  %0:3 = kiln.all_to_all %a, %a, %a {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %0#0, %0#1, %0#2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @collective_permute_arity(%a: tensor<4xf32>, %t: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.collective_permute' op expects 2 results (one per operand), got 1}}
  %0 = kiln.collective_permute %a, %t {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @collective_permute_pairs_shape(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.collective_permute' op source_target_pairs must have shape Nx2, got 'tensor<2x3xi64>'}}
  %0 = kiln.collective_permute %a {source_target_pairs = dense<[[0, 1, 2], [1, 2, 0]]> : tensor<2x3xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @collective_permute_source(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.collective_permute' op source_target_pairs must not repeat a source, got 0 twice}}
  %0 = kiln.collective_permute %a {source_target_pairs = dense<[[0, 1], [0, 2]]> : tensor<2x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @collective_permute_target(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.collective_permute' op source_target_pairs must not repeat a target, got 1 twice}}
  %0 = kiln.collective_permute %a {source_target_pairs = dense<[[0, 1], [2, 1]]> : tensor<2x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @collective_permute_result(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'kiln.collective_permute' op result types must be (tensor<4xf32>), got (tensor<4xf16>)}}
  %0 = kiln.collective_permute %a {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @return_outside_region(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'kiln.return' op expects parent op to be one of}}
  kiln.return %a : tensor<f32>
}

// -----

func.func @annotate_bad_opcode(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{hlo_opcode must be 'tuple', 'get-tuple-element' or 'parameter', got 'add'}}
  %0 = kiln.annotate %a {hlo_opcode = "add"} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @annotate_bad_types(%a: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{result types must equal the operand types}}
  %0 = kiln.annotate %a {hlo_opcode = "tuple"} : (tensor<2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @annotate_parameter_not_argument(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = kiln.negate %a : (tensor<2xf32>) -> tensor<2xf32>
  // expected-error @+1 {{with hlo_opcode 'parameter' annotates only the arguments of its own block}}
  %1 = kiln.annotate %0 {hlo_opcode = "parameter"} : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Complex numbers and Fourier transforms
//===----------------------------------------------------------------------===//

func.func @real_operand_int(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'kiln.real' op operand must have a complex or float element type, got 'tensor<4xi32>'}}
  %0 = kiln.real %a : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @real_result_complex(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{'kiln.imag' op result type must be 'tensor<4xf32>' (the operand's shape, the type of its parts), got 'tensor<4xcomplex<f32>>'}}
  %0 = kiln.imag %a : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @complex_lhs_bf16(%a: tensor<4xbf16>) -> tensor<4xcomplex<bf16>> {
  // expected-error @+1 {{'kiln.complex' op lhs must have element type f32 or f64, got 'tensor<4xbf16>'}}
  %0 = kiln.complex %a, %a : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xcomplex<bf16>>
  return %0 : tensor<4xcomplex<bf16>>
}

// -----

func.func @complex_rhs_type(%a: tensor<4xf32>, %b: tensor<4xf64>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{'kiln.complex' op rhs type must be 'tensor<4xf32>' (the lhs type), got 'tensor<4xf64>'}}
  %0 = kiln.complex %a, %b : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @complex_result(%a: tensor<4xf32>) -> tensor<4xcomplex<f64>> {
  // expected-error @+1 {{'kiln.complex' op result type must be 'tensor<4xcomplex<f32>>' (complex of the lhs type), got 'tensor<4xcomplex<f64>>'}}
  %0 = kiln.complex %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xcomplex<f64>>
  return %0 : tensor<4xcomplex<f64>>
}

// -----

func.func @abs_complex_result(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{'kiln.abs' op result type must be 'tensor<4xf32>' (the operand's shape, the type of its parts), got 'tensor<4xcomplex<f32>>'}}
  %0 = kiln.abs %a : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @fft_type(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{'kiln.fft' op fft_type must be one of FFT, IFFT, RFFT, IRFFT, got 'DCT'}}
  %0 = kiln.fft %a {fft_length = array<i64: 4>, fft_type = "DCT"} : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @fft_length_empty(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{'kiln.fft' op fft_length must have 1 to 3 entries, got []}}
  %0 = kiln.fft %a {fft_length = array<i64>, fft_type = "FFT"} : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @fft_length_rank(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{'kiln.fft' op fft_length has 2 entries but the operand has rank 1}}
  %0 = kiln.fft %a {fft_length = array<i64: 2, 4>, fft_type = "FFT"} : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @fft_length_negative(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{'kiln.fft' op fft_length must not be negative, got [-4]}}
  %0 = kiln.fft %a {fft_length = array<i64: -4>, fft_type = "FFT"} : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @rfft_complex_operand(%a: tensor<4xcomplex<f32>>) -> tensor<3xcomplex<f32>> {
  // expected-error @+1 {{'kiln.fft' op RFFT needs an f32 or f64 operand, got 'tensor<4xcomplex<f32>>'}}
  %0 = kiln.fft %a {fft_length = array<i64: 4>, fft_type = "RFFT"} : (tensor<4xcomplex<f32>>) -> tensor<3xcomplex<f32>>
  return %0 : tensor<3xcomplex<f32>>
}

// -----

func.func @fft_operand_dimension(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{'kiln.fft' op operand dimension 0 must be 8 (fft_length [8] for FFT), got 4}}
  %0 = kiln.fft %a {fft_length = array<i64: 8>, fft_type = "FFT"} : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @fft_result(%a: tensor<8xf32>) -> tensor<8xcomplex<f32>> {
  // expected-error @+1 {{'kiln.fft' op result type must be 'tensor<5xcomplex<f32>>' (XLA's fft shape rule), got 'tensor<8xcomplex<f32>>'}}
  %0 = kiln.fft %a {fft_length = array<i64: 8>, fft_type = "RFFT"} : (tensor<8xf32>) -> tensor<8xcomplex<f32>>
  return %0 : tensor<8xcomplex<f32>>
}

// -----

//===----------------------------------------------------------------------===//
// Windowed ops: convolution, select-and-scatter
//===----------------------------------------------------------------------===//

func.func @conv_rank(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32> {
  // expected-error @+1 {{'kiln.convolution' op lhs has rank 4 but 1 spatial dimensions (rank must be 2 more)}}
  %0 = kiln.convolution %x, %w {base_dilations = array<i64: 1, 1>, input_batch_dimension = 0 : i64, input_feature_dimension = 3 : i64, input_spatial_dimensions = array<i64: 1>, kernel_input_feature_dimension = 2 : i64, kernel_output_feature_dimension = 3 : i64, kernel_spatial_dimensions = array<i64: 0, 1>, output_batch_dimension = 0 : i64, output_feature_dimension = 3 : i64, output_spatial_dimensions = array<i64: 1, 2>, padding_high = array<i64: 1, 1>, padding_low = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32>
  return %0 : tensor<1x8x8x6xf32>
}

// -----

func.func @conv_dims_unique(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32> {
  // expected-error @+1 {{'kiln.convolution' op lhs dimension numbers must be unique and in [0, 4), got [0, 1, 1, 2]}}
  %0 = kiln.convolution %x, %w {base_dilations = array<i64: 1, 1>, input_batch_dimension = 0 : i64, input_feature_dimension = 1 : i64, input_spatial_dimensions = array<i64: 1, 2>, kernel_input_feature_dimension = 2 : i64, kernel_output_feature_dimension = 3 : i64, kernel_spatial_dimensions = array<i64: 0, 1>, output_batch_dimension = 0 : i64, output_feature_dimension = 3 : i64, output_spatial_dimensions = array<i64: 1, 2>, padding_high = array<i64: 1, 1>, padding_low = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32>
  return %0 : tensor<1x8x8x6xf32>
}

// -----

func.func @conv_spatial_count(%x: tensor<1x8x8x4xf32>, %w: tensor<3x4x6xf32>) -> tensor<1x8x8x6xf32> {
  // expected-error @+1 {{'kiln.convolution' op lhs, rhs and result must have the same number of spatial dimensions, got 2, 1 and 2}}
  %0 = kiln.convolution %x, %w {base_dilations = array<i64: 1, 1>, input_batch_dimension = 0 : i64, input_feature_dimension = 3 : i64, input_spatial_dimensions = array<i64: 1, 2>, kernel_input_feature_dimension = 1 : i64, kernel_output_feature_dimension = 2 : i64, kernel_spatial_dimensions = array<i64: 0>, output_batch_dimension = 0 : i64, output_feature_dimension = 3 : i64, output_spatial_dimensions = array<i64: 1, 2>, padding_high = array<i64: 1, 1>, padding_low = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<3x4x6xf32>) -> tensor<1x8x8x6xf32>
  return %0 : tensor<1x8x8x6xf32>
}

// -----

func.func @conv_group_count(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32> {
  // expected-error @+1 {{'kiln.convolution' op feature_group_count and batch_group_count must be >= 1, got 0 and 1}}
  %0 = kiln.convolution %x, %w {base_dilations = array<i64: 1, 1>, feature_group_count = 0 : i64, input_batch_dimension = 0 : i64, input_feature_dimension = 3 : i64, input_spatial_dimensions = array<i64: 1, 2>, kernel_input_feature_dimension = 2 : i64, kernel_output_feature_dimension = 3 : i64, kernel_spatial_dimensions = array<i64: 0, 1>, output_batch_dimension = 0 : i64, output_feature_dimension = 3 : i64, output_spatial_dimensions = array<i64: 1, 2>, padding_high = array<i64: 1, 1>, padding_low = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32>
  return %0 : tensor<1x8x8x6xf32>
}

// -----

func.func @conv_both_groups(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32> {
  // expected-error @+1 {{'kiln.convolution' op feature_group_count and batch_group_count cannot both be above 1}}
  %0 = kiln.convolution %x, %w {base_dilations = array<i64: 1, 1>, batch_group_count = 2 : i64, feature_group_count = 2 : i64, input_batch_dimension = 0 : i64, input_feature_dimension = 3 : i64, input_spatial_dimensions = array<i64: 1, 2>, kernel_input_feature_dimension = 2 : i64, kernel_output_feature_dimension = 3 : i64, kernel_spatial_dimensions = array<i64: 0, 1>, output_batch_dimension = 0 : i64, output_feature_dimension = 3 : i64, output_spatial_dimensions = array<i64: 1, 2>, padding_high = array<i64: 1, 1>, padding_low = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32>
  return %0 : tensor<1x8x8x6xf32>
}

// -----

func.func @conv_precision(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32> {
  // expected-error @+1 {{'kiln.convolution' op operand_precision must be one of DEFAULT, HIGH, HIGHEST, default, high, highest, got 'FAST'}}
  %0 = kiln.convolution %x, %w {base_dilations = array<i64: 1, 1>, input_batch_dimension = 0 : i64, input_feature_dimension = 3 : i64, input_spatial_dimensions = array<i64: 1, 2>, kernel_input_feature_dimension = 2 : i64, kernel_output_feature_dimension = 3 : i64, kernel_spatial_dimensions = array<i64: 0, 1>, operand_precision = ["FAST", "DEFAULT"], output_batch_dimension = 0 : i64, output_feature_dimension = 3 : i64, output_spatial_dimensions = array<i64: 1, 2>, padding_high = array<i64: 1, 1>, padding_low = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32>
  return %0 : tensor<1x8x8x6xf32>
}

// -----

func.func @conv_window_size(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32> {
  // expected-error @+1 {{'kiln.convolution' op window_strides must have one entry per spatial dimension (2), got 1}}
  %0 = kiln.convolution %x, %w {base_dilations = array<i64: 1, 1>, input_batch_dimension = 0 : i64, input_feature_dimension = 3 : i64, input_spatial_dimensions = array<i64: 1, 2>, kernel_input_feature_dimension = 2 : i64, kernel_output_feature_dimension = 3 : i64, kernel_spatial_dimensions = array<i64: 0, 1>, output_batch_dimension = 0 : i64, output_feature_dimension = 3 : i64, output_spatial_dimensions = array<i64: 1, 2>, padding_high = array<i64: 1, 1>, padding_low = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 1>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32>
  return %0 : tensor<1x8x8x6xf32>
}

// -----

func.func @conv_window_positive(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32> {
  // expected-error @+1 {{'kiln.convolution' op window_strides must be >= 1, got [0, 1]}}
  %0 = kiln.convolution %x, %w {base_dilations = array<i64: 1, 1>, input_batch_dimension = 0 : i64, input_feature_dimension = 3 : i64, input_spatial_dimensions = array<i64: 1, 2>, kernel_input_feature_dimension = 2 : i64, kernel_output_feature_dimension = 3 : i64, kernel_spatial_dimensions = array<i64: 0, 1>, output_batch_dimension = 0 : i64, output_feature_dimension = 3 : i64, output_spatial_dimensions = array<i64: 1, 2>, padding_high = array<i64: 1, 1>, padding_low = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 0, 1>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32>
  return %0 : tensor<1x8x8x6xf32>
}

// -----

func.func @conv_reversal_size(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32> {
  // expected-error @+1 {{'kiln.convolution' op window_reversal must have one entry per spatial dimension (2), got 1}}
  %0 = kiln.convolution %x, %w {base_dilations = array<i64: 1, 1>, input_batch_dimension = 0 : i64, input_feature_dimension = 3 : i64, input_spatial_dimensions = array<i64: 1, 2>, kernel_input_feature_dimension = 2 : i64, kernel_output_feature_dimension = 3 : i64, kernel_spatial_dimensions = array<i64: 0, 1>, output_batch_dimension = 0 : i64, output_feature_dimension = 3 : i64, output_spatial_dimensions = array<i64: 1, 2>, padding_high = array<i64: 1, 1>, padding_low = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 3, 3>, window_reversal = array<i1: true>, window_strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32>
  return %0 : tensor<1x8x8x6xf32>
}

// -----

func.func @conv_window_kernel(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32> {
  // expected-error @+1 {{'kiln.convolution' op window_dimensions[0] must be 3 (the size of rhs dimension 0), got 5}}
  %0 = kiln.convolution %x, %w {base_dilations = array<i64: 1, 1>, input_batch_dimension = 0 : i64, input_feature_dimension = 3 : i64, input_spatial_dimensions = array<i64: 1, 2>, kernel_input_feature_dimension = 2 : i64, kernel_output_feature_dimension = 3 : i64, kernel_spatial_dimensions = array<i64: 0, 1>, output_batch_dimension = 0 : i64, output_feature_dimension = 3 : i64, output_spatial_dimensions = array<i64: 1, 2>, padding_high = array<i64: 1, 1>, padding_low = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 5, 3>, window_strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32>
  return %0 : tensor<1x8x8x6xf32>
}

// -----

func.func @conv_feature_divisible(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32> {
  // expected-error @+1 {{'kiln.convolution' op lhs feature dimension (size 4) must be divisible by feature_group_count (3)}}
  %0 = kiln.convolution %x, %w {base_dilations = array<i64: 1, 1>, feature_group_count = 3 : i64, input_batch_dimension = 0 : i64, input_feature_dimension = 3 : i64, input_spatial_dimensions = array<i64: 1, 2>, kernel_input_feature_dimension = 2 : i64, kernel_output_feature_dimension = 3 : i64, kernel_spatial_dimensions = array<i64: 0, 1>, output_batch_dimension = 0 : i64, output_feature_dimension = 3 : i64, output_spatial_dimensions = array<i64: 1, 2>, padding_high = array<i64: 1, 1>, padding_low = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32>
  return %0 : tensor<1x8x8x6xf32>
}

// -----

func.func @conv_kernel_input_features(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x2x6xf32>) -> tensor<1x8x8x6xf32> {
  // expected-error @+1 {{'kiln.convolution' op rhs input feature dimension must be 4 (lhs features / feature_group_count), got 2}}
  %0 = kiln.convolution %x, %w {base_dilations = array<i64: 1, 1>, input_batch_dimension = 0 : i64, input_feature_dimension = 3 : i64, input_spatial_dimensions = array<i64: 1, 2>, kernel_input_feature_dimension = 2 : i64, kernel_output_feature_dimension = 3 : i64, kernel_spatial_dimensions = array<i64: 0, 1>, output_batch_dimension = 0 : i64, output_feature_dimension = 3 : i64, output_spatial_dimensions = array<i64: 1, 2>, padding_high = array<i64: 1, 1>, padding_low = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<3x3x2x6xf32>) -> tensor<1x8x8x6xf32>
  return %0 : tensor<1x8x8x6xf32>
}

// -----

func.func @conv_output_features_divisible(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x2x5xf32>) -> tensor<1x8x8x5xf32> {
  // expected-error @+1 {{'kiln.convolution' op rhs output feature dimension (size 5) must be divisible by the group count (2)}}
  %0 = kiln.convolution %x, %w {base_dilations = array<i64: 1, 1>, feature_group_count = 2 : i64, input_batch_dimension = 0 : i64, input_feature_dimension = 3 : i64, input_spatial_dimensions = array<i64: 1, 2>, kernel_input_feature_dimension = 2 : i64, kernel_output_feature_dimension = 3 : i64, kernel_spatial_dimensions = array<i64: 0, 1>, output_batch_dimension = 0 : i64, output_feature_dimension = 3 : i64, output_spatial_dimensions = array<i64: 1, 2>, padding_high = array<i64: 1, 1>, padding_low = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<3x3x2x5xf32>) -> tensor<1x8x8x5xf32>
  return %0 : tensor<1x8x8x5xf32>
}

// -----

func.func @conv_batch_divisible(%x: tensor<3x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32> {
  // expected-error @+1 {{'kiln.convolution' op lhs batch dimension (size 3) must be divisible by batch_group_count (2)}}
  %0 = kiln.convolution %x, %w {base_dilations = array<i64: 1, 1>, batch_group_count = 2 : i64, input_batch_dimension = 0 : i64, input_feature_dimension = 3 : i64, input_spatial_dimensions = array<i64: 1, 2>, kernel_input_feature_dimension = 2 : i64, kernel_output_feature_dimension = 3 : i64, kernel_spatial_dimensions = array<i64: 0, 1>, output_batch_dimension = 0 : i64, output_feature_dimension = 3 : i64, output_spatial_dimensions = array<i64: 1, 2>, padding_high = array<i64: 1, 1>, padding_low = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 1, 1>} : (tensor<3x8x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<1x8x8x6xf32>
  return %0 : tensor<1x8x8x6xf32>
}

// -----

func.func @conv_result(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{'kiln.convolution' op result shape must be [1, 8, 8, 6] (XLA's convolution shape rule), got [1, 6, 6, 6]}}
  %0 = kiln.convolution %x, %w {base_dilations = array<i64: 1, 1>, input_batch_dimension = 0 : i64, input_feature_dimension = 3 : i64, input_spatial_dimensions = array<i64: 1, 2>, kernel_input_feature_dimension = 2 : i64, kernel_output_feature_dimension = 3 : i64, kernel_spatial_dimensions = array<i64: 0, 1>, output_batch_dimension = 0 : i64, output_feature_dimension = 3 : i64, output_spatial_dimensions = array<i64: 1, 2>, padding_high = array<i64: 1, 1>, padding_low = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @sas_source_shape(%x: tensor<8xf32>, %s: tensor<3xf32>, %z: tensor<f32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.select_and_scatter' op source shape must be [4] (one element per window of the operand), got [3]}}
  %0 = kiln.select_and_scatter(%x, %s, %z) attributes {base_dilations = array<i64: 1>, padding_high = array<i64: 0>, padding_low = array<i64: 0>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %p = kiln.compare %a, %b {direction = "GE"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    kiln.return %p : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = kiln.add %a, %a : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %t : tensor<f32>
  } : (tensor<8xf32>, tensor<3xf32>, tensor<f32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @sas_init_scalar(%x: tensor<8xf32>, %s: tensor<4xf32>, %z: tensor<1xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.select_and_scatter' op init_value must be a scalar, got 'tensor<1xf32>'}}
  %0 = kiln.select_and_scatter(%x, %s, %z) attributes {base_dilations = array<i64: 1>, padding_high = array<i64: 0>, padding_low = array<i64: 0>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %p = kiln.compare %a, %b {direction = "GE"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    kiln.return %p : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = kiln.add %a, %a : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %t : tensor<f32>
  } : (tensor<8xf32>, tensor<4xf32>, tensor<1xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @sas_source_element(%x: tensor<8xf32>, %s: tensor<4xf16>, %z: tensor<f32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.select_and_scatter' op source element type must be 'f32' (the operand's), got 'f16'}}
  %0 = kiln.select_and_scatter(%x, %s, %z) attributes {base_dilations = array<i64: 1>, padding_high = array<i64: 0>, padding_low = array<i64: 0>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %p = kiln.compare %a, %b {direction = "GE"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    kiln.return %p : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = kiln.add %a, %a : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %t : tensor<f32>
  } : (tensor<8xf32>, tensor<4xf16>, tensor<f32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @sas_result(%x: tensor<8xf32>, %s: tensor<4xf32>, %z: tensor<f32>) -> tensor<8xf16> {
  // expected-error @+1 {{'kiln.select_and_scatter' op result type must be 'tensor<8xf32>' (the operand's), got 'tensor<8xf16>'}}
  %0 = kiln.select_and_scatter(%x, %s, %z) attributes {base_dilations = array<i64: 1>, padding_high = array<i64: 0>, padding_low = array<i64: 0>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %p = kiln.compare %a, %b {direction = "GE"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    kiln.return %p : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = kiln.add %a, %a : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %t : tensor<f32>
  } : (tensor<8xf32>, tensor<4xf32>, tensor<f32>) -> tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

func.func @sas_select_result(%x: tensor<8xf32>, %s: tensor<4xf32>, %z: tensor<f32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.select_and_scatter' op region 'select' result types must be (tensor<i1>), got (tensor<f32>)}}
  %0 = kiln.select_and_scatter(%x, %s, %z) attributes {base_dilations = array<i64: 1>, padding_high = array<i64: 0>, padding_low = array<i64: 0>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %p = kiln.add %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %p : tensor<f32>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = kiln.add %a, %a : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %t : tensor<f32>
  } : (tensor<8xf32>, tensor<4xf32>, tensor<f32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @sas_scatter_args(%x: tensor<8xf32>, %s: tensor<4xf32>, %z: tensor<f32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.select_and_scatter' op region 'scatter' argument types must be (tensor<f32>, tensor<f32>), got (tensor<f32>, tensor<f16>)}}
  %0 = kiln.select_and_scatter(%x, %s, %z) attributes {base_dilations = array<i64: 1>, padding_high = array<i64: 0>, padding_low = array<i64: 0>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %p = kiln.compare %a, %b {direction = "GE"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    kiln.return %p : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f16>):
    %t = kiln.add %a, %a : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %t : tensor<f32>
  } : (tensor<8xf32>, tensor<4xf32>, tensor<f32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

func.func @cholesky_element(%a: tensor<4x4xi32>) -> tensor<4x4xi32> {
  // expected-error @+1 {{'kiln.cholesky' op operand must have a float or complex element type, got 'tensor<4x4xi32>'}}
  %0 = kiln.cholesky %a : (tensor<4x4xi32>) -> tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
}

// -----

func.func @cholesky_rank(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.cholesky' op operand must have rank >= 2, got 'tensor<4xf32>'}}
  %0 = kiln.cholesky %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @cholesky_result(%a: tensor<4x4xf32>) -> tensor<4x4xf64> {
  // expected-error @+1 {{'kiln.cholesky' op result type must be 'tensor<4x4xf32>' (the operand's), got 'tensor<4x4xf64>'}}
  %0 = kiln.cholesky %a : (tensor<4x4xf32>) -> tensor<4x4xf64>
  return %0 : tensor<4x4xf64>
}

// -----

func.func @ts_transpose(%a: tensor<4x4xf32>, %b: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'kiln.triangular_solve' op transpose_a must be one of NO_TRANSPOSE, TRANSPOSE, ADJOINT, got 'CONJUGATE'}}
  %0 = kiln.triangular_solve %a, %b {left_side = true, transpose_a = "CONJUGATE"} : (tensor<4x4xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @ts_element(%a: tensor<4x4xf32>, %b: tensor<4x3xf64>) -> tensor<4x3xf64> {
  // expected-error @+1 {{'kiln.triangular_solve' op b element type must be 'f32' (a's), got 'f64'}}
  %0 = kiln.triangular_solve %a, %b {left_side = true} : (tensor<4x4xf32>, tensor<4x3xf64>) -> tensor<4x3xf64>
  return %0 : tensor<4x3xf64>
}

// -----

func.func @ts_rank(%a: tensor<4x4xf32>, %b: tensor<2x4x3xf32>) -> tensor<2x4x3xf32> {
  // expected-error @+1 {{'kiln.triangular_solve' op b must have the rank of a (2), got 'tensor<2x4x3xf32>'}}
  %0 = kiln.triangular_solve %a, %b {left_side = true} : (tensor<4x4xf32>, tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----

func.func @ts_batch(%a: tensor<2x4x4xf32>, %b: tensor<3x4x3xf32>) -> tensor<3x4x3xf32> {
  // expected-error @+1 {{'kiln.triangular_solve' op b batch dimensions must be [2] (a's), got [3]}}
  %0 = kiln.triangular_solve %a, %b {left_side = true} : (tensor<2x4x4xf32>, tensor<3x4x3xf32>) -> tensor<3x4x3xf32>
  return %0 : tensor<3x4x3xf32>
}

// -----

func.func @ts_size(%a: tensor<4x4xf32>, %b: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'kiln.triangular_solve' op b dimension 0 must be 4 (a's size, with left_side), got 3}}
  %0 = kiln.triangular_solve %a, %b {left_side = true} : (tensor<4x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @ts_result(%a: tensor<4x4xf32>, %b: tensor<4x3xf32>) -> tensor<4x3xf16> {
  // expected-error @+1 {{'kiln.triangular_solve' op result type must be 'tensor<4x3xf32>' (b's), got 'tensor<4x3xf16>'}}
  %0 = kiln.triangular_solve %a, %b {left_side = true} : (tensor<4x4xf32>, tensor<4x3xf32>) -> tensor<4x3xf16>
  return %0 : tensor<4x3xf16>
}

// -----

func.func @rd_ragged_count(%x: tensor<16x8xf32>, %w: tensor<4x8x32xf32>, %g: tensor<4xi32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{'kiln.ragged_dot' op lhs_ragged_dims must have exactly one entry, got [0, 1]}}
  %0 = kiln.ragged_dot %x, %w, %g {lhs_contracting_dims = array<i64: 1>, lhs_ragged_dims = array<i64: 0, 1>, rhs_contracting_dims = array<i64: 1>, rhs_group_dims = array<i64: 0>} : (tensor<16x8xf32>, tensor<4x8x32xf32>, tensor<4xi32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

func.func @rd_group_count(%x: tensor<16x8xf32>, %w: tensor<4x8x32xf32>, %g: tensor<4xi32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{'kiln.ragged_dot' op rhs_group_dims must have at most one entry, got [0, 2]}}
  %0 = kiln.ragged_dot %x, %w, %g {lhs_contracting_dims = array<i64: 1>, lhs_ragged_dims = array<i64: 0>, rhs_contracting_dims = array<i64: 1>, rhs_group_dims = array<i64: 0, 2>} : (tensor<16x8xf32>, tensor<4x8x32xf32>, tensor<4xi32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

func.func @rd_ragged_range(%x: tensor<16x8xf32>, %w: tensor<4x8x32xf32>, %g: tensor<4xi32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{'kiln.ragged_dot' op lhs_ragged_dims[0] must be in [0, 2), got 2}}
  %0 = kiln.ragged_dot %x, %w, %g {lhs_contracting_dims = array<i64: 1>, lhs_ragged_dims = array<i64: 2>, rhs_contracting_dims = array<i64: 1>, rhs_group_dims = array<i64: 0>} : (tensor<16x8xf32>, tensor<4x8x32xf32>, tensor<4xi32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

func.func @rd_group_is_contracting(%x: tensor<16x8xf32>, %w: tensor<4x8x32xf32>, %g: tensor<4xi32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{'kiln.ragged_dot' op rhs_group_dims must not be a batch or contracting dimension, got 1}}
  %0 = kiln.ragged_dot %x, %w, %g {lhs_contracting_dims = array<i64: 1>, lhs_ragged_dims = array<i64: 0>, rhs_contracting_dims = array<i64: 1>, rhs_group_dims = array<i64: 1>} : (tensor<16x8xf32>, tensor<4x8x32xf32>, tensor<4xi32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

func.func @rd_group_sizes_rank(%x: tensor<16x8xf32>, %w: tensor<4x8x32xf32>, %g: tensor<i32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{'kiln.ragged_dot' op group_sizes must have rank >= 1, got 'tensor<i32>'}}
  %0 = kiln.ragged_dot %x, %w, %g {lhs_contracting_dims = array<i64: 1>, lhs_ragged_dims = array<i64: 0>, rhs_contracting_dims = array<i64: 1>, rhs_group_dims = array<i64: 0>} : (tensor<16x8xf32>, tensor<4x8x32xf32>, tensor<i32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

func.func @rd_groups(%x: tensor<16x8xf32>, %w: tensor<4x8x32xf32>, %g: tensor<3xi32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{'kiln.ragged_dot' op rhs group dimension 0 must have the number of groups (3, group_sizes' last dimension), got 4}}
  %0 = kiln.ragged_dot %x, %w, %g {lhs_contracting_dims = array<i64: 1>, lhs_ragged_dims = array<i64: 0>, rhs_contracting_dims = array<i64: 1>, rhs_group_dims = array<i64: 0>} : (tensor<16x8xf32>, tensor<4x8x32xf32>, tensor<3xi32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

func.func @rd_result(%x: tensor<16x8xf32>, %w: tensor<4x8x32xf32>, %g: tensor<4xi32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'kiln.ragged_dot' op result shape must be [16, 32] (batch, lhs free, rhs free dimensions), got [16, 8]}}
  %0 = kiln.ragged_dot %x, %w, %g {lhs_contracting_dims = array<i64: 1>, lhs_ragged_dims = array<i64: 0>, rhs_contracting_dims = array<i64: 1>, rhs_group_dims = array<i64: 0>} : (tensor<16x8xf32>, tensor<4x8x32xf32>, tensor<4xi32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @scaled_dot_scale_rank(%x: tensor<16x8xf32>, %s: tensor<4xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{'kiln.scaled_dot' op lhs_scale must be a scalar or have its operand's rank (2), got 'tensor<4xf32>'}}
  %0 = kiln.scaled_dot %x, %x, %s, %s {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 1>} : (tensor<16x8xf32>, tensor<16x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

func.func @scaled_dot_result(%x: tensor<16x8xf32>, %s: tensor<f32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'kiln.scaled_dot' op result shape must be [16, 16] (batch, lhs free, rhs free dimensions), got [16, 8]}}
  %0 = kiln.scaled_dot %x, %x, %s, %s {lhs_contracting_dims = array<i64: 1>, rhs_contracting_dims = array<i64: 1>} : (tensor<16x8xf32>, tensor<16x8xf32>, tensor<f32>, tensor<f32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Asynchronous pairs, transfers and more collectives
//===----------------------------------------------------------------------===//

func.func @async_start_args(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.async_start' op region 'calls' argument types must be (tensor<4xf32>), got (tensor<4xf16>)}}
  %s:2 = kiln.async_start(%a) {
  ^bb0(%y: tensor<4xf16>):
    kiln.return %y : tensor<4xf16>
  } : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf16>)
  return %s#0 : tensor<4xf32>
}

// -----

func.func @async_start_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.async_start' op expects at least 2 results (the operands, then the results of 'calls'), got 1}}
  %s = kiln.async_start(%a) {
  ^bb0(%y: tensor<4xf32>):
    kiln.return %y : tensor<4xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

func.func @async_start_types(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.async_start' op leading result types must be (tensor<4xf32>, tensor<4xf32>), got (tensor<4xf32>, tensor<8xf32>)}}
  %s:2 = kiln.async_start(%a) {
  ^bb0(%y: tensor<4xf32>):
    kiln.return %y : tensor<4xf32>
  } : (tensor<4xf32>) -> (tensor<4xf32>, tensor<8xf32>)
  return %s#0 : tensor<4xf32>
}

// -----

func.func @async_update_types(%a: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.async_update' op result types must be (tensor<4xf32>), got (tensor<8xf32>)}}
  %0 = kiln.async_update %a : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @async_done_empty() -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.async_done' op expects the values that async_start returns}}
  %0 = "kiln.async_done"() : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @async_done_types(%a: tensor<4xf32>) -> tensor<8xf32> {
  %s:2 = kiln.async_start(%a) {
  ^bb0(%y: tensor<4xf32>):
    kiln.return %y : tensor<4xf32>
  } : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  // expected-error @+1 {{'kiln.async_done' op result types must be (tensor<4xf32>), got (tensor<8xf32>)}}
  %d = kiln.async_done %s#0, %s#1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  return %d : tensor<8xf32>
}

// -----

func.func @all_reduce_start_types(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'kiln.all_reduce_start' op result types must be (tensor<4xf32>), got (tensor<4xf16>)}}
  %r = kiln.all_reduce_start(%a) attributes {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} {
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %t = kiln.add %p, %q : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %t : tensor<f32>
  } : (tensor<4xf32>) -> tensor<4xf16>
  return %r : tensor<4xf16>
}

// -----

func.func @all_reduce_done_empty() -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.all_reduce_done' op expects the 1 or more values that all_reduce_start returns, got 0}}
  %0 = "kiln.all_reduce_done"() : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @all_reduce_done_types(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'kiln.all_reduce_done' op result types must be (tensor<4xf32>), got (tensor<4xf16>)}}
  %0 = kiln.all_reduce_done %a : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @all_gather_start_count(%x: tensor<2x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'kiln.all_gather_start' op expects 2 results (the operands, then the gathered values), got 1}}
  %g = kiln.all_gather_start %x {dimensions = array<i64: 0>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2x4xf32>) -> (tensor<8x4xf32>)
  return %g : tensor<8x4xf32>
}

// -----

func.func @all_gather_start_leading(%x: tensor<2x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'kiln.all_gather_start' op leading result types must be (tensor<2x4xf32>), got (tensor<2x4xf16>)}}
  %g:2 = kiln.all_gather_start %x {dimensions = array<i64: 0>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2x4xf32>) -> (tensor<2x4xf16>, tensor<8x4xf32>)
  return %g#1 : tensor<8x4xf32>
}

// -----

func.func @all_gather_start_gathered(%x: tensor<2x4xf32>) -> tensor<8x5xf32> {
  // expected-error @+1 {{'kiln.all_gather_start' op gathered result 0 type must be 'tensor<8x4xf32>' (operand's, but along dimensions[0]), got 'tensor<8x5xf32>'}}
  %g:2 = kiln.all_gather_start %x {dimensions = array<i64: 0>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<8x5xf32>)
  return %g#1 : tensor<8x5xf32>
}

// -----

func.func @all_gather_done_odd(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.all_gather_done' op expects the operands and gathered values that all_gather_start returns (an even number), got 1}}
  %0 = kiln.all_gather_done %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @all_gather_done_types(%a: tensor<2x4xf32>, %b: tensor<8x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'kiln.all_gather_done' op result types must be (tensor<8x4xf32>), got (tensor<2x4xf32>)}}
  %0 = kiln.all_gather_done %a, %b : (tensor<2x4xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @cp_start_pairs(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.collective_permute_start' op source_target_pairs must have shape Nx2, got 'tensor<1x3xi64>'}}
  %p:2 = kiln.collective_permute_start %a {source_target_pairs = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %p#0 : tensor<4xf32>
}

// -----

func.func @cp_start_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.collective_permute_start' op expects at least 2 results (the operand, then the received value), got 1}}
  %0 = kiln.collective_permute_start %a {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @cp_start_types(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.collective_permute_start' op result types must be (tensor<4xf32>, tensor<4xf32>, tensor<ui32>), got (tensor<4xf32>, tensor<4xf32>, tensor<i32>)}}
  %p:3 = kiln.collective_permute_start %a {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<i32>)
  return %p#0 : tensor<4xf32>
}

// -----

func.func @cp_done_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.collective_permute_done' op expects the 2 or more values that collective_permute_start returns, got 1}}
  %0 = kiln.collective_permute_done %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @cp_done_type(%a: tensor<4xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.collective_permute_done' op result type must be 'tensor<8xf32>' (the received value's), got 'tensor<4xf32>'}}
  %0 = kiln.collective_permute_done %a, %b : (tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @copy_start_types(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.copy_start' op result types must be (tensor<4xf32>, tensor<4xf32>), got (tensor<4xf32>, tensor<8xf32>)}}
  %c:2 = kiln.copy_start %a : (tensor<4xf32>) -> (tensor<4xf32>, tensor<8xf32>)
  return %c#0 : tensor<4xf32>
}

// -----

func.func @copy_done_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.copy_done' op expects the 2 or more values that copy_start returns, got 1}}
  %0 = kiln.copy_done %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @copy_done_type(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.copy_done' op result type must be 'tensor<4xf32>' (the destination's), got 'tensor<8xf32>'}}
  %0 = kiln.copy_done %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @send_token(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.send' op operands must end with a token, got (tensor<4xf32>)}}
  %s:2 = kiln.send %a : (tensor<4xf32>) -> (tensor<4xf32>, tensor<ui32>)
  return %s#0 : tensor<4xf32>
}

// -----

func.func @send_results(%a: tensor<4xf32>, %t: !kiln.token) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.send' op result types must be (tensor<4xf32>, tensor<ui32>, !kiln.token), got (tensor<4xf32>, !kiln.token)}}
  %s:2 = kiln.send %a, %t : (tensor<4xf32>, !kiln.token) -> (tensor<4xf32>, !kiln.token)
  return %s#0 : tensor<4xf32>
}

// -----

func.func @send_done_token(%a: tensor<4xf32>) -> !kiln.token {
  // expected-error @+1 {{'kiln.send_done' op operands must end with a token, got (tensor<4xf32>)}}
  %0 = kiln.send_done %a : (tensor<4xf32>) -> !kiln.token
  return %0 : !kiln.token
}

// -----

func.func @recv_token(%t: !kiln.token) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.recv' op results must end with a token, got (tensor<4xf32>, tensor<ui32>)}}
  %r:2 = kiln.recv %t : (!kiln.token) -> (tensor<4xf32>, tensor<ui32>)
  return %r#0 : tensor<4xf32>
}

// -----

func.func @recv_context(%t: !kiln.token) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.recv' op results must be (data..., u32 context, token), got (tensor<4xf32>, !kiln.token)}}
  %r:2 = kiln.recv %t : (!kiln.token) -> (tensor<4xf32>, !kiln.token)
  return %r#0 : tensor<4xf32>
}

// -----

func.func @recv_done_count(%t: !kiln.token) -> !kiln.token {
  // expected-error @+1 {{'kiln.recv_done' op expects (data..., u32 context, token) from recv, got (!kiln.token)}}
  %0 = kiln.recv_done %t : (!kiln.token) -> !kiln.token
  return %0 : !kiln.token
}

// -----

func.func @recv_done_types(%a: tensor<4xf32>, %c: tensor<ui32>, %t: !kiln.token) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.recv_done' op result types must be (tensor<4xf32>, !kiln.token), got (tensor<8xf32>, !kiln.token)}}
  %r:2 = kiln.recv_done %a, %c, %t : (tensor<4xf32>, tensor<ui32>, !kiln.token) -> (tensor<8xf32>, !kiln.token)
  return %a : tensor<4xf32>
}

// -----

func.func @infeed_token(%t: !kiln.token) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.infeed' op results must end with a token, got (tensor<4xf32>)}}
  %0 = kiln.infeed %t : (!kiln.token) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @outfeed_token(%a: tensor<4xf32>) -> !kiln.token {
  // expected-error @+1 {{'kiln.outfeed' op operands must end with a token, got (tensor<4xf32>)}}
  %0 = kiln.outfeed %a : (tensor<4xf32>) -> !kiln.token
  return %0 : !kiln.token
}

// -----

func.func @add_dependency_type(%a: tensor<4xf32>, %t: !kiln.token) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.add_dependency' op result type must be 'tensor<4xf32>' (the operand's), got 'tensor<8xf32>'}}
  %0 = kiln.add_dependency %a, %t : (tensor<4xf32>, !kiln.token) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @collective_broadcast_types(%a: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.collective_broadcast' op result types must be (tensor<4xf32>), got (tensor<8xf32>)}}
  %0 = kiln.collective_broadcast %a {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @ragged_all_to_all_output(%x: tensor<2x4xf32>, %y: tensor<2x4xf16>, %i: tensor<2xi32>, %j: tensor<2xi32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'kiln.ragged_all_to_all' op output must have the input's rank and element type, got 'tensor<2x4xf32>' and 'tensor<2x4xf16>'}}
  %0 = kiln.ragged_all_to_all %x, %y, %i, %j, %i, %i {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>, tensor<2x4xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @ragged_all_to_all_sizes(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>, %i: tensor<2xi32>, %j: tensor<2xi64>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'kiln.ragged_all_to_all' op offsets and sizes must have one type, got (tensor<2xi32>, tensor<2xi64>, tensor<2xi32>, tensor<2xi32>)}}
  %0 = kiln.ragged_all_to_all %x, %y, %i, %j, %i, %i {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2xi32>, tensor<2xi64>, tensor<2xi32>, tensor<2xi32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @ragged_all_to_all_result(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>, %i: tensor<2xi32>, %j: tensor<2xi32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'kiln.ragged_all_to_all' op result type must be 'tensor<2x4xf32>' (the output operand's), got 'tensor<4x4xf32>'}}
  %0 = kiln.ragged_all_to_all %x, %y, %i, %j, %i, %i {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Map, fusion, conversions and dynamic sizes
//===----------------------------------------------------------------------===//

func.func @map_shapes(%a: tensor<4xf32>, %b: tensor<5xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.map' op input 1 shape must be [4] (input 0's), got [5]}}
  %0 = kiln.map(%a, %b) attributes {dimensions = array<i64: 0>} {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = kiln.maximum %y, %y : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %m : tensor<f32>
  } : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @map_args(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.map' op region 'to_apply' argument types must be (tensor<f32>, tensor<f32>), got (tensor<f16>, tensor<f32>)}}
  %0 = kiln.map(%a, %b) attributes {dimensions = array<i64: 0>} {
  ^bb0(%x: tensor<f16>, %y: tensor<f32>):
    %m = kiln.maximum %y, %y : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %m : tensor<f32>
  } : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @map_returns_scalar(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.map' op region 'to_apply' must return one scalar, got (tensor<f32>, tensor<f32>)}}
  %0 = kiln.map(%a, %b) attributes {dimensions = array<i64: 0>} {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = kiln.maximum %y, %y : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %m, %m : tensor<f32>, tensor<f32>
  } : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @map_dimensions(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.map' op dimensions must be [0, ..., 0] (map applies to every dimension), got [1]}}
  %0 = kiln.map(%a, %b) attributes {dimensions = array<i64: 1>} {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = kiln.maximum %y, %y : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %m : tensor<f32>
  } : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @map_result(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'kiln.map' op result type must be 'tensor<4xf32>' (the inputs' shape, the computation's element type), got 'tensor<4xf16>'}}
  %0 = kiln.map(%a, %b) attributes {dimensions = array<i64: 0>} {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = kiln.maximum %y, %y : (tensor<f32>, tensor<f32>) -> tensor<f32>
    kiln.return %m : tensor<f32>
  } : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @fusion_kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.fusion' op kind must be one of kLoop, kInput, kOutput, kCustom, got 'kFast'}}
  %0 = kiln.fusion(%a) attributes {kind = "kFast"} {
  ^bb0(%x: tensor<4xf32>):
    kiln.return %x : tensor<4xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @fusion_region(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.fusion' op region 'calls' argument types must be (tensor<4xf32>), got (tensor<4xf16>)}}
  %0 = kiln.fusion(%a) attributes {kind = "kLoop"} {
  ^bb0(%x: tensor<4xf16>):
    kiln.return %x : tensor<4xf16>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @stochastic_operand(%a: tensor<4xi32>, %r: tensor<4xui32>) -> tensor<4xi8> {
  // expected-error @+1 {{'kiln.stochastic_convert' op operand must have a float element type, got 'tensor<4xi32>'}}
  %0 = kiln.stochastic_convert %a, %r : (tensor<4xi32>, tensor<4xui32>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @stochastic_random_signed(%a: tensor<4xf32>, %r: tensor<4xi32>) -> tensor<4xbf16> {
  // expected-error @+1 {{'kiln.stochastic_convert' op random must have unsigned elements of the operand's width (32 bits), got 'tensor<4xi32>'}}
  %0 = kiln.stochastic_convert %a, %r : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

func.func @rng_state_size() -> tensor<3xui64> {
  // expected-error @+1 {{'kiln.rng_get_and_update_state' op result must be tensor<2xui64>, got 'tensor<3xui64>'}}
  %0 = kiln.rng_get_and_update_state {delta = 8 : i64} : () -> tensor<3xui64>
  return %0 : tensor<3xui64>
}

// -----

func.func @get_dimension_size_count(%a: tensor<4x4xf32>) -> tensor<i32> {
  // expected-error @+1 {{'kiln.get_dimension_size' op dimensions must have exactly one entry, got [0, 1]}}
  %0 = kiln.get_dimension_size %a {dimensions = array<i64: 0, 1>} : (tensor<4x4xf32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @get_dimension_size_range(%a: tensor<4x4xf32>) -> tensor<i32> {
  // expected-error @+1 {{'kiln.get_dimension_size' op dimensions[0] must be in [0, 2), got 2}}
  %0 = kiln.get_dimension_size %a {dimensions = array<i64: 2>} : (tensor<4x4xf32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @set_dimension_size_result(%a: tensor<4xf32>, %n: tensor<i32>) -> tensor<8xf32> {
  // expected-error @+1 {{'kiln.set_dimension_size' op result shape and element type must be 'tensor<4xf32>' (the operand's), got 'tensor<8xf32>'}}
  %0 = kiln.set_dimension_size %a, %n {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<i32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @dynamic_reshape_sizes(%a: tensor<4xf32>, %n: tensor<i32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'kiln.dynamic_reshape' op expects one size per result dimension (2), got 1}}
  %0 = kiln.dynamic_reshape %a, %n : (tensor<4xf32>, tensor<i32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @dynamic_reshape_element(%a: tensor<4xf32>, %n: tensor<i32>) -> tensor<4xf16> {
  // expected-error @+1 {{'kiln.dynamic_reshape' op result element type must be 'f32' (the operand's), got 'f16'}}
  %0 = kiln.dynamic_reshape %a, %n : (tensor<4xf32>, tensor<i32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @domain_type(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'kiln.domain' op result type must be 'tensor<4xf32>' (the operand's), got 'tensor<4xf16>'}}
  %0 = kiln.domain %a : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}
