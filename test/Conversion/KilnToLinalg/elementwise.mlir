// RUN: kiln-opt --convert-kiln-to-linalg -split-input-file %s | FileCheck %s

// Unsigned division: signedness comes from the kiln type (the lowered
// tensor is signless), and a zero divisor gives all ones, not a trap.
// CHECK-LABEL: func.func @divide_unsigned
// CHECK-SAME:    (%{{.*}}: tensor<4xi32>, %{{.*}}: tensor<4xi32>) -> tensor<4xi32>
// CHECK:         linalg.generic
// CHECK:           %[[ZERO:.*]] = arith.cmpi eq
// CHECK:           %[[SAFE:.*]] = arith.select %[[ZERO]]
// CHECK:           %[[Q:.*]] = arith.divui %{{.*}}, %[[SAFE]]
// CHECK:           arith.select %[[ZERO]], %{{.*}}, %[[Q]]
func.func @divide_unsigned(%a: tensor<4xui32>, %b: tensor<4xui32>) -> tensor<4xui32> {
  %0 = kiln.divide %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  return %0 : tensor<4xui32>
}

// -----

// Signed division also guards INT_MIN / -1.
// CHECK-LABEL: func.func @divide_signed
// CHECK:         arith.andi
// CHECK:         arith.divsi
func.func @divide_signed(%a: tensor<4xi8>, %b: tensor<4xi8>) -> tensor<4xi8> {
  %0 = kiln.divide %a, %b : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// bf16 is computed in f32 and rounded after each op.
// CHECK-LABEL: func.func @add_bf16
// CHECK:         ^bb0(%[[X:.*]]: bf16, %[[Y:.*]]: bf16, %{{.*}}: bf16):
// CHECK:           %[[XW:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK:           %[[YW:.*]] = arith.extf %[[Y]] : bf16 to f32
// CHECK:           %[[S:.*]] = arith.addf %[[XW]], %[[YW]] : f32
// CHECK:           %[[R:.*]] = arith.truncf %[[S]] : f32 to bf16
// CHECK:           linalg.yield %[[R]] : bf16
func.func @add_bf16(%a: tensor<8xbf16>, %b: tensor<8xbf16>) -> tensor<8xbf16> {
  %0 = kiln.add %a, %b : (tensor<8xbf16>, tensor<8xbf16>) -> tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// -----

// A scalar predicate selects whole tensors without a broadcast.
// CHECK: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @select_scalar
// CHECK:         linalg.generic {indexing_maps = [#[[SCALAR]],
func.func @select_scalar(%p: tensor<i1>, %a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.select %p, %a, %b : (tensor<i1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Float to int saturates and sends NaN to 0.
// CHECK-LABEL: func.func @convert_saturates
// CHECK:         arith.cmpf uno
// CHECK:         arith.cmpf oge
// CHECK:         arith.cmpf ole
// CHECK:         arith.fptosi
// CHECK:         arith.select
// CHECK:         arith.select
func.func @convert_saturates(%a: tensor<4xf32>) -> tensor<4xi8> {
  %0 = kiln.convert %a : (tensor<4xf32>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// TOTALORDER compares the bits, with negative magnitudes flipped.
// CHECK-LABEL: func.func @compare_total_order
// CHECK:         arith.bitcast %{{.*}} : f32 to i32
// CHECK:         arith.shrsi
// CHECK:         arith.cmpi slt
func.func @compare_total_order(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  %0 = kiln.compare %a, %b {direction = "LT", type = "TOTALORDER"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
