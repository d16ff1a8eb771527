// RUN: kiln-opt --canonicalize %s | FileCheck %s

// Data-movement ops that leave their operand as it is fold away; on a splat
// literal they fold to the splat of their result type; a reshape of a
// reshape is one reshape. Ops that move data stay.

// CHECK-LABEL: func.func @folds
// CHECK-DAG:     %[[SPLAT:.*]] = kiln.constant dense<1.000000e+00> : tensor<2x3xf32>
// CHECK-DAG:     %[[RESHAPED:.*]] = kiln.reshape %arg0 : (tensor<4x2xf32>) -> tensor<8xf32>
// CHECK-DAG:     %[[MOVED:.*]] = kiln.transpose %arg0 {dimensions = array<i64: 1, 0>}
// CHECK:         return %[[RESHAPED]], %arg0, %[[SPLAT]], %arg0, %arg0, %arg0, %[[MOVED]]
func.func @folds(%x: tensor<4x2xf32>) -> (tensor<8xf32>, tensor<4x2xf32>, tensor<2x3xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<2x4xf32>) {
  %a = kiln.reshape %x : (tensor<4x2xf32>) -> tensor<2x4xf32>
  %b = kiln.reshape %a : (tensor<2x4xf32>) -> tensor<8xf32>
  %t = kiln.transpose %x {dimensions = array<i64: 0, 1>} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %c = kiln.constant dense<1.0> : tensor<3x2xf32>
  %ct = kiln.transpose %c {dimensions = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %cv = kiln.convert %t : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %r = kiln.reverse %x {dimensions = array<i64>} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %s = kiln.slice %x {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 4, 2>, strides = array<i64: 1, 1>} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %moved = kiln.transpose %x {dimensions = array<i64: 1, 0>} : (tensor<4x2xf32>) -> tensor<2x4xf32>
  return %b, %t, %ct, %cv, %r, %s, %moved : tensor<8xf32>, tensor<4x2xf32>, tensor<2x3xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<2x4xf32>
}
